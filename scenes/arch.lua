-- arch (SCENES.md, Newton paper "Arch"): a self-supporting semicircular arch of 20
-- wedge blocks (voussoirs) standing dry (no mortar) on two piers, mu 0.6.
--
-- Geometry (chosen here, kept stable for benchmarks):
--   intrados radius 1.8 m, extrados radius 2.2 m (ring 0.4 m thick, t / R = 0.2,
--   about twice Heyman's minimum thickness 0.106 R of a semicircular arch),
--   depth 0.5 m (along y), 20 voussoirs of 9 degrees each with radial joints,
--   stone density 2400 kg/m^3 (each block 150.8 kg: 9 deg of the ring).
--   Arch centre (0, 0, 1.5): the springing line lies on the tops of the two
--   static piers (boxes 0.6 x 0.8 x 1.5 m under x in [1.7, 2.3] and [-2.3, -1.7]).
--   Blocks are placed exactly in contact: each is a convex hull of its 8 corners.
-- An even count has no single keystone: the crown is the joint between blocks 10
-- and 11 (numbered from 1 at the right springing), the "keystone" below is the
-- lower of those two.
--
-- Claims (over the whole run, 10 s by default):
--   the crown blocks drop less than 1 cm;
--   no block moves more than 1 cm (nothing slides or hinges open).
-- Solver: the non-smooth Newton step (measured: it holds the arch; PGS, APGD and
-- P-SPG-FB at equal or larger cost let it sag; docs/newton-scenes.md).
-- `--set solver=pgs|apgd|spg|newton` picks one of the settings measured there.
local which = param("solver", "newton")
local solvers = {
  newton = { kind = "newton", tolerance = 1e-6, newton = { iterations = 12, linear_iterations = 40 } },
  pgs = { kind = "pgs", iterations = 100, coulomb_updates = 10 },
  apgd = { kind = "apgd", iterations = 100, coulomb_updates = 10 },
  spg = { kind = "spg", iterations = 100, coulomb_updates = 10 },
}
assert(solvers[which], "solver must be newton, pgs, apgd or spg")

world{ gravity = {0, 0, -9.81}, time_step = 1 / 120, duration = 10, solver = solvers[which] }

local mu = 0.6
local blocks_n = 20
local r_in, r_out, depth, density = 1.8, 2.2, 0.5, 2400
local cz = 1.5 -- height of the arch centre = top of the piers

ground{ friction = mu }
for _, side in ipairs({ 1, -1 }) do
  body{ name = side > 0 and "pier_right" or "pier_left", type = "static",
        position = { side * (r_in + r_out) / 2, 0, cz / 2 },
        shape = { type = "box", half_extents = { 0.3, 0.4, cz / 2 }, friction = mu } }
end

local blocks = {}
local dtheta = math.pi / blocks_n
for k = 0, blocks_n - 1 do
  local a0, a1 = k * dtheta, (k + 1) * dtheta
  local am = (a0 + a1) / 2
  -- place the body at the middle of the block's mid-radius arc; corners relative to it
  local rm = (r_in + r_out) / 2
  local ox, oz = rm * math.cos(am), cz + rm * math.sin(am)
  local pts = {}
  for _, a in ipairs({ a0, a1 }) do
    for _, r in ipairs({ r_in, r_out }) do
      for _, y in ipairs({ -depth / 2, depth / 2 }) do
        pts[#pts + 1] = { r * math.cos(a) - ox, y, cz + r * math.sin(a) - oz }
      end
    end
  end
  blocks[#blocks + 1] = body{
    name = "voussoir" .. (k + 1), position = { ox, 0, oz },
    shape = { type = "hull", points = pts, density = density, friction = mu },
  }
end

local start = {}
for i, b in ipairs(blocks) do start[i] = b:position() end
local crown = { blocks_n // 2, blocks_n // 2 + 1 }
local max_drop, max_move, worst = 0, 0, 1

-- the crown's largest drop and the largest move of any block so far
local function measure()
  for _, i in ipairs(crown) do
    local drop = start[i].z - blocks[i]:position().z
    if drop > max_drop then max_drop = drop end
  end
  for i, b in ipairs(blocks) do
    local p = b:position()
    local d = math.sqrt((p.x - start[i].x) ^ 2 + (p.y - start[i].y) ^ 2 + (p.z - start[i].z) ^ 2)
    if d > max_move then max_move, worst = d, i end
  end
end

on_step(measure)
-- the values after the last step too (on_step runs before each step)
local final = measure

check("the arch stands: the crown blocks drop less than 1 cm over the run", function()
  final()
  return max_drop < 0.01, string.format("max crown drop %.5f m", max_drop)
end)
check("no voussoir slides: every block stays within 1 cm of its start over the run", function()
  final()
  return max_move < 0.01, string.format("max displacement %.5f m (voussoir%d)", max_move, worst)
end)
