-- heavy_stack (SCENES.md, Newton paper): cubes of side 0.5 m resting in contact, each
-- level `ratio` times heavier than the one below, mu 0.5.
--   variant 2:  10 cubes, masses 1, 2, 4 ... 512 kg (1 : 512), 10 s
--   variant 10:  5 cubes, masses 1, 10 ... 10^4 kg (1 : 10^4), 10 s
-- Choose with `moreau-run scenes/heavy_stack.lua --set variant=10`. Variant 2 is the
-- built-in C scene heavy_stack. Claim: the stack stands (top cube within 1 cm).
-- The default (`solver=newton`) runs either variant with the non-smooth Newton step (12 Newton
-- x up to 100 PCR stopping at 1e-8 relative, stopping at a residual of 1e-6 m);
-- `solver=pgs|apgd` the relaxation and
-- accelerated-gradient solvers at the default's 100 iterations (measured, 10 s: from the
-- exactly symmetric start Newton and P-SPG-FB hold both variants, PGS and APGD collapse;
-- with `--set gravity=1e-12,1e-12,-9.81`, a symmetry-breaking last bit, only Newton holds,
-- P-SPG-FB falls even at 1000 iterations; docs/newton-scenes.md).
local variant = param("variant", 2)
assert(variant == 2 or variant == 10, "variant must be 2 or 10")
local n = variant == 2 and 10 or 5
-- the default is the Newton step since 2026-11-28: it holds both variants also under the lateral
-- perturbation, at 0.1 ms a step here, where P-SPG-FB at 100 iterations and 10 Coulomb updates took 0.36 ms
-- and stood only while the stack was exactly symmetric (`--set solver=spg` keeps it)
local which = param("solver", "newton")
local solvers = {
  -- measured: PGS at 50 sweeps lets the top cube drift 6 cm in 10 s; P-SPG-FB with exact Coulomb friction holds it
  -- while the stack is exactly symmetric (not under a 1e-12 m/s^2 lateral gravity)
  spg = { kind = "spg", iterations = 100, coulomb_updates = 10 },
  -- the inner budget must cover the Schur system (60 DOF here): at 20 PCR the stack stood only while
  -- perfectly symmetric; a lateral gravity of 1e-12 m/s^2 (or a GPU's summation order) toppled it
  -- (docs/newton-scenes.md); 40 PCR still fell, 60 and more hold
  newton = { kind = "newton", tolerance = 1e-6,
             newton = { iterations = 12, linear_iterations = 100, linear_tolerance = 1e-8 } },
  pgs = { kind = "pgs", iterations = 100, coulomb_updates = 10 },
  apgd = { kind = "apgd", iterations = 100, coulomb_updates = 10 },
}
assert(solvers[which], "solver must be spg, newton, pgs or apgd")

world{ gravity = {0, 0, -9.81}, time_step = 1 / 120, duration = 10, solver = solvers[which] }
local mu = 0.5
ground{ friction = mu }
local boxes = {}
for i = 0, n - 1 do
  boxes[#boxes + 1] = body{
    name = "box" .. i, mass = (variant * 1.0) ^ i, position = {0, 0, 0.25 + 0.5 * i},
    shape = { type = "box", half_extents = {0.25, 0.25, 0.25}, friction = mu },
  }
end

local top, top0 = boxes[n], boxes[n]:position()
check("the heavy stack stands: top cube within 1 cm of its start", function()
  local p = top:position()
  local dxy = math.sqrt((p.x - top0.x) ^ 2 + (p.y - top0.y) ^ 2)
  local dz = p.z - top0.z
  return dxy < 0.01 and math.abs(dz) < 0.01, string.format("top dxy = %.5f m, dz = %.5f m", dxy, dz)
end)
