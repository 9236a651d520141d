/* _batch.c: batches of worlds (moreau/batch.h) for the Python package: the type
 * _Batch, which python/moreau/__init__.py wraps as moreau.Batch. Bulk state comes
 * back as new NumPy arrays shaped (worlds, bodies, 3 or 4), (worlds, nq),
 * (worlds, nv), (worlds, drives); setters take array-likes of the same shapes
 * (None leaves that quantity as it is). Errors raise moreau.Error with the
 * batch's sentence, which names the world. */
#include "_moreau.h"

#include <stdlib.h>
#include <string.h>

#include "moreau/batch.h"

typedef struct {
    PyObject_HEAD
    mo_batch *b; /* NULL once closed */
} batch_object;

static int live(batch_object *self)
{
    if (self->b) return 1;
    PyErr_SetString(PyExc_RuntimeError, "moreau: the batch is closed");
    return 0;
}

static PyObject *fail(batch_object *self, mo_status s)
{
    return pymo_raise(s, mo_batch_last_error(self->b));
}

#define LIVE_B(self)                                                                                                 \
    do {                                                                                                             \
        if (!live(self)) return NULL;                                                                                \
    } while (0)
#define CHECK_B(call)                                                                                                \
    do {                                                                                                             \
        mo_status s_ = (call);                                                                                       \
        if (s_ != MO_OK) return fail(self, s_);                                                                      \
    } while (0)

