/* test_import_mjcf_eq: MJCF ball joints and <equality> connect / weld (mo_mjcf_load).
 *   ball      a ball-jointed compound pendulum released at 30 degrees, both forms, against the same pendulum
 *             built by hand (an articulation with MO_LINK_SPHERICAL; a body on MO_JOINT_SPHERICAL): the same
 *             trajectory over 1 s to 1e-12; the model's joint fields for a ball joint; damping per dof
 *   swing     the spherical pendulum released from rest swings in a plane: its period against the exact
 *             large-amplitude period of the planar compound pendulum, 4 sqrt(I/(m g L)) K(sin(theta0/2)), and
 *             against the same body on a hinge; energy conserved (articulation: midpoint, no drift)
 *   connect   a crank-rocker four-bar closed by <connect> (maximal): the anchor points on the coupler and the
 *             rocker coincide over 1 s while the crank turns; the same scene built by hand through the C API
 *             gives the same trajectory to 1e-12; the equality's record (links, anchor, joint id)
 *   weld      two free bodies welded, falling and spinning: relative pose constant to 1e-9 over 1 s, the pair's
 *             centre of mass in free fall; a weld to the world holds a body in place; inactive equalities are
 *             recorded, not built, with a warning; solref gives a warning; active and solimp from an
 *             <equality> default class
 *   cone      a ball range as the articulation's cone limit: the pendulum let go 30 degrees from hanging rests on
 *             the 20 degree cone's edge (1e-3 rad), never past it by 2e-3 rad, with PGS and Newton
 *   errors    each refusal's exact sentence (ball range not from 0, in the maximal form, past pi; damping and
 *             frictionloss; actuators on a ball joint;
 *             equalities in the articulation form; unknown bodies; unsupported equality kinds and attributes);
 *             the world unchanged */
#define _DEFAULT_SOURCE
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "moreau/articulation.h"
#include "moreau/import.h"
#include "testutil.h"
#include "tmpdir.h"

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

static mo_status load(mo_world *w, const char *path, bool artic, mo_urdf_model *m, char *err, size_t n)
{
    mo_mjcf_options o = mo_default_mjcf_options();
    o.articulation = artic;
    mo_status st = mo_mjcf_load(w, path, &o, m, err, n);
    if (st != MO_OK) fprintf(stderr, "load %s: %s\n", path, err);
    return st;
}

static mo_vec3 vsub(mo_vec3 a, mo_vec3 b) { return (mo_vec3){a.x - b.x, a.y - b.y, a.z - b.z}; }
static double vlen(mo_vec3 a) { return sqrt(a.x * a.x + a.y * a.y + a.z * a.z); }
static double vdist(mo_vec3 a, mo_vec3 b) { return vlen(vsub(a, b)); }
static mo_vec3 qrot(mo_quat q, mo_vec3 v)
{
    /* v + 2 w (u x v) + 2 u x (u x v) */
    mo_vec3 u = {q.x, q.y, q.z};
    mo_vec3 t = {2 * (u.y * v.z - u.z * v.y), 2 * (u.z * v.x - u.x * v.z), 2 * (u.x * v.y - u.y * v.x)};
    return (mo_vec3){v.x + q.w * t.x + u.y * t.z - u.z * t.y, v.y + q.w * t.y + u.z * t.x - u.x * t.z,
                     v.z + q.w * t.z + u.x * t.y - u.y * t.x};
}
static mo_quat qconj(mo_quat q) { return (mo_quat){q.w, -q.x, -q.y, -q.z}; }
static mo_quat qmul(mo_quat a, mo_quat b)
{
    return (mo_quat){a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z, a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
                     a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x, a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w};
}
/* 1 - |<a, b>|: 0 for the same rotation */
static double qdist(mo_quat a, mo_quat b) { return 1.0 - fabs(a.w * b.w + a.x * b.x + a.y * b.y + a.z * b.z); }

static mo_vec3 body_pos(const mo_world *w, mo_body_id b)
{
    mo_vec3 p;
    mo_body_position(w, b, &p);
    return p;
}
static mo_quat body_q(const mo_world *w, mo_body_id b)
{
    mo_quat q;
    mo_body_orientation(w, b, &q);
    return q;
}

/* ---- ball joints ---- */

/* a compound pendulum on a ball joint 0.5 m above its centre, tilted 30 degrees about x; the pivot at (0, 0, 2) */
#define BALL_L 0.5
#define BALL_M 2.0
static const char *ball_xml(const char *joint_type, const char *extra)
{
    static char xml[1024];
    double a = 30 * (PI / 180);
    snprintf(xml, sizeof xml,
             "<mujoco model='ball'>\n"
             "  <option timestep='0.002' gravity='0 0 -9.81'/>\n"
             "  <worldbody>\n"
             "    <body name='bob' pos='0 %.17g %.17g' euler='30 0 0'>\n"
             "      <joint name='pivot' type='%s' axis='1 0 0' pos='0 0 %g' %s/>\n"
             "      <inertial pos='0 0 0' mass='%g' diaginertia='0.01 0.02 0.03'/>\n"
             "    </body>\n"
             "  </worldbody>\n"
             "</mujoco>\n",
             BALL_L * sin(a), 2 - BALL_L * cos(a), joint_type, BALL_L, extra, BALL_M);
    return xml;
}

