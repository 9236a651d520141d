"""moreau: Python bindings of the Moreau multibody engine (docs/python.md).

The C extension ``moreau._moreau`` wraps the public C API; this module gives
it a Python face: World, Body, Joint, Contact, the shape helpers, load() for
scene files, Articulation and Link (with URDF loading), Particle, FemMesh and
Material, FcProblem and fc_read for FCLIB problems, and Env (moreau.env) for
control and learning loops.
"""
from collections import namedtuple
import numbers
import os

import numpy as _np

from . import _moreau as _c
from ._moreau import Error, _World, _Batch, settings as _settings_table
from ._moreau import VERSION_MAJOR, VERSION_MINOR, VERSION_PATCH

__all__ = ["Error", "World", "Batch", "Body", "Joint", "Articulation", "Link", "Contact", "FcProblem", "fc_read", "load",
           "Particle", "FemMesh", "Material", "load_tetmesh",
           "settings", "Sphere", "Box", "Capsule", "Cylinder", "Plane", "ConvexHull", "Env", "version"]

version = "%d.%d.%d" % (VERSION_MAJOR, VERSION_MINOR, VERSION_PATCH)


def settings():
    """The engine's settings table: a list of (name, type, min, max, unit, doc)."""
    return _settings_table()


def _text(value):
    """A Python value as the text the settings parser reads (docs/settings.md)."""
    if isinstance(value, (bool, _np.bool_)):
        return "true" if value else "false"
    if isinstance(value, numbers.Integral):  # int, numpy integers
        return str(int(value))
    if isinstance(value, numbers.Real):  # float, numpy floats: repr gives the shortest text that reads back exactly
        return repr(float(value))
    if isinstance(value, str):
        return value
    try:
        items = list(value)
    except TypeError:
        raise TypeError("setting value %r: expected a number, bool, str or 3 numbers" % (value,)) from None
    return ",".join(_text(float(x)) for x in items)


def _assignments(settings, kwargs):
    out = []
    for src in (settings or {}), kwargs:
        for name, value in src.items():
            out.append("%s=%s" % (name, _text(value)))
    return out


# ---- shapes: plain dicts the C side reads -------------------------------------------

def _shape(kind, friction, density, margin, position, orientation, **geom):
    d = {"type": kind, **geom}
    for k, v in (("friction", friction), ("density", density), ("margin", margin), ("position", position),
                 ("orientation", orientation)):
        if v is not None:
            d[k] = v
    return d


def Sphere(radius, friction=None, density=None, margin=None, position=None, orientation=None):
    """A sphere of radius (m); position/orientation place it in the body frame."""
    return _shape("sphere", friction, density, margin, position, orientation, radius=radius)


def Box(half_extents, friction=None, density=None, margin=None, position=None, orientation=None):
    """A box of half extents (hx, hy, hz) in m."""
    return _shape("box", friction, density, margin, position, orientation, half_extents=half_extents)


def Capsule(radius, half_height, friction=None, density=None, margin=None, position=None, orientation=None):
    """The segment (0, 0, +-half_height) swept by radius (m)."""
    return _shape("capsule", friction, density, margin, position, orientation, radius=radius,
                  half_height=half_height)


def Cylinder(radius, half_height, friction=None, density=None, margin=None, position=None, orientation=None):
    """A cylinder along the body's z, caps at +-half_height (m)."""
    return _shape("cylinder", friction, density, margin, position, orientation, radius=radius,
                  half_height=half_height)


def Plane(friction=None, position=None, orientation=None):
    """The half-space z <= 0 of the shape frame (static bodies only)."""
    return _shape("plane", friction, None, None, position, orientation)


def ConvexHull(points, friction=None, density=None, margin=None, position=None, orientation=None):
    """The convex hull of points (>= 4, not coplanar), shape frame."""
    return _shape("convex_hull", friction, density, margin, position, orientation, points=[tuple(p) for p in points])


