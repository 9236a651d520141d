-- a scene for moreau-bench scenes --cheapest (test bench_cheapest): a box resting on the ground,
-- PGS with no tolerance (every sweep runs), 4 substeps of 10 sweeps; its one claim holds when a
-- step ran at least 24 sweeps in all (moreau.stats().iterations sums the substeps'), so the
-- search from 4 x 10 finds 3 substeps (2 x 10 = 20 fails), then 8 sweeps (3 x 7 = 21 fails).
world{ gravity = {0, 0, -9.81}, time_step = 1 / 120, duration = 0.05, substeps = 4,
       solver = { kind = "pgs", iterations = 10, tolerance = 0 } }
ground{}
body{ position = {0, 0, 0.1}, shape = { type = "box", half_extents = {0.1, 0.1, 0.1} } }
check("every step ran at least 24 sweeps", function()
  local n = moreau.stats().iterations
  return n >= 24, string.format("%d sweeps in the last step", n)
end)
