/* _moreau.c: the C half of the Python package moreau (python/moreau/__init__.py
 * is the other half). A thin layer over the public C API only: one type,
 * _World, owning a mo_world (or a mo_scene_file and its world), with methods
 * that take and return plain Python values; ids cross as one integer
 * (generation << 32 | index). Every failed call raises moreau.Error carrying
 * the engine's sentence (mo_world_last_error, or the err buffer of the calls
 * that have one) and the status name. Bulk state comes back as new NumPy
 * arrays (copies: the engine's storage is not part of the public API). */
#define PYMO_NUMPY_OWNER
#include "_moreau.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

PyObject *pymo_error_type; /* moreau.Error */

/* raises moreau.Error(sentence) with .status (the mo_status name) and .code */
PyObject *pymo_raise(mo_status s, const char *sentence)
{
    PyObject *exc = PyObject_CallFunction(pymo_error_type, "s", sentence ? sentence : "");
    if (!exc) return NULL;
    PyObject *name = PyUnicode_FromString(mo_status_name(s)), *code = PyLong_FromLong((long)s);
    if (name && code && PyObject_SetAttrString(exc, "status", name) == 0 &&
        PyObject_SetAttrString(exc, "code", code) == 0)
        PyErr_SetObject(pymo_error_type, exc);
    Py_XDECREF(name);
    Py_XDECREF(code);
    Py_DECREF(exc);
    return NULL;
}

PyObject *pymo_world_fail(world_object *self, mo_status s) { return pymo_raise(s, mo_world_last_error(self->w)); }

int pymo_live(world_object *self)
{
    if (self->w) return 1;
    PyErr_SetString(PyExc_RuntimeError, "moreau: the world is closed");
    return 0;
}

/* ---- conversions ---------------------------------------------------------- */

int pymo_doubles(PyObject *o, double *out, Py_ssize_t n, const char *what)
{
    PyObject *seq = PySequence_Fast(o, what);
    if (!seq) return -1;
    if (PySequence_Fast_GET_SIZE(seq) != n) {
        PyErr_Format(PyExc_ValueError, "%s: expected %zd numbers, got %zd", what, n, PySequence_Fast_GET_SIZE(seq));
        Py_DECREF(seq);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        out[i] = PyFloat_AsDouble(PySequence_Fast_GET_ITEM(seq, i));
        if (out[i] == -1.0 && PyErr_Occurred()) {
            Py_DECREF(seq);
            return -1;
        }
    }
    Py_DECREF(seq);
    return 0;
}
int pymo_vec3(PyObject *o, mo_vec3 *v, const char *what)
{
    double d[3];
    if (pymo_doubles(o, d, 3, what)) return -1;
    *v = (mo_vec3){d[0], d[1], d[2]};
    return 0;
}
int pymo_quat(PyObject *o, mo_quat *q, const char *what)
{
    double d[4];
    if (pymo_doubles(o, d, 4, what)) return -1;
    *q = (mo_quat){d[0], d[1], d[2], d[3]};
    return 0;
}
PyObject *pymo_vec3_out(mo_vec3 v) { return Py_BuildValue("(ddd)", v.x, v.y, v.z); }
PyObject *pymo_quat_out(mo_quat q) { return Py_BuildValue("(dddd)", q.w, q.x, q.y, q.z); }

unsigned long long pymo_key(uint32_t index, uint32_t generation)
{
    return ((unsigned long long)generation << 32) | index;
}

/* optional dict entries: 0 when absent or read, -1 on a conversion error */
int pymo_dict_double(PyObject *d, const char *key, double *out)
{
    PyObject *v = PyDict_GetItemString(d, key);
    if (!v || v == Py_None) return 0;
    double x = PyFloat_AsDouble(v);
    if (x == -1.0 && PyErr_Occurred()) return -1;
    *out = x;
    return 0;
}
int pymo_dict_vec3(PyObject *d, const char *key, mo_vec3 *out)
{
    PyObject *v = PyDict_GetItemString(d, key);
    return (!v || v == Py_None) ? 0 : pymo_vec3(v, out, key);
}
int pymo_dict_quat(PyObject *d, const char *key, mo_quat *out)
{
    PyObject *v = PyDict_GetItemString(d, key);
    return (!v || v == Py_None) ? 0 : pymo_quat(v, out, key);
}
int pymo_dict_bool(PyObject *d, const char *key, bool *out)
{
    PyObject *v = PyDict_GetItemString(d, key);
    if (!v || v == Py_None) return 0;
    int t = PyObject_IsTrue(v);
    if (t < 0) return -1;
    *out = t != 0;
    return 0;
}
int pymo_dict_int(PyObject *d, const char *key, int *out)
{
    PyObject *v = PyDict_GetItemString(d, key);
    if (!v || v == Py_None) return 0;
    long x = PyLong_AsLong(v);
    if (x == -1 && PyErr_Occurred()) return -1;
    *out = (int)x;
    return 0;
}
static int pymo_dict_key(PyObject *d, const char *key, unsigned long long *out)
{
    PyObject *v = PyDict_GetItemString(d, key);
    if (!v || v == Py_None) return 0;
    unsigned long long x = PyLong_AsUnsignedLongLong(v);
    if (x == (unsigned long long)-1 && PyErr_Occurred()) return -1;
    *out = x;
    return 0;
}
/* a name among names[] (NULL-terminated) into *out; absent: unchanged */
static int pymo_dict_choice(PyObject *d, const char *key, const char *const *names, int *out)
{
    PyObject *v = PyDict_GetItemString(d, key);
    if (!v || v == Py_None) return 0;
    const char *s = PyUnicode_AsUTF8(v);
    if (!s) return -1;
    for (int i = 0; names[i]; i++)
        if (!strcmp(names[i], s)) {
            *out = i;
            return 0;
        }
    PyErr_Format(PyExc_ValueError, "%s: unknown name '%s'", key, s);
    return -1;
}

static const char *const shape_names[] = {"none",   "sphere",      "box", "plane", "capsule",
                                          "cylinder", "convex_hull", "mesh", NULL};
