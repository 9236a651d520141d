"""Articulations and URDF from Python: joint-space state, torques, drives, dynamics queries, errors."""
import os

import numpy as np
import pytest

import moreau

SCENES = os.environ.get("MOREAU_SCENES_DIR", os.path.join(os.path.dirname(__file__), "..", "..", "scenes"))
ARM = os.path.join(SCENES, "models", "arm", "arm.urdf")
M, R, IYY = 2.0, 0.5, 0.02  # pendulum: mass (kg), centre of mass on the link's x (m), inertia about y


def pendulum(h=0.01, **kw):
    w = moreau.World(time_step=h, **kw)
    a = w.create_articulation([moreau.Link(joint="revolute", axis=(0, 1, 0), mass=M, com=(R, 0, 0),
                                           inertia=np.diag([0.01, IYY, 0.01]), name="rod")],
                              base_position=(0, 0, 1))
    return w, a


def test_urdf_arm_holds_still_under_gravity_compensation():
    w = moreau.World(time_step=0.01)
    a = w.load_urdf(ARM)
    links, nq, nv = a.size
    assert links == len(a.links) and nq == nv and nv > 0
    assert a.links[0][0] == "base_link" and a.warnings == []
    assert all(isinstance(j[0], str) for j in a.joints)
    assert np.array_equal(a.q, np.zeros(nq))
    tau = a.gravity_compensation()
    assert tau.shape == (nv,) and np.any(tau != 0)
    a.set_torques(tau)  # held for every step
    w.step(100)
    assert np.max(np.abs(a.q)) < 1e-9 and np.max(np.abs(a.qd)) < 1e-9
    a.clear_torques()
    w.step(20)
    assert np.max(np.abs(a.q)) > 1e-4  # now it sags
    # maximal form: bodies and joints
    w2 = moreau.World()
    m = w2.load_urdf(ARM, articulation=False)
    assert m.key == 0 and len(w2.bodies()) == len(m.links)
    with pytest.raises(moreau.Error) as e:
        w.load_urdf("nope.urdf")
    assert str(e.value) == "nope.urdf: cannot read: No such file or directory" and e.value.status == "MO_ERR_IO"


def test_pendulum_dynamics_queries():
    w, a = pendulum()
    assert isinstance(a, moreau.Articulation)
    assert a.size == (1, 1, 1) and a.link_index("rod") == 0 and a.joint_dofs("rod") == (0, 1, 0, 1)
    Mq = a.mass_matrix()
    assert Mq.shape == (1, 1) and Mq[0, 0] == pytest.approx(IYY + M * R * R)
    g = 9.81
    # about +y, the centre of mass at +x feels + m g r: compensation is - m g r
    assert a.gravity_compensation()[0] == pytest.approx(-M * g * R)
    assert a.bias_forces()[0] == pytest.approx(-M * g * R)  # at rest c is what holds it: M qdd + c = tau
    assert a.inverse_dynamics([2.0])[0] == pytest.approx(Mq[0, 0] * 2.0 - M * g * R)
    a.qd = [3.0]
    assert a.qd[0] == 3.0
    jv, jw = a.jacobian("rod", (R, 0, 0))
    assert jv.shape == (3, 1) and np.allclose(jv[:, 0], (0, 0, -R)) and np.allclose(jw[:, 0], (0, 1, 0))
    ang, lin = a.link_velocity(0)
    assert ang == pytest.approx((0, 3.0, 0)) and lin == pytest.approx((0, 0, 0))
    a.q = [np.pi / 2]
    pos, quat = a.link_pose("rod")
    assert pos == pytest.approx((0, 0, 1)) and quat == pytest.approx((np.cos(np.pi / 4), 0, np.sin(np.pi / 4), 0))
    ke, pe = a.energy()
    assert ke == pytest.approx(0.5 * Mq[0, 0] * 9.0)
    body = a.link_body(0)
    assert body.valid and body.position == pytest.approx(pos)


def test_drive_limits_damping_and_torques():
    w, a = pendulum()
    a.set_drive("rod", stiffness=200.0, damping=20.0, target_position=0.3)
    d = a.drive(0)
    assert d["stiffness"] == 200.0 and d["target_position"] == 0.3 and d["max_effort"] == float("inf")
    w.step(500)
    # at rest the drive's torque holds gravity: -k (q - target) = gravity compensation
    assert a.qd[0] == pytest.approx(0.0, abs=1e-9)
    assert -200.0 * (a.q[0] - 0.3) == pytest.approx(a.gravity_compensation()[0], rel=1e-6)
    a.set_drive(0, stiffness=0.0, damping=0.0)
    a.set_limits(0, -0.2, 0.2)
    assert a.limits("rod") == (-0.2, 0.2)
    a.set_joint_damping(0, 0.5)
    w.step(200)
    assert a.q[0] <= 0.2 + 1e-3
    assert abs(a.constraint_forces()[0]) > 0  # the limit holds it
    a.set_torques([5.0])
    with pytest.raises(ValueError):
        a.set_torques([1.0, 2.0])
    with pytest.raises(ValueError):
        a.q = [0.0, 0.0]


