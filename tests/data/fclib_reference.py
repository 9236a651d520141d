#!/usr/bin/python3
"""Reference numbers of tests/test_fclib.c, computed with the independent
reader and error of ../shared/tools/siconos/fcload.py (Debian's /usr/bin/python3
with numpy, scipy, h5py). Run from the source root:

    /usr/bin/python3 tests/data/fclib_reference.py ../shared

and paste its output into test_fclib.c. The reaction r of contact c is
    r = s * ((c % 7 + 1) / 8, (c % 5 - 2) / 16, (c % 3 - 1) * 3 / 32)
with s = 1 and s = 1e-3 (exact in binary, so C builds the same r)."""
import os
import sys

import numpy as np

root = sys.argv[1] if len(sys.argv) > 1 else "../shared"
sys.path.insert(0, os.path.join(root, "tools", "siconos"))
import fcload  # noqa: E402

data = os.path.join(root, "data", "fclib")


def reaction(nc, s):
    c = np.arange(nc)
    r = np.zeros(3 * nc)
    r[0::3] = (c % 7 + 1) / 8.0
    r[1::3] = (c % 5 - 2) / 16.0
    r[2::3] = (c % 3 - 1) * 3.0 / 32.0
    return r * s


print("/* file, nc, nnz(W), error at r = 0, at s = 1, at s = 1e-3 */")
for f in sorted(os.listdir(data)):
    if f.endswith(".md"):
        continue
    p = fcload.read(os.path.join(data, f))
    W, q, mu, nc = p["W"], p["q"], p["mu"], p["nc"]
    e = [fcload.fc3d_error(W, q, mu, reaction(nc, s)) for s in (0.0, 1.0, 1e-3)]
    print('    {"%s", %d, %d, %r, %r, %r},' % (f, nc, W.nnz, e[0], e[1], e[2]))

p = fcload.read(os.path.join(data, "Spheres-i099-356-679.hdf5"))
W, q = p["W"], p["q"]
print("/* Spheres global -> local: |W|_F, |q|_2, sum W, a few (row, col, W) and (i, q) */")
print("    %r, %r, %r," % (np.linalg.norm(W.data), np.linalg.norm(q), W.sum()))
W = W.tocoo()
for k in (0, 1, W.nnz // 3, W.nnz // 2, W.nnz - 1):
    print("    {%d, %d, %r}," % (W.row[k], W.col[k], W.data[k]))
for i in (0, 1, 500, 1067):
    print("    {%d, %r}," % (i, q[i]))
