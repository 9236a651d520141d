"""FCLIB problems from Python: build, read, write, solve, error; a world's contact problem."""
import os

import numpy as np
import pytest

import moreau

SCENES = os.environ.get("MOREAU_SCENES_DIR", os.path.join(os.path.dirname(__file__), "..", "..", "scenes"))


def test_one_contact_sticks_and_slides():
    # W = I: u = r + q. q_t inside the cone: sticking, r = -q; outside: sliding on the cone's edge
    p = moreau.FcProblem(np.eye(3), [-1.0, 0.2, 0.0], [0.5])
    assert p.size == (1, 0) and np.array_equal(p.W, np.eye(3)) and list(p.q) == [-1.0, 0.2, 0.0]
    assert list(p.mu) == [0.5]
    r, u, res = p.solve(kind="pgs", iterations=100)
    assert np.allclose(r, [1.0, -0.2, 0.0]) and np.allclose(u, 0.0)
    assert res["converged"] and res["error"] == 0.0 and res["stages"] == ["pgs"]
    assert res["error_history"] is None
    e, u2 = p.error(r)
    assert e == 0.0 and np.allclose(u2, u)
    slide = moreau.FcProblem(np.eye(3), [-1.0, 2.0, 0.0], [0.5])
    r, u, res = slide.solve_auto(tolerance=1e-10)
    assert r[0] == pytest.approx(1.0, abs=1e-6) and r[1] == pytest.approx(-0.5, abs=1e-6)  # |r_t| = mu r_n
    assert res["error"] < 1e-8 and res["stages"][0] == "apgd"
    with pytest.raises(ValueError):
        moreau.FcProblem(np.eye(2), [0, 0], [0.5])
    with pytest.raises(ValueError):
        p.error([1.0, 0.0])


def test_world_contact_problem_round_trip_and_solve(tmp_path):
    w = moreau.load(os.path.join(SCENES, "stack20.lua"))
    with pytest.raises(moreau.Error) as e:
        w.contact_problem()
    assert str(e.value) == "mo_world_contact_problem: no step has been taken yet"
    w.step(3)
    p = w.contact_problem()
    nc, ndof = p.size
    assert nc == 80 and ndof == 120 and p.W.shape == (240, 240)
    r, u, res = p.solve(kind="pgs", iterations=50, history=True)
    assert res["iterations"] == 50 and len(res["error_history"]) == res["iterations"]
    assert res["error_history"][-1] < res["error_history"][0]
    r, u, res = p.solve()  # the default configuration's settings, APGD
    assert res["converged"] and res["error"] <= 1e-4
    assert p.error(r)[0] == pytest.approx(res["error"])
    dat = tmp_path / "stack.dat"
    p.write(dat, dat=True)
    q = moreau.fc_read(dat)
    assert q.size == (80, 0) and np.array_equal(q.W, p.W) and np.array_equal(q.q, p.q)
    h5 = tmp_path / "stack.hdf5"
    try:
        p.write(h5)
    except moreau.Error as e:
        assert e.status == "MO_ERR_UNSUPPORTED"  # a build without HDF5
    else:
        assert moreau.fc_read(h5).size == (80, 120)


def test_fclib_errors_carry_the_sentence():
    with pytest.raises(moreau.Error) as e:
        moreau.fc_read("/nope.hdf5")
    assert str(e.value) == "mo_fc_read: cannot open '/nope.hdf5': No such file or directory"
    assert e.value.status == "MO_ERR_IO"
    p = moreau.FcProblem(np.eye(3), [-1.0, 0.0, 0.0], [0.5])
    with pytest.raises(moreau.Error) as e:
        p.solve(kind="cg")
    assert str(e.value) == ("mo_fc_solve: solver 'cg' solves bilateral rows only; a frictional contact problem "
                            "needs pgs, jacobi, apgd or spg")
    with pytest.raises(moreau.Error) as e:
        p.solve(bogus=1)
    assert str(e.value) == "unknown setting 'solver.bogus' (moreau-run --list-settings lists them)"
