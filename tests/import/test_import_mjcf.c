/* test_import_mjcf: MJCF import (mo_mjcf_load).
 *   same      tests/import/data/arm3.urdf and arm3.xml, the same robot written both ways (a welded base, a
 *             hinge, a slide on a rotated frame, a welded tool, a wrist hinge, a rotated full inertia): the
 *             same links, masses, centres, joint types, axes, origins, limits, damping and friction; the same
 *             mass matrix at a q; the same trajectory (q, qdot of the articulation; every link's pose of the
 *             maximal import) at every step of 1 s, to 1e-12; <option timestep gravity> applied
 *   classes   nested <default> classes, childclass, class=, an element's own value over its class's
 *   angles    degrees (the default): hinge range, euler, axisangle; radians; eulerseq zyx (moving axes) against
 *             the product of the rotations; zaxis; a joint off the body origin moves the link frame there
 *   inertia   inertia from geoms (box + capsule + a mass= sphere) against the analytic sums; a body's
 *             <inertial> wins over its geoms
 *   mesh      <compiler meshdir>, <asset><mesh scale>: an OBJ box's mass and inertia from its volume, a hull on
 *             the moving body, a binary STL as triangles on the world
 *   free      a free root above a worldbody plane: it falls and rests on the plane (box half height)
 *   actuators position/velocity -> drives (kp, kv, forcerange), motor -> effort; <contact><exclude>
 *   errors    each refusal's exact sentence (file:line, element); the world unchanged */
#define _DEFAULT_SOURCE
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "moreau/articulation.h"
#include "moreau/import.h"
#include "testutil.h"
#include "tmpdir.h"

#define DATA MO_SOURCE_ROOT "/tests/import/data/"

static char tmp[512];

static mo_world *new_world(void)
{
    mo_world_def wd = mo_default_world_def();
    mo_world *w = NULL;
    char err[256];
    if (mo_world_create(&wd, &w, err, sizeof err) != MO_OK) {
        fprintf(stderr, "%s\n", err);
        exit(1);
    }
    return w;
}

/* writes text to tmp/name and returns the path (static buffer) */
static const char *put(const char *name, const char *text)
{
    static char path[1024];
    snprintf(path, sizeof path, "%s/%s", tmp, name);
    FILE *f = fopen(path, "w");
    if (!f || fputs(text, f) < 0) {
        fprintf(stderr, "cannot write %s\n", path);
        exit(1);
    }
    fclose(f);
    return path;
}

static double vdist(mo_vec3 a, mo_vec3 b) { return fabs(a.x - b.x) + fabs(a.y - b.y) + fabs(a.z - b.z); }
static double qdist(mo_quat a, mo_quat b) { return 1.0 - fabs(a.w * b.w + a.x * b.x + a.y * b.y + a.z * b.z); }

static mo_status load(mo_world *w, const char *path, bool artic, mo_urdf_model *m, char *err, size_t n)
{
    mo_mjcf_options o = mo_default_mjcf_options();
    o.articulation = artic;
    return mo_mjcf_load(w, path, &o, m, err, n);
}

