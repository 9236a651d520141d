-- an error raised inside a C function (ipairs iterator on nil) has no file:line
local names = nil
for i, n in ipairs(names) do end
