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
#include "articulation.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- triangle meshes ----------------------------------------------------- */

/* Triangles of a mesh file. Arrays are malloc'ed; free with mo_mesh_free. */
typedef struct mo_mesh_data {
    int nvertices, ntriangles; /* entries of vertices (>= 3) and triangles (>= 1) */
    double *vertices;  /* (nvertices x 3) x, y, z in m, after scale */
    int *triangles;    /* (ntriangles x 3) 0-based vertex indices, as wound in the file (turned back under a
                          mirroring scale, so that the orientation is kept) */
} mo_mesh_data;

/* Loads every mesh of a file (OBJ, STL ASCII and binary, Collada .dae, glTF
 * .gltf/.glb and whatever else Assimp reads), each with its node transforms
 * applied (Collada's <unit> included; no up-axis conversion: coordinates are
 * taken as written), triangulated, points and lines dropped, exactly equal
 * vertices joined, then each coordinate multiplied by scale (component-wise,
 * each non-zero and finite), degenerate triangles and unused vertices dropped.
 * path and out must not be NULL; err may be NULL (then err_size is ignored).
 * On failure *out is zeroed and err holds "PATH: reason": MO_ERR_INVALID_ARGUMENT
 * for NULL path or out or a bad scale; MO_ERR_IO for a file that cannot be read,
 * has no triangles or a non-finite vertex; MO_ERR_UNSUPPORTED without Assimp;
 * MO_ERR_OUT_OF_MEMORY. On success the caller frees *out with mo_mesh_free.
 *
 * Bounded cost (Assimp has no memory cap of its own): before Assimp sees the
 * file, a file over MO_MESH_MAX_FILE_BYTES is refused (MO_ERR_IO), a zip
 * archive (.zae, .3mf) is refused (MO_ERR_UNSUPPORTED), and a Collada file is
 * scanned: an index list (<p>, <vcount>, <v>, <h>, <int_array>) holding
 * anything but integers, an array whose count exceeds the values it holds, a
 * count above one per two bytes of the file, an offset above
 * MO_MESH_MAX_INPUT_OFFSET or a stride above MO_MESH_MAX_STRIDE is refused
 * with "PATH:LINE: cannot read: <element> ..." (MO_ERR_IO); so is a PLY element
 * count above the bytes after the header, a binary glTF whose header or chunk
 * lengths exceed the file, and glTF JSON whose byteLength/byteOffset/byteStride
 * exceed MO_MESH_MAX_FILE_BYTES or whose "count" exceeds the largest
 * byteLength declared. These are compile-
 * time limits: a larger mesh must be split, or the constants raised in a build.
 * Other formats are bounded by the file size and Assimp's own checks only. */
#define MO_MESH_MAX_FILE_BYTES ((size_t)256 << 20)
#define MO_MESH_MAX_INPUT_OFFSET 64
#define MO_MESH_MAX_STRIDE 4096
MO_API mo_status mo_mesh_load(const char *path, mo_vec3 scale, mo_mesh_data *out, char *err, size_t err_size);
/* Frees the arrays and zeroes *m. NULL and zeroed meshes are allowed. */
MO_API void mo_mesh_free(mo_mesh_data *m);

/* ---- URDF ---------------------------------------------------------------- */

/* which engine shape a URDF collision mesh becomes (mo_urdf_options.collision_meshes) */
typedef enum mo_urdf_mesh_mode {
    MO_URDF_MESH_AUTO = 0,  /* convex hull; triangle mesh on static links */
    MO_URDF_MESH_HULL,      /* always the convex hull of the mesh's vertices */
    MO_URDF_MESH_TRIANGLES, /* always the triangle mesh */
} mo_urdf_mesh_mode;

/* How mo_urdf_load builds a robot. Start from mo_default_urdf_options();
 * mo_urdf_load refuses values out of the ranges below. */
