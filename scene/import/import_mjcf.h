/* import_mjcf.h: the MJCF importer's private parts. The parser (import_mjcf.c)
 * turns an MJCF file into the URDF importer's validated description (ur_robot,
 * import_urdf.h) plus what URDF has no word for (actuators, <option>, the
 * geoms of a world under a free root); import_mjcf_load.c builds it with the
 * URDF builders and adds those. */
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
} mj_desc;

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