/* the same pendulum through the C API, in the importer's order (a static world link, then the bob) */
static void ball_by_hand(mo_world *w, bool artic, mo_articulation_id *art, mo_body_id *bob)
{
    double a = 30 * (PI / 180);
    mo_quat q = {cos(a / 2), sin(a / 2), 0, 0};
    mo_vec3 pivot = {0, 0, 2};
    mo_mat3 I = {{{0.01, 0, 0}, {0, 0.02, 0}, {0, 0, 0.03}}};
    mo_world_set_time_step(w, 0.002);
    mo_world_set_gravity(w, (mo_vec3){0, 0, -9.81});
    if (artic) {
        mo_link_def ld[2] = {mo_default_link_def(), mo_default_link_def()};
        ld[0].joint = MO_LINK_FIXED;
        ld[0].mass = 0;
        ld[0].inertia = (mo_mat3){{{0}}};
        ld[1].parent = 0;
        ld[1].joint = MO_LINK_SPHERICAL;
        ld[1].joint_position = pivot;
        ld[1].joint_orientation = q;
        ld[1].mass = BALL_M;
        ld[1].com = (mo_vec3){0, 0, -BALL_L};
        ld[1].inertia = I;
        mo_articulation_def ad = mo_default_articulation_def();
        ad.links = ld;
        ad.link_count = 2;
        CHECK(mo_articulation_create(w, &ad, art) == MO_OK);
        return;
    }
    mo_body_def wd = mo_default_body_def();
    wd.type = MO_BODY_STATIC;
    mo_body_id world;
    CHECK(mo_body_create(w, &wd, &world) == MO_OK);
    mo_body_def bd = mo_default_body_def();
    bd.position = vsub(pivot, qrot(q, (mo_vec3){0, 0, BALL_L}));
    bd.orientation = q;
    bd.mass = BALL_M;
    bd.inertia = I;
    CHECK(mo_body_create(w, &bd, bob) == MO_OK);
    mo_joint_def jd = mo_default_joint_def();
    jd.type = MO_JOINT_SPHERICAL;
    jd.body_a = world;
    jd.body_b = *bob;
    jd.anchor_a = pivot;
    jd.anchor_b = (mo_vec3){0, 0, BALL_L};
    jd.collide_connected = true;
    mo_joint_id j;
    CHECK(mo_joint_create(w, &jd, &j) == MO_OK);
}

/* the bob's centre of mass in the world */
static mo_vec3 bob_com(const mo_world *w, const mo_urdf_model *m, int link)
{
    mo_vec3 p;
    mo_quat q;
    mo_urdf_link_pose(w, m, link, &p, &q);
    mo_vec3 c = qrot(q, m->links[link].com);
    return (mo_vec3){p.x + c.x, p.y + c.y, p.z + c.z};
}

static void test_ball_same(void)
{
    for (int artic = 0; artic < 2; artic++) {
        mo_world *wm = new_world(), *wh = new_world();
        mo_urdf_model m;
        char err[1024];
        if (load(wm, put("ball.xml", ball_xml("ball", "")), artic, &m, err, sizeof err) != MO_OK) {
            CHECK(!"ball load");
            mo_world_destroy(wm);
            mo_world_destroy(wh);
            continue;
        }
        /* the model's record of a ball joint */
        int j = mo_urdf_find_joint(&m, "pivot"), bob = mo_urdf_find_link(&m, "bob");
        CHECK(m.njoints == 1 && j == 0 && bob == 1);
        const mo_urdf_joint *mj = &m.joints[0];
        CHECK(mj->type == MO_URDF_JOINT_BALL && !mj->has_limits && mj->motor == MO_MOTOR_OFF);
        CHECK(mj->axis.x == 1 && mj->axis.y == 0 && mj->axis.z == 0); /* the file's axis is not used */
        CHECK(mj->lower == 0 && mj->upper == 0 && mj->friction == 0 && mj->effort == 0);
        CHECK(artic ? mo_joint_id_is_null(mj->joint) : !mo_joint_id_is_null(mj->joint));
        CHECK_NEAR(vdist(mj->origin_position, (mo_vec3){0, 0, 2}), 0, 1e-15);
        mo_articulation_id ah = {0, 0};
        mo_body_id bh = {0, 0};
        ball_by_hand(wh, artic, &ah, &bh);
        if (artic) {
            int nl, nq, nv;
            CHECK(mo_articulation_size(wm, m.articulation, &nl, &nq, &nv) == MO_OK && nl == 2 && nq == 4 && nv == 3);
        }
        double worst = 0;
        for (int s = 0; s < 500; s++) { /* 1 s at 2 ms */
            mo_world_step(wm);
            mo_world_step(wh);
            if (artic) {
                double a[4], b[4], av[3], bv[3];
                mo_articulation_get_q(wm, m.articulation, a, 4);
                mo_articulation_get_q(wh, ah, b, 4);
                mo_articulation_get_qdot(wm, m.articulation, av, 3);
                mo_articulation_get_qdot(wh, ah, bv, 3);
                for (int i = 0; i < 4; i++) worst = fmax(worst, fabs(a[i] - b[i]));
                for (int i = 0; i < 3; i++) worst = fmax(worst, fabs(av[i] - bv[i]));
            } else {
                worst = fmax(worst, vdist(body_pos(wm, m.links[bob].body), body_pos(wh, bh)));
                worst = fmax(worst, qdist(body_q(wm, m.links[bob].body), body_q(wh, bh)));
            }
        }
        printf("ball %s: imported vs by hand over 1 s: max difference %.3g\n", artic ? "articulation" : "maximal",
               worst);
        CHECK_NEAR(worst, 0, 1e-12);
        mo_vec3 c = bob_com(wm, &m, bob);
        CHECK(fabs(c.y - 0.25) > 0.05); /* it swung */
        mo_urdf_model_free(&m);
        mo_world_destroy(wm);
        mo_world_destroy(wh);
    }
    /* damping on the articulation link, per dof: a damped pendulum loses energy */
    mo_world *w = new_world();
    mo_urdf_model m;
    char err[1024];
    if (load(w, put("ballc.xml", ball_xml("ball", "damping='0.2' armature='0.001'")), true, &m, err, sizeof err) ==
        MO_OK) {
        CHECK_NEAR(m.joints[0].damping, 0.2, 0);
        double M[9];
        CHECK(mo_articulation_mass_matrix(w, m.articulation, M, 9) == MO_OK);
        /* about the pivot: I + m L^2 on x and y, I_zz on z (L along z), plus the armature */
        CHECK_NEAR(M[0], 0.01 + BALL_M * BALL_L * BALL_L + 0.001, 1e-12);
        CHECK_NEAR(M[4], 0.02 + BALL_M * BALL_L * BALL_L + 0.001, 1e-12);
        CHECK_NEAR(M[8], 0.03 + 0.001, 1e-12);
        double k0, p0, k1, p1;
        mo_articulation_energy(w, m.articulation, &k0, &p0);
        for (int s = 0; s < 500; s++) mo_world_step(w);
        mo_articulation_energy(w, m.articulation, &k1, &p1);
        printf("ball damping 0.2: energy %.6f J -> %.6f J over 1 s\n", k0 + p0, k1 + p1);
        CHECK(k1 + p1 < k0 + p0 - 0.05);
        mo_urdf_model_free(&m);
    } else CHECK(!"damped ball load");
    mo_world_destroy(w);
}

/* a ball range is a cone limit on the articulation link (mo_articulation_set_cone_limit): the pendulum let go
   30 degrees from hanging (its reference pose) swings toward hanging and comes to rest on the 20 degree cone's
   edge, with PGS and with Newton */
