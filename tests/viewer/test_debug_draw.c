/* test_debug_draw.c: mo_world_debug_draw and the viewer-support queries on the
 * CPU, no GL: a box resting on the ground (4 contacts, normals +z or -z as the
 * contacts say, forces summing to m g, drawn forces equal to impulse / h), the
 * line fallbacks (exact line counts and sizes), bounding boxes, joint frames,
 * per-contact residuals against the step's residual, argument errors, shape
 * enumeration and geometry; particles (points sized by their radius, FEM nodes
 * left out) and an FEM cube's boundary edges (12 triangles, 18 edges each drawn
 * once: 12 cube edges and 6 face diagonals, at the nodes); MO_DRAW_SKELETON on a
 * fixed-base arm (revolute shoulder, prismatic forearm, spherical wrist): the
 * exact bones and axes at q = 0, bones at the link poses and axes along the
 * rotated axes at a bent q, nothing without the flag or the articulation. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <moreau/articulation.h>
#include <moreau/debug_draw.h>
#include <moreau/moreau.h>

#include "../check.h"

#define MAXREC 512

typedef struct rec {
    int kind; /* 0 line, 1 point, 2 arrow, 3 frame, 4 box */
    mo_vec3 a, b;
    mo_quat q;
    double size;
    uint32_t c;
} rec;

typedef struct log_t { rec r[MAXREC]; int n; } log_t;

static void push(log_t *l, rec r)
{
    if (l->n < MAXREC) l->r[l->n] = r;
    l->n++;
}
static void cb_line(void *u, mo_vec3 a, mo_vec3 b, uint32_t c) { push(u, (rec){0, a, b, {1, 0, 0, 0}, 0, c}); }
static void cb_point(void *u, mo_vec3 p, double s, uint32_t c) { push(u, (rec){1, p, p, {1, 0, 0, 0}, s, c}); }
static void cb_arrow(void *u, mo_vec3 a, mo_vec3 b, uint32_t c) { push(u, (rec){2, a, b, {1, 0, 0, 0}, 0, c}); }
static void cb_frame(void *u, mo_vec3 o, mo_quat q, double s) { push(u, (rec){3, o, o, q, s, 0}); }
static void cb_box(void *u, mo_vec3 lo, mo_vec3 hi, uint32_t c) { push(u, (rec){4, lo, hi, {1, 0, 0, 0}, 0, c}); }

static int count(const log_t *l, int kind)
{
    int n = 0;
    for (int i = 0; i < l->n && i < MAXREC; i++) n += l->r[i].kind == kind;
    return n;
}

static mo_world *make_world(int iterations, double tol)
{
    mo_world_def wd = mo_default_world_def();
    wd.solver.max_iterations = iterations;
    wd.solver.tolerance = tol;
    mo_world *w = NULL;
    char err[256];
    if (mo_world_create(&wd, &w, err, sizeof err) != MO_OK) {
        fprintf(stderr, "%s\n", err);
        return NULL;
    }
    mo_body_def g = mo_default_body_def();
    g.type = MO_BODY_STATIC;
    g.shape.type = MO_SHAPE_PLANE;
    mo_body_id gid;
    mo_body_create(w, &g, &gid);
    return w;
}

static mo_body_id add_box(mo_world *w, double z, double mass)
{
    mo_body_def bd = mo_default_body_def();
    bd.shape.type = MO_SHAPE_BOX;
    bd.shape.half_extents = (mo_vec3){0.25, 0.25, 0.25};
    bd.mass = mass;
    bd.position = (mo_vec3){0, 0, z};
    mo_body_id id;
    mo_body_create(w, &bd, &id);
    return id;
}

