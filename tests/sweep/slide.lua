-- slide: one block on an incline, for moreau-sweep's tests (tests/sweep/test_sweep.py).
-- Parameters: friction (the block-incline pair's mu), mass (kg), angle (degrees).
-- The seed (moreau-sweep --seeds, moreau-run --seed) places the block sideways at random
-- (math.random), which changes the state but not the physics. Claim: the block moves as
-- Coulomb's law says over 1 s: it sticks (< 1 mm) when mu > tan(angle), else it slides
-- s = a t^2 / 2 with a = g (sin - mu cos), within 2 %.
world{ gravity = {0, 0, -9.81}, time_step = 1 / 120, duration = 1,
       solver = { kind = "pgs", iterations = 60, coulomb_updates = 5 } }

local mu, mass = param("friction", 0.5), param("mass", 1.0)
local angle = math.rad(param("angle", 20))
local q = moreau.axis_angle({0, 1, 0}, angle)
local n = moreau.rotate(q, {0, 0, 1})
local slab = 0.1
body{ type = "static", orientation = q, shape = { type = "box", half_extents = {4, 1.5, slab}, friction = 1.0 } }

local y = (math.random() - 0.5) * 0.4
local d = moreau.rotate(q, {-2, y, 0})
local block = body{ name = "block", mass = mass, orientation = q,
                    position = {d.x + n.x * (slab + 0.1), d.y + n.y * (slab + 0.1), d.z + n.z * (slab + 0.1)},
                    shape = { type = "box", half_extents = {0.1, 0.1, 0.1}, friction = mu * mu } }
local p0 = block:position()

check("the block moves as Coulomb's law says", function()
  local p = block:position()
  local s = math.sqrt((p.x - p0.x) ^ 2 + (p.y - p0.y) ^ 2 + (p.z - p0.z) ^ 2)
  local t = moreau.time()
  local a = 9.81 * (math.sin(angle) - mu * math.cos(angle))
  if a <= 0 then return s < 1e-3, string.format("stuck: moved %.6f m", s) end
  local want = 0.5 * a * t * t
  return math.abs(s - want) <= 0.02 * want, string.format("slid %.5f m, Coulomb %.5f m", s, want)
end)