static void test_ball_cone(void)
{
    const mo_solver_kind kinds[] = {MO_SOLVER_PGS, MO_SOLVER_NEWTON};
    for (int k = 0; k < 2; k++) {
        mo_world *w = new_world();
        mo_urdf_model m;
        char err[1024];
        if (load(w, put("cone.xml", ball_xml("ball", "range='0 20' damping='0.05'")), true, &m, err, sizeof err) !=
            MO_OK) {
            CHECK(!"cone load");
            mo_world_destroy(w);
            return;
        }
        const double A = 20 * (PI / 180);
        const mo_urdf_joint *j = &m.joints[0];
        CHECK(j->type == MO_URDF_JOINT_BALL && j->has_limits && j->lower == 0);
        CHECK_NEAR(j->upper, A, 1e-15);
        double cone = 0;
        CHECK(mo_articulation_cone_limit(w, m.articulation, j->child_link, &cone) == MO_OK && cone == j->upper);
        mo_solver_settings ss = mo_default_solver_settings();
        ss.kind = kinds[k];
        CHECK(mo_world_set_solver(w, &ss) == MO_OK);
        double theta_max = 0;
        for (int s = 0; s < 2500; s++) { /* 5 s at the file's 2 ms */
            CHECK(mo_world_step(w) == MO_OK);
            double q[4];
            CHECK(mo_articulation_get_joint(w, m.articulation, j->child_link, q, NULL) == MO_OK);
            theta_max = fmax(theta_max, 2 * atan2(sqrt(q[1] * q[1] + q[2] * q[2] + q[3] * q[3]), fabs(q[0])));
        }
        double q[4], v[3];
        CHECK(mo_articulation_get_joint(w, m.articulation, j->child_link, q, v) == MO_OK);
        double theta = 2 * atan2(sqrt(q[1] * q[1] + q[2] * q[2] + q[3] * q[3]), fabs(q[0]));
        double speed = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
        printf("ball range 0 20 (%s): rests at %.6f deg (largest %.4f deg), speed %.2g rad/s\n",
               k ? "Newton" : "PGS", theta * 180 / PI, theta_max * 180 / PI, speed);
        CHECK(fabs(theta - A) < 1e-3);
        CHECK(theta_max < A + 2e-3);
        CHECK(speed < 1e-3);
        mo_urdf_model_free(&m);
        mo_world_destroy(w);
    }
}

/* complete elliptic integral of the first kind K(k) by the arithmetic-geometric mean */
static double ellip_k(double k)
{
    double a = 1, b = sqrt(1 - k * k);
    for (int i = 0; i < 40; i++) {
        double an = 0.5 * (a + b);
        b = sqrt(a * b);
        a = an;
    }
    return PI / (2 * a);
}

/* the swing angle's rate about x changes sign: the times of the first three turns (s); energy drift (J) */
static void swing(const char *joint_type, bool artic, double turn[3], double *drift)
{
    mo_world *w = new_world();
    mo_urdf_model m;
    char err[1024];
    turn[0] = turn[1] = turn[2] = -1;
    *drift = INFINITY;
    if (load(w, put("swing.xml", ball_xml(joint_type, "")), artic, &m, err, sizeof err) != MO_OK) {
        CHECK(!"swing load");
        mo_world_destroy(w);
        return;
    }
    double h = mo_world_time_step(w), e0 = 0, worst = 0, prev = 0, off_plane = 0;
    int nt = 0;
    for (int s = 0; s <= 2000 && nt < 3; s++) { /* up to 4 s */
        mo_vec3 c = bob_com(w, &m, 1);
        mo_vec3 v;
        if (artic) {
            mo_vec3 wv;
            mo_articulation_link_velocity(w, m.articulation, 1, &wv, NULL);
            v = wv;
        } else mo_body_angular_velocity(w, m.links[1].body, &v);
        double e;
        if (artic) {
            double k, p;
            mo_articulation_energy(w, m.articulation, &k, &p);
            e = k + p;
        } else {
            mo_vec3 lv;
            mo_body_linear_velocity(w, m.links[1].body, &lv);
            mo_vec3 wl = qrot(qconj(body_q(w, m.links[1].body)), v); /* body axes */
            e = 0.5 * BALL_M * (lv.x * lv.x + lv.y * lv.y + lv.z * lv.z) +
                0.5 * (0.01 * wl.x * wl.x + 0.02 * wl.y * wl.y + 0.03 * wl.z * wl.z) + BALL_M * 9.81 * c.z;
        }
        if (s == 0) e0 = e;
        worst = fmax(worst, fabs(e - e0));
        off_plane = fmax(off_plane, fabs(c.x));
        /* the swing rate is v.x; a sign change between steps: interpolate the time */
        if (s > 1 && (prev < 0) != (v.x < 0)) turn[nt++] = h * (s - 1 + prev / (prev - v.x));
        prev = v.x;
        mo_world_step(w);
    }
    *drift = worst;
    CHECK_NEAR(off_plane, 0, 1e-9); /* released from rest: a planar swing */
    mo_urdf_model_free(&m);
    mo_world_destroy(w);
}

static void test_swing(void)
{
    /* exact period of the planar compound pendulum: I about the pivot = I_xx + m L^2, amplitude 30 degrees */
    double Ip = 0.01 + BALL_M * BALL_L * BALL_L, th0 = 30 * (PI / 180);
    double T = 4 * sqrt(Ip / (BALL_M * 9.81 * BALL_L)) * ellip_k(sin(th0 / 2));
    for (int artic = 0; artic < 2; artic++) {
        double tb[3], th[3], db, dh;
        swing("ball", artic, tb, &db);
        swing("hinge", artic, th, &dh);
        /* turns at T/2, T, 3T/2 (release at rest is the first extreme); a full period from the first to the third */
        double Tb = tb[2] - tb[0], Th = th[2] - th[0];
        printf("swing %s: period ball %.6f s, hinge %.6f s, exact %.6f s; energy drift ball %.3g J, hinge %.3g J "
               "(of %.3g J)\n", artic ? "articulation" : "maximal", Tb, Th, T, db, dh,
               BALL_M * 9.81 * BALL_L * (1 - cos(th0)));
        /* tolerance: the step (2 ms) shifts the period by O(h^2 / T^2) of T, ~1e-5 here; 2e-4 T (0.3 ms, a
           sixth of a step) bounds it with the turns' linear interpolation */
        CHECK_NEAR(Tb, T, 2e-4 * T);
        CHECK_NEAR(Tb, Th, 2e-4 * T);
        /* energy: the articulation's midpoint rule has no drift (1e-9 of the 4.9 J swing energy... a 1e-6 J
           bound); the maximal joint's position correction may take or give a little: 1 % of the swing energy */
        double E = BALL_M * 9.81 * BALL_L * (1 - cos(th0));
        CHECK(db < (artic ? 1e-6 : 1e-2 * E));
    }
}

