/* test_import_urdf_artic: URDF robots imported as articulations (mo_urdf_options.articulation).
 *   arm       scenes/models/arm/arm.urdf imported both ways at a yawed, offset base: every link's
 *             world pose at q = 0 equal to the maximal import's (1e-12); names found by
 *             mo_articulation_find_link; the URDF limits read back through mo_articulation_limits (none on
 *             the continuous wrist_3), no warning on limits or collisions; the 10 <collision>
 *             elements as shapes on the link bodies (kinematic; the same shape types, hull sizes and world
 *             poses as the maximal import's, 1e-12; 10 of the world's 20 shapes on link bodies; without
 *             self_collision the link bodies in the robot's collision group, no pair excluded); URDF damping as joint
 *             damping; a free-base import whose gravity-holding force is the total mass (sum of the
 *             file's masses plus massless_link_mass for tool0) times g
 *   massmat   M(q) at a random q against the kinetic energy of the maximal model's bodies (their
 *             masses and inertias) moving with the articulation's link velocities, by polarisation
 *   gravcomp  gravity compensation torques hold the fixed-base arm at a random q for 1 s (drift < 1e-9)
 *   drives    drive_stiffness/drive_damping -> PD drives toward 0 with max_effort = URDF effort
 *   small     a URDF written here: floating base, continuous and prismatic joints, an inertial with
 *             rpy (the kinetic energy of a spin reads the rotated inertia), no warnings, the URDF damping
 *             and friction slowing a free spin (1.0277 -> 0.9797 J in 1 s) and ignore_damping with
 *             ignore_friction keeping its energy (to 1e-6)
 *   limits    a URDF written here: a revolute and a prismatic joint driven past their limits by joint torques
 *             stop at them (1e-6), the rows carrying the torques; a [0, 0] revolute joint free with the
 *             warning, held at 0 with lock_zero_limits; a bound beyond 1e9 is none, a range beyond it refused
 *   friction  a pendulum whose URDF friction (6 N m) exceeds gravity's torque (4.905 N m) holds still 1 s
 *             beside the URDF damping, the row carrying gravity's torque; 4 N m slips, ignore_friction falls
 *   collide   a free box link written here dropped on a plane: its link origin at rest at the box's half
 *             height less the collision origin's offset (1e-6 m), level, still, touching through its link
 *             body; self_collision with exclude_pairs (only pairs of links with bodies excluded), the
 *             exclude_adjacent = false warning, and mo_articulation_destroy taking the link bodies
 *   floating  a URDF written here with the "world link + floating joint" pattern: one articulation of three links
 *             (world and float left out, indices renumbered, an exclude pair naming world ignored), base_link free
 *             at the joint's origin exactly (with the default fixed_base), composed with a base pose (1e-15);
 *             1 s of falling equal on every q and qdot, every step (==), to the same robot without the world
 *             link loaded with fixed_base = false at that pose
 *   errors    floating joint below a link, under a root with mass, with two joints, with a visual; planar joint,
 *             two roots, cycle: exact text, world unchanged */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "moreau/articulation.h"
#include "moreau/import.h"
#include "testutil.h"

#define MODELS MO_SOURCE_ROOT "/scenes/models/"
#define ARM MODELS "arm/arm.urdf"

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

