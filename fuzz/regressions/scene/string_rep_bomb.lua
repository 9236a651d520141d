-- memory bomb (issue 18): each string.rep call builds a 32 MiB string (one memcpy per
-- byte inside Lua's C library) in one VM instruction, so the instruction budget
-- barely moves: 200 calls stay under fuzz_scene's 128 MiB cap but take seconds
for i = 1, 200 do
  local s = string.rep("x", 32 * 1024 * 1024)
end