/* ---- connect: a crank-rocker four-bar ----
 *
 *        coupler (0, 0.2) -> anchor (0.6, 0.5)        y right, z up; hinges about x
 *          o-------------------o
 *          | crank 0.2         | rocker 0.5
 *          o (0, 0)            o (0.6, 0)
 * Grashof (0.2 + 0.67 < 0.5 + 0.6): the crank turns round, the rocker rocks. No geoms: no contacts. */
static const char *fourbar_xml =
    "<mujoco model='fourbar'>\n"
    "  <option timestep='0.002'/>\n"
    "  <worldbody>\n"
    "    <body name='crank'>\n"
    "      <joint name='j1' axis='1 0 0'/>\n"
    "      <inertial pos='0 0 0.1' mass='1' diaginertia='0.004 0.004 0.0001'/>\n"
    "      <body name='coupler' pos='0 0 0.2'>\n"
    "        <joint name='j2' axis='1 0 0'/>\n"
    "        <inertial pos='0 0.3 0.15' mass='1.5' diaginertia='0.06 0.01 0.05'/>\n"
    "      </body>\n"
    "    </body>\n"
    "    <body name='rocker' pos='0 0.6 0'>\n"
    "      <joint name='j3' axis='1 0 0'/>\n"
    "      <inertial pos='0 0 0.25' mass='1.2' diaginertia='0.025 0.025 0.0001'/>\n"
    "    </body>\n"
    "  </worldbody>\n"
    "  <equality>\n"
    "    <connect name='loop' body1='coupler' body2='rocker' anchor='0 0.6 0.3' solref='0.01 1'/>\n"
    "  </equality>\n"
    "</mujoco>\n";

static mo_body_id hand_body(mo_world *w, mo_vec3 p, double mass, mo_vec3 diag)
{
    mo_body_def bd = mo_default_body_def();
    bd.position = p;
    bd.mass = mass;
    bd.inertia = (mo_mat3){{{diag.x, 0, 0}, {0, diag.y, 0}, {0, 0, diag.z}}};
    mo_body_id b;
    CHECK(mo_body_create(w, &bd, &b) == MO_OK);
    return b;
}

static mo_joint_id hand_joint(mo_world *w, mo_joint_type t, mo_body_id a, mo_body_id b, mo_vec3 pa, mo_vec3 pb)
{
    mo_joint_def jd = mo_default_joint_def();
    jd.type = t;
    jd.body_a = a;
    jd.body_b = b;
    jd.anchor_a = pa;
    jd.anchor_b = pb;
    jd.axis_a = jd.axis_b = (mo_vec3){1, 0, 0};
    jd.collide_connected = true;
    mo_joint_id j;
    CHECK(mo_joint_create(w, &jd, &j) == MO_OK);
    return j;
}

/* the four-bar through the C API, in the importer's order: world, crank, coupler, rocker; j1, j2, j3; the loop */
static void fourbar_by_hand(mo_world *w, mo_body_id b[4])
{
    mo_world_set_time_step(w, 0.002);
    mo_body_def wd = mo_default_body_def();
    wd.type = MO_BODY_STATIC;
    CHECK(mo_body_create(w, &wd, &b[0]) == MO_OK);
    mo_vec3 pc = {0, 0.3, 0.2 + 0.15}, pr = {0, 0.6, 0.25};
    b[1] = hand_body(w, (mo_vec3){0, 0, 0.1}, 1, (mo_vec3){0.004, 0.004, 0.0001});
    b[2] = hand_body(w, pc, 1.5, (mo_vec3){0.06, 0.01, 0.05});
    b[3] = hand_body(w, pr, 1.2, (mo_vec3){0.025, 0.025, 0.0001});
    hand_joint(w, MO_JOINT_REVOLUTE, b[0], b[1], (mo_vec3){0, 0, 0}, (mo_vec3){0, 0, -0.1});
    hand_joint(w, MO_JOINT_REVOLUTE, b[1], b[2], (mo_vec3){0, 0, 0.2 - 0.1}, (mo_vec3){0, -0.3, -0.15});
    hand_joint(w, MO_JOINT_REVOLUTE, b[0], b[3], (mo_vec3){0, 0.6, 0}, (mo_vec3){0, 0, -0.25});
    mo_vec3 anchor = {0, 0.6, 0.2 + 0.3};
    hand_joint(w, MO_JOINT_SPHERICAL, b[2], b[3], vsub(anchor, pc), vsub(anchor, pr));
}

