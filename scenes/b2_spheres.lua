-- b2_spheres (SCENES.md B2, SPG paper): pile1000 without friction: 1000 frictionless
-- spheres settled in the box, a pure unilateral problem (about 3500 contacts once settled).
-- Same world as the built-in C scene b2_spheres.
-- Claims: as pile1000's (penetration at most 3 mm, no sphere leaves the box).
world{ gravity = {0, 0, -9.81}, time_step = 1 / 120, duration = 5 }
require("lib.pile")(0.0)
