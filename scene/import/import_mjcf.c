/* import_mjcf.c: MJCF files -> the URDF importer's validated description
 * (libxml2). The subset read and its mapping are in docs/import.md ("MJCF").
 *
 * Every attribute of an element read here is either mapped, or ignored because
 * it changes nothing Moreau simulates (names, colours, groups, MuJoCo's solver
 * parameters, listed in docs/import.md), or refused with "FILE:LINE: what":
 * nothing that changes the physics is dropped silently. Attribute values come
 * from the element, else from its class (class=, else the nearest childclass
 * of an enclosing body, else "main") and that class's ancestors. The readers
 * below are shared with import_mjcf_eq.c (<equality>) through import_mjcf.h. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "import_mjcf.h"

#ifdef MO_HAVE_URDF
#include <libxml/parser.h>
#include <libxml/tree.h>

#define MJ_MAX_CLASSES 4096

int mj_fail(mj_ctx *c, const xmlNode *node, const char *fmt, ...)
{
    if (!c->err || c->n == 0) return -1;
    int k = snprintf(c->err, c->n, "%s:%ld: ", c->path, node ? xmlGetLineNo(node) : 0L);
    if (k < 0 || (size_t)k >= c->n) return -1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->err + k, c->n - (size_t)k, fmt, ap);
    va_end(ap);
    return -1;
}

bool mj_is_el(const xmlNode *n, const char *name)
{
    return n->type == XML_ELEMENT_NODE && strcmp((const char *)n->name, name) == 0;
}

const char *mj_nm(const xmlNode *n) { return (const char *)n->name; }

/* ---- attributes through the default classes ---- */

xmlChar *mj_get_kind(const mj_ctx *c, const xmlNode *el, const char *kind, int cls, const char *name,
                     const xmlNode **from)
{
    xmlChar *v = xmlGetProp(el, (const xmlChar *)name);
    if (v) {
        if (from) *from = el;
        return v;
    }
    if (cls < 0) return NULL;
    for (int k = cls; k >= 0; k = c->cls[k].parent)
        for (const xmlNode *t = c->cls[k].node ? c->cls[k].node->children : NULL; t; t = t->next)
            if (mj_is_el(t, kind) && (v = xmlGetProp(t, (const xmlChar *)name))) {
                if (from) *from = t;
                return v;
            }
    return NULL;
}

/* the attribute of el itself, else of el's kind's template in class cls and the class's ancestors; *from the
   node holding it; NULL when none (cls -1: el's own only) */
static xmlChar *get(const mj_ctx *c, const xmlNode *el, int cls, const char *name, const xmlNode **from)
{
    return mj_get_kind(c, el, mj_nm(el), cls, name, from);
}

/* text attribute into buf: 1 read, 0 absent, -1 error */
int mj_text(mj_ctx *c, const xmlNode *el, int cls, const char *name, char *buf, size_t size, const char *who)
{
    const xmlNode *from = el;
    xmlChar *v = get(c, el, cls, name, &from);
    buf[0] = '\0';
    if (!v) return 0;
    size_t len = strlen((const char *)v);
    if (len >= size) {
        xmlFree(v);
        return mj_fail(c, from, "%s: %s is longer than %zu characters", who, name, size - 1);
    }
    memcpy(buf, v, len + 1);
    xmlFree(v);
    return 1;
}

/* between min and max numbers: the count read, 0 absent, -1 error (not numbers, NaN, too few or many) */
int mj_nums(mj_ctx *c, const xmlNode *el, int cls, const char *name, double *out, int min, int max,
                const char *who)
{
    const xmlNode *from = el;
    xmlChar *v = get(c, el, cls, name, &from);
    if (!v) return 0;
    const char *s = (const char *)v;
    int k = 0;
    bool bad = false;
    for (const char *p = s;;) {
        while (isspace((unsigned char)*p)) p++;
        if (!*p) break;
        char *end = NULL;
        errno = 0;
        double x = strtod(p, &end);
        if (end == p || (*end && !isspace((unsigned char)*end)) || !isfinite(x) || k >= max) {
            bad = true;
            break;
        }
        out[k++] = x;
        p = end;
    }
    int r = k;
    if (bad || k < min) {
        if (min == max)
            mj_fail(c, from, "%s: %s '%s' is not %d number%s", who, name, s, min, min == 1 ? "" : "s");
        else mj_fail(c, from, "%s: %s '%s' is not %d to %d numbers", who, name, s, min, max);
        r = -1;
    }
    xmlFree(v);
    return r;
}

int mj_num(mj_ctx *c, const xmlNode *el, int cls, const char *name, double dflt, double *v, const char *who)
{
    *v = dflt;
    return mj_nums(c, el, cls, name, v, 1, 1, who);
}

/* a keyword among words (NULL-terminated): its index, dflt when absent, -1 error */
int mj_keyword(mj_ctx *c, const xmlNode *el, int cls, const char *name, const char *const *words, int dflt,
                   const char *who)
{
    char buf[64];
    int a = mj_text(c, el, cls, name, buf, sizeof buf, who);
    if (a < 0) return -1;
    if (a == 0) return dflt;
    for (int i = 0; words[i]; i++)
        if (strcmp(buf, words[i]) == 0) return i;
    char list[256] = "";
    for (int i = 0; words[i]; i++) {
        strncat(list, i ? ", " : "", sizeof list - strlen(list) - 1);
        strncat(list, words[i], sizeof list - strlen(list) - 1);
    }
    const xmlNode *from = el;
    xmlChar *v = get(c, el, cls, name, &from);
    xmlFree(v);
    return mj_fail(c, from, "%s: %s '%s' is not one of %s", who, name, buf, list);
}

/* every attribute of el is one of known: else the element's unsupported attribute is refused */
int mj_known_attrs(mj_ctx *c, const xmlNode *el, const char *const *known, const char *who)
{
    for (const xmlAttr *a = el->properties; a; a = a->next) {
        bool ok = false;
        for (int i = 0; known[i] && !ok; i++) ok = strcmp((const char *)a->name, known[i]) == 0;
        if (!ok)
            return mj_fail(c, el, "%s: attribute %s of <%s> is not supported (docs/import.md, MJCF)", who,
                        (const char *)a->name, mj_nm(el));
    }
    return 0;
}

static const char *const body_attrs[] = {"name", "pos", "quat", "euler", "axisangle", "xyaxes", "zaxis", "childclass",
                                         "user", NULL};
static const char *const joint_attrs[] = {"name", "class", "type", "pos", "axis", "range", "limited", "damping",
                                          "frictionloss", "armature", "stiffness", "ref", "springref", "group",
                                          "solreflimit", "solimplimit", "solreffriction", "solimpfriction", "margin",
                                          "user", "actuatorfrclimited", "actuatorfrcrange", "actuatorgravcomp",
                                          NULL};
static const char *const geom_attrs[] = {"name", "class", "type", "size", "fromto", "pos", "quat", "euler",
                                         "axisangle", "xyaxes", "zaxis", "mass", "density", "contype", "conaffinity",
                                         "condim", "friction", "mesh", "rgba", "material", "group", "solref",
                                         "solimp", "solmix", "priority", "margin", "gap", "user", "hfield",
                                         "shellinertia", "fitscale", "fluidshape", "fluidcoef", NULL};
static const char *const inertial_attrs[] = {"pos", "quat", "euler", "axisangle", "xyaxes", "zaxis", "mass",
                                             "diaginertia", "fullinertia", NULL};
static const char *const act_attrs[] = {"name", "class", "joint", "gear", "ctrlrange", "ctrllimited", "forcerange",
                                        "forcelimited", "kp", "kv", "group", "user", "tendon", "site", "body",
                                        "jointinparent", "cranksite", "slidersite", "lengthrange", "dampratio",
                                        "inheritrange", "actdim", "dyntype", "gaintype", "biastype", "dynprm",
                                        "gainprm", "biasprm", "actlimited", "actrange", "actearly", "timeconst",
                                        NULL};

/* ---- angles and orientations ---- */