static double quat_dist(mo_quat a, mo_quat b)
{
    return 1.0 - fabs(a.w * b.w + a.x * b.x + a.y * b.y + a.z * b.z);
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

static mo_urdf_options arm_options(bool artic)
{
    mo_urdf_options o = mo_default_urdf_options();
    o.base_position = (mo_vec3){0.5, -0.2, 0.3};
    o.base_orientation = (mo_quat){cos(PI / 4), 0, 0, sin(PI / 4)};
    o.articulation = artic;
    return o;
}

static bool has_warning(const mo_urdf_model *m, const char *text)
{
    for (int i = 0; i < m->nwarnings; i++)
        if (strcmp(m->warnings[i].text, text) == 0) return true;
    return false;
}

static void test_arm(void)
{
    mo_world *w = new_world();
    mo_urdf_options om = arm_options(false), oa = arm_options(true);
    mo_urdf_model mm, ma;
    char err[1024];
    CHECK(mo_urdf_load(w, ARM, &om, &mm, err, sizeof err) == MO_OK);
    mo_status s = mo_urdf_load(w, ARM, &oa, &ma, err, sizeof err);
    CHECK(s == MO_OK);
    if (s != MO_OK) {
        fprintf(stderr, "%s\n", err);
        exit(1);
    }
    CHECK(mo_articulation_is_valid(w, ma.articulation));
    CHECK(mo_articulation_id_is_null(mm.articulation));
    int nl, nq, nv;
    CHECK(mo_articulation_size(w, ma.articulation, &nl, &nq, &nv) == MO_OK);
    CHECK(nl == 11 && nq == 8 && nv == 8); /* 6 arm joints and 2 fingers; palm and tool0 fixed */
    CHECK(ma.nlinks == mm.nlinks && ma.njoints == mm.njoints && ma.ncollisions == 10 && mm.ncollisions == 10);
    double maxd = 0, maxa = 0;
    for (int k = 0; k < ma.nlinks; k++) {
        CHECK_STR(ma.links[k].name, mm.links[k].name);
        /* a link body for each link with collision geometry (all but tool0) */
        CHECK(mo_body_id_is_null(ma.links[k].body) == (strcmp(ma.links[k].name, "tool0") == 0));
        CHECK(ma.links[k].first_collision == mm.links[k].first_collision);
        CHECK(ma.links[k].ncollisions == mm.links[k].ncollisions);
        int idx = -1;
        CHECK(mo_articulation_find_link(w, ma.articulation, ma.links[k].name, &idx) == MO_OK);
        CHECK(idx == k);
        mo_vec3 pa, pm;
        mo_quat qa, qm;
        CHECK(mo_articulation_link_pose(w, ma.articulation, k, &pa, &qa) == MO_OK);
        CHECK(mo_urdf_link_pose(w, &mm, k, &pm, &qm) == MO_OK);
        double d = fmax(fabs(pa.x - pm.x), fmax(fabs(pa.y - pm.y), fabs(pa.z - pm.z)));
        if (d > maxd) maxd = d;
        if (quat_dist(qa, qm) > maxa) maxa = quat_dist(qa, qm);
        mo_vec3 pu;
        mo_quat qu;
        CHECK(mo_urdf_link_pose(w, &ma, k, &pu, &qu) == MO_OK); /* through the model: the articulation's */
        CHECK(pu.x == pa.x && pu.y == pa.y && pu.z == pa.z && qu.w == qa.w);
        /* the same mass as the maximal body */
        double bm = 0;
        CHECK(mo_body_mass(w, mm.links[k].body, &bm, NULL) == MO_OK);
        CHECK_NEAR(ma.links[k].mass, bm, 0);
    }
    printf("arm: link poses at q = 0, max |dp| %.3g m, max 1-|<qa,qm>| %.3g\n", maxd, maxa);
    CHECK(maxd <= 1e-12);
    CHECK(maxa <= 1e-12);
    /* the collision shapes: on the link bodies (kinematic), made as the maximal import makes them (the fixed
       root's mesh a triangle mesh, the moving links' meshes hulls of the same points), at the same world pose */
    double maxs = 0;
    for (int c = 0; c < ma.ncollisions; c++) {
        const mo_urdf_collision *ca = &ma.collisions[c], *cm = &mm.collisions[c];
        CHECK(ca->link == cm->link && ca->type == cm->type && ca->shape_type == cm->shape_type);
        CHECK(ca->hull_points == cm->hull_points);
        mo_shape_info ia;
        CHECK(mo_shape_get_info(w, ca->shape, &ia) == MO_OK);
        CHECK(ia.body.index == ma.links[ca->link].body.index && ia.body_type == MO_BODY_KINEMATIC);
        CHECK(ia.type == cm->shape_type);
        mo_vec3 pa, pm;
        mo_quat qa, qm;
        CHECK(mo_shape_world_pose(w, ca->shape, &pa, &qa) == MO_OK);
        CHECK(mo_shape_world_pose(w, cm->shape, &pm, &qm) == MO_OK);
        maxs = fmax(maxs, fmax(fabs(pa.x - pm.x), fmax(fabs(pa.y - pm.y), fabs(pa.z - pm.z))));
        maxs = fmax(maxs, quat_dist(qa, qm));
    }
    CHECK(ma.collisions[0].shape_type == MO_SHAPE_MESH && ma.collisions[1].shape_type == MO_SHAPE_CONVEX_HULL);
    printf("arm: collision shapes on link bodies, max world pose difference to the maximal import's %.3g\n", maxs);
    CHECK(maxs <= 1e-12);
    /* counted through the world: 10 shapes on link bodies of 20 */
    mo_shape_id all[64];
    int nshapes = mo_world_shapes(w, all, 64), on_links = 0;
    for (int i = 0; i < nshapes; i++) {
        mo_shape_info si;
        CHECK(mo_shape_get_info(w, all[i], &si) == MO_OK);
        for (int k = 0; k < ma.nlinks; k++)
            on_links += !mo_body_id_is_null(ma.links[k].body) && si.body.index == ma.links[k].body.index;
    }
    CHECK(nshapes == 20 && on_links == 10);
    /* without self_collision the link bodies share the robot's collision group, as the maximal import's bodies
       (each import its own: the smallest free from 0x10000); no pair is excluded */
    CHECK(mo_world_excluded_pairs(w, NULL, NULL, 0) == 0);
    CHECK(mm.collision_group == 0x10000 && ma.collision_group == 0x10001);
    uint32_t grp = 0;
    CHECK(mo_articulation_collision_group(w, ma.articulation, &grp) == MO_OK && grp == 0x10001);
    CHECK(mo_body_collision_group(w, ma.links[mo_urdf_find_link(&ma, "link2")].body, &grp) == MO_OK && grp == 0x10001);
    /* a joint is found by its child link's name */
    int j = mo_urdf_find_joint(&ma, "elbow");
    CHECK(j >= 0 && ma.joints[j].child_link == mo_urdf_find_link(&ma, "link3"));
    CHECK(mo_joint_id_is_null(ma.joints[j].joint));
    /* the URDF limits as the articulation's, read back (wrist_3 is continuous: none either way); the body import
       enforces the same ones */
    int nlim = 0;
    for (int k = 0; k < ma.njoints; k++) {
        const mo_urdf_joint *uj = &ma.joints[k];
        if (uj->type == MO_URDF_JOINT_FIXED) continue;
        double lo = 0, hi = 0;
        CHECK(mo_articulation_limits(w, ma.articulation, uj->child_link, &lo, &hi) == MO_OK);
        CHECK(uj->has_limits == mm.joints[k].has_limits);
        if (uj->type == MO_URDF_JOINT_CONTINUOUS) {
            CHECK(!uj->has_limits && lo == -INFINITY && hi == INFINITY);
            continue;
        }
        CHECK(uj->has_limits && lo == uj->lower && hi == uj->upper);
        nlim++;
    }
    CHECK(nlim == 7); /* 5 revolute arm joints and 2 fingers */
    CHECK(ma.joints[mo_urdf_find_joint(&ma, "elbow")].lower == -2.5);
    /* warnings: none on limits or collisions */
    for (int i = 0; i < ma.nwarnings; i++)
        CHECK(strstr(ma.warnings[i].text, "collision") == NULL && strstr(ma.warnings[i].text, "limit") == NULL);
    for (int i = 0; i < ma.nwarnings; i++) printf("  warning: %s\n", ma.warnings[i].text);
    mo_urdf_model_free(&mm);
    mo_urdf_model_free(&ma);
    mo_world_destroy(w);

    /* total mass: a free base holds itself up with m g */
    w = new_world();
    oa.fixed_base = false;
    CHECK(mo_urdf_load(w, ARM, &oa, &ma, err, sizeof err) == MO_OK);
    CHECK(mo_articulation_size(w, ma.articulation, &nl, &nq, &nv) == MO_OK);
    CHECK(nq == 15 && nv == 14);
    double tau[14], mtot = 0;
    for (int k = 0; k < ma.nlinks; k++) mtot += ma.links[k].mass;
    const double file_mass = 5 + 3 + 4 + 2.5 + 1 + 0.8 + 0.3 + 0.5 + 0.1 + 0.1 + 0.01; /* tool0: massless_link_mass */
    CHECK_NEAR(mtot, file_mass, 1e-12);
    CHECK(mo_articulation_gravity_compensation(w, ma.articulation, tau, 14) == MO_OK);
    mo_vec3 g = mo_world_gravity(w);
    /* the root wrench in the root's axes (yawed base: world z is the root's z) */
    printf("arm: free base holding force %.12g N, m g = %.12g N\n", tau[2], -file_mass * g.z);
    CHECK_NEAR(tau[0], 0, 1e-9);
    CHECK_NEAR(tau[1], 0, 1e-9);
    CHECK_NEAR(tau[2], -file_mass * g.z, 1e-9);
    mo_urdf_model_free(&ma);
    mo_world_destroy(w);
}

/* world-frame rotation matrix of q */
static void qmat(mo_quat q, double R[9])
{
    double v[4] = {q.w, q.x, q.y, q.z};
    mat_from_quat(v, R);
}

/* kinetic energy of the maximal model's bodies moving as the articulation's links */
static double body_energy(mo_world *w, const mo_urdf_model *mm, const mo_urdf_model *ma)
{
    double T = 0;
    for (int k = 0; k < ma->nlinks; k++) {
        double m = 0;
        mo_mat3 I;
        mo_body_mass(w, mm->links[k].body, &m, &I);
        if (m == 0) continue;
        mo_vec3 p, om, v;
        mo_quat q;
        mo_articulation_link_pose(w, ma->articulation, k, &p, &q);
        mo_articulation_link_velocity(w, ma->articulation, k, &om, &v);
        double R[9], c[3] = {mm->links[k].com.x, mm->links[k].com.y, mm->links[k].com.z}, rc[3], w3[3] = {om.x, om.y, om.z};
        qmat(q, R);
        mat_vec(R, c, rc);
        double wxr[3];
        cross3(w3, rc, wxr);
        double vc[3] = {v.x + wxr[0], v.y + wxr[1], v.z + wxr[2]};
        double wl[3]; /* body axes = link axes */
        mat_tvec(R, w3, wl);
        double Iw = 0;
        for (int a = 0; a < 3; a++)
            for (int b = 0; b < 3; b++) Iw += wl[a] * I.m[a][b] * wl[b];
        T += 0.5 * m * dot3(vc, vc) + 0.5 * Iw;
    }
    return T;
}

static void test_massmat(void)
{
    mo_world *w = new_world();
    mo_urdf_options om = arm_options(false), oa = arm_options(true);
    mo_urdf_model mm, ma;
    char err[1024];
    CHECK(mo_urdf_load(w, ARM, &om, &mm, err, sizeof err) == MO_OK);
    CHECK(mo_urdf_load(w, ARM, &oa, &ma, err, sizeof err) == MO_OK);
    int nv = 0;
    mo_articulation_size(w, ma.articulation, NULL, NULL, &nv);
    CHECK(nv == 8);
    uint64_t seed = 19;
    double q[8], M[64], E[8], Ti[8], zero[8] = {0};
    for (int i = 0; i < 8; i++) q[i] = sm64_uniform(&seed, -1.5, 1.5);
    q[6] = 0.02, q[7] = -0.01; /* the fingers: metres */
    CHECK(mo_articulation_set_q(w, ma.articulation, q, 8) == MO_OK);
    CHECK(mo_articulation_mass_matrix(w, ma.articulation, M, 64) == MO_OK);
    for (int i = 0; i < 8; i++) {
        memcpy(E, zero, sizeof E);
        E[i] = 1;
        mo_articulation_set_qdot(w, ma.articulation, E, 8);
        Ti[i] = body_energy(w, &mm, &ma);
    }
    double maxe = 0, maxm = 0;
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 8; j++) {
            double Mij;
            if (i == j) Mij = 2 * Ti[i];
            else {
                memcpy(E, zero, sizeof E);
                E[i] = E[j] = 1;
                mo_articulation_set_qdot(w, ma.articulation, E, 8);
                Mij = body_energy(w, &mm, &ma) - Ti[i] - Ti[j];
            }
            if (fabs(Mij - M[8 * i + j]) > maxe) maxe = fabs(Mij - M[8 * i + j]);
            if (fabs(M[8 * i + j]) > maxm) maxm = fabs(M[8 * i + j]);
        }
    printf("massmat: max |M - M_energy| %.3g (max |M| %.3g, M[0][0] %.12g)\n", maxe, maxm, M[0]);
    CHECK(maxe <= 1e-12 * (1 + maxm));
    CHECK(maxm > 0.1);
    mo_urdf_model_free(&mm);
    mo_urdf_model_free(&ma);
    mo_world_destroy(w);
}