static void test_connect(void)
{
    mo_world *wm = new_world(), *wh = new_world();
    mo_urdf_model m;
    char err[1024];
    if (load(wm, put("fourbar.xml", fourbar_xml), false, &m, err, sizeof err) != MO_OK) {
        CHECK(!"four-bar load");
        mo_world_destroy(wm);
        mo_world_destroy(wh);
        return;
    }
    int cr = mo_urdf_find_link(&m, "crank"), co = mo_urdf_find_link(&m, "coupler"), ro = mo_urdf_find_link(&m, "rocker");
    CHECK(m.nequalities == 1 && m.equalities != NULL);
    if (m.nequalities != 1) {
        mo_urdf_model_free(&m);
        mo_world_destroy(wm);
        mo_world_destroy(wh);
        return;
    }
    const mo_mjcf_equality *e = &m.equalities[0];
    CHECK(strcmp(e->name, "loop") == 0 && e->type == MO_MJCF_EQUALITY_CONNECT && e->active && e->line == 18);
    CHECK(e->link1 == co && e->link2 == ro && mo_joint_is_valid(wm, e->joint));
    CHECK(e->anchor.x == 0 && e->anchor.y == 0.6 && e->anchor.z == 0.3);
    /* the solref warning */
    CHECK(m.nwarnings == 1);
    if (m.nwarnings == 1) {
        char want[1024];
        snprintf(want, sizeof want, "%s/fourbar.xml:18: connect 'loop': solref and solimp are ignored: the joint is "
                 "rigid (the world's joint_compliance applies)", tmp);
        CHECK_STR(m.warnings[0].text, want);
    }
    mo_body_id hb[4];
    fourbar_by_hand(wh, hb);
    /* the crank set turning at 6 rad/s; the constraints carry the rest along in the first step */
    mo_body_set_velocity(wm, m.links[cr].body, (mo_vec3){0, -0.6, 0}, (mo_vec3){6, 0, 0});
    mo_body_set_velocity(wh, hb[1], (mo_vec3){0, -0.6, 0}, (mo_vec3){6, 0, 0});
    double worst = 0, gap = 0, tree = 0;
    int ids[3] = {cr, co, ro};
    for (int s = 0; s < 500; s++) { /* 1 s */
        mo_world_step(wm);
        mo_world_step(wh);
        for (int i = 0; i < 3; i++) {
            mo_body_id a = m.links[ids[i]].body, b = hb[i + 1];
            worst = fmax(worst, fmax(vdist(body_pos(wm, a), body_pos(wh, b)), qdist(body_q(wm, a), body_q(wh, b))));
        }
        /* the anchor on the coupler (link frame) and on the rocker: (0, 0, 0.5) in its frame */
        mo_vec3 p1, p2;
        mo_quat q1, q2;
        mo_urdf_link_pose(wm, &m, co, &p1, &q1);
        mo_urdf_link_pose(wm, &m, ro, &p2, &q2);
        mo_vec3 a1 = qrot(q1, e->anchor), a2 = qrot(q2, (mo_vec3){0, 0, 0.5});
        gap = fmax(gap, vdist((mo_vec3){p1.x + a1.x, p1.y + a1.y, p1.z + a1.z},
                              (mo_vec3){p2.x + a2.x, p2.y + a2.y, p2.z + a2.z}));
        double je = 0, eqe = 0;
        for (int k = 0; k < m.njoints; k++) {
            mo_joint_error(wm, m.joints[k].joint, &je);
            tree = fmax(tree, je);
        }
        mo_joint_error(wm, e->joint, &eqe);
        CHECK_NEAR(eqe, 0, 1e-3);
    }
    mo_quat qc;
    mo_body_orientation(wm, m.links[cr].body, &qc);
    double turned = 2 * atan2(qc.x, qc.w);
    printf("connect: imported vs by hand %.3g; anchors apart at most %.3g m (tree hinges %.3g m); crank at %.3f rad\n",
           worst, gap, tree, turned);
    CHECK_NEAR(worst, 0, 1e-12);
    /* tolerance: the joints are solved to the solver's tolerance and position-corrected each step; the loop
       holds to 0.1 mm on links of 0.2 - 0.67 m (5e-4 of the shortest), as its own hinges do */
    CHECK_NEAR(gap, 0, 1e-4);
    CHECK(fabs(turned) > 0.5); /* the crank turned */
    mo_urdf_model_free(&m);
    mo_world_destroy(wm);
    mo_world_destroy(wh);
}

/* ---- weld ---- */

static const char *weld_xml =
    "<mujoco model='weld'>\n"
    "  <option timestep='0.002'/>\n"
    "  <worldbody>\n"
    "    <body name='a' pos='0 0 3'>\n"
    "      <freejoint/>\n"
    "      <geom type='box' size='0.2 0.1 0.05' density='500'/>\n"
    "    </body>\n"
    "    <body name='b' pos='0.3 0.1 3.2' euler='0 30 0'>\n"
    "      <freejoint/>\n"
    "      <geom type='capsule' size='0.05 0.2' density='800'/>\n"
    "    </body>\n"
    "    <body name='c' pos='2 0 1'>\n"
    "      <joint name='hc' axis='0 1 0' pos='0.5 0 0'/>\n"
    "      <geom type='sphere' size='0.1'/>\n"
    "    </body>\n"
    "  </worldbody>\n"
    "  <contact><exclude body1='a' body2='b'/></contact>\n"
    "  <equality>\n"
    "    <weld body1='b' body2='a' relpose='0 1 0 0 0 0 0' torquescale='1'/>\n"
    "    <weld name='hold' body1='c' anchor='2 0 1.5'/>\n"
    "    <connect name='off' body1='a' anchor='0 0 0' active='false'/>\n"
    "  </equality>\n"
    "</mujoco>\n";

/* the weld pair released at rest (mode 0), a pushed through the weld point (1; the pair then turns about its
   centre of mass), a pushed and spun (2), over 1 s: the largest change of b's pose in a's frame (m, 1 - |<q, q0>|),
   of the pair's centre of mass from free fall (m), of the world-welded c (m); the pair's momentum after the first
   step against m_a v + (m_a + m_b) g h (kg m/s); how far b got from where it would have fallen alone (m) */
