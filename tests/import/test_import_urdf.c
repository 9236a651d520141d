/* test_import_urdf: the URDF importer.
 *   arm        scenes/models/arm/arm.urdf at a base pose: counts, names, masses, the
 *              rotated inertia, limits, axes, shapes, and the world pose of every link
 *              at the zero configuration against values worked out by hand below
 *   options    mesh modes, floating base, package:// through a search path
 *   models     the gripper alone; the humanoid (13 bodies, 12 joints) falling on a plane
 *   malformed  cycle, two parents, missing link, unknown and planar joint types, bad
 *              number, missing mesh, negative mass, non-PD inertia, XML error, missing
 *              file: exact message with file and line, world unchanged (state hash,
 *              and the next body created gets the id it would have got)
 *   pd_hold    the fixed-base arm with PD drives (stiffness 2e4 N m/rad or N/m, damping
 *              400) holding a target configuration under gravity (PGS, 100 iterations):
 *              after 3 s every joint is within 2.5e-3 (rad or m) of its target (the
 *              gravity droop tau/k reaches about 2e-3 at the shoulder), tool0 and the
 *              left finger within 4 mm of the forward kinematics computed here, and
 *              every link slower than 1 mm/s */
#include <stdlib.h>
#include <unistd.h>

#include "moreau/import.h"
#include "testutil.h"

#include "urdf_maximal.h" /* maximal(), maximal_urdf_options() */

#define MODELS MO_SOURCE_ROOT "/scenes/models/"

static mo_world *new_world(void)
{
    mo_world_def wd = mo_default_world_def();
    wd.solver.max_iterations = 100;
    mo_world *w = NULL;
    char err[256];
    if (mo_world_create(&wd, &w, err, sizeof err) != MO_OK) {
        fprintf(stderr, "%s\n", err);
        exit(1);
    }
    return w;
}

static mo_body_id add_ground(mo_world *w)
{
    mo_body_def g = mo_default_body_def();
    g.type = MO_BODY_STATIC;
    g.shape.type = MO_SHAPE_PLANE;
    mo_body_id id;
    CHECK(mo_body_create(w, &g, &id) == MO_OK);
    return id;
}

/* q and p equal up to sign */
static double quat_dist(mo_quat a, mo_quat b)
{
    double d = a.w * b.w + a.x * b.x + a.y * b.y + a.z * b.z;
    return 1.0 - fabs(d);
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f || fputs(text, f) < 0) {
        fprintf(stderr, "cannot write %s\n", path);
        exit(1);
    }
    fclose(f);
}

/* ---- the arm at its zero configuration ---- */