static void test_gravcomp(void)
{
    mo_world *w = new_world();
    mo_urdf_options oa = arm_options(true);
    mo_urdf_model ma;
    char err[1024];
    CHECK(mo_urdf_load(w, ARM, &oa, &ma, err, sizeof err) == MO_OK);
    uint64_t seed = 7;
    double q0[8], tau[8], q[8];
    for (int i = 0; i < 8; i++) q0[i] = sm64_uniform(&seed, -1.2, 1.2);
    q0[6] = 0.01, q0[7] = 0.02; /* the fingers within their URDF limits [0, 0.05] m */
    CHECK(mo_articulation_set_q(w, ma.articulation, q0, 8) == MO_OK);
    CHECK(mo_articulation_gravity_compensation(w, ma.articulation, tau, 8) == MO_OK);
    CHECK(mo_articulation_set_torques(w, ma.articulation, tau, 8) == MO_OK);
    for (int s = 0; s < 120; s++) CHECK(mo_world_step(w) == MO_OK); /* 1 s at 1/120 */
    CHECK(mo_articulation_get_q(w, ma.articulation, q, 8) == MO_OK);
    double drift = 0;
    for (int i = 0; i < 8; i++) drift = fmax(drift, fabs(q[i] - q0[i]));
    printf("gravcomp: shoulder_lift torque %.9g N m, drift after 1 s %.3g\n", tau[1], drift);
    CHECK(drift < 1e-9);
    CHECK(fabs(tau[1]) > 1); /* the test holds a real load */
    /* without it the arm falls */
    CHECK(mo_articulation_clear_torques(w, ma.articulation) == MO_OK);
    for (int s = 0; s < 12; s++) CHECK(mo_world_step(w) == MO_OK);
    CHECK(mo_articulation_get_q(w, ma.articulation, q, 8) == MO_OK);
    CHECK(fabs(q[1] - q0[1]) > 1e-3);
    mo_urdf_model_free(&ma);
    mo_world_destroy(w);
}

static void test_drives(void)
{
    mo_world *w = new_world();
    mo_urdf_options oa = arm_options(true);
    oa.drive_stiffness = 2e4;
    oa.drive_damping = 400;
    mo_urdf_model ma;
    char err[1024];
    CHECK(mo_urdf_load(w, ARM, &oa, &ma, err, sizeof err) == MO_OK);
    for (int j = 0; j < ma.njoints; j++) {
        const mo_urdf_joint *uj = &ma.joints[j];
        mo_joint_drive d;
        CHECK(mo_articulation_drive(w, ma.articulation, uj->child_link, &d) == MO_OK);
        if (uj->type == MO_URDF_JOINT_FIXED) {
            CHECK(d.stiffness == 0 && d.damping == 0 && uj->motor == MO_MOTOR_OFF);
            continue;
        }
        CHECK(uj->motor == MO_MOTOR_POSITION);
        CHECK(d.stiffness == 2e4 && d.damping == 400 && d.target_position == 0);
        CHECK(d.max_effort == (uj->effort > 0 ? uj->effort : INFINITY));
    }
    int j = mo_urdf_find_joint(&ma, "shoulder_lift");
    mo_joint_drive d;
    mo_articulation_drive(w, ma.articulation, ma.joints[j].child_link, &d);
    printf("drives: shoulder_lift max_effort %g (URDF effort %g)\n", d.max_effort, ma.joints[j].effort);
    mo_urdf_model_free(&ma);
    mo_world_destroy(w);
}

static const char SMALL[] =
    "<robot name='small'>\n"
    "  <link name='base'><inertial><mass value='2'/><inertia ixx='0.1' iyy='0.1' izz='0.1'/></inertial></link>\n"
    "  <link name='spinner'><inertial><origin xyz='0 0 0' rpy='1.5707963267948966 0 0'/><mass value='1'/>\n"
    "    <inertia ixx='1' iyy='2' izz='2.5'/></inertial></link>\n"
    "  <link name='slider'><inertial><origin xyz='0.1 0 0'/><mass value='0.5'/>\n"
    "    <inertia ixx='0.01' iyy='0.01' izz='0.01'/></inertial></link>\n"
    "  <link name='tip'/>\n"
    "  <joint name='spin' type='continuous'><parent link='base'/><child link='spinner'/>\n"
    "    <origin xyz='0 0 0.5' rpy='0 0 0.3'/><axis xyz='0 0 1'/><dynamics damping='0.5' friction='0.2'/></joint>\n"
    "  <joint name='slide' type='prismatic'><parent link='spinner'/><child link='slider'/>\n"
    "    <axis xyz='1 0 0'/><limit lower='-0.1' upper='0.2' effort='10' velocity='1'/></joint>\n"
    "  <joint name='tipj' type='fixed'><parent link='slider'/><child link='tip'/><origin xyz='0 0 0.1'/></joint>\n"
    "</robot>\n";

