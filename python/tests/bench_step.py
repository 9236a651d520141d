#!/usr/bin/env python3
"""Benchmark (meson test --benchmark python_step_overhead): the cost of a Python
World.step() on stack20 against the C step it wraps.

Loads scenes/stack20.lua twice, steps one world with step() from a Python loop
and the other with step(n) (one call, the loop in C), interleaved in rounds so
that both see the same machine; prints the median round's ms/step of each and the
overhead, and
also moreau-run's median on the same scene (MOREAU_RUN, set by meson) and the
fixed cost of a call on an empty world (step() of a world with no bodies).
"""
import os
import re
import statistics
import subprocess
import sys
import time

import moreau

SCENES = os.environ.get("MOREAU_SCENES_DIR", os.path.join(os.path.dirname(__file__), "..", "..", "scenes"))
ROUNDS, STEPS = 20, 60


def main():
    py_world = moreau.load(os.path.join(SCENES, "stack20.lua"))
    c_world = moreau.load(os.path.join(SCENES, "stack20.lua"))
    r_py, r_c = [], []
    for _ in range(ROUNDS):
        t0 = time.perf_counter()
        for _ in range(STEPS):
            py_world.step()
        t1 = time.perf_counter()
        c_world.step(STEPS)
        t2 = time.perf_counter()
        r_py.append(t1 - t0)
        r_c.append(t2 - t1)
    n = ROUNDS * STEPS
    assert py_world.state_hash() == c_world.state_hash()
    # medians of the rounds: the machine may be shared
    t_py, t_c = statistics.median(r_py) * ROUNDS, statistics.median(r_c) * ROUNDS
    # the wrapper's own cost: an empty world's step from a Python loop against step(N) (the loop in C)
    empty, N = moreau.World(), 100000
    t0 = time.perf_counter()
    for _ in range(N):
        empty.step()
    t1 = time.perf_counter()
    empty.step(N)
    t2 = time.perf_counter()
    t_empty, t_empty_c = (t1 - t0) / N, (t2 - t1) / N
    print("stack20, %d steps each: Python loop of step() %.4f ms/step, step(n) (loop in C) %.4f ms/step, "
          "overhead %+.2f %%" % (n, 1e3 * t_py / n, 1e3 * t_c / n, 100.0 * (t_py - t_c) / t_c))
    run = os.environ.get("MOREAU_RUN")
    if run:  # the C program on the same scene, for scale (its own loop; a median of single steps)
        out = subprocess.run([run, os.path.join(SCENES, "stack20.lua"), "--steps", str(n)], capture_output=True,
                             text=True, check=True).stdout
        m = re.search(r"ms_per_step median=([0-9.]+)", out)
        if m:
            print("moreau-run on stack20, %d steps: median %s ms/step" % (n, m.group(1)))
    print("an empty world: step() from a Python loop %.3f us per call, inside step(N) %.3f us per step: the "
          "Python call costs %.3f us" % (1e6 * t_empty, 1e6 * t_empty_c, 1e6 * (t_empty - t_empty_c)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
