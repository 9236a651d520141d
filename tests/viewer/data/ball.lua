-- a ball at rest on the ground (the scene the tests drop onto the viewer)
world{ time_step = 1 / 120 }
ground{}
body{ name = "ball", mass = 1.0, position = {0, 0, 0.3}, shape = { type = "sphere", radius = 0.3 } }
