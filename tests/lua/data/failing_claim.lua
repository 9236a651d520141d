-- a scene whose claim fails: moreau-run --check must exit non-zero
world{ duration = 0.05 }
local ball = body{ position = {0, 0, 1}, shape = { type = "sphere", radius = 0.1 } }
check("the ball floats (it does not: gravity)", function()
  local z = ball:position().z
  return z >= 1, string.format("z = %.4f m", z)
end)
