-- pyramid (SCENES.md): a 2D-style pyramid of boxes (side 0.5 m, 1 kg, mu 0.5) with a
-- base of 20: row r holds 20 - r boxes, 210 in all, 1 cm gaps between neighbours in a
-- row, each row resting on the one below; 5 s.
-- Claim: the pyramid stands, the top box within 1 cm of its start.
-- Solver: PGS, 4 substeps of 50 sweeps. Why: with P-SPG-FB 100 + 10 Coulomb updates the top
-- box moved 2.6 cm, and not in the pyramid's plane: the whole 10 m high, 0.5 m deep wall
-- rocks about the x axis (out of plane, y) with an amplitude that grows from ~2 s on (top at
-- y = -2.1, +1.8, -2.8, +2.6 cm at 3, 3.5, 4.5, 5 s; in-plane spread of the upper rows
-- < 1 cm), from the solver's unconverged impulses. Every one-step setting tried rocks; the
-- claim (measured at the end) passes for some only by the phase of the rocking, so the
-- largest displacement over the run is given too. Measured, full 5 s,
-- ./build-cat/tools/moreau-run scenes/pyramid.lua --check [options] (2-core shared machine):
--   setting (ms/step): top box moved at the end / largest over the run
--   SPG 100, 10 Coulomb updates (before) (21-31): 2.64 cm FAIL / 3.13 cm
--   SPG 100 (22.0): 1.51 cm FAIL;  PGS 100 (8.6): 1.99 cm FAIL
--   APGD 100 (19.5): 0.50 cm / 1.07 cm;  APGD 100 + 10 Coulomb updates (26.6): 1.59 cm FAIL
--   APGD 100 + diagonal_scaling (27.4): 1.31 cm FAIL;  APGD 200 (38.8): 0.70 / 0.93 cm
--   2 substeps x APGD 100 (45.0): 0.54 / 0.59 cm
--   2 x PGS 50 (10.4): 0.65 / 1.68 cm;  3 x PGS 20 (8.5): 0.54 / 1.22 cm
--   4 x PGS 25 (13.1): 0.63 / 0.81 cm;  4 x PGS 35 (16.3): 0.26 / 0.43 cm
--   4 x PGS 50 (21.6): 0.18 / 0.43 cm PASS (over 10 s: 0.22 / 0.53 cm, the rocking stays small)
world{ gravity = {0, 0, -9.81}, time_step = 1 / 120, duration = 5, substeps = 4,
       solver = { kind = "pgs", iterations = 50 } }

local base, side, gap, mu = 20, 0.5, 0.01, 0.5
ground{ friction = mu }
local top
for r = 0, base - 1 do
  local n = base - r
  for i = 0, n - 1 do
    top = body{ mass = 1, position = {(i - (n - 1) / 2) * (side + gap), 0, side / 2 + side * r},
                shape = { type = "box", half_extents = {side / 2, side / 2, side / 2}, friction = mu } }
  end
end
local top0 = top:position()
check("the pyramid stands: top box within 1 cm of its start", function()
  local p = top:position()
  local d = math.sqrt((p.x - top0.x) ^ 2 + (p.y - top0.y) ^ 2 + (p.z - top0.z) ^ 2)
  return d < 0.01, string.format("top box moved %.5f m", d)
end)
