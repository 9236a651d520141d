-- a soft corotational block of tetrahedra (0.3 m, 2 x 2 x 2 cells: 27 nodes, 48 tetrahedra)
-- resting on the ground, solved by the Newton step: the viewer tests draw it, drag a node
-- and reset it
world{ time_step = 1 / 60, solver = { kind = "newton", newton = { iterations = 8, linear_iterations = 60 } } }
ground{ friction = 0.8 }
local nodes, tets = require("lib.box_mesh")(2, 2, 2, {-0.15, -0.15, 0.002}, {0.3, 0.3, 0.3})
fem{ name = "block", nodes = nodes, tets = tets,
     material = { model = "corotational", young = 2e4, poisson = 0.3, density = 300 } }
