/* fem_contacts.c: rigid shapes against the FEM meshes' boundary triangles
 * (the collide stage, after the rigid contacts): the points of boxes, hulls,
 * spheres, capsules and triangle-mesh shapes on the triangles, and their
 * three rows each (one unilateral normal row, two friction rows) in the
 * Newton step. The rows' data live in model/fem.h (fem_scontact). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "model/fem.h"
#include "solver/newton.h" /* MO_NROW_* row types */
#include "step/step.h"
#include "collision/collide_surface.h"

/* ---- rigid vertices against boundary triangles ---- */

/* the world vertices of shape slot sh (boxes: 8 corners, convex hulls: their
 * vertices; spheres: the centre, capsules: the two cap centres, with *rad
 * their radius, else 0) into v (at most cap), their count; 0 for other shapes
 * (triangle meshes: mesh_candidates) */
static int shape_vertices(const mo_world *w, int sh, double *v, int cap, double *rad)
{
    const mo_shape *S = &w->shapes[sh];
    const mo_body *B = &w->bodies[S->body];
    double q[4], pos[3], lp[3];
    mo_q_mul(q, B->k.q, S->lq);
    mo_q_rotate(lp, B->k.q, S->lpos);
    mo_v3_add(pos, B->k.x, lp);
    int n = 0;
    *rad = 0.0;
    if (S->type == MO_SHAPE_SPHERE || S->type == MO_SHAPE_CAPSULE) {
        *rad = S->radius;
        int nc = S->type == MO_SHAPE_SPHERE ? 1 : 2;
        for (int c = 0; c < nc && n < cap; c++, n++) {
            double l[3] = {0.0, 0.0, nc == 1 ? 0.0 : (c ? S->half_height : -S->half_height)};
            mo_q_rotate(v + 3 * n, q, l);
            mo_v3_add(v + 3 * n, v + 3 * n, pos);
        }
    } else if (S->type == MO_SHAPE_BOX) {
        for (int c = 0; c < 8 && n < cap; c++, n++) {
            double l[3] = {(c & 1) ? S->he[0] : -S->he[0], (c & 2) ? S->he[1] : -S->he[1], (c & 4) ? S->he[2] : -S->he[2]};
            mo_q_rotate(v + 3 * n, q, l);
            mo_v3_add(v + 3 * n, v + 3 * n, pos);
        }
    } else if (S->type == MO_SHAPE_CONVEX_HULL && S->hull) {
        for (int c = 0; c < S->hull->nverts && n < cap; c++, n++) {
            mo_q_rotate(v + 3 * n, q, S->hull->verts + 3 * c);
            mo_v3_add(v + 3 * n, v + 3 * n, pos);
        }
    }
    return n;
}

/* a triangle mesh shape's candidates near the world box [lo, hi] (already grown by the margin),
 * from the mesh's BVH (the box taken into the mesh's frame): the triangles whose boxes meet it;
 * their vertices, each once, at their world positions in v (vid: the mesh's vertex index of each,
 * ascending); their edges as (index into v, index into v, 3 t + e) triples in e; *cen the world
 * position of the centroid of all the mesh's vertices (the one-sided test's inside point).
 * Returns the vertex count (0: none), -1 out of memory; the buffers grow as needed. */
typedef struct mesh_cand { int *tri; int n, cap; } mesh_cand;

