-- quadruped (issue 19): a 12-DoF quadruped as one articulation, built here from Lua
-- tables. A free-floating base (a 0.5 x 0.24 x 0.1 m box, 10 kg) carries four legs of
-- three revolute joints each: hip abduction (about x), hip flexion (about y) and knee
-- (about y); hip links 0.6 kg, thighs 1 kg and 0.22 m, shanks 0.3 kg and 0.22 m with a
-- capsule (radius 2 cm) whose lower end is the foot; 17.6 kg in all. The base has a
-- box shape too; it and the shanks collide with the ground plane (mu 1).
--
-- Control: every joint has a PD drive (implicit in the engine) towards its target with a
-- feed-forward torque: the gravity compensation of a standing robot, i.e. the RNEA gravity
-- torques a:gravity_compensation() minus the share of the weight carried by each stance
-- foot mapped through the foot's Jacobian (a:jacobian), tau = G - sum J_foot^T (0, 0, W/n).
-- It starts in the standing pose (feet under the hips, base 0.433 m up, touching the
-- ground) and stands still for `stand` s (default 1), then trots: diagonal pairs (front
-- left + rear right, front right + rear left) in antiphase, hip flexion target
-- q0 + A (cos(phase) - 1), knee folded by B max(0, sin(phase)) while its foot swings, period T,
-- the amplitudes ramped in over the first period.
--
-- Claims: (1) while standing, the base height stays within 1 cm of its initial standing
-- height and its tilt (the angle of its z axis from the vertical) within 2 degrees;
-- (2) while trotting the base does not fall (its height stays above 0.25 m, the base
-- box never touches the ground) and by the end of the run it has moved forward (+x) by
-- more than 0.1 m. params: h (time step), stand (s standing), trot (s trotting; 0: a
-- standing-only run), period (s), amp (thigh amplitude, rad), lift (knee lift, rad).
local H = param("h", 1 / 120)
local STAND = param("stand", 1.0)
local TROT = param("trot", 4.0)
local PERIOD = param("period", 0.3)
local AMP = param("amp", 0.1)
local LIFT = param("lift", 0.3)
local INTEGRATOR = param("integrator", "midpoint") -- "euler": one mass-matrix factorisation a step
world{ gravity = {0, 0, -9.81}, time_step = H, duration = STAND + TROT,
       solver = { kind = "pgs", iterations = 50 } }
ground{ friction = 1.0 }

-- dimensions
local BX, BY, BZ, BMASS = 0.25, 0.12, 0.05, 10.0   -- base half extents (m), mass (kg)
local HIP_X, HIP_Y, HIP_Z = 0.20, 0.12, -0.05      -- hip joints in the base frame
local HIP_OFS = 0.05                                -- thigh joint outward from the hip joint
local L1, L2, R_FOOT = 0.22, 0.22, 0.02             -- thigh, shank lengths; foot (capsule) radius
local M_HIP, M_THIGH, M_SHANK = 0.6, 1.0, 0.3
local Q_THIGH, Q_KNEE = 0.6, -1.2                   -- standing pose: the foot under the thigh joint
local function rod(m, l) return {m * l * l / 12, m * l * l / 12, 1e-4} end

local legs = { {name = "fl", x = 1, y = 1, phase = 0}, {name = "fr", x = 1, y = -1, phase = math.pi},
               {name = "rl", x = -1, y = 1, phase = math.pi}, {name = "rr", x = -1, y = -1, phase = 0} }
local links = { { name = "base", joint = "free", mass = BMASS,
                  inertia = {BMASS / 3 * (BY * BY + BZ * BZ), BMASS / 3 * (BX * BX + BZ * BZ), BMASS / 3 * (BX * BX + BY * BY)},
                  shape = { type = "box", half_extents = {BX, BY, BZ}, friction = 1.0 } } }
for _, leg in ipairs(legs) do
  local n = leg.name
  links[#links + 1] = { name = n .. "_hip", parent = "base", axis = {1, 0, 0},
                        position = {leg.x * HIP_X, leg.y * HIP_Y, HIP_Z}, mass = M_HIP, inertia = 5e-4 }
  links[#links + 1] = { name = n .. "_thigh", parent = n .. "_hip", axis = {0, 1, 0},
                        position = {0, leg.y * HIP_OFS, 0}, mass = M_THIGH, com = {0, 0, -L1 / 2},
                        inertia = rod(M_THIGH, L1) }
  links[#links + 1] = { name = n .. "_shank", parent = n .. "_thigh", axis = {0, 1, 0},
                        position = {0, 0, -L1}, mass = M_SHANK, com = {0, 0, -L2 / 2}, inertia = rod(M_SHANK, L2),
                        shape = { type = "capsule", radius = R_FOOT, half_height = L2 / 2, position = {0, 0, -L2 / 2},
                                  friction = 1.0 } }
