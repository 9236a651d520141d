-- the viewer tests' box with its start height as a scene parameter (moreau-view --set z=...)
local z = param("z", 0.25)
world{ time_step = 1 / 120, solver = { kind = "pgs", iterations = 40 } }
ground{ friction = 0.5 }
body{ name = "box", mass = 1.0, position = {0, 0, z},
      shape = { type = "box", half_extents = {0.25, 0.25, 0.25} } }