static void mesh_cand_add(void *ctx, int tri)
{
    mesh_cand *c = (mesh_cand *)ctx;
    if (c->n == c->cap) {
        int nc = c->cap ? 2 * c->cap : 64;
        int *t = (int *)realloc(c->tri, (size_t)nc * sizeof(int));
        if (!t) { c->cap = -1; return; }
        c->tri = t;
        c->cap = nc;
    }
    if (c->cap > 0) c->tri[c->n++] = tri;
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

static int mesh_candidates(const mo_world *w, int sh, const double *lo, const double *hi, double **v, int *vcap,
                           int **vid, int *idcap, int **e, int *ecap, int *ne, double *cen)
{
    const mo_shape *S = &w->shapes[sh];
    const mo_body *B = &w->bodies[S->body];
    const mo_cl_mesh *M = S->mesh;
    double q[4], qc[4], pos[3], lp[3];
    mo_q_mul(q, B->k.q, S->lq);
    mo_q_rotate(lp, B->k.q, S->lpos);
    mo_v3_add(pos, B->k.x, lp);
    mo_q_conj(qc, q);
    /* the world box in the mesh's frame */
    double llo[3] = {INFINITY, INFINITY, INFINITY}, lhi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int k = 0; k < 8; k++) {
        double c[3] = {k & 1 ? hi[0] : lo[0], k & 2 ? hi[1] : lo[1], k & 4 ? hi[2] : lo[2]}, d[3], l[3];
        mo_v3_sub(d, c, pos);
        mo_q_rotate(l, qc, d);
        for (int a = 0; a < 3; a++) llo[a] = fmin(llo[a], l[a]), lhi[a] = fmax(lhi[a], l[a]);
    }
    mesh_cand c = {NULL, 0, 0};
    mo_cl_mesh_query(M, llo, lhi, mesh_cand_add, &c);
    if (c.cap < 0) { free(c.tri); return -1; }
    *ne = 0;
    if (c.n == 0) { free(c.tri); return 0; }
    if (3 * c.n > *idcap || 3 * c.n > *vcap || 3 * c.n > *ecap) {
        int n3 = 3 * c.n;
        int *a = (int *)realloc(*vid, (size_t)n3 * sizeof(int));
        if (a) *vid = a;
        double *b = a ? (double *)realloc(*v, (size_t)n3 * 3 * sizeof(double)) : NULL;
        if (b) *v = b;
        int *d = b ? (int *)realloc(*e, (size_t)n3 * 3 * sizeof(int)) : NULL;
        if (d) *e = d;
        if (!d) { free(c.tri); return -1; }
        *idcap = *vcap = *ecap = n3;
    }
    int nv = 0;
    for (int t = 0; t < c.n; t++)
        for (int a = 0; a < 3; a++) (*vid)[nv++] = M->tris[3 * c.tri[t] + a];
    qsort(*vid, (size_t)nv, sizeof(int), cmp_int);
    int u = 0;
    for (int k = 0; k < nv; k++)
        if (u == 0 || (*vid)[k] != (*vid)[u - 1]) (*vid)[u++] = (*vid)[k];
    nv = u;
    for (int k = 0; k < nv; k++) {
        mo_q_rotate(*v + 3 * k, q, M->verts + 3 * (*vid)[k]);
        mo_v3_add(*v + 3 * k, *v + 3 * k, pos);
    }
    for (int t = 0; t < c.n; t++)
        for (int a = 0; a < 3; a++) {
            int i0 = M->tris[3 * c.tri[t] + a], i1 = M->tris[3 * c.tri[t] + (a + 1) % 3];
            const int *p0 = (const int *)bsearch(&i0, *vid, (size_t)nv, sizeof(int), cmp_int);
            const int *p1 = (const int *)bsearch(&i1, *vid, (size_t)nv, sizeof(int), cmp_int);
            int *o = *e + 3 * (*ne)++;
            o[0] = (int)(p0 - *vid);
            o[1] = (int)(p1 - *vid);
            o[2] = 3 * c.tri[t] + a;
        }
    free(c.tri);
    mo_q_rotate(cen, q, M->centroid);
    mo_v3_add(cen, cen, pos);
    return nv;
}

/* appends a surface contact (NULL when out of memory), its warm start from the previous step's
 * list: the same vertex (or the same layer feature on the same triangle) of the same shape on the
 * same mesh, its friction force projected on this step's tangents */
static fem_scontact *sc_push(mo_world *w, fem_ext *fx, const fem_mesh *m, int mi, int tri, const double *bb,
                             const double *bn, int sh, int vertex, uint32_t feat, const double *p, double rad)
{
    if (fx->nsc == fx->sc_cap) {
        int cap = fx->sc_cap ? 2 * fx->sc_cap : 64;
        fem_scontact *ns = (fem_scontact *)realloc(fx->sc, (size_t)cap * sizeof *ns);
        if (!ns) return NULL;
        fx->sc = ns;
        fx->sc_cap = cap;
    }
    const mo_shape *S = &w->shapes[sh];
    const mo_body *B = &w->bodies[S->body];
    fem_scontact *k = &fx->sc[fx->nsc++];
    k->mesh = mi;
    k->tri = tri;
    for (int c = 0; c < 3; c++) k->node[c] = m->tris[3 * tri + c];
    memcpy(k->b, bb, 3 * sizeof(double));
    k->body = S->body;
    k->shape = sh;
    k->vertex = vertex;
    k->feat = feat;
    k->rad = rad;
    mo_v3_copy(k->n, bn);
    mo_v3_basis(k->n, k->t1, k->t2);
    /* the collide stage's rule for every contact: sqrt(mu_a mu_b); the mesh's friction is its nodes' */
    double mf = w->particles[m->node_part[m->tris[3 * tri]]].friction;
    k->mu = sqrt(mf * S->friction);
    double d[3], qc[4];
    mo_v3_sub(d, p, B->k.x);
    mo_q_conj(qc, B->k.q);
    mo_q_rotate(k->r, qc, d);
    k->lam[0] = k->lam[1] = k->lam[2] = 0.0;
    for (int j = 0; j < fx->nsc_prev; j++) {
        const fem_scontact *o = &fx->sc_prev[j];
        if (o->mesh != mi || o->shape != sh || o->vertex != vertex) continue;
        if (vertex < 0 && (o->tri != tri || o->feat != feat)) continue;
        double f[3];
        mo_v3_scale(f, o->t1, o->lam[1]);
        mo_v3_axpy(f, o->lam[2], o->t2);
        k->lam[0] = o->lam[0];
        k->lam[1] = mo_v3_dot(f, k->t1);
        k->lam[2] = mo_v3_dot(f, k->t2);
        break;
    }
    return k;
}

