-- b4_wall (SCENES.md B4, SPG paper): a masonry wall of 750 bricks (0.4 x 0.2 x 0.2 m,
-- long axis along x, 25 kg, 25 wide x 30 high; brick (row r, column c) centred at
-- x = 0.2 + 0.4 c (+ 0.2 on odd rows), y = 0, z = 0.1 + 0.2 r), mu 0.5, hit by a 500 kg
-- ball (r 0.5) starting at (5, -1.5, 1.5) with velocity 8 m/s along +y; 5 s. Same world
-- as the built-in C scene b4_wall.
-- Variant: `--set cable=true` hangs the ball on a cable (a distance joint to a point
-- 6 m above it) and swings it in from the side instead of throwing it.
-- Claims: the wall is intact until the ball touches it (no brick moved more than 1 cm),
-- and the ball does hit it (some brick moves more than 10 cm by the end, when the run
-- lasts past the impact).
local cable = param("cable", false)
world{ gravity = {0, 0, -9.81}, time_step = 1 / 120, duration = 5 }

local nx, nz, mu = 25, 30, 0.5
ground{ friction = mu }
local bricks, start = {}, {}
for r = 0, nz - 1 do
  for c = 0, nx - 1 do
    local b = body{
      mass = 25.0, position = {0.2 + 0.4 * c + ((r & 1) == 1 and 0.2 or 0.0), 0, 0.1 + 0.2 * r},
      shape = { type = "box", half_extents = {0.2, 0.1, 0.1}, friction = mu },
    }
    bricks[#bricks + 1] = b
    start[#start + 1] = b:position()
  end
end
local ball = body{
  name = "ball", mass = 500.0, position = {5.0, -1.5, 1.5}, velocity = {0, cable and 0 or 8.0, 0},
  shape = { type = "sphere", radius = 0.5, friction = mu },
}
if cable then
  -- pivot 6 m above the wall face: released 1.5 m out, the ball swings into the wall
  ball:set_pose({5.0, -4.0, 3.0})
  joint{ name = "cable", type = "distance", b = ball, anchor_a = {5.0, 0.0, 8.0}, anchor_b = {0, 0, 0} }
end

local function moved(limit)
  local k = 0
  for i, b in ipairs(bricks) do
    local p, s = b:position(), start[i]
    if (p.x - s.x) ^ 2 + (p.y - s.y) ^ 2 + (p.z - s.z) ^ 2 > limit * limit then k = k + 1 end
  end
  return k
end

-- before the impact: watched each step until the ball is within 2 cm of the wall's face (y = -0.1)
local hit, moved_before = false, 0
on_step(function()
  if hit then return end
  if ball:position().y + 0.5 >= -0.12 then hit = true; return end
  moved_before = math.max(moved_before, moved(0.01))
end)
check("the wall is intact until the ball hits it", function()
  return moved_before == 0, moved_before .. " bricks moved more than 1 cm before the impact"
end)
check("the ball hits the wall", function()
  if not hit then return true, "no impact yet in this run" end
  local k = moved(0.1)
  return k > 0, k .. " bricks moved more than 10 cm"
end)
