-- mjcf_pendulum (issue 22): the double pendulum of double_pendulum.lua loaded from MJCF
-- (models/mjcf/double_pendulum.xml, moreau.mjcf) beside the same pendulum built with
-- articulation{}, each released from 1.2 and -0.6 rad; no contacts (the MJCF geoms are visual:
-- contype 0), no damping.
-- Claims: the two pendulums move alike (max |q_mjcf - q_articulation| below 1e-12 rad over the
-- run: the import gives the masses, inertias, axes and joint frames of the hand-built one), and
-- the MJCF one keeps its energy within 1 % of the swing energy (as double_pendulum.lua).
-- params: h (time step, s), duration (s).
local H = param("h", 1 / 120)
local DURATION = param("duration", 2.0)
world{ gravity = {0, 0, -9.81}, time_step = H, duration = DURATION }

local robot = moreau.mjcf{ file = "models/mjcf/double_pendulum.xml" }
local mj = robot.articulation
local L, M = 1.0, 1.0
local I = {M * L * L / 12, M * L * L / 12, 1e-4}
local ref = articulation{ name = "reference", position = {0, 0, 2.5}, links = {
  { name = "upper", joint = "revolute", axis = {0, 1, 0}, mass = M, com = {0, 0, -L / 2}, inertia = I },
  { name = "lower", parent = "upper", joint = "revolute", axis = {0, 1, 0}, position = {0, 0, -L},
    mass = M, com = {0, 0, -L / 2}, inertia = I } } }
local function energy() local k, p = mj:energy(); return k + p end
local E_REST = energy()
mj:set_q({1.2, -0.6})
ref:set_q({1.2, -0.6})
local E0 = energy()
local SWING = E0 - E_REST
local worst_e, worst_q = 0, 0
local function compare()
  local a, b = mj:q(), ref:q()
  for i = 1, 2 do worst_q = math.max(worst_q, math.abs(a[i] - b[i])) end
  worst_e = math.max(worst_e, math.abs(energy() - E0))
end
on_step(compare)

check("the MJCF pendulum moves as the articulation{} one (max |dq| < 1e-12 rad)", function()
  compare()
  return worst_q < 1e-12, string.format("max |q_mjcf - q_articulation| = %.3e rad over %.2f s", worst_q, moreau.time())
end)
check("the MJCF pendulum's energy drifts less than 1 % of its swing energy", function()
  compare()
  local d = worst_e / SWING
  return d < 0.01, string.format("max |E - E0| / (E0 - E_rest) = %.3e (E0 - E_rest = %.4f J)", d, SWING)
end)
