/* _fem.c: particles and FEM tetrahedral meshes (moreau.h, moreau/tetmesh.h) for
 * the Python package: module functions that take the world object first and an
 * id key (generation << 32 | index); python/moreau/__init__.py wraps them as
 * moreau.Particle and moreau.FemMesh. Node arrays come back as new NumPy arrays. */
#include "_moreau.h"

#include <stdlib.h>
#include <string.h>

#include "moreau/tetmesh.h"

static int world_arg(PyObject *o, world_object **out)
{
    if (!PyObject_TypeCheck(o, &pymo_world_type)) {
        PyErr_SetString(PyExc_TypeError, "expected a moreau.World");
        return 0;
    }
    *out = (world_object *)o;
    return pymo_live(*out);
}

#define ARGS_WK(fmt, ...)                                                                                            \
    PyObject *wo;                                                                                                    \
    unsigned long long k;                                                                                            \
    world_object *w;                                                                                                 \
    if (!PyArg_ParseTuple(args, "OK" fmt, &wo, &k, ##__VA_ARGS__) || !world_arg(wo, &w)) return NULL
#define PID(k) ID_FROM(mo_particle_id, k)
#define MID(k) ID_FROM(mo_fem_mesh_id, k)
#define CHECK(call)                                                                                                  \
    do {                                                                                                             \
        mo_status s_ = (call);                                                                                       \
        if (s_ != MO_OK) return pymo_world_fail(w, s_);                                                              \
    } while (0)

/* ---- particles ------------------------------------------------------------------ */

/* _particle_create(world, dict: position, velocity, mass, radius, friction) */
static PyObject *particle_create(PyObject *m, PyObject *args)
{
    (void)m;
    PyObject *wo, *d;
    world_object *w;
    if (!PyArg_ParseTuple(args, "OO!", &wo, &PyDict_Type, &d) || !world_arg(wo, &w)) return NULL;
    mo_particle_def def = mo_default_particle_def();
    if (pymo_dict_vec3(d, "position", &def.position) || pymo_dict_vec3(d, "velocity", &def.velocity) ||
        pymo_dict_double(d, "mass", &def.mass) || pymo_dict_double(d, "radius", &def.radius) ||
        pymo_dict_double(d, "friction", &def.friction))
        return NULL;
    mo_particle_id id;
    CHECK(mo_particle_create(w->w, &def, &id));
    return PyLong_FromUnsignedLongLong(KEY(id));
}
static PyObject *particle_destroy(PyObject *m, PyObject *args)
{
    (void)m;
    ARGS_WK("");
    CHECK(mo_particle_destroy(w->w, PID(k)));
    Py_RETURN_NONE;
}
/* (position, velocity) */
static PyObject *particle_state(PyObject *m, PyObject *args)
{
    (void)m;
    ARGS_WK("");
    mo_vec3 p, v;
    CHECK(mo_particle_position(w->w, PID(k), &p));
    CHECK(mo_particle_velocity(w->w, PID(k), &v));
    return Py_BuildValue("(NN)", pymo_vec3_out(p), pymo_vec3_out(v));
}
/* _particle_set(world, key, which, vec): 0 velocity, 1 apply force for the next step */
static PyObject *particle_set(PyObject *m, PyObject *args)
{
    (void)m;
    int which;
    PyObject *vo;
    ARGS_WK("iO", &which, &vo);
    mo_vec3 v;
    if (pymo_vec3(vo, &v, which ? "force" : "velocity")) return NULL;
    CHECK(which ? mo_particle_apply_force(w->w, PID(k), v) : mo_particle_set_velocity(w->w, PID(k), v));
    Py_RETURN_NONE;
}

/* ---- FEM meshes ------------------------------------------------------------------ */

static const char *const fem_model_names[] = {"corotational", "neo_hookean", "neo_hookean_2row", NULL};

/* _fem_create(world, nodes (n, 3), tets (m, 4), materials [dicts: young, poisson, density, model], dict:
 * element_material, activation, position, orientation, velocity, fixed_nodes, friction, radius) */
static PyObject *fem_create(PyObject *m, PyObject *args)
{
    (void)m;
    PyObject *wo, *no, *to, *mats, *d;
    world_object *w;
    if (!PyArg_ParseTuple(args, "OOOOO!", &wo, &no, &to, &mats, &PyDict_Type, &d) || !world_arg(wo, &w)) return NULL;
    mo_fem_mesh_def def = mo_default_fem_mesh_def();
    PyArrayObject *nodes = (PyArrayObject *)PyArray_FROMANY(no, NPY_DOUBLE, 2, 2, NPY_ARRAY_IN_ARRAY);
    PyArrayObject *tets = (PyArrayObject *)PyArray_FROMANY(to, NPY_INT, 2, 2, NPY_ARRAY_IN_ARRAY | NPY_ARRAY_FORCECAST);
    PyArrayObject *em = NULL, *act = NULL, *fixed = NULL;
    PyObject *seq = NULL, *out = NULL;
    mo_fem_material_def *md = NULL;
    if (!nodes || !tets) goto done;
    if (PyArray_DIM(nodes, 1) != 3 || PyArray_DIM(tets, 1) != 4) {
        PyErr_SetString(PyExc_ValueError, "FEM mesh: nodes must be (n, 3) and tets (m, 4)");
        goto done;
    }
    def.nodes = (const mo_vec3 *)PyArray_DATA(nodes);
    def.node_count = (int)PyArray_DIM(nodes, 0);
    def.tets = (const int *)PyArray_DATA(tets);
    def.tet_count = (int)PyArray_DIM(tets, 0);
    if (!(seq = PySequence_Fast(mats, "materials: expected a list of dicts"))) goto done;
    Py_ssize_t nm = PySequence_Fast_GET_SIZE(seq);
    if (!(md = calloc(nm > 0 ? (size_t)nm : 1, sizeof *md))) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < nm; i++) {
        PyObject *mi = PySequence_Fast_GET_ITEM(seq, i), *model;
        if (!PyDict_Check(mi)) {
            PyErr_SetString(PyExc_TypeError, "materials: expected a list of dicts");
            goto done;
        }
        if (pymo_dict_double(mi, "young", &md[i].young) || pymo_dict_double(mi, "poisson", &md[i].poisson) ||
            pymo_dict_double(mi, "density", &md[i].density))
            goto done;
        if ((model = PyDict_GetItemString(mi, "model")) && model != Py_None) {
            const char *s = PyUnicode_AsUTF8(model);
            int kind = -1;
            for (int t = 0; s && fem_model_names[t]; t++)
                if (!strcmp(s, fem_model_names[t])) kind = t;
            if (kind < 0) {
                if (s) PyErr_Format(PyExc_ValueError, "material model: unknown '%s'", s);
                goto done;
            }
            md[i].model = (mo_fem_model)kind;
        }
    }
    def.materials = md;
    def.material_count = (int)nm;
    PyObject *o;
    if ((o = PyDict_GetItemString(d, "element_material")) && o != Py_None) {
        if (!(em = (PyArrayObject *)PyArray_FROMANY(o, NPY_INT, 1, 1, NPY_ARRAY_IN_ARRAY | NPY_ARRAY_FORCECAST)))
            goto done;
        if (PyArray_DIM(em, 0) != def.tet_count) {
            PyErr_SetString(PyExc_ValueError, "element_material: one entry per tetrahedron");
            goto done;
        }
        def.element_material = (const int *)PyArray_DATA(em);
    }
    if ((o = PyDict_GetItemString(d, "activation")) && o != Py_None) {
        if (!(act = (PyArrayObject *)PyArray_FROMANY(o, NPY_DOUBLE, 1, 1, NPY_ARRAY_IN_ARRAY))) goto done;
        if (PyArray_DIM(act, 0) != def.tet_count) {
            PyErr_SetString(PyExc_ValueError, "activation: one entry per tetrahedron");
            goto done;
        }
        def.activation = (const double *)PyArray_DATA(act);
    }
    if ((o = PyDict_GetItemString(d, "fixed_nodes")) && o != Py_None) {
        if (!(fixed = (PyArrayObject *)PyArray_FROMANY(o, NPY_INT, 1, 1, NPY_ARRAY_IN_ARRAY | NPY_ARRAY_FORCECAST)))
            goto done;
        def.fixed_nodes = (const int *)PyArray_DATA(fixed);
        def.fixed_count = (int)PyArray_DIM(fixed, 0);
    }
    if (pymo_dict_vec3(d, "position", &def.position) || pymo_dict_quat(d, "orientation", &def.orientation) ||
        pymo_dict_vec3(d, "velocity", &def.velocity) || pymo_dict_double(d, "friction", &def.friction) ||
        pymo_dict_double(d, "radius", &def.radius))
        goto done;
    mo_fem_mesh_id id;
    mo_status s = mo_fem_mesh_create(w->w, &def, &id);
    if (s != MO_OK) pymo_world_fail(w, s);
    else out = PyLong_FromUnsignedLongLong(KEY(id));
done:
    free(md);
    Py_XDECREF(seq);
    Py_XDECREF(nodes);
    Py_XDECREF(tets);
    Py_XDECREF(em);
    Py_XDECREF(act);
    Py_XDECREF(fixed);
    return out;
}

/* _tetmesh_load(path): (nodes (n, 3), tets (m, 4), regions (m,)) of a TetGen or Gmsh file */
static PyObject *tetmesh_load(PyObject *m, PyObject *args)
{
    (void)m;
    const char *path;
    if (!PyArg_ParseTuple(args, "s", &path)) return NULL;
    mo_tetmesh t;
    char err[1024] = "";
    mo_status s = mo_tetmesh_load(path, &t, err, sizeof err);
    if (s != MO_OK) return pymo_raise(s, err);
    npy_intp dn[2] = {t.nnodes, 3}, dt[2] = {t.ntets, 4}, dr = t.ntets;
    PyArrayObject *n = (PyArrayObject *)PyArray_SimpleNew(2, dn, NPY_DOUBLE);
    PyArrayObject *e = (PyArrayObject *)PyArray_SimpleNew(2, dt, NPY_INT);
    PyArrayObject *r = (PyArrayObject *)PyArray_ZEROS(1, &dr, NPY_INT, 0);
    PyObject *out = NULL;
    if (n && e && r) {
        memcpy(PyArray_DATA(n), t.nodes, (size_t)t.nnodes * 3 * sizeof(double));
        memcpy(PyArray_DATA(e), t.tets, (size_t)t.ntets * 4 * sizeof(int));
        if (t.tet_region) memcpy(PyArray_DATA(r), t.tet_region, (size_t)t.ntets * sizeof(int));
        out = Py_BuildValue("(OOO)", n, e, r);
    }
    Py_XDECREF(n);
    Py_XDECREF(e);
    Py_XDECREF(r);
    mo_tetmesh_free(&t);
    return out;
}

static PyObject *fem_destroy(PyObject *m, PyObject *args)
{
    (void)m;
    ARGS_WK("");
    CHECK(mo_fem_mesh_destroy(w->w, MID(k)));
    Py_RETURN_NONE;
}
static PyObject *fem_is_valid(PyObject *m, PyObject *args)
{
    (void)m;
    ARGS_WK("");
    return PyBool_FromLong(mo_fem_mesh_is_valid(w->w, MID(k)));
}
/* (nodes, elements) */
static PyObject *fem_counts(PyObject *m, PyObject *args)
{
    (void)m;
    ARGS_WK("");
    int n, e;
    CHECK(mo_fem_mesh_counts(w->w, MID(k), &n, &e));
    return Py_BuildValue("(ii)", n, e);
}
/* _fem_nodes(world, key, which): 0 positions, 1 velocities (of the node particles), (n, 3) */
static PyObject *fem_nodes(PyObject *m, PyObject *args)
{
    (void)m;
    int which;
    ARGS_WK("i", &which);
    int n, e;
    CHECK(mo_fem_mesh_counts(w->w, MID(k), &n, &e));
    npy_intp d[2] = {n, 3};
    PyArrayObject *a = (PyArrayObject *)PyArray_SimpleNew(2, d, NPY_DOUBLE);
    if (!a) return NULL;
    double *p = (double *)PyArray_DATA(a);
    for (int i = 0; i < n; i++) {
        mo_vec3 v;
        mo_particle_id pid;
        mo_status s = which ? mo_fem_mesh_node_particle(w->w, MID(k), i, &pid) : MO_OK;
        if (s == MO_OK)
            s = which ? mo_particle_velocity(w->w, pid, &v) : mo_fem_mesh_node_position(w->w, MID(k), i, &v);
        if (s != MO_OK) {
            Py_DECREF(a);
            return pymo_world_fail(w, s);
        }
        p[3 * i] = v.x;
        p[3 * i + 1] = v.y;
        p[3 * i + 2] = v.z;
    }
    return (PyObject *)a;
}
/* (current, rest) volume, m^3 */
static PyObject *fem_volume(PyObject *m, PyObject *args)
{
    (void)m;
    ARGS_WK("");
    double c, r;
    CHECK(mo_fem_mesh_volume(w->w, MID(k), &c, &r));
    return Py_BuildValue("(dd)", c, r);
}
static PyObject *fem_node_particle(PyObject *m, PyObject *args)
{
    (void)m;
    int node;
    ARGS_WK("i", &node);
    mo_particle_id pid;
    CHECK(mo_fem_mesh_node_particle(w->w, MID(k), node, &pid));
    return PyLong_FromUnsignedLongLong(KEY(pid));
}
/* _fem_attach(world, key, node, body key, compliance) */
static PyObject *fem_attach(PyObject *m, PyObject *args)
{
    (void)m;
    int node;
    unsigned long long body;
    double c;
    ARGS_WK("iKd", &node, &body, &c);
    CHECK(mo_fem_mesh_attach(w->w, MID(k), node, ID_FROM(mo_body_id, body), c));
    Py_RETURN_NONE;
}
static PyObject *fem_detach(PyObject *m, PyObject *args)
{
    (void)m;
    int node;
    ARGS_WK("i", &node);
    CHECK(mo_fem_mesh_detach(w->w, MID(k), node));
    Py_RETURN_NONE;
}
static PyObject *fem_set_activation(PyObject *m, PyObject *args)
{
    (void)m;
    int el;
    double a;
    ARGS_WK("id", &el, &a);
    CHECK(mo_fem_mesh_set_activation(w->w, MID(k), el, a));
    Py_RETURN_NONE;
}
static PyObject *fem_set_fixed_velocity(PyObject *m, PyObject *args)
{
    (void)m;
    int node;
    PyObject *vo;
    ARGS_WK("iO", &node, &vo);
    mo_vec3 v;
    if (pymo_vec3(vo, &v, "velocity")) return NULL;
    CHECK(mo_fem_mesh_set_fixed_velocity(w->w, MID(k), node, v));
    Py_RETURN_NONE;
}

PyMethodDef pymo_fem_functions[] = {
    {"_particle_create", particle_create, METH_VARARGS, NULL},
    {"_particle_destroy", particle_destroy, METH_VARARGS, NULL},
    {"_particle_state", particle_state, METH_VARARGS, NULL},
    {"_particle_set", particle_set, METH_VARARGS, NULL},
    {"_fem_create", fem_create, METH_VARARGS, NULL},
    {"_tetmesh_load", tetmesh_load, METH_VARARGS, NULL},
    {"_fem_destroy", fem_destroy, METH_VARARGS, NULL},
    {"_fem_is_valid", fem_is_valid, METH_VARARGS, NULL},
    {"_fem_counts", fem_counts, METH_VARARGS, NULL},
    {"_fem_nodes", fem_nodes, METH_VARARGS, NULL},
    {"_fem_volume", fem_volume, METH_VARARGS, NULL},
    {"_fem_node_particle", fem_node_particle, METH_VARARGS, NULL},
    {"_fem_attach", fem_attach, METH_VARARGS, NULL},
    {"_fem_detach", fem_detach, METH_VARARGS, NULL},
    {"_fem_set_activation", fem_set_activation, METH_VARARGS, NULL},
    {"_fem_set_fixed_velocity", fem_set_fixed_velocity, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL},
};