static void test_same(void)
{
    for (int artic = 0; artic < 2; artic++) {
        mo_world *wu = new_world(), *wm = new_world();
        mo_urdf_options uo = mo_default_urdf_options();
        uo.articulation = artic;
        mo_mjcf_options mo = mo_default_mjcf_options();
        mo.articulation = artic;
        mo.self_collision = false; /* URDF's default */
        mo_urdf_model u, m;
        char err[1024];
        CHECK(mo_urdf_load(wu, DATA "arm3.urdf", &uo, &u, err, sizeof err) == MO_OK);
        mo_status st = mo_mjcf_load(wm, DATA "arm3.xml", &mo, &m, err, sizeof err);
        CHECK(st == MO_OK);
        if (st != MO_OK) {
            fprintf(stderr, "%s\n", err);
            mo_world_destroy(wu);
            mo_world_destroy(wm);
            return;
        }
        /* <option>: applied */
        CHECK_NEAR(mo_world_time_step(wm), 0.005, 0);
        CHECK_NEAR(mo_world_gravity(wm).z, -9.8, 0);
        mo_world_set_time_step(wu, 0.005);
        mo_world_set_gravity(wu, (mo_vec3){0, 0, -9.8});
        CHECK(m.nlinks == 6 && u.nlinks == 6 && m.njoints == 5 && u.njoints == 5);
        CHECK(m.nwarnings == u.nwarnings && m.ncollisions == 3); /* maximal: the friction left out beside the damping, as URDF */
        CHECK(artic ? m.nwarnings == 0 : m.nwarnings == 1);
        CHECK(strcmp(m.name, "arm3") == 0);
        for (int i = 0; i < 6 && i < m.nlinks; i++) {
            const mo_urdf_link *a = &u.links[i], *b = &m.links[i];
            CHECK(strcmp(a->name, b->name) == 0);
            CHECK(a->parent_joint == b->parent_joint);
            CHECK_NEAR(a->mass, b->mass, 1e-12);
            CHECK_NEAR(vdist(a->com, b->com), 0, 1e-12);
            CHECK(a->ncollisions == b->ncollisions);
        }
        for (int i = 0; i < 5 && i < m.njoints; i++) {
            const mo_urdf_joint *a = &u.joints[i], *b = &m.joints[i];
            CHECK(strcmp(a->name, b->name) == 0);
            CHECK(a->type == b->type && a->has_limits == b->has_limits);
            CHECK(a->parent_link == b->parent_link && a->child_link == b->child_link);
            CHECK_NEAR(vdist(a->axis, b->axis), 0, 1e-12);
            CHECK_NEAR(vdist(a->origin_position, b->origin_position), 0, 1e-12);
            CHECK_NEAR(qdist(a->origin_orientation, b->origin_orientation), 0, 1e-12);
            CHECK_NEAR(a->lower, b->lower, 1e-12);
            CHECK_NEAR(a->upper, b->upper, 1e-12);
            CHECK_NEAR(a->damping, b->damping, 1e-12);
            CHECK_NEAR(a->friction, b->friction, 1e-12);
        }
        for (int i = 0; i < m.ncollisions; i++) {
            CHECK(u.collisions[i].shape_type == m.collisions[i].shape_type);
            CHECK_NEAR(vdist(u.collisions[i].size, m.collisions[i].size), 0, 1e-12);
            CHECK_NEAR(vdist(u.collisions[i].position, m.collisions[i].position), 0, 1e-12);
        }
        if (artic) {
            /* the inertias, through the mass matrix at a q; the limits as rows */
            int ls = mo_urdf_find_link(&m, "slider"), lu = mo_urdf_find_link(&m, "upper");
            double lo, hi;
            CHECK(mo_articulation_limits(wm, m.articulation, ls, &lo, &hi) == MO_OK);
            CHECK_NEAR(lo, -0.1, 0);
            CHECK_NEAR(hi, 0.2, 0);
            CHECK(mo_articulation_limits(wm, m.articulation, lu, &lo, &hi) == MO_OK);
            CHECK_NEAR(hi, 1.5, 0);
            int nl, nq, nv;
            CHECK(mo_articulation_size(wm, m.articulation, &nl, &nq, &nv) == MO_OK && nq == 3 && nv == 3);
            double q3[3] = {0.4, 0.05, -0.7}, v3[3] = {0.5, -0.2, 3.0};
            CHECK(mo_articulation_set_q(wu, u.articulation, q3, 3) == MO_OK);
            CHECK(mo_articulation_set_q(wm, m.articulation, q3, 3) == MO_OK);
            double M9u[9], M9m[9];
            CHECK(mo_articulation_mass_matrix(wu, u.articulation, M9u, 9) == MO_OK);
            CHECK(mo_articulation_mass_matrix(wm, m.articulation, M9m, 9) == MO_OK);
            double dm = 0;
            for (int i = 0; i < 9; i++) dm = fmax(dm, fabs(M9u[i] - M9m[i]));
            CHECK_NEAR(dm, 0, 1e-12);
            CHECK(M9m[0] > 0.05); /* not a trivial matrix */
            mo_articulation_set_qdot(wu, u.articulation, v3, 3);
            mo_articulation_set_qdot(wm, m.articulation, v3, 3);
            double worst = 0;
            for (int s = 0; s < 200; s++) { /* 1 s at 5 ms */
                mo_world_step(wu);
                mo_world_step(wm);
                double a[3], b[3], av[3], bv[3];
                mo_articulation_get_q(wu, u.articulation, a, 3);
                mo_articulation_get_q(wm, m.articulation, b, 3);
                mo_articulation_get_qdot(wu, u.articulation, av, 3);
                mo_articulation_get_qdot(wm, m.articulation, bv, 3);
                for (int i = 0; i < 3; i++) worst = fmax(worst, fmax(fabs(a[i] - b[i]), fabs(av[i] - bv[i])));
            }
            CHECK_NEAR(worst, 0, 1e-12);
            double qe[3];
            mo_articulation_get_q(wm, m.articulation, qe, 3);
            CHECK(fabs(qe[0] - 0.4) > 0.05); /* it moved */
        } else {
            /* maximal: every link's pose, from a push, at every step */
            mo_vec3 push = {0.3, -0.2, 0.1};
            int hand = mo_urdf_find_link(&m, "hand");
            mo_body_set_velocity(wu, u.links[hand].body, (mo_vec3){0, 0, 0}, push);
            mo_body_set_velocity(wm, m.links[hand].body, (mo_vec3){0, 0, 0}, push);
            double worst = 0;
            for (int s = 0; s < 200; s++) {
                mo_world_step(wu);
                mo_world_step(wm);
                for (int i = 0; i < 6; i++) {
                    mo_vec3 pa, pb;
                    mo_quat qa, qb;
                    mo_urdf_link_pose(wu, &u, i, &pa, &qa);
                    mo_urdf_link_pose(wm, &m, i, &pb, &qb);
                    worst = fmax(worst, fmax(vdist(pa, pb), qdist(qa, qb)));
                }
            }
            CHECK_NEAR(worst, 0, 1e-12);
            mo_vec3 p0, p1;
            mo_quat q0;
            mo_urdf_link_pose(wm, &m, mo_urdf_find_link(&m, "upper"), &p0, &q0);
            mo_urdf_link_pose(wm, &m, mo_urdf_find_link(&m, "slider"), &p1, &q0);
            CHECK(vdist(p1, (mo_vec3){0, 0, 0.6}) > 0.01); /* it moved */
        }
        mo_urdf_model_free(&u);
        mo_urdf_model_free(&m);
        mo_world_destroy(wu);
        mo_world_destroy(wm);
    }
}