static void test_small(void)
{
    char dir[] = "/tmp/moreau_urdfartXXXXXX", path[128];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(path, sizeof path, "%s/small.urdf", dir);
    write_file(path, SMALL);
    mo_world *w = new_world();
    mo_world_set_gravity(w, (mo_vec3){0, 0, 0});
    mo_urdf_options o = mo_default_urdf_options();
    o.articulation = true;
    o.fixed_base = false;
    o.base_position = (mo_vec3){1, 2, 3};
    mo_urdf_model m;
    char err[1024];
    mo_status s = mo_urdf_load(w, path, &o, &m, err, sizeof err);
    CHECK(s == MO_OK);
    if (s != MO_OK) {
        fprintf(stderr, "%s\n", err);
        exit(1);
    }
    int nl, nq, nv, qo, vo, jn, jv;
    CHECK(mo_articulation_size(w, m.articulation, &nl, &nq, &nv) == MO_OK);
    CHECK(nl == 4 && nq == 9 && nv == 8);
    CHECK(mo_articulation_joint_dofs(w, m.articulation, 0, &qo, &jn, &vo, &jv) == MO_OK);
    CHECK(qo == 0 && jn == 7 && vo == 0 && jv == 6);
    int sp = mo_urdf_find_link(&m, "spinner"), sl = mo_urdf_find_link(&m, "slider");
    CHECK(mo_articulation_joint_dofs(w, m.articulation, sp, &qo, &jn, &vo, &jv) == MO_OK);
    CHECK(jn == 1 && jv == 1);
    int vsp = vo;
    CHECK(mo_articulation_joint_dofs(w, m.articulation, sl, &qo, &jn, &vo, &jv) == MO_OK);
    CHECK(jn == 1 && jv == 1);
    int vsl = vo;
    /* the free root at the base pose */
    mo_vec3 p;
    mo_quat q;
    CHECK(mo_articulation_link_pose(w, m.articulation, 0, &p, &q) == MO_OK);
    CHECK_VEC(&p.x, 1, 2, 3, 1e-15);
    /* spin 1 rad/s about the spinner's z: T = Izz / 2 in the link frame, with the inertial rotated by roll 90:
       R diag(1, 2, 2.5) R^T has zz = iyy = 2 (without the rotation it would read 2.5) */
    double qd[8] = {0};
    qd[vsp] = 1;
    CHECK(mo_articulation_set_qdot(w, m.articulation, qd, 8) == MO_OK);
    double T = 0;
    CHECK(mo_articulation_energy(w, m.articulation, &T, NULL) == MO_OK);
    /* the slider (0.5 kg at 0.1 m from the axis, izz 0.01) and the massless tip (0.01 kg on the axis, a
       sphere of radius 0.05 m) turn along */
    double Itip = 0.4 * 0.01 * 0.05 * 0.05;
    double want_T = 0.5 * (2.0 + 0.01 + 0.5 * 0.1 * 0.1 + Itip);
    printf("small: spin energy %.15g J, expected %.15g J\n", T, want_T);
    CHECK_NEAR(T, want_T, 1e-12);
    /* slide 1 m/s: T = (0.5 + 0.01) / 2 */
    memset(qd, 0, sizeof qd);
    qd[vsl] = 1;
    CHECK(mo_articulation_set_qdot(w, m.articulation, qd, 8) == MO_OK);
    CHECK(mo_articulation_energy(w, m.articulation, &T, NULL) == MO_OK);
    CHECK_NEAR(T, 0.5 * 0.51, 1e-12);
    /* the spin joint's frame: yaw 0.3 at 0.5 above the base; the slider slides along the spinner's x */
    CHECK(mo_articulation_link_pose(w, m.articulation, sl, &p, &q) == MO_OK);
    CHECK_VEC(&p.x, 1, 2, 3.5, 1e-15);
    CHECK(quat_dist(q, (mo_quat){cos(0.15), 0, 0, sin(0.15)}) < 1e-15);
    double qq[9];
    CHECK(mo_articulation_get_q(w, m.articulation, qq, 9) == MO_OK);
    qq[7 + (vsl - 6)] = 0.2; /* q offsets follow v offsets after the root's 7/6 */
    CHECK(mo_articulation_set_q(w, m.articulation, qq, 9) == MO_OK);
    CHECK(mo_articulation_link_pose(w, m.articulation, sl, &p, &q) == MO_OK);
    CHECK_VEC(&p.x, 1 + 0.2 * cos(0.3), 2 + 0.2 * sin(0.3), 3.5, 1e-15);
    /* damping, friction and limits kept, nothing warned */
    int spj = mo_urdf_find_joint(&m, "spin");
    CHECK(m.joints[spj].type == MO_URDF_JOINT_CONTINUOUS && m.joints[spj].child_link == sp);
    double lo = 0, hi = 0;
    CHECK(mo_articulation_limits(w, m.articulation, sl, &lo, &hi) == MO_OK);
    CHECK(lo == -0.1 && hi == 0.2);
    CHECK(m.nwarnings == 0);
    /* the URDF damping 0.5 N m s/rad slows a free spin (no gravity here) */
    double T0, T1, T2, T3;
    memset(qd, 0, sizeof qd);
    qd[vsp] = 1;
    CHECK(mo_articulation_set_qdot(w, m.articulation, qd, 8) == MO_OK);
    CHECK(mo_articulation_energy(w, m.articulation, &T0, NULL) == MO_OK);
    for (int i = 0; i < 120; i++) CHECK(mo_world_step(w) == MO_OK);
    CHECK(mo_articulation_energy(w, m.articulation, &T1, NULL) == MO_OK);
    CHECK(mo_articulation_destroy(w, m.articulation) == MO_OK);
    mo_urdf_model_free(&m);
    /* ignore_friction and ignore_damping: no friction row, no damping, the spin keeps its energy */
    o.ignore_friction = true;
    o.ignore_damping = true;
    CHECK(mo_urdf_load(w, path, &o, &m, err, sizeof err) == MO_OK);
    CHECK(m.nwarnings == 0);
    CHECK(mo_articulation_set_qdot(w, m.articulation, qd, 8) == MO_OK);
    CHECK(mo_articulation_energy(w, m.articulation, &T2, NULL) == MO_OK);
    for (int i = 0; i < 120; i++) CHECK(mo_world_step(w) == MO_OK);
    CHECK(mo_articulation_energy(w, m.articulation, &T3, NULL) == MO_OK);
    printf("small: spin energy %.9g J -> after 1 s %.9g J with damping 0.5 and friction 0.2; %.9g J -> %.9g J "
           "without\n", T0, T1, T2,
           T3);
    CHECK(T1 < 0.99 * T0);
    CHECK(fabs(T3 - T2) < 1e-6 * T2);
    mo_urdf_model_free(&m);
    mo_world_destroy(w);
    unlink(path);
    rmdir(dir);
}

/* a free box link whose <collision> sits 0.05 m above its link origin: 0.4 x 0.3 x 0.2 m */
static const char CRATE[] =
    "<robot name='crate'>\n"
    "  <link name='box'><inertial><mass value='2'/><inertia ixx='0.05' iyy='0.08' izz='0.1'/></inertial>\n"
    "    <collision><origin xyz='0 0 0.05'/><geometry><box size='0.4 0.3 0.2'/></geometry></collision></link>\n"
    "</robot>\n";