static const char *const body_type_names[] = {"dynamic", "static", "kinematic", NULL};
static const char *const joint_type_names[] = {"fixed", "spherical", "revolute", "prismatic", "distance", NULL};
static const char *const motor_names[] = {"off", "velocity", "position", NULL};

/* a shape dict (moreau.Sphere(...) etc. make them) into a def; points of a convex
 * hull go to *pts (caller frees) */
static int shape_def_from(PyObject *d, mo_shape_def *s, mo_vec3 **pts)
{
    *pts = NULL;
    if (!PyDict_Check(d)) {
        PyErr_SetString(PyExc_TypeError, "shape: expected a dict (moreau.Sphere(...), moreau.Box(...), ...)");
        return -1;
    }
    int type = (int)s->type;
    if (pymo_dict_choice(d, "type", shape_names, &type) || pymo_dict_double(d, "radius", &s->radius) ||
        pymo_dict_vec3(d, "half_extents", &s->half_extents) || pymo_dict_double(d, "half_height", &s->half_height) ||
        pymo_dict_double(d, "friction", &s->friction) || pymo_dict_double(d, "density", &s->density) ||
        pymo_dict_double(d, "margin", &s->margin) || pymo_dict_vec3(d, "position", &s->position) ||
        pymo_dict_quat(d, "orientation", &s->orientation))
        return -1;
    s->type = (mo_shape_type)type;
    PyObject *p = PyDict_GetItemString(d, "points");
    if (p && p != Py_None) {
        PyObject *seq = PySequence_Fast(p, "points");
        if (!seq) return -1;
        Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
        *pts = calloc(n > 0 ? (size_t)n : 1, sizeof(mo_vec3));
        if (!*pts) {
            Py_DECREF(seq);
            PyErr_NoMemory();
            return -1;
        }
        for (Py_ssize_t i = 0; i < n; i++)
            if (pymo_vec3(PySequence_Fast_GET_ITEM(seq, i), &(*pts)[i], "points")) {
                Py_DECREF(seq);
                return -1;
            }
        Py_DECREF(seq);
        s->points = *pts;
        s->point_count = (int)n;
    }
    return 0;
}

/* ---- the world ----------------------------------------------------------- */

static void world_close_impl(world_object *self)
{
    if (self->sf) mo_scene_file_destroy(self->sf);
    else if (self->w) mo_world_destroy(self->w);
    self->sf = NULL;
    self->w = NULL;
}