static void weld_run(int mode, double out[6])
{
    for (int i = 0; i < 6; i++) out[i] = INFINITY;
    mo_world *w = new_world();
    mo_urdf_model m;
    char err[1024];
    if (load(w, put("weld.xml", weld_xml), false, &m, err, sizeof err) != MO_OK) {
        CHECK(!"weld load");
        mo_world_destroy(w);
        return;
    }
    int a = mo_urdf_find_link(&m, "a"), b = mo_urdf_find_link(&m, "b"), c = mo_urdf_find_link(&m, "c");
    CHECK(m.nequalities == 3);
    if (m.nequalities == 3) {
        CHECK(strcmp(m.equalities[0].name, "equality0") == 0 && m.equalities[0].type == MO_MJCF_EQUALITY_WELD);
        CHECK(m.equalities[0].link1 == b && m.equalities[0].link2 == a);
        CHECK(strcmp(m.equalities[1].name, "hold") == 0 && m.equalities[1].link2 == 0); /* the world link */
        CHECK(!m.equalities[2].active && mo_joint_id_is_null(m.equalities[2].joint));
        CHECK(mo_joint_is_valid(w, m.equalities[0].joint) && mo_joint_is_valid(w, m.equalities[1].joint));
    }
    CHECK(m.nwarnings == 1);
    if (m.nwarnings == 1) {
        char want[1024];
        snprintf(want, sizeof want, "%s/weld.xml:21: connect 'off': active is false: recorded, not built", tmp);
        CHECK_STR(m.warnings[0].text, want);
    }
    mo_body_id ba = m.links[a].body, bb = m.links[b].body, bc = m.links[c].body;
    double ma, mb;
    mo_body_mass(w, ba, &ma, NULL);
    mo_body_mass(w, bb, &mb, NULL);
    mo_quat r0 = qmul(qconj(body_q(w, ba)), body_q(w, bb));
    mo_vec3 d0 = qrot(qconj(body_q(w, ba)), vsub(body_pos(w, bb), body_pos(w, ba)));
    mo_vec3 pc0 = body_pos(w, bc);
    mo_vec3 push = mode ? (mo_vec3){0.5, 0, 1} : (mo_vec3){0, 0, 0}, pb0 = body_pos(w, bb);
    mo_body_set_velocity(w, ba, push, mode == 2 ? (mo_vec3){0.3, -0.2, 2} : (mo_vec3){0, 0, 0});
    /* the first step shares the push: b, at rest, is carried along; the joint's impulses cancel in the sum */
    mo_world_step(w);
    double g = mo_world_gravity(w).z, h = mo_world_time_step(w);
    mo_vec3 va1, vb1;
    mo_body_linear_velocity(w, ba, &va1);
    mo_body_linear_velocity(w, bb, &vb1);
    out[4] = vdist((mo_vec3){ma * va1.x + mb * vb1.x, ma * va1.y + mb * vb1.y, ma * va1.z + mb * vb1.z},
                   (mo_vec3){ma * push.x, ma * push.y, ma * push.z + (ma + mb) * g * h});
    mo_vec3 com0 = {0, 0, 0}, v0 = {0, 0, 0};
    double worst_p = 0, worst_q = 0, worst_c = 0, hold = 0;
    for (int s = 0; s < 500; s++) {
        mo_vec3 pa = body_pos(w, ba), pb = body_pos(w, bb), va, vbb;
        mo_quat qa = body_q(w, ba), qb = body_q(w, bb);
        mo_vec3 com = {(ma * pa.x + mb * pb.x) / (ma + mb), (ma * pa.y + mb * pb.y) / (ma + mb),
                       (ma * pa.z + mb * pb.z) / (ma + mb)};
        if (s == 0) {
            mo_body_linear_velocity(w, ba, &va);
            mo_body_linear_velocity(w, bb, &vbb);
            com0 = com;
            v0 = (mo_vec3){(ma * va.x + mb * vbb.x) / (ma + mb), (ma * va.y + mb * vbb.y) / (ma + mb),
                           (ma * va.z + mb * vbb.z) / (ma + mb)};
        }
        /* semi-implicit Euler: z(t) = z0 + v0 t + g t (t + h) / 2 exactly, up to round-off */
        double t = h * s;
        mo_vec3 fall = {com0.x + v0.x * t, com0.y + v0.y * t, com0.z + v0.z * t + 0.5 * g * t * (t + h)};
        worst_c = fmax(worst_c, vdist(com, fall));
        worst_p = fmax(worst_p, vdist(qrot(qconj(qa), vsub(pb, pa)), d0));
        worst_q = fmax(worst_q, qdist(qmul(qconj(qa), qb), r0));
        hold = fmax(hold, vdist(body_pos(w, bc), pc0));
        mo_world_step(w);
    }
    out[0] = worst_p;
    out[1] = worst_q;
    out[2] = worst_c;
    out[3] = hold;
    double t1 = 501 * h; /* b alone, from rest: z0 + g t (t + h) / 2 */
    out[5] = vdist(body_pos(w, bb), (mo_vec3){pb0.x, pb0.y, pb0.z + 0.5 * g * t1 * (t1 + h)});
    CHECK(body_pos(w, ba).z < 0); /* it fell (4.9 m in 1 s, less the push up) */
    mo_urdf_model_free(&m);
    mo_world_destroy(w);
}

static void test_weld(void)
{
    /* control: without 'hold', c swings about its hinge 0.5 m to its side */
    {
        char xml[2048];
        const char *at = strstr(weld_xml, "<weld name='hold'");
        snprintf(xml, sizeof xml, "%.*s<weld active='false' name='hold'%s", (int)(at - weld_xml), weld_xml,
                 at + strlen("<weld name='hold'"));
        mo_world *w = new_world();
        mo_urdf_model m;
        char err[1024];
        if (load(w, put("weld_off.xml", xml), false, &m, err, sizeof err) == MO_OK) {
            mo_body_id bc = m.links[mo_urdf_find_link(&m, "c")].body;
            mo_vec3 p0 = body_pos(w, bc);
            for (int s = 0; s < 500; s++) mo_world_step(w);
            CHECK(vdist(body_pos(w, bc), p0) > 0.1);
            CHECK(m.nequalities == 3 && mo_joint_id_is_null(m.equalities[1].joint) && m.nwarnings == 2);
            mo_urdf_model_free(&m);
        } else CHECK(!"weld control load");
        mo_world_destroy(w);
    }
    static const char *const what[] = {"at rest", "pushed", "pushed and spun"};
    for (int mode = 0; mode < 3; mode++) {
        double r[6];
        weld_run(mode, r);
        printf("weld %s: relative position %.3g m, rotation %.3g (1 - |<q, q0>|), centre of mass vs free fall %.3g m, "
               "welded to the world %.3g m, momentum %.3g kg m/s; b %.3f m from its lone fall\n", what[mode], r[0],
               r[1], r[2], r[3], r[4], r[5]);
        CHECK_NEAR(r[2], 0, 1e-9); /* the joint's forces are internal: the centre of mass falls freely */
        CHECK_NEAR(r[3], 0, 1e-9);
        CHECK_NEAR(r[4], 0, 1e-9);
        if (mode == 0) { /* falling together from rest: nothing loads the weld */
            CHECK_NEAR(r[0], 0, 1e-9);
            CHECK_NEAR(r[1], 0, 1e-9);
            CHECK_NEAR(r[5], 0, 1e-9);
        } else {
            /* the weld carries b along (0.5 m and more from its lone fall) while the pair turns at up to 2 rad/s:
               the velocity-level solve with SPOOK stabilisation (damping_steps 4) lags by O(h^2 omega^2 r) a
               step and settles; 0.5 mm on a 0.36 m pair, a thousandth of b's travel (the four-bar's own hinges
               err by 0.3 mm at 6 rad/s) */
            CHECK(r[5] > 0.4);
            CHECK_NEAR(r[0], 0, 5e-4);
            CHECK_NEAR(r[1], 0, 1e-7);
        }
    }
}

