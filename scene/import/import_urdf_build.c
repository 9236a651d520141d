/* import_urdf_build.c: a validated URDF description -> bodies, shapes, joints.
 *
 * Conventions (moreau.h): a dynamic body's frame sits at its centre of mass.
 * Each link's body keeps the link frame's axes and sits at the link's centre
 * of mass (the URDF inertial origin's offset); the inertial origin's rotation
 * goes into the inertia tensor (I = R Ic R^T, done by the parser). So a link
 * frame is the body frame moved by -com, and shapes and joint anchors are
 * offset by -com. Static links (a fixed base's root and links welded to it
 * through fixed joints only) sit at their link frame.
 *
 * All or nothing: output arrays are allocated first; when a creation call
 * fails, every body created so far is destroyed (with its shapes and joints). */
#include <stdlib.h>
#include <string.h>

#include "import_urdf.h"

void ur_set_world_error(mo_world *w, const char *msg)
{
    if (w && msg) mo_world_set_error(w, msg);
}

uint32_t ur_free_group(const mo_world *w, mo_body_id *ids)
{
    int n = mo_world_bodies(w, ids, mo_world_bodies(w, NULL, 0));
    uint32_t g = 0x10000;
    for (;;) {
        bool used = false;
        for (int i = 0; i < n && !used; i++) {
            uint32_t gi = 0;
            used = mo_body_collision_group(w, ids[i], &gi) == MO_OK && gi == g;
        }
        if (!used) return g;
        g++;
    }
}

/* four affinely independent points exist (a hull has volume) */
bool ur_has_volume(const double *v, int n)
{
    double lo[3] = {v[0], v[1], v[2]}, hi[3] = {v[0], v[1], v[2]};
    for (int i = 1; i < n; i++)
        for (int k = 0; k < 3; k++) {
            if (v[3 * i + k] < lo[k]) lo[k] = v[3 * i + k];
            if (v[3 * i + k] > hi[k]) hi[k] = v[3 * i + k];
        }
    double ext = fmax(hi[0] - lo[0], fmax(hi[1] - lo[1], hi[2] - lo[2])), tol = 1e-9 * ext;
    if (!(ext > 0)) return false;
    int a = 0, b = -1, cc = -1;
    double best = 0;
    for (int i = 0; i < n; i++) {
        double d[3] = {v[3 * i] - v[0], v[3 * i + 1] - v[1], v[3 * i + 2] - v[2]};
        double l = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        if (l > best) best = l, b = i;
    }
    if (b < 0 || best <= tol) return false;
    double e[3] = {v[3 * b] - v[3 * a], v[3 * b + 1] - v[3 * a + 1], v[3 * b + 2] - v[3 * a + 2]}, nrm[3] = {0, 0, 0};
    best = 0;
    for (int i = 0; i < n; i++) {
        double d[3] = {v[3 * i] - v[0], v[3 * i + 1] - v[1], v[3 * i + 2] - v[2]};
        double x[3] = {e[1] * d[2] - e[2] * d[1], e[2] * d[0] - e[0] * d[2], e[0] * d[1] - e[1] * d[0]};
        double l = sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
        if (l > best) best = l, cc = i, memcpy(nrm, x, sizeof x);
    }
    double el = sqrt(e[0] * e[0] + e[1] * e[1] + e[2] * e[2]);
    if (cc < 0 || best / el <= tol) return false;
    double nl = sqrt(nrm[0] * nrm[0] + nrm[1] * nrm[1] + nrm[2] * nrm[2]);
    for (int i = 0; i < n; i++) {
        double d[3] = {v[3 * i] - v[0], v[3 * i + 1] - v[1], v[3 * i + 2] - v[2]};
        if (fabs(d[0] * nrm[0] + d[1] * nrm[1] + d[2] * nrm[2]) / nl > tol) return true;
    }
    return false;
}

