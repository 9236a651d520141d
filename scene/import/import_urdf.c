/* import_urdf.c: URDF files -> a validated robot description (libxml2).
 *
 * Everything a build needs is checked here, before any body exists: names,
 * numbers, the tree (one root, one parent per link, no cycle), inertias,
 * geometry sizes, mesh files (collision meshes are loaded; visual meshes must
 * exist). Errors are "FILE:LINE: what" with xmlGetLineNo's line.
 * The model functions (find, pose, free) and the options live here too. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "import_urdf.h"

#ifdef MO_HAVE_URDF
#include <libxml/parser.h>
#include <libxml/tree.h>
#endif

mo_urdf_options mo_default_urdf_options(void)
{
    mo_urdf_options o;
    memset(&o, 0, sizeof o);
    o.fixed_base = true;
    o.base_orientation = (mo_quat){1, 0, 0, 0};
    o.collision_meshes = MO_URDF_MESH_AUTO;
    o.self_collision = false;
    o.massless_link_mass = 0.01;
    o.friction = 0.5;
    o.exclude_adjacent = true;
    o.max_hull_vertices = 44;
    o.articulation = true; /* a URDF robot is one articulation unless maximal (bodies and joints) is asked for */
    o.internal_value = UR_OPTIONS_COOKIE;
    return o;
}

void mo_urdf_model_free(mo_urdf_model *m)
{
    if (!m) return;
    free(m->links);
    free(m->joints);
    free(m->visuals);
    free(m->collisions);
    free(m->warnings);
    free(m->equalities);
    memset(m, 0, sizeof *m);
}

int mo_urdf_find_link(const mo_urdf_model *m, const char *name)
{
    if (!m || !name) return -1;
    for (int i = 0; i < m->nlinks; i++)
        if (strcmp(m->links[i].name, name) == 0) return i;
    return -1;
}

int mo_urdf_find_joint(const mo_urdf_model *m, const char *name)
{
    if (!m || !name) return -1;
    for (int i = 0; i < m->njoints; i++)
        if (strcmp(m->joints[i].name, name) == 0) return i;
    return -1;
}

mo_status mo_urdf_link_pose(const mo_world *w, const mo_urdf_model *m, int link, mo_vec3 *position,
                            mo_quat *orientation)
{
    if (!m || link < 0 || link >= m->nlinks || !position || !orientation) return MO_ERR_INVALID_ARGUMENT;
    const mo_urdf_link *l = &m->links[link];
    if (!mo_articulation_id_is_null(m->articulation)) /* model link k is articulation link k */
        return mo_articulation_link_pose(w, m->articulation, link, position, orientation);
    mo_vec3 x;
    mo_quat q;
    mo_status s = mo_body_position(w, l->body, &x);
    if (s != MO_OK) return s;
    s = mo_body_orientation(w, l->body, &q);
    if (s != MO_OK) return s;
    *position = ur_add(x, ur_rot(q, l->frame_position));
    *orientation = ur_qnorm(ur_qmul(q, l->frame_orientation));
    return MO_OK;
}

void ur_robot_free(ur_robot *r)
{
    if (!r) return;
    for (int i = 0; i < r->ncollisions; i++) mo_mesh_free(&r->collisions[i].mesh);
    free(r->links);
    free(r->joints);
    free(r->visuals);
    free(r->collisions);
    free(r->order);
    free(r->excl);
    free(r->warnings);
    memset(r, 0, sizeof *r);
}

int ur_warn(ur_robot *r, const char *path, int line, const char *fmt, ...)
{
    if (r->nwarnings == r->warning_cap) {
        int cap = r->warning_cap ? 2 * r->warning_cap : 8;
        mo_urdf_warning *p = realloc(r->warnings, (size_t)cap * sizeof *p);
        if (!p) return -1;
        r->warnings = p;
        r->warning_cap = cap;
    }
    mo_urdf_warning *wn = &r->warnings[r->nwarnings++];
    wn->line = line;
    int k = line > 0 ? snprintf(wn->text, sizeof wn->text, "%s:%d: ", path, line)
                     : snprintf(wn->text, sizeof wn->text, "%s: ", path);
    if (k < 0 || (size_t)k >= sizeof wn->text) return 0;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(wn->text + k, sizeof wn->text - (size_t)k, fmt, ap);
    va_end(ap);
    return 0;
}

static void set_err(char *err, size_t n, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static void set_err(char *err, size_t n, const char *fmt, ...)
{
    if (!err || n == 0) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, n, fmt, ap);
    va_end(ap);
}

mo_status mo_urdf_load(mo_world *w, const char *path, const mo_urdf_options *opt, mo_urdf_model *out, char *err,
                       size_t err_size)
{
    if (out) memset(out, 0, sizeof *out);
    char localerr[1024];
    if (!err || err_size == 0) {
        err = localerr;
        err_size = sizeof localerr;
    }
    err[0] = '\0';
    if (!w || !path || !out) {
        set_err(err, err_size, "mo_urdf_load: world, path and out must not be NULL");
        return MO_ERR_INVALID_ARGUMENT;
    }
    mo_urdf_options def = mo_default_urdf_options();
    if (!opt) opt = &def;
    if (opt->internal_value != UR_OPTIONS_COOKIE) {
        set_err(err, err_size, "%s: urdf options were not initialised with mo_default_urdf_options()", path);
        ur_set_world_error(w, err);
        return MO_ERR_INVALID_ARGUMENT;
    }
#ifndef MO_HAVE_URDF
    set_err(err, err_size, "%s: URDF files need libxml2, and this Moreau was built without it "
            "(install libxml2-dev and reconfigure with -Durdf=enabled)", path);
    ur_set_world_error(w, err);
    return MO_ERR_UNSUPPORTED;
#else
    ur_robot r;
    memset(&r, 0, sizeof r);
    mo_status s = ur_robot_parse(path, opt, &r, err, err_size);
    if (s == MO_OK)
        s = opt->articulation ? ur_robot_build_articulation(w, path, &r, opt, out, err, err_size)
                              : ur_robot_build(w, path, &r, opt, out, err, err_size);
    else ur_set_world_error(w, err);
    ur_robot_free(&r);
    return s;
#endif
}