typedef struct mo_urdf_options {
    const char *const *search_paths; /* folders for package://NAME/... (tried as DIR/NAME/... and
                                        DIR/...) and relative mesh paths (after the URDF's folder); may be NULL */
    int nsearch_paths;               /* entries of search_paths (search_paths may be NULL only when it is 0) */
    bool fixed_base;                 /* root link static (welded to the world); default true */
    mo_vec3 base_position;           /* world pose of the root link's frame; default origin */
    mo_quat base_orientation;        /* default identity */
    mo_urdf_mesh_mode collision_meshes; /* default MO_URDF_MESH_AUTO */
    bool self_collision;             /* default false: links of one robot do not collide with each
                                        other (one collision group); jointed links never collide */
    uint32_t collision_group;        /* group used when !self_collision (the bodies' in the maximal form, the
                                        articulation's, mo_articulation_set_collision_group, otherwise);
                                        0 (default) = the smallest value >= 0x10000 that no live body of the
                                        world uses */
    double drive_stiffness;          /* >= 0, finite; > 0: every revolute and prismatic joint gets a PD position
                                        drive toward 0 with this stiffness (N m/rad or N/m), retarget
                                        it with mo_joint_set_motor; default 0 (no drive) */
    double drive_damping;            /* PD damping added to the URDF damping, N m s/rad or N s/m, >= 0; default 0 */
    double massless_link_mass;       /* mass (kg > 0) given to moving links with no <inertial> or mass 0,
                                        with the inertia of a solid sphere of radius 0.05 m; default 0.01 */
    double friction;                 /* Coulomb mu of every collision shape, >= 0; default 0.5 */
    /* collisions among the robot's links when self_collision is set (without it none collide) */
    bool exclude_adjacent;           /* default true: links joined by a URDF joint (any type, floating too)
                                        never collide (a pair exclusion, mo_world_set_pair_collision);
                                        false: they may (their joints get collide_connected) */
    const char *const *exclude_pairs; /* link names, two per pair (2 nexclude_pairs entries), as SRDF's
                                        <disable_collisions>: those pairs never collide; may be NULL when
                                        nexclude_pairs is 0; every name must be a link of the file */
    int nexclude_pairs;              /* pairs in exclude_pairs, >= 0 */
    /* joint dynamics */
    bool ignore_damping;             /* default false: <dynamics damping> is a viscous drive (below); true:
                                        the file's damping is ignored (drive_damping still applies) */
    bool ignore_friction;            /* default false: <dynamics friction> F (N m or N) on a revolute,
                                        continuous or prismatic joint is a velocity motor toward 0 with
                                        |force| <= F (dry friction: holds below F, slips above); true: ignored */
    int max_hull_vertices;           /* 0 (unlimited) or >= 8: a collision mesh made a convex hull keeps at most
                                        this many of its vertices, the supports along evenly spread directions
                                        (the hull shrinks inside the full one, keeping its bounding box);
                                        default 44: at most 3 * 44 - 6 = 126 edges, within the 128 up to which
                                        the narrowphase prunes edge pairs on the Gauss map (docs/import.md:
                                        one hull pair's query, 602 vertices: 15 s; 64: 23 ms; 44: 0.07 ms) */
    bool lock_zero_limits;           /* default false: a revolute joint whose limits read lower = upper = 0
                                        (what ROS's parser gives when both are left out) gets no limits and a
                                        warning; true: locked at 0 as written */
    /* when set, a mesh path candidate is looked at (even for existence) only if allow_file
     * returns true for it: untrusted callers (scene files) confine what a URDF may make the
     * loader open; a mesh whose every candidate is refused fails with "outside the folders
     * this load may read". Default NULL: any path. */
    bool (*allow_file)(void *user, const char *path);
    /* default true: ONE reduced-coordinate articulation (articulation.h; mo_urdf_model.articulation),
     * model link k = articulation link k. false ("maximal"): a body per link and an engine joint per
     * URDF joint, as mo_urdf_load describes; what a scene that drives bodies and joints asks for.
     * The articulation: <collision> geometry as shapes on the link bodies (mo_articulation_link_body;
     * collision_meshes, friction,
     * max_hull_vertices, self_collision, collision_group and exclude_pairs apply: without self_collision
     * the articulation is in the robot's collision group, mo_articulation_set_collision_group, and no pair
     * is excluded), <limit lower upper> as limit rows (mo_articulation_set_limits,
     * lock_zero_limits as above), <dynamics friction> as a dry friction row
     * (mo_articulation_set_joint_friction; ignore_friction drops it), <dynamics damping> as joint damping
     * (ignore_damping drops it); every contact solver takes the rows (Newton included). A
     * floating joint that is the only joint of a root link without mass, <collision> or <visual> (a
     * "world" link) makes its child the free root (MO_LINK_FREE whatever fixed_base says) at the base pose
     * composed with the joint's <origin>; that link and that joint are left out of the model. Any other
     * floating joint is refused (MO_ERR_INVALID_ARGUMENT, "FILE:LINE: joint 'NAME': a floating joint ...").
     * docs/import.md, "As an articulation". */
    bool articulation;
    void *allow_user;                /* passed to allow_file as user; may be NULL */
    int internal_value;              /* set by mo_default_urdf_options(); do not touch */
} mo_urdf_options;