/* Hull simplification (mo_urdf_options.max_hull_vertices), greedy on the support
 * function: the Hausdorff distance between two convex bodies is the largest
 * difference of their support functions h(d) = max_x x.d over unit d. Over
 * UR_HULL_DIRS directions d_j spread evenly on the sphere (a Fibonacci lattice),
 * hf[j] is the full mesh's support and sup[j] the vertex giving it (lowest index
 * on ties). Starting from the six axis supports (so the bounding box is kept),
 * the vertex sup[j] of the direction with the largest gap hf[j] - hs[j] (hs: the
 * kept points' support) is added, until cap points are kept or no gap is left
 * (a mesh with few hull vertices keeps just those). The kept points are mesh
 * vertices, so the simplified hull lies inside the full one. qhull's way, which
 * MuJoCo's maxhullvert uses, also adds the farthest point next; this measures
 * "farthest" on the direction sample. Cost O(UR_HULL_DIRS (n + cap)). Returns the
 * number kept (the first entries of pts, in the mesh's order); n when n <= cap or
 * cap <= 0. work: 5 UR_HULL_DIRS doubles and UR_HULL_DIRS ints; keep: n bytes. */
#define UR_HULL_DIRS 2048
static int simplify_hull(mo_vec3 *pts, int n, int cap, unsigned char *keep, double *work, int *sup)
{
    if (cap <= 0 || n <= cap) return n;
    const int D = UR_HULL_DIRS;
    double *hf = work, *hs = work + D, *dir = work + 2 * D;
    const double golden = 3.14159265358979323846 * (3.0 - sqrt(5.0)); /* rad */
    double ext = 0;
    for (int i = 0; i < n; i++) ext = fmax(ext, fmax(fabs(pts[i].x), fmax(fabs(pts[i].y), fabs(pts[i].z))));
    for (int j = 0; j < D; j++) {
        double z = 1.0 - (2.0 * j + 1.0) / D, r = sqrt(fmax(0.0, 1.0 - z * z));
        double *d = dir + 3 * j;
        d[0] = r * cos(golden * j), d[1] = r * sin(golden * j), d[2] = z;
        hf[j] = -INFINITY;
        hs[j] = -INFINITY;
        for (int i = 0; i < n; i++) {
            double t = pts[i].x * d[0] + pts[i].y * d[1] + pts[i].z * d[2];
            if (t > hf[j]) hf[j] = t, sup[j] = i;
        }
    }
    memset(keep, 0, (size_t)n);
    int kept = 0;
    for (int k = 0; k < 6 + cap && kept < cap; k++) {
        int add = -1;
        if (k < 6) { /* the six axis supports */
            double best = -INFINITY, sg = k & 1 ? -1.0 : 1.0;
            for (int i = 0; i < n; i++) {
                double t = sg * (k / 2 == 0 ? pts[i].x : k / 2 == 1 ? pts[i].y : pts[i].z);
                if (t > best) best = t, add = i;
            }
        } else { /* the direction with the largest gap */
            double gap = 0;
            for (int j = 0; j < D; j++)
                if (hf[j] - hs[j] > gap) gap = hf[j] - hs[j], add = sup[j];
            if (add < 0 || gap <= 1e-12 * ext) break;
        }
        if (keep[add]) continue;
        keep[add] = 1;
        kept++;
        for (int j = 0; j < D; j++) {
            const double *d = dir + 3 * j;
            double t = pts[add].x * d[0] + pts[add].y * d[1] + pts[add].z * d[2];
            if (t > hs[j]) hs[j] = t;
        }
    }
    int m = 0;
    for (int i = 0; i < n; i++)
        if (keep[i]) pts[m++] = pts[i];
    return m;
}
/* ur_has_volume of n points (false when out of memory: then the caller keeps them all) */
static bool kept_have_volume(const mo_vec3 *p, int n)
{
    double *v = malloc((size_t)(3 * n) * sizeof *v);
    if (!v) return false;
    for (int i = 0; i < n; i++) v[3 * i] = p[i].x, v[3 * i + 1] = p[i].y, v[3 * i + 2] = p[i].z;
    bool ok = ur_has_volume(v, n);
    free(v);
    return ok;
}