/* <default><equality>: active and solref from the class */
static void test_eq_classes(void)
{
    static const char *xml =
        "<mujoco>\n"
        "  <default>\n"
        "    <equality active='false'/>\n"
        "    <default class='on'><equality active='true' solimp='0.9 0.95 0.001'/></default>\n"
        "  </default>\n"
        "  <worldbody>\n"
        "    <body name='a'><joint type='ball'/><geom size='0.1'/></body>\n"
        "    <body name='b' pos='1 0 0'><joint type='ball'/><geom size='0.1'/></body>\n"
        "  </worldbody>\n"
        "  <equality>\n"
        "    <connect name='off' body1='a' body2='b' anchor='0.5 0 0'/>\n"
        "    <connect name='on' class='on' body1='a' body2='b' anchor='0.5 0 0'/>\n"
        "  </equality>\n"
        "</mujoco>\n";
    mo_world *w = new_world();
    mo_urdf_model m;
    char err[1024];
    if (load(w, put("eqcls.xml", xml), false, &m, err, sizeof err) == MO_OK) {
        CHECK(m.nequalities == 2 && m.nwarnings == 2);
        if (m.nequalities == 2) {
            CHECK(!m.equalities[0].active && mo_joint_id_is_null(m.equalities[0].joint));
            CHECK(m.equalities[1].active && mo_joint_is_valid(w, m.equalities[1].joint));
        }
        if (m.nwarnings == 2) {
            CHECK(strstr(m.warnings[0].text, "eqcls.xml:11: connect 'off': active is false: recorded, not built"));
            CHECK(strstr(m.warnings[1].text, "eqcls.xml:12: connect 'on': solref and solimp are ignored"));
        }
        mo_urdf_model_free(&m);
    } else CHECK(!"equality classes load");
    mo_world_destroy(w);
    /* under a free root the world is no link: body2 left out is the world frame (link2 -1); the body hangs from
       the point 0.3 m to its side */
    static const char *root =
        "<mujoco>\n"
        "  <option timestep='0.002'/>\n"
        "  <worldbody>\n"
        "    <body name='r' pos='0 0 1'><freejoint/><geom type='box' size='0.1 0.1 0.1'/></body>\n"
        "  </worldbody>\n"
        "  <equality><connect body1='r' anchor='0.3 0 0'/></equality>\n"
        "</mujoco>\n";
    w = new_world();
    if (load(w, put("eqroot.xml", root), false, &m, err, sizeof err) == MO_OK) {
        CHECK(m.nequalities == 1 && m.equalities[0].link1 == 0 && m.equalities[0].link2 == -1);
        mo_body_id b = m.links[0].body;
        double gap = 0, low = INFINITY;
        for (int s = 0; s < 1000; s++) { /* 2 s */
            mo_world_step(w);
            low = fmin(low, body_pos(w, b).z);
            mo_vec3 a = qrot(body_q(w, b), (mo_vec3){0.3, 0, 0}), p = body_pos(w, b);
            gap = fmax(gap, vdist((mo_vec3){p.x + a.x, p.y + a.y, p.z + a.z}, (mo_vec3){0.3, 0, 1}));
        }
        printf("connect to the world under a free root: anchor within %.3g m; the body's centre down to z = %.3f\n",
               gap, low);
        /* swinging at up to 8 rad/s on 0.3 m: the SPOOK lag O(h^2 omega^2 r) a step, as the weld's (0.5 mm) */
        CHECK_NEAR(gap, 0, 5e-4);
        CHECK_NEAR(low, 0.7, 1e-3); /* it swung down to 0.3 m below the pivot */
        mo_urdf_model_free(&m);
    } else CHECK(!"free root connect load");
    mo_world_destroy(w);
}

/* ---- refusals ---- */

typedef struct bad { bool artic; const char *xml; const char *msg; } bad;

#define TWO_BODIES "<mujoco>\n<worldbody>\n<body name='a'>\n<joint/>\n</body>\n<body name='b' pos='1 0 0'>\n<joint/>\n" \
                   "</body>\n</worldbody>\n<equality>\n"