static void batch_dealloc(batch_object *self)
{
    mo_batch_destroy(self->b);
    self->b = NULL;
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* _Batch(scene, worlds, assignments=(), params=(), paths=(), threads=1) */
static int batch_init(batch_object *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"scene", "worlds", "assignments", "params", "paths", "threads", NULL};
    const char *scene = NULL;
    int worlds = 0, threads = 1;
    PyObject *assign = NULL, *params = NULL, *paths = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "si|OOOi", kwlist, &scene, &worlds, &assign, &params, &paths,
                                     &threads))
        return -1;
    if (self->b) {
        PyErr_SetString(PyExc_RuntimeError, "moreau: the batch is already initialised");
        return -1;
    }
    const char **as = NULL, **ps = NULL, **sp = NULL;
    int na = 0, np = 0, nsp = 0, rc = -1;
    PyObject *k1 = NULL, *k2 = NULL, *k3 = NULL;
    char err[1024] = "";
    if (pymo_str_list(assign, &as, &na, &k1) || pymo_str_list(params, &ps, &np, &k2) ||
        pymo_str_list(paths, &sp, &nsp, &k3))
        goto done;
    mo_scene_options opt = mo_default_scene_options();
    opt.params = ps;
    opt.param_count = np;
    opt.search_paths = sp;
    opt.search_path_count = nsp;
    mo_batch_def def = mo_default_batch_def();
    def.worlds = worlds;
    def.scene_path = scene;
    def.scene_options = &opt;
    def.settings = as;
    def.setting_count = na;
    def.threads = threads;
    mo_status s;
    Py_BEGIN_ALLOW_THREADS
    s = mo_batch_create(&def, &self->b, err, sizeof err);
    Py_END_ALLOW_THREADS
    if (s != MO_OK) {
        pymo_raise(s, err);
        goto done;
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

static PyObject *batch_close(batch_object *self, PyObject *unused)
{
    (void)unused;
    mo_batch_destroy(self->b);
    self->b = NULL;
    Py_RETURN_NONE;
}

/* (worlds, bodies, articulations, nq, nv, drives) */
static PyObject *batch_sizes(batch_object *self, PyObject *unused)
{
    (void)unused;
    LIVE_B(self);
    int nb = 0, na = 0, nq = 0, nv = 0;
    CHECK_B(mo_batch_sizes(self->b, &nb, &na, &nq, &nv));
    return Py_BuildValue("(iiiiii)", mo_batch_world_count(self->b), nb, na, nq, nv, mo_batch_drive_count(self->b));
}

/* step(n=1): n steps of every world (mo_batch_step, or mo_batch_step_n for n > 1), the GIL released */
static PyObject *batch_step(batch_object *self, PyObject *args)
{
    int n = 1;
    if (!PyArg_ParseTuple(args, "|i", &n)) return NULL;
    LIVE_B(self);
    mo_status s;
    Py_BEGIN_ALLOW_THREADS
    s = n == 1 ? mo_batch_step(self->b) : mo_batch_step_n(self->b, n);
    Py_END_ALLOW_THREADS
    if (s != MO_OK) return fail(self, s);
    Py_RETURN_NONE;
}

static PyObject *new_array(int nd, npy_intp *dims, int type)
{
    return PyArray_ZEROS(nd, dims, type, 0);
}

/* (positions, orientations (w, x, y, z), linear, angular): (worlds, bodies, 3 or 4) each */
static PyObject *batch_bodies(batch_object *self, PyObject *unused)
{
    (void)unused;
    LIVE_B(self);
    int nb = 0;
    CHECK_B(mo_batch_sizes(self->b, &nb, NULL, NULL, NULL));
    const int nw = mo_batch_world_count(self->b);
    npy_intp d3[3] = {nw, nb, 3}, d4[3] = {nw, nb, 4};
    PyObject *p = new_array(3, d3, NPY_DOUBLE), *q = new_array(3, d4, NPY_DOUBLE), *l = new_array(3, d3, NPY_DOUBLE),
             *a = new_array(3, d3, NPY_DOUBLE);
    if (!p || !q || !l || !a) goto bad;
    mo_status s = mo_batch_get_bodies(self->b, (mo_vec3 *)PyArray_DATA((PyArrayObject *)p),
                                      (mo_quat *)PyArray_DATA((PyArrayObject *)q),
                                      (mo_vec3 *)PyArray_DATA((PyArrayObject *)l),
                                      (mo_vec3 *)PyArray_DATA((PyArrayObject *)a), nw * nb);
    if (s != MO_OK) {
        fail(self, s);
        goto bad;
    }
    return Py_BuildValue("(NNNN)", p, q, l, a);
bad:
    Py_XDECREF(p);
    Py_XDECREF(q);
    Py_XDECREF(l);
    Py_XDECREF(a);
    return NULL;
}

/* o as a C-contiguous double array of exactly n doubles (a new reference), None as NULL with *arr NULL; -1 with
 * an exception when it cannot be, naming what */
static int doubles_in(PyObject *o, npy_intp n, const char *what, PyArrayObject **arr)
{
    *arr = NULL;
    if (!o || o == Py_None) return 0;
    PyArrayObject *a = (PyArrayObject *)PyArray_FROMANY(o, NPY_DOUBLE, 0, 0, NPY_ARRAY_IN_ARRAY);
    if (!a) return -1;
    if (PyArray_SIZE(a) != n) {
        PyErr_Format(PyExc_ValueError, "moreau: %s has %zd values, the batch needs %zd", what,
                     (Py_ssize_t)PyArray_SIZE(a), (Py_ssize_t)n);
        Py_DECREF(a);
        return -1;
    }
    *arr = a;
    return 0;
}

#define DATA(a) ((a) ? PyArray_DATA(a) : NULL)

/* set_bodies(position=None, orientation=None, linear=None, angular=None) */
static PyObject *batch_set_bodies(batch_object *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"position", "orientation", "linear", "angular", NULL};
    PyObject *po = NULL, *qo = NULL, *lo = NULL, *ao = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|OOOO", kwlist, &po, &qo, &lo, &ao)) return NULL;
    LIVE_B(self);
    int nb = 0;
    CHECK_B(mo_batch_sizes(self->b, &nb, NULL, NULL, NULL));
    const npy_intp n = (npy_intp)mo_batch_world_count(self->b) * nb;
    PyArrayObject *p = NULL, *q = NULL, *l = NULL, *a = NULL;
    PyObject *ret = NULL;
    if (doubles_in(po, 3 * n, "position", &p) || doubles_in(qo, 4 * n, "orientation", &q) ||
        doubles_in(lo, 3 * n, "linear", &l) || doubles_in(ao, 3 * n, "angular", &a))
        goto done;
    mo_status s = mo_batch_set_bodies(self->b, DATA(p), DATA(q), DATA(l), DATA(a), (int)n);
    if (s != MO_OK) fail(self, s);
    else ret = Py_NewRef(Py_None);
done:
    Py_XDECREF(p);
    Py_XDECREF(q);
    Py_XDECREF(l);
    Py_XDECREF(a);
    return ret;
}

/* (q (worlds, nq), qdot (worlds, nv)) */
static PyObject *batch_joints(batch_object *self, PyObject *unused)
{
    (void)unused;
    LIVE_B(self);
    int nq = 0, nv = 0;
    CHECK_B(mo_batch_sizes(self->b, NULL, NULL, &nq, &nv));
    const int nw = mo_batch_world_count(self->b);
    npy_intp dq[2] = {nw, nq}, dv[2] = {nw, nv};
    PyObject *q = new_array(2, dq, NPY_DOUBLE), *v = new_array(2, dv, NPY_DOUBLE);
    if (!q || !v) goto bad;
    mo_status s = mo_batch_get_joints(self->b, PyArray_DATA((PyArrayObject *)q), nw * nq,
                                      PyArray_DATA((PyArrayObject *)v), nw * nv);
    if (s != MO_OK) {
        fail(self, s);
        goto bad;
    }
    return Py_BuildValue("(NN)", q, v);
bad:
    Py_XDECREF(q);
    Py_XDECREF(v);
    return NULL;
}