/* The default options (listed above); the only valid start for mo_urdf_options
 * (mo_urdf_load refuses options it did not initialise). */
MO_API mo_urdf_options mo_default_urdf_options(void);

/* something a load read another way than written, or left out (mo_urdf_model.warnings) */
typedef struct mo_urdf_warning {
    int line;                 /* line in the URDF file, 0 when it is not about one line */
    char text[384];           /* "FILE:LINE: what: what was done instead" */
} mo_urdf_warning;

/* a URDF joint's type (mo_urdf_joint.type); planar joints are refused by mo_urdf_load */
typedef enum mo_urdf_joint_type {
    MO_URDF_JOINT_REVOLUTE = 0, /* revolute with limits: MO_JOINT_REVOLUTE */
    MO_URDF_JOINT_CONTINUOUS,   /* revolute without limits */
    MO_URDF_JOINT_PRISMATIC,    /* MO_JOINT_PRISMATIC, limits enforced */
    MO_URDF_JOINT_FIXED,        /* MO_JOINT_FIXED */
    MO_URDF_JOINT_FLOATING,     /* no constraint: joint is the null id */
    MO_URDF_JOINT_BALL,         /* MJCF only (<joint type="ball">): three rotations about the joint's origin;
                                   MO_JOINT_SPHERICAL (maximal), MO_LINK_SPHERICAL (articulation). Its
                                   mo_urdf_joint has axis (1, 0, 0) (unused), lower 0, upper the cone limit
                                   (range's second value in rad; mo_articulation_set_cone_limit, articulation
                                   form only) with has_limits true when the joint is limited, else upper 0 and
                                   has_limits false; effort, velocity and friction 0, motor MO_MOTOR_OFF,
                                   damping as written (the articulation link's, per dof) */
} mo_urdf_joint_type;

/* a URDF <geometry>'s kind (mo_urdf_visual.type, mo_urdf_collision.type) */
typedef enum mo_urdf_geometry_type {
    MO_URDF_GEOM_BOX = 0,    /* size = full lengths x, y, z */
    MO_URDF_GEOM_CYLINDER,   /* size.x = radius, size.z = length (along z) */
    MO_URDF_GEOM_SPHERE,     /* size.x = radius */
    MO_URDF_GEOM_MESH,       /* mesh_path (resolved, readable), size = scale */
    MO_URDF_GEOM_CAPSULE,    /* MJCF only: size.x = radius, size.z = length of the segment (along z) */
    MO_URDF_GEOM_PLANE,      /* MJCF only: the half-space z <= 0 of its frame (static links only) */
} mo_urdf_geometry_type;

/* one URDF <link> as built */
typedef struct mo_urdf_link {
    char name[64];            /* the link's name in the file */
    mo_body_id body;          /* the link's body (static for a fixed base root and links welded to it); with
                                 options.articulation the link's link body holding its collision shapes
                                 (mo_articulation_link_body; null for a link without <collision>): the link
                                 itself is the articulation's link of this index */
    int parent_joint;         /* index into joints; -1 for the root */
    double mass;              /* kg as simulated (0 for static links) */
    mo_vec3 com;              /* centre of mass in the link frame, m */
    mo_vec3 frame_position;   /* the link frame's pose in its body's frame: the body frame is at the */
    mo_quat frame_orientation;/* centre of mass with the link frame's axes, so this is (-com, identity);
                                 (0, identity) for an articulation's link */
    int first_collision, ncollisions; /* range in the model's collisions */
} mo_urdf_link;