# ---- objects -----------------------------------------------------------------------

Contact = namedtuple("Contact", "body_a body_b shape_a shape_b point normal gap friction impulse force")
Contact.__doc__ = ("One contact of the last step (world frame): bodies (Body or None), shape ids, point (m), "
                   "normal (unit, A to B), gap (m, < 0 penetrating), friction (mu), impulse (normal, t1, t2; N s), "
                   "force on B (N)")


class Body:
    """A rigid body of a World (an id: stale after destroy, then every call raises moreau.Error)."""
    __slots__ = ("world", "key", "name")

    def __init__(self, world, key, name=""):
        self.world, self.key, self.name = world, key, name

    def __eq__(self, other):
        return isinstance(other, Body) and other.world is self.world and other.key == self.key

    def __hash__(self):
        return hash(self.key)

    def __repr__(self):
        return "Body(index=%d, generation=%d%s)" % (self.key & 0xffffffff, self.key >> 32,
                                                   ", name=%r" % self.name if self.name else "")

    @property
    def position(self):
        """centre of mass, world frame (m)"""
        return self.world._body_state(self.key)[0]

    @property
    def orientation(self):
        """unit quaternion (w, x, y, z)"""
        return self.world._body_state(self.key)[1]

    @property
    def linear_velocity(self):
        return self.world._body_state(self.key)[2]

    @property
    def angular_velocity(self):
        return self.world._body_state(self.key)[3]

    @property
    def valid(self):
        return self.world._body_is_valid(self.key)

    @property
    def mass(self):
        return self.world._body_mass(self.key)[0]

    @property
    def inertia(self):
        """body-frame inertia about the centre of mass, 3x3 tuple of rows"""
        return self.world._body_mass(self.key)[1]

    @property
    def kinetic_energy(self):
        return self.world._body_kinetic_energy(self.key)

    def set_pose(self, position, orientation=(1.0, 0.0, 0.0, 0.0)):
        self.world._body_set_pose(self.key, position, orientation)

    def set_velocity(self, linear, angular=(0.0, 0.0, 0.0)):
        self.world._body_set_velocity(self.key, linear, angular)

    def apply_force(self, force=(0.0, 0.0, 0.0), torque=(0.0, 0.0, 0.0)):
        """force (N) at the centre of mass and torque (N m), world frame, for the next step"""
        self.world._body_apply_force(self.key, force, torque)

    def apply_force_at(self, force, world_point):
        self.world._body_apply_force_at(self.key, force, world_point)

    def contact_force(self):
        """(force, torque) of the last step's contacts on this body (N, N m)"""
        return self.world._body_contact_force(self.key)

    def add_shape(self, shape):
        """another shape (moreau.Sphere(...) etc.); returns its id"""
        return self.world._shape_create(self.key, shape)

    def set_mass_from_shapes(self):
        self.world._body_set_mass_from_shapes(self.key)

    def destroy(self):
        self.world._body_destroy(self.key)


class Joint:
    """A joint of a World (mo_joint_*)."""
    __slots__ = ("world", "key")

    def __init__(self, world, key):
        self.world, self.key = world, key

    @property
    def position(self):
        """revolute angle (rad), prismatic offset (m), distance length (m)"""
        return self.world._joint_position(self.key)

    def reaction(self):
        """(force, torque) on body B from the last step (N, N m, world)"""
        return self.world._joint_reaction(self.key)

    def set_motor(self, mode, target_velocity=0.0, target_position=0.0, max_force=float("inf")):
        """mode "off", "velocity" or "position" (PD with the stiffness/damping given at creation)"""
        self.world._joint_set_motor(self.key, mode, target_velocity, target_position, max_force)

    def destroy(self):
        self.world._joint_destroy(self.key)