static void test_arm(void)
{
    mo_world *w = new_world();
    mo_urdf_options o = maximal_urdf_options();
    o.base_position = (mo_vec3){0.5, -0.2, 0.3};
    o.base_orientation = (mo_quat){cos(PI / 4), 0, 0, sin(PI / 4)}; /* yaw 90: (x, y, z) -> (-y, x, z) */
    mo_urdf_model m;
    char err[1024];
    mo_status s = mo_urdf_load(w, MODELS "arm/arm.urdf", &o, &m, err, sizeof err);
    CHECK(s == MO_OK);
    if (s != MO_OK) {
        fprintf(stderr, "%s\n", err);
        mo_world_destroy(w);
        return;
    }
    CHECK_STR(m.name, "arm");
    CHECK(m.nlinks == 11);
    CHECK(m.njoints == 10);
    CHECK(m.nvisuals == 10);
    CHECK(m.ncollisions == 10);
    CHECK_STR(m.links[0].name, "base_link");
    CHECK(m.links[0].parent_joint == -1);
    CHECK(m.collision_group >= 0x10000);

    /* link frames at zero, in the base frame: (x, y, z, yaw of the frame relative to the base) */
    static const struct { const char *name; double x, y, z, yaw; } L[] = {
        {"base_link", 0, 0, 0, 0},  {"link1", 0, 0, 0.1, 0},     {"link2", 0, 0, 0.25, 0},
        {"link3", 0, 0, 0.65, 0},   {"link4", 0, 0, 1.0, 0},     {"link5", 0, 0, 1.1, 0},
        {"link6", 0, 0, 1.18, 0},   {"palm", 0, 0, 1.2, PI / 2}, {"finger_left", 0, 0.06, 1.24, PI / 2},
        {"finger_right", 0, -0.06, 1.24, PI / 2}, {"tool0", 0, 0, 1.32, PI / 2},
    };
    for (int i = 0; i < 11; i++) {
        int k = mo_urdf_find_link(&m, L[i].name);
        CHECK(k >= 0);
        if (k < 0) continue;
        mo_vec3 p;
        mo_quat q;
        CHECK(mo_urdf_link_pose(w, &m, k, &p, &q) == MO_OK);
        /* world = base position + Rz(90) local */
        double want[3] = {0.5 - L[i].y, -0.2 + L[i].x, 0.3 + L[i].z}, got[3] = {p.x, p.y, p.z};
        CHECK_VEC(got, want[0], want[1], want[2], 1e-12);
        double yaw = PI / 2 + L[i].yaw;
        CHECK(quat_dist(q, (mo_quat){cos(yaw / 2), 0, 0, sin(yaw / 2)}) < 1e-12);
    }
    CHECK(mo_urdf_find_link(&m, "nope") == -1);
    CHECK(mo_urdf_find_joint(&m, "nope") == -1);

    /* bodies: static base, masses as in the file, tool0 the massless-link mass */
    mo_body_def probe = mo_default_body_def();
    (void)probe;
    static const struct { const char *name; double mass; } M[] = {
        {"link1", 3.0}, {"link2", 4.0}, {"link3", 2.5}, {"link4", 1.0}, {"link5", 0.8}, {"link6", 0.3},
        {"palm", 0.5},  {"finger_left", 0.1}, {"finger_right", 0.1}, {"tool0", 0.01},
    };
    double total = 0;
    for (int i = 0; i < 10; i++) {
        int k = mo_urdf_find_link(&m, M[i].name);
        double mass = 0;
        mo_mat3 I;
        CHECK(mo_body_mass(w, m.links[k].body, &mass, &I) == MO_OK);
        CHECK_NEAR(mass, M[i].mass, 1e-15);
        CHECK_NEAR(m.links[k].mass, M[i].mass, 1e-15);
        total += mass;
    }
    CHECK_NEAR(total, 12.31, 1e-12);
    CHECK(m.links[0].mass == 0.0);
    /* the static base moves nowhere: its velocity cannot be set as a dynamic body's */
    {
        mo_vec3 x0, x1;
        mo_body_position(w, m.links[0].body, &x0);
        mo_world_step(w);
        mo_body_position(w, m.links[0].body, &x1);
        CHECK(x0.x == x1.x && x0.y == x1.y && x0.z == x1.z);
        mo_world_destroy(w);
        w = new_world();
        mo_urdf_model_free(&m);
        CHECK(mo_urdf_load(w, MODELS "arm/arm.urdf", &o, &m, err, sizeof err) == MO_OK);
    }
    /* link3: inertial frame turned 0.5 rad about z, principal (0.03, 0.02, 0.004), com (0.01, 0, 0.175) */
    {
        int k = mo_urdf_find_link(&m, "link3");
        double mass;
        mo_mat3 I;
        mo_body_mass(w, m.links[k].body, &mass, &I);
        double c = cos(0.5), s5 = sin(0.5);
        CHECK_NEAR(I.m[0][0], 0.03 * c * c + 0.02 * s5 * s5, 1e-15);
        CHECK_NEAR(I.m[1][1], 0.03 * s5 * s5 + 0.02 * c * c, 1e-15);
        CHECK_NEAR(I.m[0][1], (0.03 - 0.02) * c * s5, 1e-15);
        CHECK_NEAR(I.m[1][0], (0.03 - 0.02) * c * s5, 1e-15);
        CHECK_NEAR(I.m[2][2], 0.004, 1e-15);
        CHECK_NEAR(I.m[0][2], 0.0, 1e-15);
        CHECK_NEAR(I.m[1][2], 0.0, 1e-15);
        /* body at the centre of mass: link3 frame (0.5, -0.2, 0.95) + Rz(90) (0.01, 0, 0.175) */
        mo_vec3 x;
        mo_body_position(w, m.links[k].body, &x);
        double got[3] = {x.x, x.y, x.z};
        CHECK_VEC(got, 0.5, -0.19, 1.125, 1e-12);
        CHECK_VEC(&m.links[k].com.x, 0.01, 0.0, 0.175, 1e-15);
    }

    /* joints: types, limits, axes, zero positions */
    static const struct { const char *name; int type; double lo, hi, effort, vel, damp; double ax, ay, az; } J[] = {
        {"shoulder_pan", MO_URDF_JOINT_REVOLUTE, -3, 3, 150, 2, 0.5, 0, 0, 1},
        {"shoulder_lift", MO_URDF_JOINT_REVOLUTE, -2, 2, 150, 2, 0.5, 0, 1, 0},
        {"elbow", MO_URDF_JOINT_REVOLUTE, -2.5, 2.5, 100, 2.5, 0.5, 0, 1, 0},
        {"wrist_1", MO_URDF_JOINT_REVOLUTE, -3, 3, 30, 3, 0.1, 0, 0, 1},
        {"wrist_2", MO_URDF_JOINT_REVOLUTE, -2, 2, 30, 3, 0.1, 0, 1, 0},
        {"wrist_3", MO_URDF_JOINT_CONTINUOUS, 0, 0, 10, 4, 0.05, 0, 0, 1},
        {"gripper_mount", MO_URDF_JOINT_FIXED, 0, 0, 0, 0, 0, 1, 0, 0},
        {"finger_left_joint", MO_URDF_JOINT_PRISMATIC, 0, 0.05, 40, 0.1, 1, -1, 0, 0},
        {"finger_right_joint", MO_URDF_JOINT_PRISMATIC, 0, 0.05, 40, 0.1, 1, 1, 0, 0},
        {"tool_frame", MO_URDF_JOINT_FIXED, 0, 0, 0, 0, 0, 1, 0, 0},
    };
    for (int i = 0; i < 10; i++) {
        int k = mo_urdf_find_joint(&m, J[i].name);
        CHECK(k == i); /* file order */
        const mo_urdf_joint *j = &m.joints[k];
        CHECK(j->type == J[i].type);
        CHECK(!mo_joint_id_is_null(j->joint));
        CHECK(j->has_limits == (J[i].type == MO_URDF_JOINT_REVOLUTE || J[i].type == MO_URDF_JOINT_PRISMATIC));
        CHECK(j->lower == J[i].lo && j->upper == J[i].hi && j->effort == J[i].effort && j->velocity == J[i].vel &&
              j->damping == J[i].damp);
        CHECK(j->axis.x == J[i].ax && j->axis.y == J[i].ay && j->axis.z == J[i].az);
        CHECK(m.links[j->child_link].parent_joint == k);
        if (j->type != MO_URDF_JOINT_FIXED) {
            double q = 1;
            CHECK(mo_joint_position(w, j->joint, &q) == MO_OK);
            CHECK_NEAR(q, 0.0, 1e-12);
        }
    }
    CHECK_STR(m.links[m.joints[mo_urdf_find_joint(&m, "elbow")].parent_link].name, "link2");
    CHECK_STR(m.links[m.joints[mo_urdf_find_joint(&m, "elbow")].child_link].name, "link3");

    /* shapes: the static base's mesh as triangles, moving links' meshes as hulls, primitives */
    static const struct { const char *link; mo_shape_type t; } S[] = {
        {"base_link", MO_SHAPE_MESH},   {"link1", MO_SHAPE_CONVEX_HULL}, {"link2", MO_SHAPE_CONVEX_HULL},
        {"link3", MO_SHAPE_CONVEX_HULL}, {"link4", MO_SHAPE_CONVEX_HULL}, {"link5", MO_SHAPE_CONVEX_HULL},
        {"link6", MO_SHAPE_CYLINDER},   {"palm", MO_SHAPE_BOX},          {"finger_left", MO_SHAPE_BOX},
    };
    for (int i = 0; i < 9; i++) {
        const mo_urdf_link *l = &m.links[mo_urdf_find_link(&m, S[i].link)];
        CHECK(l->ncollisions == 1);
        const mo_urdf_collision *c = &m.collisions[l->first_collision];
        CHECK(c->shape_type == S[i].t);
        CHECK(mo_shape_is_valid(w, c->shape));
        mo_body_id b;
        CHECK(mo_shape_body(w, c->shape, &b) == MO_OK && b.index == l->body.index);
    }
    /* the palm's box: 0.16 x 0.06 x 0.04 centred 0.02 above the palm frame, i.e. at its com */
    {
        const mo_urdf_collision *c = &m.collisions[m.links[mo_urdf_find_link(&m, "palm")].first_collision];
        CHECK(c->size.x == 0.16 && c->size.y == 0.06 && c->size.z == 0.04);
        CHECK(c->position.z == 0.02);
    }
    /* visuals: the link1 STL in orange, paths resolved (package://arm through the URDF's folder) */
    int nv1 = 0, nglb = 0;
    for (int i = 0; i < m.nvisuals; i++) {
        const mo_urdf_visual *v = &m.visuals[i];
        if (strcmp(m.links[v->link].name, "link1") == 0) {
            nv1++;
            CHECK(v->type == MO_URDF_GEOM_MESH);
            CHECK_STR(v->material, "orange");
            CHECK(v->rgba[0] == 0.95f && v->rgba[1] == 0.5f && v->rgba[2] == 0.1f && v->rgba[3] == 1.0f);
            CHECK(strstr(v->mesh_path, "arm/meshes/link1.stl") != NULL);
        }
        if (strstr(v->mesh_path, "link5.glb")) nglb++;
    }
    CHECK(nv1 == 1 && nglb == 1);

    /* the URDF links of one robot never touch each other: at zero configuration boxes meet
       at the joints, yet no contact is made */
    mo_world_step(w);
    CHECK(mo_world_contacts(w, NULL, 0) == 0);

    mo_urdf_model_free(&m);
    CHECK(m.links == NULL && m.nlinks == 0);
    mo_urdf_model_free(NULL);
    mo_world_destroy(w);
}

