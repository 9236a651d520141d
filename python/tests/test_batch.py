"""moreau.Batch: N worlds of one scene file stepped together, equal bit for bit to single worlds; bulk arrays,
per-world settings, reset, errors with the engine's sentence."""
import os

import numpy as np
import pytest

import moreau

SCENES = os.environ.get("MOREAU_SCENES_DIR", os.path.join(os.path.dirname(__file__), "..", "..", "scenes"))
STACK20 = os.path.join(SCENES, "stack20.lua")
QUADRUPED = os.path.join(SCENES, "quadruped.lua")


def test_batch_worlds_equal_single_worlds_bit_for_bit():
    with moreau.Batch(STACK20, 3, set={"solver.kind": "pgs", "solver.iterations": 20}, threads=2) as b:
        assert b.worlds == 3
        w, nb, na, nq, nv, nd = b.sizes()
        assert (w, nb, na, nq, nv, nd) == (3, 20, 0, 0, 0, 0)
        b.step()
        b.step(29)
        single = moreau.load(STACK20, set={"solver.kind": "pgs", "solver.iterations": 20})
        single.step(30)
        h = b.hashes()
        assert h.dtype == np.uint64 and h.shape == (3,)
        assert all(int(x) == single.state_hash() for x in h)
        pos, quat, lin, ang = b.bodies()
        assert pos.shape == (3, 20, 3) and quat.shape == (3, 20, 4) and lin.shape == ang.shape == (3, 20, 3)
        # the batch's arrays hold the dynamic bodies; the world's every body, the static ground first
        np.testing.assert_array_equal(pos[1], single.positions()[1:])
        np.testing.assert_array_equal(quat[2], single.orientations()[1:])
        np.testing.assert_array_equal(lin[0], single.linear_velocities()[1:])
        np.testing.assert_array_equal(ang[0], single.angular_velocities()[1:])
        assert list(b.contact_counts()) == [single.last_stats()["contacts"]] * 3


def test_batch_per_world_state_settings_and_reset():
    b = moreau.Batch(STACK20, 2)
    h0 = b.hashes()
    assert h0[0] == h0[1]
    pos, quat, lin, ang = b.bodies()
    lin[1, 19] = (0.5, 0.0, 0.0)            # push world 1's top box
    b.set_bodies(linear=lin)
    b.set_gravity(0, (0.0, 0.0, -9.0))
    b.set_settings(-1, {"solver.iterations": 40})
    b.set_threads(1)
    b.step(5)
    h = b.hashes()
    assert h[0] != h[1]
    b.reset(1)
    assert b.hashes()[1] == h0[1] and b.hashes()[0] == h[0]
    b.step(3)
    b.mark_initial(0)
    h_mark = b.hashes()[0]
    b.step(2)
    b.reset()
    assert b.hashes()[0] == h_mark and b.hashes()[1] == h0[1]
    # errors: the engine's sentence, the batch unchanged
    before = b.hashes()
    with pytest.raises(ValueError, match="position has 3 values, the batch needs 120"):
        b.set_bodies(position=[1.0, 2.0, 3.0])
    bad = b.bodies()[0]
    bad[1, 3, 2] = np.nan
    with pytest.raises(moreau.Error, match="world 1") as e:
        b.set_bodies(position=bad)
    assert e.value.status == "MO_ERR_INVALID_ARGUMENT"
    with pytest.raises(moreau.Error, match="mo_batch_reset"):
        b.reset(7)
    assert list(b.hashes()) == list(before)
    b.close()
    with pytest.raises(RuntimeError, match="the batch is closed"):
        b.step()


def test_batch_joints_and_drive_targets_of_articulations():
    with moreau.Batch(QUADRUPED, 2, set={"h": 1.0 / 120.0}) as b:
        w, nb, na, nq, nv, nd = b.sizes()
        assert na == 1 and nq > 0 and nv > 0 and nd == 12
        q, qd = b.joints()
        assert q.shape == (2, nq) and qd.shape == (2, nv)
        np.testing.assert_array_equal(q[0], q[1])
        q[1, -1] += 0.01                    # the last joint of world 1 only
        b.set_joints(q=q)
        np.testing.assert_array_equal(b.joints()[0], q)
        pt, vt = b.drive_targets()
        assert pt.shape == vt.shape == (2, 12)
        b.set_drive_targets(position=pt, velocity=vt)
        np.testing.assert_array_equal(b.drive_targets()[0], pt)
        b.step(2)
        h = b.hashes()
        assert h[0] != h[1]


def test_batch_refuses_bad_definitions():
    with pytest.raises(moreau.Error, match="mo_batch_create") as e:
        moreau.Batch(STACK20, 0)
    assert e.value.status == "MO_ERR_INVALID_ARGUMENT"
    with pytest.raises(moreau.Error, match="no_such_scene.lua"):
        moreau.Batch(os.path.join(SCENES, "no_such_scene.lua"), 2)