/* whether contacts k0.. (one shape's on one mesh) already have a row at world point p of body slot
 * body (within 1e-4 of the triangle's longest edge lmax, in the body frame) */
static bool sc_dup(const mo_world *w, const fem_ext *fx, int k0, int body, const double *p, double lmax)
{
    double rl[3], qc[4], dp[3];
    mo_v3_sub(dp, p, w->bodies[body].k.x);
    mo_q_conj(qc, w->bodies[body].k.q);
    mo_q_rotate(rl, qc, dp);
    for (int j = k0; j < fx->nsc; j++) {
        double dd[3];
        mo_v3_sub(dd, fx->sc[j].r, rl);
        if (mo_v3_dot(dd, dd) <= 1e-8 * lmax * lmax) return true;
    }
    return false;
}

/* the sink of the collision layer's surface routines: this shape's points on this mesh */
typedef struct surface_sink {
    mo_world *w;
    fem_ext *fx;
    const fem_mesh *m;
    int mi, sh, k0, k1; /* mesh slot, shape slot; the shape's contacts start at k0, its vertex points end at k1 */
} surface_sink;

static int sink_push(void *user, int tri, const double b[3], const double n[3], int vertex, uint32_t feat,
                     const double p[3], double rad)
{
    surface_sink *k = (surface_sink *)user;
    return sc_push(k->w, k->fx, k->m, k->mi, tri, b, n, k->sh, vertex, feat, p, rad) ? 0 : -1;
}

static bool sink_dup(void *user, const double p[3], double lmax)
{
    const surface_sink *k = (const surface_sink *)user;
    return sc_dup(k->w, k->fx, k->k0, k->w->shapes[k->sh].body, p, lmax);
}

static bool sink_has_tri(void *user, int tri)
{
    const surface_sink *k = (const surface_sink *)user;
    for (int j = k->k0; j < k->k1; j++)
        if (k->fx->sc[j].tri == tri) return true;
    return false;
}

/* a box's 12 edges as corner pairs (corners c: bit a set = +he along axis a), in the order of their
 * feature ids */
static void box_edges(int *e)
{
    for (int ed = 0; ed < 12; ed++) { /* corners differing in bit ed / 4 */
        int bit = 1 << (ed >> 2), low = ed & 3;
        int i0 = bit == 1 ? low << 1 : bit == 2 ? (low & 1) | ((low & 2) << 1) : low;
        e[2 * ed] = i0;
        e[2 * ed + 1] = i0 | bit;
    }
}

