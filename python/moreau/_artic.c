/* _artic.c: articulations (moreau/articulation.h) and URDF loading
 * (moreau/import.h) for the Python package: module functions that take the
 * world object first and an articulation id key (generation << 32 | index);
 * python/moreau/__init__.py wraps them in moreau.Articulation. Joint-space
 * arrays (q, qdot, torques, M, Jacobians) come back as new NumPy arrays and are
 * read from any float sequence. */
#include "_moreau.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "moreau/articulation.h"
#include "moreau/import.h"

#define ARTIC_ID(k) ID_FROM(mo_articulation_id, k)

/* parses (world, key) and more; fails when the world is closed */
static int world_arg(PyObject *o, world_object **out)
{
    if (!PyObject_TypeCheck(o, &pymo_world_type)) {
        PyErr_SetString(PyExc_TypeError, "expected a moreau.World");
        return 0;
    }
    *out = (world_object *)o;
    return pymo_live(*out);
}

/* a new 1-D (n) or 2-D (n, m; m > 0) float64 array */
static PyArrayObject *new_array(int n, int m)
{
    npy_intp dims[2] = {n, m};
    return (PyArrayObject *)PyArray_SimpleNew(m > 0 ? 2 : 1, dims, NPY_DOUBLE);
}

/* a float sequence as a contiguous float64 array (new reference) */
static PyArrayObject *in_array(PyObject *o)
{
    return (PyArrayObject *)PyArray_FROMANY(o, NPY_DOUBLE, 0, 2, NPY_ARRAY_IN_ARRAY);
}

static int artic_nv(world_object *w, unsigned long long k, int *nq, int *nv)
{
    mo_status s = mo_articulation_size(w->w, ARTIC_ID(k), NULL, nq, nv);
    if (s != MO_OK) {
        pymo_world_fail(w, s);
        return -1;
    }
    return 0;
}

static const char *const link_joint_names[] = {"fixed", "revolute", "prismatic", "spherical", "free", NULL};

/* _artic_create(world, links, base_position, base_orientation, integrator): links are dicts (name, parent,
 * joint, axis, joint_position, joint_orientation, mass, com, inertia (9 numbers), damping, armature) */
static PyObject *artic_create(PyObject *m, PyObject *args)
{
    (void)m;
    PyObject *wo, *links, *bp, *bq;
    const char *integ;
    world_object *w;
    if (!PyArg_ParseTuple(args, "OOOOs", &wo, &links, &bp, &bq, &integ) || !world_arg(wo, &w)) return NULL;
    mo_articulation_def def = mo_default_articulation_def();
    if (pymo_vec3(bp, &def.base_position, "base_position") || pymo_quat(bq, &def.base_orientation, "base_orientation"))
        return NULL;
    if (!strcmp(integ, "midpoint")) def.integrator = MO_INTEGRATOR_MIDPOINT;
    else if (!strcmp(integ, "euler")) def.integrator = MO_INTEGRATOR_EULER;
    else return PyErr_Format(PyExc_ValueError, "integrator: 'midpoint' or 'euler', got '%s'", integ);
    PyObject *seq = PySequence_Fast(links, "links: expected a list of dicts");
    if (!seq) return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    mo_link_def *ld = calloc(n > 0 ? (size_t)n : 1, sizeof *ld);
    if (!ld) {
        Py_DECREF(seq);
        return PyErr_NoMemory();
    }
    PyObject *result = NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *d = PySequence_Fast_GET_ITEM(seq, i);
        ld[i] = mo_default_link_def();
        if (!PyDict_Check(d)) {
            PyErr_SetString(PyExc_TypeError, "links: expected a list of dicts");
            goto done;
        }
        PyObject *name = PyDict_GetItemString(d, "name"), *joint = PyDict_GetItemString(d, "joint"),
                 *inertia = PyDict_GetItemString(d, "inertia");
        if (name && name != Py_None && !(ld[i].name = PyUnicode_AsUTF8(name))) goto done;
        if (joint && joint != Py_None) {
            const char *j = PyUnicode_AsUTF8(joint);
            int k = -1;
            for (int t = 0; j && link_joint_names[t]; t++)
                if (!strcmp(j, link_joint_names[t])) k = t;
            if (k < 0) {
                if (j) PyErr_Format(PyExc_ValueError, "link joint: unknown type '%s'", j);
                goto done;
            }
            ld[i].joint = (mo_link_joint)k;
        }
        double in[9];
        if (inertia && inertia != Py_None) {
            if (pymo_doubles(inertia, in, 9, "inertia (9 numbers, row-major)")) goto done;
            memcpy(ld[i].inertia.m, in, sizeof in);
        }
        if (pymo_dict_int(d, "parent", &ld[i].parent) || pymo_dict_vec3(d, "axis", &ld[i].axis) ||
            pymo_dict_vec3(d, "joint_position", &ld[i].joint_position) ||
            pymo_dict_quat(d, "joint_orientation", &ld[i].joint_orientation) ||
            pymo_dict_double(d, "mass", &ld[i].mass) || pymo_dict_vec3(d, "com", &ld[i].com) ||
            pymo_dict_double(d, "damping", &ld[i].damping) || pymo_dict_double(d, "armature", &ld[i].armature))
            goto done;
    }
    def.links = ld;
    def.link_count = (int)n;
    mo_articulation_id id;
    mo_status s = mo_articulation_create(w->w, &def, &id);
    if (s != MO_OK) pymo_world_fail(w, s);
    else result = PyLong_FromUnsignedLongLong(KEY(id));
