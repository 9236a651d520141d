/* import.h: meshes (Assimp) and URDF robots (libxml2) into a Moreau world.
 *
 * Both parts are optional at build time (meson features `meshes` and `urdf`).
 * Without Assimp, mo_mesh_load returns MO_ERR_UNSUPPORTED with a sentence;
 * without libxml2, mo_urdf_load does. Error sentences name the file (and, for
 * URDF, the line): "arm/link2.stl: cannot read: <reason>",
 * "arm.urdf:37: joint 'elbow': limit upper 'abc' is not a number". */
#ifndef MOREAU_IMPORT_H
#define MOREAU_IMPORT_H

#include "moreau.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- triangle meshes ----------------------------------------------------- */

/* Triangles of a mesh file. Arrays are malloc'ed; free with mo_mesh_free. */
typedef struct mo_mesh_data {
    int nvertices, ntriangles;
    double *vertices;  /* (nvertices x 3) x, y, z in m, after scale */
    int *triangles;    /* (ntriangles x 3) vertex indices, as wound in the file */
} mo_mesh_data;

/* Loads every mesh of a file (OBJ, STL ASCII and binary, Collada .dae, glTF
 * .gltf/.glb and whatever else Assimp reads), each with its node transforms
 * applied (Collada's <unit> included; no up-axis conversion: coordinates are
 * taken as written), triangulated, points and lines dropped, exactly equal
 * vertices joined, then each coordinate multiplied by scale (component-wise,
 * each non-zero and finite). path and out must not be NULL; err may be NULL.
 * On failure *out is zeroed and err holds "PATH: reason"; a file with no
 * triangles is refused. */
MO_API mo_status mo_mesh_load(const char *path, mo_vec3 scale, mo_mesh_data *out, char *err, size_t err_size);
/* Frees the arrays and zeroes *m. NULL and zeroed meshes are allowed. */
MO_API void mo_mesh_free(mo_mesh_data *m);

/* ---- URDF ---------------------------------------------------------------- */

typedef enum mo_urdf_mesh_mode {
    MO_URDF_MESH_AUTO = 0,  /* convex hull; triangle mesh on static links */
    MO_URDF_MESH_HULL,      /* always the convex hull of the mesh's vertices */
    MO_URDF_MESH_TRIANGLES, /* always the triangle mesh */
} mo_urdf_mesh_mode;

typedef struct mo_urdf_options {
    const char *const *search_paths; /* folders for package://NAME/... (tried as DIR/NAME/... and
                                        DIR/...) and relative mesh paths (after the URDF's folder); may be NULL */
    int nsearch_paths;
    bool fixed_base;                 /* root link static (welded to the world); default true */
    mo_vec3 base_position;           /* world pose of the root link's frame; default origin */
    mo_quat base_orientation;        /* default identity */
    mo_urdf_mesh_mode collision_meshes; /* default MO_URDF_MESH_AUTO */
    bool self_collision;             /* default false: links of one robot do not collide with each
                                        other (one collision group); jointed links never collide */
    /* added fields */
    uint32_t collision_group;        /* group used when !self_collision; 0 (default) = the smallest
                                        value >= 0x10000 that no live body of the world uses */
    double drive_stiffness;          /* > 0: every revolute and prismatic joint gets a PD position
                                        drive toward 0 with this stiffness (N m/rad or N/m), retarget
                                        it with mo_joint_set_motor; default 0 (no drive) */
    double drive_damping;            /* PD damping added to the URDF damping, N m s/rad or N s/m; default 0 */
    double massless_link_mass;       /* mass (kg > 0) given to moving links with no <inertial> or mass 0,
                                        with the inertia of a solid sphere of radius 0.05 m; default 0.01 */
    double friction;                 /* Coulomb mu of every collision shape; default 0.5 */
    /* when set, a mesh path candidate is looked at (even for existence) only if allow_file
     * returns true for it: untrusted callers (scene files) confine what a URDF may make the
     * loader open; a mesh whose every candidate is refused fails with "outside the folders
     * this load may read". Default NULL: any path. */
    bool (*allow_file)(void *user, const char *path);
    void *allow_user;
    int internal_value;              /* set by mo_default_urdf_options(); do not touch */
} mo_urdf_options;

MO_API mo_urdf_options mo_default_urdf_options(void);

typedef enum mo_urdf_joint_type {
    MO_URDF_JOINT_REVOLUTE = 0,
    MO_URDF_JOINT_CONTINUOUS,   /* revolute without limits */
    MO_URDF_JOINT_PRISMATIC,
    MO_URDF_JOINT_FIXED,
    MO_URDF_JOINT_FLOATING,     /* no constraint: joint is the null id */
} mo_urdf_joint_type;

typedef enum mo_urdf_geometry_type {
    MO_URDF_GEOM_BOX = 0,    /* size = full lengths x, y, z */
    MO_URDF_GEOM_CYLINDER,   /* size.x = radius, size.z = length (along z) */
    MO_URDF_GEOM_SPHERE,     /* size.x = radius */
    MO_URDF_GEOM_MESH,       /* mesh_path (resolved, readable), size = scale */
} mo_urdf_geometry_type;