int mo_fem_collide_surfaces(mo_world *w)
{
    fem_ext *fx = (fem_ext *)w->fem;
    if (!fx) return 0;
    /* this step's list becomes the previous one (warm start) */
    fem_scontact *t = fx->sc_prev;
    int tc = fx->sc_prev_cap;
    fx->sc_prev = fx->sc;
    fx->sc_prev_cap = fx->sc_cap;
    fx->nsc_prev = fx->nsc;
    fx->sc = t;
    fx->sc_cap = tc;
    fx->nsc = 0;
    const fem_world *fw = &fx->base;
    const double margin = w->def.contact_margin;
    /* world vertices of a shape; a triangle mesh's candidate edges and its vertices' indices: the
       FEM world's buffers, grown here and kept for the next step (KEEP stores them back) */
    double *vb = fx->vb;
    int vcap = fx->vcap, *eb = fx->eb, ecap = fx->ecap, *vid = fx->vid, idcap = fx->idcap;
#define KEEP() (fx->vb = vb, fx->vcap = vcap, fx->eb = eb, fx->ecap = ecap, fx->vid = vid, fx->idcap = idcap)
    static const int box_ids[12] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
    int box_pairs[24];
    box_edges(box_pairs);
    for (int mi = 0; mi < fw->count; mi++) {
        const fem_mesh *m = &fw->m[mi];
        if (!m->alive || m->ntris <= 0) continue;
        /* the nodes' positions, one array for the collision layer; the boundary's box, grown by the margin */
        if (m->nnodes > fx->xs_cap) {
            double *nx = (double *)realloc(fx->xs, (size_t)m->nnodes * 3 * sizeof(double));
            if (!nx) { KEEP(); return -1; }
            fx->xs = nx;
            fx->xs_cap = m->nnodes;
        }
        double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
        for (int k = 0; k < m->nnodes; k++) {
            const double *x = w->particles[m->node_part[k]].x;
            mo_v3_copy(fx->xs + 3 * k, x);
            if (!m->on_surface[k]) continue;
            for (int c = 0; c < 3; c++) {
                if (x[c] < lo[c]) lo[c] = x[c];
                if (x[c] > hi[c]) hi[c] = x[c];
            }
        }
        for (int c = 0; c < 3; c++) lo[c] -= margin, hi[c] += margin;
        const mo_cl_surface surf = {fx->xs, m->tris, m->ntris, m->tets, m->ntets};
        for (int sh = 0; sh < w->shape_count; sh++) {
            const mo_shape *S = &w->shapes[sh];
            if (!S->alive || (S->type != MO_SHAPE_BOX && S->type != MO_SHAPE_CONVEX_HULL && S->type != MO_SHAPE_SPHERE &&
                              S->type != MO_SHAPE_CAPSULE && S->type != MO_SHAPE_CYLINDER && S->type != MO_SHAPE_MESH))
                continue;
            /* a link body's surface rows would see it as kinematic (its dofs are the articulation's): it meets FEM
               meshes through their nodes' contacts only (docs/articulations.md) */
            if (w->bodies[S->body].artic) continue;
            const bool is_mesh = S->type == MO_SHAPE_MESH;
            if (is_mesh && !S->mesh) continue;
            if (mo_fem_attached_to(w, mi, S->body)) continue;
            surface_sink sk = {w, fx, m, mi, sh, fx->nsc, fx->nsc};
            const mo_cl_surface_sink sink = {&sk, sink_push, sink_dup, sink_has_tri};
            /* 1. vertices (box and hull corners, sphere and capsule-cap centres, a triangle mesh's vertices) */
            int need = S->type == MO_SHAPE_BOX ? 8 : S->type == MO_SHAPE_CONVEX_HULL ? (S->hull ? S->hull->nverts : 0) : 2;
            if (need > vcap) {
                double *nv = (double *)realloc(vb, (size_t)need * 3 * sizeof(double));
                if (!nv) { KEEP(); return -1; }
                vb = nv;
                vcap = need;
            }
            double rad = 0.0, mcen[3] = {0.0, 0.0, 0.0};
            int nv, nme = 0;
            if (is_mesh) { /* a triangle mesh: the vertices and edges of its triangles near the boundary */
                nv = mesh_candidates(w, sh, lo, hi, &vb, &vcap, &vid, &idcap, &eb, &ecap, &nme, mcen);
                if (nv < 0) { KEEP(); return -1; }
                if (nv == 0) continue;
            } else {
                nv = shape_vertices(w, sh, vb, vcap, &rad);
            }
            if (mo_cl_surface_vertices(&surf, lo, hi, vb, is_mesh ? vid : NULL, nv, rad, margin, &sink)) {
                KEEP();
                return -1;
            }
            sk.k1 = fx->nsc;
            /* 2. boxes, hulls and triangle meshes: their edges across the triangles' prism walls */
            if (S->type == MO_SHAPE_BOX || S->type == MO_SHAPE_CONVEX_HULL || is_mesh) {
                if (nv < 1 || (S->type == MO_SHAPE_CONVEX_HULL && !S->hull)) continue;
                double o_cen[3] = {0.0, 0.0, 0.0};
                if (is_mesh) mo_v3_copy(o_cen, mcen);
                else for (int vi = 0; vi < nv; vi++) mo_v3_axpy(o_cen, 1.0 / nv, vb + 3 * vi);
                int rc;
                if (S->type == MO_SHAPE_BOX) {
                    rc = mo_cl_surface_edges(&surf, vb, nv, box_pairs, box_ids, 12, false, o_cen, margin, &sink);
                } else if (is_mesh) {
                    /* a triangle mesh: the 3 edges of each candidate triangle (an edge two triangles share
                       comes twice and its crossings are kept once) as (vertex, vertex) pairs, ids 3 t + e */
                    if (2 * nme > fx->mpair_cap) {
                        int *np = (int *)realloc(fx->mpair, (size_t)nme * 3 * sizeof(int));
                        if (!np) { KEEP(); return -1; }
                        fx->mpair = np;
                        fx->mpair_cap = 2 * nme;
                    }
                    int *pairs = fx->mpair, *ids = fx->mpair + 2 * nme;
                    for (int ed = 0; ed < nme; ed++) {
                        pairs[2 * ed] = eb[3 * ed];
                        pairs[2 * ed + 1] = eb[3 * ed + 1];
                        ids[ed] = eb[3 * ed + 2];
                    }
                    rc = mo_cl_surface_edges(&surf, vb, nv, pairs, ids, nme, true, o_cen, margin, &sink);
                } else {
                    if (S->hull->nedges > fx->hull_ids_cap) { /* the hull's edges' ids: their index */
                        int *ni = (int *)realloc(fx->hull_ids, (size_t)S->hull->nedges * sizeof(int));
                        if (!ni) { KEEP(); return -1; }
                        for (int e = fx->hull_ids_cap; e < S->hull->nedges; e++) ni[e] = e;
                        fx->hull_ids = ni;
                        fx->hull_ids_cap = S->hull->nedges;
                    }
                    rc = mo_cl_surface_edges(&surf, vb, nv, S->hull->edges, fx->hull_ids, S->hull->nedges, false,
                                             o_cen, margin, &sink);
                }
                if (rc) { KEEP(); return -1; }
                continue;
            }
            /* 3. capsules and cylinders: the collision layer's convex/triangle routine (collide_convex.c,
               one-sided triangles) where they cross a triangle between the vertices above (a capsule's
               side, a cylinder's rim or side), on triangles that hold none of this shape's vertex rows
               (those already carry this contact). (Boxes and hulls through the layer: the points of a
               face resting flat on coplanar triangles changed from step to step, 1 to 4 per triangle,
               and a bar lying across the slab rocked and sank by 1.3 mm; hence 2.) A sphere has its
               centre row on the triangle it projects into and is left to that. */
            if (S->type == MO_SHAPE_SPHERE) continue;
            mo_cl_object o;
            mo_shape_object(w, sh, &o);
            mo_cl_update_aabb(&o, margin);
            if (mo_cl_surface_convex(&surf, lo, hi, &o, margin, &sink)) {
                KEEP();
                return -1;
            }
        }
    }
    KEEP();
    return 0;
#undef KEEP
}

