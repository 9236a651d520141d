-- table_pile (SCENES.md, Newton paper): 54 tables, each a compound body (a top 0.8 x 0.6 x
-- 0.05 m and four 0.05 x 0.05 x 0.4 m legs, wood 700 kg/m^3, mass from the shapes),
-- dropped in a pile: 3 x 3 per layer, 6 layers 0.7 m apart, each turned by a few
-- degrees; mu 0.5, 5 s.
-- Claims: no table sinks into the ground (lowest centre above 0.1 m); after 4 s the pile
-- has come to rest (every table slower than 0.1 m/s).
local C = require("lib.common")
world{ gravity = {0, 0, -9.81}, time_step = 1 / 120, duration = 5 }

local mu, wood = 0.5, 700
ground{ friction = mu }
local function table_at(k, x, y, z)
  local leg = function(lx, ly)
    return { type = "box", half_extents = {0.025, 0.025, 0.2}, position = {lx, ly, -0.225}, density = wood, friction = mu }
  end
  return body{
    name = "table" .. k, position = {x, y, z},
    orientation = moreau.axis_angle({0, 0, 1}, 0.2 * C.jitter(k, 1)),
    shapes = {
      { type = "box", half_extents = {0.4, 0.3, 0.025}, density = wood, friction = mu },
      leg(0.35, 0.25), leg(-0.35, 0.25), leg(0.35, -0.25), leg(-0.35, -0.25),
    },
  }
end
local tables = {}
for k = 0, 53 do
  local layer, cell = k // 9, k % 9
  tables[#tables + 1] = table_at(k, 1.0 * (cell % 3 - 1) + 0.05 * C.jitter(k, 2),
                                 0.8 * (cell // 3 - 1) + 0.05 * C.jitter(k, 3), 0.45 + 0.7 * layer)
end

check("no table sinks into the ground", function()
  local low = math.huge
  for _, t in ipairs(tables) do low = math.min(low, t:position().z) end
  return low > 0.1, string.format("lowest centre of mass at %.4f m", low)
end)
check("the pile comes to rest after 4 s", function()
  if moreau.time() < 4 then return true, "needs 4 s" end
  local vmax = 0
  for _, t in ipairs(tables) do
    local v = t:velocity()
    vmax = math.max(vmax, math.sqrt(v.x * v.x + v.y * v.y + v.z * v.z))
  end
  return vmax < 0.1, string.format("fastest table %.4f m/s", vmax)
end)
