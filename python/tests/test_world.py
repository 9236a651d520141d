"""World, settings, bodies, shapes, joints, contacts, stats, errors, state (moreau package)."""
import math
import os

import numpy as np
import pytest

import moreau

SCENES = os.environ.get("MOREAU_SCENES_DIR", os.path.join(os.path.dirname(__file__), "..", "..", "scenes"))


def ball_world(**kw):
    w = moreau.World(**kw)
    return w, w.create_body(shape=moreau.Sphere(0.1), position=(0.0, 0.0, 1.0))


# ---- world and settings -------------------------------------------------------------

def test_free_fall_matches_the_analytic_position():
    # the integrator is semi-implicit Euler: v_k = -g k h, z_N = z0 - g h^2 N (N + 1) / 2
    g, h, n = 9.81, 0.01, 50
    w, b = ball_world(gravity=(0.0, 0.0, -g), time_step=h)
    w.step(n)
    x, y, z = b.position
    assert (x, y) == (0.0, 0.0)
    assert z == pytest.approx(1.0 - g * h * h * n * (n + 1) / 2, abs=1e-12)
    assert b.linear_velocity[2] == pytest.approx(-g * h * n, abs=1e-12)
    assert w.time == pytest.approx(n * h, abs=1e-12)
    # step(n) and n step() calls give the same bits
    w2, b2 = ball_world(gravity=(0.0, 0.0, -g), time_step=h)
    for _ in range(n):
        w2.step()
    assert w2.state_hash() == w.state_hash()


def test_settings_by_name_kwargs_and_dict():
    w = moreau.World(settings={"solver.kind": "apgd", "solver.iterations": 77, "solver.warm_start": False},
                     time_step=0.005, gravity=(0, 0, -3))
    assert w.get("solver.kind") == "apgd"
    assert w.get("solver.iterations") == 77
    assert w.get("solver.warm_start") is False
    assert w.get("time_step") == 0.005 and w.time_step == 0.005
    assert w.get("gravity") == (0.0, 0.0, -3.0) and w.gravity == (0.0, 0.0, -3.0)
    w.set({"solver.kind": "pgs"}, substeps=2)
    assert w.get("solver.kind") == "pgs" and w.get("substeps") == 2
    # NumPy scalars as values
    w2 = moreau.World(time_step=np.float64(0.004), substeps=np.int64(3), settings={"solver.warm_start": np.bool_(0)})
    assert w2.time_step == 0.004 and w2.get("substeps") == 3 and w2.get("solver.warm_start") is False
    w.time_step = 0.02
    w.gravity = (1, 2, 3)
    assert w.time_step == 0.02 and w.gravity == (1.0, 2.0, 3.0)
    names = [row[0] for row in moreau.settings()]
    assert "solver.kind" in names and "time_step" in names
    assert all(len(row) == 6 for row in moreau.settings())
    assert moreau.version.count(".") == 2


def test_errors_carry_the_engine_sentence():
    with pytest.raises(moreau.Error) as e:
        moreau.World(settings={"solver.kind": "foo"})
    assert str(e.value) == "solver.kind 'foo' is not one of pgs, jacobi, apgd, spg, cg, minres, cholesky, newton"
    assert e.value.status == "MO_ERR_INVALID_ARGUMENT" and e.value.code == 1
    with pytest.raises(moreau.Error) as e:
        moreau.World(time_step=0)
    assert str(e.value) == "world time_step must be in [1e-08, 1] s, got 0"
    w = moreau.World()
    with pytest.raises(moreau.Error) as e:
        w.create_body(shape=moreau.Sphere(0.1), mass=-1)
    assert str(e.value) == "body mass must be finite and in [1e-12, 1e+20] kg for a dynamic body, got -1"
    assert w.last_error() == str(e.value)
    with pytest.raises(moreau.Error) as e:
        w.time_step = -1
    assert str(e.value) == "world time_step must be in [1e-08, 1] s, got -1"
    with pytest.raises(moreau.Error) as e:
        w.set(bogus=1)
    assert str(e.value) == "unknown setting 'bogus' (moreau-run --list-settings lists them)"
    with pytest.raises(moreau.Error) as e:
        w.set({"solver.kind": "nope"})
    assert str(e.value) == "solver.kind 'nope' is not one of pgs, jacobi, apgd, spg, cg, minres, cholesky, newton"
    assert w.get("solver.kind") == "pgs"  # unchanged
    with pytest.raises(moreau.Error) as e:
        w.get("bogus")
    assert "unknown setting 'bogus'" in str(e.value)
    with pytest.raises(moreau.Error) as e:
        w.create_body(shape=moreau.Sphere(-1))
    assert str(e.value) == "sphere radius must be in (0, 1e+09] m, got -1"
    with pytest.raises(moreau.Error):
        w.gravity = (0, 0, float("nan"))
    with pytest.raises(ValueError):
        w.create_body(shape={"type": "teapot"})
    with pytest.raises(ValueError):
        w.gravity = (0, 0)
    assert issubclass(moreau.Error, Exception)


