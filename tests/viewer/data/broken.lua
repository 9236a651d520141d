-- a scene with a bad value on line 4
ground{}
body{ name = "ok", mass = 1.0, position = {0, 0, 1}, shape = { type = "sphere", radius = 0.1 } }
body{ name = "bad", mass = -1, position = {0, 0, 2}, shape = { type = "sphere", radius = 0.1 } }
