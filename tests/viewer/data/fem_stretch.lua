-- two corotational bars of tetrahedra (0.1 x 0.1 x 0.4 m, 1 x 1 x 4 cells: 20 nodes, 24
-- tetrahedra each), no gravity, Newton step. The first (x = -0.15) has its end faces held
-- and its top face pulled up at 0.4 m/s for 30 steps (to 1.3 x its length, then held):
-- strained. The second (x = +0.15) is free and at rest: unstrained (|E|_F exactly 0).
world{ gravity = {0, 0, 0}, time_step = 1 / 60,
       solver = { kind = "newton", newton = { iterations = 8, linear_iterations = 60 } } }
local box = require("lib.box_mesh")
local L = 0.4
local mat = { model = "corotational", young = 1e5, poisson = 0.3, density = 1000 }
local nodes, tets = box(1, 1, 4, {-0.2, -0.05, 0}, {0.1, 0.1, L})
local pulled = fem{ name = "pulled", nodes = nodes, tets = tets, material = mat,
                    fixed = function(x, y, z) return z < 1e-9 or z > L - 1e-9 end }
nodes, tets = box(1, 1, 4, {0.1, -0.05, 0}, {0.1, 0.1, L})
fem{ name = "free", nodes = nodes, tets = tets, material = mat }
local top = {}
for i = 1, pulled:node_count() do
  if pulled:node_position(i).z > L - 1e-9 then top[#top + 1] = i end
end
for _, i in ipairs(top) do pulled:set_fixed_velocity(i, {0, 0, 0.4}) end
on_step(function(t, step)
  if step == 30 then
    for _, i in ipairs(top) do pulled:set_fixed_velocity(i, {0, 0, 0}) end
  end
end)
