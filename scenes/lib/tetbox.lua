-- lib/tetbox.lua: a structured tetrahedral mesh of a box for fem{} (require("lib.tetbox")).
-- tetbox(n, size, origin) -> nodes, tets, index
--   n = {nx, ny, nz} cells, size = {lx, ly, lz} m, origin = the (min x, min y, min z) corner;
--   nodes {x, y, z} with x fastest, tets of 1-based node numbers: each cell cut into the six
--   tetrahedra around its main diagonal (Kuhn; the same diagonal in every cell, so faces
--   match), every one positively oriented; index(i, j, k) is the node number of grid point
--   (i, j, k), 0 <= i <= nx.
local KUHN = { {0, 1, 3, 7}, {0, 1, 5, 7}, {0, 4, 5, 7}, {0, 4, 6, 7}, {0, 2, 6, 7}, {0, 2, 3, 7} }

return function(n, size, origin)
  local nx, ny, nz = n[1], n[2], n[3]
  local function index(i, j, k) return 1 + i + (nx + 1) * (j + (ny + 1) * k) end
  local nodes = {}
  for k = 0, nz do
    for j = 0, ny do
      for i = 0, nx do
        nodes[index(i, j, k)] = { origin[1] + size[1] * i / nx, origin[2] + size[2] * j / ny,
                                  origin[3] + size[3] * k / nz }
      end
    end
  end
  local tets = {}
  for k = 0, nz - 1 do
    for j = 0, ny - 1 do
      for i = 0, nx - 1 do
        for _, t in ipairs(KUHN) do
          local v = {}
          for a = 1, 4 do
            local c = t[a]
            v[a] = index(i + (c & 1), j + ((c >> 1) & 1), k + ((c >> 2) & 1))
          end
          local p, q, r, s = nodes[v[1]], nodes[v[2]], nodes[v[3]], nodes[v[4]]
          local u = { q[1] - p[1], q[2] - p[2], q[3] - p[3] }
          local w = { r[1] - p[1], r[2] - p[2], r[3] - p[3] }
          local z = { s[1] - p[1], s[2] - p[2], s[3] - p[3] }
          local det = u[1] * (w[2] * z[3] - w[3] * z[2]) - u[2] * (w[1] * z[3] - w[3] * z[1])
                    + u[3] * (w[1] * z[2] - w[2] * z[1])
          if det < 0 then v[3], v[4] = v[4], v[3] end
          tets[#tets + 1] = v
        end
      end
    end
  end
  return nodes, tets, index
end
