-- memory bomb (issue 18): each string.rep call builds a 64 MiB string in one VM
-- instruction, so the instruction budget barely moves while the C side copies
-- 4000 x 64 MiB (250 GiB); under the memory cap, but many seconds of work per load
for i = 1, 4000 do
  local s = string.rep("x", 64 * 1024 * 1024)
end