static void test_collide(void)
{
    char dir[] = "/tmp/moreau_urdfartXXXXXX", path[128];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(path, sizeof path, "%s/crate.urdf", dir);
    write_file(path, CRATE);
    /* dropped from 0.5 m onto the plane z = 0, 4 s at the default step and solver: its link origin ends at
       z = 0.1 - 0.05 (the box's half height less its offset), level and still */
    mo_world *w = new_world();
    mo_body_def gd = mo_default_body_def();
    gd.type = MO_BODY_STATIC;
    gd.shape.type = MO_SHAPE_PLANE;
    mo_body_id ground;
    CHECK(mo_body_create(w, &gd, &ground) == MO_OK);
    mo_urdf_options o = mo_default_urdf_options();
    o.articulation = true;
    o.fixed_base = false;
    o.base_position = (mo_vec3){0, 0, 0.5};
    mo_urdf_model m;
    char err[1024];
    mo_status s = mo_urdf_load(w, path, &o, &m, err, sizeof err);
    CHECK(s == MO_OK);
    if (s != MO_OK) {
        fprintf(stderr, "%s\n", err);
        exit(1);
    }
    CHECK(m.ncollisions == 1 && m.collisions[0].shape_type == MO_SHAPE_BOX && !mo_body_id_is_null(m.links[0].body));
    CHECK(m.nwarnings == 0);
    double h = mo_world_time_step(w);
    int steps = (int)lround(4.0 / h);
    for (int i = 0; i < steps; i++) CHECK(mo_world_step(w) == MO_OK);
    mo_vec3 p;
    mo_quat q;
    double v[6];
    CHECK(mo_urdf_link_pose(w, &m, 0, &p, &q) == MO_OK);
    CHECK(mo_articulation_get_qdot(w, m.articulation, v, 6) == MO_OK);
    double speed = 0;
    for (int i = 0; i < 6; i++) speed = fmax(speed, fabs(v[i]));
    mo_contact c[8];
    int nc = mo_world_contacts(w, c, 8);
    printf("collide: crate link origin at z = %.9f after %d steps (want 0.05), tilt %.3g, speed %.3g, %d contacts\n",
           p.z, steps, 1 - fabs(q.w), speed, nc);
    CHECK(fabs(p.z - 0.05) < 1e-6);
    CHECK(1 - fabs(q.w) < 1e-9 && speed < 1e-6);
    CHECK(nc >= 4);
    for (int i = 0; i < nc && i < 8; i++)
        CHECK((c[i].body_a.index == m.links[0].body.index) != (c[i].body_b.index == m.links[0].body.index));
    mo_urdf_model_free(&m);
    mo_world_destroy(w);

    /* self_collision: exclude_pairs between link bodies only (tool0 has none), adjacent links left to the
       engine (parent and child never collide: no pair), exclude_adjacent = false said not to apply */
    w = new_world();
    o = mo_default_urdf_options();
    o.articulation = true;
    o.self_collision = true;
    o.exclude_adjacent = false;
    static const char *const pairs[] = {"link1", "link3", "link2", "tool0"};
    o.exclude_pairs = pairs;
    o.nexclude_pairs = 2;
    CHECK(mo_urdf_load(w, ARM, &o, &m, err, sizeof err) == MO_OK);
    mo_body_id a, b;
    CHECK(mo_world_excluded_pairs(w, &a, &b, 1) == 1);
    int l1 = mo_urdf_find_link(&m, "link1"), l2 = mo_urdf_find_link(&m, "link2"), l3 = mo_urdf_find_link(&m, "link3");
    CHECK((a.index == m.links[l1].body.index && b.index == m.links[l3].body.index) ||
          (b.index == m.links[l1].body.index && a.index == m.links[l3].body.index));
    bool en = false;
    CHECK(mo_world_pair_collision(w, m.links[l1].body, m.links[l2].body, &en) == MO_OK && en);
    CHECK(has_warning(&m, ARM ": exclude_adjacent = false does not apply to an articulation: the link bodies of a "
                      "parent and its child never collide"));
    /* destroying the articulation takes its link bodies and their shapes */
    CHECK(mo_world_bodies(w, NULL, 0) == 10 && mo_world_shapes(w, NULL, 0) == 10);
    CHECK(mo_articulation_destroy(w, m.articulation) == MO_OK);
    CHECK(mo_world_bodies(w, NULL, 0) == 0 && mo_world_shapes(w, NULL, 0) == 0);
    CHECK(mo_world_excluded_pairs(w, NULL, NULL, 0) == 0);
    mo_urdf_model_free(&m);
    mo_world_destroy(w);
    unlink(path);
    rmdir(dir);
}

/* three joints on a fixed base, none loaded by gravity (vertical hinges, a horizontal slide) */
static const char LIMITS[] =
    "<robot name='limits'>\n"
    "  <link name='base'/>\n"
    "  <link name='arm'><inertial><origin xyz='0.5 0 0'/><mass value='1'/>\n"
    "    <inertia ixx='0.001' iyy='0.001' izz='0.001'/></inertial></link>\n"
    "  <link name='carriage'><inertial><mass value='2'/><inertia ixx='0.01' iyy='0.01' izz='0.01'/></inertial></link>\n"
    "  <link name='knob'><inertial><origin xyz='0.1 0 0'/><mass value='0.5'/>\n"
    "    <inertia ixx='0.001' iyy='0.001' izz='0.001'/></inertial></link>\n"
    "  <joint name='hinge' type='revolute'><parent link='base'/><child link='arm'/><axis xyz='0 0 1'/>\n"
    "    <limit lower='-0.3' upper='0.5' effort='10' velocity='1'/></joint>\n"
    "  <joint name='slide' type='prismatic'><parent link='base'/><child link='carriage'/><origin xyz='0 1 0'/>\n"
    "    <axis xyz='1 0 0'/><limit lower='-0.1' upper='0.05' effort='100' velocity='1'/></joint>\n"
    "  <joint name='zero' type='revolute'><parent link='base'/><child link='knob'/><origin xyz='0 -1 0'/>\n"
    "    <axis xyz='0 0 1'/><limit lower='0' upper='0' effort='1' velocity='1'/></joint>\n"
    "</robot>\n";

/* steps 1 s with joint torques tau (hinge, slide, zero); the joints' q, qdot and the limit rows' forces after */
static void push(mo_world *w, const mo_urdf_model *m, const double tau[3], double q[3], double qd[3], double f[3])
{
    double t[3], v[3];
    const char *names[3] = {"arm", "carriage", "knob"};
    int vo[3];
    for (int i = 0; i < 3; i++) {
        int l = mo_urdf_find_link(m, names[i]);
        CHECK(mo_articulation_joint_dofs(w, m->articulation, l, NULL, NULL, &vo[i], NULL) == MO_OK);
        t[vo[i]] = tau[i];
    }
    CHECK(mo_articulation_set_torques(w, m->articulation, t, 3) == MO_OK);
    for (int s = 0; s < 120; s++) CHECK(mo_world_step(w) == MO_OK);
    double qq[3];
    CHECK(mo_articulation_get_q(w, m->articulation, qq, 3) == MO_OK);
    CHECK(mo_articulation_get_qdot(w, m->articulation, v, 3) == MO_OK);
    CHECK(mo_articulation_constraint_forces(w, m->articulation, t, 3) == MO_OK);
    for (int i = 0; i < 3; i++) q[i] = qq[vo[i]], qd[i] = v[vo[i]], f[i] = t[vo[i]];
}