int ur_shape_work_init(ur_shape_work *sw, const ur_robot *r)
{
    int maxv = 4;
    for (int i = 0; i < r->ncollisions; i++)
        if (r->collisions[i].mesh.nvertices > maxv) maxv = r->collisions[i].mesh.nvertices;
    sw->pts = malloc((size_t)maxv * sizeof *sw->pts);
    sw->keep = malloc((size_t)maxv);
    sw->hwork = malloc(5 * UR_HULL_DIRS * sizeof *sw->hwork);
    sw->hsup = malloc(UR_HULL_DIRS * sizeof *sw->hsup);
    return sw->pts && sw->keep && sw->hwork && sw->hsup ? 0 : -1;
}

void ur_shape_work_free(ur_shape_work *sw)
{
    free(sw->pts);
    free(sw->keep);
    free(sw->hwork);
    free(sw->hsup);
    memset(sw, 0, sizeof *sw);
}

mo_status ur_link_collisions(mo_world *w, const ur_robot *r, int li, int k, mo_body_id body, mo_vec3 com,
                             bool is_static, const mo_urdf_options *opt, ur_shape_work *sw, mo_urdf_model *m,
                             int *nc, int *line)
{
    mo_vec3 *pts = sw->pts;
    mo_status st = MO_OK;
    for (int c = 0; c < r->ncollisions && st == MO_OK; c++) {
        const ur_geom *g = &r->collisions[c];
        if (g->link != li) continue;
        *line = g->line;
        mo_shape_def sd = mo_default_shape_def();
        mo_urdf_collision *mc = &m->collisions[*nc];
        sd.position = ur_sub(g->pos, com);
        sd.orientation = g->q;
        sd.friction = g->has_friction ? g->friction : opt->friction;
        switch (g->type) {
        case MO_URDF_GEOM_CAPSULE: /* MJCF */
            sd.type = MO_SHAPE_CAPSULE;
            sd.radius = g->size.x;
            sd.half_height = 0.5 * g->size.z;
            break;
        case MO_URDF_GEOM_PLANE: /* MJCF, static links only (checked by the parser) */
            sd.type = MO_SHAPE_PLANE;
            break;
        case MO_URDF_GEOM_BOX:
            sd.type = MO_SHAPE_BOX;
            sd.half_extents = ur_v(0.5 * g->size.x, 0.5 * g->size.y, 0.5 * g->size.z);
            break;
        case MO_URDF_GEOM_CYLINDER:
            sd.type = MO_SHAPE_CYLINDER;
            sd.radius = g->size.x;
            sd.half_height = 0.5 * g->size.z;
            break;
        case MO_URDF_GEOM_SPHERE:
            sd.type = MO_SHAPE_SPHERE;
            sd.radius = g->size.x;
            break;
        default: {
            bool tri = opt->collision_meshes == MO_URDF_MESH_TRIANGLES ||
                       (opt->collision_meshes == MO_URDF_MESH_AUTO && is_static);
            if (tri) {
                for (int v = 0; v < g->mesh.nvertices; v++)
                    pts[v] = ur_v(g->mesh.vertices[3 * v], g->mesh.vertices[3 * v + 1], g->mesh.vertices[3 * v + 2]);
                sd.type = MO_SHAPE_MESH;
                sd.vertices = pts;
                sd.vertex_count = g->mesh.nvertices;
                sd.indices = g->mesh.triangles;
                sd.triangle_count = g->mesh.ntriangles;
            } else {
                for (int v = 0; v < g->mesh.nvertices; v++)
                    pts[v] = ur_v(g->mesh.vertices[3 * v], g->mesh.vertices[3 * v + 1], g->mesh.vertices[3 * v + 2]);
                sd.type = MO_SHAPE_CONVEX_HULL;
                sd.points = pts;
                sd.point_count = simplify_hull(pts, g->mesh.nvertices, opt->max_hull_vertices, sw->keep,
                                               sw->hwork, sw->hsup);
                /* should the kept points be flat (not seen: they hold the six axis supports and more),
                   the full set is used */
                if (sd.point_count < g->mesh.nvertices && !kept_have_volume(pts, sd.point_count)) {
                    for (int v = 0; v < g->mesh.nvertices; v++)
                        pts[v] = ur_v(g->mesh.vertices[3 * v], g->mesh.vertices[3 * v + 1],
                                      g->mesh.vertices[3 * v + 2]);
                    sd.point_count = g->mesh.nvertices;
                }
                mc->hull_points = sd.point_count;
            }
        } break;
        }
        mc->link = k;
        mc->type = g->type;
        mc->size = g->size;
        snprintf(mc->mesh_path, sizeof mc->mesh_path, "%s", g->mesh_path);
        mc->position = g->pos;
        mc->orientation = g->q;
        mc->shape_type = sd.type;
        st = mo_shape_create(w, body, &sd, &mc->shape);
        if (st == MO_OK) (*nc)++;
    }
    return st;
}

