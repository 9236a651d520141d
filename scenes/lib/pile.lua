-- lib/pile.lua: pile1000's world with a given friction (pile1000 mu 0.5, b2_spheres mu 0):
-- require("lib.pile")(mu) after world{}.
return function(mu)
  local C = require("lib.common")

  ground{ friction = mu }
  C.open_box(1.0, mu)
  local spheres = {}
  for k = 0, 999 do
    local l, iy, ix = k // 81, (k % 81) // 9, k % 9
    spheres[#spheres + 1] = body{
      mass = 1.0,
      position = {-0.84 + 0.21 * ix + 0.004 * C.jitter(k, 1), -0.84 + 0.21 * iy + 0.004 * C.jitter(k, 2), 0.3 + 0.25 * l},
      shape = { type = "sphere", radius = 0.1, friction = mu },
    }
  end

  local max_pen = C.track_max(function() return moreau.stats().max_penetration end)
  check("contacts penetrate at most 3 mm", function()
    return max_pen() <= 0.003, string.format("max penetration %.5f m", max_pen())
  end)
  check("no sphere leaves the box", function()
    local out = 0
    for _, s in ipairs(spheres) do
      local p = s:position()
      if math.abs(p.x) > 1 or math.abs(p.y) > 1 or p.z < -0.5 then out = out + 1 end
    end
    return out == 0, out .. " spheres outside"
  end)
end
