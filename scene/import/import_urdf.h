/* import_urdf.h: the URDF importer's private parts, shared by the parser
 * (import_urdf.c: XML -> validated robot description) and the builder
 * (import_urdf_build.c: description -> bodies, shapes, joints). */
#ifndef MO_IMPORT_URDF_H
#define MO_IMPORT_URDF_H

#include <math.h>
#include <stdio.h>

#include "moreau/import.h"

#define UR_OPTIONS_COOKIE 0x55524446 /* "URDF": set by mo_default_urdf_options() */

/* ---- small pose math (quaternions w, x, y, z) ---- */

static inline mo_vec3 ur_v(double x, double y, double z) { return (mo_vec3){x, y, z}; }
static inline mo_vec3 ur_add(mo_vec3 a, mo_vec3 b) { return ur_v(a.x + b.x, a.y + b.y, a.z + b.z); }
static inline mo_vec3 ur_sub(mo_vec3 a, mo_vec3 b) { return ur_v(a.x - b.x, a.y - b.y, a.z - b.z); }
static inline mo_quat ur_qmul(mo_quat a, mo_quat b)
{
    return (mo_quat){a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z, a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
                     a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x, a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w};
}
/* rotation matrix of a unit quaternion, row-major */
static inline void ur_qmat(mo_quat q, double R[3][3])
{
    double w = q.w, x = q.x, y = q.y, z = q.z;
    R[0][0] = 1 - 2 * (y * y + z * z); R[0][1] = 2 * (x * y - w * z); R[0][2] = 2 * (x * z + w * y);
    R[1][0] = 2 * (x * y + w * z); R[1][1] = 1 - 2 * (x * x + z * z); R[1][2] = 2 * (y * z - w * x);
    R[2][0] = 2 * (x * z - w * y); R[2][1] = 2 * (y * z + w * x); R[2][2] = 1 - 2 * (x * x + y * y);
}
static inline mo_vec3 ur_rot(mo_quat q, mo_vec3 v)
{
    double R[3][3];
    ur_qmat(q, R);
    return ur_v(R[0][0] * v.x + R[0][1] * v.y + R[0][2] * v.z, R[1][0] * v.x + R[1][1] * v.y + R[1][2] * v.z,
                R[2][0] * v.x + R[2][1] * v.y + R[2][2] * v.z);
}
static inline mo_quat ur_qnorm(mo_quat q)
{
    double n = sqrt(q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z);
    return (mo_quat){q.w / n, q.x / n, q.y / n, q.z / n};
}
/* URDF rpy: fixed-axis roll about x, then pitch about y, then yaw about z: R = Rz Ry Rx */
static inline mo_quat ur_rpy(double r, double p, double y)
{
    mo_quat qx = {cos(r / 2), sin(r / 2), 0, 0}, qy = {cos(p / 2), 0, sin(p / 2), 0},
            qz = {cos(y / 2), 0, 0, sin(y / 2)};
    return ur_qmul(qz, ur_qmul(qy, qx));
}

/* ---- the validated description ---- */

#define UR_NAME 64
#define UR_PATH 512

typedef struct ur_geom {
    int link;                  /* parse-order link index */
    int line;
    int type;                  /* mo_urdf_geometry_type */
    mo_vec3 size;
    char mesh_path[UR_PATH];   /* resolved */
    mo_vec3 pos;
    mo_quat q;
    char material[UR_NAME];
    float rgba[4];
    mo_mesh_data mesh;         /* collision meshes: loaded at validation */
    bool flat;                 /* collision mesh without volume: no convex hull */
    bool has_friction;         /* MJCF: friction below, else the options' */
    double friction;
} ur_geom;

typedef struct ur_link {
    char name[UR_NAME];
    int line;
    bool has_mass;             /* <inertial> with mass > 0 */
    double mass;
    mo_vec3 com;               /* in the link frame */
    mo_mat3 inertia;           /* about the com, in the link frame's axes */
    int parent_joint;          /* parse-order joint index, -1 root */
} ur_link;

