-- pyramid (SCENES.md): a 2D-style pyramid of boxes (side 0.5 m, 1 kg, mu 0.5) with a
-- base of 20: row r holds 20 - r boxes, 210 in all, 1 cm gaps between neighbours in a
-- row, each row resting on the one below; 5 s.
-- Claim: the pyramid stands, the top box within 1 cm of its start.
world{ gravity = {0, 0, -9.81}, time_step = 1 / 120, duration = 5,
       solver = { kind = "spg", iterations = 100, coulomb_updates = 10 } }

local base, side, gap, mu = 20, 0.5, 0.01, 0.5
ground{ friction = mu }
local top
for r = 0, base - 1 do
  local n = base - r
  for i = 0, n - 1 do
    top = body{ mass = 1, position = {(i - (n - 1) / 2) * (side + gap), 0, side / 2 + side * r},
                shape = { type = "box", half_extents = {side / 2, side / 2, side / 2}, friction = mu } }
  end
end
local top0 = top:position()
check("the pyramid stands: top box within 1 cm of its start", function()
  local p = top:position()
  local d = math.sqrt((p.x - top0.x) ^ 2 + (p.y - top0.y) ^ 2 + (p.z - top0.z) ^ 2)
  return d < 0.01, string.format("top box moved %.5f m", d)
end)
