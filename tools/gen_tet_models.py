#!/usr/bin/env python3
"""Writes the tetrahedral meshes of scenes/models/tet for FEM scenes, each in
TetGen (.node/.ele) and Gmsh (.msh) form with the same nodes, tetrahedra and
regions (tests/tet checks that both read to the same arrays):

  bar   0.1 x 0.1 x 0.4 m, x, y in [-0.05, 0.05], z in [0, 0.4]: 2 x 2 x 8
        cubes of 0.05 m, six tetrahedra each (Kuhn); region 1.
        bar.node/bar.ele numbered from 1, bar.msh Gmsh 4.1.
  ball  radius 0.1 m at the origin: a 4 x 4 x 4 grid of cubes over [-1, 1]^3,
        six tetrahedra each, mapped onto the ball by the smooth cube-to-sphere
        map x' = x sqrt(1 - y^2/2 - z^2/2 + y^2 z^2/3) (and cyclic); region 2
        for the 8 central cubes, 1 for the rest. ball.node/ball.ele numbered
        from 0, ball.msh Gmsh 2.2.

Coordinates are written with 17 significant digits, so both forms read to the
same doubles. Usage: python3 tools/gen_tet_models.py [OUT_DIR]
(default scenes/models/tet)."""
import math
import os
import sys

KUHN = [[0, 1, 3, 7], [0, 1, 5, 7], [0, 4, 5, 7], [0, 4, 6, 7], [0, 2, 6, 7], [0, 2, 3, 7]]


def det(p, t):
    a, b, c, d = (p[i] for i in t)
    u = [b[k] - a[k] for k in range(3)]
    v = [c[k] - a[k] for k in range(3)]
    w = [d[k] - a[k] for k in range(3)]
    return (u[0] * (v[1] * w[2] - v[2] * w[1]) - u[1] * (v[0] * w[2] - v[2] * w[0])
            + u[2] * (v[0] * w[1] - v[1] * w[0]))


def grid(nx, ny, nz, point, region):
    """nodes point(i, j, k) of an (nx+1)(ny+1)(nz+1) grid (x fastest), six
    positive tetrahedra per cube, region(i, j, k) per cube"""
    idx = lambda i, j, k: i + (nx + 1) * (j + (ny + 1) * k)
    nodes = [point(i, j, k) for k in range(nz + 1) for j in range(ny + 1) for i in range(nx + 1)]
    tets, regions = [], []
    for k in range(nz):
        for j in range(ny):
            for i in range(nx):
                corner = [idx(i + (v & 1), j + ((v >> 1) & 1), k + ((v >> 2) & 1)) for v in range(8)]
                for kt in KUHN:
                    t = [corner[v] for v in kt]
                    if det(nodes, t) < 0:
                        t = [t[0], t[1], t[3], t[2]]
                    assert det(nodes, t) > 0
                    tets.append(t)
                    regions.append(region(i, j, k))
    return nodes, tets, regions


def g(x):
    return "%.17g" % x


def write_tetgen(stem, nodes, tets, regions, first, comment):
    with open(stem + ".node", "w") as f:
        f.write("# %s\n%d 3 0 0\n" % (comment, len(nodes)))
        for i, p in enumerate(nodes):
            f.write("%d %s %s %s\n" % (i + first, *map(g, p)))
    with open(stem + ".ele", "w") as f:
        f.write("# %s\n%d 4 1\n" % (comment, len(tets)))
        for i, (t, r) in enumerate(zip(tets, regions)):
            f.write("%d %d %d %d %d %d\n" % (i + first, *[n + first for n in t], r))


def write_msh22(path, nodes, tets, regions):
    with open(path, "w") as f:
        f.write("$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n%d\n" % len(nodes))
        for i, p in enumerate(nodes):
            f.write("%d %s %s %s\n" % (i + 1, *map(g, p)))
        f.write("$EndNodes\n$Elements\n%d\n" % len(tets))
        for i, (t, r) in enumerate(zip(tets, regions)):
            f.write("%d 4 2 %d %d %d %d %d %d\n" % (i + 1, r, r, *[n + 1 for n in t]))
        f.write("$EndElements\n")


def write_msh41(path, nodes, tets, regions):
    """one volume per region, volume tag = physical tag = region; all nodes on volume 1"""
    vols = sorted(set(regions))
    lo = [min(p[k] for p in nodes) for k in range(3)]
    hi = [max(p[k] for p in nodes) for k in range(3)]
    with open(path, "w") as f:
        f.write("$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$Entities\n0 0 0 %d\n" % len(vols))
        for v in vols:
            f.write("%d %s 1 %d 0\n" % (v, " ".join(map(g, lo + hi)), v))
        f.write("$EndEntities\n$Nodes\n1 %d 1 %d\n3 %d 0 %d\n" % (len(nodes), len(nodes), vols[0], len(nodes)))
        f.write("".join("%d\n" % (i + 1) for i in range(len(nodes))))
        f.write("".join("%s %s %s\n" % tuple(map(g, p)) for p in nodes))
        f.write("$EndNodes\n$Elements\n%d %d 1 %d\n" % (len(vols), len(tets), len(tets)))
        for v in vols:
            mine = [i for i, r in enumerate(regions) if r == v]
            f.write("3 %d 4 %d\n" % (v, len(mine)))
            for i in mine:
                f.write("%d %d %d %d %d\n" % (i + 1, *[n + 1 for n in tets[i]]))
        f.write("$EndElements\n")


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "scenes", "models", "tet")
    os.makedirs(out, exist_ok=True)

    h = 0.05
    bar = grid(2, 2, 8, lambda i, j, k: ((i - 1) * h, (j - 1) * h, k * h), lambda i, j, k: 1)
    write_tetgen(os.path.join(out, "bar"), *bar, 1, "bar 0.1 x 0.1 x 0.4 m, tools/gen_tet_models.py")
    write_msh41(os.path.join(out, "bar.msh"), *bar)

    n, radius = 4, 0.1

    def ball_point(i, j, k):
        x, y, z = (2.0 * c / n - 1.0 for c in (i, j, k))
        return (radius * x * math.sqrt(1 - y * y / 2 - z * z / 2 + y * y * z * z / 3),
                radius * y * math.sqrt(1 - z * z / 2 - x * x / 2 + z * z * x * x / 3),
                radius * z * math.sqrt(1 - x * x / 2 - y * y / 2 + x * x * y * y / 3))

    core = lambda i, j, k: 2 if all(1 <= c <= 2 for c in (i, j, k)) else 1
    ball = grid(n, n, n, ball_point, core)
    write_tetgen(os.path.join(out, "ball"), *ball, 0, "ball of radius 0.1 m, tools/gen_tet_models.py")
    write_msh22(os.path.join(out, "ball.msh"), *ball)
    vol = sum(det(ball[0], t) for t in ball[1]) / 6
    print("bar: %d nodes, %d tets; ball: %d nodes, %d tets, volume %.6g (sphere %.6g)"
          % (len(bar[0]), len(bar[1]), len(ball[0]), len(ball[1]), vol, 4 / 3 * math.pi * radius ** 3))


if __name__ == "__main__":
    main()