/* ---- options: mesh modes, floating base, search paths ---- */

static void test_options(void)
{
    char err[1024];
    mo_urdf_model m;
    mo_urdf_options o = maximal_urdf_options();
    CHECK(o.fixed_base && !o.self_collision && o.collision_meshes == MO_URDF_MESH_AUTO);
    CHECK(o.base_orientation.w == 1.0 && o.massless_link_mass == 0.01);

    /* triangles everywhere */
    mo_world *w = new_world();
    o.collision_meshes = MO_URDF_MESH_TRIANGLES;
    CHECK(mo_urdf_load(w, MODELS "arm/arm.urdf", &o, &m, err, sizeof err) == MO_OK);
    CHECK(m.collisions[m.links[mo_urdf_find_link(&m, "link2")].first_collision].shape_type == MO_SHAPE_MESH);
    mo_urdf_model_free(&m);
    mo_world_destroy(w);

    /* hulls everywhere, floating base: the base is a dynamic body of 5 kg */
    w = new_world();
    o.collision_meshes = MO_URDF_MESH_HULL;
    o.fixed_base = false;
    CHECK(mo_urdf_load(w, MODELS "arm/arm.urdf", &o, &m, err, sizeof err) == MO_OK);
    CHECK(m.collisions[0].shape_type == MO_SHAPE_CONVEX_HULL);
    double mass = 0;
    mo_mat3 I;
    CHECK(mo_body_mass(w, m.links[0].body, &mass, &I) == MO_OK && mass == 5.0);
    /* falls freely for 0.25 s in zero contact: the base drops g t^2 / 2 */
    for (int i = 0; i < 30; i++) mo_world_step(w);
    mo_vec3 p;
    mo_quat q;
    mo_urdf_link_pose(w, &m, 0, &p, &q);
    double t = 30.0 / 120.0;
    CHECK_NEAR(p.z, -0.5 * 9.81 * t * t, 5e-3 * 9.81 * t);
    mo_urdf_model_free(&m);
    mo_world_destroy(w);

    /* self collision on: group 0 */
    w = new_world();
    o = maximal_urdf_options();
    o.self_collision = true;
    CHECK(mo_urdf_load(w, MODELS "gripper/gripper.urdf", &o, &m, err, sizeof err) == MO_OK);
    CHECK(m.collision_group == 0);
    mo_urdf_model_free(&m);
    /* two robots in one world get two groups */
    o = maximal_urdf_options();
    mo_urdf_model m2;
    CHECK(mo_urdf_load(w, MODELS "gripper/gripper.urdf", &o, &m, err, sizeof err) == MO_OK);
    CHECK(mo_urdf_load(w, MODELS "gripper/gripper.urdf", &o, &m2, err, sizeof err) == MO_OK);
    CHECK(m.collision_group == 0x10000 && m2.collision_group == 0x10001);
    mo_urdf_model_free(&m);
    mo_urdf_model_free(&m2);
    mo_world_destroy(w);

    /* package:// through a search path, from a URDF in a temporary folder */
    char dir[] = "/tmp/moreau_import_urdfXXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char path[512];
    snprintf(path, sizeof path, "%s/one.urdf", dir);
    write_file(path, "<robot name=\"one\">\n"
                     "  <link name=\"a\">\n"
                     "    <inertial><mass value=\"2\"/><inertia ixx=\"1\" iyy=\"1\" izz=\"1\"/></inertial>\n"
                     "    <collision><geometry><mesh filename=\"package://arm/meshes/link1.stl\" scale=\"2 2 2\"/>"
                     "</geometry></collision>\n"
                     "  </link>\n"
                     "</robot>\n");
    w = new_world();
    o = maximal_urdf_options();
    o.fixed_base = false;
    mo_status s = mo_urdf_load(w, path, &o, &m, err, sizeof err);
    CHECK(s == MO_ERR_IO);
    char expected[1024];
    snprintf(expected, sizeof expected,
             "%s:4: link 'a': collision mesh 'package://arm/meshes/link1.stl' not found (looked in %s and 0 search "
             "paths)", path, dir);
    CHECK_STR(err, expected);
    CHECK_STR(mo_world_last_error(w), expected);
    const char *sp[] = {"/nonexistent", MODELS};
    o.search_paths = sp;
    o.nsearch_paths = 2;
    s = mo_urdf_load(w, path, &o, &m, err, sizeof err);
    CHECK(s == MO_OK);
    if (s == MO_OK) {
        CHECK(m.ncollisions == 1 && m.collisions[0].shape_type == MO_SHAPE_CONVEX_HULL);
        CHECK(m.collisions[0].size.x == 2.0);
        CHECK_STR(m.collisions[0].mesh_path, MODELS "/arm/meshes/link1.stl");
        mo_urdf_model_free(&m);
    }
    unlink(path);
    rmdir(dir);
    mo_world_destroy(w);
}