static const char *classes_xml =
    "<mujoco model='cls'>\n"
    "  <default>\n"
    "    <joint damping='0.5' axis='1 0 0'/>\n"
    "    <geom friction='0.7' size='0.05'/>\n"
    "    <default class='arm'>\n"
    "      <joint damping='2' range='-30 60'/>\n"
    "      <default class='finger'>\n"
    "        <joint type='slide' axis='0 0 1' range='0 0.04'/>\n"
    "        <geom type='box' size='0.01 0.02 0.03'/>\n"
    "      </default>\n"
    "    </default>\n"
    "  </default>\n"
    "  <worldbody>\n"
    "    <body name='a' childclass='arm'>\n"
    "      <joint name='ja'/>\n"
    "      <geom/>\n"
    "      <body name='b' pos='0 0 0.2'>\n"
    "        <joint name='jb' class='finger' damping='3'/>\n"
    "        <geom class='finger' friction='0.2'/>\n"
    "      </body>\n"
    "      <body name='c' pos='0 0 0.4' childclass='main'>\n"
    "        <joint name='jc'/>\n"
    "        <geom type='capsule' size='0.02 0.1'/>\n"
    "      </body>\n"
    "    </body>\n"
    "  </worldbody>\n"
    "</mujoco>\n";

static void test_classes(void)
{
    mo_world *w = new_world();
    mo_urdf_model m;
    char err[1024];
    mo_status st = load(w, put("classes.xml", classes_xml), true, &m, err, sizeof err);
    CHECK(st == MO_OK);
    if (st != MO_OK) {
        fprintf(stderr, "%s\n", err);
        mo_world_destroy(w);
        return;
    }
    int ja = mo_urdf_find_joint(&m, "ja"), jb = mo_urdf_find_joint(&m, "jb"), jc = mo_urdf_find_joint(&m, "jc");
    CHECK(ja >= 0 && jb >= 0 && jc >= 0);
    /* ja: class arm (childclass): damping 2, range -30..60 degrees, main's axis */
    CHECK(m.joints[ja].type == MO_URDF_JOINT_REVOLUTE);
    CHECK_NEAR(m.joints[ja].damping, 2, 0);
    CHECK_NEAR(m.joints[ja].lower, -PI / 6, 1e-15);
    CHECK_NEAR(m.joints[ja].upper, PI / 3, 1e-15);
    CHECK_NEAR(m.joints[ja].axis.x, 1, 0);
    /* jb: class finger: a slide on z, range 0..0.04 (m, not degrees), its own damping */
    CHECK(m.joints[jb].type == MO_URDF_JOINT_PRISMATIC);
    CHECK_NEAR(m.joints[jb].damping, 3, 0);
    CHECK_NEAR(m.joints[jb].upper, 0.04, 0);
    CHECK_NEAR(m.joints[jb].axis.z, 1, 0);
    /* jc: childclass main: main's damping, no range (continuous) */
    CHECK(m.joints[jc].type == MO_URDF_JOINT_CONTINUOUS);
    CHECK_NEAR(m.joints[jc].damping, 0.5, 0);
    /* geoms: a's sphere of main's size; b's finger box; c's capsule */
    CHECK(m.ncollisions == 3);
    if (m.ncollisions == 3) {
        CHECK(m.collisions[0].shape_type == MO_SHAPE_SPHERE);
        CHECK_NEAR(m.collisions[0].size.x, 0.05, 0);
        CHECK(m.collisions[1].shape_type == MO_SHAPE_BOX);
        CHECK_NEAR(m.collisions[1].size.z, 0.06, 1e-15);
        CHECK(m.collisions[2].shape_type == MO_SHAPE_CAPSULE);
    }
    mo_urdf_model_free(&m);
    mo_world_destroy(w);
}