def test_stale_ids_are_refused():
    w, b = ball_world()
    assert b.valid
    b.destroy()
    assert not b.valid
    with pytest.raises(moreau.Error) as e:
        b.position
    assert e.value.status == "MO_ERR_STALE_ID"
    assert "does not name a live body" in str(e.value)
    with pytest.raises(moreau.Error) as e:
        b.destroy()
    assert e.value.status == "MO_ERR_STALE_ID"


def test_closed_world_refuses_calls():
    with moreau.World() as w:
        w.step()
    assert w.closed
    with pytest.raises(RuntimeError):
        w.step()
    with pytest.raises(RuntimeError):
        w.time
    w.close()  # twice is fine


# ---- bodies and shapes ----------------------------------------------------------------

def test_bodies_shapes_pose_velocity_mass():
    w = moreau.World(gravity=(0, 0, 0))
    ground = w.create_body(type="static", shape=moreau.Plane(friction=0.8))
    shapes = [moreau.Sphere(0.5), moreau.Box((0.1, 0.2, 0.3)), moreau.Capsule(0.1, 0.2),
              moreau.Cylinder(0.1, 0.2), moreau.ConvexHull([(0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1)])]
    bodies = [w.create_body(shape=s, mass=2.0, position=(i, 0, 5)) for i, s in enumerate(shapes)]
    assert [b.key for b in w.bodies()] == [ground.key] + [b.key for b in bodies]
    s = bodies[0]
    assert s.mass == 2.0
    assert s.inertia[0][0] == pytest.approx(0.4 * 2.0 * 0.25)  # solid sphere 2/5 m r^2
    assert s.inertia[0][1] == 0.0
    s.set_pose((1, 2, 3), (0.0, 1.0, 0.0, 0.0))
    assert s.position == (1.0, 2.0, 3.0) and s.orientation == (0.0, 1.0, 0.0, 0.0)
    s.set_velocity((1, 0, 0), (0, 0, 2))
    assert s.linear_velocity == (1.0, 0.0, 0.0) and s.angular_velocity == (0.0, 0.0, 2.0)
    assert s.kinetic_energy == pytest.approx(0.5 * 2 * 1 + 0.5 * 0.2 * 4)
    w.step()
    assert s.position[0] == pytest.approx(1.0 + w.time_step)
    # a second shape and mass from density
    box = bodies[1]
    box.add_shape(moreau.Sphere(0.1, position=(0.5, 0, 0), density=2000.0))
    box.set_mass_from_shapes()
    assert box.mass == pytest.approx(1000 * 0.2 * 0.4 * 0.6 + 2000 * 4 / 3 * math.pi * 0.001)
    assert repr(box).startswith("Body(index=")
    assert box == w.bodies()[2] and hash(box) == hash(w.bodies()[2])


def test_forces():
    w, b = ball_world(gravity=(0, 0, -9.81), time_step=0.01)
    m = b.mass
    for _ in range(10):
        b.apply_force((0, 0, 9.81 * m))  # cancels gravity; consumed by each step
        w.step()
    assert b.position[2] == pytest.approx(1.0, abs=1e-12)
    b.apply_force(torque=(0, 0, 1.0))
    w.step()
    assert b.angular_velocity[2] > 0
    w2, c = ball_world(gravity=(0, 0, 0), time_step=0.01)
    c.apply_force_at((1.0, 0, 0), (0, 0, 1.1))  # above the centre: pure x force, torque about +y
    w2.step()
    assert c.linear_velocity[0] > 0 and c.angular_velocity[1] > 0


