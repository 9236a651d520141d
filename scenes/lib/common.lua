-- lib/common.lua: helpers shared by the catalogue scenes (require("lib.common")).
local M = {}

-- SCENES.md's deterministic jitter j(i, s) in [-1, 1], with 32-bit unsigned arithmetic
function M.jitter(i, s)
  local x = (i * 2654435761 + s * 40503 + 12345) & 0xffffffff
  x = x ~ (x >> 13)
  x = (x * 0x5bd1e995) & 0xffffffff
  x = x ~ (x >> 15)
  return (x & 0xffff) / 32767.5 - 1.0
end

-- an open box of four static walls with inner faces at x, y = +-half, walls 0.1 m thick
-- and 4 m high (pile1000's box), all with friction mu
function M.open_box(half, mu)
  local t, hh = 0.05, 2.0
  local walls = {
    {t, half + 2 * t, hh, half + t, 0, hh},
    {t, half + 2 * t, hh, -half - t, 0, hh},
    {half, t, hh, 0, half + t, hh},
    {half, t, hh, 0, -half - t, hh},
  }
  for _, w in ipairs(walls) do
    body{ type = "static", position = {w[4], w[5], w[6]},
          shape = { type = "box", half_extents = {w[1], w[2], w[3]}, friction = mu } }
  end
end

-- the largest value of f() seen before each step and now: returns a function giving it
function M.track_max(f)
  local m = -math.huge
  on_step(function() local v = f(); if v > m then m = v end end)
  return function() return math.max(m, f()) end
end

return M
