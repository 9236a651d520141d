/* _moreau.h: what the extension's files (_moreau.c: the world, bodies, joints,
 * scenes; _artic.c: articulations and URDF; _fem.c: particles and FEM meshes;
 * _fclib.c: FCLIB problems) share. Private to the extension;
 * every name here starts with pymo_ so that none meets a name of the engine
 * linked into the same module. */
#ifndef PYMO_MOREAU_H
#define PYMO_MOREAU_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
/* one NumPy C-API table for the whole extension: _moreau.c imports it (import_array) */
#define PY_ARRAY_UNIQUE_SYMBOL pymo_numpy_api
#ifndef PYMO_NUMPY_OWNER
#define NO_IMPORT_ARRAY
#endif
#include <numpy/arrayobject.h>

#include <stdbool.h>

#include "moreau/moreau.h"
#include "moreau/scene.h"

/* a world: the Python object behind moreau.World */
typedef struct {
    PyObject_HEAD
    mo_world *w;       /* owned, unless sf is set (then the scene owns it); NULL once closed */
    mo_scene_file *sf; /* the scene file the world came from, or NULL */
} world_object;

extern PyTypeObject pymo_world_type;
extern PyObject *pymo_error_type; /* moreau.Error */

/* raises moreau.Error(sentence) with .status (the mo_status name) and .code; returns NULL */
PyObject *pymo_raise(mo_status s, const char *sentence);
/* pymo_raise with the world's last error sentence */
PyObject *pymo_world_fail(world_object *self, mo_status s);
/* 1 when the world is open, else 0 with RuntimeError set */
int pymo_live(world_object *self);
#define LIVE(self)                                                                                                   \
    do {                                                                                                             \
        if (!pymo_live(self)) return NULL;                                                                           \
    } while (0)

/* n numbers of a sequence; 0, or -1 with an exception (what names the value) */
int pymo_doubles(PyObject *o, double *out, Py_ssize_t n, const char *what);
int pymo_vec3(PyObject *o, mo_vec3 *v, const char *what);
int pymo_quat(PyObject *o, mo_quat *q, const char *what);
PyObject *pymo_vec3_out(mo_vec3 v);
PyObject *pymo_quat_out(mo_quat q);
/* optional dict entries: 0 when absent (out unchanged) or read, -1 on a conversion error */
int pymo_dict_double(PyObject *d, const char *key, double *out);
int pymo_dict_vec3(PyObject *d, const char *key, mo_vec3 *out);
int pymo_dict_quat(PyObject *d, const char *key, mo_quat *out);
int pymo_dict_bool(PyObject *d, const char *key, bool *out);
int pymo_dict_int(PyObject *d, const char *key, int *out);

/* ids cross as one integer: generation << 32 | index */
unsigned long long pymo_key(uint32_t index, uint32_t generation);
#define KEY(id) pymo_key((id).index, (id).generation)
#define ID_FROM(T, k) ((T){(uint32_t)((k) & 0xffffffffu), (uint32_t)((k) >> 32)})

/* the articulation and URDF functions (_artic.c), added to the module */
extern PyMethodDef pymo_artic_functions[];
/* the particle and FEM functions (_fem.c), added to the module */
extern PyMethodDef pymo_fem_functions[];
/* the FCLIB type and functions (_fclib.c): adds them to the module; 0, or -1 with an exception */
int pymo_fclib_init(PyObject *module);
/* the batch type (_batch.c): adds it to the module; 0, or -1 with an exception */
int pymo_batch_init(PyObject *module);
/* a list of str into a C array of borrowed UTF-8 pointers, valid while *keep lives (free the array, release
 * keep); None gives 0 entries; 0, or -1 with an exception */
int pymo_str_list(PyObject *list, const char ***out, int *n, PyObject **keep);

#endif
