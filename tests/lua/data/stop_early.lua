-- a falling ball; the scene ends itself when the time passes param until (default 0.5 s)
local until_t = param("until", 0.5)
world{ duration = 10 }
ground{}
local ball = body{ name = "ball", position = {0, 0, 2}, shape = { type = "sphere", radius = 0.1 } }
on_step(function(t) if t >= until_t then stop(string.format("t = %.3f s", t)) end end)
check("stopped at the requested time", function()
  return math.abs(moreau.time() - until_t) < 1 / 120, moreau.time()
end)
check("the ball fell freely: z = 2 - g t^2 / 2 within 2 cm (the step lags by g h t / 2)", function()
  local t = moreau.time()
  local z = ball:position().z
  return math.abs(z - (2 - 9.81 * t * t / 2)) < 0.02, z
end)
