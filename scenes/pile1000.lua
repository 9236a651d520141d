-- pile1000 (SCENES.md): 1000 spheres (r 0.1, 1 kg) on a jittered 9 x 9 grid per layer,
-- dropped into an open box with inner faces at x, y = +-1 m (walls 0.1 m thick, 4 m
-- high), mu 0.5, 5 s. Same world as the built-in C scene pile1000.
-- Claims (SCENES.md target): contacts never penetrate more than 3 mm; no sphere leaves the box.
world{ gravity = {0, 0, -9.81}, time_step = 1 / 120, duration = 5 }
require("lib.pile")(0.5)