static double angle(const mj_ctx *c, double a) { return c->degree ? a * (MJ_PI / 180.0) : a; }

/* the frame orientation of el (quat, axisangle, euler, xyaxes or zaxis; at most one): 0 or -1 */
static int orientation(mj_ctx *c, const xmlNode *el, int cls, mo_quat *q, const char *who)
{
    static const char *const kinds[] = {"quat", "axisangle", "euler", "xyaxes", "zaxis"};
    static const int count[] = {4, 4, 3, 6, 3};
    *q = (mo_quat){1, 0, 0, 0};
    int found = -1;
    double v[6] = {0};
    for (int k = 0; k < 5; k++) {
        double t[6];
        int a = mj_nums(c, el, cls, kinds[k], t, count[k], count[k], who);
        if (a < 0) return -1;
        if (a == 0) continue;
        if (found >= 0)
            return mj_fail(c, el, "%s: both %s and %s give the orientation (one of quat, axisangle, euler, xyaxes, "
                        "zaxis)", who, kinds[found], kinds[k]);
        found = k;
        memcpy(v, t, sizeof t);
    }
    if (found == 0) {
        double n = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2] + v[3] * v[3]);
        if (!(n > 1e-10)) return mj_fail(c, el, "%s: quat (%g %g %g %g) is zero", who, v[0], v[1], v[2], v[3]);
        *q = (mo_quat){v[0] / n, v[1] / n, v[2] / n, v[3] / n};
    } else if (found == 1) {
        mo_vec3 ax = ur_v(v[0], v[1], v[2]);
        double n = mj_vlen(ax);
        if (!(n > 1e-10)) return mj_fail(c, el, "%s: axisangle axis (%g %g %g) is zero", who, v[0], v[1], v[2]);
        *q = mj_axis_angle(mj_vscale(ax, 1 / n), angle(c, v[3]));
    } else if (found == 2) {
        mo_quat r = {1, 0, 0, 0};
        for (int i = 0; i < 3; i++) {
            char a = c->eulerseq[i];
            int ax = tolower((unsigned char)a) - 'x';
            mo_vec3 e = ur_v(ax == 0, ax == 1, ax == 2);
            mo_quat qi = mj_axis_angle(e, angle(c, v[i]));
            r = islower((unsigned char)a) ? ur_qmul(r, qi) : ur_qmul(qi, r); /* moving (intrinsic) or fixed axes */
        }
        *q = ur_qnorm(r);
    } else if (found == 3) {
        mo_vec3 x = ur_v(v[0], v[1], v[2]), y = ur_v(v[3], v[4], v[5]);
        double nx = mj_vlen(x);
        if (!(nx > 1e-10)) return mj_fail(c, el, "%s: xyaxes x axis is zero", who);
        x = mj_vscale(x, 1 / nx);
        double d = x.x * y.x + x.y * y.y + x.z * y.z;
        y = ur_sub(y, mj_vscale(x, d));
        double ny = mj_vlen(y);
        if (!(ny > 1e-10)) return mj_fail(c, el, "%s: xyaxes y axis is parallel to x", who);
        y = mj_vscale(y, 1 / ny);
        mo_vec3 z = mj_vcross(x, y);
        double R[3][3] = {{x.x, y.x, z.x}, {x.y, y.y, z.y}, {x.z, y.z, z.z}};
        *q = mj_mat_quat(R);
    } else if (found == 4) {
        mo_vec3 z = ur_v(v[0], v[1], v[2]);
        double n = mj_vlen(z);
        if (!(n > 1e-10)) return mj_fail(c, el, "%s: zaxis (%g %g %g) is zero", who, v[0], v[1], v[2]);
        *q = mj_z_to(mj_vscale(z, 1 / n));
    }
    return 0;
}

static int vec3(mj_ctx *c, const xmlNode *el, int cls, const char *name, mo_vec3 dflt, mo_vec3 *out, const char *who)
{
    double t[3];
    int a = mj_nums(c, el, cls, name, t, 3, 3, who);
    *out = a == 3 ? ur_v(t[0], t[1], t[2]) : dflt;
    return a < 0 ? -1 : 0;
}

/* ---- classes ---- */

static int find_class(const mj_ctx *c, const char *name)
{
    for (int i = 0; i < c->ncls; i++)
        if (strcmp(c->cls[i].name, name) == 0) return i;
    return -1;
}

/* <default> el (class parent; -1: the top one, "main") and the defaults inside it */
static int parse_default(mj_ctx *c, const xmlNode *el, int parent)
{
    if (c->ncls >= MJ_MAX_CLASSES) return mj_fail(c, el, "default: more than %d classes", MJ_MAX_CLASSES);
    mj_class *k = &c->cls[c->ncls];
    char name[UR_NAME];
    int a = mj_text(c, el, -1, "class", name, sizeof name, "default");
    if (a < 0) return -1;
    if (parent >= 0 && a == 0) return mj_fail(c, el, "default: a nested <default> needs a class");
    snprintf(k->name, sizeof k->name, "%s", a ? name : "main");
    if (find_class(c, k->name) >= 0) return mj_fail(c, el, "default: class '%s' is defined twice", k->name);
    k->node = el;
    k->parent = parent;
    int me = c->ncls++;
    char who[UR_NAME + 32];
    snprintf(who, sizeof who, "default class '%s'", c->cls[me].name);
    for (const xmlNode *t = el->children; t; t = t->next) {
        if (t->type != XML_ELEMENT_NODE) continue;
        const char *const *known = NULL;
        if (mj_is_el(t, "default")) {
            if (parse_default(c, t, me) < 0) return -1;
            continue;
        }
        if (mj_is_el(t, "joint")) known = joint_attrs;
        else if (mj_is_el(t, "geom")) known = geom_attrs;
        else if (mj_is_el(t, "motor") || mj_is_el(t, "position") || mj_is_el(t, "velocity") || mj_is_el(t, "general"))
            known = act_attrs;
        else if (mj_is_el(t, "site") || mj_is_el(t, "camera") || mj_is_el(t, "light") || mj_is_el(t, "material") ||
                 mj_is_el(t, "mesh") || mj_is_el(t, "tendon") || mj_is_el(t, "equality") || mj_is_el(t, "pair"))
            continue; /* read where used (mesh), cosmetic, or refused where used */
        else return mj_fail(c, t, "%s: <%s> defaults are not supported (docs/import.md, MJCF)", who, mj_nm(t));
        if (mj_known_attrs(c, t, known, who) < 0) return -1;
    }
    return 0;
}

/* the class of el: class=, else inherited (childclass of an enclosing body, else main) */
int mj_class_of(mj_ctx *c, const xmlNode *el, int inherited, const char *who)
{
    char name[UR_NAME];
    int a = mj_text(c, el, -1, "class", name, sizeof name, who);
    if (a < 0) return -2;
    if (a == 0) return inherited;
    int k = find_class(c, name);
    if (k < 0) {
        mj_fail(c, el, "%s: unknown class '%s'", who, name);
        return -2;
    }
    return k;
}

/* ---- mesh files ---- */

static bool allowed(mj_ctx *c, const char *p)
{
    return !c->opt->allow_file || c->opt->allow_file(c->opt->allow_user, p);
}