static double dot(mo_vec3 a, mo_vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static mo_vec3 sub(mo_vec3 a, mo_vec3 b) { return (mo_vec3){a.x - b.x, a.y - b.y, a.z - b.z}; }
static double len(mo_vec3 a) { return sqrt(dot(a, a)); }

/* a 2 kg box resting on the ground: 4 contacts, normals, forces = impulse / h summing to m g */
static void test_box_contacts(void)
{
    mo_world *w = make_world(200, 1e-13);
    CHECK(w);
    if (!w) return;
    const double m = 2.0, g = 9.81, h = mo_world_time_step(w);
    mo_body_id box = add_box(w, 0.25, m);
    mo_debug_draw dd = mo_default_debug_draw();
    log_t lg = {0};
    dd.user = &lg;
    dd.line = cb_line, dd.point = cb_point, dd.arrow = cb_arrow, dd.frame = cb_frame, dd.box = cb_box;

    /* before the first step: no contacts drawn */
    CHECK(mo_world_debug_draw(w, &dd, MO_DRAW_ALL & ~(unsigned)MO_DRAW_AABBS) == MO_OK);
    CHECK(lg.n == 0);
    for (int i = 0; i < 120; i++) mo_world_step(w);

    mo_contact ct[8];
    int nc = mo_world_contacts(w, ct, 8);
    CHECK(nc == 4);
    lg.n = 0;
    CHECK(mo_world_debug_draw(w, &dd, MO_DRAW_CONTACTS | MO_DRAW_NORMALS | MO_DRAW_FORCES) == MO_OK);
    CHECK(lg.n == 3 * nc);
    CHECK(count(&lg, 1) == nc && count(&lg, 0) == nc && count(&lg, 2) == nc);
    mo_vec3 fsum = {0, 0, 0};
    for (int c = 0; c < nc && 3 * c + 2 < lg.n; c++) {
        const rec *p = &lg.r[3 * c], *n = &lg.r[3 * c + 1], *f = &lg.r[3 * c + 2];
        /* the point, then its normal, then its force, in contact order */
        CHECK(p->kind == 1 && n->kind == 0 && f->kind == 2);
        CHECK(p->c == MO_DRAW_COLOR_CONTACT && n->c == MO_DRAW_COLOR_NORMAL && f->c == MO_DRAW_COLOR_FORCE);
        CHECK_NEAR(p->size, 0.02, 0);
        CHECK_VEC(&p->a.x, ct[c].point.x, ct[c].point.y, ct[c].point.z, 0);
        CHECK_NEAR(p->a.z, 0.0, 1e-3); /* on the ground */
        mo_vec3 nv = sub(n->b, n->a);
        CHECK_NEAR(len(nv), dd.normal_length, 1e-15);
        CHECK_NEAR(dot(nv, ct[c].normal) / dd.normal_length, 1.0, 1e-15);
        CHECK_NEAR(fabs(ct[c].normal.z), 1.0, 1e-12);
        /* drawn force: its normal part is the normal impulse / h, scaled */
        mo_vec3 fv = sub(f->b, f->a);
        CHECK_NEAR(dot(fv, ct[c].normal) / dd.force_scale, ct[c].impulse.x / h, 1e-9);
        CHECK_VEC(&f->a.x, p->a.x, p->a.y, p->a.z, 0);
        fsum.x += fv.x / dd.force_scale, fsum.y += fv.y / dd.force_scale, fsum.z += fv.z / dd.force_scale;
    }
    /* force on B summed: the box's weight, up on the box (or down on the ground) */
    mo_body_id bb = ct[0].body_b;
    double sign = bb.index == box.index ? 1.0 : -1.0;
    CHECK_NEAR(sign * fsum.z, m * g, 1e-9 * m * g);
    CHECK_NEAR(fsum.x, 0.0, 1e-9);
    CHECK_NEAR(fsum.y, 0.0, 1e-9);
    printf("box on ground: %d contacts, sum of drawn forces %.12f N (m g = %.12f)\n", nc, sign * fsum.z, m * g);

    /* line fallbacks: a point is 3 lines of 2 point_size, a normal 1, an arrow 3 */
    mo_debug_draw dl = mo_default_debug_draw();
    dl.user = &lg;
    dl.line = cb_line;
    lg.n = 0;
    CHECK(mo_world_debug_draw(w, &dl, MO_DRAW_CONTACTS | MO_DRAW_NORMALS | MO_DRAW_FORCES) == MO_OK);
    CHECK(lg.n == 7 * nc);
    CHECK(count(&lg, 0) == lg.n);
    for (int i = 0; i < 3 && i < lg.n; i++) CHECK_NEAR(len(sub(lg.r[i].b, lg.r[i].a)), 2 * dl.point_size, 1e-15);
    /* contact 0: point (3 lines), normal, arrow shaft = impulse / h scaled, two head lines */
    if (lg.n >= 7) {
        mo_vec3 shaft = sub(lg.r[4].b, lg.r[4].a);
        CHECK_NEAR(dot(shaft, ct[0].normal) / dl.force_scale, ct[0].impulse.x / h, 1e-9);
        for (int k = 5; k < 7; k++) {
            CHECK_VEC(&lg.r[k].a.x, lg.r[4].b.x, lg.r[4].b.y, lg.r[4].b.z, 0);
            CHECK_NEAR(len(sub(lg.r[k].b, lg.r[k].a)), sqrt(0.2 * 0.2 + 0.08 * 0.08) * len(shaft), 1e-12);
        }
    }

    /* bounding boxes: the box's, exactly its corners (planes have none) */
    lg.n = 0;
    mo_vec3 x;
    mo_body_position(w, box, &x);
    CHECK(mo_world_debug_draw(w, &dd, MO_DRAW_AABBS) == MO_OK);
    CHECK(lg.n == 1 && lg.r[0].kind == 4 && lg.r[0].c == MO_DRAW_COLOR_AABB);
    CHECK_VEC(&lg.r[0].a.x, x.x - 0.25, x.y - 0.25, x.z - 0.25, 1e-9);
    CHECK_VEC(&lg.r[0].b.x, x.x + 0.25, x.y + 0.25, x.z + 0.25, 1e-9);
    /* ... and as twelve axis-aligned edges of the box's size */
    lg.n = 0;
    CHECK(mo_world_debug_draw(w, &dl, MO_DRAW_AABBS) == MO_OK);
    CHECK(lg.n == 12);
    int axes[3] = {0, 0, 0};
    for (int i = 0; i < lg.n && i < 12; i++) {
        mo_vec3 d = sub(lg.r[i].b, lg.r[i].a);
        int k = fabs(d.x) > 0 ? 0 : fabs(d.y) > 0 ? 1 : 2;
        axes[k]++;
        CHECK_NEAR(len(d), 0.5, 1e-9);
    }
    CHECK(axes[0] == 4 && axes[1] == 4 && axes[2] == 4);

    /* residual colouring: points in the colour of their residual */
    double res[8];
    CHECK(mo_world_contact_residuals(w, res, 8) == nc);
    lg.n = 0;
    CHECK(mo_world_debug_draw(w, &dd, MO_DRAW_RESIDUALS) == MO_OK);
    CHECK(lg.n == nc);
    for (int c = 0; c < nc && c < lg.n; c++) CHECK(lg.r[c].c == mo_debug_draw_residual_color(&dd, res[c]));

    /* errors */
    CHECK(mo_world_debug_draw(w, NULL, MO_DRAW_ALL) == MO_ERR_INVALID_ARGUMENT);
    mo_debug_draw bad = dd;
    bad.line = NULL;
    CHECK(mo_world_debug_draw(w, &bad, MO_DRAW_ALL) == MO_ERR_INVALID_ARGUMENT);
    CHECK(strstr(mo_world_last_error(w), "mo_world_debug_draw") != NULL);
    memset(&bad, 0, sizeof bad);
    bad.line = cb_line;
    CHECK(mo_world_debug_draw(w, &bad, MO_DRAW_ALL) == MO_ERR_INVALID_ARGUMENT);
    mo_world_destroy(w);
}

/* per-contact residuals of an unconverged step: their squares sum to the step's residual squared */
static void test_residuals(void)
{
    mo_world *w = make_world(4, 0);
    if (!w) return;
    for (int i = 0; i < 4; i++) add_box(w, 0.25 + 0.5 * i + 0.02 * i, 1.0 + i);
    for (int s = 0; s < 30; s++) mo_world_step(w);
    mo_step_stats st = mo_world_last_stats(w);
    int nc = mo_world_contacts(w, NULL, 0);
    double res[64];
    CHECK(nc >= 12 && nc <= 64);
    CHECK(mo_world_contact_residuals(w, res, 64) == nc);
    double sum = 0;
    for (int c = 0; c < nc && c < 64; c++) {
        CHECK(res[c] >= 0);
        sum += res[c] * res[c];
    }
    CHECK(st.residual > 1e-8); /* 4 sweeps on a stack: not converged */
    CHECK_NEAR(sqrt(sum), st.residual, 1e-9 * st.residual);
    printf("stack of 4, 4 PGS sweeps: %d contacts, sqrt(sum e_c^2) = %.15g, step residual %.15g\n", nc, sqrt(sum),
           st.residual);
    CHECK(mo_world_contact_residuals(w, NULL, 0) == nc);
    /* colour scale: green at or below low, red at or above high, yellow at the geometric middle */
    mo_debug_draw dd = mo_default_debug_draw();
    CHECK(mo_debug_draw_residual_color(&dd, 0.0) == 0x00ff00ffu);
    CHECK(mo_debug_draw_residual_color(&dd, 1e-6) == 0x00ff00ffu);
    CHECK(mo_debug_draw_residual_color(&dd, 1.0) == 0xff0000ffu);
    CHECK(mo_debug_draw_residual_color(&dd, sqrt(1e-6 * 1e-1)) == 0xffff00ffu);
    mo_world_destroy(w);
}

/* joint frames: both anchors with their bodies' orientations, the axis, the anchor gap */
static void test_joints(void)
{
    mo_world_def wd = mo_default_world_def();
    mo_world *w = NULL;
    CHECK(mo_world_create(&wd, &w, NULL, 0) == MO_OK);
    mo_body_def bd = mo_default_body_def();
    bd.shape.type = MO_SHAPE_SPHERE;
    bd.shape.radius = 0.1;
    bd.position = (mo_vec3){1, 0, 2};
    mo_body_id bob;
    mo_body_create(w, &bd, &bob);
    mo_joint_def jd = mo_default_joint_def();
    jd.type = MO_JOINT_REVOLUTE;
    jd.body_b = bob;
    jd.anchor_a = (mo_vec3){0, 0, 2};
    jd.anchor_b = (mo_vec3){-1, 0, 0};
    jd.axis_a = jd.axis_b = (mo_vec3){0, 1, 0};
    mo_joint_id jid;
    CHECK(mo_joint_create(w, &jd, &jid) == MO_OK);

    log_t lg = {0};
    mo_debug_draw dd = mo_default_debug_draw();
    dd.user = &lg;
    dd.line = cb_line, dd.frame = cb_frame;
    CHECK(mo_world_debug_draw(w, &dd, MO_DRAW_JOINTS) == MO_OK);
    /* frame A (world, identity), frame B (the bob's), the axis; anchors coincide: no error line */
    CHECK(lg.n == 3);
    CHECK(lg.r[0].kind == 3 && lg.r[1].kind == 3 && lg.r[2].kind == 0);
    CHECK_VEC(&lg.r[0].a.x, 0, 0, 2, 1e-15);
    CHECK_VEC(&lg.r[1].a.x, 0, 0, 2, 1e-15);
    CHECK_NEAR(lg.r[0].q.w, 1, 0);
    CHECK_NEAR(lg.r[0].size, dd.frame_scale, 0);
    CHECK(lg.r[2].c == MO_DRAW_COLOR_JOINT_AXIS);
    CHECK_VEC(&lg.r[2].a.x, 0, -2 * dd.frame_scale, 2, 1e-15);
    CHECK_VEC(&lg.r[2].b.x, 0, 2 * dd.frame_scale, 2, 1e-15);

    /* after the bob swings, the frames follow its orientation; with lines only each frame is 3 coloured axes */
    for (int i = 0; i < 60; i++) mo_world_step(w);
    mo_quat q;
    mo_body_orientation(w, bob, &q);
    lg.n = 0;
    CHECK(mo_world_debug_draw(w, &dd, MO_DRAW_JOINTS) == MO_OK);
    CHECK(lg.n >= 3);
    CHECK_NEAR(lg.r[1].q.w, q.w, 0);
    CHECK_NEAR(lg.r[1].q.y, q.y, 0);
    CHECK(fabs(q.y) > 0.1); /* it did swing */
    dd.frame = NULL;
    lg.n = 0;
    CHECK(mo_world_debug_draw(w, &dd, MO_DRAW_JOINTS) == MO_OK);
    CHECK(lg.n >= 7);
    CHECK(lg.r[0].c == MO_DRAW_COLOR_X && lg.r[1].c == MO_DRAW_COLOR_Y && lg.r[2].c == MO_DRAW_COLOR_Z);
    CHECK_NEAR(len(sub(lg.r[0].b, lg.r[0].a)), dd.frame_scale, 1e-15);
    /* B's x axis is the bob's: R(q) e_x */
    double wq = q.w, xq = q.x, yq = q.y, zq = q.z;
    mo_vec3 ex = {1 - 2 * (yq * yq + zq * zq), 2 * (xq * yq + wq * zq), 2 * (xq * zq - wq * yq)};
    mo_vec3 d = sub(lg.r[3].b, lg.r[3].a);
    CHECK_VEC(&d.x, ex.x * dd.frame_scale, ex.y * dd.frame_scale, ex.z * dd.frame_scale, 1e-12);
    mo_world_destroy(w);
}

/* shape enumeration and geometry */
static void test_shape_info(void)
{
    mo_world *w = make_world(10, 0);
    if (!w) return;
    mo_body_id box = add_box(w, 1.0, 1.0);
    /* a compound part: a sphere offset in the body frame */
    mo_shape_def sd = mo_default_shape_def();
    sd.type = MO_SHAPE_SPHERE;
    sd.radius = 0.1;
    sd.position = (mo_vec3){0, 0, 0.5};
    mo_shape_id sph;
    CHECK(mo_shape_create(w, box, &sd, &sph) == MO_OK);
    /* a hull cube and a two-triangle mesh on a static body */
    mo_vec3 pts[8];
    for (int i = 0; i < 8; i++) pts[i] = (mo_vec3){i & 1 ? 0.1 : -0.1, i & 2 ? 0.1 : -0.1, i & 4 ? 0.1 : -0.1};
    mo_body_def hb = mo_default_body_def();
    hb.shape.type = MO_SHAPE_CONVEX_HULL;
    hb.shape.points = pts;
    hb.shape.point_count = 8;
    hb.position = (mo_vec3){2, 0, 1};
    mo_body_id hull;
    CHECK(mo_body_create(w, &hb, &hull) == MO_OK);
    mo_vec3 mv[4] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}};
    int tri[6] = {0, 1, 2, 0, 2, 3};
    mo_body_def mb = mo_default_body_def();
    mb.type = MO_BODY_STATIC;
    mb.shape.type = MO_SHAPE_MESH;
    mb.shape.vertices = mv;
    mb.shape.vertex_count = 4;
    mb.shape.indices = tri;
    mb.shape.triangle_count = 2;
    mo_body_id mesh;
    CHECK(mo_body_create(w, &mb, &mesh) == MO_OK);

    mo_shape_id ids[8];
    int n = mo_world_shapes(w, ids, 8);
    CHECK(n == 5); /* plane, box, sphere, hull, mesh */
    CHECK(mo_world_shapes(w, NULL, 0) == 5);
    int seen[MO_SHAPE_TYPE_COUNT] = {0};
    for (int i = 0; i < n && i < 8; i++) {
        mo_shape_info si;
        CHECK(mo_shape_get_info(w, ids[i], &si) == MO_OK);
        seen[si.type]++;
        if (si.type == MO_SHAPE_BOX) {
            CHECK_VEC(&si.half_extents.x, 0.25, 0.25, 0.25, 0);
            CHECK(si.body.index == box.index && si.body_type == MO_BODY_DYNAMIC);
        } else if (si.type == MO_SHAPE_PLANE) {
            CHECK(si.body_type == MO_BODY_STATIC);
        } else if (si.type == MO_SHAPE_CONVEX_HULL) {
            CHECK(si.vertex_count == 8 && si.face_count == 6 && si.vertices && si.face_first && si.face_vertices);
            for (int f = 0; f < si.face_count && si.face_first; f++)
                CHECK(si.face_first[f + 1] - si.face_first[f] == 4);
            CHECK(!si.triangles);
        } else if (si.type == MO_SHAPE_MESH) {
            CHECK(si.vertex_count == 4 && si.triangle_count == 2 && si.triangles && !si.face_first);
            CHECK(si.body_type == MO_BODY_STATIC);
        }
    }
    CHECK(seen[MO_SHAPE_PLANE] == 1 && seen[MO_SHAPE_BOX] == 1 && seen[MO_SHAPE_SPHERE] == 1 &&
          seen[MO_SHAPE_CONVEX_HULL] == 1 && seen[MO_SHAPE_MESH] == 1);
    /* the sphere's world pose follows the body: turn the body 90 degrees about x */
    double s2 = sqrt(0.5);
    CHECK(mo_body_set_pose(w, box, (mo_vec3){1, 2, 3}, (mo_quat){s2, s2, 0, 0}) == MO_OK);
    mo_vec3 p;
    mo_quat q;
    CHECK(mo_shape_world_pose(w, sph, &p, &q) == MO_OK);
    CHECK_VEC(&p.x, 1, 2 - 0.5, 3, 1e-12);
    CHECK_NEAR(q.w, s2, 1e-15);
    CHECK_NEAR(q.x, s2, 1e-15);
    mo_shape_info si;
    CHECK(mo_shape_get_info(w, sph, &si) == MO_OK);
    CHECK_VEC(&si.position.x, 0, 0, 0.5, 0);
    CHECK_NEAR(si.radius, 0.1, 0);
    /* stale ids and NULL */
    CHECK(mo_shape_destroy(w, sph) == MO_OK);
    CHECK(mo_shape_get_info(w, sph, &si) == MO_ERR_STALE_ID);
    CHECK(strstr(mo_world_last_error(w), "does not name a live shape") != NULL);
    CHECK(mo_shape_world_pose(w, sph, &p, NULL) == MO_ERR_STALE_ID);
    CHECK(mo_shape_get_info(w, ids[0], NULL) == MO_ERR_INVALID_ARGUMENT);
    CHECK(mo_world_shapes(w, ids, 8) == 4);
    mo_world_destroy(w);
}

