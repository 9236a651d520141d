/* import_urdf_artic.c: a validated URDF description -> one reduced-coordinate
 * articulation (mo_urdf_options.articulation; docs/import.md, "As an
 * articulation").
 *
 * Model link k is articulation link k (the parser's order: the root first,
 * parents before children). URDF's frames map one to one: a joint's <origin>
 * is the joint frame in the parent link's frame (mo_link_def.joint_position /
 * joint_orientation), the child link's frame is the joint frame at q = 0, the
 * axis is in the joint frame. A link's <collision> geometries become shapes
 * on its link body (mo_articulation_link_body), made as the maximal import
 * makes them (ur_link_collisions). <limit lower upper> of a revolute or
 * prismatic joint are limit rows (mo_articulation_set_limits), <dynamics
 * friction> a dry friction row (mo_articulation_set_joint_friction), <mimic>
 * a mimic row (mo_articulation_set_mimic). A "world" root link without mass or geometry whose only joint is
 * floating is left out with that joint, its child the free root (lift_floating_root); any other floating joint
 * is refused.
 * Everything is checked before the articulation is created; limits, friction,
 * drives, the collision group, link bodies, shapes and pair exclusions are set after, and a refusal
 * destroys it again (its link bodies with it), so the world is unchanged on
 * error. */
#include <stdlib.h>
#include <string.h>

#include "import_urdf.h"

/* a warning, or -1 out of memory */
#define UR_WARN(...) (ur_warn(r, path, __VA_ARGS__) < 0)

/* The <collision> geometries as shapes on the links' bodies (mo_articulation_link_body; a link without one gets
 * no body), made as the maximal import makes them (ur_link_collisions; a link body's origin is the link frame).
 * Without self_collision the articulation gets the robot's collision group (mo_articulation_set_collision_group:
 * options.collision_group, else the smallest free one from 0x10000, as the maximal import's bodies), before its
 * link bodies are made: no pair exclusion; with it, the exclude_pairs whose links both have bodies are excluded
 * (adjacent links never collide on an articulation). Fills m's collisions, collision_group and the links' body,
 * first_collision, ncollisions. On a refusal:
 * destroys the articulation (its link bodies and shapes go with it), err says what and the status is returned. */
static mo_status collide(mo_world *w, const char *path, const ur_robot *r, const mo_urdf_options *opt,
                         const int *model_of, const bool *is_static, ur_shape_work *sw, mo_urdf_model *m, char *err,
                         size_t err_size)
{
    mo_status st = MO_OK;
    int nc = 0, line = 0;
    char who[UR_NAME + 16] = "";
    const char *what = "link body";
    m->collision_group = 0;
    if (!opt->self_collision) {
        if (opt->collision_group) m->collision_group = opt->collision_group;
        else {
            mo_body_id *ids = malloc((size_t)(mo_world_bodies(w, NULL, 0) + 1) * sizeof *ids);
            if (!ids) st = MO_ERR_OUT_OF_MEMORY;
            else m->collision_group = ur_free_group(w, ids);
            free(ids);
        }
        what = "collision group";
        snprintf(who, sizeof who, "robot '%s'", r->name);
        if (st == MO_OK) st = mo_articulation_set_collision_group(w, m->articulation, m->collision_group);
    }
    for (int k = 0; k < r->nlinks && st == MO_OK; k++) {
        int li = r->order[k];
        mo_urdf_link *ml = &m->links[k];
        ml->first_collision = nc;
        bool any = false;
        for (int c = 0; c < r->ncollisions && !any; c++) any = r->collisions[c].link == li;
        if (!any) continue;
        snprintf(who, sizeof who, "link '%s'", r->links[li].name);
        line = r->links[li].line;
        what = "link body";
        st = mo_articulation_link_body(w, m->articulation, k, &ml->body);
        if (st != MO_OK) break;
        what = "collision shape";
        st = ur_link_collisions(w, r, li, k, ml->body, ur_v(0, 0, 0), is_static[li], opt, sw, m, &nc, &line);
        ml->ncollisions = nc - ml->first_collision;
    }
    m->ncollisions = nc;
    if (st == MO_OK) { /* a refusal above keeps its own what and line */
        what = "pair exclusion";
        line = 0;
    }
    int npairs = opt->self_collision && opt->exclude_pairs ? opt->nexclude_pairs : 0;
    for (int k = 0; k < npairs && st == MO_OK; k++) {
        if (r->excl[2 * k] < 0 || r->excl[2 * k + 1] < 0) continue; /* a left-out world link (lift_floating_root) */
        mo_body_id a = m->links[model_of[r->excl[2 * k]]].body, b = m->links[model_of[r->excl[2 * k + 1]]].body;
        if (mo_body_id_is_null(a) || mo_body_id_is_null(b)) continue; /* a link without shapes collides with nothing */
        snprintf(who, sizeof who, "exclude_pairs[%d]", 2 * k);
        st = mo_world_set_pair_collision(w, a, b, false);
    }
    if (st == MO_OK) return MO_OK;
    char cause[512];
    snprintf(cause, sizeof cause, "%s", st == MO_ERR_OUT_OF_MEMORY ? "out of memory" : mo_world_last_error(w));
    mo_articulation_destroy(w, m->articulation);
    if (err && err_size) {
        if (line > 0) snprintf(err, err_size, "%s:%d: %s: cannot create the %s: %s", path, line, who, what, cause);
        else snprintf(err, err_size, "%s: %s: cannot create the %s: %s", path, who, what, cause);
    }
    ur_set_world_error(w, err);
    return st;
}

