-- b3_plates (SCENES.md B3, SPG paper): a vertical stack of 20 steel plates 1 x 1 m
-- (density 7800) of alternating thickness 0.01 / 0.2 m (78 / 1560 kg, mass ratio 1:20),
-- mu 0.3, resting on the ground, 10 s. Same world as the built-in C scene b3_plates.
-- Claim: the stack stands, the top plate within 1 cm of its start.
world{ gravity = {0, 0, -9.81}, time_step = 1 / 120, duration = 10,
       solver = { kind = "spg", iterations = 100, coulomb_updates = 10 } }

local n, mu = 20, 0.3
ground{ friction = mu }
local z, plates = 0.0, {}
for i = 0, n - 1 do
  local hz = (i % 2 == 0) and 0.005 or 0.1
  plates[#plates + 1] = body{
    name = "plate" .. i, mass = 7800.0 * 1.0 * 1.0 * 2.0 * hz, position = {0, 0, z + hz},
    shape = { type = "box", half_extents = {0.5, 0.5, hz}, friction = mu },
  }
  z = z + 2.0 * hz
end

local top, top0 = plates[n], plates[n]:position()
check("the plates stand: top plate within 1 cm of its start", function()
  local p = top:position()
  local dxy = math.sqrt((p.x - top0.x) ^ 2 + (p.y - top0.y) ^ 2)
  local dz = p.z - top0.z
  return dxy < 0.01 and math.abs(dz) < 0.01, string.format("top dxy = %.5f m, dz = %.5f m", dxy, dz)
end)