static void test_limits(void)
{
    char dir[] = "/tmp/moreau_urdfartXXXXXX", path[128], want[512], err[1024];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(path, sizeof path, "%s/limits.urdf", dir);
    write_file(path, LIMITS);
    mo_world *w = new_world();
    mo_urdf_options o = mo_default_urdf_options();
    o.articulation = true;
    mo_urdf_model m;
    CHECK(mo_urdf_load(w, path, &o, &m, err, sizeof err) == MO_OK);
    /* read back: [-0.3, 0.5] rad and [-0.1, 0.05] m; the revolute [0, 0] none, with the body import's warning */
    double lo[3], hi[3];
    const char *names[3] = {"hinge", "slide", "zero"};
    for (int i = 0; i < 3; i++)
        CHECK(mo_articulation_limits(w, m.articulation, m.joints[mo_urdf_find_joint(&m, names[i])].child_link, &lo[i],
                                     &hi[i]) == MO_OK);
    CHECK(lo[0] == -0.3 && hi[0] == 0.5 && lo[1] == -0.1 && hi[1] == 0.05);
    CHECK(lo[2] == -INFINITY && hi[2] == INFINITY && !m.joints[mo_urdf_find_joint(&m, "zero")].has_limits);
    snprintf(want, sizeof want, "%s:13: joint 'zero': limit lower = upper = 0 on a revolute joint (what ROS's parser "
             "reads when both are left out): read as no limits (lock_zero_limits keeps the joint locked at 0)", path);
    CHECK(has_warning(&m, want));
    CHECK(m.nwarnings == 1);
    /* driven past the limits for 1 s each way: each limited joint stops at its bound, still, the row holding the
       torque; the unlimited [0, 0] one turns on (0.1 N m on I = 0.5 0.1^2 + 0.001 = 0.006: 8.3 rad in 1 s) */
    double q[3], qd[3], f[3], dev = 0;
    push(w, &m, (double[3]){2, 50, 0.1}, q, qd, f);
    printf("limits: pushed up: hinge %.12g rad (upper 0.5), slide %.12g m (upper 0.05), zero %.6g rad; rows %.9g N m, "
           "%.9g N\n", q[0], q[1], q[2], f[0], f[1]);
    dev = fmax(fabs(q[0] - 0.5), fabs(q[1] - 0.05));
    CHECK(fabs(q[0] - 0.5) < 1e-6 && fabs(q[1] - 0.05) < 1e-6);
    CHECK(fabs(qd[0]) < 1e-6 && fabs(qd[1]) < 1e-6);
    CHECK_NEAR(f[0], -2, 1e-6);
    CHECK_NEAR(f[1], -50, 1e-6);
    CHECK(q[2] > 5);
    push(w, &m, (double[3]){-2, -50, 0}, q, qd, f);
    printf("limits: pushed down: hinge %.12g rad (lower -0.3), slide %.12g m (lower -0.1)\n", q[0], q[1]);
    dev = fmax(dev, fmax(fabs(q[0] + 0.3), fabs(q[1] + 0.1)));
    CHECK(fabs(q[0] + 0.3) < 1e-6 && fabs(q[1] + 0.1) < 1e-6);
    CHECK_NEAR(f[0], 2, 1e-6);
    CHECK_NEAR(f[1], 50, 1e-6);
    printf("limits: max distance to the bound %.3g\n", dev);
    mo_urdf_model_free(&m);
    mo_world_destroy(w);
    /* lock_zero_limits: [0, 0] as written, the joint held at 0 */
    w = new_world();
    o.lock_zero_limits = true;
    CHECK(mo_urdf_load(w, path, &o, &m, err, sizeof err) == MO_OK);
    int zl = m.joints[mo_urdf_find_joint(&m, "zero")].child_link;
    CHECK(mo_articulation_limits(w, m.articulation, zl, &lo[2], &hi[2]) == MO_OK);
    CHECK(lo[2] == 0 && hi[2] == 0 && m.joints[mo_urdf_find_joint(&m, "zero")].has_limits && m.nwarnings == 0);
    push(w, &m, (double[3]){0, 0, 0.1}, q, qd, f);
    printf("limits: lock_zero_limits: zero joint at %.3g rad after 1 s under 0.1 N m\n", q[2]);
    CHECK(fabs(q[2]) < 1e-6 && fabs(qd[2]) < 1e-6);
    CHECK_NEAR(f[2], -0.1, 1e-6);
    mo_urdf_model_free(&m);
    mo_world_destroy(w);
    /* a bound beyond MO_LENGTH_MAX is none on its side; a range wholly beyond it is refused, the world unchanged */
    static const char FAR[] =
        "<robot name='far'>\n<link name='base'/>\n<link name='b'><inertial><mass value='1'/>"
        "<inertia ixx='1' iyy='1' izz='1'/></inertial></link>\n"
        "<joint name='s' type='prismatic'><parent link='base'/><child link='b'/>"
        "<limit lower='%s' upper='%s' effort='1' velocity='1'/></joint>\n</robot>\n";
    char text[512];
    snprintf(text, sizeof text, FAR, "-1e12", "0.5");
    write_file(path, text);
    w = new_world();
    CHECK(mo_urdf_load(w, path, &o, &m, err, sizeof err) == MO_OK);
    CHECK(mo_articulation_limits(w, m.articulation, 1, &lo[0], &hi[0]) == MO_OK);
    CHECK(lo[0] == -INFINITY && hi[0] == 0.5);
    mo_urdf_model_free(&m);
    mo_world_destroy(w);
    snprintf(text, sizeof text, FAR, "2e9", "3e9");
    write_file(path, text);
    w = new_world();
    uint64_t h0 = mo_world_state_hash(w);
    CHECK(mo_urdf_load(w, path, &o, &m, err, sizeof err) == MO_ERR_INVALID_ARGUMENT);
    snprintf(want, sizeof want, "%s:4: joint 's': limits [2e+09, 3e+09] lie beyond the 1e+09 m or rad an "
             "articulation's coordinates may reach", path);
    CHECK_STR(err, want);
    CHECK_STR(mo_world_last_error(w), want);
    CHECK(mo_world_state_hash(w) == h0 && mo_world_bodies(w, NULL, 0) == 0);
    mo_world_destroy(w);
    unlink(path);
    rmdir(dir);
}

/* a 1 kg pendulum 0.5 m out on a horizontal hinge: gravity's torque at q = 0 is 0.5 m g = 4.903325 N m */
static const char PENDULUM[] =
    "<robot name='pendulum'>\n"
    "  <link name='base'/>\n"
    "  <link name='bob'><inertial><origin xyz='0.5 0 0'/><mass value='1'/>\n"
    "    <inertia ixx='0.001' iyy='0.001' izz='0.001'/></inertial></link>\n"
    "  <joint name='hinge' type='continuous'><parent link='base'/><child link='bob'/><axis xyz='0 1 0'/>\n"
    "    <dynamics damping='0.1' friction='%g'/></joint>\n"
    "</robot>\n";

/* the hinge's angle after 1 s from rest at q = 0 and the friction row's torque */
static double swing(const char *path, double friction, bool ignore, double *row, int *nwarnings)
{
    char text[1024], err[1024];
    snprintf(text, sizeof text, PENDULUM, friction);
    write_file(path, text);
    mo_world *w = new_world();
    mo_urdf_options o = mo_default_urdf_options();
    o.articulation = true;
    o.ignore_friction = ignore;
    mo_urdf_model m;
    CHECK(mo_urdf_load(w, path, &o, &m, err, sizeof err) == MO_OK);
    *nwarnings = m.nwarnings;
    for (int s = 0; s < 120; s++) CHECK(mo_world_step(w) == MO_OK);
    double q = 0;
    CHECK(mo_articulation_get_q(w, m.articulation, &q, 1) == MO_OK);
    CHECK(mo_articulation_constraint_forces(w, m.articulation, row, 1) == MO_OK);
    mo_urdf_model_free(&m);
    mo_world_destroy(w);
    return q;
}

static void test_friction(void)
{
    char dir[] = "/tmp/moreau_urdfartXXXXXX", path[128];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(path, sizeof path, "%s/pendulum.urdf", dir);
    double g = 9.80665, row = 0;
    int nw = -1;
    mo_world *w0 = new_world();
    g = -mo_world_gravity(w0).z;
    mo_world_destroy(w0);
    /* friction 6 N m above gravity's 0.5 g N m: the pendulum holds still, the row carrying gravity's torque; kept
       beside the URDF damping (the body import's one motor would drop it), no warning */
    double q = swing(path, 6, false, &row, &nw);
    printf("friction: 6 N m holds the pendulum at %.3g rad after 1 s, row %.9g N m (gravity 0.5 g = %.9g N m)\n", q,
           fabs(row), 0.5 * g);
    CHECK(fabs(q) < 1e-6);
    CHECK_NEAR(fabs(row), 0.5 * g, 1e-6);
    CHECK(nw == 0);
    /* 4 N m below it: slips and falls; ignore_friction: 6 N m left out, it falls */
    double q4 = swing(path, 4, false, &row, &nw), qi = swing(path, 6, true, &row, &nw);
    printf("friction: after 1 s, 4 N m: %.6g rad; 6 N m ignored: %.6g rad\n", q4, qi);
    CHECK(fabs(q4) > 0.1 && fabs(qi) > 0.5 && fabs(qi) > fabs(q4));
    CHECK(row == 0 && nw == 0);
    unlink(path);
    rmdir(dir);
}