class Articulation:
    """A reduced-coordinate articulation (moreau/articulation.h, docs/articulations.md): joint-space state and
    inputs as NumPy arrays (new arrays; setters take any float sequence of the right length)."""
    __slots__ = ("world", "key", "links", "joints", "warnings", "equalities")

    def __init__(self, world, key, links=(), joints=(), warnings=(), equalities=()):
        self.world, self.key = world, key
        self.links = list(links)      # URDF/MJCF: [(link name, link body key)]
        self.joints = list(joints)    # URDF/MJCF: [(joint name, joint key, child link)]
        self.warnings = list(warnings)
        self.equalities = list(equalities)  # MJCF: [(name, joint key or 0, "connect" | "weld", active)]

    def _call(self, fn, *args):
        return fn(self.world, self.key, *args)

    @property
    def valid(self):
        return self._call(_c._artic_is_valid)

    @property
    def size(self):
        """(links, nq, nv)"""
        return self._call(_c._artic_size)

    @property
    def q(self):
        """joint coordinates (nq,): angles (rad), displacements (m), quaternions (w, x, y, z)"""
        return self._call(_c._artic_get, 0)

    @q.setter
    def q(self, values):
        self._call(_c._artic_set, 0, values)

    @property
    def qd(self):
        """joint velocities (nv,)"""
        return self._call(_c._artic_get, 1)

    @qd.setter
    def qd(self, values):
        self._call(_c._artic_set, 1, values)

    def set_torques(self, tau):
        """joint torques (nv,), N m or N; held for every step until changed or cleared"""
        self._call(_c._artic_set, 2, tau)

    def clear_torques(self):
        self._call(_c._artic_clear_torques)

    def constraint_forces(self):
        """the last step's limit, friction and mimic joint forces (nv,)"""
        return self._call(_c._artic_get, 2)

    def gravity_compensation(self):
        """torques (nv,) that hold the articulation still at q against gravity"""
        return self._call(_c._artic_get, 3)

    def bias_forces(self):
        """c(q, qd) (nv,): M qdd + c = tau"""
        return self._call(_c._artic_get, 4)

    def mass_matrix(self):
        """M(q), (nv, nv)"""
        return self._call(_c._artic_mass_matrix)

    def inverse_dynamics(self, qdd):
        """tau = M qdd + c at the current state"""
        return self._call(_c._artic_inverse_dynamics, qdd)

    def jacobian(self, link, point=(0.0, 0.0, 0.0)):
        """(jv, jw), each (3, nv): the point's (link frame) world velocity jv qd, the link's angular jw qd"""
        return self._call(_c._artic_jacobian, self.link_index(link), point)

    def link_index(self, link):
        """a link by index or name"""
        return self._call(_c._artic_find_link, link) if isinstance(link, str) else int(link)

    def joint_dofs(self, link):
        """(q_ofs, nq, v_ofs, nv) of link's joint"""
        return self._call(_c._artic_joint_dofs, self.link_index(link))

    def link_pose(self, link):
        """(position, orientation) of link's frame, world"""
        return self._call(_c._artic_link_pose, self.link_index(link))

    def link_velocity(self, link):
        """(angular, linear) velocity of link's frame origin, world axes"""
        return self._call(_c._artic_link_velocity, self.link_index(link))

    def link_body(self, link):
        """the Body moving with link (give it shapes to make the link collide)"""
        return Body(self.world, self._call(_c._artic_link_body, self.link_index(link)))

    def set_drive(self, link, **fields):
        """PD drive of a revolute/prismatic joint: stiffness, damping, target_position, target_velocity, torque,
        max_effort (fields not given keep their current values)"""
        self._call(_c._artic_set_drive, self.link_index(link), fields)

    def drive(self, link):
        """the drive of link's joint as a dict"""
        return self._call(_c._artic_drive, self.link_index(link))

    def set_limits(self, link, lower, upper):
        self._call(_c._artic_set_limits, self.link_index(link), lower, upper)

    def limits(self, link):
        return self._call(_c._artic_limits, self.link_index(link))

    def set_joint_damping(self, link, damping):
        self._call(_c._artic_set_joint_damping, self.link_index(link), damping)

    def set_cone_limit(self, link, angle=float("inf")):
        """a spherical joint's rotation angle held <= angle (rad, in [0, pi]; inf: none)"""
        self._call(_c._artic_set_cone_limit, self.link_index(link), angle)

    def cone_limit(self, link):
        return self._call(_c._artic_cone_limit, self.link_index(link))

    def set_collision_group(self, group):
        """no two of its link bodies (nor bodies of the same group) collide; 0: no group"""
        self._call(_c._artic_set_collision_group, group)

    def collision_group(self):
        return self._call(_c._artic_collision_group)

    def energy(self):
        """(kinetic, potential) energy, J"""
        return self._call(_c._artic_energy)

    def destroy(self):
        self._call(_c._artic_destroy)