static bool exists(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* file (as written) -> a readable path: absolute as is; else meshdir (relative to the model's folder when it
   is relative), the model's folder, each search path */
static int resolve_mesh(mj_ctx *c, const xmlNode *el, const char *file, char *out, const char *who)
{
    char cand[UR_PATH];
    bool refused = false;
    int ncand = 0;
    const char *bases[3 + 64];
    char md[2 * UR_PATH + 2];
    if (file[0] == '/') bases[ncand++] = NULL;
    else {
        if (c->meshdir[0]) {
            if (c->meshdir[0] == '/') snprintf(md, sizeof md, "%s", c->meshdir);
            else snprintf(md, sizeof md, "%s/%s", c->dir, c->meshdir);
            bases[ncand++] = md;
        }
        bases[ncand++] = c->dir;
        int nsp = c->opt->search_paths ? c->opt->nsearch_paths : 0;
        for (int i = 0; i < nsp && i < 64; i++)
            if (c->opt->search_paths[i]) bases[ncand++] = c->opt->search_paths[i];
    }
    for (int i = 0; i < ncand; i++) {
        int k = bases[i] ? snprintf(cand, sizeof cand, "%s/%s", bases[i], file) : snprintf(cand, sizeof cand, "%s", file);
        if (k < 0 || (size_t)k >= sizeof cand) continue;
        if (!allowed(c, cand)) {
            refused = true;
            continue;
        }
        if (exists(cand)) {
            memcpy(out, cand, (size_t)k + 1);
            return 0;
        }
    }
    if (refused) return mj_fail(c, el, "%s: mesh file '%s' is outside the folders this load may read", who, file);
    return mj_fail(c, el, "%s: mesh file '%s' not found (looked in meshdir '%s', %s and the search paths)", who, file,
                c->meshdir, c->dir);
}

static int parse_assets(mj_ctx *c, const xmlNode *asset)
{
    for (const xmlNode *t = asset->children; t; t = t->next) {
        if (t->type != XML_ELEMENT_NODE) continue;
        if (mj_is_el(t, "texture") || mj_is_el(t, "material") || mj_is_el(t, "skin")) continue; /* cosmetic */
        if (!mj_is_el(t, "mesh"))
            return mj_fail(c, t, "asset: <%s> is not supported (docs/import.md, MJCF)", mj_nm(t));
        static const char *const mesh_attrs[] = {"name", "class", "file", "scale", "content_type", NULL};
        if (mj_known_attrs(c, t, mesh_attrs, "mesh") < 0) return -1;
        mj_mesh *m = &c->meshes[c->nmeshes];
        m->line = (int)xmlGetLineNo(t);
        if (mj_text(c, t, -1, "file", m->file, sizeof m->file, "mesh") < 0) return -1;
        if (!m->file[0]) return mj_fail(c, t, "mesh: no file (meshes given by vertex, face or plugin are not supported)");
        int a = mj_text(c, t, -1, "name", m->name, sizeof m->name, "mesh");
        if (a < 0) return -1;
        if (a == 0) { /* the file's name without folder and extension */
            const char *b = strrchr(m->file, '/');
            snprintf(m->name, sizeof m->name, "%.63s", b ? b + 1 : m->file);
            char *dot = strrchr(m->name, '.');
            if (dot) *dot = '\0';
        }
        int cls = mj_class_of(c, t, 0, "mesh");
        if (cls < -1) return -1;
        if (vec3(c, t, cls, "scale", ur_v(1, 1, 1), &m->scale, "mesh") < 0) return -1;
        if (m->scale.x == 0 || m->scale.y == 0 || m->scale.z == 0)
            return mj_fail(c, t, "mesh '%s': scale has a zero", m->name);
        for (int i = 0; i < c->nmeshes; i++)
            if (strcmp(c->meshes[i].name, m->name) == 0)
                return mj_fail(c, t, "mesh '%s' is defined twice (first on line %d)", m->name, c->meshes[i].line);
        c->nmeshes++;
    }
    return 0;
}

/* ---- geoms ---- */

/* a <geom> of a body (link li; off: the link frame's origin in the body frame; on_world: directly in the
   worldbody); appended to the collisions or visuals (or d->world), its mass into acc when acc */
static int parse_geom(mj_ctx *c, const xmlNode *el, int cls, int li, mo_vec3 off, bool on_world, mj_mass_acc *acc)
{
    char gname[UR_NAME], who[UR_NAME + 16];
    if (mj_text(c, el, -1, "name", gname, sizeof gname, "geom") < 0) return -1;
    if (gname[0]) snprintf(who, sizeof who, "geom '%s'", gname);
    else snprintf(who, sizeof who, "geom");
    cls = mj_class_of(c, el, cls, who);
    if (cls < -1) return -1;
    if (mj_known_attrs(c, el, geom_attrs, who) < 0) return -1;
    static const char *const types[] = {"sphere", "capsule", "cylinder", "box", "plane", "mesh", "ellipsoid",
                                        "hfield", "sdf", NULL};
    int type = mj_keyword(c, el, cls, "type", types, 0, who);
    if (type < 0) return -1;
    if (type == 6)
        return mj_fail(c, el, "%s: ellipsoid geoms are not supported (Moreau has no ellipsoid shape; use a sphere, "
                    "capsule or mesh)", who);
    if (type >= 7) return mj_fail(c, el, "%s: %s geoms are not supported", who, types[type]);
    double size[3] = {0, 0, 0}, ft[6];
    int ns = mj_nums(c, el, cls, "size", size, 1, 3, who);
    if (ns < 0) return -1;
    int nf = mj_nums(c, el, cls, "fromto", ft, 6, 6, who);
    if (nf < 0) return -1;
    mo_vec3 pos;
    mo_quat q;
    if (vec3(c, el, cls, "pos", ur_v(0, 0, 0), &pos, who) < 0 || orientation(c, el, cls, &q, who) < 0) return -1;
    ur_geom g;
    memset(&g, 0, sizeof g);
    g.link = li;
    g.line = (int)xmlGetLineNo(el);
    g.rgba[0] = g.rgba[1] = g.rgba[2] = 0.5f;
    g.rgba[3] = 1.0f;
    double rgba[4];
    int nr = mj_nums(c, el, cls, "rgba", rgba, 4, 4, who);
    if (nr < 0) return -1;
    for (int i = 0; i < nr; i++) g.rgba[i] = (float)rgba[i];
    if (nf > 0) {
        if (type != 1 && type != 2 && type != 3)
            return mj_fail(c, el, "%s: fromto applies to capsules, cylinders and boxes, not %ss", who, types[type]);
        mo_vec3 a = ur_v(ft[0], ft[1], ft[2]), b = ur_v(ft[3], ft[4], ft[5]), dv = ur_sub(b, a);
        double len = mj_vlen(dv);
        if (!(len > 0)) return mj_fail(c, el, "%s: fromto's two points are the same", who);
        pos = mj_vscale(ur_add(a, b), 0.5);
        q = mj_z_to(mj_vscale(dv, 1 / len));
        if (type == 3) size[2] = 0.5 * len;
        else size[1] = 0.5 * len;
    }
    int need = type == 0 ? 1 : type == 3 ? 3 : type == 1 || type == 2 ? 2 : 0;
    if (nf > 0 && type != 3) need = 1;
    else if (nf > 0) need = 2;
    if (ns < need) return mj_fail(c, el, "%s: a %s needs %d size numbers, has %d", who, types[type], need, ns);
    for (int i = 0; i < need; i++)
        if (!(size[i] > 0)) return mj_fail(c, el, "%s: size %g must be > 0", who, size[i]);
    switch (type) {
    case 0: g.type = MO_URDF_GEOM_SPHERE; g.size = ur_v(size[0], 0, 0); break;
    case 1: g.type = MO_URDF_GEOM_CAPSULE; g.size = ur_v(size[0], 0, 2 * size[1]); break;
    case 2: g.type = MO_URDF_GEOM_CYLINDER; g.size = ur_v(size[0], 0, 2 * size[1]); break;
    case 3: g.type = MO_URDF_GEOM_BOX; g.size = ur_v(2 * size[0], 2 * size[1], 2 * size[2]); break;
    case 4:
        g.type = MO_URDF_GEOM_PLANE;
        g.size = ur_v(size[0], size[1], 0);
        if (!on_world)
            return mj_fail(c, el, "%s: a plane must be a <worldbody> geom (Moreau's planes are static)", who);
        break;
    default: g.type = MO_URDF_GEOM_MESH; break;
    }
    char meshname[UR_NAME];
    int am = mj_text(c, el, cls, "mesh", meshname, sizeof meshname, who);
    if (am < 0) return -1;
    if (type == 5) {
        if (!am) return mj_fail(c, el, "%s: a mesh geom needs a mesh attribute", who);
        const mj_mesh *m = NULL;
        for (int i = 0; i < c->nmeshes && !m; i++)
            if (strcmp(c->meshes[i].name, meshname) == 0) m = &c->meshes[i];
        if (!m) return mj_fail(c, el, "%s: mesh '%s' is not an <asset> mesh", who, meshname);
        if (resolve_mesh(c, el, m->file, g.mesh_path, who) < 0) return -1;
        g.size = m->scale;
    }
    /* collision filtering: everything collides, or nothing (a visual) */
    double ct, ca, condim, fr[3] = {0, 0, 0};
    if (mj_num(c, el, cls, "contype", 1, &ct, who) < 0 || mj_num(c, el, cls, "conaffinity", 1, &ca, who) < 0 ||
        mj_num(c, el, cls, "condim", 3, &condim, who) < 0)
        return -1;
    bool visual = ct == 0 && ca == 0;
    if (!visual && !(ct == 1 && ca == 1))
        return mj_fail(c, el, "%s: contype %g conaffinity %g: only 1 1 (collides) and 0 0 (visual only) are supported",
                    who, ct, ca);
    if (condim != 1 && condim != 3)
        return mj_fail(c, el, "%s: condim %g is not supported (1: frictionless, 3: sliding friction)", who, condim);
    int nfr = mj_nums(c, el, cls, "friction", fr, 1, 3, who);
    if (nfr < 0) return -1;
    if (nfr > 0) {
        if (!(fr[0] >= 0)) return mj_fail(c, el, "%s: friction %g is negative", who, fr[0]);
        g.has_friction = true;
        g.friction = fr[0];
    }
    if (condim == 1) {
        g.has_friction = true;
        g.friction = 0;
    }
    double margin, gap;
    if (mj_num(c, el, cls, "margin", 0, &margin, who) < 0 || mj_num(c, el, cls, "gap", 0, &gap, who) < 0) return -1;
    if (margin != 0 || gap != 0) return mj_fail(c, el, "%s: margin and gap are not supported (must be 0)", who);
    /* mass */
    double mass = -1, density = 1000;
    int am_ = mj_num(c, el, cls, "mass", 0, &mass, who);
    if (am_ < 0 || mj_num(c, el, cls, "density", 1000, &density, who) < 0) return -1;
    bool has_mass = am_ > 0;
    if (has_mass && !(mass >= 0)) return mj_fail(c, el, "%s: mass %g is negative", who, mass);
    if (!(density >= 0)) return mj_fail(c, el, "%s: density %g is negative", who, density);
    bool weigh = acc && type != 4 && (has_mass ? mass > 0 : density > 0);
    if (type == 5 && (weigh || !visual)) {
        char merr[768];
        mo_status st = mo_mesh_load(g.mesh_path, g.size, &g.mesh, merr, sizeof merr);
        if (st != MO_OK) {
            mj_fail(c, el, "%s: mesh: %s", who, merr);
            return st == MO_ERR_UNSUPPORTED ? -2 : -1;
        }
        g.flat = !ur_has_volume(g.mesh.vertices, g.mesh.nvertices);
    }
    if (weigh) {
        double vol;
        mo_vec3 com = ur_v(0, 0, 0), Id = ur_v(0, 0, 0);
        mo_mat3 Ic = {{{0}}};
        if (type == 5) {
            if (!mj_mesh_mass(&g.mesh, &vol, &com, &Ic)) {
                mo_mesh_free(&g.mesh);
                return mj_fail(c, el, "%s: mesh '%s' encloses no volume: its mass cannot be computed (give the body an "
                            "<inertial>, or the geom density 0)", who, meshname);
            }
        } else {
            vol = mj_geom_volume(g.type, g.size, &Id);
            Ic.m[0][0] = Id.x, Ic.m[1][1] = Id.y, Ic.m[2][2] = Id.z;
        }
        double m = has_mass ? mass : density * vol, s = m / vol;
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) Ic.m[i][j] *= s;
        mj_acc_add(acc, m, ur_add(pos, ur_rot(q, com)), q, Ic);
    }
    g.pos = ur_sub(pos, off);
    g.q = q;
    ur_robot *r = &c->d->r;
    ur_geom *dst;
    if (on_world && c->d->free_root && visual) { /* no link to show it on: left out (cosmetic) */
        mo_mesh_free(&g.mesh);
        return 0;
    }
    if (on_world && c->d->free_root) dst = &c->d->world[c->d->nworld++];
    else dst = visual ? &r->visuals[r->nvisuals++] : &r->collisions[r->ncollisions++];
    if (visual) mo_mesh_free(&g.mesh);
    *dst = g;
    return 0;
}