/* ---- the gripper and the humanoid ---- */

static void test_models(void)
{
    char err[1024];
    mo_urdf_model m;
    mo_world *w = new_world();
    mo_urdf_options o = maximal_urdf_options();
    o.fixed_base = false;
    CHECK(mo_urdf_load(w, MODELS "gripper/gripper.urdf", &o, &m, err, sizeof err) == MO_OK);
    CHECK(m.nlinks == 3 && m.njoints == 2);
    CHECK(m.joints[0].type == MO_URDF_JOINT_PRISMATIC && m.joints[1].type == MO_URDF_JOINT_PRISMATIC);
    mo_urdf_model_free(&m);
    mo_world_destroy(w);

    /* humanoid: 13 bodies, 12 hinges, 73.4 kg, dropped standing on the ground */
    w = new_world();
    add_ground(w);
    o.base_position = (mo_vec3){0, 0, 0.96};
    mo_status s = mo_urdf_load(w, MODELS "humanoid/humanoid.urdf", &o, &m, err, sizeof err);
    CHECK(s == MO_OK);
    if (s != MO_OK) {
        fprintf(stderr, "%s\n", err);
        mo_world_destroy(w);
        return;
    }
    CHECK_STR(m.name, "humanoid");
    CHECK(m.nlinks == 13 && m.njoints == 12);
    double total = 0;
    for (int i = 0; i < m.nlinks; i++) {
        double mass;
        mo_mat3 I;
        CHECK(mo_body_mass(w, m.links[i].body, &mass, &I) == MO_OK);
        total += mass;
    }
    CHECK_NEAR(total, 73.4, 1e-9);
    for (int i = 0; i < m.njoints; i++) CHECK(m.joints[i].type == MO_URDF_JOINT_REVOLUTE && m.joints[i].has_limits);
    /* soles 1 cm above the ground: it lands and crumples; after 2 s every body is above the
       ground (less than 2 cm in) and below where it started, joints hold to 1 cm */
    for (int i = 0; i < 240; i++) mo_world_step(w);
    double zmin = 1e9, zmax = -1e9, jerr = 0;
    for (int i = 0; i < m.nlinks; i++) {
        mo_vec3 x;
        mo_body_position(w, m.links[i].body, &x);
        if (x.z < zmin) zmin = x.z;
        if (x.z > zmax) zmax = x.z;
    }
    for (int i = 0; i < m.njoints; i++) {
        double e;
        mo_joint_error(w, m.joints[i].joint, &e);
        if (e > jerr) jerr = e;
    }
    printf("humanoid after 2 s: body centres z in [%.3f, %.3f], largest joint error %.2e m\n", zmin, zmax, jerr);
    CHECK(zmin > -0.02 && zmax < 1.6);
    CHECK(jerr < 0.01);
    mo_urdf_model_free(&m);
    mo_world_destroy(w);
}