/* one URDF <joint> as built */
typedef struct mo_urdf_joint {
    char name[64];            /* the joint's name in the file */
    int type;                 /* mo_urdf_joint_type */
    mo_joint_id joint;        /* null for floating joints and for fixed joints between two static links;
                                 null with options.articulation: the joint is articulation link child_link's */
    int parent_link, child_link; /* indices into the model's links */
    mo_vec3 axis;             /* unit, in the child link frame (= joint frame) */
    double lower, upper, effort, velocity, damping; /* URDF <limit> and <dynamics damping>: rad or m, N m or N,
                                                        rad/s or m/s (recorded only), N m s/rad or N s/m */
    double friction;          /* <dynamics friction>, N m or N (as written) */
    bool has_limits;          /* revolute and prismatic: lower/upper enforced (an articulation's: its limit rows,
                                 mo_articulation_limits); false for continuous joints and a [0, 0] revolute
                                 joint read as no limits (lock_zero_limits) */
    mo_motor_mode motor;      /* the motor the load gave the joint: MO_MOTOR_POSITION for a drive or damping,
                                 MO_MOTOR_VELOCITY (target 0, max_force = friction) for friction alone, else OFF;
                                 an articulation's: MO_MOTOR_POSITION with a drive (drive_stiffness or
                                 drive_damping), else OFF (its friction is a row, its damping the joint's) */
    int mimic;                /* <mimic>: index of the joint this one follows (q = multiplier q_mimic + offset),
                                 -1 when none; recorded only (a warning says so): not enforced */
    double mimic_multiplier, mimic_offset; /* <mimic> multiplier (default 1) and offset (rad or m, default 0) */
    mo_vec3 origin_position;  /* joint frame in the parent link frame (URDF <origin>), m */
    mo_quat origin_orientation; /* its orientation, unit */
} mo_urdf_joint;

/* Visual geometry: recorded for viewers, not simulated. */
typedef struct mo_urdf_visual {
    int link;                 /* index into links */
    int type;                 /* mo_urdf_geometry_type */
    mo_vec3 size;             /* see mo_urdf_geometry_type */
    char mesh_path[512];      /* MO_URDF_GEOM_MESH: path that was found; "" otherwise */
    mo_vec3 position;         /* pose in the link frame (URDF <origin>), m */
    mo_quat orientation;      /* unit */
    char material[64];        /* material name, "" when none */
    float rgba[4];            /* material colour; default 0.7 0.7 0.7 1 */
} mo_urdf_visual;

/* Collision geometry as created. */
typedef struct mo_urdf_collision {
    int link;                 /* index into links */
    int type;                 /* mo_urdf_geometry_type */
    mo_vec3 size;             /* see mo_urdf_geometry_type */
    char mesh_path[512];      /* MO_URDF_GEOM_MESH: path that was loaded; "" otherwise */
    mo_vec3 position;         /* pose in the link frame, m */
    mo_quat orientation;      /* unit */
    mo_shape_id shape;        /* the engine shape */
    mo_shape_type shape_type; /* MO_SHAPE_BOX, CYLINDER, SPHERE, CONVEX_HULL or MESH */
    int hull_points;          /* MO_SHAPE_CONVEX_HULL: mesh vertices given to the hull (after
                                 max_hull_vertices; the hull keeps those that are its vertices); 0 otherwise */
} mo_urdf_collision;

/* an MJCF <equality> element's kind (mo_mjcf_equality.type) */
typedef enum mo_mjcf_equality_type {
    MO_MJCF_EQUALITY_CONNECT = 0, /* <connect>: a ball joint (MO_JOINT_SPHERICAL) at anchor */
    MO_MJCF_EQUALITY_WELD,        /* <weld>: MO_JOINT_FIXED holding the bodies' relative pose at load */
} mo_mjcf_equality_type;

/* one MJCF <connect> or <weld> as built (mo_urdf_model.equalities); only the maximal form builds them */
typedef struct mo_mjcf_equality {
    char name[64];            /* the element's name; "equality<N>" (N its index here) when it has none */
    int type;                 /* mo_mjcf_equality_type */
    int line;                 /* its line in the file */
    int link1, link2;         /* indices into the model's links (body1, body2); -1: the world frame (body2 left
                                 out, or "world" under a free root) */
    mo_vec3 anchor;           /* connect: the anchor in link1's frame (the world's for -1); weld: the weld point
                                 in link2's frame (the world's for -1), m */
    bool active;              /* the file's active; false: not built (joint null) */
    mo_joint_id joint;        /* the engine joint, null when not active */
} mo_mjcf_equality;