/* ---- bodies ---- */

static int add_link(mj_ctx *c, const xmlNode *el, const char *name)
{
    ur_robot *r = &c->d->r;
    for (int i = 0; i < r->nlinks; i++)
        if (strcmp(r->links[i].name, name) == 0)
            return mj_fail(c, el, "body '%s' is defined twice (first on line %d)", name, r->links[i].line);
    ur_link *l = &r->links[r->nlinks];
    snprintf(l->name, sizeof l->name, "%s", name);
    l->line = (int)xmlGetLineNo(el);
    l->parent_joint = -1;
    return r->nlinks++;
}

/* the joint of body el (at most one <joint> or <freejoint>): its node, NULL when none */
static int body_joint(mj_ctx *c, const xmlNode *el, const char *who, const xmlNode **jn)
{
    *jn = NULL;
    for (const xmlNode *t = el->children; t; t = t->next)
        if (mj_is_el(t, "joint") || mj_is_el(t, "freejoint")) {
            if (*jn)
                return mj_fail(c, t, "%s: a second joint (a body has at most one joint here: chain bodies for "
                            "several degrees of freedom)", who);
            *jn = t;
        }
    return 0;
}

static bool is_free(const mj_ctx *c, const xmlNode *jn, int cls)
{
    if (!jn) return false;
    if (mj_is_el(jn, "freejoint")) return true;
    xmlChar *t = get(c, jn, cls, "type", NULL);
    bool f = t && strcmp((const char *)t, "free") == 0;
    xmlFree(t);
    return f;
}

static int parse_inertial(mj_ctx *c, const xmlNode *in, ur_link *l, mo_vec3 off, const char *who)
{
    if (mj_known_attrs(c, in, inertial_attrs, who) < 0) return -1;
    mo_vec3 p;
    mo_quat q;
    double mass, di[3], fi[6];
    if (vec3(c, in, -1, "pos", ur_v(0, 0, 0), &p, who) < 0 || orientation(c, in, -1, &q, who) < 0) return -1;
    int a = mj_num(c, in, -1, "mass", 0, &mass, who);
    if (a < 0) return -1;
    if (a == 0) return mj_fail(c, in, "%s: inertial has no mass", who);
    if (mass < 0) return mj_fail(c, in, "%s: inertial mass %g is negative", who, mass);
    int nd = mj_nums(c, in, -1, "diaginertia", di, 3, 3, who), nfi = mj_nums(c, in, -1, "fullinertia", fi, 6, 6, who);
    if (nd < 0 || nfi < 0) return -1;
    if ((nd > 0) == (nfi > 0)) return mj_fail(c, in, "%s: inertial needs one of diaginertia and fullinertia", who);
    mo_mat3 Ic = {{{0}}};
    if (nd) Ic.m[0][0] = di[0], Ic.m[1][1] = di[1], Ic.m[2][2] = di[2];
    else {
        /* fullinertia: ixx iyy izz ixy ixz iyz */
        Ic = (mo_mat3){{{fi[0], fi[3], fi[4]}, {fi[3], fi[1], fi[5]}, {fi[4], fi[5], fi[2]}}};
    }
    if (mass == 0) return 0; /* massless: as URDF's */
    mj_mass_acc acc = {0, {0, 0, 0}, {{{0}}}};
    mj_acc_add(&acc, 0, p, q, Ic); /* rotated only */
    double ev0 = acc.I.m[0][0], ev1 = acc.I.m[1][1], ev2 = acc.I.m[2][2];
    if (!(ev0 > 0 && ev1 > 0 && ev2 > 0))
        return mj_fail(c, in, "%s: inertia is not positive (diagonal %g %g %g)", who, ev0, ev1, ev2);
    l->has_mass = true;
    l->mass = mass;
    l->com = ur_sub(p, off);
    l->inertia = acc.I;
    return 0;
}