/* the "world link + floating joint" pattern and the same robot without the world link: a base with a box and a
   two-link arm (masses, offsets and a yawed joint so that it swings as it falls) */
#define ARM2_LINKS                                                                                              \
    "  <link name='base_link'><inertial><origin xyz='0.02 0 0'/><mass value='3'/>\n"                           \
    "    <inertia ixx='0.05' iyy='0.06' izz='0.07'/></inertial>\n"                                             \
    "    <collision><geometry><box size='0.3 0.2 0.1'/></geometry></collision></link>\n"                      \
    "  <link name='upper'><inertial><origin xyz='0.2 0 0'/><mass value='1'/>\n"                               \
    "    <inertia ixx='0.001' iyy='0.02' izz='0.02'/></inertial></link>\n"                                     \
    "  <link name='lower'><inertial><origin xyz='0.15 0 0'/><mass value='0.5'/>\n"                             \
    "    <inertia ixx='0.001' iyy='0.01' izz='0.01'/></inertial></link>\n"                                     \
    "  <joint name='shoulder' type='revolute'><parent link='base_link'/><child link='upper'/>\n"               \
    "    <origin xyz='0.15 0 0.05' rpy='0.3 0 0'/><axis xyz='0 1 0'/>\n"                                      \
    "    <limit lower='-3' upper='3' effort='50' velocity='2'/></joint>\n"                                     \
    "  <joint name='elbow' type='continuous'><parent link='upper'/><child link='lower'/>\n"                    \
    "    <origin xyz='0.4 0 0'/><axis xyz='0 1 0'/><dynamics damping='0.01'/></joint>\n"
static const char FLOAT_WORLD[] =
    "<robot name='floater'>\n"
    "  <link name='world'/>\n"
    "  <joint name='float' type='floating'><parent link='world'/><child link='base_link'/>\n"
    "    <origin xyz='0.1 -0.2 1.5' rpy='0 0 0.5'/></joint>\n" ARM2_LINKS "</robot>\n";
static const char FLOAT_NOWORLD[] = "<robot name='floater'>\n" ARM2_LINKS "</robot>\n";

static mo_urdf_model load_text(mo_world *w, const char *path, const char *text, const mo_urdf_options *o)
{
    write_file(path, text);
    mo_urdf_model m;
    char err[1024];
    mo_status s = mo_urdf_load(w, path, o, &m, err, sizeof err);
    CHECK(s == MO_OK);
    if (s != MO_OK) {
        fprintf(stderr, "%s\n", err);
        exit(1);
    }
    return m;
}

static void test_floating(void)
{
    char dir[] = "/tmp/moreau_urdfartXXXXXX", pw[128], pn[128];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(pw, sizeof pw, "%s/world.urdf", dir);
    snprintf(pn, sizeof pn, "%s/noworld.urdf", dir);
    /* the world link and the floating joint left out, whatever fixed_base says: base_link is the free root at the
       joint's origin */
    mo_world *wa = new_world(), *wb = new_world();
    mo_urdf_options o = mo_default_urdf_options(); /* fixed_base true */
    const char *pairs[] = {"world", "upper"};      /* a pair naming the left-out link: nothing to exclude */
    o.exclude_pairs = pairs;
    o.nexclude_pairs = 1;
    mo_urdf_model a = load_text(wa, pw, FLOAT_WORLD, &o);
    CHECK(a.nlinks == 3 && a.njoints == 2 && a.nwarnings == 0);
    CHECK(mo_urdf_find_link(&a, "world") == -1 && mo_urdf_find_joint(&a, "float") == -1);
    CHECK(strcmp(a.links[0].name, "base_link") == 0 && a.links[0].parent_joint == -1);
    CHECK(strcmp(a.links[1].name, "upper") == 0 && strcmp(a.links[2].name, "lower") == 0);
    int sh = mo_urdf_find_joint(&a, "shoulder"), el = mo_urdf_find_joint(&a, "elbow");
    CHECK(sh == 0 && el == 1);
    CHECK(a.joints[sh].parent_link == 0 && a.joints[sh].child_link == 1);
    CHECK(a.joints[el].parent_link == 1 && a.joints[el].child_link == 2);
    CHECK(a.links[1].parent_joint == sh && a.links[2].parent_joint == el);
    CHECK(a.ncollisions == 1 && a.collisions[0].link == 0 && !mo_body_id_is_null(a.links[0].body));
    CHECK(a.links[0].mass == 3); /* the free root keeps its mass (a fixed base would have none) */
    int nl, nq, nv, qo, jn, vo, jv;
    CHECK(mo_articulation_size(wa, a.articulation, &nl, &nq, &nv) == MO_OK);
    CHECK(nl == 3 && nq == 9 && nv == 8);
    CHECK(mo_articulation_joint_dofs(wa, a.articulation, 0, &qo, &jn, &vo, &jv) == MO_OK);
    CHECK(qo == 0 && jn == 7 && vo == 0 && jv == 6);
    double lo = 0, hi = 0;
    CHECK(mo_articulation_limits(wa, a.articulation, 1, &lo, &hi) == MO_OK);
    CHECK(lo == -3 && hi == 3);
    mo_vec3 p;
    mo_quat q;
    CHECK(mo_articulation_link_pose(wa, a.articulation, 0, &p, &q) == MO_OK);
    printf("floating: root at (%.17g %.17g %.17g), (%.17g %.17g %.17g %.17g)\n", p.x, p.y, p.z, q.w, q.x, q.y, q.z);
    CHECK(p.x == 0.1 && p.y == -0.2 && p.z == 1.5);
    CHECK(quat_dist(q, (mo_quat){cos(0.25), 0, 0, sin(0.25)}) < 1e-15);
    /* the same robot without the world link, fixed_base = false at the joint's origin */
    mo_urdf_options ob = mo_default_urdf_options();
    ob.fixed_base = false;
    ob.base_position = (mo_vec3){0.1, -0.2, 1.5};
    ob.base_orientation = (mo_quat){cos(0.25), 0, 0, sin(0.25)};
    mo_urdf_model b = load_text(wb, pn, FLOAT_NOWORLD, &ob);
    CHECK(b.nlinks == 3 && b.njoints == 2 && b.nwarnings == 0);
    mo_vec3 pb;
    mo_quat qb0;
    CHECK(mo_articulation_link_pose(wb, b.articulation, 0, &pb, &qb0) == MO_OK);
    CHECK(p.x == pb.x && p.y == pb.y && p.z == pb.z && q.w == qb0.w && q.x == qb0.x && q.y == qb0.y && q.z == qb0.z);
    /* 1 s of falling, thrown tumbling with the arm swinging (in a free fall alone nothing moves relative to the
       base): the same trajectories to the bit (== on every coordinate, every step) */
    const double v0[8] = {0.3, -0.1, 0.2, 0.5, -0.4, 0.7, 2.0, -1.5};
    CHECK(mo_articulation_set_qdot(wa, a.articulation, v0, 8) == MO_OK);
    CHECK(mo_articulation_set_qdot(wb, b.articulation, v0, 8) == MO_OK);
    int steps = (int)lround(1.0 / mo_world_time_step(wa)), differ = 0;
    double qa[9], qb[9], va[8], vb[8], q0[9];
    CHECK(mo_articulation_get_q(wa, a.articulation, q0, 9) == MO_OK);
    for (int i = 0; i < steps; i++) {
        CHECK(mo_world_step(wa) == MO_OK && mo_world_step(wb) == MO_OK);
        CHECK(mo_articulation_get_q(wa, a.articulation, qa, 9) == MO_OK);
        CHECK(mo_articulation_get_q(wb, b.articulation, qb, 9) == MO_OK);
        CHECK(mo_articulation_get_qdot(wa, a.articulation, va, 8) == MO_OK);
        CHECK(mo_articulation_get_qdot(wb, b.articulation, vb, 8) == MO_OK);
        for (int k = 0; k < 9; k++) differ += qa[k] != qb[k];
        for (int k = 0; k < 8; k++) differ += va[k] != vb[k];
    }
    printf("floating: after %d steps the base fell %.9g m, shoulder %.9g rad, elbow %.9g rad; %d coordinates "
           "differ from the world-less import\n", steps, q0[2] - qa[2], qa[7], qa[8], differ);
    CHECK(differ == 0);
    CHECK(q0[2] - qa[2] > 3.5 && q0[2] - qa[2] < 6.5); /* about g / 2 - 0.5 (the arm's swing moves the base) */
    CHECK(fabs(qa[7]) > 0.1 && fabs(qa[8]) > 0.1);        /* the arm swung */
    mo_urdf_model_free(&a);
    mo_urdf_model_free(&b);
    mo_world_destroy(wa);
    mo_world_destroy(wb);
    /* the base pose composed with the joint's origin: base at (1, 0, 0) yawed 90 degrees */
    mo_world *w = new_world();
    o = mo_default_urdf_options();
    o.base_position = (mo_vec3){1, 0, 0};
    o.base_orientation = (mo_quat){cos(PI / 4), 0, 0, sin(PI / 4)};
    a = load_text(w, pw, FLOAT_WORLD, &o);
    CHECK(mo_articulation_link_pose(w, a.articulation, 0, &p, &q) == MO_OK);
    CHECK_VEC(&p.x, 1.2, 0.1, 1.5, 1e-15);
    CHECK(quat_dist(q, (mo_quat){cos(PI / 4 + 0.25), 0, 0, sin(PI / 4 + 0.25)}) < 1e-15);
    mo_urdf_model_free(&a);
    mo_world_destroy(w);
    unlink(pw);
    unlink(pn);
    rmdir(dir);
}

