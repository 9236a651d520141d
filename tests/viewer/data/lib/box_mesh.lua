-- lib/box_mesh.lua: a box of nx x ny x nz cells from corner o with side lengths size, each cell
-- cut into 6 tetrahedra along its main diagonal (the same diagonal in every cell, so the faces
-- match), positively oriented; returns nodes and tets (numbered from 1) for fem{}.
-- Node (i, j, k), 0 <= i <= nx..., is number 1 + i + (nx + 1) (j + (ny + 1) k).
return function(nx, ny, nz, o, size)
  local nodes, tets = {}, {}
  local function id(i, j, k) return 1 + i + (nx + 1) * (j + (ny + 1) * k) end
  for k = 0, nz do
    for j = 0, ny do
      for i = 0, nx do
        nodes[id(i, j, k)] = {o[1] + size[1] * i / nx, o[2] + size[2] * j / ny, o[3] + size[3] * k / nz}
      end
    end
  end
  local perms = {{1, 2, 3}, {1, 3, 2}, {2, 1, 3}, {2, 3, 1}, {3, 1, 2}, {3, 2, 1}}
  for k = 0, nz - 1 do
    for j = 0, ny - 1 do
      for i = 0, nx - 1 do
        for _, p in ipairs(perms) do
          local c = {i, j, k}
          local v = {id(i, j, k)}
          for s = 1, 3 do
            c[p[s]] = c[p[s]] + 1
            v[s + 1] = id(c[1], c[2], c[3])
          end
          -- orientation: swap two nodes of a negatively oriented tetrahedron
          local a, b, d, e = nodes[v[1]], nodes[v[2]], nodes[v[3]], nodes[v[4]]
          local d1 = {b[1] - a[1], b[2] - a[2], b[3] - a[3]}
          local d2 = {d[1] - a[1], d[2] - a[2], d[3] - a[3]}
          local d3 = {e[1] - a[1], e[2] - a[2], e[3] - a[3]}
          local vol = d1[1] * (d2[2] * d3[3] - d2[3] * d3[2]) - d1[2] * (d2[1] * d3[3] - d2[3] * d3[1])
                    + d1[3] * (d2[1] * d3[2] - d2[2] * d3[1])
          if vol < 0 then v[3], v[4] = v[4], v[3] end
          tets[#tets + 1] = v
        end
      end
    end
  end
  return nodes, tets
end