/* set_joints(q=None, qdot=None) */
static PyObject *batch_set_joints(batch_object *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"q", "qdot", NULL};
    PyObject *qo = NULL, *vo = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|OO", kwlist, &qo, &vo)) return NULL;
    LIVE_B(self);
    int nq = 0, nv = 0;
    CHECK_B(mo_batch_sizes(self->b, NULL, NULL, &nq, &nv));
    const int nw = mo_batch_world_count(self->b);
    PyArrayObject *q = NULL, *v = NULL;
    PyObject *ret = NULL;
    if (doubles_in(qo, (npy_intp)nw * nq, "q", &q) || doubles_in(vo, (npy_intp)nw * nv, "qdot", &v)) goto done;
    mo_status s = mo_batch_set_joints(self->b, DATA(q), nw * nq, DATA(v), nw * nv);
    if (s != MO_OK) fail(self, s);
    else ret = Py_NewRef(Py_None);
done:
    Py_XDECREF(q);
    Py_XDECREF(v);
    return ret;
}

/* (target positions, target velocities): (worlds, drives) each */
static PyObject *batch_drive_targets(batch_object *self, PyObject *unused)
{
    (void)unused;
    LIVE_B(self);
    const int nw = mo_batch_world_count(self->b), nd = mo_batch_drive_count(self->b);
    npy_intp d[2] = {nw, nd};
    PyObject *p = new_array(2, d, NPY_DOUBLE), *v = new_array(2, d, NPY_DOUBLE);
    if (!p || !v) goto bad;
    mo_status s = mo_batch_get_drive_targets(self->b, PyArray_DATA((PyArrayObject *)p),
                                             PyArray_DATA((PyArrayObject *)v), nw * nd);
    if (s != MO_OK) {
        fail(self, s);
        goto bad;
    }
    return Py_BuildValue("(NN)", p, v);
bad:
    Py_XDECREF(p);
    Py_XDECREF(v);
    return NULL;
}

/* set_drive_targets(position=None, velocity=None) */
static PyObject *batch_set_drive_targets(batch_object *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"position", "velocity", NULL};
    PyObject *po = NULL, *vo = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|OO", kwlist, &po, &vo)) return NULL;
    LIVE_B(self);
    const int nw = mo_batch_world_count(self->b), nd = mo_batch_drive_count(self->b);
    PyArrayObject *p = NULL, *v = NULL;
    PyObject *ret = NULL;
    if (doubles_in(po, (npy_intp)nw * nd, "position", &p) || doubles_in(vo, (npy_intp)nw * nd, "velocity", &v))
        goto done;
    mo_status s = mo_batch_set_drive_targets(self->b, DATA(p), DATA(v), nw * nd);
    if (s != MO_OK) fail(self, s);
    else ret = Py_NewRef(Py_None);
done:
    Py_XDECREF(p);
    Py_XDECREF(v);
    return ret;
}

/* contact counts (worlds,) of the last step */
static PyObject *batch_contact_counts(batch_object *self, PyObject *unused)
{
    (void)unused;
    LIVE_B(self);
    const int nw = mo_batch_world_count(self->b);
    npy_intp d[1] = {nw};
    PyObject *c = new_array(1, d, NPY_INT);
    if (!c) return NULL;
    mo_status s = mo_batch_contact_counts(self->b, PyArray_DATA((PyArrayObject *)c), nw);
    if (s != MO_OK) {
        Py_DECREF(c);
        return fail(self, s);
    }
    return c;
}

/* state hashes (worlds,) as uint64 */
static PyObject *batch_hashes(batch_object *self, PyObject *unused)
{
    (void)unused;
    LIVE_B(self);
    const int nw = mo_batch_world_count(self->b);
    npy_intp d[1] = {nw};
    PyObject *h = new_array(1, d, NPY_UINT64);
    if (!h) return NULL;
    mo_status s = mo_batch_state_hashes(self->b, PyArray_DATA((PyArrayObject *)h), nw);
    if (s != MO_OK) {
        Py_DECREF(h);
        return fail(self, s);
    }
    return h;
}

/* reset(index=-1): world index (every world when -1) back to its initial state */
static PyObject *batch_reset(batch_object *self, PyObject *args)
{
    int i = MO_BATCH_ALL;
    if (!PyArg_ParseTuple(args, "|i", &i)) return NULL;
    LIVE_B(self);
    CHECK_B(mo_batch_reset(self->b, i));
    Py_RETURN_NONE;
}