#ifdef MO_HAVE_URDF

/* The file at path parsed by libxml2 with bounded cost: a size cap; no XML_PARSE_HUGE (libxml2's own caps on
 * text nodes, names and depth apply, and its entity amplification check refuses "billion laughs"), no
 * XML_PARSE_NOENT or DTDLOAD (external entities are neither loaded nor expanded), no network. what names the
 * format in the size sentence ("a URDF"). MO_OK with *px and *doc (free both with xmlFreeDoc and
 * xmlFreeParserCtxt), else the sentence ("PATH:LINE: XML error: ...") and both NULL. */
mo_status mo_import_xml_read(const char *path, const char *what, xmlParserCtxtPtr *px_out, xmlDocPtr *doc_out,
                             char *err, size_t err_size)
{
    *px_out = NULL;
    *doc_out = NULL;
    FILE *f = fopen(path, "rb");
    if (!f) {
        set_err(err, err_size, "%s: cannot read: %s", path, strerror(errno));
        return MO_ERR_IO;
    }
    long size = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    fclose(f);
    if (size < 0 || (unsigned long)size > MO_URDF_MAX_FILE_BYTES) {
        set_err(err, err_size, "%s: cannot read: the file has %ld bytes, more than the %d MiB %s file may have",
                path, size, (int)(MO_URDF_MAX_FILE_BYTES >> 20), what);
        return MO_ERR_IO;
    }
    xmlParserCtxtPtr px = xmlNewParserCtxt();
    if (!px) {
        set_err(err, err_size, "%s: out of memory", path);
        return MO_ERR_OUT_OF_MEMORY;
    }
    xmlDocPtr doc = xmlCtxtReadFile(px, path, NULL, XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING |
                                                         XML_PARSE_BIG_LINES);
    if (!doc) {
        const xmlError *e = xmlCtxtGetLastError(px);
        char msg[512];
        snprintf(msg, sizeof msg, "%s", e && e->message ? e->message : "not an XML file");
        size_t ml = strlen(msg);
        while (ml && (msg[ml - 1] == '\n' || msg[ml - 1] == ' ')) msg[--ml] = '\0';
        set_err(err, err_size, "%s:%d: XML error: %s", path, e ? e->line : 0, msg);
        xmlFreeParserCtxt(px);
        return MO_ERR_IO;
    }
    *px_out = px;
    *doc_out = doc;
    return MO_OK;
}

/* ---- parse context ---- */

typedef struct ctx {
    const char *path;  /* as given, in messages */
    char dir[UR_PATH]; /* the URDF's folder ("." when none) */
    const mo_urdf_options *opt;
    char *err;
    size_t n;
    bool refused; /* resolve: a candidate was refused by opt->allow_file */
    ur_robot *r;  /* for warnings */
} ctx;

