-- b2_spheres (SCENES.md B2, SPG paper): pile1000 without friction: 1000 frictionless
-- spheres settled in the box, a pure unilateral problem (about 3500 contacts once settled).
-- Same world as the built-in C scene b2_spheres.
-- Claims: as pile1000's (penetration at most 3 mm, no sphere leaves the box).
-- Solver: PGS, 3 substeps of 20 sweeps. Why: as pile1000 (landing layers move 3-6 cm per
-- step, more than the 1 cm contact margin), and without friction PGS converges worse during
-- the landing (residual ~1 m/s all run), so 15 sweeps per substep leave 4.5 mm. Measured,
-- full 5 s, ./build-cat/tools/moreau-run scenes/b2_spheres.lua --check (2-core shared machine):
--   PGS 50 (before):          7.8 ms/step, max penetration 0.02234 m: FAIL
--   3 substeps x PGS 20:      12.8 ms/step, max penetration 0.00217 m, 0 spheres out: PASS
--   3 substeps x PGS 30:      16.2 ms/step, 0.00166 m; 4 x PGS 20: 17.0 ms, 0.00159 m
--   3 substeps x PGS 15:      10.8 ms/step, 0.00451 m: FAIL
--   3 substeps x APGD 30:     42 ms/step, 0.00037 m (APGD converges, at 4x the cost)
--   contact_margin 0.03, PGS 50: 10.0 ms/step, 0.00544 m: FAIL (and not the C twin's world)
world{ gravity = {0, 0, -9.81}, time_step = 1 / 120, duration = 5, substeps = 3,
       solver = { kind = "pgs", iterations = 20 } }
require("lib.pile")(0.0)