static void test_errors(void)
{
    static const bad cases[] = {
        {true, "<mujoco>\n<worldbody>\n<body name='a'>\n<joint type='ball' range='10 60'/>\n</body>\n</worldbody>\n"
         "</mujoco>\n",
         "bad.xml:4: joint 'a_joint': a ball joint's range must start at 0 (its second value is the cone's angle), "
         "got 10"},
        {false, "<mujoco>\n<default><joint range='-45 45'/></default>\n<worldbody>\n<body name='a'>\n"
         "<joint name='b' type='ball'/>\n</body>\n</worldbody>\n</mujoco>\n",
         "bad.xml:5: joint 'b': a ball joint's range must start at 0 (its second value is the cone's angle), got -45"},
        {false, "<mujoco>\n<worldbody>\n<body name='a'>\n<joint type='ball' range='0 60'/>\n</body>\n</worldbody>\n"
         "</mujoco>\n",
         "bad.xml:4: joint 'a_joint': a range on a ball joint (a cone limit) is supported by articulation imports "
         "only (a spherical joint between bodies has no limits; leave range out, or set limited=\"false\")"},
        {true, "<mujoco>\n<worldbody>\n<body name='a'>\n<joint type='ball' range='0 200'/>\n</body>\n</worldbody>\n"
         "</mujoco>\n",
         "bad.xml:4: joint 'a_joint': the cone's angle 3.49066 rad (range 200) is more than pi"},
        {false, "<mujoco>\n<worldbody>\n<body name='a'>\n<joint type='ball' damping='1'/>\n</body>\n</worldbody>\n"
         "</mujoco>\n",
         "bad.xml:4: joint 'a_joint': damping on a ball joint is supported by articulation imports only (a spherical "
         "joint between bodies has no motor to carry it)"},
        {true, "<mujoco>\n<worldbody>\n<body name='a'>\n<joint type='ball' frictionloss='1'/>\n</body>\n</worldbody>\n"
         "</mujoco>\n",
         "bad.xml:4: joint 'a_joint': frictionloss on a ball joint is not supported (dry friction rows are for hinge "
         "and slide joints)"},
        {true, "<mujoco>\n<worldbody>\n<body name='a'>\n<joint name='j' type='ball'/>\n</body>\n</worldbody>\n"
         "<actuator>\n<motor name='m' joint='j'/>\n</actuator>\n</mujoco>\n",
         "bad.xml:8: motor 'm': joint 'j' is a ball joint: actuators on ball joints are not supported (drives are "
         "for hinge and slide joints)"},
        {false, "<mujoco>\n<worldbody>\n<body name='a'>\n<joint name='j' type='ball'/>\n</body>\n</worldbody>\n"
         "<actuator>\n<position joint='j'/>\n</actuator>\n</mujoco>\n",
         "bad.xml:8: position '(unnamed)': joint 'j' is a ball joint: actuators on ball joints are not supported "
         "(drives are for hinge and slide joints)"},
        {true, TWO_BODIES "<connect name='c' body1='a' body2='b' anchor='0 0 0'/>\n</equality>\n</mujoco>\n",
         "bad.xml:11: connect 'c': an equality closes a loop, which an articulation (a tree) cannot hold: load with "
         "articulation = false (C) or maximal = true (Lua)"},
        {true, TWO_BODIES "<weld body1='a'/>\n</equality>\n</mujoco>\n",
         "bad.xml:11: weld: an equality closes a loop, which an articulation (a tree) cannot hold: load with "
         "articulation = false (C) or maximal = true (Lua)"},
        {false, TWO_BODIES "<connect body1='nope' anchor='0 0 0'/>\n</equality>\n</mujoco>\n",
         "bad.xml:11: connect: body1 'nope' is not a body of the file"},
        {true, TWO_BODIES "<weld name='w' body1='a' body2='nope'/>\n</equality>\n</mujoco>\n",
         "bad.xml:11: weld 'w': body2 'nope' is not a body of the file"},
        {false, TWO_BODIES "<joint joint1='a_joint' joint2='b_joint'/>\n</equality>\n</mujoco>\n",
         "bad.xml:11: equality: <joint> is not supported (connect and weld are; docs/import.md, MJCF)"},
        {true, TWO_BODIES "<tendon tendon1='t'/>\n</equality>\n</mujoco>\n",
         "bad.xml:11: equality: <tendon> is not supported (connect and weld are; docs/import.md, MJCF)"},
        {false, TWO_BODIES "<flex flex='f'/>\n</equality>\n</mujoco>\n",
         "bad.xml:11: equality: <flex> is not supported (connect and weld are; docs/import.md, MJCF)"},
        {true, TWO_BODIES "<distance geom1='g' geom2='h'/>\n</equality>\n</mujoco>\n",
         "bad.xml:11: equality: <distance> is not supported (connect and weld are; docs/import.md, MJCF)"},
        {false, TWO_BODIES "<weld body1='a' body2='b' relpose='0 0 1 1 0 0 0'/>\n</equality>\n</mujoco>\n",
         "bad.xml:11: weld: relpose is not supported: the weld holds the bodies' relative pose in the model as "
         "written (leave relpose out, or give it the quaternion 0 0 0 0)"},
        {false, TWO_BODIES "<weld body1='a' body2='b' torquescale='0.5'/>\n</equality>\n</mujoco>\n",
         "bad.xml:11: weld: torquescale 0.5 is not supported (must be 1: the weld holds the rotation rigidly)"},
        {false, TWO_BODIES "<connect body1='a' body2='b'/>\n</equality>\n</mujoco>\n",
         "bad.xml:11: connect: no anchor (the point in body1's frame where the bodies are joined)"},
        {false, TWO_BODIES "<connect site1='s' site2='t'/>\n</equality>\n</mujoco>\n",
         "bad.xml:11: connect: site1 and site2 are not supported (give body1, body2 and anchor)"},
        {false, TWO_BODIES "<connect body1='a' body2='a' anchor='0 0 0'/>\n</equality>\n</mujoco>\n",
         "bad.xml:11: connect: body1 and body2 are the same body 'a'"},
        {false, "<mujoco>\n<worldbody>\n<body name='a'/>\n</worldbody>\n<equality>\n<weld body1='a'/>\n</equality>\n"
         "</mujoco>\n",
         "bad.xml:6: weld: body1 'a' and body2 'world' are both fixed to the world: the equality constrains nothing"},
        {false, TWO_BODIES "<weld body1='a' active='maybe'/>\n</equality>\n</mujoco>\n",
         "bad.xml:11: weld: active 'maybe' is not one of false, true"},
        {false, TWO_BODIES "<weld body1='a' foo='1'/>\n</equality>\n</mujoco>\n",
         "bad.xml:11: weld: attribute foo of <weld> is not supported (docs/import.md, MJCF)"},
        {false, TWO_BODIES "<weld/>\n</equality>\n</mujoco>\n", "bad.xml:11: weld: no body1"},
    };
    mo_world *w = new_world();
    mo_vec3 g0 = mo_world_gravity(w);
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const char *path = put("bad.xml", cases[k].xml);
        mo_urdf_model m;
        char err[1024], want[1200];
        mo_mjcf_options o = mo_default_mjcf_options();
        o.articulation = cases[k].artic;
        mo_status st = mo_mjcf_load(w, path, &o, &m, err, sizeof err);
        CHECK(st == MO_ERR_INVALID_ARGUMENT);
        CHECK(m.nlinks == 0 && m.links == NULL && m.nequalities == 0 && m.equalities == NULL);
        snprintf(want, sizeof want, "%s/%s", tmp, cases[k].msg);
        if (strcmp(err, want) != 0) {
            fprintf(stderr, "case %zu:\n  got  %s\n  want %s\n", k, err, want);
            CHECK(!"error sentence");
        }
        /* the world unchanged */
        CHECK(mo_world_bodies(w, NULL, 0) == 0 && mo_world_articulations(w, NULL, 0) == 0);
        CHECK(mo_world_gravity(w).z == g0.z);
        CHECK(strcmp(mo_world_last_error(w), err) == 0);
    }
    mo_world_destroy(w);
}

int main(void)
{
    {
        mo_world *w = new_world();
        mo_urdf_model m;
        char err[512];
        mo_status st = mo_mjcf_load(w, MO_SOURCE_ROOT "/tests/import/data/arm3.xml", NULL, &m, err, sizeof err);
        mo_world_destroy(w);
        if (st == MO_ERR_UNSUPPORTED) {
            fprintf(stderr, "skip: %s\n", err);
            return 77;
        }
        if (st == MO_OK) mo_urdf_model_free(&m);
    }
    if (test_tmpdir_make(tmp, sizeof tmp, "moreau_mjcf_eq") < 0) return 1;
    test_ball_same();
    test_ball_cone();
    test_swing();
    test_connect();
    test_weld();
    test_eq_classes();
    test_errors();
    test_tmpdir_remove(tmp);
    return check_result("import_mjcf_eq");
}