/* ---- malformed files ---- */

static const char *TEMPLATE =
    "<?xml version=\"1.0\"?>\n"                                                                           /* 1 */
    "<robot name=\"bad\">\n"                                                                              /* 2 */
    "  <link name=\"base\">\n"                                                                            /* 3 */
    "    <inertial><mass value=\"1\"/><inertia ixx=\"0.1\" iyy=\"0.1\" izz=\"0.1\"/></inertial>\n"         /* 4 */
    "  </link>\n"                                                                                         /* 5 */
    "  <link name=\"a\">\n"                                                                               /* 6 */
    "    <inertial><mass value=\"%s\"/><inertia ixx=\"0.1\" iyy=\"0.1\" izz=\"%s\"/></inertial>\n"         /* 7 */
    "    <collision><geometry>%s</geometry></collision>\n"                                                /* 8 */
    "  </link>\n"                                                                                         /* 9 */
    "  <link name=\"b\">\n"                                                                               /* 10 */
    "    <inertial><mass value=\"1\"/><inertia ixx=\"0.1\" iyy=\"0.1\" izz=\"0.1\"/></inertial>\n"         /* 11 */
    "  </link>\n"                                                                                         /* 12 */
    "  <joint name=\"j1\" type=\"%s\">\n"                                                                 /* 13 */
    "    <parent link=\"base\"/><child link=\"a\"/>\n"                                                    /* 14 */
    "    <limit lower=\"-1\" upper=\"%s\" effort=\"10\" velocity=\"1\"/>\n"                               /* 15 */
    "  </joint>\n"                                                                                        /* 16 */
    "  <joint name=\"j2\" type=\"revolute\">\n"                                                           /* 17 */
    "    <parent link=\"%s\"/><child link=\"b\"/>\n"                                                      /* 18 */
    "    <limit lower=\"-1\" upper=\"1\" effort=\"10\" velocity=\"1\"/>\n"                                /* 19 */
    "  </joint>\n"                                                                                        /* 20 */
    "  %s\n"                                                                                              /* 21 */
    "</robot>\n";

