-- a fixed-base arm without shapes (revolute shoulder, prismatic forearm, spherical wrist) held still by gravity
-- compensation, for the viewer's skeleton overlay (key 9): nothing of it is drawn but its skeleton
world{ time_step = 1 / 120, solver = { kind = "pgs", iterations = 40 } }
ground{ friction = 0.5 }
local arm = articulation{ name = "arm", position = {0, 0, 0.2},
  links = {
    { name = "base", joint = "fixed" },
    { name = "upper", parent = "base", joint = "revolute", axis = {0, 1, 0}, position = {0, 0, 0.3},
      com = {0.3, 0, 0}, mass = 1, inertia = 0.01 },
    { name = "fore", parent = "upper", joint = "prismatic", axis = {1, 0, 0}, position = {0.6, 0, 0},
      com = {0.2, 0, 0}, mass = 0.5, inertia = 0.01 },
    { name = "hand", parent = "fore", joint = "spherical", position = {0, 0, -0.3}, mass = 0.2, inertia = 0.001 } } }
arm:set_torques(arm:gravity_compensation())