static int fail(ctx *c, const xmlNode *node, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static int fail(ctx *c, const xmlNode *node, const char *fmt, ...)
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

static bool is_el(const xmlNode *n, const char *name)
{
    return n->type == XML_ELEMENT_NODE && strcmp((const char *)n->name, name) == 0;
}

static const xmlNode *child_el(const xmlNode *n, const char *name)
{
    for (const xmlNode *k = n->children; k; k = k->next)
        if (is_el(k, name)) return k;
    return NULL;
}

/* attribute into buf; 0 absent, 1 present, -1 too long (error set) */
static int attr(ctx *c, const xmlNode *n, const char *name, char *buf, size_t size, const char *who)
{
    xmlChar *v = xmlGetProp(n, (const xmlChar *)name);
    if (!v) {
        buf[0] = '\0';
        return 0;
    }
    size_t len = strlen((const char *)v);
    if (len >= size) {
        xmlFree(v);
        return fail(c, n, "%s: %s %s is longer than %zu characters", who, (const char *)n->name, name, size - 1);
    }
    memcpy(buf, v, len + 1);
    xmlFree(v);
    return 1;
}

/* up to max numbers of a whitespace-separated list; returns the count, -1 when a word is not a finite number */
static int numbers(const char *s, double *out, int max, char *bad, size_t badn)
{
    int k = 0;
    const char *p = s;
    for (;;) {
        while (isspace((unsigned char)*p)) p++;
        if (!*p) return k;
        const char *e = p;
        while (*e && !isspace((unsigned char)*e)) e++;
        char word[128];
        size_t len = (size_t)(e - p);
        if (len >= sizeof word) len = sizeof word - 1;
        memcpy(word, p, len);
        word[len] = '\0';
        char *end = NULL;
        errno = 0;
        double v = strtod(word, &end);
        if (end == word || *end || !isfinite(v) || k >= max) {
            if (k >= max) return max + 1;
            snprintf(bad, badn, "%s", word);
            return -1;
        }
        out[k++] = v;
        p = e;
    }
}

/* a scalar attribute: 1 read, 0 absent (*v = dflt), -1 error */
static int num_attr(ctx *c, const xmlNode *n, const char *name, double dflt, double *v, const char *who)
{
    char buf[256], bad[128];
    int a = attr(c, n, name, buf, sizeof buf, who);
    if (a < 0) return -1;
    if (a == 0) {
        *v = dflt;
        return 0;
    }
    double x[2];
    int k = numbers(buf, x, 1, bad, sizeof bad);
    if (k != 1) return fail(c, n, "%s: %s %s '%s' is not a number", who, (const char *)n->name, name, buf);
    *v = x[0];
    return 1;
}

/* a 3-vector attribute (or 1..3 numbers when allow1: one number for all three) */
static int vec_attr(ctx *c, const xmlNode *n, const char *name, mo_vec3 dflt, mo_vec3 *v, const char *who,
                    bool allow1)
{
    char buf[256], bad[128];
    int a = attr(c, n, name, buf, sizeof buf, who);
    if (a < 0) return -1;
    if (a == 0) {
        *v = dflt;
        return 0;
    }
    double x[3];
    int k = numbers(buf, x, 3, bad, sizeof bad);
    if (k < 0) return fail(c, n, "%s: %s %s '%s' is not a number", who, (const char *)n->name, name, bad);
    if (allow1 && k == 1) x[1] = x[2] = x[0];
    else if (k != 3)
        return fail(c, n, "%s: %s %s '%s' needs 3 numbers", who, (const char *)n->name, name, buf);
    *v = ur_v(x[0], x[1], x[2]);
    return 1;
}

/* <origin xyz rpy> child of n (absent = identity) */
static int origin(ctx *c, const xmlNode *n, mo_vec3 *pos, mo_quat *q, const char *who)
{
    *pos = ur_v(0, 0, 0);
    *q = (mo_quat){1, 0, 0, 0};
    const xmlNode *o = child_el(n, "origin");
    if (!o) return 0;
    mo_vec3 rpy;
    if (vec_attr(c, o, "xyz", ur_v(0, 0, 0), pos, who, false) < 0) return -1;
    if (vec_attr(c, o, "rpy", ur_v(0, 0, 0), &rpy, who, false) < 0) return -1;
    *q = ur_rpy(rpy.x, rpy.y, rpy.z);
    return 0;
}

/* ---- mesh paths ---- */

static bool file_exists(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

static bool try_path(ctx *c, char *out, const char *a, const char *b)
{
    char buf[UR_PATH];
    int k = b ? snprintf(buf, sizeof buf, "%s/%s", a, b) : snprintf(buf, sizeof buf, "%s", a);
    if (k < 0 || (size_t)k >= sizeof buf) return false;
    if (c->opt->allow_file && !c->opt->allow_file(c->opt->allow_user, buf)) {
        c->refused = true;
        return false;
    }
    if (!file_exists(buf)) return false;
    memcpy(out, buf, (size_t)k + 1);
    return true;
}

/* package://NAME/REST: each search path S as S/NAME/REST then S/REST, then the URDF's
 * folder and its ancestors D whose last component is NAME as D/REST, then the URDF's
 * folder as DIR/../REST (the usual NAME/urdf/ + NAME/meshes/ layout);
 * file:///abs, absolute paths as they are; relative paths against the URDF's folder, then
 * each search path */
static bool resolve(ctx *c, const char *uri, char *out)
{
    const mo_urdf_options *o = c->opt;
    int ns = o->search_paths ? o->nsearch_paths : 0;
    if (strncmp(uri, "package://", 10) == 0) {
        const char *pkg = uri + 10, *slash = strchr(pkg, '/');
        if (!slash) return false;
        char name[UR_PATH];
        size_t len = (size_t)(slash - pkg);
        if (len == 0 || len >= sizeof name) return false;
        memcpy(name, pkg, len);
        name[len] = '\0';
        const char *rest = slash + 1;
        for (int i = 0; i < ns; i++) {
            if (!o->search_paths[i]) continue;
            char sp[UR_PATH];
            if (snprintf(sp, sizeof sp, "%s/%s", o->search_paths[i], name) >= (int)sizeof sp) continue;
            if (try_path(c, out, sp, rest) || try_path(c, out, o->search_paths[i], rest)) return true;
        }
        char d[UR_PATH];
        snprintf(d, sizeof d, "%s", c->dir);
        for (int up = 0; up < 8; up++) {
            char *last = strrchr(d, '/');
            const char *base = last ? last + 1 : d;
            if (strcmp(base, name) == 0 && try_path(c, out, d, rest)) return true;
            if (!last) break;
            *last = '\0';
            if (!*d) break;
        }
        char parent[UR_PATH];
        if (snprintf(parent, sizeof parent, "%s/..", c->dir) < (int)sizeof parent && try_path(c, out, parent, rest))
            return true;
        return false;
    }
    if (strncmp(uri, "file://", 7) == 0) return try_path(c, out, uri + 7, NULL);
    if (uri[0] == '/') return try_path(c, out, uri, NULL);
    if (try_path(c, out, c->dir, uri)) return true;
    for (int i = 0; i < ns; i++)
        if (o->search_paths[i] && try_path(c, out, o->search_paths[i], uri)) return true;
    return false;
}

/* ---- geometry ---- */

static int parse_geom(ctx *c, const xmlNode *el, ur_geom *g, const char *who, const char *what, bool load)
{
    g->q = (mo_quat){1, 0, 0, 0};
    g->line = (int)xmlGetLineNo(el);
    g->rgba[0] = g->rgba[1] = g->rgba[2] = 0.7f;
    g->rgba[3] = 1.0f;
    if (origin(c, el, &g->pos, &g->q, who) < 0) return -1;
    const xmlNode *geo = child_el(el, "geometry");
    if (!geo) return fail(c, el, "%s: %s has no <geometry>", who, what);
    const xmlNode *s = NULL;
    for (const xmlNode *k = geo->children; k; k = k->next)
        if (k->type == XML_ELEMENT_NODE) {
            if (s) return fail(c, k, "%s: %s geometry has more than one shape", who, what);
            s = k;
        }
    if (!s) return fail(c, geo, "%s: %s geometry is empty", who, what);
    if (is_el(s, "box")) {
        g->type = MO_URDF_GEOM_BOX;
        int a = vec_attr(c, s, "size", ur_v(0, 0, 0), &g->size, who, false);
        if (a < 0) return -1;
        if (a == 0) return fail(c, s, "%s: %s box has no size", who, what);
        if (!(g->size.x > 0 && g->size.y > 0 && g->size.z > 0))
            return fail(c, s, "%s: %s box size (%g %g %g) must be > 0", who, what, g->size.x, g->size.y, g->size.z);
    } else if (is_el(s, "cylinder") || is_el(s, "sphere")) {
        bool cyl = is_el(s, "cylinder");
        g->type = cyl ? MO_URDF_GEOM_CYLINDER : MO_URDF_GEOM_SPHERE;
        int a = num_attr(c, s, "radius", 0, &g->size.x, who);
        if (a < 0) return -1;
        if (a == 0) return fail(c, s, "%s: %s %s has no radius", who, what, (const char *)s->name);
        if (!(g->size.x > 0)) return fail(c, s, "%s: %s %s radius %g must be > 0", who, what, (const char *)s->name, g->size.x);
        if (cyl) {
            a = num_attr(c, s, "length", 0, &g->size.z, who);
            if (a < 0) return -1;
            if (a == 0) return fail(c, s, "%s: %s cylinder has no length", who, what);
            if (!(g->size.z > 0)) return fail(c, s, "%s: %s cylinder length %g must be > 0", who, what, g->size.z);
        }
    } else if (is_el(s, "mesh")) {
        g->type = MO_URDF_GEOM_MESH;
        char uri[UR_PATH];
        int a = attr(c, s, "filename", uri, sizeof uri, who);
        if (a < 0) return -1;
        if (a == 0 || !uri[0]) return fail(c, s, "%s: %s mesh has no filename", who, what);
        if (vec_attr(c, s, "scale", ur_v(1, 1, 1), &g->size, who, true) < 0) return -1;
        if (g->size.x == 0 || g->size.y == 0 || g->size.z == 0)
            return fail(c, s, "%s: %s mesh scale (%g %g %g) must be non-zero", who, what, g->size.x, g->size.y,
                        g->size.z);
        c->refused = false;
        bool found = resolve(c, uri, g->mesh_path);
        if (!found && !load) {
            /* a visual: not simulated, so a missing file is a warning and the visual is left out */
            int nsp = c->opt->search_paths ? c->opt->nsearch_paths : 0;
            int wr = c->refused ? ur_warn(c->r, c->path, (int)xmlGetLineNo(s),
                                          "%s: visual mesh '%s' is outside the folders this load may read: the visual "
                                          "is left out", who, uri)
                                : ur_warn(c->r, c->path, (int)xmlGetLineNo(s),
                                          "%s: visual mesh '%s' not found (looked in %s and %d search path%s): the "
                                          "visual is left out", who, uri, c->dir, nsp, nsp == 1 ? "" : "s");
            if (wr < 0) {
                set_err(c->err, c->n, "%s: out of memory", c->path);
                return -3;
            }
            return 1;
        }
        if (!found && c->refused)
            return fail(c, s, "%s: %s mesh '%s' is outside the folders this load may read", who, what, uri);
        if (!found)
            return fail(c, s, "%s: %s mesh '%s' not found (looked in %s and %d search path%s)", who, what, uri,
                        c->dir, c->opt->search_paths ? c->opt->nsearch_paths : 0,
                        (c->opt->search_paths ? c->opt->nsearch_paths : 0) == 1 ? "" : "s");
        if (load) {
            char merr[768];
            mo_status st = mo_mesh_load(g->mesh_path, g->size, &g->mesh, merr, sizeof merr);
            if (st != MO_OK) {
                fail(c, s, "%s: %s mesh: %s", who, what, merr);
                return st == MO_ERR_UNSUPPORTED ? -2 : -1;
            }
        }
    } else {
        return fail(c, s, "%s: %s geometry '%s' is not a URDF geometry (box, cylinder, sphere, mesh)", who, what,
                    (const char *)s->name);
    }
    return 0;
}

/* ---- links ---- */

static int name_of(ctx *c, const xmlNode *n, char *name, const char *kind)
{
    int a = attr(c, n, "name", name, UR_NAME, kind);
    if (a < 0) return -1;
    if (a == 0 || !name[0]) return fail(c, n, "%s has no name", kind);
    return 0;
}

/* symmetric 3x3 positive definite (leading minors, relative to the scale) */
static bool spd(const mo_mat3 *I)
{
    const double(*m)[3] = I->m;
    double s = fabs(m[0][0]) + fabs(m[1][1]) + fabs(m[2][2]);
    if (!(s > 0)) return false;
    double d1 = m[0][0], d2 = m[0][0] * m[1][1] - m[0][1] * m[1][0];
    double d3 = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
                m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
    return d1 > 0 && d2 > 1e-12 * s * s && d3 > 1e-12 * s * s * s;
}

static int parse_link(ctx *c, const xmlNode *n, ur_link *l)
{
    if (name_of(c, n, l->name, "link") < 0) return -1;
    l->line = (int)xmlGetLineNo(n);
    l->parent_joint = -1;
    char who[UR_NAME + 16];
    snprintf(who, sizeof who, "link '%s'", l->name);
    const xmlNode *in = child_el(n, "inertial");
    if (!in) return 0;
    mo_vec3 cpos;
    mo_quat cq;
    if (origin(c, in, &cpos, &cq, who) < 0) return -1;
    const xmlNode *m = child_el(in, "mass");
    double mass = 0;
    if (m) {
        int a = num_attr(c, m, "value", 0, &mass, who);
        if (a < 0) return -1;
        if (a == 0) return fail(c, m, "%s: mass has no value", who);
        if (mass < 0) return fail(c, m, "%s: mass %g is negative", who, mass);
    }
    const xmlNode *it = child_el(in, "inertia");
    static const char *const names[6] = {"ixx", "ixy", "ixz", "iyy", "iyz", "izz"};
    double v[6] = {0, 0, 0, 0, 0, 0};
    if (it)
        for (int k = 0; k < 6; k++)
            if (num_attr(c, it, names[k], 0, &v[k], who) < 0) return -1;
    if (!(mass > 0)) return 0; /* massless: a dummy frame (see massless_link_mass) */
    mo_mat3 Ic = {{{v[0], v[1], v[2]}, {v[1], v[3], v[4]}, {v[2], v[4], v[5]}}};
    if (!spd(&Ic))
        return fail(c, it ? it : in,
                    "%s: inertia (ixx %g ixy %g ixz %g iyy %g iyz %g izz %g) is not positive definite", who, v[0],
                    v[1], v[2], v[3], v[4], v[5]);
    /* into the link frame's axes: I = R Ic R^T, R the inertial origin's rotation */
    double R[3][3];
    ur_qmat(cq, R);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            double s = 0;
            for (int a = 0; a < 3; a++)
                for (int b = 0; b < 3; b++) s += R[i][a] * Ic.m[a][b] * R[j][b];
            l->inertia.m[i][j] = s;
        }
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < i; j++) l->inertia.m[i][j] = l->inertia.m[j][i] =
                                        0.5 * (l->inertia.m[i][j] + l->inertia.m[j][i]);
    l->has_mass = true;
    l->mass = mass;
    l->com = cpos;
    return 0;
}