end
local Z0 = -HIP_Z + (L1 + L2) * math.cos(Q_THIGH) + R_FOOT   -- standing base height: the feet touch the ground
local dog = articulation{ name = "quadruped", position = {0, 0, Z0}, integrator = INTEGRATOR, links = links }
local _, _, NV = dog:size()
-- the shanks never touch the base (parent-child pairs never collide; this pair is not one)
local base_body = dog:link_body("base")
for _, leg in ipairs(legs) do base_body:set_pair_collision(dog:link_body(leg.name .. "_shank"), false) end

local TOTAL = BMASS + 4 * (M_HIP + M_THIGH + M_SHANK)
local G = 9.81
-- dof of joint j (1 hip, 2 thigh, 3 knee) of leg i: the free base has dofs 1..6
local function dof(i, j) return 6 + 3 * (i - 1) + j end
local function link_of(i, j) return 1 + 3 * (i - 1) + j end
local KP = {300, 300, 300}                          -- N m/rad
local KD = {6, 6, 6}                                -- N m s/rad
local EFFORT = 80                                   -- N m

-- feed-forward: G - sum over stance feet of J_foot^T (0, 0, W / n)
local function feed_forward(stance)
  local tau = dog:gravity_compensation()
  local n = 0
  for i = 1, 4 do if stance[i] then n = n + 1 end end
  if n == 0 then return tau end
  local fz = TOTAL * G / n
  for i = 1, 4 do
    if stance[i] then
      local jv = dog:jacobian(link_of(i, 3), {0, 0, -L2})
      for k = 1, NV do tau[k] = tau[k] - jv[3][k] * fz end
    end
  end
  return tau
end

local function targets(t)
  local q, stance = {}, {}
  for i, leg in ipairs(legs) do
    local th, kn = Q_THIGH, Q_KNEE
    stance[i] = true
    if t >= STAND and TROT > 0 then
      local s = 2 * math.pi * (t - STAND) / PERIOD + leg.phase
      -- ramp the amplitude in over the first period
      local ramp = math.min(1, (t - STAND) / PERIOD)
      th = Q_THIGH + ramp * AMP * (math.cos(s) - 1)
      kn = Q_KNEE - ramp * LIFT * math.max(0, math.sin(s))
      stance[i] = math.sin(s) <= 0
    end
    q[i] = {0, th, kn}
  end
  return q, stance
end

-- the standing pose at rest
do
  local q0 = dog:q()
  for i = 1, 4 do q0[7 + 3 * (i - 1) + 2] = Q_THIGH; q0[7 + 3 * (i - 1) + 3] = Q_KNEE end
  dog:set_q(q0)
end

local function tilt()
  local _, o = dog:link_pose("base")
  -- the base z axis's world z component: 1 - 2 (x^2 + y^2)
  local c = 1 - 2 * (o.x * o.x + o.y * o.y)
  return math.deg(math.acos(math.max(-1, math.min(1, c))))
end
local function base_pos() local p = dog:link_pose("base"); return p end

local x_start = base_pos().x
local stand_dz, stand_tilt, stand_steps = 0, 0, 0
local trot_min_z, trot_steps = math.huge, 0
local base_touched = false
local function observe(t)
  local p = base_pos()
  if t <= STAND + 1e-9 then
    stand_dz = math.max(stand_dz, math.abs(p.z - Z0))
    stand_tilt = math.max(stand_tilt, tilt())
    stand_steps = stand_steps + 1
  else
    trot_min_z = math.min(trot_min_z, p.z)
    trot_steps = trot_steps + 1
  end
  if #moreau.contacts(base_body) > 0 then base_touched = true end
end

on_step(function(t)
  observe(t)
  local q, stance = targets(t + moreau.time_step())  -- the drives act at the end of the step
  local ff = feed_forward(stance)
  for i = 1, 4 do
    for j = 1, 3 do
      dog:set_drive(link_of(i, j), { stiffness = KP[j], damping = KD[j], target_position = q[i][j],
                                     torque = ff[dof(i, j)], max_effort = EFFORT })
    end
  end
end)

check(string.format("standing (first %g s): base height within 1 cm of its standing height %.4f m, tilt within 2 degrees",
                    STAND, Z0), function()
  observe(moreau.time())
  return stand_dz < 0.01 and stand_tilt < 2,
         string.format("max |z - z0| = %.3e m, max tilt = %.3e deg over %d samples (h = %.5f s)", stand_dz, stand_tilt,
                       stand_steps, moreau.time_step())
end)

check("trotting: the base stays above 0.25 m, never touches the ground, and moves forward > 0.1 m by the end",
      function()
  if TROT <= 0 then return true, "no trot in this run (trot = 0)" end
  local p = base_pos()
  local z = math.min(trot_min_z, p.z)
  local dx = p.x - x_start
  local done = moreau.time() >= STAND + TROT - 0.5 * moreau.time_step()
  local ok = z > 0.25 and not base_touched and (not done or dx > 0.1)
  return ok, string.format("min base z = %.4f m, base touched: %s, forward %.4f m, sideways %.4f m at t = %.2f s%s", z,
                           tostring(base_touched), dx, p.y, moreau.time(), done and "" or " (the trot is not over)")
end)