/* particles and FEM boundary edges: a 1-cell cube of 6 tetrahedra (Freudenthal) and two free particles */
static void test_particles_fem(void)
{
    mo_world_def wd = mo_default_world_def();
    wd.gravity = (mo_vec3){0, 0, 0};
    wd.solver.kind = MO_SOLVER_NEWTON;
    mo_world *w = NULL;
    char err[256];
    if (mo_world_create(&wd, &w, err, sizeof err) != MO_OK) {
        CHECK(!"world");
        return;
    }
    const double a = 0.2;
    mo_vec3 nodes[8];
    for (int i = 0; i < 8; i++) nodes[i] = (mo_vec3){0.5 + a * (i & 1), a * (i >> 1 & 1), a * (i >> 2)};
    /* node 0 to node 7 along the main diagonal, through the six vertex paths (positively oriented) */
    static const int tets[6][4] = {{0, 1, 3, 7}, {0, 1, 7, 5}, {0, 2, 7, 3}, {0, 2, 6, 7}, {0, 4, 5, 7}, {0, 4, 7, 6}};
    mo_fem_material_def mat = {1e6, 0.3, 500.0, MO_FEM_COROTATIONAL};
    mo_fem_mesh_def md = mo_default_fem_mesh_def();
    md.nodes = nodes;
    md.node_count = 8;
    md.tets = &tets[0][0];
    md.tet_count = 6;
    md.materials = &mat;
    md.material_count = 1;
    mo_fem_mesh_id mesh;
    CHECK(mo_fem_mesh_create(w, &md, &mesh) == MO_OK);
    if (mo_fem_mesh_id_is_null(mesh)) fprintf(stderr, "%s\n", mo_world_last_error(w));
    int ntri = 0;
    CHECK(mo_fem_mesh_surface(w, mesh, NULL, &ntri) == MO_OK);
    CHECK(ntri == 12);
    mo_particle_def pd = mo_default_particle_def();
    pd.position = (mo_vec3){-1, 0, 0};
    pd.radius = 0.05;
    mo_particle_id p1, p2;
    CHECK(mo_particle_create(w, &pd, &p1) == MO_OK);
    pd.position = (mo_vec3){-2, 0, 0};
    pd.radius = 0;
    CHECK(mo_particle_create(w, &pd, &p2) == MO_OK);

    log_t lg = {.n = 0};
    mo_debug_draw dd = mo_default_debug_draw();
    dd.user = &lg;
    dd.line = cb_line;
    dd.point = cb_point;
    /* particles: two points, sized by radius (else point_size), the mesh's 8 nodes not among them */
    CHECK(mo_world_debug_draw(w, &dd, MO_DRAW_PARTICLES) == MO_OK);
    CHECK(lg.n == 2 && count(&lg, 1) == 2);
    if (lg.n == 2) {
        CHECK(lg.r[0].a.x == -1 && lg.r[0].size == 0.05 && lg.r[0].c == MO_DRAW_COLOR_PARTICLE);
        CHECK(lg.r[1].a.x == -2 && lg.r[1].size == dd.point_size && lg.r[1].c == MO_DRAW_COLOR_PARTICLE);
    }
    /* FEM: 18 edges, each once: 12 of length a, 6 face diagonals a sqrt 2, no body diagonal; ends at nodes */
    lg.n = 0;
    CHECK(mo_world_debug_draw(w, &dd, MO_DRAW_FEM) == MO_OK);
    CHECK(lg.n == 18 && count(&lg, 0) == 18);
    int n_edge = 0, n_diag = 0, pair_seen[64] = {0}, dup = 0, off_node = 0;
    for (int i = 0; i < lg.n && i < MAXREC; i++) {
        double l = len(sub(lg.r[i].b, lg.r[i].a));
        n_edge += fabs(l - a) < 1e-15;
        n_diag += fabs(l - a * sqrt(2.0)) < 1e-15;
        int ia = -1, ib = -1;
        for (int k = 0; k < 8; k++) {
            if (len(sub(lg.r[i].a, nodes[k])) == 0) ia = k;
            if (len(sub(lg.r[i].b, nodes[k])) == 0) ib = k;
        }
        if (ia < 0 || ib < 0) {
            off_node++;
            continue;
        }
        int key = ia < ib ? 8 * ia + ib : 8 * ib + ia;
        dup += pair_seen[key]++ > 0;
        CHECK(lg.r[i].c == MO_DRAW_COLOR_FEM);
    }
    printf("FEM cube: %d boundary triangles, %d edges drawn (%d of a, %d diagonals), %d twice, %d off the nodes\n",
           ntri, lg.n, n_edge, n_diag, dup, off_node);
    CHECK(n_edge == 12 && n_diag == 6 && dup == 0 && off_node == 0);
    /* the line fallback for particles: a 3-line cross of half-size radius (else point_size) */
    dd.point = NULL;
    lg.n = 0;
    CHECK(mo_world_debug_draw(w, &dd, MO_DRAW_PARTICLES) == MO_OK);
    CHECK(lg.n == 6 && count(&lg, 0) == 6);
    if (lg.n == 6) {
        CHECK_NEAR(len(sub(lg.r[0].b, lg.r[0].a)), 0.1, 1e-15);
        CHECK_NEAR(len(sub(lg.r[5].b, lg.r[5].a)), 2 * dd.point_size, 1e-15);
        CHECK(lg.r[5].c == MO_DRAW_COLOR_PARTICLE);
    }
    /* MO_DRAW_ALL (no step, no shapes): particles, then the edges */
    dd.point = cb_point;
    lg.n = 0;
    CHECK(mo_world_debug_draw(w, &dd, MO_DRAW_ALL) == MO_OK);
    CHECK(lg.n == 20 && lg.r[0].kind == 1 && lg.r[1].kind == 1 && lg.r[2].kind == 0);
    /* after a step the edges follow the nodes (a pushed node) */
    mo_particle_id n7;
    CHECK(mo_fem_mesh_node_particle(w, mesh, 7, &n7) == MO_OK);
    CHECK(mo_particle_set_velocity(w, n7, (mo_vec3){0, 0, 1}) == MO_OK);
    CHECK(mo_world_step(w) == MO_OK);
    mo_vec3 x7;
    mo_fem_mesh_node_position(w, mesh, 7, &x7);
    lg.n = 0;
    mo_world_debug_draw(w, &dd, MO_DRAW_FEM);
    int at7 = 0;
    for (int i = 0; i < lg.n && i < MAXREC; i++) at7 += len(sub(lg.r[i].a, x7)) == 0 || len(sub(lg.r[i].b, x7)) == 0;
    CHECK(x7.z > a + 1e-4);
    CHECK(at7 == 6); /* node 7 (the diagonal's end) is on 3 cube edges and 3 face diagonals */
    /* a destroyed mesh is not drawn */
    CHECK(mo_fem_mesh_destroy(w, mesh) == MO_OK);
    lg.n = 0;
    CHECK(mo_world_debug_draw(w, &dd, MO_DRAW_FEM | MO_DRAW_PARTICLES) == MO_OK);
    CHECK(lg.n == 2);
    mo_world_destroy(w);
}

