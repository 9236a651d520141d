-- arm6 (issue 19): a 6-DoF arm as an articulation on a fixed base, built here from Lua
-- tables: base yaw (z), shoulder pitch (y), elbow pitch (y), wrist roll (z), wrist pitch
-- (y), flange roll (z); links 4, 3, 2, 0.8, 0.5, 0.3 kg; upper arm 0.4 m, forearm 0.35 m,
-- wrist 0.08 + 0.08 m, the tool point 0.05 m past the flange. No collision shapes.
--
-- Control: every joint has a PD drive (implicit in the engine: evaluated at the end of the
-- step) with the target position and velocity of the reference for the end of the step and
-- the gravity compensation a:gravity_compensation() as its feed-forward torque, held for
-- the step. Phase 1 (`track` s, default 4): the reference is a joint-space sinusoid
-- q_ref(t) = q0 + A_i sin(2 pi f t) (f = 0.5 Hz, A = 0.5, 0.4, 0.5, 0.8, 0.6, 1.0 rad),
-- from q_ref(0) at the reference's velocity. Phase 2 (`reach` s, default 2): a task-space
-- target: resolved-rate control with the tool point's Jacobian (a:jacobian), damped
-- least squares qdot_ref = J^T (J J^T + lambda^2 I)^-1 k (x_target - x), clamped to
-- 1 rad/s, integrated into the drive targets.
-- Claims: (1) phase 1: every joint within 0.02 rad of q_ref over the whole phase;
-- (2) phase 2: at the end of the run the tool point is within 5 mm of the target.
-- params: h (time step), track, reach (s), kp (stiffness of joints 1-3, N m/rad; the
-- wrist's is kp / 10).
local H = param("h", 1 / 120)
local TRACK = param("track", 4.0)
local REACH = param("reach", 2.0)
local KP = param("kp", 3000.0)
local INTEGRATOR = param("integrator", "midpoint") -- "euler": one mass-matrix factorisation a step
world{ gravity = {0, 0, -9.81}, time_step = H, duration = TRACK + REACH,
       solver = { kind = "pgs", iterations = 50 } }

local function rod(m, l, r) return {m * (3 * r * r + l * l) / 12, m * (3 * r * r + l * l) / 12, m * r * r / 2} end
local TOOL = 0.05
local arm = articulation{ name = "arm6", integrator = INTEGRATOR, links = {
  { name = "yaw", axis = {0, 0, 1}, position = {0, 0, 0.1}, mass = 4, com = {0, 0, 0.05}, inertia = rod(4, 0.1, 0.08) },
  { name = "shoulder", parent = "yaw", axis = {0, 1, 0}, position = {0, 0, 0.15}, mass = 3, com = {0, 0, 0.2},
    inertia = rod(3, 0.4, 0.05) },
  { name = "elbow", parent = "shoulder", axis = {0, 1, 0}, position = {0, 0, 0.4}, mass = 2, com = {0, 0, 0.175},
    inertia = rod(2, 0.35, 0.04) },
  { name = "wrist_roll", parent = "elbow", axis = {0, 0, 1}, position = {0, 0, 0.35}, mass = 0.8, com = {0, 0, 0.04},
    inertia = rod(0.8, 0.08, 0.03) },
  { name = "wrist_pitch", parent = "wrist_roll", axis = {0, 1, 0}, position = {0, 0, 0.08}, mass = 0.5,
    com = {0, 0, 0.04}, inertia = rod(0.5, 0.08, 0.03) },
  { name = "flange", parent = "wrist_pitch", axis = {0, 0, 1}, position = {0, 0, 0.08}, mass = 0.3,
    com = {0, 0, 0.03}, inertia = rod(0.3, 0.06, 0.03) } } }

local N = 6
local Q0 = {0, 0.5, 0.8, 0, 0.5, 0}
local AMP = {0.5, 0.4, 0.5, 0.8, 0.6, 1.0}
local OMEGA = 2 * math.pi * 0.5
local KPS, KDS, EFFORT = {}, {}, {}
for i = 1, N do
  KPS[i] = i <= 3 and KP or KP / 10
  KDS[i] = 2 * math.sqrt(KPS[i] * (i <= 3 and 0.5 or 0.01))   -- about critical for the joint's inertia
  EFFORT[i] = i <= 3 and 300 or 60
end
local function ref(t)
  local q, v = {}, {}
  for i = 1, N do
    q[i] = Q0[i] + AMP[i] * math.sin(OMEGA * t)
    v[i] = AMP[i] * OMEGA * math.cos(OMEGA * t)
  end
  return q, v
end
do
  local q, v = ref(0)
  arm:set_q(q)
  arm:set_qdot(v)
end

-- the tool point and its Jacobian
local function tool()
  local p, o = arm:link_pose("flange")
  local d = moreau.rotate(o, {0, 0, TOOL})
  return {p.x + d.x, p.y + d.y, p.z + d.z}
end
-- the target of phase 2: a point in front of the arm, in reach
local TARGET = {0.35, 0.25, 0.45}
local LAMBDA, K_TASK, VMAX = 0.02, 4.0, 1.0

-- solves the 3x3 system A x = b (Cramer's rule: A is J J^T + lambda^2 I, positive definite)
local function solve3(A, b)
  local function det(m)
    return m[1][1] * (m[2][2] * m[3][3] - m[2][3] * m[3][2]) - m[1][2] * (m[2][1] * m[3][3] - m[2][3] * m[3][1])
           + m[1][3] * (m[2][1] * m[3][2] - m[2][2] * m[3][1])
  end
  local d = det(A)
  local x = {}
  for c = 1, 3 do
    local m = {}
    for r = 1, 3 do m[r] = {A[r][1], A[r][2], A[r][3]}; m[r][c] = b[r] end
    x[c] = det(m) / d
  end
  return x
end

local track_err, track_steps = 0, 0
local q_cmd = nil          -- phase 2's integrated targets
local reach_err = math.huge
on_step(function(t)
  local h = moreau.time_step()
  local gc = arm:gravity_compensation()
  local q = arm:q()
  local qt, vt
  if t < TRACK - 0.5 * h then
    local qr = ref(t)
    for i = 1, N do track_err = math.max(track_err, math.abs(q[i] - qr[i])) end
    track_steps = track_steps + 1
    qt, vt = ref(t + h)
  else
    if not q_cmd then q_cmd = q end
    local x = tool()
    local e = {TARGET[1] - x[1], TARGET[2] - x[2], TARGET[3] - x[3]}
    reach_err = math.sqrt(e[1] ^ 2 + e[2] ^ 2 + e[3] ^ 2)
    local jv = arm:jacobian("flange", {0, 0, TOOL})
    local A = {}
    for r = 1, 3 do
      A[r] = {}
      for c = 1, 3 do
        local s = 0
        for k = 1, N do s = s + jv[r][k] * jv[c][k] end
        A[r][c] = s + (r == c and LAMBDA * LAMBDA or 0)
      end
    end
    local y = solve3(A, {K_TASK * e[1], K_TASK * e[2], K_TASK * e[3]})
    qt, vt = {}, {}
    for k = 1, N do
      local v = jv[1][k] * y[1] + jv[2][k] * y[2] + jv[3][k] * y[3]
      v = math.max(-VMAX, math.min(VMAX, v))
      q_cmd[k] = q_cmd[k] + h * v
      qt[k], vt[k] = q_cmd[k], v
    end
  end
  for i = 1, N do
    arm:set_drive(i, { stiffness = KPS[i], damping = KDS[i], target_position = qt[i], target_velocity = vt[i],
                       torque = gc[i], max_effort = EFFORT[i] })
  end
end)

check(string.format("phase 1 (%g s): every joint within 0.02 rad of the joint-space sinusoid", TRACK), function()
  return track_err < 0.02, string.format("max |q - q_ref| = %.3e rad over %d steps (h = %.5f s, kp = %g)", track_err,
                                         track_steps, moreau.time_step(), KP)
end)

check("phase 2: the tool point ends within 5 mm of the task-space target", function()
  if REACH <= 0 then return true, "no task-space phase in this run (reach = 0)" end
  local x = tool()
  local e = math.sqrt((TARGET[1] - x[1]) ^ 2 + (TARGET[2] - x[2]) ^ 2 + (TARGET[3] - x[3]) ^ 2)
  local done = moreau.time() >= TRACK + REACH - 0.5 * moreau.time_step()
  if not done then return true, string.format("t = %.2f s: the reach is not over (tool %.4f m off)", moreau.time(), e) end
  return e < 0.005, string.format("tool point %.3e m from the target (%.2f, %.2f, %.2f) at t = %.2f s", e, TARGET[1],
                                  TARGET[2], TARGET[3], moreau.time())
end)
