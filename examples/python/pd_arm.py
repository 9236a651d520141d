#!/usr/bin/env python3
"""A two-link arm under a PD controller written in Python.

Two capsule links hang on revolute joints about the world y axis (shoulder to
the world, elbow between the links), starting horizontal along +x. Each step
the script reads the joint angles (Joint.position) and rates (the links'
angular velocities), computes PD torques plus gravity compensation from the
links' current centres of mass (tau_g = -g sum m_i (x_i - x_pivot)), and
applies them as equal and opposite body torques (Body.apply_force). The
targets step from (0, 0) to (0.6, -0.9) rad at t = 0.5 s; the script prints the
tracking error and exits 1 when the arm is not within 0.01 rad of the targets
after 3 s.

Run from the build tree: PYTHONPATH=build/python python3 examples/python/pd_arm.py
"""
import sys

import numpy as np

import moreau

G, H, T_END = 9.81, 1 / 240, 3.0
L, R, M = 0.5, 0.04, 1.0  # link length (m), capsule radius (m), link mass (kg)
KP, KD = 60.0, 4.0         # N m/rad, N m s/rad (explicit damping: KD h / I well below 2)
Y = (0.0, 1.0, 0.0)


def main():
    w = moreau.World(gravity=(0, 0, -G), time_step=H, settings={"solver.kind": "pgs", "solver.iterations": 100})
    # capsules along x: the shape's axis is z, so turn it by 90 degrees about y
    along_x = (np.cos(np.pi / 4), 0.0, np.sin(np.pi / 4), 0.0)
    links = [w.create_body(shape=moreau.Capsule(R, L / 2 - R, orientation=along_x), mass=M,
                           position=(L / 2 + i * L, 0, 1.0)) for i in range(2)]
    shoulder = w.create_joint("revolute", None, links[0], anchor_a=(0, 0, 1.0), anchor_b=(-L / 2, 0, 0),
                              axis_a=Y, axis_b=Y)
    elbow = w.create_joint("revolute", links[0], links[1], anchor_a=(L / 2, 0, 0), anchor_b=(-L / 2, 0, 0),
                           axis_a=Y, axis_b=Y)
    steps = int(round(T_END / H))
    errs = np.empty((steps, 2))
    for k in range(steps):
        target = np.array([0.0, 0.0]) if k * H < 0.5 else np.array([0.6, -0.9])
        q = np.array([shoulder.position, elbow.position])
        w1, w2 = links[0].angular_velocity[1], links[1].angular_velocity[1]
        qd = np.array([w1, w2 - w1])
        # gravity compensation about +y: a mass at x relative to the pivot feels m g x
        x = w.positions()[:, 0]
        elbow_x = 2 * x[0]  # the elbow is the first link's far end: 2 x_c1 - x_shoulder (x_shoulder = 0)
        tau_g = np.array([-G * M * ((x[0] - 0.0) + (x[1] - 0.0)), -G * M * (x[1] - elbow_x)])
        tau = KP * (target - q) - KD * qd + tau_g
        links[0].apply_force(torque=(0.0, tau[0] - tau[1], 0.0))
        links[1].apply_force(torque=(0.0, tau[1], 0.0))
        w.step()
        errs[k] = target - np.array([shoulder.position, elbow.position])
    final = np.abs(errs[-1])
    print("PD arm: |error| at t = 1, 2, 3 s: %s rad" %
          ", ".join("(%.4f, %.4f)" % tuple(np.abs(errs[int(t / H) - 1])) for t in (1.0, 2.0, 3.0)))
    print("joint angles (%.4f, %.4f) rad, targets (0.6, -0.9)" % (shoulder.position, elbow.position))
    ok = bool(np.all(final < 0.01))
    print("tracking %s" % ("ok" if ok else "FAILED"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