static void world_dealloc(world_object *self)
{
    world_close_impl(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* a list of str into a C array of borrowed UTF-8 pointers (valid while the list lives) */
int pymo_str_list(PyObject *list, const char ***out, int *n, PyObject **keep)
{
    *out = NULL;
    *n = 0;
    *keep = NULL;
    if (!list || list == Py_None) return 0;
    PyObject *seq = PySequence_Fast(list, "expected a list of str");
    if (!seq) return -1;
    Py_ssize_t k = PySequence_Fast_GET_SIZE(seq);
    const char **a = calloc(k > 0 ? (size_t)k : 1, sizeof *a);
    if (!a) {
        Py_DECREF(seq);
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < k; i++)
        if (!(a[i] = PyUnicode_AsUTF8(PySequence_Fast_GET_ITEM(seq, i)))) {
            free(a);
            Py_DECREF(seq);
            return -1;
        }
    *out = a;
    *n = (int)k;
    *keep = seq;
    return 0;
}

/* _World(assignments=(), scene=None, params=(), paths=(), seed=0): an empty world from
 * the default settings with assignments ("NAME=VALUE") applied, or the scene
 * file at scene run with params, search paths and math.random's seed, assignments
 * applied over it */
static int world_init(world_object *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"assignments", "scene", "params", "paths", "seed", NULL};
    PyObject *assign = NULL, *params = NULL, *paths = NULL;
    const char *scene = NULL;
    unsigned long long seed = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|OzOOK", kwlist, &assign, &scene, &params, &paths, &seed)) return -1;
    if (self->w) {
        PyErr_SetString(PyExc_RuntimeError, "moreau: the world is already initialised");
        return -1;
    }
    const char **as = NULL, **ps = NULL, **sp = NULL;
    int na = 0, np = 0, nsp = 0, rc = -1;
    PyObject *k1 = NULL, *k2 = NULL, *k3 = NULL;
    char err[1024] = "";
    if (pymo_str_list(assign, &as, &na, &k1) || pymo_str_list(params, &ps, &np, &k2) ||
        pymo_str_list(paths, &sp, &nsp, &k3))
        goto done;
    if (scene) {
        mo_scene_options opt = mo_default_scene_options();
        opt.params = ps;
        opt.param_count = np;
        opt.search_paths = sp;
        opt.search_path_count = nsp;
        opt.seed = (uint64_t)seed;
        mo_status s = mo_scene_file_load(scene, &opt, &self->sf, err, sizeof err);
        if (s != MO_OK) {
            pymo_raise(s, err);
            goto done;
        }
        self->w = mo_scene_file_world(self->sf);
        if ((s = mo_world_set_settings(self->w, as, na)) != MO_OK) {
            pymo_raise(s, mo_world_last_error(self->w));
            world_close_impl(self);
            goto done;
        }
    } else {
        mo_world_def def = mo_default_world_def();
        for (int i = 0; i < na; i++) {
            char name[256];
            const char *eq = strchr(as[i], '=');
            size_t len = eq ? (size_t)(eq - as[i]) : 0;
            if (!eq || len >= sizeof name) {
                pymo_raise(MO_ERR_INVALID_ARGUMENT, "setting: expected NAME=VALUE");
                goto done;
            }
            memcpy(name, as[i], len);
            name[len] = 0;
            mo_status s = mo_world_def_set(&def, name, eq + 1, err, sizeof err);
            if (s != MO_OK) {
                pymo_raise(s, err);
                goto done;
            }
        }
        mo_status s = mo_world_create(&def, &self->w, err, sizeof err);
        if (s != MO_OK) {
            pymo_raise(s, err);
            goto done;
        }
    }
    rc = 0;
done:
    free(as);
    free(ps);
    free(sp);
    Py_XDECREF(k1);
    Py_XDECREF(k2);
    Py_XDECREF(k3);
    return rc;
}

static PyObject *world_close(world_object *self, PyObject *unused)
{
    (void)unused;
    world_close_impl(self);
    Py_RETURN_NONE;
}

/* step(n=1): n steps (a scene's callbacks too); stops at the first failure (or a pending signal:
 * KeyboardInterrupt between two steps) */
static PyObject *world_step(world_object *self, PyObject *const *args, Py_ssize_t nargs)
{
    LIVE(self);
    long n = 1;
    if (nargs > 1) return PyErr_Format(PyExc_TypeError, "step() takes at most 1 argument");
    if (nargs == 1 && (n = PyLong_AsLong(args[0])) == -1 && PyErr_Occurred()) return NULL;
    for (long i = 0; i < n; i++) {
        if (i > 0 && PyErr_CheckSignals()) return NULL; /* Ctrl-C ends a long step(n) between steps */
        if (self->sf) {
            mo_status s = mo_scene_file_step(self->sf);
            if (s != MO_OK) return pymo_raise(s, mo_scene_file_last_error(self->sf));
        } else {
            mo_status s = mo_world_step(self->w);
            if (s != MO_OK) return pymo_world_fail(self, s);
        }
    }
    Py_RETURN_NONE;
}

static PyObject *world_set_settings(world_object *self, PyObject *list)
{
    LIVE(self);
    const char **as;
    int n;
    PyObject *keep;
    if (pymo_str_list(list, &as, &n, &keep)) return NULL;
    mo_status s = mo_world_set_settings(self->w, as, n);
    free(as);
    Py_XDECREF(keep);
    if (s != MO_OK) return pymo_world_fail(self, s);
    Py_RETURN_NONE;
}

/* get_setting(name): the value typed by the settings table */
static PyObject *world_get_setting(world_object *self, PyObject *arg)
{
    LIVE(self);
    const char *name = PyUnicode_AsUTF8(arg);
    if (!name) return NULL;
    char out[256];
    mo_status s = mo_world_get_setting(self->w, name, out, sizeof out);
    if (s != MO_OK) return pymo_world_fail(self, s);
    const mo_setting_info *info = mo_setting_find(name);
    switch (info ? info->type : MO_SETTING_CHOICE) {
    case MO_SETTING_INT: return PyLong_FromString(out, NULL, 10);
    case MO_SETTING_REAL: return PyFloat_FromDouble(strtod(out, NULL));
    case MO_SETTING_BOOL: return PyBool_FromLong(!strcmp(out, "true"));
    case MO_SETTING_VEC3: {
        double d[3] = {0, 0, 0};
        char *p = out;
        for (int i = 0; i < 3; i++) {
            d[i] = strtod(p, &p);
            if (*p == ',') p++;
        }
        return Py_BuildValue("(ddd)", d[0], d[1], d[2]);
    }
    default: return PyUnicode_FromString(out);
    }
}

static PyObject *world_get_time(world_object *self, void *c)
{
    (void)c;
    LIVE(self);
    return PyFloat_FromDouble(mo_world_time(self->w));
}
static PyObject *world_get_time_step(world_object *self, void *c)
{
    (void)c;
    LIVE(self);
    return PyFloat_FromDouble(mo_world_time_step(self->w));
}
static int world_set_time_step(world_object *self, PyObject *v, void *c)
{
    (void)c;
    if (!pymo_live(self)) return -1;
    double h = v ? PyFloat_AsDouble(v) : -1.0;
    if (h == -1.0 && PyErr_Occurred()) return -1;
    mo_status s = mo_world_set_time_step(self->w, h);
    if (s != MO_OK) {
        pymo_world_fail(self, s);
        return -1;
    }
    return 0;
}
static PyObject *world_get_gravity(world_object *self, void *c)
{
    (void)c;
    LIVE(self);
    return pymo_vec3_out(mo_world_gravity(self->w));
}
static int world_set_gravity(world_object *self, PyObject *v, void *c)
{
    (void)c;
    if (!pymo_live(self)) return -1;
    mo_vec3 g;
    if (!v) {
        PyErr_SetString(PyExc_TypeError, "gravity cannot be deleted");
        return -1;
    }
    if (pymo_vec3(v, &g, "gravity")) return -1;
    mo_status s = mo_world_set_gravity(self->w, g);
    if (s != MO_OK) {
        pymo_world_fail(self, s);
        return -1;
    }
    return 0;
}
static PyObject *world_get_closed(world_object *self, void *c)
{
    (void)c;
    return PyBool_FromLong(self->w == NULL);
}

static PyObject *world_last_error(world_object *self, PyObject *unused)
{
    (void)unused;
    LIVE(self);
    return PyUnicode_FromString(mo_world_last_error(self->w));
}

static PyObject *world_state_hash(world_object *self, PyObject *unused)
{
    (void)unused;
    LIVE(self);
    return PyLong_FromUnsignedLongLong(mo_world_state_hash(self->w));
}

#define SET_ITEM(d, k, expr)                                                                                         \
    do {                                                                                                             \
        PyObject *v_ = (expr);                                                                                       \
        if (!v_ || PyDict_SetItemString(d, k, v_)) {                                                                 \
            Py_XDECREF(v_);                                                                                          \
            Py_DECREF(d);                                                                                            \
            return NULL;                                                                                             \
        }                                                                                                            \
        Py_DECREF(v_);                                                                                               \
    } while (0)

/* last_stats(): mo_world_last_stats as a dict (times in s; histories as lists) */
static PyObject *world_last_stats(world_object *self, PyObject *unused)
{
    (void)unused;
    LIVE(self);
    mo_step_stats st = mo_world_last_stats(self->w);
    PyObject *d = PyDict_New();
    if (!d) return NULL;
    SET_ITEM(d, "step", PyLong_FromUnsignedLongLong(st.step));
    SET_ITEM(d, "bodies", PyLong_FromLong(st.bodies));
    SET_ITEM(d, "particles", PyLong_FromLong(st.particles));
    SET_ITEM(d, "joints", PyLong_FromLong(st.joints));
    SET_ITEM(d, "dofs", PyLong_FromLong(st.dofs));
    SET_ITEM(d, "pairs", PyLong_FromLong(st.pairs));
    SET_ITEM(d, "contacts", PyLong_FromLong(st.contacts));
    SET_ITEM(d, "rows", PyLong_FromLong(st.rows));
    SET_ITEM(d, "nonzeros", PyLong_FromLong(st.nonzeros));
    SET_ITEM(d, "iterations", PyLong_FromLong(st.iterations));
    SET_ITEM(d, "converged", PyBool_FromLong(st.converged));
    SET_ITEM(d, "residual", PyFloat_FromDouble(st.residual));
    SET_ITEM(d, "coulomb_error", PyFloat_FromDouble(st.coulomb_error));
    SET_ITEM(d, "max_penetration", PyFloat_FromDouble(st.max_penetration));
    SET_ITEM(d, "max_joint_error", PyFloat_FromDouble(st.max_joint_error));
    SET_ITEM(d, "t_predict", PyFloat_FromDouble(st.t_predict));
    SET_ITEM(d, "t_collide", PyFloat_FromDouble(st.t_collide));
    SET_ITEM(d, "t_assemble", PyFloat_FromDouble(st.t_assemble));
    SET_ITEM(d, "t_solve", PyFloat_FromDouble(st.t_solve));
    SET_ITEM(d, "t_integrate", PyFloat_FromDouble(st.t_integrate));
    SET_ITEM(d, "nan_warnings", PyLong_FromLong(st.nan_warnings));
    SET_ITEM(d, "regularisation", PyFloat_FromDouble(st.regularisation));
    SET_ITEM(d, "linear_iterations", PyLong_FromLong(st.linear_iterations));
    SET_ITEM(d, "halvings", PyLong_FromLong(st.halvings));
    SET_ITEM(d, "awake_bodies", PyLong_FromLong(st.awake_bodies));
    SET_ITEM(d, "sleeping_bodies", PyLong_FromLong(st.sleeping_bodies));
    SET_ITEM(d, "islands", PyLong_FromLong(st.islands));
    SET_ITEM(d, "backend", PyUnicode_FromString(mo_backend_name(st.backend)));
    PyObject *rh = PyList_New(0), *ch = PyList_New(0);
    for (int i = 0; rh && ch && i < st.residual_count && st.residual_history; i++) {
        PyObject *a = PyFloat_FromDouble(st.residual_history[i]);
        PyObject *b = PyFloat_FromDouble(st.coulomb_error_history ? st.coulomb_error_history[i] : 0.0);
        if (!a || !b || PyList_Append(rh, a) || PyList_Append(ch, b)) {
            Py_XDECREF(a);
            Py_XDECREF(b);
            Py_CLEAR(rh);
            break;
        }
        Py_DECREF(a);
        Py_DECREF(b);
    }
    if (!rh || !ch) {
        Py_XDECREF(ch);
        Py_DECREF(d);
        return NULL;
    }
    SET_ITEM(d, "residual_history", rh);
    SET_ITEM(d, "coulomb_error_history", ch);
    return d;
}

/* contacts(): the last step's contacts as tuples (body_a, body_b, shape_a,
 * shape_b, point, normal, gap, friction, impulse, force) */
static PyObject *world_contacts(world_object *self, PyObject *unused)
{
    (void)unused;
    LIVE(self);
    int n = mo_world_contacts(self->w, NULL, 0);
    mo_contact *c = calloc(n > 0 ? (size_t)n : 1, sizeof *c);
    if (!c) return PyErr_NoMemory();
    n = mo_world_contacts(self->w, c, n);
    PyObject *list = PyList_New(n);
    for (int i = 0; list && i < n; i++) {
        PyObject *t = Py_BuildValue("(KKKKNNddNN)", KEY(c[i].body_a), KEY(c[i].body_b), KEY(c[i].shape_a),
                                    KEY(c[i].shape_b), pymo_vec3_out(c[i].point), pymo_vec3_out(c[i].normal), c[i].gap,
                                    c[i].friction, pymo_vec3_out(c[i].impulse), pymo_vec3_out(c[i].force));
        if (!t) Py_CLEAR(list);
        else PyList_SET_ITEM(list, i, t);
    }
    free(c);
    return list;
}

/* ---- bodies and shapes ----------------------------------------------------- */

static PyObject *world_body_create(world_object *self, PyObject *d)
{
    LIVE(self);
    if (!PyDict_Check(d)) return PyErr_Format(PyExc_TypeError, "body_create: expected a dict");
    mo_body_def def = mo_default_body_def();
    int type = (int)def.type;
    mo_vec3 *pts = NULL;
    double inertia[9];
    PyObject *in = PyDict_GetItemString(d, "inertia"), *shape = PyDict_GetItemString(d, "shape");
    if (pymo_dict_choice(d, "type", body_type_names, &type) || pymo_dict_vec3(d, "position", &def.position) ||
        pymo_dict_quat(d, "orientation", &def.orientation) ||
        pymo_dict_vec3(d, "linear_velocity", &def.linear_velocity) ||
        pymo_dict_vec3(d, "angular_velocity", &def.angular_velocity) || pymo_dict_double(d, "mass", &def.mass) ||
        pymo_dict_double(d, "linear_damping", &def.linear_damping) ||
        pymo_dict_double(d, "angular_damping", &def.angular_damping) ||
        pymo_dict_bool(d, "gyroscopic", &def.gyroscopic))
        return NULL;
    def.type = (mo_body_type)type;
    if (in && in != Py_None) {
        if (pymo_doubles(in, inertia, 9, "inertia (9 numbers, row-major)")) return NULL;
        memcpy(def.inertia.m, inertia, sizeof inertia);
    }
    int group = 0;
    if (pymo_dict_int(d, "collision_group", &group)) return NULL;
    def.collision_group = (uint32_t)group;
    if (shape && shape != Py_None && shape_def_from(shape, &def.shape, &pts)) {
        free(pts);
        return NULL;
    }
    mo_body_id id;
    mo_status s = mo_body_create(self->w, &def, &id);
    free(pts);
    if (s != MO_OK) return pymo_world_fail(self, s);
    return PyLong_FromUnsignedLongLong(KEY(id));
}

/* parses "K" (an id key) and more with a format */
#define BODY_ARG(args, key)                                                                                          \
    unsigned long long key;                                                                                          \
    if (!PyArg_ParseTuple(args, "K", &key)) return NULL;                                                             \
    LIVE(self)

static PyObject *world_body_destroy(world_object *self, PyObject *args)
{
    BODY_ARG(args, key);
    mo_status s = mo_body_destroy(self->w, ID_FROM(mo_body_id, key));
    if (s != MO_OK) return pymo_world_fail(self, s);
    Py_RETURN_NONE;
}
static PyObject *world_body_is_valid(world_object *self, PyObject *args)
{
    BODY_ARG(args, key);
    return PyBool_FromLong(mo_body_is_valid(self->w, ID_FROM(mo_body_id, key)));
}
/* body_state(key): (position, orientation, linear_velocity, angular_velocity) */
static PyObject *world_body_state(world_object *self, PyObject *args)
{
    BODY_ARG(args, key);
    mo_body_id id = ID_FROM(mo_body_id, key);
    mo_vec3 p, v, om;
    mo_quat q;
    mo_status s = mo_body_position(self->w, id, &p);
    if (s == MO_OK) s = mo_body_orientation(self->w, id, &q);
    if (s == MO_OK) s = mo_body_linear_velocity(self->w, id, &v);
    if (s == MO_OK) s = mo_body_angular_velocity(self->w, id, &om);
    if (s != MO_OK) return pymo_world_fail(self, s);
    return Py_BuildValue("(NNNN)", pymo_vec3_out(p), pymo_quat_out(q), pymo_vec3_out(v), pymo_vec3_out(om));
}
static PyObject *world_body_set_pose(world_object *self, PyObject *args)
{
    unsigned long long key;
    PyObject *po, *qo;
    if (!PyArg_ParseTuple(args, "KOO", &key, &po, &qo)) return NULL;
    LIVE(self);
    mo_vec3 p;
    mo_quat q;
    if (pymo_vec3(po, &p, "position") || pymo_quat(qo, &q, "orientation")) return NULL;
    mo_status s = mo_body_set_pose(self->w, ID_FROM(mo_body_id, key), p, q);
    if (s != MO_OK) return pymo_world_fail(self, s);
    Py_RETURN_NONE;
}
/* two vectors into a body call: set_velocity, apply_force */
static PyObject *body_two_vec3(world_object *self, PyObject *args,
                               mo_status (*fn)(mo_world *, mo_body_id, mo_vec3, mo_vec3))
{
    unsigned long long key;
    PyObject *ao, *bo;
    if (!PyArg_ParseTuple(args, "KOO", &key, &ao, &bo)) return NULL;
    LIVE(self);
    mo_vec3 a, b;
    if (pymo_vec3(ao, &a, "first vector") || pymo_vec3(bo, &b, "second vector")) return NULL;
    mo_status s = fn(self->w, ID_FROM(mo_body_id, key), a, b);
    if (s != MO_OK) return pymo_world_fail(self, s);
    Py_RETURN_NONE;
}
static PyObject *world_body_set_velocity(world_object *self, PyObject *args)
{
    return body_two_vec3(self, args, mo_body_set_velocity);
}
static PyObject *world_body_apply_force(world_object *self, PyObject *args)
{
    return body_two_vec3(self, args, mo_body_apply_force);
}
static PyObject *world_body_apply_force_at(world_object *self, PyObject *args)
{
    return body_two_vec3(self, args, mo_body_apply_force_at);
}
/* body_mass(key): (mass, inertia 3x3 rows) */
static PyObject *world_body_mass(world_object *self, PyObject *args)
{
    BODY_ARG(args, key);
    double m;
    mo_mat3 I;
    mo_status s = mo_body_mass(self->w, ID_FROM(mo_body_id, key), &m, &I);
    if (s != MO_OK) return pymo_world_fail(self, s);
    return Py_BuildValue("(d((ddd)(ddd)(ddd)))", m, I.m[0][0], I.m[0][1], I.m[0][2], I.m[1][0], I.m[1][1], I.m[1][2],
                         I.m[2][0], I.m[2][1], I.m[2][2]);
}
static PyObject *world_body_kinetic_energy(world_object *self, PyObject *args)
{
    BODY_ARG(args, key);
    double e;
    mo_status s = mo_body_kinetic_energy(self->w, ID_FROM(mo_body_id, key), &e);
    if (s != MO_OK) return pymo_world_fail(self, s);
    return PyFloat_FromDouble(e);
}
/* body_contact_force(key): (force, torque) of the last step's contacts */
static PyObject *world_body_contact_force(world_object *self, PyObject *args)
{
    BODY_ARG(args, key);
    mo_vec3 f, t;
    mo_status s = mo_body_contact_force(self->w, ID_FROM(mo_body_id, key), &f, &t);
    if (s != MO_OK) return pymo_world_fail(self, s);
    return Py_BuildValue("(NN)", pymo_vec3_out(f), pymo_vec3_out(t));
}
static PyObject *world_body_set_mass_from_shapes(world_object *self, PyObject *args)
{
    BODY_ARG(args, key);
    mo_status s = mo_body_set_mass_from_shapes(self->w, ID_FROM(mo_body_id, key));
    if (s != MO_OK) return pymo_world_fail(self, s);
    Py_RETURN_NONE;
}
static PyObject *world_shape_create(world_object *self, PyObject *args)
{
    unsigned long long key;
    PyObject *d;
    if (!PyArg_ParseTuple(args, "KO", &key, &d)) return NULL;
    LIVE(self);
    mo_shape_def def = mo_default_shape_def();
    mo_vec3 *pts;
    if (shape_def_from(d, &def, &pts)) {
        free(pts);
        return NULL;
    }
    mo_shape_id id;
    mo_status s = mo_shape_create(self->w, ID_FROM(mo_body_id, key), &def, &id);
    free(pts);
    if (s != MO_OK) return pymo_world_fail(self, s);
    return PyLong_FromUnsignedLongLong(KEY(id));
}
static PyObject *world_shape_destroy(world_object *self, PyObject *args)
{
    BODY_ARG(args, key);
    mo_status s = mo_shape_destroy(self->w, ID_FROM(mo_shape_id, key));
    if (s != MO_OK) return pymo_world_fail(self, s);
    Py_RETURN_NONE;
}
static PyObject *world_bodies(world_object *self, PyObject *unused)
{
    (void)unused;
    LIVE(self);
    int n = mo_world_bodies(self->w, NULL, 0);
    mo_body_id *ids = calloc(n > 0 ? (size_t)n : 1, sizeof *ids);
    if (!ids) return PyErr_NoMemory();
    n = mo_world_bodies(self->w, ids, n);
    PyObject *list = PyList_New(n);
    for (int i = 0; list && i < n; i++) {
        PyObject *k = PyLong_FromUnsignedLongLong(KEY(ids[i]));
        if (!k) Py_CLEAR(list);
        else PyList_SET_ITEM(list, i, k);
    }
    free(ids);
    return list;
}

/* ---- joints ---------------------------------------------------------------- */

static PyObject *world_joint_create(world_object *self, PyObject *d)
{
    LIVE(self);
    if (!PyDict_Check(d)) return PyErr_Format(PyExc_TypeError, "joint_create: expected a dict");
    mo_joint_def def = mo_default_joint_def();
    int type = (int)def.type, motor = (int)def.motor;
    unsigned long long a = 0, b = 0;
    if (pymo_dict_choice(d, "type", joint_type_names, &type) || pymo_dict_key(d, "body_a", &a) ||
        pymo_dict_key(d, "body_b", &b) || pymo_dict_vec3(d, "anchor_a", &def.anchor_a) ||
        pymo_dict_vec3(d, "anchor_b", &def.anchor_b) || pymo_dict_vec3(d, "axis_a", &def.axis_a) ||
        pymo_dict_vec3(d, "axis_b", &def.axis_b) || pymo_dict_double(d, "length", &def.length) ||
        pymo_dict_bool(d, "enable_limit", &def.enable_limit) || pymo_dict_double(d, "lower", &def.lower) ||
        pymo_dict_double(d, "upper", &def.upper) || pymo_dict_choice(d, "motor", motor_names, &motor) ||
        pymo_dict_double(d, "target_velocity", &def.target_velocity) ||
        pymo_dict_double(d, "target_position", &def.target_position) ||
        pymo_dict_double(d, "stiffness", &def.stiffness) || pymo_dict_double(d, "damping", &def.damping) ||
        pymo_dict_double(d, "max_force", &def.max_force) || pymo_dict_double(d, "compliance", &def.compliance) ||
        pymo_dict_bool(d, "collide_connected", &def.collide_connected))
        return NULL;
    def.type = (mo_joint_type)type;
    def.motor = (mo_motor_mode)motor;
    def.body_a = ID_FROM(mo_body_id, a);
    def.body_b = ID_FROM(mo_body_id, b);
    mo_joint_id id;
    mo_status s = mo_joint_create(self->w, &def, &id);
    if (s != MO_OK) return pymo_world_fail(self, s);
    return PyLong_FromUnsignedLongLong(KEY(id));
}
static PyObject *world_joint_destroy(world_object *self, PyObject *args)
{
    BODY_ARG(args, key);
    mo_status s = mo_joint_destroy(self->w, ID_FROM(mo_joint_id, key));
    if (s != MO_OK) return pymo_world_fail(self, s);
    Py_RETURN_NONE;
}
static PyObject *world_joint_position(world_object *self, PyObject *args)
{
    BODY_ARG(args, key);
    double x = 0.0;
    mo_status s = mo_joint_position(self->w, ID_FROM(mo_joint_id, key), &x);
    if (s != MO_OK) return pymo_world_fail(self, s);
    return PyFloat_FromDouble(x);
}
static PyObject *world_joint_reaction(world_object *self, PyObject *args)
{
    BODY_ARG(args, key);
    mo_vec3 f, t;
    mo_status s = mo_joint_reaction(self->w, ID_FROM(mo_joint_id, key), &f, &t);
    if (s != MO_OK) return pymo_world_fail(self, s);
    return Py_BuildValue("(NN)", pymo_vec3_out(f), pymo_vec3_out(t));
}
/* joint_set_motor(key, mode, target_velocity, target_position, max_force) */
static PyObject *world_joint_set_motor(world_object *self, PyObject *args)
{
    unsigned long long key;
    const char *mode;
    double tv, tp, mf;
    if (!PyArg_ParseTuple(args, "Ksddd", &key, &mode, &tv, &tp, &mf)) return NULL;
    LIVE(self);
    int m = -1;
    for (int i = 0; motor_names[i]; i++)
        if (!strcmp(motor_names[i], mode)) m = i;
    if (m < 0) return PyErr_Format(PyExc_ValueError, "motor: unknown mode '%s' (off, velocity, position)", mode);
    mo_status s = mo_joint_set_motor(self->w, ID_FROM(mo_joint_id, key), (mo_motor_mode)m, tv, tp, mf);
    if (s != MO_OK) return pymo_world_fail(self, s);
    Py_RETURN_NONE;
}

/* ---- bulk state as NumPy arrays --------------------------------------------- */

/* body_array(kind, out=None): kind 0 positions (n, 3), 1 orientations (n, 4, w x y z),
 * 2 linear velocities (n, 3), 3 angular velocities (n, 3) of the live bodies in
 * mo_world_bodies order. A new array, or out (C-contiguous float64 of exactly
 * that shape, else ValueError: a buffer sized for another body count is refused) */
static PyObject *world_body_array(world_object *self, PyObject *args)
{
    int kind;
    PyObject *out = Py_None;
    if (!PyArg_ParseTuple(args, "i|O", &kind, &out)) return NULL;
    LIVE(self);
    if (kind < 0 || kind > 3) return PyErr_Format(PyExc_ValueError, "body_array: kind in 0..3");
    int n = mo_world_bodies(self->w, NULL, 0);
    mo_body_id *ids = calloc(n > 0 ? (size_t)n : 1, sizeof *ids);
    if (!ids) return PyErr_NoMemory();
    n = mo_world_bodies(self->w, ids, n);
    npy_intp dims[2] = {n, kind == 1 ? 4 : 3};
    PyArrayObject *a;
    if (out == Py_None) {
        a = (PyArrayObject *)PyArray_SimpleNew(2, dims, NPY_DOUBLE);
        if (!a) {
            free(ids);
            return NULL;
        }
    } else {
        if (!PyArray_Check(out) || PyArray_TYPE((PyArrayObject *)out) != NPY_DOUBLE ||
            !PyArray_IS_C_CONTIGUOUS((PyArrayObject *)out) || !PyArray_ISWRITEABLE((PyArrayObject *)out) ||
            PyArray_NDIM((PyArrayObject *)out) != 2 || PyArray_DIM((PyArrayObject *)out, 0) != dims[0] ||
            PyArray_DIM((PyArrayObject *)out, 1) != dims[1]) {
            free(ids);
            return PyErr_Format(PyExc_ValueError,
                                "out: expected a writeable C-contiguous float64 array of shape (%d, %d) (the world "
                                "has %d bodies)",
                                n, (int)dims[1], n);
        }
        a = (PyArrayObject *)out;
        Py_INCREF(out);
    }
    double *p = (double *)PyArray_DATA(a);
    for (int i = 0; i < n; i++) {
        mo_vec3 v = {0, 0, 0};
        mo_quat q = {1, 0, 0, 0};
        if (kind == 0) mo_body_position(self->w, ids[i], &v);
        else if (kind == 1) mo_body_orientation(self->w, ids[i], &q);
        else if (kind == 2) mo_body_linear_velocity(self->w, ids[i], &v);
        else mo_body_angular_velocity(self->w, ids[i], &v);
        if (kind == 1) {
            p[4 * i] = q.w;
            p[4 * i + 1] = q.x;
            p[4 * i + 2] = q.y;
            p[4 * i + 3] = q.z;
        } else {
            p[3 * i] = v.x;
            p[3 * i + 1] = v.y;
            p[3 * i + 2] = v.z;
        }
    }
    free(ids);
    return (PyObject *)a;
}

/* ---- state save / restore ----------------------------------------------------- */

static PyObject *world_save_state(world_object *self, PyObject *unused)
{
    (void)unused;
    LIVE(self);
    size_t n = mo_world_state_size(self->w);
    PyObject *b = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)n);
    if (!b) return NULL;
    mo_status s = mo_world_save_state(self->w, PyBytes_AS_STRING(b), n);
    if (s != MO_OK) {
        Py_DECREF(b);
        return pymo_world_fail(self, s);
    }
    return b;
}
static PyObject *world_restore_state(world_object *self, PyObject *arg)
{
    LIVE(self);
    Py_buffer buf;
    if (PyObject_GetBuffer(arg, &buf, PyBUF_SIMPLE)) return NULL;
    mo_status s = mo_world_restore_state(self->w, buf.buf, (size_t)buf.len);
    PyBuffer_Release(&buf);
    if (s != MO_OK) return pymo_world_fail(self, s);
    Py_RETURN_NONE;
}