class Particle:
    """A point mass (mo_particle_*): collides with shapes through its radius, not with other particles."""
    __slots__ = ("world", "key")

    def __init__(self, world, key):
        self.world, self.key = world, key

    @property
    def position(self):
        return _c._particle_state(self.world, self.key)[0]

    @property
    def velocity(self):
        return _c._particle_state(self.world, self.key)[1]

    def set_velocity(self, v):
        _c._particle_set(self.world, self.key, 0, v)

    def apply_force(self, force):
        """force (N, world) for the next step"""
        _c._particle_set(self.world, self.key, 1, force)

    def destroy(self):
        _c._particle_destroy(self.world, self.key)


def Material(young, poisson, density, model="corotational"):
    """An FEM material: Young's modulus (Pa), Poisson's ratio, density (kg/m^3), model "corotational",
    "neo_hookean" or "neo_hookean_2row" (docs/fem.md)."""
    return {"young": young, "poisson": poisson, "density": density, "model": model}


def load_tetmesh(path):
    """A TetGen (.node/.ele) or Gmsh (.msh) tetrahedral mesh: (nodes (n, 3), tets (m, 4), regions (m,))."""
    return _c._tetmesh_load(os.fspath(path))


class FemMesh:
    """An FEM tetrahedral mesh in a world (mo_fem_mesh_*; worlds with solver.kind = newton)."""
    __slots__ = ("world", "key")

    def __init__(self, world, key):
        self.world, self.key = world, key

    @property
    def valid(self):
        return _c._fem_is_valid(self.world, self.key)

    @property
    def counts(self):
        """(nodes, elements)"""
        return _c._fem_counts(self.world, self.key)

    @property
    def positions(self):
        """node positions (n, 3), a new array"""
        return _c._fem_nodes(self.world, self.key, 0)

    @property
    def velocities(self):
        """node velocities (n, 3), a new array"""
        return _c._fem_nodes(self.world, self.key, 1)

    @property
    def volume(self):
        """(current, rest) volume, m^3"""
        return _c._fem_volume(self.world, self.key)

    def node_particle(self, node):
        """the Particle that is this node"""
        return Particle(self.world, _c._fem_node_particle(self.world, self.key, node))

    def attach(self, node, body, compliance=0.0):
        """pin node to body where it is now (m/N compliance)"""
        _c._fem_attach(self.world, self.key, node, body.key, compliance)

    def detach(self, node):
        _c._fem_detach(self.world, self.key, node)

    def set_activation(self, element, a):
        """rest volume of element scaled by 1 + a"""
        _c._fem_set_activation(self.world, self.key, element, a)

    def set_fixed_velocity(self, node, v):
        """velocity of a fixed node (it moves by it each step)"""
        _c._fem_set_fixed_velocity(self.world, self.key, node, v)

    def destroy(self):
        _c._fem_destroy(self.world, self.key)