int mo_fem_surface_contacts(const mo_world *w, double *force)
{
    const fem_ext *fx = (const fem_ext *)w->fem;
    if (!fx) {
        if (force) *force = 0.0;
        return 0;
    }
    double f = 0.0;
    for (int i = 0; i < fx->nsc; i++) f += fx->sc[i].lam[0];
    if (force) *force = f;
    return fx->nsc;
}

int mo_fem_surface_edge_contacts(const mo_world *w)
{
    const fem_ext *fx = (const fem_ext *)w->fem;
    int n = 0;
    for (int i = 0; fx && i < fx->nsc; i++) n += fx->sc[i].vertex < 0;
    return n;
}

double mo_fem_surface_min_gap(const mo_world *w)
{
    const fem_ext *fx = (const fem_ext *)w->fem;
    double g = INFINITY;
    for (int i = 0; fx && i < fx->nsc; i++) {
        const fem_scontact *k = &fx->sc[i];
        const fem_mesh *m = &fx->base.m[k->mesh];
        const mo_body *B = &w->bodies[k->body];
        double p[3];
        mo_q_rotate(p, B->k.q, k->r);
        mo_v3_add(p, p, B->k.x);
        double c = mo_v3_dot(k->n, p) - k->rad;
        for (int a = 0; a < 3; a++) c -= k->b[a] * mo_v3_dot(k->n, w->particles[m->node_part[k->node[a]]].x);
        if (c < g) g = c;
    }
    return g;
}

void mo_fem_surface_force(const mo_world *w, int body, double *f)
{
    const fem_ext *fx = (const fem_ext *)w->fem;
    f[0] = f[1] = f[2] = 0.0;
    for (int i = 0; fx && i < fx->nsc; i++) {
        const fem_scontact *k = &fx->sc[i];
        if (k->body != body) continue;
        mo_v3_axpy(f, k->lam[0], k->n);
        mo_v3_axpy(f, k->lam[1], k->t1);
        mo_v3_axpy(f, k->lam[2], k->t2);
    }
}