def test_cone_limit_and_collision_group():
    w = moreau.World(time_step=1 / 120)
    a = w.create_articulation([moreau.Link(joint="fixed"),
                               moreau.Link(joint="spherical", parent=0, com=(0, 0, 1), damping=0.5, name="ball")])
    assert a.cone_limit("ball") == float("inf")
    a.set_cone_limit("ball", 0.5)
    assert a.cone_limit(1) == 0.5
    a.q = [np.cos(0.4), np.sin(0.4), 0, 0]  # 0.8 rad about x: past the cone, falling outward
    w.step(360)
    angle = 2 * np.arctan2(np.linalg.norm(a.q[1:4]), abs(a.q[0]))
    assert angle == pytest.approx(0.5, abs=1e-3)
    with pytest.raises(moreau.Error) as e:
        a.set_cone_limit(0, 0.5)
    assert "cone limits are for spherical joints" in str(e.value)
    a.set_cone_limit(1)
    assert a.cone_limit(1) == float("inf")
    assert a.collision_group() == 0
    a.set_collision_group(0x20000)
    assert a.collision_group() == 0x20000
    with pytest.raises(ValueError):
        a.set_collision_group(-1)


def test_articulation_errors_carry_the_sentence():
    w, a = pendulum()
    with pytest.raises(moreau.Error) as e:
        a.q = [float("nan")]
    assert str(e.value) == ('mo_articulation_set_q: articulation 1 link 0 ("rod"): q[0] must be finite and within '
                            '1e+09, got nan')
    with pytest.raises(moreau.Error) as e:
        w.create_articulation([moreau.Link(mass=-1)])
    assert str(e.value) == ("mo_articulation_create: link 0: mass must be 0 (a massless frame) or in "
                            "[1e-12, 1e+20] kg, got -1")
    with pytest.raises(moreau.Error) as e:
        a.set_limits(0, 1, -1)
    assert e.value.status == "MO_ERR_INVALID_ARGUMENT" and "lower <= upper" in str(e.value)
    with pytest.raises(moreau.Error):
        a.set_drive(0, stiffness=-1.0)
    with pytest.raises(moreau.Error):
        a.link_index("nope")
    with pytest.raises(ValueError):
        w.create_articulation([moreau.Link(joint="hinge")])
    with pytest.raises(ValueError):
        w.create_articulation([moreau.Link()], integrator="rk4")
    assert a.valid
    a.destroy()
    assert not a.valid
    with pytest.raises(moreau.Error) as e:
        a.q
    assert e.value.status == "MO_ERR_STALE_ID"
    with pytest.raises(TypeError):
        moreau._moreau._artic_size(object(), 1)


def test_euler_integrator_and_state_hash_includes_q():
    w, a = pendulum()
    w2 = moreau.World(time_step=0.01)
    b = w2.create_articulation([moreau.Link(axis=(0, 1, 0), mass=M, com=(R, 0, 0),
                                            inertia=np.diag([0.01, IYY, 0.01]))], base_position=(0, 0, 1),
                               integrator="euler")
    w.step(10)
    w2.step(10)
    assert a.q[0] != b.q[0]  # different integrators
    h = w.state_hash()
    a.q = a.q + 1e-6
    assert w.state_hash() != h


ARM3 = os.path.join(os.path.dirname(__file__), "..", "..", "tests", "import", "data")


def test_mjcf_and_urdf_of_one_arm_give_one_trajectory():
    # tests/import/data/arm3.urdf and arm3.xml describe the same 3-link arm: the same masses, axes and, over
    # 1 s under gravity, bit-identical joint trajectories (as the C and Lua tests find)
    runs = []
    for loader, name in (("load_urdf", "arm3.urdf"), ("load_mjcf", "arm3.xml")):
        w = moreau.World(time_step=0.01)
        kw = {"apply_option": False} if loader == "load_mjcf" else {}
        a = getattr(w, loader)(os.path.join(ARM3, name), **kw)
        assert a.size[1] == 3 and a.warnings == [] and a.equalities == []
        # URDF's default (no self_collision): the robot's collision group; MJCF's default self_collision: none
        assert a.collision_group() == (0x10000 if loader == "load_urdf" else 0)
        a.q = [0.3, -0.2, 0.1]
        w.step(100)
        runs.append((a.q, a.qd, a.mass_matrix()))
    assert np.array_equal(runs[0][0], runs[1][0]) and np.array_equal(runs[0][1], runs[1][1])
    assert np.max(np.abs(runs[0][0])) > 0.1  # it moved
    assert np.allclose(runs[0][2], runs[1][2], rtol=0, atol=1e-12)


def test_mjcf_ball_joint_and_connect(tmp_path):
    # a bob on a ball joint held level by a <connect> to the world: maximal form only, the equality's joint
    # listed; the articulation form refuses it with the sentence
    xml = tmp_path / "loop.xml"
    xml.write_text("<mujoco model='loop'>\n  <worldbody>\n    <body name='bob' pos='0 0 1'>\n"
                   "      <joint name='ball' type='ball' pos='-0.5 0 0'/>\n      <geom size='0.1' mass='1'/>\n"
                   "    </body>\n  </worldbody>\n  <equality>\n"
                   "    <connect name='tie' body1='bob' anchor='0.5 0 0'/>\n  </equality>\n</mujoco>\n")
    w = moreau.World(time_step=0.01)
    m = w.load_mjcf(xml, articulation=False)
    assert m.key == 0 and [(e[0], e[2], e[3]) for e in m.equalities] == [("tie", "connect", True)]
    assert m.equalities[0][1] != 0
    bob = [b for name, b in m.links if name == "bob"][0]
    w.step(50)
    z = moreau.Body(w, bob).position[2]
    assert abs(z - 1.0) < 1e-3  # held level (it would fall 0.5 m swinging on the ball joint alone)
    with pytest.raises(moreau.Error) as e:
        moreau.World().load_mjcf(xml)
    assert str(e.value).startswith(str(xml) + ":9: connect 'tie': an equality closes a loop") and \
        str(e.value).endswith("load with articulation = false (C) or maximal = true (Lua)")