static void test_angles(void)
{
    static const char *xml =
        "<mujoco>\n"
        "  <worldbody>\n"
        "    <body name='e' euler='0 0 90'><joint name='j1' range='-90 45'/></body>\n"
        "    <body name='aa' axisangle='1 0 0 90'/>\n"
        "    <body name='z' zaxis='1 0 0'/>\n"
        "    <body name='off' pos='1 0 0'><joint name='j2' pos='0 0.5 0' axis='0 0 1'/>\n"
        "      <inertial pos='0 0.5 0' mass='1' diaginertia='1 1 1'/></body>\n"
        "  </worldbody>\n"
        "</mujoco>\n";
    mo_world *w = new_world();
    mo_urdf_model m;
    char err[1024];
    mo_status st = load(w, put("deg.xml", xml), true, &m, err, sizeof err);
    CHECK(st == MO_OK);
    if (st == MO_OK) {
        int j1 = mo_urdf_find_joint(&m, "j1"), j2 = mo_urdf_find_joint(&m, "j2");
        CHECK_NEAR(m.joints[j1].lower, -PI / 2, 1e-15);
        CHECK_NEAR(m.joints[j1].upper, PI / 4, 1e-15);
        double h = sqrt(0.5);
        CHECK_NEAR(qdist(m.joints[j1].origin_orientation, (mo_quat){h, 0, 0, h}), 0, 1e-15);
        int aa = mo_urdf_find_link(&m, "aa"), z = mo_urdf_find_link(&m, "z");
        CHECK_NEAR(qdist(m.joints[m.links[aa].parent_joint].origin_orientation, (mo_quat){h, h, 0, 0}), 0, 1e-15);
        CHECK_NEAR(qdist(m.joints[m.links[z].parent_joint].origin_orientation, (mo_quat){h, 0, h, 0}), 0, 1e-15);
        /* the joint 0.5 m off the body origin: the link frame sits there, the centre at the link origin */
        CHECK_NEAR(vdist(m.joints[j2].origin_position, (mo_vec3){1, 0.5, 0}), 0, 1e-15);
        int off = mo_urdf_find_link(&m, "off");
        CHECK_NEAR(vdist(m.links[off].com, (mo_vec3){0, 0, 0}), 0, 1e-15);
        mo_urdf_model_free(&m);
    } else fprintf(stderr, "%s\n", err);
    /* radians, moving axes z, y, x */
    static const char *rad =
        "<mujoco>\n"
        "  <compiler angle='radian' eulerseq='zyx'/>\n"
        "  <worldbody><body name='e' euler='0.3 0.2 0.1'><joint name='j' range='-1 1'/></body></worldbody>\n"
        "</mujoco>\n";
    st = load(w, put("rad.xml", rad), true, &m, err, sizeof err);
    CHECK(st == MO_OK);
    if (st == MO_OK) {
        int j = mo_urdf_find_joint(&m, "j");
        CHECK_NEAR(m.joints[j].upper, 1, 0);
        /* qz(0.3) qy(0.2) qx(0.1) */
        mo_quat qz = {cos(0.15), 0, 0, sin(0.15)}, qy = {cos(0.1), 0, sin(0.1), 0}, qx = {cos(0.05), sin(0.05), 0, 0};
        mo_quat a = {qz.w * qy.w, qz.w * qy.x - qz.z * qy.y, qz.w * qy.y + qz.z * qy.x, qz.z * qy.w}; /* qz qy */
        mo_quat e = {a.w * qx.w - a.x * qx.x, a.w * qx.x + a.x * qx.w, a.y * qx.w + a.z * qx.x,
                     a.z * qx.w - a.y * qx.x};
        CHECK_NEAR(qdist(m.joints[j].origin_orientation, e), 0, 1e-15);
        mo_urdf_model_free(&m);
    } else fprintf(stderr, "%s\n", err);
    mo_world_destroy(w);
}

