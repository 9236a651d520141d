/* _fclib.c: FCLIB frictional contact problems (moreau/fclib.h) for the Python
 * package: the type _FcProblem owning a mo_fc_problem (read from a file, taken
 * from a world's last step, or built from dense NumPy arrays), its solves
 * (mo_fc_solve, mo_fc_solve_auto) with solver settings by name, its Siconos
 * error and writers. python/moreau/__init__.py wraps it as moreau.FcProblem. */
#include "_moreau.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "moreau/fclib.h"

typedef struct {
    PyObject_HEAD
    mo_fc_problem p; /* owned; zeroed when empty */
} fc_object;

static void fc_dealloc(fc_object *self)
{
    mo_fc_free(&self->p);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyTypeObject fc_type;

/* a new object of type (fc_type or a subclass: moreau.FcProblem) owning *p */
static PyObject *fc_wrap(PyTypeObject *type, mo_fc_problem *p)
{
    if (!PyType_IsSubtype(type, &fc_type)) {
        mo_fc_free(p);
        return PyErr_Format(PyExc_TypeError, "expected a subclass of _FcProblem");
    }
    fc_object *o = (fc_object *)type->tp_alloc(type, 0);
    if (!o) {
        mo_fc_free(p);
        return NULL;
    }
    o->p = *p;
    return (PyObject *)o;
}

/* _FcProblem(W, q, mu): from a dense (3nc, 3nc) W (its non-zeros kept), q (3nc) and mu (nc) */
static PyObject *fc_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"W", "q", "mu", NULL};
    PyObject *wo, *qo, *mo;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOO", kwlist, &wo, &qo, &mo)) return NULL;
    PyArrayObject *W = (PyArrayObject *)PyArray_FROMANY(wo, NPY_DOUBLE, 2, 2, NPY_ARRAY_IN_ARRAY);
    PyArrayObject *q = (PyArrayObject *)PyArray_FROMANY(qo, NPY_DOUBLE, 1, 1, NPY_ARRAY_IN_ARRAY);
    PyArrayObject *mu = (PyArrayObject *)PyArray_FROMANY(mo, NPY_DOUBLE, 1, 1, NPY_ARRAY_IN_ARRAY);
    PyObject *out = NULL;
    mo_fc_problem p;
    memset(&p, 0, sizeof p);
    if (!W || !q || !mu) goto done;
    int nc = (int)PyArray_DIM(mu, 0), n = 3 * nc;
    if (nc < 1 || PyArray_DIM(W, 0) != n || PyArray_DIM(W, 1) != n || PyArray_DIM(q, 0) != n) {
        PyErr_Format(PyExc_ValueError, "FcProblem: W must be (3nc, 3nc) and q (3nc,) for mu (nc,) with nc >= 1");
        goto done;
    }
    const double *w = (const double *)PyArray_DATA(W);
    int nnz = 0;
    for (int i = 0; i < n * n; i++) nnz += w[i] != 0.0;
    p.nc = nc;
    p.W.rows = p.W.cols = n;
    p.W.nnz = nnz;
    p.W.ptr = malloc((size_t)(n + 1) * sizeof(int));
    p.W.col = malloc((size_t)(nnz > 0 ? nnz : 1) * sizeof(int));
    p.W.val = malloc((size_t)(nnz > 0 ? nnz : 1) * sizeof(double));
    p.q = malloc((size_t)n * sizeof(double));
    p.mu = malloc((size_t)nc * sizeof(double));
    if (!p.W.ptr || !p.W.col || !p.W.val || !p.q || !p.mu) {
        mo_fc_free(&p);
        PyErr_NoMemory();
        goto done;
    }
    int k = 0;
    for (int i = 0; i < n; i++) {
        p.W.ptr[i] = k;
        for (int j = 0; j < n; j++)
            if (w[i * n + j] != 0.0) {
                p.W.col[k] = j;
                p.W.val[k++] = w[i * n + j];
            }
    }
    p.W.ptr[n] = k;
    memcpy(p.q, PyArray_DATA(q), (size_t)n * sizeof(double));
    memcpy(p.mu, PyArray_DATA(mu), (size_t)nc * sizeof(double));
    out = fc_wrap(type, &p);
done:
    Py_XDECREF(W);
    Py_XDECREF(q);
    Py_XDECREF(mu);
    return out;
}

/* _fc_read(cls, path) */
static PyObject *fc_read(PyObject *m, PyObject *args)
{
    (void)m;
    const char *path;
    PyObject *cls;
    if (!PyArg_ParseTuple(args, "O!s", &PyType_Type, &cls, &path)) return NULL;
    mo_fc_problem p;
    char err[1024] = "";
    mo_status s = mo_fc_read(path, &p, err, sizeof err);
    if (s != MO_OK) return pymo_raise(s, err);
    return fc_wrap((PyTypeObject *)cls, &p);
}