/* ---- scene files --------------------------------------------------------------- */

/* scene_bodies(): [(name, key)] of the bodies the scene created; [] for a plain world */
static PyObject *world_scene_bodies(world_object *self, PyObject *unused)
{
    (void)unused;
    LIVE(self);
    int n = self->sf ? mo_scene_file_bodies(self->sf, NULL, 0) : 0;
    mo_scene_body *b = calloc(n > 0 ? (size_t)n : 1, sizeof *b);
    if (!b) return PyErr_NoMemory();
    if (n) n = mo_scene_file_bodies(self->sf, b, n);
    PyObject *list = PyList_New(n);
    for (int i = 0; list && i < n; i++) {
        PyObject *t = Py_BuildValue("(sK)", b[i].name, KEY(b[i].id));
        if (!t) Py_CLEAR(list);
        else PyList_SET_ITEM(list, i, t);
    }
    free(b);
    return list;
}
/* scene_checks(): [(name, passed, detail)] evaluated now */
static PyObject *world_scene_checks(world_object *self, PyObject *unused)
{
    (void)unused;
    LIVE(self);
    int n = self->sf ? mo_scene_file_check_count(self->sf) : 0;
    mo_scene_check_result *r = calloc(n > 0 ? (size_t)n : 1, sizeof *r);
    if (!r) return PyErr_NoMemory();
    if (n) mo_scene_file_checks(self->sf, r, n);
    PyObject *list = PyList_New(n);
    for (int i = 0; list && i < n; i++) {
        PyObject *t = Py_BuildValue("(sNs)", r[i].name ? r[i].name : "", PyBool_FromLong(r[i].passed),
                                    r[i].detail ? r[i].detail : "");
        if (!t) Py_CLEAR(list);
        else PyList_SET_ITEM(list, i, t);
    }
    free(r);
    return list;
}
/* scene_info(): (duration s, done, stop reason, steps taken) */
static PyObject *world_scene_info(world_object *self, PyObject *unused)
{
    (void)unused;
    LIVE(self);
    const char *why = "";
    bool done = self->sf ? mo_scene_file_done(self->sf, &why) : false;
    return Py_BuildValue("(dNsK)", mo_scene_file_duration(self->sf), PyBool_FromLong(done), why ? why : "",
                         (unsigned long long)mo_scene_file_steps(self->sf));
}