typedef struct link_state {
    bool is_static;
    mo_vec3 pos;   /* link frame, world */
    mo_quat q;
    mo_vec3 com;   /* body origin in the link frame */
    double mass;
    mo_body_id body;
} link_state;

/* the parsed visuals into the model's (r->nvisuals of them), each naming its model link through model_of */
void ur_copy_visuals(const ur_robot *r, const int *model_of, mo_urdf_visual *out)
{
    for (int i = 0; i < r->nvisuals; i++) {
        const ur_geom *g = &r->visuals[i];
        mo_urdf_visual *v = &out[i];
        v->link = model_of[g->link];
        v->type = g->type;
        v->size = g->size;
        snprintf(v->mesh_path, sizeof v->mesh_path, "%s", g->mesh_path);
        v->position = g->pos;
        v->orientation = g->q;
        snprintf(v->material, sizeof v->material, "%s", g->material);
        memcpy(v->rgba, g->rgba, sizeof v->rgba);
    }
}

mo_status ur_robot_build(mo_world *w, const char *path, ur_robot *r, const mo_urdf_options *opt,
                         mo_urdf_model *out, char *err, size_t err_size)
{
    int nl = r->nlinks;
    link_state *ls = calloc((size_t)nl, sizeof *ls);
    int *model_of = calloc((size_t)nl, sizeof *model_of);
    mo_urdf_model m;
    memset(&m, 0, sizeof m);
    m.links = calloc((size_t)nl, sizeof *m.links);
    m.joints = calloc((size_t)(r->njoints ? r->njoints : 1), sizeof *m.joints);
    m.visuals = calloc((size_t)(r->nvisuals ? r->nvisuals : 1), sizeof *m.visuals);
    m.collisions = calloc((size_t)(r->ncollisions ? r->ncollisions : 1), sizeof *m.collisions);
    ur_shape_work sw;
    int swr = ur_shape_work_init(&sw, r);
    mo_body_id *ids = malloc((size_t)(mo_world_bodies(w, NULL, 0) + 1) * sizeof *ids);
    if (!ls || !model_of || !m.links || !m.joints || !m.visuals || !m.collisions || swr < 0 || !ids) {
        free(ls);
        free(model_of);
        ur_shape_work_free(&sw);
        free(ids);
        mo_urdf_model_free(&m);
        if (err && err_size) snprintf(err, err_size, "%s: out of memory", path);
        ur_set_world_error(w, err);
        return MO_ERR_OUT_OF_MEMORY;
    }
    for (int i = 0; i < nl; i++) model_of[r->order[i]] = i;

    /* zero configuration: poses, static links, mass frames (parents come first in order) */
    for (int k = 0; k < nl; k++) {
        int li = r->order[k];
        const ur_link *l = &r->links[li];
        link_state *s = &ls[li];
        if (l->parent_joint < 0) {
            s->is_static = opt->fixed_base;
            s->pos = opt->base_position;
            s->q = ur_qnorm(opt->base_orientation);
        } else {
            const ur_joint *j = &r->joints[l->parent_joint];
            const link_state *p = &ls[j->parent];
            s->is_static = p->is_static && j->type == MO_URDF_JOINT_FIXED;
            s->pos = ur_add(p->pos, ur_rot(p->q, j->pos));
            s->q = ur_qnorm(ur_qmul(p->q, j->q));
        }
        if (!s->is_static) {
            s->mass = l->has_mass ? l->mass : opt->massless_link_mass;
            s->com = l->has_mass ? l->com : ur_v(0, 0, 0);
        }
    }
    m.collision_group = opt->self_collision ? 0 : (opt->collision_group ? opt->collision_group : ur_free_group(w, ids));
    free(ids);

    mo_status st = MO_OK;
    int created = 0; /* bodies created, in model order */
    const char *what = "";
    int line = 0;
    char who[UR_NAME + 16] = "";
    int nc = 0;

    /* bodies and their shapes */
    for (int k = 0; k < nl && st == MO_OK; k++) {
        int li = r->order[k];
        const ur_link *l = &r->links[li];
        link_state *s = &ls[li];
        snprintf(who, sizeof who, "link '%s'", l->name);
        line = l->line;
        mo_body_def bd = mo_default_body_def();
        bd.type = s->is_static ? MO_BODY_STATIC : MO_BODY_DYNAMIC;
        bd.position = ur_add(s->pos, ur_rot(s->q, s->com));
        bd.orientation = s->q;
        bd.collision_group = m.collision_group;
        if (!s->is_static) {
            bd.mass = s->mass;
            if (l->has_mass) bd.inertia = l->inertia;
            else {
                double I = 0.4 * s->mass * 0.05 * 0.05;
                bd.inertia = (mo_mat3){{{I, 0, 0}, {0, I, 0}, {0, 0, I}}};
            }
        }
        what = "body";
        st = mo_body_create(w, &bd, &s->body);
        if (st != MO_OK) break;
        created = k + 1;
        mo_urdf_link *ml = &m.links[k];
        snprintf(ml->name, sizeof ml->name, "%s", l->name);
        ml->body = s->body;
        ml->parent_joint = l->parent_joint;
        ml->mass = s->is_static ? 0.0 : s->mass;
        ml->com = s->com;
        ml->frame_position = ur_v(-s->com.x, -s->com.y, -s->com.z);
        ml->frame_orientation = (mo_quat){1, 0, 0, 0};
        ml->first_collision = nc;
        what = "collision shape";
        st = ur_link_collisions(w, r, li, k, s->body, s->com, s->is_static, opt, &sw, &m, &nc, &line);
        ml->ncollisions = nc - ml->first_collision;
    }

    /* joints */
    for (int k = 0; k < r->njoints && st == MO_OK; k++) {
        const ur_joint *j = &r->joints[k];
        const link_state *p = &ls[j->parent], *c = &ls[j->child];
        mo_urdf_joint *mj = &m.joints[k];
        snprintf(mj->name, sizeof mj->name, "%s", j->name);
        mj->type = j->type;
        mj->parent_link = model_of[j->parent];
        mj->child_link = model_of[j->child];
        mj->axis = j->axis;
        mj->lower = j->lower;
        mj->upper = j->upper;
        mj->effort = j->effort;
        mj->velocity = j->velocity;
        mj->damping = j->damping;
        mj->friction = j->friction;
        mj->mimic = j->mimic;
        mj->mimic_multiplier = j->mimic_multiplier;
        mj->mimic_offset = j->mimic_offset;
        mj->has_limits = j->has_limits;
        mj->origin_position = j->pos;
        mj->origin_orientation = j->q;
        if (j->type == MO_URDF_JOINT_FLOATING || (j->type == MO_URDF_JOINT_FIXED && c->is_static)) continue;
        mo_joint_def jd = mo_default_joint_def();
        jd.body_a = p->body;
        jd.body_b = c->body;
        jd.anchor_a = ur_sub(j->pos, p->com);
        jd.anchor_b = ur_v(-c->com.x, -c->com.y, -c->com.z);
        /* with self collision, adjacent links are kept apart by pair exclusions (below), not by the joint */
        jd.collide_connected = opt->self_collision;
        if (j->type == MO_URDF_JOINT_FIXED) {
            jd.type = MO_JOINT_FIXED;
        } else if (j->type == MO_URDF_JOINT_BALL) { /* MJCF's: anchors only, no axis, limit or motor */
            jd.type = MO_JOINT_SPHERICAL;
        } else {
            jd.type = j->type == MO_URDF_JOINT_PRISMATIC ? MO_JOINT_PRISMATIC : MO_JOINT_REVOLUTE;
            jd.axis_a = ur_rot(j->q, j->axis);
            jd.axis_b = j->axis;
            jd.enable_limit = j->has_limits;
            jd.lower = j->lower;
            jd.upper = j->upper;
            double kp = opt->drive_stiffness, kd = opt->drive_damping + (opt->ignore_damping ? 0.0 : j->damping);
            double fr = opt->ignore_friction ? 0.0 : j->friction;
            if (kp + kd > 0) {
                jd.motor = MO_MOTOR_POSITION;
                jd.target_position = 0;
                jd.stiffness = kp;
                jd.damping = kd;
                jd.max_force = j->effort > 0 ? j->effort : INFINITY;
                if (fr > 0) {
                    /* what would free the motor for the friction */
                    char fix[96] = "";
                    if (kp > 0) strcat(fix, "drive_stiffness 0");
                    if (opt->drive_damping > 0) strcat(fix, *fix ? " and drive_damping 0" : "drive_damping 0");
                    if (j->damping > 0 && !opt->ignore_damping) strcat(fix, *fix ? " and ignore_damping" : "ignore_damping");
                    if (ur_warn(r, path, j->line, "joint '%s': dynamics friction %g is left out: the joint's one "
                                "motor carries the %s (set %s to keep the friction)", j->name, fr,
                                kp > 0 ? "PD drive" : "damping", fix) < 0) {
                        st = MO_ERR_OUT_OF_MEMORY;
                        break;
                    }
                }
            } else if (fr > 0) {
                /* dry friction: a velocity row toward 0 whose force is bounded by the friction */
                jd.motor = MO_MOTOR_VELOCITY;
                jd.target_velocity = 0;
                jd.max_force = fr;
            }
            mj->motor = jd.motor;
        }
        snprintf(who, sizeof who, "joint '%s'", j->name);
        line = j->line;
        what = "joint";
        st = mo_joint_create(w, &jd, &mj->joint);
    }

    /* self collision: adjacent links and the listed pairs never collide */
    if (opt->self_collision && opt->exclude_adjacent)
        for (int k = 0; k < r->njoints && st == MO_OK; k++) {
            const ur_joint *j = &r->joints[k];
            snprintf(who, sizeof who, "joint '%s'", j->name);
            line = j->line;
            what = "pair exclusion";
            st = mo_world_set_pair_collision(w, ls[j->parent].body, ls[j->child].body, false);
        }
    int npairs = opt->self_collision && opt->exclude_pairs ? opt->nexclude_pairs : 0;
    for (int k = 0; k < npairs && st == MO_OK; k++) {
        snprintf(who, sizeof who, "exclude_pairs[%d]", 2 * k);
        line = 0;
        what = "pair exclusion";
        st = mo_world_set_pair_collision(w, ls[r->excl[2 * k]].body, ls[r->excl[2 * k + 1]].body, false);
    }
    if (st == MO_OK && r->nwarnings > 0) {
        m.warnings = malloc((size_t)r->nwarnings * sizeof *m.warnings);
        if (!m.warnings) st = MO_ERR_OUT_OF_MEMORY;
        else {
            memcpy(m.warnings, r->warnings, (size_t)r->nwarnings * sizeof *m.warnings);
            m.nwarnings = r->nwarnings;
        }
    }

    if (st != MO_OK) {
        char cause[512];
        snprintf(cause, sizeof cause, "%s", st == MO_ERR_OUT_OF_MEMORY ? "out of memory" : mo_world_last_error(w));
        for (int k = created - 1; k >= 0; k--) mo_body_destroy(w, m.links[k].body);
        if (err && err_size) {
            if (line > 0) snprintf(err, err_size, "%s:%d: %s: cannot create the %s: %s", path, line, who, what, cause);
            else snprintf(err, err_size, "%s: %s: cannot create the %s: %s", path, who, what, cause);
        }
        ur_set_world_error(w, err);
        mo_urdf_model_free(&m);
    } else {
        ur_copy_visuals(r, model_of, m.visuals);
        snprintf(m.name, sizeof m.name, "%s", r->name);
        m.nlinks = nl;
        m.njoints = r->njoints;
        m.nvisuals = r->nvisuals;
        m.ncollisions = nc;
        *out = m;
    }
    free(ls);
    free(model_of);
    ur_shape_work_free(&sw);
    return st;
}