done:
    free(ld);
    Py_DECREF(seq);
    return result;
}

/* (articulation key or 0, [(link name, body key)], [(joint name, joint key, child link)], [warnings],
 * [(equality name, joint key or 0, "connect" or "weld", active)]) of a loaded model, which it frees */
static PyObject *model_tuple(mo_urdf_model *model)
{
    PyObject *links = PyList_New(model->nlinks), *joints = PyList_New(model->njoints),
             *warn = PyList_New(model->nwarnings), *eqs = PyList_New(model->nequalities), *out = NULL;
    if (!links || !joints || !warn || !eqs) goto done;
    for (int i = 0; i < model->nlinks; i++) {
        PyObject *t = Py_BuildValue("(sK)", model->links[i].name, KEY(model->links[i].body));
        if (!t) goto done;
        PyList_SET_ITEM(links, i, t);
    }
    for (int i = 0; i < model->njoints; i++) {
        PyObject *t = Py_BuildValue("(sKi)", model->joints[i].name, KEY(model->joints[i].joint),
                                    model->joints[i].child_link);
        if (!t) goto done;
        PyList_SET_ITEM(joints, i, t);
    }
    for (int i = 0; i < model->nwarnings; i++) {
        PyObject *t = PyUnicode_FromString(model->warnings[i].text);
        if (!t) goto done;
        PyList_SET_ITEM(warn, i, t);
    }
    for (int i = 0; i < model->nequalities; i++) {
        const mo_mjcf_equality *e = &model->equalities[i];
        PyObject *t = Py_BuildValue("(sKsO)", e->name, KEY(e->joint),
                                    e->type == MO_MJCF_EQUALITY_WELD ? "weld" : "connect",
                                    e->active ? Py_True : Py_False);
        if (!t) goto done;
        PyList_SET_ITEM(eqs, i, t);
    }
    out = Py_BuildValue("(KOOOO)", KEY(model->articulation), links, joints, warn, eqs);
done:
    Py_XDECREF(links);
    Py_XDECREF(joints);
    Py_XDECREF(warn);
    Py_XDECREF(eqs);
    mo_urdf_model_free(model);
    return out;
}

/* the arguments of _urdf_load and _mjcf_load: (world, path, options dict, search paths list); 0, or -1 with
 * the Python error set. *sp (free it) and *keep (release it) hold the paths */
static int load_args(PyObject *args, world_object **w, const char **path, PyObject **opts, const char ***sp, int *np,
                     PyObject **keep)
{
    PyObject *wo, *paths;
    if (!PyArg_ParseTuple(args, "OsO!O", &wo, path, &PyDict_Type, opts, &paths) || !world_arg(wo, w)) return -1;
    return pymo_str_list(paths, sp, np, keep) ? -1 : 0;
}