typedef struct variant {
    const char *mass, *izz, *geom, *type1, *upper, *parent2, *extra;
    mo_status status;
    const char *message; /* after "PATH:" */
} variant;

static void test_malformed(void)
{
    char dir[] = "/tmp/moreau_import_urdfXXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char path[512];
    snprintf(path, sizeof path, "%s/bad.urdf", dir);
    const char *box = "<box size=\"0.1 0.1 0.1\"/>";
    char missing_mesh[1024];
    snprintf(missing_mesh, sizeof missing_mesh,
             "8: link 'a': collision mesh 'meshes/nothere.stl' not found (looked in %s and 0 search paths)", dir);
    const variant V[] = {
        /* the template itself is valid */
        {"1", "0.1", box, "revolute", "1", "a", "", MO_OK, ""},
        {"1", "0.1", box, "revolute", "abc", "a", "", MO_ERR_INVALID_ARGUMENT,
         "15: joint 'j1': limit upper 'abc' is not a number"},
        {"1", "0.1", box, "hinge", "1", "a", "", MO_ERR_INVALID_ARGUMENT,
         "13: joint 'j1': unknown joint type 'hinge' (revolute, continuous, prismatic, fixed, floating)"},
        {"1", "0.1", box, "planar", "1", "a", "", MO_ERR_INVALID_ARGUMENT,
         "13: joint 'j1': planar joints are not supported (use two prismatic joints and a revolute one)"},
        {"-2", "0.1", box, "revolute", "1", "a", "", MO_ERR_INVALID_ARGUMENT, "7: link 'a': mass -2 is negative"},
        {"1", "-0.1", box, "revolute", "1", "a", "", MO_ERR_INVALID_ARGUMENT,
         "7: link 'a': inertia (ixx 0.1 ixy 0 ixz 0 iyy 0.1 iyz 0 izz -0.1) is not positive definite"},
        {"1", "0.1", "<mesh filename=\"meshes/nothere.stl\"/>", "revolute", "1", "a", "", MO_ERR_IO, missing_mesh},
        {"1", "0.1", box, "revolute", "1", "nope", "", MO_ERR_INVALID_ARGUMENT,
         "18: joint 'j2': parent link 'nope' does not exist"},
        {"1", "0.1", box, "revolute", "1", "b", "", MO_ERR_INVALID_ARGUMENT,
         "17: joint 'j2': link 'b' is its own parent (a cycle)"},
        {"1", "0.1", box, "revolute", "1", "a",
         "<joint name=\"j3\" type=\"fixed\"><parent link=\"b\"/><child link=\"base\"/></joint>",
         MO_ERR_INVALID_ARGUMENT, "21: joint 'j3': joints form a cycle through link 'base' (a URDF is a tree)"},
        {"1", "0.1", box, "revolute", "1", "a",
         "<joint name=\"j3\" type=\"fixed\"><parent link=\"base\"/><child link=\"b\"/></joint>",
         MO_ERR_INVALID_ARGUMENT,
         "21: joint 'j3': link 'b' already has parent joint 'j2' (line 17): a link has one parent"},
        {"1", "0.1", "<capsule radius=\"1\" length=\"1\"/>", "revolute", "1", "a", "", MO_ERR_INVALID_ARGUMENT,
         "8: link 'a': collision geometry 'capsule' is not a URDF geometry (box, cylinder, sphere, mesh)"},
        {"1", "0.1", box, "revolute", "1", "a", "<link name=\"b\"/>", MO_ERR_INVALID_ARGUMENT,
         "21: link 'b' is defined twice (first on line 10)"},
        {"1", "0.1", box, "revolute", "1", "a", "<oops>", MO_ERR_IO, NULL /* libxml2's words: prefix checked */},
    };
    int nv = (int)(sizeof V / sizeof V[0]);
    for (int i = 0; i < nv; i++) {
        char text[4096];
        snprintf(text, sizeof text, TEMPLATE, V[i].mass, V[i].izz, V[i].geom, V[i].type1, V[i].upper, V[i].parent2,
                 V[i].extra);
        write_file(path, text);
        /* a world with a ground and a falling box, stepped a little */
        mo_world *w = new_world();
        add_ground(w);
        mo_body_def bd = mo_default_body_def();
        bd.shape.type = MO_SHAPE_BOX;
        bd.shape.half_extents = (mo_vec3){0.1, 0.1, 0.1};
        bd.position = (mo_vec3){3, 0, 0.5};
        mo_body_id box_id;
        CHECK(mo_body_create(w, &bd, &box_id) == MO_OK);
        for (int k = 0; k < 5; k++) mo_world_step(w);
        uint64_t h0 = mo_world_state_hash(w);
        mo_urdf_model m;
        char err[1024];
        mo_status s = mo_urdf_load(w, path, maximal(), &m, err, sizeof err);
        CHECK(s == V[i].status);
        if (V[i].status == MO_OK) {
            CHECK(m.nlinks == 3 && m.njoints == 2);
            mo_urdf_model_free(&m);
            mo_world_destroy(w);
            continue;
        }
        char expected[2048];
        snprintf(expected, sizeof expected, "%s:%s", path, V[i].message ? V[i].message : "");
        if (V[i].message) CHECK_STR(err, expected);
        else {
            CHECK(strncmp(err, expected, strlen(expected)) == 0 && strstr(err, ": XML error: ") != NULL);
            printf("XML error reads: %s\n", err);
        }
        CHECK_STR(mo_world_last_error(w), err);
        CHECK(m.nlinks == 0 && m.links == NULL);
        /* unchanged: same state, and the next body takes slot 3 with a first use's generation (no body was
           created and destroyed in between) */
        CHECK(mo_world_state_hash(w) == h0);
        mo_body_id next;
        CHECK(mo_body_create(w, &bd, &next) == MO_OK);
        mo_body_id slot1; /* slot 1 was used once: its generation is a first use's */
        CHECK(mo_world_bodies(w, &slot1, 1) >= 1 && slot1.index == 1);
        CHECK(next.index == 3 && next.generation == slot1.generation);
        mo_world_destroy(w);
    }
    /* a missing file */
    mo_world *w = new_world();
    mo_urdf_model m;
    char err[1024], expected[1024];
    snprintf(path, sizeof path, "%s/absent.urdf", dir);
    CHECK(mo_urdf_load(w, path, maximal(), &m, err, sizeof err) == MO_ERR_IO);
    snprintf(expected, sizeof expected, "%s: cannot read: No such file or directory", path);
    CHECK_STR(err, expected);
    /* options not from mo_default_urdf_options */
    mo_urdf_options raw;
    memset(&raw, 0, sizeof raw);
    CHECK(mo_urdf_load(w, MODELS "arm/arm.urdf", &raw, &m, err, sizeof err) == MO_ERR_INVALID_ARGUMENT);
    mo_world_destroy(w);
    snprintf(path, sizeof path, "%s/bad.urdf", dir);
    unlink(path);
    rmdir(dir);
}