static void test_inertia(void)
{
    static const char *xml =
        "<mujoco>\n"
        "  <worldbody>\n"
        "    <body name='g'>\n"
        "      <joint name='j' axis='0 0 1'/>\n"
        "      <geom type='box' size='0.1 0.2 0.3' pos='0.5 0 0' density='500'/>\n"
        "      <geom type='capsule' fromto='0 0 0 0 0 0.4' size='0.05'/>\n"
        "      <geom type='sphere' size='0.1' pos='-0.2 0 0' mass='2'/>\n"
        "      <geom type='sphere' size='0.1' pos='0 1 0' contype='0' conaffinity='0' density='0'/>\n"
        "    </body>\n"
        "    <body name='i' pos='3 0 0'>\n"
        "      <joint name='k' axis='0 0 1'/>\n"
        "      <inertial pos='0 0 0' mass='4' diaginertia='1 2 3'/>\n"
        "      <geom type='box' size='1 1 1'/>\n"
        "    </body>\n"
        "  </worldbody>\n"
        "</mujoco>\n";
    mo_world *w = new_world();
    mo_urdf_model m;
    char err[1024];
    mo_status st = load(w, put("inertia.xml", xml), true, &m, err, sizeof err);
    CHECK(st == MO_OK);
    if (st != MO_OK) {
        fprintf(stderr, "%s\n", err);
        mo_world_destroy(w);
        return;
    }
    /* analytic: box 0.2 x 0.4 x 0.6 at 500 kg/m^3 centred at x = 0.5; capsule r 0.05, segment 0.4 on z from 0
       (centre z = 0.2) at 1000; sphere of 2 kg at x = -0.2; the visual sphere weighs nothing */
    double mb = 500 * 0.2 * 0.4 * 0.6, r = 0.05, L = 0.4;
    double mcyl = 1000 * PI * r * r * L, msph = 1000 * 4.0 / 3.0 * PI * r * r * r, mc = mcyl + msph, ms = 2;
    double M = mb + mc + ms;
    int g = mo_urdf_find_link(&m, "g");
    CHECK_NEAR(m.links[g].mass, M, 1e-12);
    double cx = (mb * 0.5 + ms * -0.2) / M, cz = mc * 0.2 / M;
    CHECK_NEAR(m.links[g].com.x, cx, 1e-12);
    CHECK_NEAR(m.links[g].com.z, cz, 1e-12);
    /* Izz about the joint axis (z through the link origin): the mass matrix of the one hinge */
    double Izz_box = mb / 12 * (0.2 * 0.2 + 0.4 * 0.4) + mb * 0.25;
    double Izz_cap = mcyl * r * r / 2 + 0.4 * msph * r * r;
    double Izz_sph = 0.4 * ms * 0.01 + ms * 0.04;
    double Mq[4];
    CHECK(mo_articulation_mass_matrix(w, m.articulation, Mq, 4) == MO_OK);
    CHECK_NEAR(Mq[0], Izz_box + Izz_cap + Izz_sph, 1e-12);
    /* the <inertial> body: 4 kg, Izz 3, not the 8000 kg box */
    int i = mo_urdf_find_link(&m, "i");
    CHECK_NEAR(m.links[i].mass, 4, 0);
    CHECK_NEAR(Mq[3], 3, 1e-12);
    mo_urdf_model_free(&m);
    mo_world_destroy(w);
}

static void test_mesh(void)
{
    /* meshdir (absolute here), mesh scale, a mesh's mass by its volume; a hull on the moving body, triangles on
       the world */
    char xml[2048];
    snprintf(xml, sizeof xml,
             "<mujoco>\n"
             "  <compiler meshdir='%s'/>\n"
             "  <asset>\n"
             "    <mesh file='box.obj' scale='2 1 1'/>\n"
             "    <mesh name='floor' file='box_binary.stl'/>\n"
             "  </asset>\n"
             "  <worldbody>\n"
             "    <geom type='mesh' mesh='floor' pos='0 0 -1'/>\n"
             "    <body name='m'>\n"
             "      <joint name='j' axis='0 0 1'/>\n"
             "      <geom type='mesh' mesh='box' pos='0.1 0 0'/>\n"
             "    </body>\n"
             "  </worldbody>\n"
             "</mujoco>\n", DATA);
    mo_world *w = new_world();
    mo_urdf_model m;
    char err[1024];
    mo_status st = load(w, put("mesh.xml", xml), true, &m, err, sizeof err);
    if (st == MO_ERR_UNSUPPORTED) { /* built without Assimp */
        mo_world_destroy(w);
        return;
    }
    CHECK(st == MO_OK);
    if (st != MO_OK) {
        fprintf(stderr, "%s\n", err);
        mo_world_destroy(w);
        return;
    }
    int b = mo_urdf_find_link(&m, "m");
    double mass = 1000 * 2 * 0.5 * 0.2; /* the 1 x 0.5 x 0.2 box, x doubled */
    /* Assimp's vertices are floats (0.2f = 0.2 + 3e-9): 1e-7 relative */
    CHECK_NEAR(m.links[b].mass, mass, 1e-7 * mass);
    CHECK_NEAR(m.links[b].com.x, 0.1, 1e-7);
    double Mq[1];
    CHECK(mo_articulation_mass_matrix(w, m.articulation, Mq, 1) == MO_OK);
    CHECK_NEAR(Mq[0], mass / 12 * (4 + 0.25) + mass * 0.01, 1e-7 * Mq[0]);
    CHECK(m.ncollisions == 2);
    if (m.ncollisions == 2) {
        CHECK(m.collisions[0].shape_type == MO_SHAPE_MESH && m.collisions[0].link == 0);
        CHECK(m.collisions[1].shape_type == MO_SHAPE_CONVEX_HULL && m.collisions[1].link == b);
        CHECK(strstr(m.collisions[1].mesh_path, "box.obj") != NULL);
    }
    mo_urdf_model_free(&m);
    mo_world_destroy(w);
}

