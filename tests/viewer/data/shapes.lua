-- every shape type the viewer draws, and a hinge (joint overlay)
world{ time_step = 1 / 120 }
ground{}
body{ name = "box", mass = 1, position = {-1.5, 0, 0.25}, shape = { type = "box", half_extents = {0.25, 0.25, 0.25} } }
body{ name = "sphere", mass = 1, position = {-0.75, 0, 0.25}, shape = { type = "sphere", radius = 0.25 } }
body{ name = "capsule", mass = 1, position = {0, 0, 0.2}, orientation = moreau.axis_angle({1, 0, 0}, math.pi / 2),
      shape = { type = "capsule", radius = 0.2, half_height = 0.25 } }
body{ name = "cylinder", mass = 1, position = {0.75, 0, 0.25}, shape = { type = "cylinder", radius = 0.25, half_height = 0.25 } }
local pts = {}
for i = 0, 11 do
  local a = 2 * math.pi * i / 12
  pts[#pts + 1] = {0.25 * math.cos(a), 0.25 * math.sin(a), (i % 2 == 0) and -0.2 or 0.2}
end
pts[#pts + 1] = {0, 0, 0.35}
body{ name = "hull", mass = 1, position = {1.5, 0, 0.3}, shape = { type = "hull", points = pts } }
body{ name = "mesh", type = "static", position = {0, 1.5, 0},
      shape = { type = "mesh", vertices = {{-0.5, -0.5, 0}, {0.5, -0.5, 0}, {0, 0.5, 0}, {0, 0, 0.6}},
                triangles = {{1, 3, 2}, {1, 2, 4}, {2, 3, 4}, {3, 1, 4}} } }
local arm = body{ name = "arm", mass = 1, position = {0, -1.5, 1.0}, shape = { type = "box", half_extents = {0.4, 0.05, 0.05} } }
joint{ type = "revolute", b = arm, anchor = {-0.4, -1.5, 1.0}, axis = {0, 1, 0} }