static int parse_joint(mj_ctx *c, const xmlNode *jn, int cls, const char *body, ur_joint *j, mo_vec3 *jpos)
{
    char who[UR_NAME + 16];
    if (mj_text(c, jn, -1, "name", j->name, sizeof j->name, "joint") < 0) return -1;
    if (!j->name[0]) snprintf(j->name, sizeof j->name, "%.50s_joint", body);
    snprintf(who, sizeof who, "joint '%s'", j->name);
    j->line = (int)xmlGetLineNo(jn);
    j->mimic = -1;
    *jpos = ur_v(0, 0, 0);
    if (mj_is_el(jn, "freejoint")) {
        static const char *const fa[] = {"name", "group", "align", NULL};
        if (mj_known_attrs(c, jn, fa, who) < 0) return -1;
        j->type = MO_URDF_JOINT_FLOATING;
        return 0;
    }
    cls = mj_class_of(c, jn, cls, who);
    if (cls < -1) return -1;
    if (mj_known_attrs(c, jn, joint_attrs, who) < 0) return -1;
    static const char *const types[] = {"hinge", "slide", "ball", "free", NULL};
    int t = mj_keyword(c, jn, cls, "type", types, 0, who);
    if (t < 0) return -1;
    if (t == 3) {
        j->type = MO_URDF_JOINT_FLOATING;
        return 0;
    }
    if (vec3(c, jn, cls, "pos", ur_v(0, 0, 0), jpos, who) < 0) return -1;
    mo_vec3 ax;
    if (vec3(c, jn, cls, "axis", ur_v(0, 0, 1), &ax, who) < 0) return -1;
    bool ball = t == 2; /* its axis is not used (as MuJoCo's) */
    double n = mj_vlen(ax);
    if (!ball && !(n > 1e-10)) return mj_fail(c, jn, "%s: axis (%g %g %g) is zero", who, ax.x, ax.y, ax.z);
    j->axis = ball ? ur_v(1, 0, 0) : mj_vscale(ax, 1 / n);
    double range[2] = {0, 0}, stiff, ref, sref;
    int nr = mj_nums(c, jn, cls, "range", range, 2, 2, who);
    if (nr < 0) return -1;
    static const char *const lim[] = {"false", "true", "auto", NULL};
    int limited = mj_keyword(c, jn, cls, "limited", lim, 2, who);
    if (limited < 0) return -1;
    if (limited == 2) limited = c->autolimits ? nr > 0 : 0;
    if (limited && nr == 0) return mj_fail(c, jn, "%s: limited but no range", who);
    if (ball && limited && range[0] != 0) /* MuJoCo's rule: the second value is the limit, the first 0 */
        return mj_fail(c, jn, "%s: a ball joint's range must start at 0 (its second value is the cone's angle), got "
                       "%g", who, range[0]);
    if (ball && limited && !c->opt->articulation)
        return mj_fail(c, jn, "%s: a range on a ball joint (a cone limit) is supported by articulation imports only "
                       "(a spherical joint between bodies has no limits; leave range out, or set limited=\"false\")",
                       who);
    if (limited && !(range[0] < range[1]))
        return mj_fail(c, jn, "%s: range lower %g is not below upper %g", who, range[0], range[1]);
    if (mj_num(c, jn, cls, "damping", 0, &j->damping, who) < 0 || mj_num(c, jn, cls, "frictionloss", 0, &j->friction, who) < 0 ||
        mj_num(c, jn, cls, "armature", 0, &j->armature, who) < 0 || mj_num(c, jn, cls, "stiffness", 0, &stiff, who) < 0 ||
        mj_num(c, jn, cls, "ref", 0, &ref, who) < 0 || mj_num(c, jn, cls, "springref", 0, &sref, who) < 0)
        return -1;
    if (j->damping < 0 || j->friction < 0 || j->armature < 0)
        return mj_fail(c, jn, "%s: damping %g, frictionloss %g and armature %g must be >= 0", who, j->damping,
                    j->friction, j->armature);
    if (stiff != 0) return mj_fail(c, jn, "%s: joint stiffness (a spring) is not supported", who);
    if (ref != 0 || sref != 0) return mj_fail(c, jn, "%s: ref and springref are not supported (must be 0)", who);
    if (j->armature > 0 && !c->opt->articulation)
        return mj_fail(c, jn, "%s: armature is supported by articulation imports only", who);
    if (ball) { /* damping per dof on an articulation link; no row carries dry friction */
        if (j->friction > 0)
            return mj_fail(c, jn, "%s: frictionloss on a ball joint is not supported (dry friction rows are for "
                           "hinge and slide joints)", who);
        if (j->damping > 0 && !c->opt->articulation)
            return mj_fail(c, jn, "%s: damping on a ball joint is supported by articulation imports only (a "
                           "spherical joint between bodies has no motor to carry it)", who);
        j->type = MO_URDF_JOINT_BALL;
        if (limited) { /* the cone: the rotation angle <= range[1] (mo_articulation_set_cone_limit) */
            j->has_limits = true;
            j->upper = angle(c, range[1]);
            if (!(j->upper <= MJ_PI))
                return mj_fail(c, jn, "%s: the cone's angle %g rad (range %g) is more than pi", who, j->upper,
                               range[1]);
        }
        return 0;
    }
    bool hinge = t == 0;
    j->type = hinge ? (limited ? MO_URDF_JOINT_REVOLUTE : MO_URDF_JOINT_CONTINUOUS) : MO_URDF_JOINT_PRISMATIC;
    j->has_limits = limited;
    if (limited) {
        j->lower = hinge ? angle(c, range[0]) : range[0];
        j->upper = hinge ? angle(c, range[1]) : range[1];
    }
    return 0;
}

