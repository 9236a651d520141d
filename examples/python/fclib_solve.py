#!/usr/bin/env python3
"""Solve a frictional contact problem with several solvers and plot their convergence.

Takes the contact problem of stack20's third step (World.contact_problem(),
80 contacts), or an FCLIB file given as the first argument (HDF5 or Siconos
.dat), solves it with PGS, Jacobi, APGD and P-SPG-FB (each with Coulomb
updates, the default configuration's settings) recording the Siconos error
after every iteration, and prints the iterations each needed to reach 1e-4.
With matplotlib installed it writes fclib_convergence.png (or the path given
as the second argument); without it, only the table.

Run from the build tree: PYTHONPATH=build/python python3 examples/python/fclib_solve.py
"""
import os
import sys

import numpy as np

import moreau

HERE = os.path.dirname(os.path.abspath(__file__))
TOL = 1e-4


def main(argv):
    if len(argv) > 1 and argv[1] != "-":
        p = moreau.fc_read(argv[1])
        name = os.path.basename(argv[1])
    else:
        w = moreau.load(os.path.join(HERE, "..", "..", "scenes", "stack20.lua"))
        w.step(3)
        p = w.contact_problem()
        name = "stack20, step 3"
    print("%s: %d contacts" % (name, p.size[0]))
    curves = {}
    for kind in ("pgs", "jacobi", "apgd", "spg"):
        r, u, res = p.solve(kind=kind, iterations=2000, tolerance=0.0, history=True)
        h = res["error_history"]
        hit = np.nonzero(h <= TOL)[0]
        curves[kind] = h
        print("  %-7s error %.2e after %d iterations; <= %g first at %s" %
              (kind, res["error"], res["iterations"], TOL, hit[0] if len(hit) else "never"))
    r, u, res = p.solve_auto()
    print("  auto    error %.2e after %d iterations (%s)" %
          (res["error"], res["iterations"], " -> ".join(res["stages"])))
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib not installed: no plot")
        return 0
    out = argv[2] if len(argv) > 2 else "fclib_convergence.png"
    fig, ax = plt.subplots(figsize=(7, 4))
    for kind, h in curves.items():
        ax.semilogy(np.arange(1, len(h) + 1), np.maximum(h, 1e-16), label=kind)
    ax.axhline(TOL, color="grey", lw=0.8, ls="--")
    ax.set_xlabel("iteration")
    ax.set_ylabel("Siconos error")
    ax.set_title(name)
    ax.legend()
    fig.tight_layout()
    fig.savefig(out, dpi=100)
    print("wrote %s" % out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