class FcProblem(_c._FcProblem):
    """An FCLIB frictional contact problem (moreau/fclib.h, docs/fclib.md): find r and u = W r + q with
    u, r in the Coulomb cones of mu. FcProblem(W, q, mu) from a dense W (3nc, 3nc); moreau.fc_read(path)
    from an FCLIB HDF5 or Siconos .dat file; World.contact_problem() from the last step. W, q, mu: copies."""

    def solve(self, r0=None, history=False, **settings):
        """Solve with one solver (mo_fc_solve): solver settings by name without the "solver." prefix
        (kind="apgd", iterations=..., tolerance=..., coulomb_updates=...) over mo_fc_default_settings().
        Returns (r, u, result) with result a dict: iterations, converged, error (Siconos), ccp_residual,
        seconds, stages, error_history and ccp_history (arrays after every iteration with history=True, else None)."""
        return self._solve([_setting(k, v) for k, v in settings.items()], r0, False, history)

    def solve_auto(self, r0=None, **settings):
        """Solve with the default configuration (mo_fc_solve_auto: APGD, then Newton, then PGS)."""
        return self._solve([_setting(k, v) for k, v in settings.items()], r0, True, False)

    def write(self, path, dat=False):
        """Write FCLIB HDF5 (mo_fc_write) or, with dat=True, the Siconos .dat text form."""
        self._write(os.fspath(path), dat)


def _setting(name, value):
    return "%s=%s" % (name, _text(value))


def fc_read(path):
    """Read an FCLIB HDF5 or Siconos .dat problem (mo_fc_read)."""
    return _c._fc_read(FcProblem, os.fspath(path))


def Link(parent=-1, joint="revolute", axis=None, joint_position=None, joint_orientation=None, mass=None, com=None,
         inertia=None, damping=None, armature=None, name=None):
    """One link of World.create_articulation (mo_link_def): joint "fixed", "revolute", "prismatic",
    "spherical" or "free" (root only); inertia a 3x3 about the centre of mass (link axes)."""
    d = {k: v for k, v in locals().items() if v is not None}
    if inertia is not None:
        d["inertia"] = [float(x) for row in inertia for x in row]
    return d


