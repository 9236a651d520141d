"""Particles and FEM meshes from Python."""
import os

import numpy as np
import pytest

import moreau

SCENES = os.environ.get("MOREAU_SCENES_DIR", os.path.join(os.path.dirname(__file__), "..", "..", "scenes"))
BAR = os.path.join(SCENES, "models", "tet", "bar.msh")


def test_particle_free_fall_forces_and_stale_id():
    g, h, n = 9.81, 0.01, 20
    w = moreau.World(time_step=h)
    p = w.create_particle(position=(0, 0, 5), mass=2.0, radius=0.0)
    assert isinstance(p, moreau.Particle)
    w.step(n)
    assert p.position[2] == pytest.approx(5 - g * h * h * n * (n + 1) / 2, abs=1e-12)
    assert p.velocity[2] == pytest.approx(-g * h * n, abs=1e-12)
    p.set_velocity((1, 0, 0))
    p.apply_force((0, 0, 2.0 * g))  # cancels gravity for one step
    w.step()
    assert p.velocity == pytest.approx((1, 0, 0), abs=1e-12)
    with pytest.raises(moreau.Error):
        w.create_particle(mass=-1)
    p.destroy()
    with pytest.raises(moreau.Error) as e:
        p.position
    assert e.value.status == "MO_ERR_STALE_ID"


def test_fem_bar_hanging_from_its_top_stretches():
    nodes, tets, regions = moreau.load_tetmesh(BAR)
    assert nodes.shape[1] == 3 and tets.shape[1] == 4 and regions.shape == (len(tets),)
    w = moreau.World(time_step=1 / 120, settings={"solver.kind": "newton"})
    fixed = np.nonzero(nodes[:, 2] >= nodes[:, 2].max() - 1e-9)[0]  # the bar stands along z: hang it by its top
    mesh = w.create_fem_mesh(nodes, tets, moreau.Material(1e6, 0.3, 1000.0), fixed_nodes=fixed,
                             position=(0, 0, 1))
    assert isinstance(mesh, moreau.FemMesh) and mesh.valid
    assert mesh.counts == (len(nodes), len(tets))
    cur, rest = mesh.volume
    assert cur == pytest.approx(rest) and rest > 0
    p0 = mesh.positions
    assert np.allclose(p0, nodes + (0, 0, 1))
    w.step(30)
    p1 = mesh.positions
    assert np.allclose(p1[fixed], p0[fixed], rtol=0, atol=1e-6)  # held (by rows of the Newton solve)
    assert p1[:, 2].min() < p0[:, 2].min() - 1e-6                  # the free end falls and stretches it
    assert mesh.velocities.shape == p1.shape
    free = int(np.argmin(nodes[:, 2]))
    assert mesh.node_particle(free).position == pytest.approx(tuple(p1[free]))
    mesh.set_activation(0, 0.1)
    mesh.set_fixed_velocity(int(fixed[0]), (0, 0, 0.1))
    w.step()
    assert mesh.positions[fixed[0], 2] == pytest.approx(p1[fixed[0], 2] + 0.1 / 120, abs=1e-5)  # up by 8.3e-4
    anchor = w.create_body(type="static", shape=moreau.Sphere(0.01), position=tuple(mesh.positions[free]))
    mesh.attach(free, anchor)
    w.step(5)
    mesh.detach(free)
    with pytest.raises(moreau.Error):
        mesh.detach(free)  # not attached any more
    mesh.destroy()
    assert not mesh.valid


def test_fem_errors_carry_the_sentence():
    nodes, tets, _ = moreau.load_tetmesh(BAR)
    w = moreau.World()  # pgs: FEM needs newton
    with pytest.raises(moreau.Error) as e:
        w.create_fem_mesh(nodes, tets, moreau.Material(1e6, 0.3, 1000.0))
    assert e.value.status == "MO_ERR_INVALID_ARGUMENT" and "newton" in str(e.value)
    w = moreau.World(settings={"solver.kind": "newton"})
    with pytest.raises(moreau.Error) as e:
        w.create_fem_mesh(nodes, tets, moreau.Material(1e6, 0.7, 1000.0))
    assert "poisson" in str(e.value).lower()
    with pytest.raises(ValueError):
        w.create_fem_mesh(nodes, tets, moreau.Material(1e6, 0.3, 1000.0, model="rubber"))
    with pytest.raises(ValueError):
        w.create_fem_mesh(nodes[:, :2], tets, moreau.Material(1e6, 0.3, 1000.0))
    with pytest.raises(moreau.Error) as e:
        moreau.load_tetmesh("nope.msh")
    assert e.value.status == "MO_ERR_IO" and "nope.msh" in str(e.value)