/* mark_initial(index=-1): the current state becomes the initial state of reset */
static PyObject *batch_mark_initial(batch_object *self, PyObject *args)
{
    int i = MO_BATCH_ALL;
    if (!PyArg_ParseTuple(args, "|i", &i)) return NULL;
    LIVE_B(self);
    CHECK_B(mo_batch_mark_initial(self->b, i));
    Py_RETURN_NONE;
}

/* set_gravity(index, (gx, gy, gz)) */
static PyObject *batch_set_gravity(batch_object *self, PyObject *args)
{
    int i;
    PyObject *go;
    mo_vec3 g;
    if (!PyArg_ParseTuple(args, "iO", &i, &go) || pymo_vec3(go, &g, "gravity")) return NULL;
    LIVE_B(self);
    CHECK_B(mo_batch_set_gravity(self->b, i, g));
    Py_RETURN_NONE;
}

/* set_settings(index, ["NAME=VALUE", ...]) (index -1: every world) */
static PyObject *batch_set_settings(batch_object *self, PyObject *args)
{
    int i;
    PyObject *list, *keep = NULL;
    if (!PyArg_ParseTuple(args, "iO", &i, &list)) return NULL;
    LIVE_B(self);
    const char **as = NULL;
    int n = 0;
    if (pymo_str_list(list, &as, &n, &keep)) return NULL;
    mo_status s = mo_batch_set_settings(self->b, i, as, n);
    free(as);
    Py_XDECREF(keep);
    if (s != MO_OK) return fail(self, s);
    Py_RETURN_NONE;
}

/* set_threads(n): OpenMP threads over worlds (0: OpenMP's default) */
static PyObject *batch_set_threads(batch_object *self, PyObject *args)
{
    int n;
    if (!PyArg_ParseTuple(args, "i", &n)) return NULL;
    LIVE_B(self);
    CHECK_B(mo_batch_set_threads(self->b, n));
    Py_RETURN_NONE;
}

static PyMethodDef batch_methods[] = {
    {"close", (PyCFunction)batch_close, METH_NOARGS, "destroy the batch and its worlds"},
    {"sizes", (PyCFunction)batch_sizes, METH_NOARGS, "(worlds, bodies, articulations, nq, nv, drives)"},
    {"step", (PyCFunction)batch_step, METH_VARARGS, "step(n=1): n steps of every world"},
    {"bodies", (PyCFunction)batch_bodies, METH_NOARGS, "(positions, orientations, linear, angular) arrays"},
    {"set_bodies", (PyCFunction)(void (*)(void))batch_set_bodies, METH_VARARGS | METH_KEYWORDS,
     "set_bodies(position=None, orientation=None, linear=None, angular=None)"},
    {"joints", (PyCFunction)batch_joints, METH_NOARGS, "(q, qdot) arrays"},
    {"set_joints", (PyCFunction)(void (*)(void))batch_set_joints, METH_VARARGS | METH_KEYWORDS,
     "set_joints(q=None, qdot=None)"},
    {"drive_targets", (PyCFunction)batch_drive_targets, METH_NOARGS, "(target positions, target velocities)"},
    {"set_drive_targets", (PyCFunction)(void (*)(void))batch_set_drive_targets, METH_VARARGS | METH_KEYWORDS,
     "set_drive_targets(position=None, velocity=None)"},
    {"contact_counts", (PyCFunction)batch_contact_counts, METH_NOARGS, "contacts per world of the last step"},
    {"hashes", (PyCFunction)batch_hashes, METH_NOARGS, "state hash per world"},
    {"reset", (PyCFunction)batch_reset, METH_VARARGS, "reset(index=-1)"},
    {"mark_initial", (PyCFunction)batch_mark_initial, METH_VARARGS, "mark_initial(index=-1)"},
    {"set_gravity", (PyCFunction)batch_set_gravity, METH_VARARGS, "set_gravity(index, g)"},
    {"set_settings", (PyCFunction)batch_set_settings, METH_VARARGS, "set_settings(index, assignments)"},
    {"set_threads", (PyCFunction)batch_set_threads, METH_VARARGS, "set_threads(n)"},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject batch_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "moreau._moreau._Batch",
    .tp_basicsize = sizeof(batch_object),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_doc = "N worlds of one scene file stepped together (moreau/batch.h)",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)batch_init,
    .tp_dealloc = (destructor)batch_dealloc,
    .tp_methods = batch_methods,
};

int pymo_batch_init(PyObject *module)
{
    if (PyType_Ready(&batch_type) < 0) return -1;
    Py_INCREF(&batch_type);
    if (PyModule_AddObject(module, "_Batch", (PyObject *)&batch_type) < 0) {
        Py_DECREF(&batch_type);
        return -1;
    }
    return 0;
}