class World(_World):
    """A simulation world.

    World(settings=None, **kwargs): settings by name (docs/settings.md), from the
    dict settings (dotted names such as "solver.kind") and keyword arguments
    (undotted names: gravity=(0, 0, -9.81), time_step=0.01). Raises moreau.Error
    with the engine's sentence for a bad name or value.
    """

    def __init__(self, settings=None, **kwargs):
        super().__init__(_assignments(settings, kwargs))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def set(self, settings=None, **kwargs):
        """Change settings by name, all at once (mo_world_set_settings): unchanged on error."""
        self._set_settings(_assignments(settings, kwargs))

    def _body(self, key):
        return Body(self, key) if key & 0xffffffff00000000 else None

    def create_body(self, shape=None, type="dynamic", mass=None, position=None, orientation=None,
                    linear_velocity=None, angular_velocity=None, inertia=None, linear_damping=None,
                    angular_damping=None, gyroscopic=None, collision_group=None):
        """A body (mo_body_create); shape is moreau.Sphere(...), Box, Capsule, Cylinder, Plane, ConvexHull."""
        d = {k: v for k, v in locals().items() if k != "self" and v is not None}
        if inertia is not None:
            d["inertia"] = [float(x) for row in inertia for x in row]
        return Body(self, self._body_create(d))

    def create_joint(self, type, body_a=None, body_b=None, **kwargs):
        """A joint (mo_joint_create): type "fixed", "spherical", "revolute", "prismatic", "distance";
        body_a None = the world; other fields of mo_joint_def by name (anchor_a, axis_a, lower, motor...)."""
        d = dict(kwargs, type=type, body_a=body_a.key if body_a is not None else 0,
                 body_b=body_b.key if body_b is not None else 0)
        return Joint(self, self._joint_create(d))

    def create_articulation(self, links, base_position=(0.0, 0.0, 0.0), base_orientation=(1.0, 0.0, 0.0, 0.0),
                            integrator="midpoint"):
        """An articulation from a list of moreau.Link(...) (parents before children); integrator "midpoint"
        or "euler"."""
        return Articulation(self, _c._artic_create(self, list(links), base_position, base_orientation, integrator))

    def load_urdf(self, path, paths=None, **options):
        """Load a URDF robot (mo_urdf_load) as one articulation (the default) or, with articulation=False,
        as bodies and joints. Options by name: fixed_base, base_position, base_orientation, self_collision,
        drive_stiffness, drive_damping, friction, ignore_damping, ignore_friction; paths: folders for
        package:// meshes. Returns an Articulation (key 0 when articulation=False) whose links and joints list
        the model's names with their body and joint ids; warnings the loader's."""
        key, links, joints, warnings, eqs = _c._urdf_load(self, os.fspath(path), options,
                                                          [os.fspath(p) for p in (paths or [])])
        return Articulation(self, key, links, joints, warnings, eqs)

    def load_mjcf(self, path, paths=None, **options):
        """Load an MJCF model (MuJoCo's XML, mo_mjcf_load; the subset in docs/import.md) as one articulation
        (the default) or, with articulation=False, as bodies and joints (needed for <equality> connect/weld).
        Options by name: articulation, self_collision, friction, massless_link_mass, max_hull_vertices,
        apply_option (False keeps the world's time step and gravity); paths: folders for mesh files. Returns an
        Articulation (key 0 when articulation=False) with links, joints, warnings and equalities."""
        key, links, joints, warnings, eqs = _c._mjcf_load(self, os.fspath(path), options,
                                                          [os.fspath(p) for p in (paths or [])])
        return Articulation(self, key, links, joints, warnings, eqs)

    def create_particle(self, position=None, velocity=None, mass=None, radius=None, friction=None):
        """A particle (mo_particle_create)."""
        d = {k: v for k, v in locals().items() if k != "self" and v is not None}
        return Particle(self, _c._particle_create(self, d))

    def create_fem_mesh(self, nodes, tets, materials, element_material=None, activation=None, position=None,
                        orientation=None, velocity=None, fixed_nodes=None, friction=None, radius=None):
        """An FEM mesh (mo_fem_mesh_create): nodes (n, 3) rest positions, tets (m, 4) node indices (positively
        oriented), materials a list of moreau.Material(...) (or one), element_material per tet; fixed_nodes held
        in place. The world's solver must be newton."""
        if isinstance(materials, dict):
            materials = [materials]
        d = {k: v for k, v in (("element_material", element_material), ("activation", activation),
                               ("position", position), ("orientation", orientation), ("velocity", velocity),
                               ("fixed_nodes", fixed_nodes), ("friction", friction), ("radius", radius))
             if v is not None}
        return FemMesh(self, _c._fem_create(self, nodes, tets, list(materials), d))

    def contact_problem(self):
        """The last step's contact problem as an FcProblem (mo_world_contact_problem)."""
        return _c._fc_world_problem(FcProblem, self)

    def bodies(self):
        """live bodies in slot order (the order of the bulk arrays)"""
        names = {k: n for n, k in self._scene_bodies()}
        return [Body(self, k, names.get(k, "")) for k in self._bodies()]

    def body(self, name):
        """the scene's body called name (scene worlds); KeyError when none"""
        for n, k in self._scene_bodies():
            if n == name:
                return Body(self, k, n)
        raise KeyError(name)

    def contacts(self):
        """the last step's contacts, a list of moreau.Contact"""
        return [Contact(self._body(c[0]), self._body(c[1]), *c[2:]) for c in self._contacts()]

    # bulk state: new float64 arrays in bodies() order (or written into out, which must have the
    # current shape: an out sized for another body count is refused with ValueError)
    def positions(self, out=None):
        """(n, 3) centres of mass (m)"""
        return self._body_array(0, out)

    def orientations(self, out=None):
        """(n, 4) unit quaternions (w, x, y, z)"""
        return self._body_array(1, out)

    def linear_velocities(self, out=None):
        """(n, 3) m/s"""
        return self._body_array(2, out)

    def angular_velocities(self, out=None):
        """(n, 3) rad/s"""
        return self._body_array(3, out)

    # scene files
    def checks(self):
        """a scene's claims evaluated now: [(name, passed, detail)]"""
        return self._scene_checks()

    @property
    def duration(self):
        """the duration the scene asks for (s), 0 when none"""
        return self._scene_info()[0]

    @property
    def done(self):
        """True once a scene callback called stop()"""
        return self._scene_info()[1]


