-- b1_net (SCENES.md B1, SPG paper): a 40 x 25 net of 1000 spheres (r 0.05, 1 kg, 0.15 m
-- apart) in the vertical x-z plane, each joined to its right, lower and lower-right
-- neighbours by distance joints (rest lengths 0.15 and 0.15 sqrt 2), the top row pinned
-- to the world by spherical joints; no collision geometry: a bilateral-only problem
-- (975 + 960 + 936 distance rows, 120 pin rows). 5 s. Same world as the built-in C scene b1_net.
-- Claim: the joints hold, drift at most 1 cm.
world{ gravity = {0, 0, -9.81}, time_step = 1 / 120, duration = 5 }

local nx, nz, a, r = 40, 25, 0.15, 0.05
local I = 0.4 * r * r
local nodes, joints = {}, {}
for iz = 0, nz - 1 do
  for ix = 0, nx - 1 do
    nodes[iz * nx + ix] = body{ mass = 1.0, inertia = {I, I, I}, position = {a * ix, 0, -a * iz} }
  end
end
for ix = 0, nx - 1 do
  local p = nodes[ix]:position()
  joints[#joints + 1] = joint{ type = "spherical", b = nodes[ix], anchor_a = {p.x, p.y, p.z} }
end
local nb = { {1, 0}, {0, 1}, {1, 1} } -- right, lower, lower-right
for iz = 0, nz - 1 do
  for ix = 0, nx - 1 do
    for _, d in ipairs(nb) do
      local jx, jz = ix + d[1], iz + d[2]
      if jx < nx and jz < nz then
        joints[#joints + 1] = joint{ type = "distance", a = nodes[iz * nx + ix], b = nodes[jz * nx + jx] }
      end
    end
  end
end

local max_drift = require("lib.common").track_max(function() return moreau.stats().max_joint_error end)
check("the net's joints hold: drift at most 1 cm", function()
  return max_drift() <= 0.01, string.format("max joint error %.6f m", max_drift())
end)
