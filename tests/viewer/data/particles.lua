-- three particles resting on the ground (spheres of radius 0.1 and 0.05 m against the plane, and
-- one of radius 0, a point), for the viewer's particle drawing
world{ time_step = 1 / 120 }
ground{}
particle{ position = {-0.3, 0, 0.1}, radius = 0.1, mass = 1 }
particle{ position = {0, 0, 0.05}, radius = 0.05, mass = 1 }
particle{ position = {0.3, 0, 0}, radius = 0, mass = 1 }