static void expect_error(const char *dir, const char *name, const char *text, const char *msg_after_path,
                         bool fixed_base)
{
    char path[256], want[768], err[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    write_file(path, text);
    mo_world *w = new_world();
    uint64_t h0 = mo_world_state_hash(w);
    mo_urdf_options o = mo_default_urdf_options();
    o.articulation = true;
    o.fixed_base = fixed_base;
    mo_urdf_model m;
    CHECK(mo_urdf_load(w, path, &o, &m, err, sizeof err) == MO_ERR_INVALID_ARGUMENT);
    snprintf(want, sizeof want, "%s%s", path, msg_after_path);
    CHECK_STR(err, want);
    CHECK_STR(mo_world_last_error(w), want);
    CHECK(mo_world_state_hash(w) == h0);
    CHECK(m.nlinks == 0 && mo_articulation_id_is_null(m.articulation));
    mo_world_destroy(w);
    unlink(path);
}

static void test_errors(void)
{
    char dir[] = "/tmp/moreau_urdfartXXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    /* a floating joint is the free base only under a root link without mass or geometry whose only joint it is */
    expect_error(dir, "floating.urdf",
                 "<robot name='f'>\n<link name='world'/>\n<link name='base'><inertial><mass value='1'/>"
                 "<inertia ixx='1' iyy='1' izz='1'/></inertial></link>\n<link name='body'/>\n"
                 "<joint name='fix' type='fixed'><parent link='world'/><child link='base'/></joint>\n"
                 "<joint name='float' type='floating'><parent link='base'/><child link='body'/></joint>\n</robot>\n",
                 ":6: joint 'float': a floating joint below link 'base' cannot be an articulation joint (an "
                 "articulation is free only at its root; a floating joint is taken as the free base only from a root "
                 "link without mass or geometry whose only joint it is): import without articulation", true);
    expect_error(dir, "floating2.urdf",
                 "<robot name='f'>\n<link name='world'><inertial><mass value='2'/>"
                 "<inertia ixx='1' iyy='1' izz='1'/></inertial></link>\n<link name='body'/>\n"
                 "<joint name='float' type='floating'><parent link='world'/><child link='body'/></joint>\n</robot>\n",
                 ":4: joint 'float': a floating joint cannot be an articulation joint, and root link 'world' has mass "
                 "(a floating joint is taken as the free base only from a root link without mass or geometry whose "
                 "only joint it is): import without articulation", false);
    expect_error(dir, "floating3.urdf",
                 "<robot name='f'>\n<link name='world'/>\n<link name='body'/>\n<link name='table'/>\n"
                 "<joint name='float' type='floating'><parent link='world'/><child link='body'/></joint>\n"
                 "<joint name='fix' type='fixed'><parent link='world'/><child link='table'/></joint>\n</robot>\n",
                 ":5: joint 'float': a floating joint cannot be an articulation joint, and root link 'world' has 2 "
                 "joints (a floating joint is taken as the free base only from a root link without mass or geometry "
                 "whose only joint it is): import without articulation", true);
    expect_error(dir, "floating4.urdf",
                 "<robot name='f'>\n<link name='world'><visual><geometry><sphere radius='1'/></geometry></visual>"
                 "</link>\n<link name='body'/>\n"
                 "<joint name='float' type='floating'><parent link='world'/><child link='body'/></joint>\n</robot>\n",
                 ":4: joint 'float': a floating joint cannot be an articulation joint, and root link 'world' has "
                 "visual geometry (a floating joint is taken as the free base only from a root link without mass or "
                 "geometry whose only joint it is): import without articulation", true);
    expect_error(dir, "planar.urdf",
                 "<robot name='p'>\n<link name='a'/>\n<link name='b'/>\n"
                 "<joint name='plane' type='planar'><parent link='a'/><child link='b'/></joint>\n</robot>\n",
                 ":4: joint 'plane': planar joints are not supported (use two prismatic joints and a revolute one)",
                 true);
    expect_error(dir, "roots.urdf", "<robot name='r'>\n<link name='a'/>\n<link name='b'/>\n</robot>\n",
                 ":1: robot 'r' has several root links ('a' on line 2 and 'b' on line 3): a URDF is one tree", true);
    expect_error(dir, "cycle.urdf",
                 "<robot name='c'>\n<link name='r'/>\n<link name='a'/>\n<link name='b'/>\n"
                 "<joint name='ab' type='fixed'><parent link='a'/><child link='b'/></joint>\n"
                 "<joint name='ba' type='fixed'><parent link='b'/><child link='a'/></joint>\n</robot>\n",
                 ":6: joint 'ba': joints form a cycle through link 'a' (a URDF is a tree)", true);
    rmdir(dir);
}

int main(void)
{
    {
        mo_world *w = new_world();
        mo_urdf_model m;
        char err[1024];
        mo_status s = mo_urdf_load(w, ARM, NULL, &m, err, sizeof err);
        mo_world_destroy(w);
        if (s == MO_ERR_UNSUPPORTED) {
            printf("import_urdf_artic: %s: skipped\n", err);
            return 77;
        }
        mo_urdf_model_free(&m);
    }
    struct { const char *name; void (*fn)(void); } groups[] = {
        {"arm", test_arm},     {"massmat", test_massmat}, {"gravcomp", test_gravcomp},
        {"drives", test_drives}, {"small", test_small},   {"limits", test_limits},   {"friction", test_friction},
        {"collide", test_collide}, {"floating", test_floating}, {"errors", test_errors},
    };
    for (size_t i = 0; i < sizeof groups / sizeof groups[0]; i++) {
        check_group_begin();
        groups[i].fn();
        check_group_end(groups[i].name, 8, 4);
    }
    return check_groups_result();
}
