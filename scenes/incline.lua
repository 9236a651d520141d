-- incline (SCENES.md): blocks on a 30 degree incline, one with mu just above tan 30
-- (it sticks), one just below (it slides), 2 s. The incline's friction is 1, and a
-- pair's mu is sqrt(mu_a mu_b), so each block's friction is the pair's mu squared.
-- Claims: the block above tan 30 stays within 1 cm; the one below slides at least
-- 0.3 m down (analytic: a = g (sin 30 - mu cos 30) = 0.42 m/s^2, 0.85 m in 2 s).
world{ gravity = {0, 0, -9.81}, time_step = 1 / 120, duration = 2,
       solver = { kind = "pgs", iterations = 100, coulomb_updates = 10 } }

local angle = math.rad(30)
local q = moreau.axis_angle({0, 1, 0}, angle)
local n = moreau.rotate(q, {0, 0, 1})          -- the slope's normal; downhill is +x
local slab = 0.1
body{ type = "static", orientation = q, shape = { type = "box", half_extents = {4, 1.5, slab}, friction = 1.0 } }

local function block(name, mu, y)
  -- on the surface, 2 m uphill of the centre line
  local d = moreau.rotate(q, {-2, y, 0})
  return body{ name = name, mass = 1, orientation = q,
               position = {d.x + n.x * (slab + 0.1), d.y + n.y * (slab + 0.1), d.z + n.z * (slab + 0.1)},
               shape = { type = "box", half_extents = {0.1, 0.1, 0.1}, friction = mu * mu } }
end
local t30 = math.tan(angle)
local sticks, slides = block("sticks", t30 + 0.05, -0.5), block("slides", t30 - 0.05, 0.5)
local s0, l0 = sticks:position(), slides:position()
local function dist(a, b) return math.sqrt((a.x - b.x) ^ 2 + (a.y - b.y) ^ 2 + (a.z - b.z) ^ 2) end

check("the block with mu above tan 30 sticks (moves < 1 cm)", function()
  local d = dist(sticks:position(), s0)
  return d < 0.01, string.format("moved %.5f m", d)
end)
check("the block with mu below tan 30 slides (>= 0.3 m in 2 s)", function()
  if moreau.time() < 1.99 then return true, "needs the full 2 s" end
  local d = dist(slides:position(), l0)
  return d >= 0.3, string.format("slid %.4f m", d)
end)