def load(path, set=None, params=None, paths=None, seed=0):
    """Run the scene file at path (scenes/x.lua) and return its World.

    set: NAME=VALUE pairs as moreau-run --set takes them: an engine setting by name
    (docs/settings.md) is applied over the scene's settings, any other name is a value
    for param(name, default) in the script; params: more script params (always params);
    paths: more folders the script may read from (as --path); seed: the script's
    math.random seed (as --seed; the same seed draws the same numbers). step() then runs the
    scene's callbacks too. Raises moreau.Error with the sentence naming file and line.
    """
    known = {row[0] for row in _settings_table()}
    engine = {k: v for k, v in (set or {}).items() if k in known}
    script = {k: v for k, v in (set or {}).items() if k not in known}
    script.update(params or {})
    w = World.__new__(World)
    _World.__init__(w, _assignments(engine, {}), scene=os.fspath(path),
                    params=["%s=%s" % (k, _text(v)) for k, v in script.items()],
                    paths=[os.fspath(p) for p in (paths or [])], seed=int(seed))
    return w


class Batch(_Batch):
    """N worlds of one scene file stepped together (moreau/batch.h, docs/batch.md).

    Batch("scenes/quadruped.lua", 64, set={...}, params={...}, paths=[...], threads=1): each world is its own
    loaded scene (its callbacks run on step()); set splits as load()'s (an engine setting by name over every
    world's, else a script param). step(n) steps every world n times, worlds spread over `threads` OpenMP
    threads, each world bit-identical to the same world stepped alone. Bulk state is world-major NumPy arrays:
    bodies() -> (positions (N, B, 3), orientations (N, B, 4) as w, x, y, z, linear (N, B, 3), angular (N, B, 3))
    of the dynamic bodies; joints() -> (q (N, nq), qdot (N, nv)) of the articulations; drive_targets() ->
    (positions (N, D), velocities (N, D)); the set_ forms take the same shapes (None: unchanged) and change
    nothing on error. contact_counts(), hashes(), reset(i=-1), mark_initial(i=-1), set_gravity(i, g),
    set_settings(i, dict) (i = -1: every world), set_threads(n), close(). Errors raise moreau.Error with
    the batch's sentence naming the world.
    """

    def __init__(self, path, worlds, set=None, params=None, paths=None, threads=1):
        known = {row[0] for row in _settings_table()}
        engine = {k: v for k, v in (set or {}).items() if k in known}
        script = {k: v for k, v in (set or {}).items() if k not in known}
        script.update(params or {})
        _Batch.__init__(self, os.fspath(path), int(worlds), _assignments(engine, {}),
                        ["%s=%s" % (k, _text(v)) for k, v in script.items()],
                        [os.fspath(p) for p in (paths or [])], int(threads))

    @property
    def worlds(self):
        """the number of worlds"""
        return self.sizes()[0]

    def set_settings(self, index, settings):
        """settings (a dict NAME: value, docs/settings.md) on world index, or every world when index is -1"""
        _Batch.set_settings(self, int(index), _assignments(settings, {}))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


from .env import Env  # noqa: E402  (needs World)