static PyMethodDef world_methods[] = {
    {"close", (PyCFunction)world_close, METH_NOARGS, "destroy the world now (later calls raise RuntimeError)"},
    {"step", (PyCFunction)(void (*)(void))world_step, METH_FASTCALL, "step(n=1): n steps"},
    {"_set_settings", (PyCFunction)world_set_settings, METH_O, NULL},
    {"get", (PyCFunction)world_get_setting, METH_O, "get(name): a setting's value (docs/settings.md)"},
    {"last_error", (PyCFunction)world_last_error, METH_NOARGS, "the sentence of the last failed call"},
    {"state_hash", (PyCFunction)world_state_hash, METH_NOARGS, "mo_world_state_hash: equal means bit-identical"},
    {"last_stats", (PyCFunction)world_last_stats, METH_NOARGS, "the last step's statistics as a dict"},
    {"_contacts", (PyCFunction)world_contacts, METH_NOARGS, NULL},
    {"_body_create", (PyCFunction)world_body_create, METH_O, NULL},
    {"_body_destroy", (PyCFunction)world_body_destroy, METH_VARARGS, NULL},
    {"_body_is_valid", (PyCFunction)world_body_is_valid, METH_VARARGS, NULL},
    {"_body_state", (PyCFunction)world_body_state, METH_VARARGS, NULL},
    {"_body_set_pose", (PyCFunction)world_body_set_pose, METH_VARARGS, NULL},
    {"_body_set_velocity", (PyCFunction)world_body_set_velocity, METH_VARARGS, NULL},
    {"_body_apply_force", (PyCFunction)world_body_apply_force, METH_VARARGS, NULL},
    {"_body_apply_force_at", (PyCFunction)world_body_apply_force_at, METH_VARARGS, NULL},
    {"_body_mass", (PyCFunction)world_body_mass, METH_VARARGS, NULL},
    {"_body_kinetic_energy", (PyCFunction)world_body_kinetic_energy, METH_VARARGS, NULL},
    {"_body_contact_force", (PyCFunction)world_body_contact_force, METH_VARARGS, NULL},
    {"_body_set_mass_from_shapes", (PyCFunction)world_body_set_mass_from_shapes, METH_VARARGS, NULL},
    {"_shape_create", (PyCFunction)world_shape_create, METH_VARARGS, NULL},
    {"_shape_destroy", (PyCFunction)world_shape_destroy, METH_VARARGS, NULL},
    {"_bodies", (PyCFunction)world_bodies, METH_NOARGS, NULL},
    {"_joint_create", (PyCFunction)world_joint_create, METH_O, NULL},
    {"_joint_destroy", (PyCFunction)world_joint_destroy, METH_VARARGS, NULL},
    {"_joint_position", (PyCFunction)world_joint_position, METH_VARARGS, NULL},
    {"_joint_reaction", (PyCFunction)world_joint_reaction, METH_VARARGS, NULL},
    {"_joint_set_motor", (PyCFunction)world_joint_set_motor, METH_VARARGS, NULL},
    {"_body_array", (PyCFunction)world_body_array, METH_VARARGS, NULL},
    {"save_state", (PyCFunction)world_save_state, METH_NOARGS, "the state as bytes (mo_world_save_state)"},
    {"restore_state", (PyCFunction)world_restore_state, METH_O, "restore_state(bytes) (mo_world_restore_state)"},
    {"_scene_bodies", (PyCFunction)world_scene_bodies, METH_NOARGS, NULL},
    {"_scene_checks", (PyCFunction)world_scene_checks, METH_NOARGS, NULL},
    {"_scene_info", (PyCFunction)world_scene_info, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef world_getset[] = {
    {"time", (getter)world_get_time, NULL, "simulated time, s", NULL},
    {"time_step", (getter)world_get_time_step, (setter)world_set_time_step, "time step, s", NULL},
    {"gravity", (getter)world_get_gravity, (setter)world_set_gravity, "gravity, m/s^2", NULL},
    {"closed", (getter)world_get_closed, NULL, "true after close()", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject pymo_world_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "moreau._moreau._World",
    .tp_basicsize = sizeof(world_object),
    .tp_dealloc = (destructor)world_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_doc = "a Moreau world (the C half; use moreau.World)",
    .tp_methods = world_methods,
    .tp_getset = world_getset,
    .tp_init = (initproc)world_init,
    .tp_new = PyType_GenericNew,
};

/* ---- module ------------------------------------------------------------------ */

/* settings(): [(name, type, min, max, unit, doc)] of the settings table */
static PyObject *mod_settings(PyObject *m, PyObject *unused)
{
    (void)m;
    (void)unused;
    static const char *const types[] = {"int", "real", "bool", "choice", "vec3"};
    int n = mo_setting_count();
    PyObject *list = PyList_New(n);
    for (int i = 0; list && i < n; i++) {
        const mo_setting_info *s = mo_setting_at(i);
        PyObject *t = Py_BuildValue("(ssddss)", s->name, types[s->type], s->min, s->max, s->unit, s->doc);
        if (!t) Py_CLEAR(list);
        else PyList_SET_ITEM(list, i, t);
    }
    return list;
}

static PyMethodDef module_methods[] = {
    {"settings", (PyCFunction)mod_settings, METH_NOARGS, "the settings table: (name, type, min, max, unit, doc)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "_moreau", "C half of the moreau package (moreau/__init__.py)", -1, module_methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__moreau(void);
PyMODINIT_FUNC PyInit__moreau(void)
{
    import_array();
    if (PyType_Ready(&pymo_world_type) < 0) return NULL;
    PyObject *m = PyModule_Create(&module_def);
    if (!m) return NULL;
    pymo_error_type = PyErr_NewExceptionWithDoc("moreau.Error",
                                              "an engine call failed: str() is the engine's sentence, .status the "
                                              "mo_status name (MO_ERR_...), .code its number",
                                              NULL, NULL);
    if (!pymo_error_type || PyModule_AddObject(m, "Error", pymo_error_type) < 0) {
        Py_XDECREF(pymo_error_type);
        Py_DECREF(m);
        return NULL;
    }
    Py_INCREF(pymo_error_type); /* the module holds one reference, this file the other */
    Py_INCREF(&pymo_world_type);
    if (PyModule_AddObject(m, "_World", (PyObject *)&pymo_world_type) < 0) {
        Py_DECREF(&pymo_world_type);
        Py_DECREF(m);
        return NULL;
    }
    if (PyModule_AddFunctions(m, pymo_artic_functions) < 0 || PyModule_AddFunctions(m, pymo_fem_functions) < 0 ||
        pymo_fclib_init(m) < 0 || pymo_batch_init(m) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    PyModule_AddIntConstant(m, "VERSION_MAJOR", MO_VERSION_MAJOR);
    PyModule_AddIntConstant(m, "VERSION_MINOR", MO_VERSION_MINOR);
    PyModule_AddIntConstant(m, "VERSION_PATCH", MO_VERSION_PATCH);
    return m;
}