/* body el below link parent (whose frame sits at poff in its body's frame); cls its inherited class */
static int parse_body(mj_ctx *c, const xmlNode *el, int parent, mo_vec3 poff, int cls, bool is_root)
{
    ur_robot *r = &c->d->r;
    char name[UR_NAME], who[UR_NAME + 16];
    if (mj_text(c, el, -1, "name", name, sizeof name, "body") < 0) return -1;
    if (!name[0]) snprintf(name, sizeof name, "body%d", r->nlinks);
    snprintf(who, sizeof who, "body '%s'", name);
    if (mj_known_attrs(c, el, body_attrs, who) < 0) return -1;
    char cc[UR_NAME];
    int a = mj_text(c, el, -1, "childclass", cc, sizeof cc, who);
    if (a < 0) return -1;
    if (a) {
        cls = find_class(c, cc);
        if (cls < 0) return mj_fail(c, el, "%s: unknown childclass '%s'", who, cc);
    }
    mo_vec3 p;
    mo_quat q;
    if (vec3(c, el, -1, "pos", ur_v(0, 0, 0), &p, who) < 0 || orientation(c, el, -1, &q, who) < 0) return -1;
    const xmlNode *jn;
    if (body_joint(c, el, who, &jn) < 0) return -1;
    int li = add_link(c, el, name);
    if (li < 0) return -1;
    mo_vec3 off = ur_v(0, 0, 0);
    if (is_root) { /* the free root */
        c->d->base_position = p;
        c->d->base_orientation = q;
    } else {
        ur_joint *j = &r->joints[r->njoints];
        memset(j, 0, sizeof *j);
        if (jn) {
            int jc = jn && !mj_is_el(jn, "freejoint") ? mj_class_of(c, jn, cls, "joint") : cls;
            if (jc < -1) return -1;
            if (parse_joint(c, jn, jc, name, j, &off) < 0) return -1;
            if (j->type == MO_URDF_JOINT_FLOATING) j->axis = ur_v(1, 0, 0); /* as URDF's default */
        } else {
            j->axis = ur_v(1, 0, 0); /* as URDF's default */
            snprintf(j->name, sizeof j->name, "%.50s_weld", name);
            j->line = (int)xmlGetLineNo(el);
            j->type = MO_URDF_JOINT_FIXED;
            j->mimic = -1;
        }
        for (int i = 0; i < r->njoints; i++)
            if (strcmp(r->joints[i].name, j->name) == 0)
                return mj_fail(c, jn ? jn : el, "joint '%s' is defined twice (first on line %d)", j->name,
                            r->joints[i].line);
        if (j->type == MO_URDF_JOINT_FLOATING && parent != 0)
            return mj_fail(c, jn, "joint '%s': a free joint below another body is not supported (only a top-level "
                        "body may be free)", j->name);
        j->parent = parent;
        j->child = li;
        j->pos = ur_add(ur_sub(p, poff), ur_rot(q, off));
        j->q = q;
        r->links[li].parent_joint = r->njoints++;
    }
    c->d->off[li] = off;
    /* inertial, geoms, children */
    const xmlNode *in = NULL;
    for (const xmlNode *t = el->children; t; t = t->next)
        if (mj_is_el(t, "inertial")) {
            if (in) return mj_fail(c, t, "%s: a second <inertial>", who);
            in = t;
        }
    bool from_geoms = c->inertia_from_geom == 2 || (c->inertia_from_geom == 1 && !in);
    if (in && !from_geoms && parse_inertial(c, in, &r->links[li], off, who) < 0) return -1;
    mj_mass_acc acc = {0, {0, 0, 0}, {{{0}}}};
    for (const xmlNode *t = el->children; t; t = t->next) {
        if (t->type != XML_ELEMENT_NODE) continue;
        if (mj_is_el(t, "geom")) {
            int g = parse_geom(c, t, cls, li, off, false, from_geoms ? &acc : NULL);
            if (g < 0) return g;
        } else if (mj_is_el(t, "body")) {
            int b = parse_body(c, t, li, off, cls, false);
            if (b < 0) return b;
        } else if (mj_is_el(t, "joint") || mj_is_el(t, "freejoint") || mj_is_el(t, "inertial") || mj_is_el(t, "site") ||
                   mj_is_el(t, "camera") || mj_is_el(t, "light")) {
            continue;
        } else return mj_fail(c, t, "%s: <%s> is not supported (docs/import.md, MJCF)", who, mj_nm(t));
    }
    if (from_geoms && acc.m > 0) {
        ur_link *l = &r->links[li];
        mo_vec3 com = mj_vscale(acc.mc, 1 / acc.m);
        double d[3] = {com.x, com.y, com.z}, dd = com.x * com.x + com.y * com.y + com.z * com.z;
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) l->inertia.m[i][j] = acc.I.m[i][j] - acc.m * ((i == j ? dd : 0) - d[i] * d[j]);
        l->has_mass = true;
        l->mass = acc.m;
        l->com = ur_sub(com, off);
    }
    return 0;
}

/* ---- the file ---- */

static void count(const xmlNode *n, int *bodies, int *geoms)
{
    for (const xmlNode *t = n->children; t; t = t->next) {
        if (mj_is_el(t, "body")) {
            (*bodies)++;
            count(t, bodies, geoms);
        } else if (mj_is_el(t, "geom")) (*geoms)++;
    }
}

static int parse_compiler(mj_ctx *c, const xmlNode *e)
{
    static const char *const ca[] = {"angle", "eulerseq", "meshdir", "assetdir", "texturedir", "autolimits",
                                     "inertiafromgeom", "coordinate", "strippath", "discardvisual", "convexhull",
                                     "usethread", "fusestatic", "inertiagrouprange", "alignfree", "saveinertial",
                                     "boundmass", "boundinertia", "settotalmass", "balanceinertia", "fitaabb", NULL};
    if (mj_known_attrs(c, e, ca, "compiler") < 0) return -1;
    static const char *const units[] = {"radian", "degree", NULL}, *const tf[] = {"false", "true", NULL},
                             *const ifg[] = {"false", "auto", "true", NULL}, *const coord[] = {"local", NULL};
    int u = mj_keyword(c, e, -1, "angle", units, c->degree, "compiler");
    int al = mj_keyword(c, e, -1, "autolimits", tf, 1, "compiler");
    int ig = mj_keyword(c, e, -1, "inertiafromgeom", ifg, 1, "compiler");
    if (u < 0 || al < 0 || ig < 0 || mj_keyword(c, e, -1, "coordinate", coord, 0, "compiler") < 0) return -1;
    c->degree = u == 1;
    c->autolimits = al == 1;
    c->inertia_from_geom = ig;
    char seq[16];
    int a = mj_text(c, e, -1, "eulerseq", seq, sizeof seq, "compiler");
    if (a < 0) return -1;
    if (a) {
        bool ok = strlen(seq) == 3;
        for (int i = 0; ok && i < 3; i++) ok = strchr("xyzXYZ", seq[i]) != NULL;
        if (!ok) return mj_fail(c, e, "compiler: eulerseq '%s' is not three of x, y, z, X, Y, Z", seq);
        memcpy(c->eulerseq, seq, 4);
    }
    char dir[UR_PATH];
    if ((a = mj_text(c, e, -1, "assetdir", dir, sizeof dir, "compiler")) < 0) return -1;
    if (a) memcpy(c->meshdir, dir, sizeof dir);
    if ((a = mj_text(c, e, -1, "meshdir", dir, sizeof dir, "compiler")) < 0) return -1;
    if (a) memcpy(c->meshdir, dir, sizeof dir);
    double v;
    static const char *const zero[] = {"boundmass", "boundinertia", "settotalmass", NULL};
    for (int i = 0; zero[i]; i++) {
        if (mj_num(c, e, -1, zero[i], 0, &v, "compiler") < 0) return -1;
        if (v != 0 && !(i == 2 && v < 0)) return mj_fail(c, e, "compiler: %s is not supported", zero[i]);
    }
    if (mj_keyword(c, e, -1, "balanceinertia", tf, 0, "compiler") == 1 ||
        mj_keyword(c, e, -1, "fusestatic", tf, 0, "compiler") == 1)
        return mj_fail(c, e, "compiler: balanceinertia and fusestatic are not supported");
    return c->err[0] ? -1 : 0;
}

static int parse_option(mj_ctx *c, const xmlNode *e)
{
    static const char *const oa[] = {"timestep", "gravity", "integrator", "iterations", "ls_iterations", "solver",
                                     "tolerance", "ls_tolerance", "noslip_iterations", "noslip_tolerance",
                                     "ccd_iterations", "ccd_tolerance", "cone", "jacobian", "impratio",
                                     "apirate", "sdf_iterations", "sdf_initpoints", "wind", "magnetic", "density",
                                     "viscosity", "o_margin", "o_solref", "o_solimp", "o_friction", NULL};
    if (mj_known_attrs(c, e, oa, "option") < 0) return -1;
    mj_desc *d = c->d;
    int a = mj_num(c, e, -1, "timestep", 0.002, &d->timestep, "option");
    if (a < 0) return -1;
    if (a && !(d->timestep > 0)) return mj_fail(c, e, "option: timestep %g must be > 0", d->timestep);
    d->has_timestep = a > 0;
    if ((a = vec3(c, e, -1, "gravity", ur_v(0, 0, -9.81), &d->gravity, "option")) < 0) return -1;
    xmlChar *g = xmlGetProp(e, (const xmlChar *)"gravity");
    d->has_gravity = g != NULL;
    xmlFree(g);
    double dens, visc, wind[3] = {0, 0, 0};
    if (mj_num(c, e, -1, "density", 0, &dens, "option") < 0 || mj_num(c, e, -1, "viscosity", 0, &visc, "option") < 0 ||
        mj_nums(c, e, -1, "wind", wind, 3, 3, "option") < 0)
        return -1;
    if (dens != 0 || visc != 0 || wind[0] != 0 || wind[1] != 0 || wind[2] != 0)
        return mj_fail(c, e, "option: a medium (density, viscosity, wind) is not supported");
    for (const xmlNode *t = e->children; t; t = t->next)
        if (t->type == XML_ELEMENT_NODE && !mj_is_el(t, "flag"))
            return mj_fail(c, t, "option: <%s> is not supported", mj_nm(t));
    return 0;
}