/* ---- joints ---- */

static int find_link(const ur_robot *r, const char *name)
{
    for (int i = 0; i < r->nlinks; i++)
        if (strcmp(r->links[i].name, name) == 0) return i;
    return -1;
}

static int parse_joint(ctx *c, const xmlNode *n, ur_robot *r, ur_joint *j)
{
    if (name_of(c, n, j->name, "joint") < 0) return -1;
    j->line = (int)xmlGetLineNo(n);
    char who[UR_NAME + 16], type[64];
    snprintf(who, sizeof who, "joint '%s'", j->name);
    int a = attr(c, n, "type", type, sizeof type, who);
    if (a < 0) return -1;
    if (a == 0) return fail(c, n, "%s: no type", who);
    if (strcmp(type, "revolute") == 0) j->type = MO_URDF_JOINT_REVOLUTE;
    else if (strcmp(type, "continuous") == 0) j->type = MO_URDF_JOINT_CONTINUOUS;
    else if (strcmp(type, "prismatic") == 0) j->type = MO_URDF_JOINT_PRISMATIC;
    else if (strcmp(type, "fixed") == 0) j->type = MO_URDF_JOINT_FIXED;
    else if (strcmp(type, "floating") == 0) j->type = MO_URDF_JOINT_FLOATING;
    else if (strcmp(type, "planar") == 0)
        return fail(c, n, "%s: planar joints are not supported (use two prismatic joints and a revolute one)", who);
    else
        return fail(c, n, "%s: unknown joint type '%s' (revolute, continuous, prismatic, fixed, floating)", who,
                    type);
    for (int side = 0; side < 2; side++) {
        const char *tag = side ? "child" : "parent";
        const xmlNode *p = child_el(n, tag);
        if (!p) return fail(c, n, "%s: no <%s>", who, tag);
        char ln[UR_NAME];
        a = attr(c, p, "link", ln, sizeof ln, who);
        if (a < 0) return -1;
        if (a == 0) return fail(c, p, "%s: <%s> has no link", who, tag);
        int k = find_link(r, ln);
        if (k < 0) return fail(c, p, "%s: %s link '%s' does not exist", who, tag, ln);
        if (side) j->child = k;
        else j->parent = k;
    }
    if (origin(c, n, &j->pos, &j->q, who) < 0) return -1;
    j->axis = ur_v(1, 0, 0);
    const xmlNode *ax = child_el(n, "axis");
    if (ax && vec_attr(c, ax, "xyz", ur_v(1, 0, 0), &j->axis, who, false) < 0) return -1;
    double al = sqrt(j->axis.x * j->axis.x + j->axis.y * j->axis.y + j->axis.z * j->axis.z);
    bool moving = j->type == MO_URDF_JOINT_REVOLUTE || j->type == MO_URDF_JOINT_CONTINUOUS ||
                  j->type == MO_URDF_JOINT_PRISMATIC;
    if (moving && !(al > 1e-12)) return fail(c, ax ? ax : n, "%s: axis is zero", who);
    if (al > 1e-12) j->axis = ur_v(j->axis.x / al, j->axis.y / al, j->axis.z / al);
    const xmlNode *lim = child_el(n, "limit");
    j->effort = j->velocity = 0;
    if (lim) {
        if (num_attr(c, lim, "lower", 0, &j->lower, who) < 0 || num_attr(c, lim, "upper", 0, &j->upper, who) < 0 ||
            num_attr(c, lim, "effort", 0, &j->effort, who) < 0 ||
            num_attr(c, lim, "velocity", 0, &j->velocity, who) < 0)
            return -1;
        if (j->effort < 0) return fail(c, lim, "%s: limit effort %g is negative", who, j->effort);
        if (j->velocity < 0) return fail(c, lim, "%s: limit velocity %g is negative", who, j->velocity);
    }
    if (j->type == MO_URDF_JOINT_REVOLUTE || j->type == MO_URDF_JOINT_PRISMATIC) {
        if (!lim) return fail(c, n, "%s: a %s joint needs a <limit>", who, type);
        if (j->lower > j->upper)
            return fail(c, lim, "%s: limit lower %g is above upper %g", who, j->lower, j->upper);
        j->has_limits = true;
        if (j->type == MO_URDF_JOINT_REVOLUTE && j->lower == 0 && j->upper == 0 && !c->opt->lock_zero_limits) {
            j->has_limits = false;
            if (ur_warn(c->r, c->path, (int)xmlGetLineNo(lim),
                        "%s: limit lower = upper = 0 on a revolute joint (what ROS's parser reads when both are left "
                        "out): read as no limits (lock_zero_limits keeps the joint locked at 0)", who) < 0) {
                set_err(c->err, c->n, "%s: out of memory", c->path);
                return -3;
            }
        }
    } else {
        j->lower = j->upper = 0;
    }
    j->mimic = -1;
    const xmlNode *mim = child_el(n, "mimic");
    if (mim) {
        int a2 = attr(c, mim, "joint", j->mimic_name, sizeof j->mimic_name, who);
        if (a2 < 0) return -1;
        if (a2 == 0 || !j->mimic_name[0]) return fail(c, mim, "%s: <mimic> has no joint", who);
        if (num_attr(c, mim, "multiplier", 1, &j->mimic_multiplier, who) < 0 ||
            num_attr(c, mim, "offset", 0, &j->mimic_offset, who) < 0)
            return -1;
        if (!moving) return fail(c, mim, "%s: a %s joint cannot mimic (revolute, continuous and prismatic can)", who, type);
        j->mimic_line = (int)xmlGetLineNo(mim);
    }
    const xmlNode *dyn = child_el(n, "dynamics");
    if (dyn) {
        if (num_attr(c, dyn, "damping", 0, &j->damping, who) < 0 ||
            num_attr(c, dyn, "friction", 0, &j->friction, who) < 0)
            return -1;
        if (j->damping < 0) return fail(c, dyn, "%s: dynamics damping %g is negative", who, j->damping);
        if (j->friction < 0) return fail(c, dyn, "%s: dynamics friction %g is negative", who, j->friction);
    }
    return 0;
}

