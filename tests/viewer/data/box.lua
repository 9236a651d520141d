-- one 0.5 m box (1 kg) resting on the ground, for the viewer tests
world{ time_step = 1 / 120, solver = { kind = "pgs", iterations = 40 } }
ground{ friction = 0.5 }
body{ name = "box", mass = 1.0, position = {0, 0, 0.25},
      shape = { type = "box", half_extents = {0.25, 0.25, 0.25} } }
