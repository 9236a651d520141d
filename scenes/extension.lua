-- extension (SCENES.md, Newton paper's material extension): two bars of tetrahedra
-- (models/tet/bar.msh: 0.1 x 0.1 x 0.4 m, 81 nodes, 192 tetrahedra), E 1e5 Pa, nu 0.45,
-- density 1000, side by side: linear corotational at x = -0.15, stable Neo-Hookean at
-- x = +0.15. Each bar's end faces are held in z only (the sides contract freely; on the
-- bottom face the centre node is held in x, y, z and the nodes on y = 0 in y and z, against
-- rigid motion); the top face's targets move up at 0.4 m/s for 1 s (stretch to 0.8 m,
-- twice the length) and are then held 1 s. No gravity: this is tests/test_fem_world.c's
-- extension test as a scene, h = 1/60, Newton 10 x PCR 60.
-- Closed forms of a uniaxial stretch with free sides (docs/fem.md, "Measured"):
--   stable Neo-Hookean without the log term: J = 1 + mu / (2 lambda) = 1.05 at any stretch
--     (lambda = 10 mu at nu = 0.45): +5 % volume;
--   linear corotational: lateral stretch 1 - nu = 0.55, J = 2 * 0.55^2 = 0.605: -39.5 %.
-- Claims (at the end of the run, after the hold; before it they report "needs the full
-- run"): each bar's volume is its model's closed form within 1 %, and the corotational
-- bar's volume change is more than 5 times the Neo-Hookean one. The issue's wording
-- ("Neo-Hookean keeps volume within 5 %") is on the boundary for this model at nu = 0.45
-- (exactly +5 %), so the claim is stated as the C test states it. At any time: the top
-- faces follow their targets, within 5 mm while they move (10 Newton iterations leave the
-- moving targets' rows 0.7-2.4 mm behind during the ramp) and 1e-4 m once held.
-- Measured (build-fl/tools/moreau-run scenes/extension.lua --check, -O2, one core): 120 steps,
-- 25.4 ms/step median (Newton solve 25.3 ms), 10 Newton iterations per step, 3.2 s in all;
-- at 2 s Neo-Hookean V/V0 1.0500 (+5.00 %), corotational 0.6050 (-39.50 %), 7.9x the change;
-- top faces 6.9e-8 m from their targets (up to 2.4 mm behind during the ramp). All 4 PASS.
world{ gravity = {0, 0, 0}, time_step = 1 / 60, duration = 2,
       solver = { kind = "newton", newton = { iterations = 10, linear_iterations = 60 } } }

local L, T = 0.4, 1.0            -- bar length (m), stretch time (s): to 2 L
local v = L / T
local eps = 1e-9

local function bar(name, model, x0)
  local m = fem{ name = name, mesh = "models/tet/bar.msh", position = {x0, 0, 0},
                 material = { model = model, young = 1e5, poisson = 0.45, density = 1000 },
                 fixed = function(x, y, z)
                   x = x - x0
                   if math.abs(z) < eps then
                     if math.abs(x) < eps and math.abs(y) < eps then return "xyz" end
                     if math.abs(y) < eps then return "yz" end
                     return "z"
                   end
                   if math.abs(z - L) < eps then return "z" end
                   return false
                 end }
  local top = {}
  for i = 1, m:node_count() do
    if math.abs(m:node_position(i).z - L) < eps then top[#top + 1] = i end
  end
  for _, i in ipairs(top) do m:set_fixed_velocity(i, {0, 0, v}) end
  return m, top
end

local co, co_top = bar("corotational", "corotational", -0.15)
local nh, nh_top = bar("neo_hookean", "neo_hookean", 0.15)
local stretch_steps = math.floor(T / moreau.time_step() + 0.5)

on_step(function(t, step)
  if step == stretch_steps then
    for _, i in ipairs(co_top) do co:set_fixed_velocity(i, {0, 0, 0}) end
    for _, i in ipairs(nh_top) do nh:set_fixed_velocity(i, {0, 0, 0}) end
  end
end)

local function ratio(m) return m:volume() / m:rest_volume() end
local function at_end() return moreau.time() >= 2 * T - 1e-9 end

check("the top faces follow their targets (5 mm while they move, 1e-4 m in the hold)", function()
  local t = moreau.time()
  local target, tol = L + v * math.min(t, T), (t <= T + 0.01) and 5e-3 or 1e-4
  local worst = 0
  for _, m in ipairs{ {co, co_top}, {nh, nh_top} } do
    for _, i in ipairs(m[2]) do worst = math.max(worst, math.abs(m[1]:node_position(i).z - target)) end
  end
  return worst < tol, string.format("target z %.4f m, worst %.2e m (tolerance %g)", target, worst, tol)
end)
check("Neo-Hookean volume = closed form 1.05 V0 within 1 %", function()
  if not at_end() then return true, string.format("needs the full run (V/V0 %.4f now)", ratio(nh)) end
  local r = ratio(nh)
  return math.abs(r - 1.05) <= 0.01, string.format("V/V0 %.4f (%+.2f %%)", r, 100 * (r - 1))
end)
check("corotational volume = closed form 0.605 V0 within 1 %", function()
  if not at_end() then return true, string.format("needs the full run (V/V0 %.4f now)", ratio(co)) end
  local r = ratio(co)
  return math.abs(r - 0.605) <= 0.01, string.format("V/V0 %.4f (%+.2f %%)", r, 100 * (r - 1))
end)
check("the corotational bar changes volume more than 5x the Neo-Hookean one", function()
  if not at_end() then return true, "needs the full run" end
  local c, n = math.abs(ratio(co) - 1), math.abs(ratio(nh) - 1)
  return c > 5 * n, string.format("%.2f %% vs %.2f %%: %.1fx", 100 * c, 100 * n, c / n)
end)