/* ---- PD drives holding a configuration under gravity ---- */

/* joint transform: T = T * Trans(o) * Rot(rpy = (0, 0, yaw)) * motion */
typedef struct frame { double R[9], p[3]; } frame;

static void step_frame(frame *f, double ox, double oy, double oz, double yaw, const double axis[3], double q,
                       bool prismatic)
{
    double o[3] = {ox, oy, oz}, d[3];
    mat_vec(f->R, o, d);
    for (int k = 0; k < 3; k++) f->p[k] += d[k];
    double Ry[9];
    mat_axis_angle(0, 0, 1, yaw, Ry);
    mat_mul(f->R, Ry, f->R);
    if (!axis) return;
    if (prismatic) {
        double a[3] = {axis[0] * q, axis[1] * q, axis[2] * q};
        mat_vec(f->R, a, d);
        for (int k = 0; k < 3; k++) f->p[k] += d[k];
    } else {
        double Rq[9];
        mat_axis_angle(axis[0], axis[1], axis[2], q, Rq);
        mat_mul(f->R, Rq, f->R);
    }
}

static void test_pd_hold(void)
{
    mo_world *w = new_world();
    mo_urdf_options o = maximal_urdf_options();
    o.drive_stiffness = 2e4;
    o.drive_damping = 400;
    mo_urdf_model m;
    char err[1024];
    CHECK(mo_urdf_load(w, MODELS "arm/arm.urdf", &o, &m, err, sizeof err) == MO_OK);
    static const char *names[8] = {"shoulder_pan", "shoulder_lift", "elbow", "wrist_1", "wrist_2", "wrist_3",
                                   "finger_left_joint", "finger_right_joint"};
    static const double target[8] = {0.5, 0.6, 0.9, 0.3, -0.5, 0.2, 0.03, 0.02};
    int ji[8];
    for (int i = 0; i < 8; i++) {
        ji[i] = mo_urdf_find_joint(&m, names[i]);
        const mo_urdf_joint *j = &m.joints[ji[i]];
        double effort = j->effort > 0 ? j->effort : INFINITY;
        CHECK(mo_joint_set_motor(w, j->joint, MO_MOTOR_POSITION, 0, target[i], effort) == MO_OK);
    }
    for (int i = 0; i < 360; i++) mo_world_step(w);
    double worst = 0;
    for (int i = 0; i < 8; i++) {
        double q;
        CHECK(mo_joint_position(w, m.joints[ji[i]].joint, &q) == MO_OK);
        double e = fabs(q - target[i]);
        if (e > worst) worst = e;
        CHECK_NEAR(q, target[i], 2.5e-3);
    }
    /* forward kinematics of tool0 and of the left finger at the targets */
    static const double Z[3] = {0, 0, 1}, Y[3] = {0, 1, 0}, MX[3] = {-1, 0, 0};
    frame f;
    mat_identity(f.R);
    f.p[0] = f.p[1] = f.p[2] = 0;
    step_frame(&f, 0, 0, 0.1, 0, Z, target[0], false);
    step_frame(&f, 0, 0, 0.15, 0, Y, target[1], false);
    step_frame(&f, 0, 0, 0.4, 0, Y, target[2], false);
    step_frame(&f, 0, 0, 0.35, 0, Z, target[3], false);
    step_frame(&f, 0, 0, 0.1, 0, Y, target[4], false);
    step_frame(&f, 0, 0, 0.08, 0, Z, target[5], false);
    step_frame(&f, 0, 0, 0.02, PI / 2, NULL, 0, false); /* palm */
    frame finger = f;
    step_frame(&finger, 0.06, 0, 0.04, 0, MX, target[6], true);
    step_frame(&f, 0, 0, 0.12, 0, NULL, 0, false); /* tool0 */
    mo_vec3 p;
    mo_quat q;
    mo_urdf_link_pose(w, &m, mo_urdf_find_link(&m, "tool0"), &p, &q);
    double got[3] = {p.x, p.y, p.z};
    double dist = sqrt((got[0] - f.p[0]) * (got[0] - f.p[0]) + (got[1] - f.p[1]) * (got[1] - f.p[1]) +
                       (got[2] - f.p[2]) * (got[2] - f.p[2]));
    mo_urdf_link_pose(w, &m, mo_urdf_find_link(&m, "finger_left"), &p, &q);
    double fd = sqrt((p.x - finger.p[0]) * (p.x - finger.p[0]) + (p.y - finger.p[1]) * (p.y - finger.p[1]) +
                     (p.z - finger.p[2]) * (p.z - finger.p[2]));
    /* still: every link slower than 1 mm/s */
    double vmax = 0;
    for (int i = 0; i < m.nlinks; i++) {
        mo_vec3 v;
        mo_body_linear_velocity(w, m.links[i].body, &v);
        double s = sqrt(v.x * v.x + v.y * v.y + v.z * v.z);
        if (s > vmax) vmax = s;
    }
    printf("pd_hold after 3 s: worst joint error %.2e, tool0 %.2e m from FK at (%.4f %.4f %.4f), "
           "left finger %.2e m, fastest link %.2e m/s, contacts %d\n",
           worst, dist, f.p[0], f.p[1], f.p[2], fd, vmax, mo_world_contacts(w, NULL, 0));
    CHECK(dist < 4e-3);
    CHECK(fd < 4e-3);
    CHECK(vmax < 1e-3);
    mo_urdf_model_free(&m);
    mo_world_destroy(w);
}