/* ---- materials ---- */

typedef struct material {
    char name[UR_NAME];
    float rgba[4];
    bool has_color;
} material;

static int parse_material(ctx *c, const xmlNode *n, material *m, const char *who)
{
    if (attr(c, n, "name", m->name, sizeof m->name, who) < 0) return -1;
    const xmlNode *col = child_el(n, "color");
    m->has_color = false;
    if (col) {
        char buf[256], bad[128];
        int a = attr(c, col, "rgba", buf, sizeof buf, who);
        if (a < 0) return -1;
        if (a) {
            double v[4];
            int k = numbers(buf, v, 4, bad, sizeof bad);
            if (k < 0) return fail(c, col, "%s: color rgba '%s' is not a number", who, bad);
            if (k != 4) return fail(c, col, "%s: color rgba '%s' needs 4 numbers", who, buf);
            for (int i = 0; i < 4; i++) m->rgba[i] = (float)v[i];
            m->has_color = true;
        }
    }
    return 0;
}

/* ---- the whole file ---- */

static int count_children(const xmlNode *n, const char *name)
{
    int k = 0;
    for (const xmlNode *e = n->children; e; e = e->next) k += is_el(e, name);
    return k;
}

static int parse_robot(ctx *c, const xmlNode *root, ur_robot *r)
{
    if (!is_el(root, "robot")) return fail(c, root, "the root element is <%s>, not <robot>", (const char *)root->name);
    if (attr(c, root, "name", r->name, sizeof r->name, "robot") < 0) return -1;
    int nl = count_children(root, "link"), nj = count_children(root, "joint"), nm = count_children(root, "material");
    if (nl == 0) return fail(c, root, "robot '%s' has no links", r->name);
    int nv = 0, nc = 0;
    for (const xmlNode *e = root->children; e; e = e->next)
        if (is_el(e, "link")) {
            nv += count_children(e, "visual");
            nc += count_children(e, "collision");
        }
    r->links = calloc((size_t)nl, sizeof *r->links);
    r->joints = calloc((size_t)(nj ? nj : 1), sizeof *r->joints);
    r->visuals = calloc((size_t)(nv ? nv : 1), sizeof *r->visuals);
    r->collisions = calloc((size_t)(nc ? nc : 1), sizeof *r->collisions);
    r->order = calloc((size_t)nl, sizeof *r->order);
    material *mats = calloc((size_t)(nm ? nm : 1), sizeof *mats);
    int ret = -1;
    if (!r->links || !r->joints || !r->visuals || !r->collisions || !r->order || !mats) {
        set_err(c->err, c->n, "%s: out of memory", c->path);
        ret = -3;
        goto done;
    }
    /* materials at robot level */
    int nmat = 0;
    for (const xmlNode *e = root->children; e; e = e->next)
        if (is_el(e, "material")) {
            if (parse_material(c, e, &mats[nmat], "material") < 0) goto done;
            nmat++;
        }
    /* links */
    for (const xmlNode *e = root->children; e; e = e->next) {
        if (!is_el(e, "link")) continue;
        ur_link *l = &r->links[r->nlinks];
        if (parse_link(c, e, l) < 0) goto done;
        for (int i = 0; i < r->nlinks; i++)
            if (strcmp(r->links[i].name, l->name) == 0) {
                fail(c, e, "link '%s' is defined twice (first on line %d)", l->name, r->links[i].line);
                goto done;
            }
        int li = r->nlinks++;
        char who[UR_NAME + 16];
        snprintf(who, sizeof who, "link '%s'", l->name);
        for (const xmlNode *g = e->children; g; g = g->next) {
            bool vis = is_el(g, "visual"), col = is_el(g, "collision");
            if (!vis && !col) continue;
            ur_geom *gg = vis ? &r->visuals[r->nvisuals++] : &r->collisions[r->ncollisions++];
            gg->link = li;
            int pr = parse_geom(c, g, gg, who, vis ? "visual" : "collision", col);
            if (pr < 0) {
                ret = pr == -2 || pr == -3 ? pr : -1;
                goto done;
            }
            if (pr == 1) { /* a visual left out (warning given) */
                memset(gg, 0, sizeof *gg);
                r->nvisuals--;
                continue;
            }
            /* flat meshes may still be triangle meshes: decided below, once the tree is known */
            if (col && gg->type == MO_URDF_GEOM_MESH) gg->flat = !ur_has_volume(gg->mesh.vertices, gg->mesh.nvertices);
            if (vis) {
                const xmlNode *mn = child_el(g, "material");
                if (mn) {
                    material m = {0};
                    if (parse_material(c, mn, &m, who) < 0) goto done;
                    snprintf(gg->material, sizeof gg->material, "%s", m.name);
                    if (m.has_color) memcpy(gg->rgba, m.rgba, sizeof m.rgba);
                    else
                        for (int i = 0; i < nmat; i++)
                            if (strcmp(mats[i].name, m.name) == 0 && mats[i].has_color)
                                memcpy(gg->rgba, mats[i].rgba, sizeof gg->rgba);
                }
            }
        }
    }
    /* joints */
    for (const xmlNode *e = root->children; e; e = e->next) {
        if (!is_el(e, "joint")) continue;
        ur_joint *j = &r->joints[r->njoints];
        int pj = parse_joint(c, e, r, j);
        if (pj < 0) {
            ret = pj == -3 ? -3 : -1;
            goto done;
        }
        for (int i = 0; i < r->njoints; i++)
            if (strcmp(r->joints[i].name, j->name) == 0) {
                fail(c, e, "joint '%s' is defined twice (first on line %d)", j->name, r->joints[i].line);
                goto done;
            }
        if (j->parent == j->child) {
            fail(c, e, "joint '%s': link '%s' is its own parent (a cycle)", j->name, r->links[j->child].name);
            goto done;
        }
        ur_link *ch = &r->links[j->child];
        if (ch->parent_joint >= 0) {
            fail(c, e, "joint '%s': link '%s' already has parent joint '%s' (line %d): a link has one parent", j->name,
                 ch->name, r->joints[ch->parent_joint].name, r->joints[ch->parent_joint].line);
            goto done;
        }
        ch->parent_joint = r->njoints++;
    }
    /* mimics: a moving joint of the file, not the joint itself; an articulation enforces them (a mimic row,
       import_urdf_artic.c), the maximal form records them only (a warning) */
    for (int k = 0; k < r->njoints; k++) {
        ur_joint *j = &r->joints[k];
        if (!j->mimic_name[0]) continue;
        for (int i = 0; i < r->njoints && j->mimic < 0; i++)
            if (strcmp(r->joints[i].name, j->mimic_name) == 0) j->mimic = i;
        if (j->mimic < 0 || j->mimic == k) {
            snprintf(c->err, c->n, "%s:%d: joint '%s': mimic joint '%s' %s", c->path, j->mimic_line, j->name,
                     j->mimic_name, j->mimic < 0 ? "does not exist" : "is the joint itself");
            goto done;
        }
        int mt = r->joints[j->mimic].type;
        if (mt != MO_URDF_JOINT_REVOLUTE && mt != MO_URDF_JOINT_CONTINUOUS && mt != MO_URDF_JOINT_PRISMATIC) {
            snprintf(c->err, c->n, "%s:%d: joint '%s': mimic joint '%s' does not move (it must be revolute, "
                     "continuous or prismatic)", c->path, j->mimic_line, j->name, j->mimic_name);
            goto done;
        }
        if (!c->opt->articulation &&
            ur_warn(r, c->path, j->mimic_line, "joint '%s': <mimic joint='%s' multiplier='%g' offset='%g'> is "
                    "recorded (mo_urdf_joint.mimic), not enforced: engine joints have no constraint coupling two "
                    "joints, so the joint moves on its own (an articulation import enforces it)", j->name,
                    j->mimic_name, j->mimic_multiplier, j->mimic_offset) < 0) {
            set_err(c->err, c->n, "%s: out of memory", c->path);
            ret = -3;
            goto done;
        }
    }
    /* the tree: one root, every link reached from it */
    int root_link = -1;
    for (int i = 0; i < r->nlinks; i++)
        if (r->links[i].parent_joint < 0) {
            if (root_link >= 0) {
                const xmlNode *any = root;
                fail(c, any, "robot '%s' has several root links ('%s' on line %d and '%s' on line %d): a URDF is one tree",
                     r->name, r->links[root_link].name, r->links[root_link].line, r->links[i].name, r->links[i].line);
                goto done;
            }
            root_link = i;
        }
    int norder = 0;
    if (root_link >= 0) {
        r->order[norder++] = root_link;
        for (int h = 0; h < norder; h++)
            for (int k = 0; k < r->njoints; k++)
                if (r->joints[k].parent == r->order[h]) r->order[norder++] = r->joints[k].child;
    }
    if (norder < r->nlinks) {
        /* a link not reached: its ancestors loop; name the joint that closes the loop */
        char *seen = calloc((size_t)r->nlinks, 1);
        if (!seen) {
            set_err(c->err, c->n, "%s: out of memory", c->path);
            ret = -3;
            goto done;
        }
        for (int h = 0; h < norder; h++) seen[r->order[h]] = 1;
        int l = 0;
        while (seen[l]) l++;
        /* walk up until a link repeats */
        char *on = calloc((size_t)r->nlinks, 1);
        int jl = -1;
        while (on && !on[l]) {
            on[l] = 1;
            jl = r->links[l].parent_joint;
            l = r->joints[jl].parent;
        }
        int cyc = r->links[l].parent_joint;
        free(seen);
        free(on);
        if (cyc < 0) cyc = jl;
        c->err[0] = '\0';
        snprintf(c->err, c->n, "%s:%d: joint '%s': joints form a cycle through link '%s' (a URDF is a tree)", c->path,
                 r->joints[cyc].line, r->joints[cyc].name, r->links[l].name);
        goto done;
    }
    /* hull-less collision meshes on links that will be dynamic */
    for (int i = 0; i < r->ncollisions; i++) {
        ur_geom *g = &r->collisions[i];
        if (!g->flat || c->opt->collision_meshes == MO_URDF_MESH_TRIANGLES) continue;
        bool stat = c->opt->fixed_base && g->link == root_link;
        for (int l = g->link; !stat && r->links[l].parent_joint >= 0;) {
            const ur_joint *j = &r->joints[r->links[l].parent_joint];
            if (j->type != MO_URDF_JOINT_FIXED) break;
            l = j->parent;
            stat = c->opt->fixed_base && l == root_link;
        }
        if (!(stat && c->opt->collision_meshes == MO_URDF_MESH_AUTO)) {
            snprintf(c->err, c->n, "%s:%d: link '%s': collision mesh %s is flat: it has no convex hull", c->path,
                     g->line, r->links[g->link].name, g->mesh_path);
            goto done;
        }
    }
    /* the excluded pairs: links of this file */
    int npairs = c->opt->exclude_pairs ? c->opt->nexclude_pairs : 0;
    if (npairs > 0) {
        r->excl = calloc((size_t)(2 * npairs), sizeof *r->excl);
        if (!r->excl) {
            set_err(c->err, c->n, "%s: out of memory", c->path);
            ret = -3;
            goto done;
        }
    }
    for (int i = 0; i < 2 * npairs; i++) {
        const char *ln = c->opt->exclude_pairs[i];
        r->excl[i] = ln ? find_link(r, ln) : -1;
        if (r->excl[i] < 0) {
            set_err(c->err, c->n, "%s: exclude_pairs[%d] (pair %d): %s%s%s", c->path, i, i / 2,
                    ln ? "link '" : "is NULL", ln ? ln : "", ln ? "' is not a link of the file" : "");
            goto done;
        }
        if (i % 2 == 1 && r->excl[i] == r->excl[i - 1]) {
            set_err(c->err, c->n, "%s: exclude_pairs[%d] (pair %d): link '%s' with itself (a link's shapes never "
                    "collide with each other)", c->path, i, i / 2, ln);
            goto done;
        }
    }
    ret = 0;
done:
    free(mats);
    return ret;
}