/* _fc_world_problem(cls, world): the contact problem of the world's last step */
static PyObject *fc_world_problem(PyObject *m, PyObject *args)
{
    (void)m;
    PyObject *wo, *cls;
    if (!PyArg_ParseTuple(args, "O!O!", &PyType_Type, &cls, &pymo_world_type, &wo)) return NULL;
    world_object *w = (world_object *)wo;
    if (!pymo_live(w)) return NULL;
    mo_fc_problem p;
    mo_status s = mo_world_contact_problem(w->w, &p);
    if (s != MO_OK) return pymo_world_fail(w, s);
    return fc_wrap((PyTypeObject *)cls, &p);
}

static PyObject *array_copy(const double *src, int n)
{
    npy_intp d = n;
    PyArrayObject *a = (PyArrayObject *)PyArray_SimpleNew(1, &d, NPY_DOUBLE);
    if (a && n > 0) memcpy(PyArray_DATA(a), src, (size_t)n * sizeof(double));
    return (PyObject *)a;
}

/* (nc, ndof) */
static PyObject *fc_get_size(fc_object *self, void *c)
{
    (void)c;
    return Py_BuildValue("(ii)", self->p.nc, self->p.ndof);
}
static PyObject *fc_get_q(fc_object *self, void *c)
{
    (void)c;
    return array_copy(self->p.q, self->p.q ? 3 * self->p.nc : 0);
}
static PyObject *fc_get_mu(fc_object *self, void *c)
{
    (void)c;
    return array_copy(self->p.mu, self->p.mu ? self->p.nc : 0);
}
/* W as a dense (3nc, 3nc) array */
static PyObject *fc_get_W(fc_object *self, void *c)
{
    (void)c;
    int n = self->p.W.rows;
    npy_intp d[2] = {n, self->p.W.cols};
    PyArrayObject *a = (PyArrayObject *)PyArray_ZEROS(2, d, NPY_DOUBLE, 0);
    if (!a) return NULL;
    double *o = (double *)PyArray_DATA(a);
    for (int i = 0; i < n && self->p.W.ptr; i++)
        for (int k = self->p.W.ptr[i]; k < self->p.W.ptr[i + 1]; k++)
            o[(size_t)i * (size_t)d[1] + (size_t)self->p.W.col[k]] += self->p.W.val[k];
    return (PyObject *)a;
}

/* a reaction vector r (3nc) from o (None: zeros) into a new array */
static PyArrayObject *reaction_in(fc_object *self, PyObject *o)
{
    int n = 3 * self->p.nc;
    npy_intp d = n;
    if (!o || o == Py_None) return (PyArrayObject *)PyArray_ZEROS(1, &d, NPY_DOUBLE, 0);
    PyArrayObject *a = (PyArrayObject *)PyArray_FROMANY(o, NPY_DOUBLE, 1, 1, NPY_ARRAY_ENSURECOPY | NPY_ARRAY_IN_ARRAY);
    if (a && PyArray_DIM(a, 0) != n) {
        Py_DECREF(a);
        PyErr_Format(PyExc_ValueError, "r: expected %d values (3 per contact)", n);
        return NULL;
    }
    return a;
}

/* error(r): (Siconos error, u = W r + q) */
static PyObject *fc_error(fc_object *self, PyObject *arg)
{
    PyArrayObject *r = reaction_in(self, arg);
    if (!r) return NULL;
    npy_intp d = 3 * self->p.nc;
    PyArrayObject *u = (PyArrayObject *)PyArray_ZEROS(1, &d, NPY_DOUBLE, 0);
    if (!u) {
        Py_DECREF(r);
        return NULL;
    }
    double e = mo_fc_error(&self->p, (const double *)PyArray_DATA(r), (double *)PyArray_DATA(u));
    Py_DECREF(r);
    return Py_BuildValue("(dN)", e, u);
}

/* _solve(assignments, r0=None, auto=False, history=False): (r, u, result dict). assignments: "NAME=VALUE" of
 * the solver settings without the "solver." prefix, over mo_fc_default_settings(); history (mo_fc_solve only):
 * the Siconos error and CCP residual after every iteration as arrays in the result */