def test_contacts_and_stats_of_a_resting_sphere():
    w = moreau.World(time_step=0.01)
    ground = w.create_body(type="static", shape=moreau.Plane())
    assert w.last_stats()["step"] == 0 and w.contacts() == []
    ball = w.create_body(shape=moreau.Sphere(0.2, friction=0.5), mass=3.0, position=(0, 0, 0.2))
    w.step(100)
    cs = w.contacts()
    assert len(cs) == 1
    c = cs[0]
    assert isinstance(c, moreau.Contact)
    assert {c.body_a, c.body_b} == {ground, ball}
    assert abs(c.normal[2]) == pytest.approx(1.0)
    assert c.gap == pytest.approx(0.0, abs=1e-3)
    assert c.friction == pytest.approx(math.sqrt(0.5 * 0.5))
    assert abs(c.point[2]) < 1e-3 and c.shape_a != c.shape_b and c.shape_a and c.shape_b
    assert abs(c.impulse[0]) == pytest.approx(3.0 * 9.81 * 0.01, rel=1e-6)  # normal impulse over the step
    assert abs(c.force[2]) == pytest.approx(3.0 * 9.81, rel=1e-6)
    f, t = ball.contact_force()
    assert f[2] == pytest.approx(3.0 * 9.81, rel=1e-6)
    st = w.last_stats()
    assert st["step"] == 99 and st["contacts"] == 1 and st["bodies"] == 2 and st["rows"] == 3
    assert st["backend"] == "cpu" and st["residual_history"] == []
    w.set({"solver.record_residuals": True})
    w.step()
    st = w.last_stats()
    assert len(st["residual_history"]) == st["iterations"] == len(st["coulomb_error_history"])


def test_a_resting_box_sleeps_and_the_stats_count_it():
    # sleeping is off by default; on, a box at rest sleeps after sleep_time (docs/sleeping.md)
    w = moreau.World(sleep=True, sleep_time=0.25)
    w.create_body(type="static", shape=moreau.Plane())
    box = w.create_body(shape=moreau.Box((0.1, 0.1, 0.1)), position=(0, 0, 0.1))
    w.step(120)
    st = w.last_stats()
    assert (st["sleeping_bodies"], st["awake_bodies"], st["islands"], st["contacts"]) == (1, 0, 1, 0)
    pos = box.position
    w.step(10)
    assert box.position == pos
    box.apply_force((1.0, 0, 0))  # wakes it
    w.step()
    assert w.last_stats()["awake_bodies"] == 1


# ---- joints ---------------------------------------------------------------------------

def test_revolute_pendulum_joint():
    w = moreau.World(time_step=0.002)
    bob = w.create_body(shape=moreau.Sphere(0.05), mass=1.0, position=(1.0, 0, 0))
    j = w.create_joint("revolute", None, bob, anchor_a=(0, 0, 0), anchor_b=(-1.0, 0, 0), axis_a=(0, 1, 0),
                       axis_b=(0, 1, 0))
    assert isinstance(j, moreau.Joint)
    w.step(100)
    assert j.position != 0.0
    p = bob.position
    assert math.hypot(p[0], p[2]) == pytest.approx(1.0, abs=1e-3)
    f, t = j.reaction()
    assert f != (0.0, 0.0, 0.0)
    j.set_motor("velocity", target_velocity=1.0, max_force=1e6)
    w.step(50)
    assert bob.angular_velocity[1] == pytest.approx(1.0, abs=1e-3)
    with pytest.raises(ValueError):
        j.set_motor("turbo")
    j.destroy()
    with pytest.raises(moreau.Error) as e:
        j.position
    assert e.value.status == "MO_ERR_STALE_ID"
    with pytest.raises(moreau.Error) as e:
        w.create_joint("revolute", None, None)
    assert e.value.status == "MO_ERR_STALE_ID"


def test_position_motor_joint():
    w = moreau.World(gravity=(0, 0, 0), time_step=0.01)
    arm = w.create_body(shape=moreau.Box((0.5, 0.05, 0.05)), mass=1.0, position=(0.5, 0, 0))
    j = w.create_joint("revolute", None, arm, anchor_b=(-0.5, 0, 0), axis_a=(0, 0, 1), axis_b=(0, 0, 1),
                       motor="position", target_position=0.5, stiffness=50.0, damping=10.0,
                       enable_limit=True, lower=-1.0, upper=1.0)
    w.step(500)
    assert j.position == pytest.approx(0.5, abs=1e-3)


# ---- bulk arrays ------------------------------------------------------------------------

