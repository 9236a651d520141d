/* import_mjcf_eq.c: MJCF <equality> connect and weld (docs/import.md, "MJCF").
 *
 * An equality closes a loop: the maximal form builds it as an engine joint
 * between the two bodies (connect: MO_JOINT_SPHERICAL at the anchor; weld:
 * MO_JOINT_FIXED holding the bodies' relative pose at load). An articulation
 * is a tree and cannot hold one: the articulation form refuses an active
 * equality. The other kinds (joint, tendon, flex, distance) are refused. */
#include <stdlib.h>
#include <string.h>

#include "import_mjcf.h"

#ifdef MO_HAVE_URDF

/* body name -> link index; -1 for the world frame under a free root; -2 (and the sentence) when unknown */
static int eq_link(mj_ctx *c, const xmlNode *t, const char *body, const char *attr, const char *who)
{
    int li = mj_find_link(&c->d->r, body);
    if (li >= 0) return li;
    if (strcmp(body, "world") == 0) return -1; /* a free root: link 0 is the root, not the world */
    mj_fail(c, t, "%s: %s '%s' is not a body of the file", who, attr, body);
    return -2;
}

/* the link never moves: the world, or welded to it through fixed joints only (not under a free root) */
static bool eq_static(const mj_desc *d, int li)
{
    if (li < 0) return true;
    if (d->free_root) return false;
    for (; d->r.links[li].parent_joint >= 0; li = d->r.joints[d->r.links[li].parent_joint].parent)
        if (d->r.joints[d->r.links[li].parent_joint].type != MO_URDF_JOINT_FIXED) return false;
    return true;
}

/* active="true|false" of t or its class's <equality> default: 1, 0, -1 error */
static int eq_active(mj_ctx *c, const xmlNode *t, int cls, const char *who)
{
    const xmlNode *from = t;
    xmlChar *v = mj_get_kind(c, t, "equality", cls, "active", &from);
    if (!v) return 1;
    int a = strcmp((const char *)v, "true") == 0 ? 1 : strcmp((const char *)v, "false") == 0 ? 0 : -1;
    if (a < 0) mj_fail(c, from, "%s: active '%s' is not one of false, true", who, (const char *)v);
    xmlFree(v);
    return a;
}

static bool eq_has(const mj_ctx *c, const xmlNode *t, int cls, const char *name)
{
    xmlChar *v = mj_get_kind(c, t, "equality", cls, name, NULL);
    xmlFree(v);
    return v != NULL;
}

int mj_parse_equality(mj_ctx *c, const xmlNode *e)
{
    static const char *const none[] = {NULL};
    static const char *const connect_attrs[] = {"name", "class", "body1", "body2", "anchor", "site1", "site2",
                                                "solref", "solimp", "active", NULL};
    static const char *const weld_attrs[] = {"name", "class", "body1", "body2", "anchor", "relpose", "torquescale",
                                             "site1", "site2", "solref", "solimp", "active", NULL};
    if (mj_known_attrs(c, e, none, "equality") < 0) return -1;
    mj_desc *d = c->d;
    for (const xmlNode *t = e->children; t; t = t->next) {
        if (t->type != XML_ELEMENT_NODE) continue;
        bool weld = mj_is_el(t, "weld");
        if (!weld && !mj_is_el(t, "connect"))
            return mj_fail(c, t, "equality: <%s> is not supported (connect and weld are; docs/import.md, MJCF)",
                           mj_nm(t));
        const char *kind = weld ? "weld" : "connect";
        mj_equality *q = &d->eq[d->neq];
        memset(q, 0, sizeof *q);
        q->type = weld ? MO_MJCF_EQUALITY_WELD : MO_MJCF_EQUALITY_CONNECT;
        q->line = (int)xmlGetLineNo(t);
        int a = mj_text(c, t, -1, "name", q->name, sizeof q->name, kind);
        if (a < 0) return -1;
        char who[UR_NAME + 16];
        if (a) snprintf(who, sizeof who, "%s '%s'", kind, q->name);
        else {
            snprintf(who, sizeof who, "%s", kind);
            snprintf(q->name, sizeof q->name, "equality%d", d->neq);
        }
        int cls = mj_class_of(c, t, 0, who);
        if (cls < -1 || mj_known_attrs(c, t, weld ? weld_attrs : connect_attrs, who) < 0) return -1;
        if (eq_has(c, t, -1, "site1") || eq_has(c, t, -1, "site2"))
            return mj_fail(c, t, "%s: site1 and site2 are not supported (give body1, body2 and anchor)", who);
        int act = eq_active(c, t, cls, who);
        if (act < 0) return -1;
        q->active = act == 1;
        /* the two bodies: body2 left out is the world */
        char b1[UR_NAME], b2[UR_NAME];
        if (mj_text(c, t, -1, "body1", b1, sizeof b1, who) < 0 || mj_text(c, t, -1, "body2", b2, sizeof b2, who) < 0)
            return -1;
        if (!b1[0]) return mj_fail(c, t, "%s: no body1", who);
        q->link1 = eq_link(c, t, b1, "body1", who);
        if (q->link1 < -1) return -1;
        q->link2 = eq_link(c, t, b2[0] ? b2 : "world", "body2", who);
        if (q->link2 < -1) return -1;
        if (q->link1 == q->link2) return mj_fail(c, t, "%s: body1 and body2 are the same body '%s'", who, b1);
        if (eq_static(d, q->link1) && eq_static(d, q->link2))
            return mj_fail(c, t, "%s: body1 '%s' and body2 '%s' are both fixed to the world: the equality constrains "
                           "nothing", who, b1, b2[0] ? b2 : "world");
        /* the anchor: connect's in body1's frame (required), weld's in body2's (default its origin), moved into
           the link frame (which sits at the body's joint) */
        double v[7] = {0, 0, 0, 0, 0, 0, 0};
        int na = mj_nums(c, t, -1, "anchor", v, 3, 3, who);
        if (na < 0) return -1;
        if (na == 0 && !weld) return mj_fail(c, t, "%s: no anchor (the point in body1's frame where the bodies "
                                             "are joined)", who);
        int own = weld ? q->link2 : q->link1;
        q->anchor = ur_sub(ur_v(v[0], v[1], v[2]), own >= 0 ? d->off[own] : ur_v(0, 0, 0));
        if (weld) {
            int nr = mj_nums(c, t, -1, "relpose", v, 7, 7, who);
            if (nr < 0) return -1;
            if (nr > 0 && (v[3] != 0 || v[4] != 0 || v[5] != 0 || v[6] != 0))
                return mj_fail(c, t, "%s: relpose is not supported: the weld holds the bodies' relative pose in the "
                               "model as written (leave relpose out, or give it the quaternion 0 0 0 0)", who);
            double ts;
            if (mj_num(c, t, -1, "torquescale", 1, &ts, who) < 0) return -1;
            if (ts != 1)
                return mj_fail(c, t, "%s: torquescale %g is not supported (must be 1: the weld holds the rotation "
                               "rigidly)", who, ts);
        }
        if (q->active && c->opt->articulation)
            return mj_fail(c, t, "%s: an equality closes a loop, which an articulation (a tree) cannot hold: load "
                           "with articulation = false (C) or maximal = true (Lua)", who);
        int wr = 0;
        if (!q->active) wr = ur_warn(&d->r, c->path, q->line, "%s: active is false: recorded, not built", who);
        else if (eq_has(c, t, cls, "solref") || eq_has(c, t, cls, "solimp"))
            wr = ur_warn(&d->r, c->path, q->line, "%s: solref and solimp are ignored: the joint is rigid (the "
                         "world's joint_compliance applies)", who);
        if (wr < 0) {
            snprintf(c->err, c->n, "%s: out of memory", c->path);
            return -3;
        }
        d->neq++;
    }
    return 0;
}
#endif

