/* import_mjcf.h: the MJCF importer's private parts. The parser (import_mjcf.c)
 * turns an MJCF file into the URDF importer's validated description (ur_robot,
 * import_urdf.h) plus what URDF has no word for (actuators, <option>, the
 * geoms of a world under a free root, the <equality> connects and welds of
 * import_mjcf_eq.c); import_mjcf_load.c builds it with the URDF builders and
 * adds those. */
#ifndef MO_IMPORT_MJCF_H
#define MO_IMPORT_MJCF_H

#include "import_urdf.h"

#define MJ_OPTIONS_COOKIE 0x4d4a4346 /* "MJCF": set by mo_default_mjcf_options() */
#define MJ_PI 3.14159265358979323846

/* an <actuator> child mapped onto a joint */
typedef struct mj_actuator {
    char name[UR_NAME];
    int line;
    int kind;                  /* 0 motor, 1 position, 2 velocity */
    int joint;                 /* ur_robot joint index */
    double kp, kv;             /* position: kp (and kv); velocity: kv */
    bool force_limited;        /* forcerange given and forcelimited (or auto) */
    double force_lo, force_hi; /* N m or N */
    double gear;
} mj_actuator;

/* an <equality> connect or weld (mo_mjcf_equality) */
typedef struct mj_equality {
    char name[UR_NAME];
    int line;
    int type;                  /* mo_mjcf_equality_type */
    bool active;               /* false: recorded, not built */
    int link1, link2;          /* ur_robot link indices; -1: the world frame */
    mo_vec3 anchor;            /* connect: in link1's frame; weld: in link2's frame (the world's for -1) */
} mj_equality;

typedef struct mj_desc {
    ur_robot r;                /* links: parse order = model order (parents first) */
    bool free_root;            /* link 0 is a free body (fixed_base = false) */
    mo_vec3 base_position;     /* free_root: its pose in the world */
    mo_quat base_orientation;
    int nworld;                /* free_root: <worldbody> geoms, on a static body of their own */
    ur_geom *world;
    bool has_timestep, has_gravity;
    double timestep;
    mo_vec3 gravity;
    int nact;
    mj_actuator *act;
    int nexcl;                 /* <contact><exclude> pairs (r.excl holds 2 nexcl link indices) */
    mo_vec3 *off;              /* (r.nlinks) each link frame's origin in its MJCF body's frame (the joint's pos) */
    int neq;
    mj_equality *eq;           /* (neq) <equality> connect and weld, in file order */
} mj_desc;

#ifdef MO_HAVE_URDF
#include <libxml/tree.h>

typedef struct mj_class {
    char name[UR_NAME];
    const xmlNode *node;
    int parent; /* -1 for main */
} mj_class;

typedef struct mj_mesh {
    char name[UR_NAME];
    char file[UR_PATH];
    mo_vec3 scale;
    int line;
} mj_mesh;

/* the parser's state (import_mjcf.c) */
typedef struct mj_ctx {
    const char *path;
    char dir[UR_PATH];
    const mo_mjcf_options *opt;
    char *err;
    size_t n;
    mj_desc *d;
    bool degree;
    char eulerseq[4];
    char meshdir[UR_PATH];
    int inertia_from_geom; /* 0 false, 1 auto, 2 true */
    bool autolimits;
    mj_class *cls;
    int ncls;
    mj_mesh *meshes;
    int nmeshes;
    int nlink_cap, ngeom_cap;
} mj_ctx;

/* the parser's readers (import_mjcf.c), shared with import_mjcf_eq.c */
/* "FILE:LINE: " and the sentence into c->err; returns -1 */
int mj_fail(mj_ctx *c, const xmlNode *node, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
bool mj_is_el(const xmlNode *n, const char *name);
const char *mj_nm(const xmlNode *n);
/* attribute name of el, else of the kind template in class cls and its ancestors (cls -1: el's own); xmlFree it */
xmlChar *mj_get_kind(const mj_ctx *c, const xmlNode *el, const char *kind, int cls, const char *name,
                     const xmlNode **from);
/* text attribute into buf: 1 read, 0 absent, -1 error */
int mj_text(mj_ctx *c, const xmlNode *el, int cls, const char *name, char *buf, size_t size, const char *who);
/* between min and max numbers: the count read, 0 absent, -1 error */
int mj_nums(mj_ctx *c, const xmlNode *el, int cls, const char *name, double *out, int min, int max,
            const char *who);
int mj_num(mj_ctx *c, const xmlNode *el, int cls, const char *name, double dflt, double *v, const char *who);
/* a keyword among words (NULL-terminated): its index, dflt when absent, -1 error */
int mj_keyword(mj_ctx *c, const xmlNode *el, int cls, const char *name, const char *const *words, int dflt,
               const char *who);
/* every attribute of el is one of known, else -1 naming it */
int mj_known_attrs(mj_ctx *c, const xmlNode *el, const char *const *known, const char *who);
/* the class of el: class=, else inherited; -2 error */
int mj_class_of(mj_ctx *c, const xmlNode *el, int inherited, const char *who);
int mj_find_link(const ur_robot *r, const char *name);
/* import_mjcf_eq.c: the <equality> section e into c->d->eq (after the bodies); 0 or -1 (-3 out of memory) */
int mj_parse_equality(mj_ctx *c, const xmlNode *e);
#endif

/* import_mjcf_eq.c: the equalities of d as joints of the maximal model m (after its build); on failure err holds
   "FILE:LINE: what" and the joints made are destroyed */
mo_status mj_build_equalities(mo_world *w, const char *path, const mj_desc *d, mo_urdf_model *m, char *err,
                              size_t n);

/* parses and validates path into d (meshes loaded); on failure err holds "FILE:LINE: what" */
mo_status mj_parse(const char *path, const mo_mjcf_options *opt, mj_desc *d, char *err, size_t err_size);
void mj_desc_free(mj_desc *d);

/* mass properties of a solid geom of type t (mo_urdf_geometry_type, size as ur_geom) at density 1:
   volume and inertia about its centre in its own frame (diagonal); 0 volume for planes */
double mj_geom_volume(int t, mo_vec3 size, mo_vec3 *inertia);
/* volume, centre and inertia about it (density 1) of a closed triangle mesh; false when its volume is not > 0 */
bool mj_mesh_mass(const mo_mesh_data *m, double *volume, mo_vec3 *com, mo_mat3 *inertia);

/* small frame math */
mo_quat mj_axis_angle(mo_vec3 unit_axis, double angle);
mo_quat mj_mat_quat(double R[3][3]);   /* the unit quaternion of a rotation matrix (row-major) */
double mj_vlen(mo_vec3 v);
mo_vec3 mj_vscale(mo_vec3 v, double s);
mo_vec3 mj_vcross(mo_vec3 a, mo_vec3 b);
mo_quat mj_z_to(mo_vec3 unit_z);        /* the rotation taking +z onto unit_z */
typedef struct mj_mass_acc { double m; mo_vec3 mc; mo_mat3 I; } mj_mass_acc; /* I about the body origin */
/* adds a solid of mass m, centre p and orientation q (inertia Ic about its centre, its axes) to a */
void mj_acc_add(mj_mass_acc *a, double m, mo_vec3 p, mo_quat q, mo_mat3 Ic);

#endif
