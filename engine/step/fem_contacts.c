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
#include "collision/collide_internal.h" /* mo_cl_collide_triangle */

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

/* whether world point p lies in a tetrahedron of mesh m at the nodes' current positions */
static bool point_in_mesh(const mo_world *w, const fem_mesh *m, const double *p)
{
    for (int t = 0; t < m->ntets; t++) {
        const double *x[4];
        for (int a = 0; a < 4; a++) x[a] = w->particles[m->node_part[m->tets[4 * t + a]]].x;
        /* p is inside when replacing any vertex by p keeps every sub-volume >= 0 */
        bool in = true;
        for (int a = 0; a < 4 && in; a++) {
            const double *y[4] = {x[0], x[1], x[2], x[3]};
            y[a] = p;
            double e1[3], e2[3], e3[3], c[3];
            mo_v3_sub(e1, y[1], y[0]);
            mo_v3_sub(e2, y[2], y[0]);
            mo_v3_sub(e3, y[3], y[0]);
            mo_v3_cross(c, e2, e3);
            in = mo_v3_dot(e1, c) >= 0.0;
        }
        if (in) return true;
    }
    return false;
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

/* the barycentric weights of p's projection on triangle tr along its normal, its outward unit
 * normal and its longest edge; false for a degenerate triangle or a projection outside it (a
 * weight below -tol, the weights then clamped: a vertex on an edge or a vertex may have a weight
 * -1e-17 by rounding, tol 1e-9; the collision layer clips a feature against the triangle's side
 * planes grown by its slop, 5e-5 of a quarter of the perimeter, tol 1e-3) */
static bool tri_project(const mo_world *w, const fem_mesh *m, int tr, const double *v, double tol, double *d_out,
                        double *bb, double *bn, double *lmax)
{
    const double *a = w->particles[m->node_part[m->tris[3 * tr]]].x;
    const double *b = w->particles[m->node_part[m->tris[3 * tr + 1]]].x;
    const double *c = w->particles[m->node_part[m->tris[3 * tr + 2]]].x;
    double e1[3], e2[3], e3[3], nrm[3], av[3];
    mo_v3_sub(e1, b, a);
    mo_v3_sub(e2, c, a);
    mo_v3_sub(e3, c, b);
    mo_v3_cross(nrm, e1, e2);
    double a2 = mo_v3_dot(nrm, nrm);
    if (!(a2 > 0.0)) return false;
    mo_v3_sub(av, v, a);
    *d_out = mo_v3_dot(av, nrm) / sqrt(a2);
    *lmax = sqrt(fmax(mo_v3_dot(e1, e1), fmax(mo_v3_dot(e2, e2), mo_v3_dot(e3, e3))));
    double cr[3], w1, w2;
    mo_v3_cross(cr, av, e2);
    w1 = mo_v3_dot(cr, nrm) / a2;
    mo_v3_cross(cr, e1, av);
    w2 = mo_v3_dot(cr, nrm) / a2;
    double w0 = 1.0 - w1 - w2;
    if (w0 < -tol || w1 < -tol || w2 < -tol) return false;
    w0 = fmax(w0, 0.0), w1 = fmax(w1, 0.0), w2 = fmax(w2, 0.0);
    double ws = w0 + w1 + w2;
    bb[0] = w0 / ws, bb[1] = w1 / ws, bb[2] = w2 / ws;
    mo_v3_scale(bn, nrm, 1.0 / sqrt(a2));
    return true;
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
    for (int mi = 0; mi < fw->count; mi++) {
        const fem_mesh *m = &fw->m[mi];
        if (!m->alive || m->ntris <= 0) continue;
        /* the boundary's box, grown by the margin */
        double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
        for (int k = 0; k < m->nnodes; k++) {
            if (!m->on_surface[k]) continue;
            const double *x = w->particles[m->node_part[k]].x;
            for (int c = 0; c < 3; c++) {
                if (x[c] < lo[c]) lo[c] = x[c];
                if (x[c] > hi[c]) hi[c] = x[c];
            }
        }
        for (int c = 0; c < 3; c++) lo[c] -= margin, hi[c] += margin;
        for (int sh = 0; sh < w->shape_count; sh++) {
            const mo_shape *S = &w->shapes[sh];
            if (!S->alive || (S->type != MO_SHAPE_BOX && S->type != MO_SHAPE_CONVEX_HULL && S->type != MO_SHAPE_SPHERE &&
                              S->type != MO_SHAPE_CAPSULE && S->type != MO_SHAPE_CYLINDER && S->type != MO_SHAPE_MESH))
                continue;
            const bool is_mesh = S->type == MO_SHAPE_MESH;
            if (is_mesh && !S->mesh) continue;
            if (mo_fem_attached_to(w, mi, S->body)) continue;
            const int k0 = fx->nsc; /* this shape's contacts on this mesh start here */
            /* 1. vertices (box and hull corners, sphere and capsule-cap centres) */
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
            for (int vi = 0; vi < nv; vi++) {
                const double *v = vb + 3 * vi;
                if (v[0] < lo[0] - rad || v[1] < lo[1] - rad || v[2] < lo[2] - rad || v[0] > hi[0] + rad ||
                    v[1] > hi[1] + rad || v[2] > hi[2] + rad)
                    continue;
                /* inside the mesh (in one of its tetrahedra) or not: a vertex inside is pushed out through
                   the nearest boundary triangle it projects into (at most that triangle's longest edge deep),
                   one outside only meets a triangle it is at most the margin above */
                const bool inside = point_in_mesh(w, m, v);
                int best = -1;
                double bd = INFINITY, bn[3] = {0, 0, 0}, bb[3] = {0, 0, 0};
                for (int tr = 0; tr < m->ntris; tr++) {
                    double d, lmax, tb[3], tn[3];
                    if (!tri_project(w, m, tr, v, 1e-9, &d, tb, tn, &lmax)) continue;
                    if (inside ? (d > 0.0 || d < -lmax) : (d < 0.0 || d - rad > margin)) continue;
                    if (fabs(d) >= fabs(bd)) continue;
                    best = tr;
                    bd = d;
                    mo_v3_copy(bn, tn);
                    mo_v3_copy(bb, tb);
                }
                if (best < 0) continue;
                if (!sc_push(w, fx, m, mi, best, bb, bn, sh, is_mesh ? vid[vi] : vi, 0u, v, rad)) {
                    KEEP();
                    return -1;
                }
            }
            /* 2. boxes and hulls: their edges where they cross the walls of a triangle's prism (the
               planes through its edges along its normal). A convex polytope's lowest point along -n over
               a triangle is a vertex of the polytope (1.), a node of the triangle (the node's particle
               contact) or such a crossing, so with these the three kinds cover it. Points are taken
               within the margin above (at most the longest edge below) the triangle; a crossing on an
               edge shared by two triangles is kept once (below). */
            if (S->type == MO_SHAPE_BOX || S->type == MO_SHAPE_CONVEX_HULL || is_mesh) {
                if (nv < 1 || (S->type == MO_SHAPE_CONVEX_HULL && !S->hull)) continue;
                /* a triangle mesh: the 3 edges of each candidate triangle (an edge two triangles share
                   comes twice and its crossings are kept once, below) */
                int ne = S->type == MO_SHAPE_BOX ? 12 : is_mesh ? nme : S->hull->nedges;
                double o_cen[3] = {0.0, 0.0, 0.0};
                if (is_mesh) mo_v3_copy(o_cen, mcen);
                else for (int vi = 0; vi < nv; vi++) mo_v3_axpy(o_cen, 1.0 / nv, vb + 3 * vi);
                double slo[3] = {INFINITY, INFINITY, INFINITY}, shi[3] = {-INFINITY, -INFINITY, -INFINITY};
                for (int vi = 0; vi < nv; vi++)
                    for (int c = 0; c < 3; c++) {
                        slo[c] = fmin(slo[c], vb[3 * vi + c] - margin);
                        shi[c] = fmax(shi[c], vb[3 * vi + c] + margin);
                    }
                for (int tr = 0; tr < m->ntris; tr++) {
                    const double *x[3];
                    bool apart = false;
                    for (int a = 0; a < 3; a++) x[a] = w->particles[m->node_part[m->tris[3 * tr + a]]].x;
                    for (int c = 0; c < 3 && !apart; c++)
                        apart = fmax(x[0][c], fmax(x[1][c], x[2][c])) < slo[c] || fmin(x[0][c], fmin(x[1][c], x[2][c])) > shi[c];
                    if (apart) continue;
                    double e1[3], e2[3], tn[3];
                    mo_v3_sub(e1, x[1], x[0]);
                    mo_v3_sub(e2, x[2], x[0]);
                    mo_v3_cross(tn, e1, e2);
                    double tl = mo_v3_norm(tn);
                    if (!(tl > 0.0)) continue;
                    mo_v3_scale(tn, tn, 1.0 / tl);
                    /* one-sided, as the layer's triangles: the shape's centre in front of the triangle */
                    double dc[3];
                    mo_v3_sub(dc, o_cen, x[0]);
                    if (mo_v3_dot(dc, tn) < 0.0) continue;
                    for (int ed = 0; ed < ne; ed++) {
                        int i0, i1;
                        if (S->type == MO_SHAPE_BOX) { /* corners differing in bit ed / 4 */
                            int bit = 1 << (ed >> 2), low = ed & 3;
                            i0 = bit == 1 ? low << 1 : bit == 2 ? (low & 1) | ((low & 2) << 1) : low;
                            i1 = i0 | bit;
                        } else if (is_mesh) {
                            i0 = eb[3 * ed];
                            i1 = eb[3 * ed + 1];
                            bool near = true; /* the edge's box against the triangle's, grown by the margin */
                            for (int c = 0; c < 3 && near; c++) {
                                double elo = fmin(vb[3 * i0 + c], vb[3 * i1 + c]) - margin;
                                double ehi = fmax(vb[3 * i0 + c], vb[3 * i1 + c]) + margin;
                                near = fmax(x[0][c], fmax(x[1][c], x[2][c])) >= elo && fmin(x[0][c], fmin(x[1][c], x[2][c])) <= ehi;
                            }
                            if (!near) continue;
                        } else {
                            i0 = S->hull->edges[2 * ed];
                            i1 = S->hull->edges[2 * ed + 1];
                        }
                        const double *p0 = vb + 3 * i0, *p1 = vb + 3 * i1;
                        for (int side = 0; side < 3; side++) {
                            /* wall through x[side] -> x[side + 1], containing tn: normal (x1 - x0) x tn */
                            double ee[3], wn[3], d0[3], d1[3];
                            mo_v3_sub(ee, x[(side + 1) % 3], x[side]);
                            mo_v3_cross(wn, ee, tn);
                            mo_v3_sub(d0, p0, x[side]);
                            mo_v3_sub(d1, p1, x[side]);
                            double s0 = mo_v3_dot(d0, wn), s1 = mo_v3_dot(d1, wn), pe[3];
                            mo_v3_sub(pe, p1, p0);
                            /* a crossing, not an edge lying in the wall (a bar's bottom edge in the wall
                               through a side triangle's top edge gave points anywhere along it) */
                            if ((s0 > 0.0) == (s1 > 0.0) || !(fabs(s0 - s1) > 1e-6 * mo_v3_norm(wn) * mo_v3_norm(pe)))
                                continue;
                            double u = s0 / (s0 - s1), q[3];
                            for (int c = 0; c < 3; c++) q[c] = p0[c] + u * pe[c];
                            double d, lmax, tb[3], bn[3];
                            if (!tri_project(w, m, tr, q, 1e-9, &d, tb, bn, &lmax)) continue;
                            if (d > margin || d < -lmax) continue;
                            if (sc_dup(w, fx, k0, S->body, q, lmax)) continue;
                            uint32_t feat = (uint32_t)(3 * (is_mesh ? eb[3 * ed + 2] : ed) + side);
                            if (!sc_push(w, fx, m, mi, tr, tb, bn, sh, -1, feat, q, 0.0)) {
                                KEEP();
                                return -1;
                            }
                        }
                    }
                }
                continue;
            }
            /* 3. capsules and cylinders: the collision layer's convex/triangle routine (collide_convex.c,
               one-sided triangles) where they cross a triangle between the vertices above (a capsule's
               side, a cylinder's rim or side), on triangles that hold none of this shape's vertex rows
               (those already carry this contact), only points that project into their triangle, each a
               row of the form above on the triangle's normal. (Boxes and hulls through the layer: the
               points of a face resting flat on coplanar triangles changed from step to step, 1 to 4 per
               triangle, and a bar lying across the slab rocked and sank by 1.3 mm; hence 2.) A sphere has
               its centre row on the triangle it projects into and is left to that. */
            if (S->type == MO_SHAPE_SPHERE) continue;
            mo_cl_object o;
            mo_shape_object(w, sh, &o);
            mo_cl_update_aabb(&o, margin);
            if (o.aabb_max[0] < lo[0] || o.aabb_max[1] < lo[1] || o.aabb_max[2] < lo[2] || o.aabb_min[0] > hi[0] ||
                o.aabb_min[1] > hi[1] || o.aabb_min[2] > hi[2])
                continue;
            const int k1 = fx->nsc;
            for (int tr = 0; tr < m->ntris; tr++) {
                double tw[9];
                bool apart = false;
                for (int a = 0; a < 3; a++) mo_v3_copy(tw + 3 * a, w->particles[m->node_part[m->tris[3 * tr + a]]].x);
                for (int c = 0; c < 3 && !apart; c++) {
                    double tl = fmin(tw[c], fmin(tw[3 + c], tw[6 + c])), th = fmax(tw[c], fmax(tw[3 + c], tw[6 + c]));
                    apart = th < o.aabb_min[c] || tl > o.aabb_max[c];
                }
                if (apart) continue;
                bool has_vertex = false;
                for (int j = k0; j < k1 && !has_vertex; j++) has_vertex = fx->sc[j].tri == tr;
                if (has_vertex) continue;
                mo_cl_contact out[MO_CL_MAX_POINTS];
                int nc = mo_cl_collide_triangle(tw, &o, margin, 0, out);
                for (int i = 0; i < nc; i++) {
                    /* the shape's point: point_b on its surface; for a capsule its core point on the axis
                       (carried exactly by the body while it rolls) with the radius */
                    double p[3], r = 0.0;
                    mo_v3_copy(p, out[i].point_b);
                    /* a cylinder's side (the layer's normal within sin = 0.05 of across its axis, the
                       rotation's third column, the layer's own tolerance for a side line): the point r
                       inside along the normal, near the axis, with the radius (taken as a material point of
                       the surface, a cylinder lying across the slab started rolling: 2.6 rad/s after
                       1.5 s) */
                    double ax[3] = {o.rot[2], o.rot[5], o.rot[8]};
                    if (S->type == MO_SHAPE_CAPSULE ||
                        (S->type == MO_SHAPE_CYLINDER && fabs(mo_v3_dot(ax, out[i].normal)) < 0.05)) {
                        r = S->radius + (o.margin > 0.0 ? o.margin : 0.0);
                        mo_v3_axpy(p, r, out[i].normal);
                    }
                    double d, lmax, tb[3], tn[3];
                    if (!tri_project(w, m, tr, p, 1e-3, &d, tb, tn, &lmax)) continue;
                    if (d - r > margin || d < -lmax) continue;
                    /* a point this shape already has a row for (a cap centre on a neighbouring triangle,
                       or the same point of the layer on the triangle across a shared edge: the layer's
                       clipping grows a triangle by its slop) would be a second, identical row, and the
                       Schur system singular along their difference */
                    if (sc_dup(w, fx, k0, S->body, p, lmax)) continue;
                    if (!sc_push(w, fx, m, mi, tr, tb, tn, sh, -1, out[i].feature, p, r)) {
                        KEEP();
                        return -1;
                    }
                }
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