typedef struct mo_urdf_link {
    char name[64];
    mo_body_id body;          /* the link's body (static for a fixed base root and links welded to it) */
    int parent_joint;         /* index into joints; -1 for the root */
    /* added fields */
    double mass;              /* kg as simulated (0 for static links) */
    mo_vec3 com;              /* centre of mass in the link frame, m */
    mo_vec3 frame_position;   /* the link frame's pose in its body's frame: the body frame is at the */
    mo_quat frame_orientation;/* centre of mass with the link frame's axes, so this is (-com, identity) */
    int first_collision, ncollisions; /* range in the model's collisions */
} mo_urdf_link;

typedef struct mo_urdf_joint {
    char name[64];
    int type;                 /* mo_urdf_joint_type */
    mo_joint_id joint;        /* null for floating joints and for fixed joints between two static links */
    int parent_link, child_link;
    mo_vec3 axis;             /* unit, in the child link frame (= joint frame) */
    double lower, upper, effort, velocity, damping; /* URDF <limit> and <dynamics damping>; rad or m */
    bool has_limits;          /* revolute and prismatic: lower/upper enforced */
    /* added fields */
    mo_vec3 origin_position;  /* joint frame in the parent link frame (URDF <origin>) */
    mo_quat origin_orientation;
} mo_urdf_joint;

/* Visual geometry: recorded for viewers, not simulated. */
typedef struct mo_urdf_visual {
    int link;                 /* index into links */
    int type;                 /* mo_urdf_geometry_type */
    mo_vec3 size;             /* see mo_urdf_geometry_type */
    char mesh_path[512];      /* MO_URDF_GEOM_MESH: path that was found; "" otherwise */
    mo_vec3 position;         /* pose in the link frame (URDF <origin>) */
    mo_quat orientation;
    char material[64];        /* material name, "" when none */
    float rgba[4];            /* material colour; default 0.7 0.7 0.7 1 */
} mo_urdf_visual;

/* Collision geometry as created. */
typedef struct mo_urdf_collision {
    int link;
    int type;                 /* mo_urdf_geometry_type */
    mo_vec3 size;
    char mesh_path[512];
    mo_vec3 position;         /* pose in the link frame */
    mo_quat orientation;
    mo_shape_id shape;        /* the engine shape */
    mo_shape_type shape_type; /* MO_SHAPE_BOX, CYLINDER, SPHERE, CONVEX_HULL or MESH */
} mo_urdf_collision;

typedef struct mo_urdf_model {
    char name[64];
    int nlinks, njoints;
    mo_urdf_link *links;      /* (nlinks), links[0] is the root; parents before children */
    mo_urdf_joint *joints;    /* (njoints), in file order */
    /* added fields */
    int nvisuals, ncollisions;
    mo_urdf_visual *visuals;
    mo_urdf_collision *collisions;
    uint32_t collision_group; /* group of all its bodies (0 with self_collision) */
} mo_urdf_model;

/* Loads a URDF file into w: one body per link (at the zero configuration, the
 * root link's frame at the base pose), one engine joint per URDF joint (fixed ->
 * MO_JOINT_FIXED, revolute/continuous -> MO_JOINT_REVOLUTE, prismatic ->
 * MO_JOINT_PRISMATIC; joint positions read 0 at the zero configuration and
 * increase as URDF's), collision shapes (collision meshes: convex hull by
 * default, triangle mesh for static links or when options ask for it).
 * <dynamics damping> becomes a PD drive with stiffness 0 (viscous damping,
 * torque bounded by effort when > 0); limits are enforced, velocity limits are
 * recorded only; <mimic>, <transmission> and <gazebo> are ignored; planar joints
 * are refused. Everything is validated (and every mesh loaded) before anything is
 * created; on failure the world is unchanged, *out is zeroed and err holds
 * "FILE:LINE: what" (also set as the world's last error). opt may be NULL
 * (defaults); err may be NULL. Free *out with mo_urdf_model_free (the bodies
 * stay in the world). */
MO_API mo_status mo_urdf_load(mo_world *w, const char *path, const mo_urdf_options *opt, mo_urdf_model *out,
                              char *err, size_t err_size);
/* Frees the model's arrays and zeroes it; NULL allowed. Does not touch the world. */
MO_API void mo_urdf_model_free(mo_urdf_model *m);
/* index of the link / joint of that name, or -1 */
MO_API int mo_urdf_find_link(const mo_urdf_model *m, const char *name);
MO_API int mo_urdf_find_joint(const mo_urdf_model *m, const char *name);
/* Current world pose of a link's frame (its body's pose composed with
 * frame_position/orientation). */
MO_API mo_status mo_urdf_link_pose(const mo_world *w, const mo_urdf_model *m, int link, mo_vec3 *position,
                                   mo_quat *orientation);

#ifdef __cplusplus
}
#endif
#endif