static void test_free(void)
{
    static const char *xml =
        "<mujoco model='drop'>\n"
        "  <option timestep='0.004'/>\n"
        "  <worldbody>\n"
        "    <geom name='floor' type='plane' size='5 5 0.1'/>\n"
        "    <body name='box' pos='0 0 0.5'>\n"
        "      <freejoint/>\n"
        "      <geom type='box' size='0.1 0.1 0.05'/>\n"
        "    </body>\n"
        "  </worldbody>\n"
        "</mujoco>\n";
    for (int artic = 0; artic < 2; artic++) {
        mo_world *w = new_world();
        mo_urdf_model m;
        char err[1024];
        mo_status st = load(w, put("drop.xml", xml), artic, &m, err, sizeof err);
        CHECK(st == MO_OK);
        if (st != MO_OK) {
            fprintf(stderr, "%s\n", err);
            mo_world_destroy(w);
            continue;
        }
        CHECK(m.nlinks == 1 && m.njoints == 0 && !mo_body_id_is_null(m.world_body));
        CHECK_NEAR(m.links[0].mass, 1000 * 0.2 * 0.2 * 0.1, 1e-12);
        for (int s = 0; s < 500; s++) mo_world_step(w); /* 2 s */
        mo_vec3 p;
        mo_quat q;
        CHECK(mo_urdf_link_pose(w, &m, 0, &p, &q) == MO_OK);
        CHECK_NEAR(p.z, 0.05, 2e-3);
        CHECK_NEAR(p.x, 0, 1e-6);
        mo_urdf_model_free(&m);
        mo_world_destroy(w);
    }
}

static void test_actuators(void)
{
    static const char *xml =
        "<mujoco>\n"
        "  <default><position kp='50'/></default>\n"
        "  <worldbody>\n"
        "    <body name='a'><joint name='ja' axis='0 1 0'/><geom size='0.1'/>\n"
        "      <body name='b' pos='0 0 0.5'><joint name='jb' axis='0 1 0'/><geom size='0.1'/>\n"
        "        <body name='c' pos='0 0 0.5'><joint name='jc' axis='0 1 0'/><geom size='0.1'/></body>\n"
        "      </body>\n"
        "    </body>\n"
        "  </worldbody>\n"
        "  <actuator>\n"
        "    <position name='pa' joint='ja' kv='3' forcerange='-20 20'/>\n"
        "    <velocity name='vb' joint='jb' kv='4'/>\n"
        "    <motor name='mc' joint='jc' gear='2' forcerange='-5 5'/>\n"
        "  </actuator>\n"
        "  <contact><exclude body1='a' body2='c'/></contact>\n"
        "</mujoco>\n";
    mo_world *w = new_world();
    mo_urdf_model m;
    char err[1024];
    mo_status st = load(w, put("act.xml", xml), true, &m, err, sizeof err);
    CHECK(st == MO_OK);
    if (st != MO_OK) {
        fprintf(stderr, "%s\n", err);
        mo_world_destroy(w);
        return;
    }
    mo_joint_drive d;
    int a = mo_urdf_find_link(&m, "a"), b = mo_urdf_find_link(&m, "b"), c = mo_urdf_find_link(&m, "c");
    CHECK(mo_articulation_drive(w, m.articulation, a, &d) == MO_OK);
    CHECK_NEAR(d.stiffness, 50, 0);
    CHECK_NEAR(d.damping, 3, 0);
    CHECK_NEAR(d.max_effort, 20, 0);
    CHECK(mo_articulation_drive(w, m.articulation, b, &d) == MO_OK);
    CHECK_NEAR(d.stiffness, 0, 0);
    CHECK_NEAR(d.damping, 4, 0);
    CHECK(mo_articulation_drive(w, m.articulation, c, &d) == MO_OK);
    CHECK_NEAR(d.stiffness + d.damping, 0, 0);
    CHECK_NEAR(m.joints[mo_urdf_find_joint(&m, "jc")].effort, 10, 0);
    /* a and c: the <exclude> pair (adjacent links are kept apart by the articulation, not by pairs) */
    bool ac = true, ab = true, bc = true;
    CHECK(mo_world_pair_collision(w, m.links[a].body, m.links[c].body, &ac) == MO_OK && !ac);
    CHECK(mo_world_pair_collision(w, m.links[a].body, m.links[b].body, &ab) == MO_OK);
    CHECK(mo_world_pair_collision(w, m.links[b].body, m.links[c].body, &bc) == MO_OK);
    mo_urdf_model_free(&m);
    mo_world_destroy(w);
}

typedef struct bad { const char *xml; const char *msg; } bad;

