-- double_pendulum (issue 19): a frictionless double pendulum as an articulation (two
-- 1 kg rods of 1 m on revolute joints about y, fixed base 2.5 m up), released from
-- 1.2 and -0.6 rad, no damping, no drives, no contacts. The articulation's default
-- integrator is the implicit midpoint rule, which has no secular energy drift.
-- Claim: over the run (10 s at h = 1/120) the total energy E = kinetic + potential stays
-- within 1 % of its initial value relative to the energy of the swing, E0 - E_rest
-- (E_rest: both rods hanging still): max |E(t) - E0| / (E0 - E_rest) < 0.01.
-- params: h (time step, s), duration (s), integrator ("midpoint" or "euler": the
-- semi-implicit Euler gains energy: 17 % over 10 s, the claim then fails).
local H = param("h", 1 / 120)
local DURATION = param("duration", 10.0)
local INTEGRATOR = param("integrator", "midpoint")
world{ gravity = {0, 0, -9.81}, time_step = H, duration = DURATION }

local L, M = 1.0, 1.0
local I = {M * L * L / 12, M * L * L / 12, 1e-4}   -- a thin rod about its centre
local pend = articulation{ name = "pendulum", position = {0, 0, 2.5}, integrator = INTEGRATOR, links = {
  { name = "upper", joint = "revolute", axis = {0, 1, 0}, mass = M, com = {0, 0, -L / 2}, inertia = I },
  { name = "lower", parent = "upper", joint = "revolute", axis = {0, 1, 0}, position = {0, 0, -L},
    mass = M, com = {0, 0, -L / 2}, inertia = I } } }
local function energy() local k, p = pend:energy(); return k + p end
local E_REST = energy()   -- at rest hanging (q = 0): the engine's potential energy, zero at the world origin
pend:set_q({1.2, -0.6})
local E0 = energy()
local SWING = E0 - E_REST
local worst = 0
on_step(function() worst = math.max(worst, math.abs(energy() - E0)) end)

check("the energy drifts less than 1 % of the swing energy (E0 - E_rest) over the run", function()
  local d = math.max(worst, math.abs(energy() - E0)) / SWING
  return d < 0.01, string.format("max |E - E0| / (E0 - E_rest) = %.3e over %.2f s (E0 - E_rest = %.4f J, h = %.5f s, %s)",
                                 d, moreau.time(), SWING, moreau.time_step(), INTEGRATOR)
end)