static PyObject *fc_solve(fc_object *self, PyObject *args)
{
    PyObject *assign, *r0 = Py_None;
    int autom = 0, hist = 0;
    if (!PyArg_ParseTuple(args, "O|Opp", &assign, &r0, &autom, &hist)) return NULL;
    mo_world_def def = mo_default_world_def();
    def.solver = mo_fc_default_settings();
    char err[1024] = "";
    PyObject *seq = PySequence_Fast(assign, "assignments: expected a list of str");
    if (!seq) return NULL;
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(seq); i++) {
        const char *a = PyUnicode_AsUTF8(PySequence_Fast_GET_ITEM(seq, i));
        const char *eq = a ? strchr(a, '=') : NULL;
        char name[256];
        if (!a || !eq || (size_t)(eq - a) + 8 >= sizeof name) {
            Py_DECREF(seq);
            if (a) pymo_raise(MO_ERR_INVALID_ARGUMENT, "solver setting: expected NAME=VALUE");
            return NULL;
        }
        snprintf(name, sizeof name, "solver.%.*s", (int)(eq - a), a);
        mo_status s = mo_world_def_set(&def, name, eq + 1, err, sizeof err);
        if (s != MO_OK) {
            Py_DECREF(seq);
            return pymo_raise(s, err);
        }
    }
    Py_DECREF(seq);
    PyArrayObject *r = reaction_in(self, r0);
    if (!r) return NULL;
    npy_intp d = 3 * self->p.nc;
    PyArrayObject *u = (PyArrayObject *)PyArray_ZEROS(1, &d, NPY_DOUBLE, 0);
    if (!u) {
        Py_DECREF(r);
        return NULL;
    }
    mo_fc_result res;
    memset(&res, 0, sizeof res);
    mo_status s;
    double *eh = NULL, *ch = NULL;
    size_t nh = hist && !autom && def.solver.max_iterations > 0 ? (size_t)def.solver.max_iterations + 1 : 0;
    if (nh && (!(eh = calloc(nh, sizeof *eh)) || !(ch = calloc(nh, sizeof *ch)))) {
        free(eh);
        Py_DECREF(r);
        Py_DECREF(u);
        return PyErr_NoMemory();
    }
    Py_BEGIN_ALLOW_THREADS /* the problem and arrays are this call's own */
    if (autom) s = mo_fc_solve_auto(&self->p, &def.solver, (double *)PyArray_DATA(r), (double *)PyArray_DATA(u), &res,
                                    err, sizeof err);
    else s = mo_fc_solve(&self->p, &def.solver, (double *)PyArray_DATA(r), (double *)PyArray_DATA(u), &res, eh, ch,
                         err, sizeof err);
    Py_END_ALLOW_THREADS
    PyObject *eha = nh ? array_copy(eh, res.history_count) : (Py_INCREF(Py_None), Py_None);
    PyObject *cha = nh ? array_copy(ch, res.history_count) : (Py_INCREF(Py_None), Py_None);
    free(eh);
    free(ch);
    if (s != MO_OK || !eha || !cha) {
        Py_DECREF(r);
        Py_DECREF(u);
        Py_XDECREF(eha);
        Py_XDECREF(cha);
        return s != MO_OK ? pymo_raise(s, err) : NULL;
    }
    PyObject *stages = PyList_New(res.stage_count);
    for (int i = 0; stages && i < res.stage_count; i++) {
        PyObject *t = PyUnicode_FromString(mo_solver_name(res.stage_kind[i]));
        if (!t) Py_CLEAR(stages);
        else PyList_SET_ITEM(stages, i, t);
    }
    if (!stages) {
        Py_DECREF(r);
        Py_DECREF(u);
        Py_DECREF(eha);
        Py_DECREF(cha);
        return NULL;
    }
    return Py_BuildValue("(NN{sisNsdsdsdsNsNsN})", r, u, "iterations", res.iterations, "converged",
                         PyBool_FromLong(res.converged), "error", res.error, "ccp_residual", res.ccp_residual,
                         "seconds", res.seconds, "stages", stages, "error_history", eha, "ccp_history", cha);
}

/* write(path, dat=False) */
static PyObject *fc_write(fc_object *self, PyObject *args)
{
    const char *path;
    int dat = 0;
    if (!PyArg_ParseTuple(args, "s|p", &path, &dat)) return NULL;
    char err[1024] = "";
    mo_status s = dat ? mo_fc_write_dat(path, &self->p, err, sizeof err) : mo_fc_write(path, &self->p, err, sizeof err);
    if (s != MO_OK) return pymo_raise(s, err);
    Py_RETURN_NONE;
}

static PyMethodDef fc_methods[] = {
    {"error", (PyCFunction)fc_error, METH_O, "error(r): (Siconos error, u = W r + q)"},
    {"_solve", (PyCFunction)fc_solve, METH_VARARGS, NULL},
    {"_write", (PyCFunction)fc_write, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef fc_getset[] = {
    {"size", (getter)fc_get_size, NULL, "(contacts, dofs of the global form or 0)", NULL},
    {"q", (getter)fc_get_q, NULL, "q (3nc,), a copy", NULL},
    {"mu", (getter)fc_get_mu, NULL, "friction coefficients (nc,), a copy", NULL},
    {"W", (getter)fc_get_W, NULL, "W as a dense (3nc, 3nc) array", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject fc_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "moreau._moreau._FcProblem",
    .tp_basicsize = sizeof(fc_object),
    .tp_dealloc = (destructor)fc_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_doc = "an FCLIB frictional contact problem (use moreau.FcProblem)",
    .tp_methods = fc_methods,
    .tp_getset = fc_getset,
    .tp_new = fc_new,
};

PyMethodDef pymo_fclib_functions[] = {
    {"_fc_read", fc_read, METH_VARARGS, NULL},
    {"_fc_world_problem", fc_world_problem, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL},
};

int pymo_fclib_init(PyObject *module)
{
    if (PyType_Ready(&fc_type) < 0) return -1;
    Py_INCREF(&fc_type);
    if (PyModule_AddObject(module, "_FcProblem", (PyObject *)&fc_type) < 0) {
        Py_DECREF(&fc_type);
        return -1;
    }
    return PyModule_AddFunctions(module, pymo_fclib_functions);
}
