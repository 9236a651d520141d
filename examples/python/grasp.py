#!/usr/bin/env python3
"""A two-finger grasp driven from Python: two kinematic finger pads close on a
box resting on the ground, squeeze it, and lift it by 0.2 m.

The pads are kinematic bodies whose velocities this script sets every step
(a position controller: v = gain (target - x), bounded); the grip comes from
contact friction alone. Contacts are slightly compliant (contact_compliance),
so pressing the pads SQUEEZE into the box gives a finite normal force. Prints
the box's height through the lift and the contact forces on it; exits 1 when
the box did not come up with the pads.

Run from the build tree: PYTHONPATH=build/python python3 examples/python/grasp.py
"""
import sys

import numpy as np

import moreau

H = 1 / 240
HALF = 0.05          # box half extent, m
SQUEEZE = 0.001      # how far each pad's target lies inside the box, m
LIFT, T_CLOSE, T_LIFT, T_HOLD = 0.2, 0.5, 1.0, 0.5


def main():
    w = moreau.World(time_step=H, settings={"solver.kind": "pgs", "solver.iterations": 100,
                                            "contact_compliance": 1e-4})
    w.create_body(type="static", shape=moreau.Plane(friction=0.5))
    box = w.create_body(shape=moreau.Box((HALF, HALF, HALF), friction=1.0), mass=0.2, position=(0, 0, HALF))
    pads = [w.create_body(type="kinematic", shape=moreau.Box((0.01, 0.04, 0.04), friction=1.0),
                          position=(s * (HALF + 0.06), 0, HALF)) for s in (-1, 1)]
    z0 = box.position[2]
    steps = int(round((T_CLOSE + T_LIFT + T_HOLD) / H))
    heights = np.empty(steps)
    for k in range(steps):
        t = k * H
        lift = 0.0 if t < T_CLOSE else min(1.0, (t - T_CLOSE) / T_LIFT) * LIFT
        for s, pad in zip((-1, 1), pads):
            target = np.array([s * (HALF + 0.01 - SQUEEZE), 0.0, HALF + lift])
            err = target - np.array(pad.position)
            v = np.clip(err / (4 * H), -0.3, 0.3)  # reach the target in ~4 steps, at most 0.3 m/s
            pad.set_velocity(tuple(v))
        w.step()
        heights[k] = box.position[2]
    rise = heights[-1] - z0
    f = [pad.contact_force()[0] for pad in pads]
    print("box rose %.4f m (pads lifted %.3f m); z at 25/50/75/100 %% of the run: %s" %
          (rise, LIFT, ", ".join("%.4f" % heights[int(q * (steps - 1))] for q in (0.25, 0.5, 0.75, 1.0))))
    print("pad contact forces (N): %s / %s; contacts: %d" % (f[0], f[1], len(w.contacts())))
    ok = rise > 0.9 * LIFT
    print("grasp %s" % ("held" if ok else "FAILED"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
