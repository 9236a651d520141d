-- gs_spheres (SCENES.md, Gauss-Seidel paper): spheres resting on the ground and on each
-- other, mu 0.5: a 10 x 10 square layer of touching spheres (r 0.1, 1 kg) on the ground
-- and a 9 x 9 layer in its pockets, 5 s, the PGS reference case.
-- Claim: everything stays at rest (no sphere moves more than 5 mm).
-- Solver: PGS, 10 sweeps (2026-11-28, moreau-bench scenes --cheapest and moreau-run --check): the
-- claim holds from 5 sweeps (largest displacement 0.78 mm; 4 fails), 8: 0.71 mm, 10: 0.08 mm,
-- 12: 0.10 mm, the engine's default 50: 0 mm at 4x 10's cost.
world{ gravity = {0, 0, -9.81}, time_step = 1 / 120, duration = 5,
       solver = { kind = "pgs", iterations = 10 } }

local r, mu = 0.1, 0.5
ground{ friction = mu }
local spheres, start = {}, {}
local function sphere(x, y, z)
  local b = body{ mass = 1, position = {x, y, z}, shape = { type = "sphere", radius = r, friction = mu } }
  spheres[#spheres + 1], start[#start + 1] = b, b:position()
end
for i = 0, 9 do for j = 0, 9 do sphere(2 * r * i, 2 * r * j, r) end end
-- a sphere in a pocket of four touches each of them: centre sqrt(2) r above the layer
for i = 0, 8 do for j = 0, 8 do sphere(2 * r * i + r, 2 * r * j + r, r + math.sqrt(2) * r) end end

check("the spheres stay at rest (each moves < 5 mm)", function()
  local m = 0
  for i, b in ipairs(spheres) do
    local p, s = b:position(), start[i]
    m = math.max(m, math.sqrt((p.x - s.x) ^ 2 + (p.y - s.y) ^ 2 + (p.z - s.z) ^ 2))
  end
  return m < 0.005, string.format("largest displacement %.5f m", m)
end)
