"""Scene files from Python (moreau.load): the same bits as moreau-run, params, checks, errors; Env."""
import os
import re
import subprocess

import numpy as np
import pytest

import moreau

SCENES = os.environ.get("MOREAU_SCENES_DIR", os.path.join(os.path.dirname(__file__), "..", "..", "scenes"))
MOREAU_RUN = os.environ.get("MOREAU_RUN")
STACK20 = os.path.join(SCENES, "stack20.lua")


def run_hashes(*args):
    """moreau-run's --hash-every lines: {step: hash}"""
    if not MOREAU_RUN:
        pytest.skip("MOREAU_RUN not set (run through meson test)")
    out = subprocess.run([MOREAU_RUN, *args], check=True, capture_output=True, text=True).stdout
    return {int(m.group(2)): int(m.group(1), 16) for m in re.finditer(r"hash 0x([0-9a-f]{16}) at step (\d+)", out)}


@pytest.mark.parametrize("settings", [{}, {"solver.kind": "pgs", "solver.iterations": 30}])
def test_stack20_gives_the_bits_of_moreau_run(settings):
    args = [STACK20, "--steps", "60", "--hash-every", "20"]
    for k, v in settings.items():
        args += ["--set", "%s=%s" % (k, v)]
    ref = run_hashes(*args)
    assert sorted(ref) == [20, 40, 60]
    w = moreau.load(STACK20, set=settings)
    for k, v in settings.items():
        assert w.get(k) == v
    got = {}
    for step in range(1, 61):
        w.step()
        if step % 20 == 0:
            got[step] = w.state_hash()
    assert got == ref


def test_scene_bodies_checks_duration():
    w = moreau.load(STACK20)
    assert w.duration == 10.0
    assert not w.done
    names = [b.name for b in w.bodies()]
    assert names[1:] == ["box%d" % i for i in range(20)]
    top = w.body("box19")
    assert top.position == pytest.approx((0.0, 0.0, 0.25 + 0.5 * 19))
    with pytest.raises(KeyError):
        w.body("nope")
    w.step(30)
    checks = w.checks()
    assert len(checks) == 1
    name, passed, detail = checks[0]
    assert passed and name.startswith("the stack stands") and detail.startswith("top dxy")
    assert moreau.World().checks() == []


def test_scene_params_through_set():
    # arm6's param("h", 1/120) sets its time step; unknown names in set= are params as with moreau-run --set
    w = moreau.load(os.path.join(SCENES, "arm6.lua"), set={"h": 0.004})
    assert w.time_step == 0.004
    w2 = moreau.load(os.path.join(SCENES, "arm6.lua"), params={"h": 0.002})
    assert w2.time_step == 0.002
    w2.step(3)


def test_scene_errors_carry_the_sentence(tmp_path):
    with pytest.raises(moreau.Error) as e:
        moreau.load("no/such/scene.lua")
    assert str(e.value) == "no/such/scene.lua: cannot open: No such file or directory"
    assert e.value.status == "MO_ERR_IO"
    bad = tmp_path / "bad.lua"
    bad.write_text('world{ time_step = 0.01 }\nbody{ mass = -1, shape = { type = "sphere", radius = 1 } }\n')
    with pytest.raises(moreau.Error) as e:
        moreau.load(bad)
    # Lua shortens a long chunk name from the left ("...")
    assert str(e.value).endswith("bad.lua:2: body: mass must be positive, got -1")
    assert e.value.status == "MO_ERR_INVALID_ARGUMENT"
    with pytest.raises(moreau.Error) as e:
        moreau.load(STACK20, set={"solver.kind": "nope"})
    assert str(e.value) == "solver.kind 'nope' is not one of pgs, jacobi, apgd, spg, cg, minres, cholesky, newton"
    failing = tmp_path / "cb.lua"
    failing.write_text('world{}\non_step(function(t, i) if i == 2 then error("boom") end end)\n')
    w = moreau.load(failing)
    w.step(2)
    with pytest.raises(moreau.Error) as e:
        w.step()
    assert "boom" in str(e.value)


class Drop(moreau.Env):
    """a ball dropped from a random height; reward: minus its height"""
    frame_skip = 4
    max_steps = 5

    def build(self):
        w = moreau.World(time_step=0.01)
        w.create_body(type="static", shape=moreau.Plane())
        self.ball = w.create_body(shape=moreau.Sphere(0.1), position=(0, 0, 1))
        return w

    def randomize(self, world, rng):
        self.ball.set_pose((0, 0, 1 + rng.uniform(0, 1)))

    def apply_action(self, world, action):
        if action is not None:
            self.ball.apply_force((0, 0, float(action)))

    def reward(self, world, action):
        return -self.ball.position[2]

    def terminated(self, world):
        return self.ball.position[2] < 0.5


def test_env_is_seeded_and_reproducible():
    def rollout(env, seed):
        obs, info = env.reset(seed=seed)
        out = [obs]
        while True:
            obs, r, term, trunc, info = env.step(5.0)
            out.append(obs)
            assert r == -obs[5] and isinstance(info, dict) and "contacts" in info
            if term or trunc:
                return np.array(out), env.steps

    env = Drop(seed=1)
    a, n = rollout(env, 7)
    b, _ = rollout(env, 7)
    c, _ = rollout(env, 8)
    assert n == 5 and np.array_equal(a, b) and not np.array_equal(a, c)
    # the default observation: positions then linear velocities, flattened
    assert np.array_equal(env.observation(env.world), np.concatenate([env.world.positions().ravel(),
                                                                      env.world.linear_velocities().ravel()]))
    assert env.world.time == pytest.approx(5 * 4 * 0.01)
    env.close()
    with pytest.raises(RuntimeError):
        env.step()
    with pytest.raises(NotImplementedError):
        moreau.Env().reset()


def test_scene_seed_draws_the_same_numbers(tmp_path):
    # math.random in a scene follows load(seed=...): 0 by default, the same seed the same numbers
    scene = tmp_path / "draw.lua"
    scene.write_text("world{}\nlocal a = math.random()\n"
                     "check('draw', function() return true, string.format('%.17g', a) end)\n")

    def draw(**kw):
        return moreau.load(scene, **kw).checks()[0][2]

    assert draw() == draw(seed=0) and draw(seed=5) == draw(seed=5) and draw(seed=5) != draw()