typedef struct ur_joint {
    char name[UR_NAME];
    int line;
    int type;                  /* mo_urdf_joint_type */
    int parent, child;         /* parse-order link indices */
    mo_vec3 pos;               /* origin in the parent link frame */
    mo_quat q;
    mo_vec3 axis;              /* unit, joint frame */
    bool has_limits;
    double lower, upper, effort, velocity, damping, friction;
    char mimic_name[UR_NAME];  /* <mimic joint>, "" when none */
    int mimic, mimic_line;     /* parse-order index of that joint (-1 none), the <mimic> line */
    double mimic_multiplier, mimic_offset;
    double armature;           /* MJCF: rotor inertia (articulation only), 0 for URDF */
} ur_joint;

typedef struct ur_robot {
    char name[UR_NAME];
    int nlinks, njoints, nvisuals, ncollisions;
    ur_link *links;
    ur_joint *joints;
    ur_geom *visuals, *collisions;
    int *order;                /* (nlinks) parse-order link index of each model link, root first, parents first */
    int *excl;                 /* (2 opt->nexclude_pairs) parse-order link indices of the excluded pairs */
    mo_urdf_warning *warnings; /* (nwarnings of warning_cap), malloc'ed */
    int nwarnings, warning_cap;
} ur_robot;

/* appends a warning "PATH:LINE: text" (PATH: text when line is 0); -1 when out of memory */
int ur_warn(ur_robot *r, const char *path, int line, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

void ur_robot_free(ur_robot *r);
/* four affinely independent points among the n points v (n x 3): their hull has volume */
bool ur_has_volume(const double *v, int n);
/* parses and validates path (collision meshes loaded); on failure err holds "FILE:LINE: what" */
mo_status ur_robot_parse(const char *path, const mo_urdf_options *opt, ur_robot *r, char *err, size_t err_size);
/* sets w's last error to msg (NULL msg: nothing) */
void ur_set_world_error(mo_world *w, const char *msg);
/* smallest collision group >= 0x10000 that no live body uses (a robot's group without self_collision); ids: room for
   every live body's id */
uint32_t ur_free_group(const mo_world *w, mo_body_id *ids);
/* the parsed visuals into out (r->nvisuals entries), links renumbered through model_of (import_urdf_build.c) */
void ur_copy_visuals(const ur_robot *r, const int *model_of, mo_urdf_visual *out);
/* scratch for ur_link_collisions: room for r's largest collision mesh and the hull simplification */
typedef struct ur_shape_work {
    mo_vec3 *pts;
    unsigned char *keep;
    double *hwork;
    int *hsup;
} ur_shape_work;
/* 0, or -1 out of memory (free it all the same); ur_shape_work_free frees and zeroes it */
int ur_shape_work_init(ur_shape_work *sw, const ur_robot *r);
void ur_shape_work_free(ur_shape_work *sw);
/* Parse-order link li's <collision> geometries as shapes on body (whose origin is com in the link frame), as
 * model link k's: m->collisions[*nc] on, *nc counting the shapes made. Collision meshes become triangle meshes
 * under MO_URDF_MESH_TRIANGLES, and under MO_URDF_MESH_AUTO when is_static, else convex hulls of at most
 * opt->max_hull_vertices points (import_urdf_build.c). On a refusal the engine's status, *line the geometry's. */
mo_status ur_link_collisions(mo_world *w, const ur_robot *r, int li, int k, mo_body_id body, mo_vec3 com,
                             bool is_static, const mo_urdf_options *opt, ur_shape_work *sw, mo_urdf_model *m,
                             int *nc, int *line);
/* creates the robot in w (all or nothing) and fills out; adds its warnings to r's and copies them all to out */
mo_status ur_robot_build(mo_world *w, const char *path, ur_robot *r, const mo_urdf_options *opt,
                         mo_urdf_model *out, char *err, size_t err_size);
/* the same robot as one articulation (opt->articulation; import_urdf_artic.c) */
mo_status ur_robot_build_articulation(mo_world *w, const char *path, ur_robot *r, const mo_urdf_options *opt,
                                      mo_urdf_model *out, char *err, size_t err_size);

#ifdef MO_HAVE_URDF
#include <libxml/parser.h>
#include <libxml/tree.h>
/* import_urdf.c: the file at path parsed by libxml2 with bounded cost (the URDF and MJCF readers); what names
 * the format in the size sentence ("a URDF"). MO_OK with *px and *doc, else the sentence and both NULL */
mo_status mo_import_xml_read(const char *path, const char *what, xmlParserCtxtPtr *px, xmlDocPtr *doc, char *err,
                             size_t err_size);
#endif

#endif