/* p (world) in body b's frame; the world's for the null body */
static mo_vec3 eq_local(const mo_world *w, mo_body_id b, mo_vec3 p)
{
    if (mo_body_id_is_null(b)) return p;
    mo_vec3 o;
    mo_quat q;
    mo_body_position(w, b, &o);
    mo_body_orientation(w, b, &q);
    return ur_rot((mo_quat){q.w, -q.x, -q.y, -q.z}, ur_sub(p, o));
}

mo_status mj_build_equalities(mo_world *w, const char *path, const mj_desc *d, mo_urdf_model *m, char *err, size_t n)
{
    if (d->neq == 0) return MO_OK;
    m->equalities = calloc((size_t)d->neq, sizeof *m->equalities);
    if (!m->equalities) {
        snprintf(err, n, "%s: out of memory", path);
        return MO_ERR_OUT_OF_MEMORY;
    }
    m->nequalities = d->neq;
    for (int i = 0; i < d->neq; i++) {
        const mj_equality *q = &d->eq[i];
        mo_mjcf_equality *e = &m->equalities[i];
        snprintf(e->name, sizeof e->name, "%s", q->name);
        e->type = q->type;
        e->line = q->line;
        e->link1 = q->link1; /* MJCF links: parse order is model order */
        e->link2 = q->link2;
        e->anchor = q->anchor;
        e->active = q->active;
        if (!q->active) continue;
        /* the anchor in the world, on the link whose frame it is given in */
        bool weld = q->type == MO_MJCF_EQUALITY_WELD;
        int own = weld ? q->link2 : q->link1;
        mo_vec3 p = q->anchor;
        if (own >= 0) {
            mo_vec3 lp;
            mo_quat lq;
            mo_urdf_link_pose(w, m, own, &lp, &lq);
            p = ur_add(lp, ur_rot(lq, q->anchor));
        }
        /* body_b moves: the world or a static link goes first */
        mo_body_id a = q->link1 >= 0 ? m->links[q->link1].body : (mo_body_id){0, 0};
        mo_body_id b = q->link2 >= 0 ? m->links[q->link2].body : (mo_body_id){0, 0};
        if (q->link2 < 0 || m->links[q->link2].mass == 0) {
            mo_body_id t = a;
            a = b;
            b = t;
        }
        mo_joint_def jd = mo_default_joint_def();
        jd.type = weld ? MO_JOINT_FIXED : MO_JOINT_SPHERICAL;
        jd.body_a = a;
        jd.body_b = b;
        jd.anchor_a = eq_local(w, a, p);
        jd.anchor_b = eq_local(w, b, p);
        jd.collide_connected = true; /* as MuJoCo: an equality does not keep its bodies from colliding */
        mo_status st = mo_joint_create(w, &jd, &e->joint);
        if (st != MO_OK) {
            snprintf(err, n, "%s:%d: %s '%s': cannot create the joint: %s", path, q->line,
                     weld ? "weld" : "connect", q->name,
                     st == MO_ERR_OUT_OF_MEMORY ? "out of memory" : mo_world_last_error(w));
            for (int k = 0; k < i; k++)
                if (!mo_joint_id_is_null(m->equalities[k].joint)) mo_joint_destroy(w, m->equalities[k].joint);
            return st;
        }
    }
    return MO_OK;
}
