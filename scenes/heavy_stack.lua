-- heavy_stack (SCENES.md, Newton paper): cubes of side 0.5 m resting in contact, each
-- level `ratio` times heavier than the one below, mu 0.5.
--   variant 2:  10 cubes, masses 1, 2, 4 ... 512 kg (1 : 512), 10 s
--   variant 10:  5 cubes, masses 1, 10 ... 10^4 kg (1 : 10^4), 10 s
-- Choose with `moreau-run scenes/heavy_stack.lua --set variant=10`. Variant 2 is the
-- built-in C scene heavy_stack. Claim: the stack stands (top cube within 1 cm).
-- `--set solver=newton` runs either variant with the non-smooth Newton step (12 Newton
-- x 20 PCR, stopping at a residual of 1e-6 m); `solver=pgs|apgd` the relaxation and
-- accelerated-gradient solvers at the default's 100 iterations (measured, 10 s: Newton
-- and P-SPG-FB hold both variants, PGS and APGD collapse; docs/newton-scenes.md).
local variant = param("variant", 2)
assert(variant == 2 or variant == 10, "variant must be 2 or 10")
local n = variant == 2 and 10 or 5
local which = param("solver", "spg")
local solvers = {
  -- measured: PGS at 50 sweeps lets the top cube drift 6 cm in 10 s; P-SPG-FB with exact Coulomb friction holds it
  spg = { kind = "spg", iterations = 100, coulomb_updates = 10 },
  newton = { kind = "newton", tolerance = 1e-6, newton = { iterations = 12, linear_iterations = 20 } },
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