/* The "world link + floating joint" pattern: a root link without mass (no <inertial> mass), without <collision>
 * or <visual>, whose only joint is floating, is left out with that joint: its child is the articulation's free root
 * (as fixed_base = false, whatever fixed_base says) at the base pose composed with the joint's <origin>. r is
 * edited in place (the link and the joint removed, indices renumbered: a parse order without them; exclude_pairs
 * naming the link read -1) and *o gets fixed_base false and that base pose. Every other floating joint is refused:
 * 0 (nothing to do or done), else -1 with err and the world's last error set. */
static int lift_floating_root(mo_world *w, const char *path, ur_robot *r, mo_urdf_options *o, char *err,
                              size_t err_size)
{
    int root = r->order[0], fj = -1, nroot = 0;
    for (int k = 0; k < r->njoints; k++) {
        if (r->joints[k].parent == root) nroot++;
        if (r->joints[k].type == MO_URDF_JOINT_FLOATING && fj < 0) fj = k;
    }
    if (fj < 0) return 0;
    const ur_joint *j = &r->joints[fj];
    const char *why = NULL;
    char many[64];
    bool colls = false, vis = false;
    for (int c = 0; c < r->ncollisions; c++) colls |= r->collisions[c].link == root;
    for (int c = 0; c < r->nvisuals; c++) vis |= r->visuals[c].link == root;
    if (j->parent != root) why = NULL;
    else if (r->links[root].has_mass) why = "has mass";
    else if (colls) why = "has collision geometry";
    else if (vis) why = "has visual geometry";
    else if (nroot > 1) {
        snprintf(many, sizeof many, "has %d joints", nroot);
        why = many;
    }
    if (j->parent != root || why) {
        if (err && err_size) {
            if (j->parent != root)
                snprintf(err, err_size, "%s:%d: joint '%s': a floating joint below link '%s' cannot be an articulation "
                         "joint (an articulation is free only at its root; a floating joint is taken as the free base "
                         "only from a root link without mass or geometry whose only joint it is): import without "
                         "articulation", path, j->line, j->name, r->links[j->parent].name);
            else
                snprintf(err, err_size, "%s:%d: joint '%s': a floating joint cannot be an articulation joint, and "
                         "root link '%s' %s (a floating joint is taken as the free base only from a root link without "
                         "mass or geometry whose only joint it is): import without articulation", path, j->line,
                         j->name, r->links[root].name, why);
        }
        ur_set_world_error(w, err);
        return -1;
    }
    /* the base pose: the options' composed with the joint's origin */
    mo_vec3 bp = ur_add(o->base_position, ur_rot(o->base_orientation, j->pos));
    mo_quat bq = ur_qmul(o->base_orientation, j->q);
    o->fixed_base = false;
    o->base_position = bp;
    o->base_orientation = bq;
    /* remove link root and joint fj; renumber */
#define UR_LI(x) ((x) > root ? (x) - 1 : (x))
#define UR_JI(x) ((x) > fj ? (x) - 1 : (x))
    for (int i = root; i + 1 < r->nlinks; i++) r->links[i] = r->links[i + 1];
    r->nlinks--;
    for (int k = fj; k + 1 < r->njoints; k++) r->joints[k] = r->joints[k + 1];
    r->njoints--;
    for (int i = 0; i < r->nlinks; i++) {
        int pj = r->links[i].parent_joint;
        r->links[i].parent_joint = pj == fj ? -1 : UR_JI(pj);
    }
    for (int k = 0; k < r->njoints; k++) {
        ur_joint *jk = &r->joints[k];
        jk->parent = UR_LI(jk->parent);
        jk->child = UR_LI(jk->child);
        if (jk->mimic >= 0) jk->mimic = UR_JI(jk->mimic); /* never fj: a mimic's leader moves (the parser's rule) */
    }
    for (int c = 0; c < r->ncollisions; c++) r->collisions[c].link = UR_LI(r->collisions[c].link);
    for (int c = 0; c < r->nvisuals; c++) r->visuals[c].link = UR_LI(r->visuals[c].link);
    for (int i = 0; i < r->nlinks; i++) r->order[i] = UR_LI(r->order[i + 1]); /* order[0] was root */
    for (int k = 0; k < (o->exclude_pairs ? 2 * o->nexclude_pairs : 0); k++) r->excl[k] = r->excl[k] == root ? -1 : UR_LI(r->excl[k]);
#undef UR_LI
#undef UR_JI
    return 0;
}