int mj_find_link(const ur_robot *r, const char *name)
{
    for (int i = 0; i < r->nlinks; i++)
        if (strcmp(r->links[i].name, name) == 0) return i;
    return -1;
}

static int parse_actuators(mj_ctx *c, const xmlNode *e)
{
    static const char *const kinds[] = {"motor", "position", "velocity", NULL};
    ur_robot *r = &c->d->r;
    for (const xmlNode *t = e->children; t; t = t->next) {
        if (t->type != XML_ELEMENT_NODE) continue;
        int kind = -1;
        for (int i = 0; kinds[i]; i++)
            if (mj_is_el(t, kinds[i])) kind = i;
        if (kind < 0)
            return mj_fail(c, t, "actuator: <%s> is not supported (motor, position and velocity are)", mj_nm(t));
        mj_actuator *a = &c->d->act[c->d->nact];
        memset(a, 0, sizeof *a);
        a->kind = kind;
        a->line = (int)xmlGetLineNo(t);
        if (mj_text(c, t, -1, "name", a->name, sizeof a->name, kinds[kind]) < 0) return -1;
        char who[UR_NAME + 16];
        snprintf(who, sizeof who, "%s '%s'", kinds[kind], a->name[0] ? a->name : "(unnamed)");
        int cls = mj_class_of(c, t, 0, who);
        if (cls < -1 || mj_known_attrs(c, t, act_attrs, who) < 0) return -1;
        static const char *const other[] = {"tendon", "site", "body", "jointinparent", "dyntype", "gaintype",
                                            "biastype", "dampratio", "timeconst", NULL};
        for (int i = 0; other[i]; i++) {
            xmlChar *v = get(c, t, cls, other[i], NULL);
            if (v) {
                xmlFree(v);
                return mj_fail(c, t, "%s: %s is not supported (an actuator drives a joint)", who, other[i]);
            }
        }
        char jname[UR_NAME];
        if (mj_text(c, t, cls, "joint", jname, sizeof jname, who) < 0) return -1;
        if (!jname[0]) return mj_fail(c, t, "%s: no joint", who);
        a->joint = -1;
        for (int i = 0; i < r->njoints && a->joint < 0; i++)
            if (strcmp(r->joints[i].name, jname) == 0) a->joint = i;
        if (a->joint < 0) return mj_fail(c, t, "%s: joint '%s' is not a joint of the file", who, jname);
        int jt = r->joints[a->joint].type;
        if (jt == MO_URDF_JOINT_BALL)
            return mj_fail(c, t, "%s: joint '%s' is a ball joint: actuators on ball joints are not supported "
                           "(drives are for hinge and slide joints)", who, jname);
        if (jt == MO_URDF_JOINT_FIXED || jt == MO_URDF_JOINT_FLOATING)
            return mj_fail(c, t, "%s: joint '%s' is not a hinge or slide joint", who, jname);
        double gear[6] = {1, 0, 0, 0, 0, 0}, fr[2] = {0, 0};
        if (mj_nums(c, t, cls, "gear", gear, 1, 6, who) < 0) return -1;
        a->gear = gear[0];
        if (kind > 0 && gear[0] != 1) return mj_fail(c, t, "%s: gear %g: position and velocity actuators need gear 1", who, gear[0]);
        if (!(gear[0] != 0)) return mj_fail(c, t, "%s: gear is 0", who);
        if (mj_num(c, t, cls, "kp", kind == 1 ? 1 : 0, &a->kp, who) < 0 || mj_num(c, t, cls, "kv", kind == 2 ? 1 : 0, &a->kv, who) < 0)
            return -1;
        if (kind == 0 && (a->kp != 0 || a->kv != 0)) return mj_fail(c, t, "%s: a motor has no kp or kv", who);
        if (!(a->kp >= 0) || !(a->kv >= 0)) return mj_fail(c, t, "%s: kp %g and kv %g must be >= 0", who, a->kp, a->kv);
        int nfr = mj_nums(c, t, cls, "forcerange", fr, 2, 2, who);
        if (nfr < 0) return -1;
        static const char *const lim[] = {"false", "true", "auto", NULL};
        int fl = mj_keyword(c, t, cls, "forcelimited", lim, 2, who);
        if (fl < 0) return -1;
        a->force_limited = fl == 2 ? nfr > 0 : fl == 1;
        if (a->force_limited && nfr == 0) return mj_fail(c, t, "%s: forcelimited but no forcerange", who);
        if (a->force_limited && !(fr[0] <= 0 && fr[1] >= 0 && fr[0] == -fr[1]))
            return mj_fail(c, t, "%s: forcerange (%g %g) must be symmetric about 0", who, fr[0], fr[1]);
        a->force_lo = fr[0];
        a->force_hi = fr[1];
        for (int i = 0; i < c->d->nact; i++)
            if (c->d->act[i].joint == a->joint && (c->d->act[i].kind == kind || kind == 0 || c->d->act[i].kind == 0))
                return mj_fail(c, t, "%s: joint '%s' already has a %s actuator (line %d)", who, jname,
                            kinds[c->d->act[i].kind], c->d->act[i].line);
        c->d->nact++;
    }
    return 0;
}

static int parse_contact(mj_ctx *c, const xmlNode *e)
{
    ur_robot *r = &c->d->r;
    for (const xmlNode *t = e->children; t; t = t->next) {
        if (t->type != XML_ELEMENT_NODE) continue;
        if (!mj_is_el(t, "exclude"))
            return mj_fail(c, t, "contact: <%s> is not supported (<exclude> is)", mj_nm(t));
        static const char *const xa[] = {"name", "body1", "body2", NULL};
        if (mj_known_attrs(c, t, xa, "exclude") < 0) return -1;
        char b[2][UR_NAME];
        for (int k = 0; k < 2; k++) {
            if (mj_text(c, t, -1, k ? "body2" : "body1", b[k], UR_NAME, "exclude") < 0) return -1;
            int li = mj_find_link(r, b[k]);
            if (li < 0) return mj_fail(c, t, "exclude: body%d '%s' is not a body of the file", k + 1, b[k]);
            r->excl[2 * c->d->nexcl + k] = li;
        }
        if (r->excl[2 * c->d->nexcl] == r->excl[2 * c->d->nexcl + 1])
            return mj_fail(c, t, "exclude: body '%s' with itself", b[0]);
        c->d->nexcl++;
    }
    return 0;
}

static int count_children(const xmlNode *n, const char *name)
{
    int k = 0;
    for (const xmlNode *t = n->children; t; t = t->next) k += mj_is_el(t, name);
    return k;
}