mo_status ur_robot_parse(const char *path, const mo_urdf_options *opt, ur_robot *r, char *err, size_t err_size)
{
    char localerr[1024];
    if (!err || err_size == 0) {
        err = localerr;
        err_size = sizeof localerr;
    }
    err[0] = '\0';
    ctx c = {path, ".", opt, err, err_size, false, r};
    const char *slash = strrchr(path, '/');
    if (slash) {
        size_t len = (size_t)(slash - path);
        if (len == 0) snprintf(c.dir, sizeof c.dir, "/");
        else if (len < sizeof c.dir) {
            memcpy(c.dir, path, len);
            c.dir[len] = '\0';
        }
    }
    if (!opt->search_paths && opt->nsearch_paths != 0) {
        set_err(err, err_size, "%s: nsearch_paths is %d but search_paths is NULL", path, opt->nsearch_paths);
        return MO_ERR_INVALID_ARGUMENT;
    }
    if (opt->max_hull_vertices < 0 || (opt->max_hull_vertices > 0 && opt->max_hull_vertices < 8)) {
        set_err(err, err_size, "%s: max_hull_vertices is %d (0 for no limit, or at least 8)", path,
                opt->max_hull_vertices);
        return MO_ERR_INVALID_ARGUMENT;
    }
    if (opt->nexclude_pairs < 0 || (!opt->exclude_pairs && opt->nexclude_pairs != 0) ||
        opt->nexclude_pairs > (1 << 24)) {
        set_err(err, err_size, "%s: nexclude_pairs is %d%s (0 to 2^24 pairs, two link names each)", path,
                opt->nexclude_pairs, opt->exclude_pairs ? "" : " but exclude_pairs is NULL");
        return MO_ERR_INVALID_ARGUMENT;
    }
    if (opt->collision_meshes < MO_URDF_MESH_AUTO || opt->collision_meshes > MO_URDF_MESH_TRIANGLES ||
        !(opt->massless_link_mass > 0) || !isfinite(opt->massless_link_mass) || !(opt->friction >= 0) ||
        !isfinite(opt->friction) || !(opt->drive_stiffness >= 0) || !isfinite(opt->drive_stiffness) ||
        !(opt->drive_damping >= 0) || !isfinite(opt->drive_damping)) {
        set_err(err, err_size, "%s: urdf options out of range (collision_meshes %d, massless_link_mass %g, friction %g, "
                "drive_stiffness %g, drive_damping %g)", path, (int)opt->collision_meshes, opt->massless_link_mass,
                opt->friction, opt->drive_stiffness, opt->drive_damping);
        return MO_ERR_INVALID_ARGUMENT;
    }
    xmlParserCtxtPtr px = NULL;
    xmlDocPtr doc = NULL;
    mo_status st = mo_import_xml_read(path, "a URDF", &px, &doc, err, err_size);
    if (st != MO_OK) return st;
    xmlNodePtr root = xmlDocGetRootElement(doc);
    int rc = root ? parse_robot(&c, root, r) : -1;
    if (!root) set_err(err, err_size, "%s:1: the file has no root element", path);
    xmlFreeDoc(doc);
    xmlFreeParserCtxt(px);
    if (rc == 0) return MO_OK;
    ur_robot_free(r);
    if (rc == -3) return MO_ERR_OUT_OF_MEMORY;
    if (rc == -2) return MO_ERR_UNSUPPORTED;
    return strstr(err, "not found") || strstr(err, "cannot read") ? MO_ERR_IO : MO_ERR_INVALID_ARGUMENT;
}

#endif
