-- stack20 (SCENES.md): 20 cubes of side 0.5 m, 1 kg, resting exactly in contact
-- (centres at z = 0.25 + 0.5 i), mu 0.5, 10 s. Claim: the stack still stands, the
-- top cube within 1 cm of its start. Same world as the built-in C scene stack20.
world{ gravity = {0, 0, -9.81}, time_step = 1 / 120, duration = 10,
       -- measured: PGS at 50 sweeps lets the top cube drift 6 cm in 10 s; P-SPG-FB with exact Coulomb friction holds it
       solver = { kind = "spg", iterations = 100, coulomb_updates = 10 } }

local n, mu = 20, 0.5
ground{ friction = mu }
local boxes = {}
for i = 0, n - 1 do
  boxes[#boxes + 1] = body{
    name = "box" .. i, mass = 1.0, position = {0, 0, 0.25 + 0.5 * i},
    shape = { type = "box", half_extents = {0.25, 0.25, 0.25}, friction = mu },
  }
end

local top, top0 = boxes[n], boxes[n]:position()
check("the stack stands: top cube within 1 cm of its start", function()
  local p = top:position()
  local dxy = math.sqrt((p.x - top0.x) ^ 2 + (p.y - top0.y) ^ 2)
  local dz = p.z - top0.z
  return dxy < 0.01 and math.abs(dz) < 0.01, string.format("top dxy = %.5f m, dz = %.5f m", dxy, dz)
end)
