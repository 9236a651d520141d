-- vat (SCENES.md, QP paper): pebbles (spheres r 0.03, stone density 2600, mu 0.5) poured
-- into a vat: a cylinder (r 1, h 2) above a truncated cone narrowing from r 1 to r 0.3
-- over 1 m, closed at the bottom; the vat is one static triangle mesh (48 segments),
-- wound to face its inside. 2000 pebbles (set with --set pebbles=N) are spawned 40 per
-- step on a jittered disc 2.6 m up, then fall in; 5 s.
-- Claim: no pebble leaves the vat.
-- Solver: PGS, 2 substeps of 25 sweeps. Why: the pebbles that left (14 of 2000 with PGS 50,
-- one step per 1/120 s) had fallen through the mesh (found at z = -100 to -128 m): the first
-- batches reach the bottom at ~7 m/s, 6 cm per step, twice the pebble radius; a pebble
-- found with its centre behind a triangle gets no contact from it (one-sided triangles),
-- so it tunnels. Half steps (3 cm) keep the centre in front of the surface. A larger
-- contact_margin does not help here, it is worse (0.04: dozens out; 0.06: nearly all out):
-- a sphere near the vat's bottom fan or the cone pools contacts from many triangles and
-- mo_cl_reduce_points keeps the 4 most spread-out ones, not the deepest, so the contact that
-- holds the pebble up can be dropped (an engine issue: collision/collide_mesh.c reduce_pool).
-- Measured, full 5 s, ./build-cat/tools/moreau-run scenes/vat.lua --check (2-core shared
-- machine, load 2-5):
--   PGS 50 (before):        29 ms/step, 14 of 2000 pebbles outside: FAIL
--   2 substeps x PGS 25:    38 ms/step, 0 outside: PASS; 3 x PGS 17: 47 ms/step, 0 outside
-- The largest penetration over the run stays 5.7-5.9 cm in every setting. It is made by the
-- pouring, not by the solver: a new pebble is spawned into one poured some steps earlier in
-- the same column (ring, slot), e.g. pebbles 69 and 349 (7 batches apart; the first has
-- fallen the 7 cm between spawn levels) are 5 mm apart at step 8; the overlaps last while
-- pouring (steps 1-50) and are pushed apart at max_push_velocity. Not a claim of this
-- scene; changing the spawn pattern would change the scene (left as it is).
local C = require("lib.common")
local total = param("pebbles", 2000)
world{ gravity = {0, 0, -9.81}, time_step = 1 / 120, duration = 5, substeps = 2,
       solver = { kind = "pgs", iterations = 25 } }

-- the vat: rings (z, r) of the profile, bottom centre last
local seg, profile = 48, { {0.0, 0.3}, {1.0, 1.0}, {3.0, 1.0} }
local verts, tris = {}, {}
for _, pr in ipairs(profile) do
  for i = 0, seg - 1 do
    local a = 2 * math.pi * i / seg
    verts[#verts + 1] = {pr[2] * math.cos(a), pr[2] * math.sin(a), pr[1]}
  end
end
verts[#verts + 1] = {0, 0, 0}
local centre = #verts
local function v(ring, i) return ring * seg + (i % seg) + 1 end
for ring = 0, #profile - 2 do
  for i = 0, seg - 1 do
    -- counter-clockwise seen from inside the vat
    tris[#tris + 1] = {v(ring, i), v(ring + 1, i), v(ring + 1, i + 1)}
    tris[#tris + 1] = {v(ring, i), v(ring + 1, i + 1), v(ring, i + 1)}
  end
end
for i = 0, seg - 1 do tris[#tris + 1] = {centre, v(0, i), v(0, i + 1)} end
body{ name = "vat", type = "static", shape = { type = "mesh", vertices = verts, triangles = tris, friction = 0.5 } }

-- pouring: 40 pebbles per step on a jittered disc of rings
local pebbles, r = {}, 0.03
on_step(function()
  for _ = 1, 40 do
    local k = #pebbles
    if k >= total then return end
    local ring, slot = (k % 40) // 8, k % 8
    local rad = 0.12 * (ring + 1) + 0.01 * C.jitter(k, 1)
    local a = 2 * math.pi * (slot + 0.5 * ring) / 8 + 0.1 * C.jitter(k, 2)
    pebbles[k + 1] = body{ position = {rad * math.cos(a), rad * math.sin(a), 2.6 + 0.07 * ((k // 40) % 4)},
                           velocity = {0, 0, -1},
                           shape = { type = "sphere", radius = r, density = 2600, friction = 0.5 } }
  end
end)

check("no pebble leaves the vat", function()
  local out = 0
  for _, b in ipairs(pebbles) do
    local p = b:position()
    local wall = p.z >= 1.0 and 1.0 or 0.3 + 0.7 * math.max(p.z, 0)
    if p.z < -0.05 or math.sqrt(p.x * p.x + p.y * p.y) > wall + 0.05 then out = out + 1 end
  end
  return out == 0, string.format("%d of %d pebbles outside", out, #pebbles)
end)