/* the end of _urdf_load and _mjcf_load: releases the paths; the model's tuple, the error as an exception, or
 * NULL (model NULL: a Python error is already set) */
static PyObject *load_done(mo_status s, const char *err, mo_urdf_model *model, const char **sp, PyObject *keep)
{
    free(sp);
    Py_XDECREF(keep);
    if (!model) return NULL;
    if (s != MO_OK) return pymo_raise(s, err);
    return model_tuple(model);
}

/* _urdf_load(world, path, options dict, search paths list): (articulation key or 0, [(link name, body key)],
 * [(joint name, joint key, child link)], [warnings]) */
static PyObject *urdf_load(PyObject *m, PyObject *args)
{
    (void)m;
    PyObject *opts, *keep = NULL;
    const char *path, **sp = NULL;
    world_object *w;
    int np = 0;
    if (load_args(args, &w, &path, &opts, &sp, &np, &keep)) return NULL;
    mo_urdf_options o = mo_default_urdf_options();
    if (pymo_dict_bool(opts, "fixed_base", &o.fixed_base) || pymo_dict_vec3(opts, "base_position", &o.base_position) ||
        pymo_dict_quat(opts, "base_orientation", &o.base_orientation) ||
        pymo_dict_bool(opts, "self_collision", &o.self_collision) ||
        pymo_dict_double(opts, "drive_stiffness", &o.drive_stiffness) ||
        pymo_dict_double(opts, "drive_damping", &o.drive_damping) || pymo_dict_double(opts, "friction", &o.friction) ||
        pymo_dict_bool(opts, "articulation", &o.articulation) ||
        pymo_dict_bool(opts, "ignore_damping", &o.ignore_damping) ||
        pymo_dict_bool(opts, "ignore_friction", &o.ignore_friction)) {
        return load_done(MO_OK, NULL, NULL, sp, keep);
    }
    o.search_paths = sp;
    o.nsearch_paths = np;
    mo_urdf_model model;
    char err[1024] = "";
    mo_status s = mo_urdf_load(w->w, path, &o, &model, err, sizeof err);
    return load_done(s, err, &model, sp, keep);
}

/* _mjcf_load(world, path, options dict, search paths list): as _urdf_load, with a fifth item
 * [(equality name, joint key or 0, "connect" or "weld", active)] */
static PyObject *mjcf_load(PyObject *m, PyObject *args)
{
    (void)m;
    PyObject *opts, *keep = NULL;
    const char *path, **sp = NULL;
    world_object *w;
    int np = 0;
    if (load_args(args, &w, &path, &opts, &sp, &np, &keep)) return NULL;
    mo_mjcf_options o = mo_default_mjcf_options();
    if (pymo_dict_bool(opts, "articulation", &o.articulation) ||
        pymo_dict_bool(opts, "self_collision", &o.self_collision) ||
        pymo_dict_double(opts, "friction", &o.friction) ||
        pymo_dict_double(opts, "massless_link_mass", &o.massless_link_mass) ||
        pymo_dict_int(opts, "max_hull_vertices", &o.max_hull_vertices) ||
        pymo_dict_bool(opts, "apply_option", &o.apply_option)) {
        return load_done(MO_OK, NULL, NULL, sp, keep);
    }
    o.search_paths = sp;
    o.nsearch_paths = np;
    mo_urdf_model model;
    char err[1024] = "";
    mo_status s = mo_mjcf_load(w->w, path, &o, &model, err, sizeof err);
    return load_done(s, err, &model, sp, keep);
}