static int parse_mujoco(mj_ctx *c, const xmlNode *root)
{
    if (!mj_is_el(root, "mujoco")) return mj_fail(c, root, "the root element is <%s>, not <mujoco>", mj_nm(root));
    ur_robot *r = &c->d->r;
    if (mj_text(c, root, -1, "model", r->name, sizeof r->name, "mujoco") < 0) return -1;
    if (!r->name[0]) snprintf(r->name, sizeof r->name, "MuJoCo Model");
    /* sizes, then the sections in the order their references need */
    int nb = 0, ng = 0, nmesh = 0, nact = 0, nexcl = 0, nwb = 0, neq = 0;
    for (const xmlNode *e = root->children; e; e = e->next) {
        if (mj_is_el(e, "worldbody")) {
            nwb++;
            count(e, &nb, &ng);
        } else if (mj_is_el(e, "asset")) nmesh += count_children(e, "mesh");
        else if (mj_is_el(e, "actuator")) nact += count_children(e, "motor") + count_children(e, "position") +
                                               count_children(e, "velocity");
        else if (mj_is_el(e, "contact")) nexcl += count_children(e, "exclude");
        else if (mj_is_el(e, "equality"))
            for (const xmlNode *t = e->children; t; t = t->next) neq += t->type == XML_ELEMENT_NODE;
    }
    r->links = calloc((size_t)nb + 1, sizeof *r->links);
    r->joints = calloc((size_t)nb + 1, sizeof *r->joints);
    r->collisions = calloc((size_t)ng + 1, sizeof *r->collisions);
    r->visuals = calloc((size_t)ng + 1, sizeof *r->visuals);
    r->order = calloc((size_t)nb + 1, sizeof *r->order);
    r->excl = calloc((size_t)(2 * nexcl) + 2, sizeof *r->excl);
    c->d->world = calloc((size_t)ng + 1, sizeof *c->d->world);
    c->d->act = calloc((size_t)nact + 1, sizeof *c->d->act);
    c->d->off = calloc((size_t)nb + 1, sizeof *c->d->off);
    c->d->eq = calloc((size_t)neq + 1, sizeof *c->d->eq);
    c->meshes = calloc((size_t)nmesh + 1, sizeof *c->meshes);
    c->cls = calloc(MJ_MAX_CLASSES, sizeof *c->cls);
    if (!r->links || !r->joints || !r->collisions || !r->visuals || !r->order || !r->excl || !c->d->world ||
        !c->d->act || !c->d->off || !c->d->eq || !c->meshes || !c->cls) {
        snprintf(c->err, c->n, "%s: out of memory", c->path);
        return -3;
    }
    static const char *const ignored[] = {"visual", "statistic", "size", "sensor", "keyframe", "custom",
                                          "extension", NULL};
    for (const xmlNode *e = root->children; e; e = e->next) {
        if (e->type != XML_ELEMENT_NODE) continue;
        bool ok = false;
        for (int i = 0; ignored[i] && !ok; i++) ok = mj_is_el(e, ignored[i]);
        if (ok) continue;
        if (mj_is_el(e, "compiler")) {
            if (parse_compiler(c, e) < 0) return -1;
        } else if (mj_is_el(e, "option")) {
            if (parse_option(c, e) < 0) return -1;
        } else if (mj_is_el(e, "default")) {
            if (c->ncls > 0) return mj_fail(c, e, "default: a second top-level <default>");
            if (parse_default(c, e, -1) < 0) return -1;
        } else if (!mj_is_el(e, "asset") && !mj_is_el(e, "worldbody") && !mj_is_el(e, "actuator") &&
                   !mj_is_el(e, "contact") && !mj_is_el(e, "equality"))
            return mj_fail(c, e, "<%s> is not supported (docs/import.md, MJCF)", mj_nm(e));
    }
    if (c->ncls == 0) { /* an empty main class */
        snprintf(c->cls[0].name, sizeof c->cls[0].name, "main");
        c->cls[0].node = NULL; /* no templates */
        c->cls[0].parent = -1;
        c->ncls = 1;
    }
    for (const xmlNode *e = root->children; e; e = e->next)
        if (mj_is_el(e, "asset") && parse_assets(c, e) < 0) return -1;
    if (nwb == 0) return mj_fail(c, root, "the model has no <worldbody>");
    /* a single top-level body with a free joint is the root; else the world is */
    const xmlNode *only = NULL;
    int ntop = 0;
    for (const xmlNode *e = root->children; e; e = e->next)
        if (mj_is_el(e, "worldbody"))
            for (const xmlNode *t = e->children; t; t = t->next)
                if (mj_is_el(t, "body")) {
                    ntop++;
                    only = t;
                }
    if (ntop == 1) {
        const xmlNode *jn = NULL;
        for (const xmlNode *t = only->children; t && !jn; t = t->next)
            if (mj_is_el(t, "joint") || mj_is_el(t, "freejoint")) jn = t;
        xmlChar *cc = xmlGetProp(only, (const xmlChar *)"childclass");
        int k = cc ? find_class(c, (const char *)cc) : 0;
        xmlFree(cc);
        char cn[UR_NAME];
        if (jn && !mj_is_el(jn, "freejoint") && mj_text(c, jn, -1, "class", cn, sizeof cn, "joint") > 0) k = find_class(c, cn);
        c->d->free_root = is_free(c, jn, k < 0 ? 0 : k);
    }
    if (!c->d->free_root) {
        int w = add_link(c, root, "world");
        if (w < 0) return -1;
    }
    for (const xmlNode *e = root->children; e; e = e->next) {
        if (!mj_is_el(e, "worldbody")) continue;
        static const char *const none[] = {NULL};
        if (mj_known_attrs(c, e, none, "worldbody") < 0) return -1;
        for (const xmlNode *t = e->children; t; t = t->next) {
            if (t->type != XML_ELEMENT_NODE) continue;
            int g = 0;
            if (mj_is_el(t, "geom")) g = parse_geom(c, t, 0, 0, ur_v(0, 0, 0), true, NULL);
            else if (mj_is_el(t, "body")) g = parse_body(c, t, 0, ur_v(0, 0, 0), 0, c->d->free_root);
            else if (mj_is_el(t, "site") || mj_is_el(t, "camera") || mj_is_el(t, "light")) continue;
            else return mj_fail(c, t, "worldbody: <%s> is not supported (docs/import.md, MJCF)", mj_nm(t));
            if (g < 0) return g;
        }
    }
    for (int i = 0; i < r->nlinks; i++) r->order[i] = i;
    /* flat collision meshes only on static links */
    for (int i = 0; i < r->ncollisions; i++) {
        ur_geom *g = &r->collisions[i];
        if (g->type != MO_URDF_GEOM_MESH || !g->flat) continue;
        bool stat = !c->d->free_root;
        for (int l = g->link; stat && r->links[l].parent_joint >= 0; l = r->joints[r->links[l].parent_joint].parent)
            stat = r->joints[r->links[l].parent_joint].type == MO_URDF_JOINT_FIXED;
        if (!stat) {
            snprintf(c->err, c->n, "%s:%d: body '%s': collision mesh %s is flat: it has no convex hull", c->path,
                     g->line, r->links[g->link].name, g->mesh_path);
            return -1;
        }
    }
    for (const xmlNode *e = root->children; e; e = e->next) {
        if (mj_is_el(e, "actuator") && parse_actuators(c, e) < 0) return -1;
        if (mj_is_el(e, "contact") && parse_contact(c, e) < 0) return -1;
        if (mj_is_el(e, "equality")) {
            int q = mj_parse_equality(c, e);
            if (q < 0) return q;
        }
    }
    return 0;
}

mo_status mj_parse(const char *path, const mo_mjcf_options *opt, mj_desc *d, char *err, size_t err_size)
{
    mj_ctx c;
    memset(&c, 0, sizeof c);
    c.path = path;
    c.opt = opt;
    c.err = err;
    c.n = err_size;
    c.d = d;
    c.degree = true;
    c.autolimits = true;
    c.inertia_from_geom = 1;
    memcpy(c.eulerseq, "xyz", 4);
    snprintf(c.dir, sizeof c.dir, ".");
    const char *slash = strrchr(path, '/');
    if (slash) {
        size_t len = (size_t)(slash - path);
        if (len == 0) snprintf(c.dir, sizeof c.dir, "/");
        else if (len < sizeof c.dir) {
            memcpy(c.dir, path, len);
            c.dir[len] = '\0';
        }
    }
    xmlParserCtxtPtr px = NULL;
    xmlDocPtr doc = NULL;
    mo_status st = mo_import_xml_read(path, "an MJCF", &px, &doc, err, err_size);
    if (st != MO_OK) return st;
    xmlNodePtr root = xmlDocGetRootElement(doc);
    int rc = root ? parse_mujoco(&c, root) : -1;
    if (!root) snprintf(err, err_size, "%s:1: the file has no root element", path);
    xmlFreeDoc(doc);
    xmlFreeParserCtxt(px);
    free(c.cls);
    free(c.meshes);
    if (rc == 0) return MO_OK;
    mj_desc_free(d);
    if (rc == -3) return MO_ERR_OUT_OF_MEMORY;
    if (rc == -2) return MO_ERR_UNSUPPORTED;
    return strstr(err, "not found") || strstr(err, "cannot read") ? MO_ERR_IO : MO_ERR_INVALID_ARGUMENT;
}

#endif