def test_bulk_arrays_are_copies_in_bodies_order():
    w = moreau.World(time_step=0.01)
    bs = [w.create_body(shape=moreau.Box((0.1, 0.1, 0.1)), position=(i, 2 * i, 3 * i),
                        linear_velocity=(i, 0, 0), angular_velocity=(0, i, 0)) for i in range(5)]
    pos, quat, lin, ang = w.positions(), w.orientations(), w.linear_velocities(), w.angular_velocities()
    assert pos.shape == (5, 3) and quat.shape == (5, 4) and lin.shape == (5, 3) and ang.shape == (5, 3)
    assert pos.dtype == np.float64 and pos.flags.c_contiguous and pos.flags.writeable
    for i, b in enumerate(bs):
        assert tuple(pos[i]) == b.position and tuple(quat[i]) == b.orientation
        assert tuple(lin[i]) == b.linear_velocity and tuple(ang[i]) == b.angular_velocity
    snapshot = pos.copy()
    w.step()
    assert np.array_equal(pos, snapshot)  # a copy: stepping does not change it
    out = np.empty((5, 3))
    assert w.positions(out=out) is out
    assert tuple(out[4]) == bs[4].position
    # a buffer sized for another body count is refused
    w.create_body(shape=moreau.Sphere(0.1))
    with pytest.raises(ValueError, match="has 6 bodies"):
        w.positions(out=out)
    with pytest.raises(ValueError):
        w.orientations(out=np.empty((6, 3)))
    with pytest.raises(ValueError):
        w.positions(out=np.empty((6, 3), dtype=np.float32))
    with pytest.raises(ValueError):
        w.positions(out=np.empty((3, 6)).T)
    assert w.positions().shape == (6, 3)
    bs[0].destroy()
    assert w.positions().shape == (5, 3)
    assert moreau.World().positions().shape == (0, 3)


# ---- state --------------------------------------------------------------------------------

def test_save_and_restore_state_give_the_same_bits():
    w = moreau.load(os.path.join(SCENES, "stack20.lua"))
    w.step(5)
    s = w.save_state()
    assert isinstance(s, bytes) and len(s) > 0
    w.step(10)
    h = w.state_hash()
    w.restore_state(s)
    w.step(10)
    assert w.state_hash() == h
    with pytest.raises(moreau.Error) as e:
        w.restore_state(b"garbage")
    assert e.value.status == "MO_ERR_INVALID_ARGUMENT"


@pytest.mark.skipif(os.environ.get("MOREAU_SANITIZED") == "1",
                    reason="ASan keeps freed memory in quarantine (RSS grows without a leak); the plain build checks")
def test_no_leak_across_create_destroy():
    def rss_kib():
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") // 1024

    def cycle(n):
        for _ in range(n):
            w = moreau.World(settings={"solver.kind": "pgs"})
            w.create_body(type="static", shape=moreau.Plane())
            for i in range(5):
                w.create_body(shape=moreau.Box((0.1, 0.1, 0.1)), position=(0, 0, 0.1 + 0.2 * i))
            w.step(2)
            w.positions()
            w.contacts()
            w.last_stats()
            w.save_state()
            del w  # dealloc destroys the world
            s = moreau.load(os.path.join(SCENES, "stack20.lua"))
            s.step()
            s.close()

    cycle(50)  # warm up the allocators
    before = rss_kib()
    cycle(1000)
    growth = rss_kib() - before
    # 1000 worlds and 1000 scenes: a leak of one world or Lua state each would be tens of MiB
    assert growth < 4096, "RSS grew by %d KiB over 1000 create/destroy cycles" % growth


@pytest.mark.skipif(os.environ.get("MOREAU_SANITIZED") == "1",
                    reason="ASan keeps freed memory in quarantine (RSS grows without a leak); the plain build checks")
def test_no_leak_across_urdf_fem_fclib_cycles():
    def rss_kib():
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") // 1024

    arm = os.path.join(SCENES, "models", "arm", "arm.urdf")
    bar = os.path.join(SCENES, "models", "tet", "bar.msh")

    def cycle(n):
        for _ in range(n):
            w = moreau.World()
            a = w.load_urdf(arm)
            a.q, a.mass_matrix(), a.jacobian(1)
            w.step()
            p = moreau.FcProblem(np.eye(3), [-1.0, 0.2, 0.0], [0.5])
            p.solve(kind="pgs", iterations=10, history=True)
            nodes, tets, _ = moreau.load_tetmesh(bar)
            w2 = moreau.World(settings={"solver.kind": "newton"})
            w2.create_fem_mesh(nodes, tets, moreau.Material(1e6, 0.3, 1000.0)).positions
            w.close()
            w2.close()

    cycle(20)
    before = rss_kib()
    cycle(200)
    growth = rss_kib() - before
    assert growth < 4096, "RSS grew by %d KiB over 200 URDF/FEM/FCLIB cycles" % growth