int main(void)
{
    {
        mo_world *w = new_world();
        mo_urdf_model m;
        char err[1024];
        mo_status s = mo_urdf_load(w, MODELS "gripper/gripper.urdf", maximal(), &m, err, sizeof err);
        mo_world_destroy(w);
        if (s == MO_ERR_UNSUPPORTED) {
            printf("import_urdf: %s: skipped\n", err);
            return 77;
        }
        mo_urdf_model_free(&m);
        /* the arm's meshes need Assimp too */
        mo_mesh_data md;
        if (mo_mesh_load(MODELS "arm/meshes/base.obj", (mo_vec3){1, 1, 1}, &md, err, sizeof err) ==
            MO_ERR_UNSUPPORTED) {
            printf("import_urdf: %s: skipped\n", err);
            return 77;
        }
        mo_mesh_free(&md);
    }
    struct { const char *name; void (*fn)(void); } groups[] = {
        {"arm", test_arm}, {"options", test_options}, {"models", test_models},
        {"malformed", test_malformed}, {"pd_hold", test_pd_hold},
    };
    for (size_t i = 0; i < sizeof groups / sizeof groups[0]; i++) {
        check_group_begin();
        groups[i].fn();
        check_group_end(groups[i].name, 10, 4);
    }
    return check_groups_result();
}