/* A loaded robot (mo_urdf_load): its arrays are malloc'ed, freed by
 * mo_urdf_model_free; the bodies and joints it names belong to the world. */
typedef struct mo_urdf_model {
    char name[64];            /* the <robot> name */
    int nlinks, njoints;      /* entries of links and joints */
    mo_urdf_link *links;      /* (nlinks), links[0] is the root; parents before children */
    mo_urdf_joint *joints;    /* (njoints), in file order */
    int nvisuals, ncollisions; /* entries of visuals and collisions */
    mo_urdf_visual *visuals;  /* (nvisuals), in file order */
    mo_urdf_collision *collisions; /* (ncollisions), grouped by link (mo_urdf_link.first_collision) */
    uint32_t collision_group; /* group of all its bodies, an articulation's its link bodies' (0 with
                                 self_collision) */
    int nwarnings;            /* entries of warnings */
    mo_urdf_warning *warnings; /* (nwarnings), in file order then build order; NULL when none */
    mo_articulation_id articulation; /* options.articulation: the robot (joints[].joint are then null,
                                        links[].body the link bodies, collisions the shapes on them);
                                        else the null id */
    mo_body_id world_body;    /* mo_mjcf_load with a free-floating root: the static body holding the
                                 <worldbody> geoms (null when there are none, and for URDF) */
    int nequalities;          /* entries of equalities (0 for URDF) */
    mo_mjcf_equality *equalities; /* (nequalities) mo_mjcf_load: <equality> connect and weld in file order;
                                     NULL when none */
} mo_urdf_model;

/* Loads a URDF file into w. By default (options.articulation) as one
 * reduced-coordinate articulation, described at that option and in
 * docs/import.md ("As an articulation"). With options.articulation = false
 * (maximal): one body per link (at the zero configuration, the
 * root link's frame at the base pose), one engine joint per URDF joint (fixed ->
 * MO_JOINT_FIXED, revolute/continuous -> MO_JOINT_REVOLUTE, prismatic ->
 * MO_JOINT_PRISMATIC; joint positions read 0 at the zero configuration and
 * increase as URDF's), collision shapes (collision meshes: convex hull by
 * default, of at most max_hull_vertices of the mesh's vertices; triangle mesh
 * for static links or when options ask for it).
 * <dynamics damping> becomes a PD drive with stiffness 0 (viscous damping,
 * torque bounded by effort when > 0), <dynamics friction> a bounded velocity
 * motor (see the options; a joint has one motor: with a drive or damping the
 * friction is left out, with a warning); limits are enforced (lower = upper = 0
 * on a revolute joint: none, with a warning, unless lock_zero_limits), velocity
 * limits are recorded only; <mimic> is checked and recorded (mo_urdf_joint.mimic)
 * but not enforced, with a warning; <transmission> and <gazebo> are ignored;
 * planar joints are refused. A visual mesh that cannot be found is left out
 * with a warning (a missing collision mesh is an error naming the file, line and
 * link). Warnings are in out->warnings (the load succeeds).
 * Everything is validated (and every mesh loaded) before anything is
 * created; on failure no body of the file is left in the world, *out is zeroed
 * and err holds "FILE:LINE: what" (also set as the world's last error). opt may
 * be NULL (defaults); err may be NULL; w, path and out must not be NULL
 * (refused). MO_ERR_INVALID_ARGUMENT for NULL arguments, options out of range
 * and invalid content; MO_ERR_IO for files (the URDF, its meshes) that cannot be
 * read or are not XML; MO_ERR_UNSUPPORTED without libxml2, or for a collision
 * mesh without Assimp; MO_ERR_OUT_OF_MEMORY. Free *out with mo_urdf_model_free
 * (the bodies stay in the world). */
/* Bounded cost: a URDF file over MO_URDF_MAX_FILE_BYTES is refused (MO_ERR_IO,
 * "PATH: cannot read: the file has N bytes, more than the 64 MiB a URDF file may
 * have"; a compile-time limit); libxml2 parses without XML_PARSE_HUGE (its caps on
 * text nodes, names and depth apply), refuses entity amplification ("billion
 * laughs": "Detected an entity reference loop"), and neither loads nor expands
 * external entities; meshes go through mo_mesh_load and its limits. */