static bool same(mo_vec3 a, mo_vec3 b) { return a.x == b.x && a.y == b.y && a.z == b.z; }
static mo_vec3 qrot(mo_quat q, mo_vec3 v)
{
    /* v + 2 w (u x v) + 2 u x (u x v) */
    mo_vec3 u = {q.x, q.y, q.z};
    mo_vec3 t = {2 * (u.y * v.z - u.z * v.y), 2 * (u.z * v.x - u.x * v.z), 2 * (u.x * v.y - u.y * v.x)};
    return (mo_vec3){v.x + q.w * t.x + (u.y * t.z - u.z * t.y), v.y + q.w * t.y + (u.z * t.x - u.x * t.z),
                     v.z + q.w * t.z + (u.x * t.y - u.y * t.x)};
}

/* an articulation's skeleton: a fixed base at (1, 2, 3), a revolute shoulder about y 0.5 m above it, a prismatic
   forearm along x 1 m out, a spherical wrist 0.25 m below */
static void test_skeleton(void)
{
    mo_world *w = make_world(50, 1e-10);
    CHECK(w);
    if (!w) return;
    mo_link_def ld[4];
    for (int k = 0; k < 4; k++) ld[k] = mo_default_link_def();
    ld[0].joint = MO_LINK_FIXED;
    ld[1].parent = 0, ld[1].joint = MO_LINK_REVOLUTE, ld[1].axis = (mo_vec3){0, 1, 0};
    ld[1].joint_position = (mo_vec3){0, 0, 0.5};
    ld[2].parent = 1, ld[2].joint = MO_LINK_PRISMATIC, ld[2].axis = (mo_vec3){1, 0, 0};
    ld[2].joint_position = (mo_vec3){1, 0, 0};
    ld[3].parent = 2, ld[3].joint = MO_LINK_SPHERICAL, ld[3].joint_position = (mo_vec3){0, 0, -0.25};
    mo_articulation_def ad = mo_default_articulation_def();
    ad.links = ld;
    ad.link_count = 4;
    ad.base_position = (mo_vec3){1, 2, 3};
    mo_articulation_id art;
    CHECK(mo_articulation_create(w, &ad, &art) == MO_OK);
    mo_debug_draw dd = mo_default_debug_draw();
    log_t lg = {0};
    dd.user = &lg;
    dd.line = cb_line, dd.point = cb_point, dd.arrow = cb_arrow, dd.frame = cb_frame, dd.box = cb_box;
    CHECK(mo_world_debug_draw(w, &dd, MO_DRAW_SKELETON) == MO_OK);
    /* q = 0: bone, axis per moving joint, in link order; the spherical wrist has a bone only */
    const double s = 2.0 * dd.frame_scale;
    const rec want[5] = {
        {0, {1, 2, 3}, {1, 2, 3.5}, {1, 0, 0, 0}, 0, MO_DRAW_COLOR_SKELETON},
        {0, {1, 2 - s, 3.5}, {1, 2 + s, 3.5}, {1, 0, 0, 0}, 0, MO_DRAW_COLOR_JOINT_AXIS},
        {0, {1, 2, 3.5}, {2, 2, 3.5}, {1, 0, 0, 0}, 0, MO_DRAW_COLOR_SKELETON},
        {0, {2 - s, 2, 3.5}, {2 + s, 2, 3.5}, {1, 0, 0, 0}, 0, MO_DRAW_COLOR_JOINT_AXIS},
        {0, {2, 2, 3.5}, {2, 2, 3.25}, {1, 0, 0, 0}, 0, MO_DRAW_COLOR_SKELETON},
    };
    CHECK(lg.n == 5 && count(&lg, 0) == 5);
    for (int i = 0; i < 5 && i < lg.n; i++) {
        const rec *r = &lg.r[i];
        if (!(r->kind == 0 && same(r->a, want[i].a) && same(r->b, want[i].b) && r->c == want[i].c))
            printf("skeleton: segment %d (%.17g %.17g %.17g)-(%.17g %.17g %.17g) %08x\n", i, r->a.x, r->a.y, r->a.z,
                   r->b.x, r->b.y, r->b.z, r->c);
        CHECK(r->kind == 0 && same(r->a, want[i].a) && same(r->b, want[i].b) && r->c == want[i].c);
    }
    /* bent: shoulder 0.7 rad, forearm out 0.2 m, wrist turned 0.6 rad about x: the bones join the link
       origins (mo_articulation_link_pose, exactly), the axes are the joint axes rotated with their links */
    const double q[6] = {0.7, 0.2, cos(0.3), sin(0.3), 0, 0};
    CHECK(mo_articulation_set_q(w, art, q, 6) == MO_OK);
    lg.n = 0;
    CHECK(mo_world_debug_draw(w, &dd, MO_DRAW_SKELETON) == MO_OK);
    CHECK(lg.n == 5);
    mo_vec3 p[4];
    mo_quat o[4];
    for (int k = 0; k < 4; k++) CHECK(mo_articulation_link_pose(w, art, k, &p[k], &o[k]) == MO_OK);
    CHECK(same(lg.r[0].a, p[0]) && same(lg.r[0].b, p[1]));
    CHECK(same(lg.r[2].a, p[1]) && same(lg.r[2].b, p[2]));
    CHECK(same(lg.r[4].a, p[2]) && same(lg.r[4].b, p[3]));
    double worst = 0;
    for (int j = 0; j < 2; j++) {
        int k = j + 1, i = 2 * j + 1;
        mo_vec3 ax = qrot(o[k], ld[k].axis);
        mo_vec3 lo = {p[k].x - s * ax.x, p[k].y - s * ax.y, p[k].z - s * ax.z};
        mo_vec3 hi = {p[k].x + s * ax.x, p[k].y + s * ax.y, p[k].z + s * ax.z};
        double e = fmax(len(sub(lg.r[i].a, lo)), len(sub(lg.r[i].b, hi)));
        worst = fmax(worst, e);
        CHECK(lg.r[i].c == MO_DRAW_COLOR_JOINT_AXIS);
    }
    printf("skeleton: bent arm, axes within %.3g m of the rotated joint axes; forearm at (%.6f %.6f %.6f)\n", worst,
           p[2].x, p[2].y, p[2].z);
    CHECK(worst < 1e-15);
    /* the forearm moved out along the shoulder-rotated x by 0.2 m: 1.2 m from the shoulder */
    CHECK(fabs(len(sub(p[2], p[1])) - 1.2) < 1e-15);
    /* not drawn without the flag (everything else), drawn with MO_DRAW_ALL, gone with the articulation */
    lg.n = 0;
    CHECK(mo_world_debug_draw(w, &dd, MO_DRAW_ALL & ~(unsigned)MO_DRAW_SKELETON) == MO_OK);
    int bones = 0;
    for (int i = 0; i < lg.n && i < MAXREC; i++) bones += lg.r[i].c == MO_DRAW_COLOR_SKELETON;
    CHECK(bones == 0);
    lg.n = 0;
    CHECK(mo_world_debug_draw(w, &dd, MO_DRAW_ALL) == MO_OK);
    for (int i = 0; i < lg.n && i < MAXREC; i++) bones += lg.r[i].c == MO_DRAW_COLOR_SKELETON;
    CHECK(bones == 3);
    CHECK(mo_articulation_destroy(w, art) == MO_OK);
    lg.n = 0;
    CHECK(mo_world_debug_draw(w, &dd, MO_DRAW_SKELETON) == MO_OK);
    CHECK(lg.n == 0);
    mo_world_destroy(w);
}

int main(void)
{
    test_box_contacts();
    test_residuals();
    test_joints();
    test_shape_info();
    test_particles_fem();
    test_skeleton();
    return check_result_counted("debug_draw");
}