static void test_errors(void)
{
    static const bad cases[] = {
        {"<mujoco>\n<worldbody>\n<body name='a'>\n<joint type='ball' range='5 30'/>\n</body>\n</worldbody>\n"
         "</mujoco>\n",
         "bad.xml:4: joint 'a_joint': a ball joint's range must start at 0 (its second value is the cone's angle), "
         "got 5"},
        {"<mujoco>\n<worldbody>\n<body name='a'>\n<joint type='ball' range='0 30'/>\n</body>\n</worldbody>\n"
         "</mujoco>\n",
         "bad.xml:4: joint 'a_joint': a range on a ball joint (a cone limit) is supported by articulation imports "
         "only (a spherical joint between bodies has no limits; leave range out, or set limited=\"false\")"},
        {"<mujoco>\n<worldbody>\n<body name='a'>\n<joint type='ball' range='0 181'/>\n</body>\n</worldbody>\n"
         "</mujoco>\n",
         "bad.xml:4: joint 'a_joint': the cone's angle 3.15905 rad (range 181) is more than pi"},
        {"<mujoco>\n<worldbody>\n<body name='a'>\n<joint type='screw'/>\n</body>\n</worldbody>\n</mujoco>\n",
         "bad.xml:4: joint 'a_joint': type 'screw' is not one of hinge, slide, ball, free"},
        {"<mujoco>\n<worldbody>\n<body>\n<geom class='nope' size='1'/>\n</body>\n</worldbody>\n</mujoco>\n",
         "bad.xml:4: geom: unknown class 'nope'"},
        {"<mujoco>\n<worldbody>\n<body>\n<inertial mass='-1' diaginertia='1 1 1'/>\n</body>\n</worldbody>\n"
         "</mujoco>\n",
         "bad.xml:4: body 'body1': inertial mass -1 is negative"},
        {"<mujoco>\n<worldbody>\n<body pos='0 nan 0'/>\n</worldbody>\n</mujoco>\n",
         "bad.xml:3: body 'body1': pos '0 nan 0' is not 3 numbers"},
        {"<mujoco>\n<worldbody>\n<body>\n<geom type='ellipsoid' size='1 2 3'/>\n</body>\n</worldbody>\n</mujoco>\n",
         "bad.xml:4: geom: ellipsoid geoms are not supported (Moreau has no ellipsoid shape; use a sphere, capsule "
         "or mesh)"},
        {"<mujoco>\n<worldbody>\n<body name='a'>\n<joint/><geom size='1'/>\n</body>\n</worldbody>\n<equality>\n"
         "<weld body1='a'/>\n</equality>\n</mujoco>\n",
         "bad.xml:8: weld: an equality closes a loop, which an articulation (a tree) cannot hold: load with "
         "articulation = false (C) or maximal = true (Lua)"},
        {"<mujoco>\n<worldbody>\n<body name='a'>\n<geom size='1' solref='0.02 1' condim='6'/>\n</body>\n"
         "</worldbody>\n</mujoco>\n",
         "bad.xml:4: geom: condim 6 is not supported (1: frictionless, 3: sliding friction)"},
        {"<mujoco>\n<worldbody>\n<body name='a'>\n<joint stiffness='3'/>\n</body>\n</worldbody>\n</mujoco>\n",
         "bad.xml:4: joint 'a_joint': joint stiffness (a spring) is not supported"},
        {"<mujoco>\n<tendon/>\n<worldbody/>\n</mujoco>\n",
         "bad.xml:2: <tendon> is not supported (docs/import.md, MJCF)"},
        {"<mujoco>\n<worldbody>\n<body name='a'>\n<geom size='1' foo='2'/>\n</body>\n</worldbody>\n</mujoco>\n",
         "bad.xml:4: geom: attribute foo of <geom> is not supported (docs/import.md, MJCF)"},
        {"<mujoco>\n<worldbody>\n<body name='a'>\n<geom type='mesh' mesh='m'/>\n</body>\n</worldbody>\n</mujoco>\n",
         "bad.xml:4: geom: mesh 'm' is not an <asset> mesh"},
        {"<mujoco>\n<asset>\n<mesh file='missing.stl'/>\n</asset>\n<worldbody>\n<body name='a'>\n"
         "<geom type='mesh' mesh='missing'/>\n</body>\n</worldbody>\n</mujoco>\n",
         NULL /* not found: checked by prefix below */},
        {"<mujoco>\n<worldbody>\n<body name='a'>\n<joint range='1 2' limited='true' axis='0 0 0'/>\n</body>\n"
         "</worldbody>\n</mujoco>\n",
         "bad.xml:4: joint 'a_joint': axis (0 0 0) is zero"},
        {"<mujoco>\n<worldbody>\n<body name='a'>\n<joint/>\n<joint/>\n</body>\n</worldbody>\n</mujoco>\n",
         "bad.xml:5: body 'a': a second joint (a body has at most one joint here: chain bodies for several degrees "
         "of freedom)"},
        {"<mujoco>\n<worldbody>\n<body name='a'>\n<joint name='j'/>\n</body>\n</worldbody>\n<actuator>\n"
         "<motor joint='k'/>\n</actuator>\n</mujoco>\n",
         "bad.xml:8: motor '(unnamed)': joint 'k' is not a joint of the file"},
        {"<mujoco>\n<worldbody>\n<body name='a'>\n<geom type='plane' size='1 1 1'/>\n</body>\n</worldbody>\n"
         "</mujoco>\n",
         "bad.xml:4: geom: a plane must be a <worldbody> geom (Moreau's planes are static)"},
        {"<mujoco>\n<worldbody>\n<body name='a'>\n<geom size='1'/>\n</body>\n<body name='a'/>\n</worldbody>\n"
         "</mujoco>\n",
         "bad.xml:6: body 'a' is defined twice (first on line 3)"},
        {"<mujoco>\n<worldbody>\n<body name='a'>\n<geom size='1'>\n</worldbody>\n</mujoco>\n",
         NULL /* libxml2's words: checked by prefix below */},
        {"<robot name='r'/>\n", "bad.xml:1: the root element is <robot>, not <mujoco>"},
        {"<mujoco>\n<worldbody>\n<body name='a'>\n<freejoint/>\n<geom size='1'/>\n</body>\n<body name='b'/>\n"
         "</worldbody>\n</mujoco>\n",
         "bad.xml:4: joint 'a_joint': a free body beside other top-level bodies cannot be part of an articulation (a "
         "free root must be the <worldbody>'s only body): load with articulation = false"},
        {"<mujoco>\n<worldbody>\n<body name='a'>\n<geom size='1' mass='-2'/>\n</body>\n</worldbody>\n</mujoco>\n",
         "bad.xml:4: geom: mass -2 is negative"},
    };
    mo_world *w = new_world();
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const char *path = put("bad.xml", cases[k].xml);
        mo_urdf_model m;
        char err[1024], want[1200];
        mo_status st = load(w, path, k % 2 == 0, &m, err, sizeof err);
        CHECK(st != MO_OK);
        CHECK(m.nlinks == 0 && m.links == NULL);
        if (cases[k].msg) {
            snprintf(want, sizeof want, "%s/%s", tmp, cases[k].msg);
            if (strcmp(err, want) != 0) {
                fprintf(stderr, "case %zu:\n  got  %s\n  want %s\n", k, err, want);
                CHECK(!"error sentence");
            }
        } else {
            bool xml = strstr(cases[k].xml, "missing.stl") == NULL;
            if (xml) snprintf(want, sizeof want, "%s/bad.xml:7: XML error: ", tmp);
            else snprintf(want, sizeof want, "%s/bad.xml:7: geom: mesh file 'missing.stl' not found", tmp);
            CHECK(strncmp(err, want, strlen(want)) == 0);
            CHECK(st == MO_ERR_IO);
        }
        CHECK(mo_world_bodies(w, NULL, 0) == 0);
        CHECK(strcmp(mo_world_last_error(w), err) == 0);
    }
    /* a missing file, NULL arguments, options not from mo_default_mjcf_options */
    mo_urdf_model m;
    char err[1024];
    CHECK(mo_mjcf_load(w, DATA "nope.xml", NULL, &m, err, sizeof err) == MO_ERR_IO);
    CHECK(strcmp(err, DATA "nope.xml: cannot read: No such file or directory") == 0);
    CHECK(mo_mjcf_load(NULL, DATA "arm3.xml", NULL, &m, err, sizeof err) == MO_ERR_INVALID_ARGUMENT);
    mo_mjcf_options o;
    memset(&o, 0, sizeof o);
    CHECK(mo_mjcf_load(w, DATA "arm3.xml", &o, &m, err, sizeof err) == MO_ERR_INVALID_ARGUMENT);
    o = mo_default_mjcf_options();
    o.friction = NAN;
    CHECK(mo_mjcf_load(w, DATA "arm3.xml", &o, &m, err, sizeof err) == MO_ERR_INVALID_ARGUMENT);
    /* position actuators need an articulation: refused in maximal, nothing left behind */
    static const char *act = "<mujoco>\n<worldbody>\n<body name='a'>\n<joint name='j'/>\n<geom size='1'/>\n</body>\n"
                             "</worldbody>\n<actuator>\n<position name='p' joint='j'/>\n</actuator>\n</mujoco>\n";
    mo_vec3 g0 = mo_world_gravity(w);
    CHECK(load(w, put("bad.xml", act), false, &m, err, sizeof err) == MO_ERR_INVALID_ARGUMENT);
    CHECK(mo_world_bodies(w, NULL, 0) == 0);
    CHECK(mo_world_gravity(w).z == g0.z);
    mo_world_destroy(w);
}

int main(void)
{
    {
        mo_world *w = new_world();
        mo_urdf_model m;
        char err[512];
        mo_status st = mo_mjcf_load(w, DATA "arm3.xml", NULL, &m, err, sizeof err);
        mo_world_destroy(w);
        if (st == MO_ERR_UNSUPPORTED) {
            fprintf(stderr, "skip: %s\n", err);
            return 77;
        }
        if (st == MO_OK) mo_urdf_model_free(&m);
    }
    if (test_tmpdir_make(tmp, sizeof tmp, "moreau_mjcf") < 0) return 1;
    test_same();
    test_classes();
    test_angles();
    test_inertia();
    test_mesh();
    test_free();
    test_actuators();
    test_errors();
    test_tmpdir_remove(tmp);
    return check_result("import_mjcf");
}