#define ARGS_WK(fmt, ...)                                                                                            \
    PyObject *wo;                                                                                                    \
    unsigned long long k;                                                                                            \
    world_object *w;                                                                                                 \
    if (!PyArg_ParseTuple(args, "OK" fmt, &wo, &k, ##__VA_ARGS__) || !world_arg(wo, &w)) return NULL

static PyObject *artic_destroy(PyObject *m, PyObject *args)
{
    (void)m;
    ARGS_WK("");
    mo_status s = mo_articulation_destroy(w->w, ARTIC_ID(k));
    if (s != MO_OK) return pymo_world_fail(w, s);
    Py_RETURN_NONE;
}
static PyObject *artic_is_valid(PyObject *m, PyObject *args)
{
    (void)m;
    ARGS_WK("");
    return PyBool_FromLong(mo_articulation_is_valid(w->w, ARTIC_ID(k)));
}
/* (links, nq, nv) */
static PyObject *artic_size(PyObject *m, PyObject *args)
{
    (void)m;
    ARGS_WK("");
    int l, nq, nv;
    mo_status s = mo_articulation_size(w->w, ARTIC_ID(k), &l, &nq, &nv);
    if (s != MO_OK) return pymo_world_fail(w, s);
    return Py_BuildValue("(iii)", l, nq, nv);
}

/* _artic_get(world, key, which): 0 q (nq), 1 qdot, 2 constraint forces, 3 gravity compensation, 4 bias forces (nv) */
static PyObject *artic_get(PyObject *m, PyObject *args)
{
    (void)m;
    int which;
    ARGS_WK("i", &which);
    int nq, nv;
    if (artic_nv(w, k, &nq, &nv)) return NULL;
    int n = which == 0 ? nq : nv;
    PyArrayObject *a = new_array(n, 0);
    if (!a) return NULL;
    double *p = (double *)PyArray_DATA(a);
    mo_articulation_id id = ARTIC_ID(k);
    mo_status s;
    switch (which) {
    case 0: s = mo_articulation_get_q(w->w, id, p, n); break;
    case 1: s = mo_articulation_get_qdot(w->w, id, p, n); break;
    case 2: s = mo_articulation_constraint_forces(w->w, id, p, n); break;
    case 3: s = mo_articulation_gravity_compensation(w->w, id, p, n); break;
    case 4: s = mo_articulation_bias_forces(w->w, id, p, n); break;
    default: Py_DECREF(a); return PyErr_Format(PyExc_ValueError, "_artic_get: which in 0..4");
    }
    if (s != MO_OK) {
        Py_DECREF(a);
        return pymo_world_fail(w, s);
    }
    return (PyObject *)a;
}

/* _artic_set(world, key, which, values): 0 q (nq values), 1 qdot (nv), 2 joint torques (nv, held) */
static PyObject *artic_set(PyObject *m, PyObject *args)
{
    (void)m;
    int which;
    PyObject *vals;
    ARGS_WK("iO", &which, &vals);
    int nq, nv;
    if (artic_nv(w, k, &nq, &nv)) return NULL;
    int n = which == 0 ? nq : nv;
    PyArrayObject *a = in_array(vals);
    if (!a) return NULL;
    if (PyArray_SIZE(a) != n || PyArray_NDIM(a) != 1) {
        Py_DECREF(a);
        return PyErr_Format(PyExc_ValueError, "expected %d values (the articulation's %s), got an array of size %zd",
                            n, which == 0 ? "nq" : "nv", (Py_ssize_t)PyArray_SIZE(a));
    }
    const double *p = (const double *)PyArray_DATA(a);
    mo_articulation_id id = ARTIC_ID(k);
    mo_status s;
    switch (which) {
    case 0: s = mo_articulation_set_q(w->w, id, p, n); break;
    case 1: s = mo_articulation_set_qdot(w->w, id, p, n); break;
    case 2: s = mo_articulation_set_torques(w->w, id, p, n); break;
    default: Py_DECREF(a); return PyErr_Format(PyExc_ValueError, "_artic_set: which in 0..2");
    }
    Py_DECREF(a);
    if (s != MO_OK) return pymo_world_fail(w, s);
    Py_RETURN_NONE;
}

static PyObject *artic_clear_torques(PyObject *m, PyObject *args)
{
    (void)m;
    ARGS_WK("");
    mo_status s = mo_articulation_clear_torques(w->w, ARTIC_ID(k));
    if (s != MO_OK) return pymo_world_fail(w, s);
    Py_RETURN_NONE;
}

/* the (nv, nv) mass matrix */
static PyObject *artic_mass_matrix(PyObject *m, PyObject *args)
{
    (void)m;
    ARGS_WK("");
    int nq, nv;
    if (artic_nv(w, k, &nq, &nv)) return NULL;
    PyArrayObject *a = new_array(nv, nv);
    if (!a) return NULL;
    mo_status s = mo_articulation_mass_matrix(w->w, ARTIC_ID(k), (double *)PyArray_DATA(a), nv * nv);
    if (s != MO_OK) {
        Py_DECREF(a);
        return pymo_world_fail(w, s);
    }
    return (PyObject *)a;
}

/* tau = M qddot + c at the current state */
static PyObject *artic_inverse_dynamics(PyObject *m, PyObject *args)
{
    (void)m;
    PyObject *qdd;
    ARGS_WK("O", &qdd);
    int nq, nv;
    if (artic_nv(w, k, &nq, &nv)) return NULL;
    PyArrayObject *in = in_array(qdd), *out = NULL;
    if (!in) return NULL;
    if (PyArray_SIZE(in) != nv) {
        Py_DECREF(in);
        return PyErr_Format(PyExc_ValueError, "qddot: expected %d values (nv)", nv);
    }
    if ((out = new_array(nv, 0))) {
        mo_status s = mo_articulation_inverse_dynamics(w->w, ARTIC_ID(k), (const double *)PyArray_DATA(in),
                                                       (double *)PyArray_DATA(out), nv);
        if (s != MO_OK) {
            Py_CLEAR(out);
            pymo_world_fail(w, s);
        }
    }
    Py_DECREF(in);
    return (PyObject *)out;
}

/* (jv, jw), each (3, nv), of the point (link frame) on link */
static PyObject *artic_jacobian(PyObject *m, PyObject *args)
{
    (void)m;
    int link;
    PyObject *po;
    ARGS_WK("iO", &link, &po);
    mo_vec3 p;
    int nq, nv;
    if (pymo_vec3(po, &p, "point") || artic_nv(w, k, &nq, &nv)) return NULL;
    PyArrayObject *jv = new_array(3, nv), *jw = new_array(3, nv);
    if (!jv || !jw) {
        Py_XDECREF(jv);
        Py_XDECREF(jw);
        return NULL;
    }
    mo_status s = mo_articulation_jacobian(w->w, ARTIC_ID(k), link, p, (double *)PyArray_DATA(jv),
                                           (double *)PyArray_DATA(jw), 3 * nv);
    if (s != MO_OK) {
        Py_DECREF(jv);
        Py_DECREF(jw);
        return pymo_world_fail(w, s);
    }
    return Py_BuildValue("(NN)", jv, jw);
}

static PyObject *artic_find_link(PyObject *m, PyObject *args)
{
    (void)m;
    const char *name;
    ARGS_WK("s", &name);
    int i;
    mo_status s = mo_articulation_find_link(w->w, ARTIC_ID(k), name, &i);
    if (s != MO_OK) return pymo_world_fail(w, s);
    return PyLong_FromLong(i);
}

/* (q_ofs, nq, v_ofs, nv) of link's joint */
static PyObject *artic_joint_dofs(PyObject *m, PyObject *args)
{
    (void)m;
    int link;
    ARGS_WK("i", &link);
    int qo, nq, vo, nv;
    mo_status s = mo_articulation_joint_dofs(w->w, ARTIC_ID(k), link, &qo, &nq, &vo, &nv);
    if (s != MO_OK) return pymo_world_fail(w, s);
    return Py_BuildValue("(iiii)", qo, nq, vo, nv);
}

/* (position, orientation) of link's frame in the world */
static PyObject *artic_link_pose(PyObject *m, PyObject *args)
{
    (void)m;
    int link;
    ARGS_WK("i", &link);
    mo_vec3 p;
    mo_quat q;
    mo_status s = mo_articulation_link_pose(w->w, ARTIC_ID(k), link, &p, &q);
    if (s != MO_OK) return pymo_world_fail(w, s);
    return Py_BuildValue("(NN)", pymo_vec3_out(p), pymo_quat_out(q));
}

/* (angular, linear) velocity of link's frame, world axes */
static PyObject *artic_link_velocity(PyObject *m, PyObject *args)
{
    (void)m;
    int link;
    ARGS_WK("i", &link);
    mo_vec3 a, l;
    mo_status s = mo_articulation_link_velocity(w->w, ARTIC_ID(k), link, &a, &l);
    if (s != MO_OK) return pymo_world_fail(w, s);
    return Py_BuildValue("(NN)", pymo_vec3_out(a), pymo_vec3_out(l));
}

static PyObject *artic_link_body(PyObject *m, PyObject *args)
{
    (void)m;
    int link;
    ARGS_WK("i", &link);
    mo_body_id b;
    mo_status s = mo_articulation_link_body(w->w, ARTIC_ID(k), link, &b);
    if (s != MO_OK) return pymo_world_fail(w, s);
    return PyLong_FromUnsignedLongLong(KEY(b));
}

/* _artic_set_drive(world, key, link, dict of mo_joint_drive fields; absent ones keep the current drive's) */
static PyObject *artic_set_drive(PyObject *m, PyObject *args)
{
    (void)m;
    int link;
    PyObject *d;
    ARGS_WK("iO!", &link, &PyDict_Type, &d);
    mo_joint_drive dr;
    mo_status s = mo_articulation_drive(w->w, ARTIC_ID(k), link, &dr);
    if (s != MO_OK) return pymo_world_fail(w, s);
    if (pymo_dict_double(d, "stiffness", &dr.stiffness) || pymo_dict_double(d, "damping", &dr.damping) ||
        pymo_dict_double(d, "target_position", &dr.target_position) ||
        pymo_dict_double(d, "target_velocity", &dr.target_velocity) || pymo_dict_double(d, "torque", &dr.torque) ||
        pymo_dict_double(d, "max_effort", &dr.max_effort))
        return NULL;
    s = mo_articulation_set_drive(w->w, ARTIC_ID(k), link, &dr);
    if (s != MO_OK) return pymo_world_fail(w, s);
    Py_RETURN_NONE;
}
static PyObject *artic_drive(PyObject *m, PyObject *args)
{
    (void)m;
    int link;
    ARGS_WK("i", &link);
    mo_joint_drive dr;
    mo_status s = mo_articulation_drive(w->w, ARTIC_ID(k), link, &dr);
    if (s != MO_OK) return pymo_world_fail(w, s);
    return Py_BuildValue("{sdsdsdsdsdsd}", "stiffness", dr.stiffness, "damping", dr.damping, "target_position",
                         dr.target_position, "target_velocity", dr.target_velocity, "torque", dr.torque, "max_effort",
                         dr.max_effort);
}

/* _artic_set_limits(world, key, link, lower, upper) */
static PyObject *artic_set_limits(PyObject *m, PyObject *args)
{
    (void)m;
    int link;
    double lo, hi;
    ARGS_WK("idd", &link, &lo, &hi);
    mo_status s = mo_articulation_set_limits(w->w, ARTIC_ID(k), link, lo, hi);
    if (s != MO_OK) return pymo_world_fail(w, s);
    Py_RETURN_NONE;
}
static PyObject *artic_limits(PyObject *m, PyObject *args)
{
    (void)m;
    int link;
    ARGS_WK("i", &link);
    double lo, hi;
    mo_status s = mo_articulation_limits(w->w, ARTIC_ID(k), link, &lo, &hi);
    if (s != MO_OK) return pymo_world_fail(w, s);
    return Py_BuildValue("(dd)", lo, hi);
}
static PyObject *artic_set_joint_damping(PyObject *m, PyObject *args)
{
    (void)m;
    int link;
    double d;
    ARGS_WK("id", &link, &d);
    mo_status s = mo_articulation_set_joint_damping(w->w, ARTIC_ID(k), link, d);
    if (s != MO_OK) return pymo_world_fail(w, s);
    Py_RETURN_NONE;
}
/* _artic_set_cone_limit(world, key, link, angle) */
static PyObject *artic_set_cone_limit(PyObject *m, PyObject *args)
{
    (void)m;
    int link;
    double a;
    ARGS_WK("id", &link, &a);
    mo_status s = mo_articulation_set_cone_limit(w->w, ARTIC_ID(k), link, a);
    if (s != MO_OK) return pymo_world_fail(w, s);
    Py_RETURN_NONE;
}
static PyObject *artic_cone_limit(PyObject *m, PyObject *args)
{
    (void)m;
    int link;
    ARGS_WK("i", &link);
    double a;
    mo_status s = mo_articulation_cone_limit(w->w, ARTIC_ID(k), link, &a);
    if (s != MO_OK) return pymo_world_fail(w, s);
    return PyFloat_FromDouble(a);
}
/* _artic_set_collision_group(world, key, group): group an integer in [0, 2^32) */
static PyObject *artic_set_collision_group(PyObject *m, PyObject *args)
{
    (void)m;
    long long g;
    ARGS_WK("L", &g);
    if (g < 0 || g > 0xffffffffLL) {
        PyErr_Format(PyExc_ValueError, "group must be an integer in [0, 2^32), got %lld", g);
        return NULL;
    }
    mo_status s = mo_articulation_set_collision_group(w->w, ARTIC_ID(k), (uint32_t)g);
    if (s != MO_OK) return pymo_world_fail(w, s);
    Py_RETURN_NONE;
}
static PyObject *artic_collision_group(PyObject *m, PyObject *args)
{
    (void)m;
    ARGS_WK("");
    uint32_t g;
    mo_status s = mo_articulation_collision_group(w->w, ARTIC_ID(k), &g);
    if (s != MO_OK) return pymo_world_fail(w, s);
    return PyLong_FromUnsignedLong(g);
}
/* (kinetic, potential) energy, J */
static PyObject *artic_energy(PyObject *m, PyObject *args)
{
    (void)m;
    ARGS_WK("");
    double ke, pe;
    mo_status s = mo_articulation_energy(w->w, ARTIC_ID(k), &ke, &pe);
    if (s != MO_OK) return pymo_world_fail(w, s);
    return Py_BuildValue("(dd)", ke, pe);
}

PyMethodDef pymo_artic_functions[] = {
    {"_artic_create", artic_create, METH_VARARGS, NULL},
    {"_urdf_load", urdf_load, METH_VARARGS, NULL},
    {"_mjcf_load", mjcf_load, METH_VARARGS, NULL},
    {"_artic_destroy", artic_destroy, METH_VARARGS, NULL},
    {"_artic_is_valid", artic_is_valid, METH_VARARGS, NULL},
    {"_artic_size", artic_size, METH_VARARGS, NULL},
    {"_artic_get", artic_get, METH_VARARGS, NULL},
    {"_artic_set", artic_set, METH_VARARGS, NULL},
    {"_artic_clear_torques", artic_clear_torques, METH_VARARGS, NULL},
    {"_artic_mass_matrix", artic_mass_matrix, METH_VARARGS, NULL},
    {"_artic_inverse_dynamics", artic_inverse_dynamics, METH_VARARGS, NULL},
    {"_artic_jacobian", artic_jacobian, METH_VARARGS, NULL},
    {"_artic_find_link", artic_find_link, METH_VARARGS, NULL},
    {"_artic_joint_dofs", artic_joint_dofs, METH_VARARGS, NULL},
    {"_artic_link_pose", artic_link_pose, METH_VARARGS, NULL},
    {"_artic_link_velocity", artic_link_velocity, METH_VARARGS, NULL},
    {"_artic_link_body", artic_link_body, METH_VARARGS, NULL},
    {"_artic_set_drive", artic_set_drive, METH_VARARGS, NULL},
    {"_artic_drive", artic_drive, METH_VARARGS, NULL},
    {"_artic_set_limits", artic_set_limits, METH_VARARGS, NULL},
    {"_artic_limits", artic_limits, METH_VARARGS, NULL},
    {"_artic_set_joint_damping", artic_set_joint_damping, METH_VARARGS, NULL},
    {"_artic_set_cone_limit", artic_set_cone_limit, METH_VARARGS, NULL},
    {"_artic_cone_limit", artic_cone_limit, METH_VARARGS, NULL},
    {"_artic_set_collision_group", artic_set_collision_group, METH_VARARGS, NULL},
    {"_artic_collision_group", artic_collision_group, METH_VARARGS, NULL},
    {"_artic_energy", artic_energy, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL},
};