mo_status ur_robot_build_articulation(mo_world *w, const char *path, ur_robot *r, const mo_urdf_options *opt_in,
                                      mo_urdf_model *out, char *err, size_t err_size)
{
    mo_status st = MO_OK;
    /* a floating joint: the free base under a left-out world link, else refused */
    mo_urdf_options lifted = *opt_in;
    if (lift_floating_root(w, path, r, &lifted, err, err_size) < 0) return MO_ERR_INVALID_ARGUMENT;
    const mo_urdf_options *opt = &lifted;
    int nl = r->nlinks;
    mo_urdf_model m;
    memset(&m, 0, sizeof m);
    int *model_of = calloc((size_t)nl, sizeof *model_of);
    bool *is_static = calloc((size_t)nl, sizeof *is_static);
    mo_link_def *ld = calloc((size_t)nl, sizeof *ld);
    m.links = calloc((size_t)nl, sizeof *m.links);
    m.joints = calloc((size_t)(r->njoints ? r->njoints : 1), sizeof *m.joints);
    m.visuals = calloc((size_t)(r->nvisuals ? r->nvisuals : 1), sizeof *m.visuals);
    m.collisions = calloc((size_t)(r->ncollisions ? r->ncollisions : 1), sizeof *m.collisions);
    ur_shape_work sw;
    int swr = ur_shape_work_init(&sw, r);
    if (!model_of || !is_static || !ld || !m.links || !m.joints || !m.visuals || !m.collisions || swr < 0) {
        st = MO_ERR_OUT_OF_MEMORY;
        goto fail;
    }
    for (int i = 0; i < nl; i++) model_of[r->order[i]] = i;

    /* links, as the maximal build weighs them: a fixed base and the links welded to it carry no mass (they never
       move), a moving link without <inertial> mass gets massless_link_mass as a solid sphere of radius 0.05 m */
    int long_name = -1;
    for (int k = 0; k < nl; k++) {
        int li = r->order[k];
        const ur_link *l = &r->links[li];
        mo_link_def *d = &ld[k];
        *d = mo_default_link_def();
        mo_urdf_link *ml = &m.links[k];
        snprintf(ml->name, sizeof ml->name, "%s", l->name);
        ml->parent_joint = l->parent_joint;
        ml->frame_orientation = (mo_quat){1, 0, 0, 0};
        if (strlen(l->name) < MO_LINK_NAME_LEN) d->name = l->name;
        else if (long_name < 0) long_name = li;
        if (l->parent_joint < 0) {
            is_static[li] = opt->fixed_base;
            d->parent = -1;
            d->joint = opt->fixed_base ? MO_LINK_FIXED : MO_LINK_FREE;
        } else {
            const ur_joint *j = &r->joints[l->parent_joint];
            is_static[li] = is_static[j->parent] && j->type == MO_URDF_JOINT_FIXED;
            d->parent = model_of[j->parent];
            d->joint = j->type == MO_URDF_JOINT_FIXED       ? MO_LINK_FIXED
                       : j->type == MO_URDF_JOINT_PRISMATIC ? MO_LINK_PRISMATIC
                       : j->type == MO_URDF_JOINT_BALL      ? MO_LINK_SPHERICAL
                                                            : MO_LINK_REVOLUTE;
            d->joint_position = j->pos;
            d->joint_orientation = j->q;
            if (d->joint != MO_LINK_FIXED) {
                d->axis = j->axis;
                d->damping = opt->ignore_damping ? 0.0 : j->damping;
                d->armature = j->armature; /* MJCF's; 0 for URDF */
            }
        }
        if (is_static[li]) {
            d->mass = 0;
            d->inertia = (mo_mat3){{{0, 0, 0}, {0, 0, 0}, {0, 0, 0}}};
        } else if (l->has_mass) {
            d->mass = l->mass;
            d->com = l->com;
            d->inertia = l->inertia;
        } else {
            double I = 0.4 * opt->massless_link_mass * 0.05 * 0.05;
            d->mass = opt->massless_link_mass;
            d->inertia = (mo_mat3){{{I, 0, 0}, {0, I, 0}, {0, 0, I}}};
        }
        ml->mass = d->mass;
        ml->com = d->com;
    }
    if (long_name >= 0 && UR_WARN(r->links[long_name].line, "link '%s': the name has %d bytes, more than the %d an "
                                  "articulation link's name may have: the link is left unnamed in the articulation "
                                  "(mo_urdf_find_link finds its index)", r->links[long_name].name,
                                  (int)strlen(r->links[long_name].name), MO_LINK_NAME_LEN - 1)) {
        st = MO_ERR_OUT_OF_MEMORY;
        goto fail;
    }

    /* the joints as recorded; limits, dry friction and drives are set on the articulation once it exists */
    for (int k = 0; k < r->njoints; k++) {
        const ur_joint *j = &r->joints[k];
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
        mj->has_limits = j->has_limits; /* rows on the articulation (mo_articulation_set_limits) */
        mj->origin_position = j->pos;
        mj->origin_orientation = j->q;
        if (j->type == MO_URDF_JOINT_FIXED || j->type == MO_URDF_JOINT_BALL) continue; /* ball: damping only */
        bool drive = opt->drive_stiffness + opt->drive_damping > 0;
        mj->motor = drive ? MO_MOTOR_POSITION : MO_MOTOR_OFF;
        /* a bound beyond MO_LENGTH_MAX is no bound on its side (below); one that leaves no room is refused here,
           before anything is created */
        if (j->has_limits && (j->lower > MO_LENGTH_MAX || j->upper < -MO_LENGTH_MAX)) {
            if (err && err_size)
                snprintf(err, err_size, "%s:%d: joint '%s': limits [%g, %g] lie beyond the %g m or rad an "
                         "articulation's coordinates may reach", path, j->line, j->name, j->lower, j->upper,
                         MO_LENGTH_MAX);
            ur_set_world_error(w, err);
            st = MO_ERR_INVALID_ARGUMENT;
            goto cleanup;
        }
    }
    if (opt->self_collision && !opt->exclude_adjacent && r->ncollisions > 0 &&
        UR_WARN(0, "exclude_adjacent = false does not apply to an articulation: the link bodies of a parent and "
                "its child never collide")) {
        st = MO_ERR_OUT_OF_MEMORY;
        goto fail;
    }

    mo_articulation_def ad = mo_default_articulation_def();
    ad.links = ld;
    ad.link_count = nl;
    ad.base_position = opt->base_position;
    ad.base_orientation = opt->base_orientation;
    st = mo_articulation_create(w, &ad, &m.articulation);
    if (st != MO_OK) {
        char cause[512];
        snprintf(cause, sizeof cause, "%s", st == MO_ERR_OUT_OF_MEMORY ? "out of memory" : mo_world_last_error(w));
        if (err && err_size)
            snprintf(err, err_size, "%s: robot '%s': cannot create the articulation: %s", path, r->name, cause);
        ur_set_world_error(w, err);
        goto cleanup;
    }
    /* per moving joint: the URDF limits as limit rows (a bound beyond MO_LENGTH_MAX: none on that side; an MJCF
       ball range as the cone limit), its
       <dynamics friction> as a dry friction row (unless ignore_friction; beside a drive or damping, unlike the
       body import's one motor), a PD drive toward 0 bounded by the URDF effort */
    for (int k = 0; k < r->njoints && st == MO_OK; k++) {
        const ur_joint *j = &r->joints[k];
        if (j->type == MO_URDF_JOINT_FIXED || (j->type == MO_URDF_JOINT_BALL && !j->has_limits)) continue;
        int link = model_of[j->child];
        const char *what = "limits";
        if (j->type == MO_URDF_JOINT_BALL) { /* MJCF's ball range: a cone limit, nothing else (damping is the link's) */
            what = "cone limit";
            st = mo_articulation_set_cone_limit(w, m.articulation, link, j->upper);
        } else if (j->has_limits) {
            double lo = j->lower < -MO_LENGTH_MAX ? -INFINITY : j->lower;
            double hi = j->upper > MO_LENGTH_MAX ? INFINITY : j->upper;
            st = mo_articulation_set_limits(w, m.articulation, link, lo, hi);
        }
        if (st == MO_OK && j->type != MO_URDF_JOINT_BALL && !opt->ignore_friction && j->friction > 0) {
            what = "dry friction";
            st = mo_articulation_set_joint_friction(w, m.articulation, link, j->friction);
        }
        if (st == MO_OK && j->mimic >= 0) { /* q = multiplier q_leader + offset: a mimic row */
            what = "mimic";
            st = mo_articulation_set_mimic(w, m.articulation, link, model_of[r->joints[j->mimic].child],
                                           j->mimic_multiplier, j->mimic_offset);
        }
        if (st == MO_OK && j->type != MO_URDF_JOINT_BALL && opt->drive_stiffness + opt->drive_damping > 0) {
            mo_joint_drive dr = mo_default_joint_drive();
            dr.stiffness = opt->drive_stiffness;
            dr.damping = opt->drive_damping;
            dr.max_effort = j->effort > 0 ? j->effort : INFINITY;
            what = "drive";
            st = mo_articulation_set_drive(w, m.articulation, link, &dr);
        }
        if (st != MO_OK) {
            char cause[512];
            snprintf(cause, sizeof cause, "%s", mo_world_last_error(w));
            mo_articulation_destroy(w, m.articulation);
            if (err && err_size)
                snprintf(err, err_size, "%s:%d: joint '%s': cannot set the %s: %s", path, j->line, j->name, what,
                         cause);
            ur_set_world_error(w, err);
            goto cleanup;
        }
    }
    st = collide(w, path, r, opt, model_of, is_static, &sw, &m, err, err_size);
    if (st != MO_OK) goto cleanup; /* err says why; the articulation is gone */
    if (r->nwarnings > 0) {
        m.warnings = malloc((size_t)r->nwarnings * sizeof *m.warnings);
        if (!m.warnings) {
            mo_articulation_destroy(w, m.articulation);
            st = MO_ERR_OUT_OF_MEMORY;
            goto fail;
        }
        memcpy(m.warnings, r->warnings, (size_t)r->nwarnings * sizeof *m.warnings);
        m.nwarnings = r->nwarnings;
    }
    ur_copy_visuals(r, model_of, m.visuals);
    snprintf(m.name, sizeof m.name, "%s", r->name);
    m.nlinks = nl;
    m.njoints = r->njoints;
    m.nvisuals = r->nvisuals;
    *out = m;
    free(model_of);
    free(is_static);
    free(ld);
    ur_shape_work_free(&sw);
    return MO_OK;
fail:
    if (err && err_size) snprintf(err, err_size, "%s: out of memory", path);
    ur_set_world_error(w, err);
cleanup:
    mo_urdf_model_free(&m);
    free(model_of);
    free(is_static);
    free(ld);
    ur_shape_work_free(&sw);
    return st;
}