#define MO_URDF_MAX_FILE_BYTES ((size_t)64 << 20)
MO_API mo_status mo_urdf_load(mo_world *w, const char *path, const mo_urdf_options *opt, mo_urdf_model *out,
                              char *err, size_t err_size);
/* Frees the model's arrays and zeroes it; NULL allowed. Does not touch the world. */
MO_API void mo_urdf_model_free(mo_urdf_model *m);
/* index of the link of that name, or -1 (also when m or name is NULL) */
MO_API int mo_urdf_find_link(const mo_urdf_model *m, const char *name);
/* index of the joint of that name, or -1 (also when m or name is NULL) */
MO_API int mo_urdf_find_joint(const mo_urdf_model *m, const char *name);
/* Current world pose of a link's frame (its body's pose composed with
 * frame_position/orientation; an articulation's: mo_articulation_link_pose of
 * that link): position (m) and unit orientation. w must not be
 * NULL; MO_ERR_INVALID_ARGUMENT (no sentence) when m, position or orientation is
 * NULL or link is out of range; MO_ERR_STALE_ID when the link's body was destroyed. */
MO_API mo_status mo_urdf_link_pose(const mo_world *w, const mo_urdf_model *m, int link, mo_vec3 *position,
                                   mo_quat *orientation);

/* ---- MJCF (MuJoCo's XML) --------------------------------------------------- */

/* How mo_mjcf_load builds a model. Start from mo_default_mjcf_options(). */
typedef struct mo_mjcf_options {
    const char *const *search_paths; /* folders for relative mesh files (after <compiler meshdir> and the
                                        file's folder); may be NULL when nsearch_paths is 0 */
    int nsearch_paths;
    bool articulation;               /* default true: one articulation (as mo_urdf_options.articulation);
                                        false: bodies and joints ("maximal") */
    mo_urdf_mesh_mode collision_meshes; /* default MO_URDF_MESH_AUTO */
    int max_hull_vertices;           /* as mo_urdf_options; default 44 */
    bool self_collision;             /* default true (MuJoCo's): bodies of the model collide with each other,
                                        except a body with its parent and the <contact><exclude> pairs;
                                        false: no two bodies of the model collide (one collision group, as
                                        mo_urdf_options without self_collision; no pair exclusion) */
    double friction;                 /* mu of geoms without a friction attribute (in the file or its
                                        defaults); default 1 (MuJoCo's) */
    double massless_link_mass;       /* as mo_urdf_options (moving bodies with no mass); default 0.01 */
    bool apply_option;               /* default true: <option timestep gravity> are set on the world after
                                        a successful load; false: left out (the world's own are kept) */
    bool (*allow_file)(void *user, const char *path); /* as mo_urdf_options.allow_file; default NULL */
    void *allow_user;
    int internal_value;              /* set by mo_default_mjcf_options(); do not touch */
} mo_mjcf_options;

/* The default options (above); the only valid start for mo_mjcf_options. */
MO_API mo_mjcf_options mo_default_mjcf_options(void);

/* Loads an MJCF file (MuJoCo's XML) into w as a mo_urdf_model: the same robot
 * description, build, articulation and result as mo_urdf_load (links = MJCF
 * bodies, joints = the joint of each body, equalities = <equality> connect and
 * weld, built as joints in the maximal form only; free with mo_urdf_model_free). The
 * subset read, the mapping and the refusals are in docs/import.md ("MJCF").
 * Links: link 0 is "world" (the <worldbody>, static) unless the <worldbody>
 * holds a single body whose joint is free: that body is then the root, free
 * (its <worldbody> geoms on model.world_body). A link's frame is its body's,
 * moved to the body's joint position (MJCF joints may sit off the body
 * origin; URDF joints may not). Everything is validated before anything is
 * created; on failure the world is unchanged, *out zeroed, err holds
 * "FILE:LINE: what" (also the world's last error). Status as mo_urdf_load.
 * Same bounded cost as mo_urdf_load (MO_URDF_MAX_FILE_BYTES, libxml2's caps). */
MO_API mo_status mo_mjcf_load(mo_world *w, const char *path, const mo_mjcf_options *opt, mo_urdf_model *out,
                              char *err, size_t err_size);

#ifdef __cplusplus
}
#endif
#endif
