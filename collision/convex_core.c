/* convex_core.c: the cores of the convex narrowphase (the design is in
 * collide_convex.c's header comment): the read-only polytope view of boxes,
 * hulls and triangles, cores built from objects and triangles, their support
 * functions, GJK distance and EPA penetration between two cores. No
 * allocation, no mutable state: every routine is reentrant. */
#include "convex_internal.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

#define GJK_ITERS 64

/* ---- polytopes: hulls, boxes and triangles behind one read-only view ---- */

/* box: vertex v = (x > 0) | (y > 0) << 1 | (z > 0) << 2, face 2 * axis + (negative
   side), edge 4 * axis + (axis + 1 positive) + 2 * (axis + 2 positive): box/box's */
static const int k_box_ff[7] = {0, 4, 8, 12, 16, 20, 24};
static const int k_box_fv[24] = {1, 3, 7, 5, 0, 4, 6, 2, 2, 6, 7, 3, 0, 1, 5, 4, 4, 5, 7, 6, 0, 2, 3, 1};
static const int k_box_e[24] = {0, 1, 2, 3, 4, 5, 6, 7, 0, 2, 4, 6, 1, 3, 5, 7, 0, 4, 1, 5, 2, 6, 3, 7};

static void box_poly_init(box_poly *b, const double *he)
{
    for (int v = 0; v < 8; ++v)
        for (int k = 0; k < 3; ++k)
            b->v[3 * v + k] = (v >> k & 1) ? he[k] : -he[k];
    for (int f = 0; f < 6; ++f) {
        int ax = f / 2;
        for (int k = 0; k < 3; ++k)
            b->pl[4 * f + k] = (k == ax) ? ((f & 1) ? -1.0 : 1.0) : 0.0;
        b->pl[4 * f + 3] = he[ax];
    }
    b->p.nv = 8;
    b->p.nf = 6;
    b->p.ne = 12;
    b->p.v = b->v;
    b->p.ff = k_box_ff;
    b->p.fv = k_box_fv;
    b->p.pl = b->pl;
    b->p.e = k_box_e;
    b->p.center[0] = b->p.center[1] = b->p.center[2] = 0.0;
    b->p.size = norm3(he);
}

/* triangle in world coordinates: face 0 the front (v0 v1 v2), face 1 the back */
static const int k_tri_ff[3] = {0, 3, 6};
const int mo_cl_tri_fv[6] = {0, 1, 2, 0, 2, 1};
static const int k_tri_e[6] = {0, 1, 1, 2, 2, 0};

void mo_cl_tri_poly_init(tri_poly *t, const double *tri, const double *nt)
{
    memcpy(t->v, tri, sizeof t->v);
    double d = dot3(nt, tri);
    for (int k = 0; k < 3; ++k) {
        t->pl[k] = nt[k];
        t->pl[4 + k] = -nt[k];
    }
    t->pl[3] = d;
    t->pl[7] = -d;
    t->p.nv = 3;
    t->p.nf = 2;
    t->p.ne = 3;
    t->p.v = t->v;
    t->p.ff = k_tri_ff;
    t->p.fv = mo_cl_tri_fv;
    t->p.pl = t->pl;
    t->p.e = k_tri_e;
    double r2 = 0.0;
    for (int k = 0; k < 3; ++k)
        t->p.center[k] = (tri[k] + tri[3 + k] + tri[6 + k]) / 3.0;
    for (int v = 0; v < 3; ++v) {
        double w[3];
        sub3(tri + 3 * v, t->p.center, w);
        r2 = fmax(r2, dot3(w, w));
    }
    t->p.size = sqrt(r2);
}

static void hull_poly_init(poly *p, const mo_cl_hull *h)
{
    p->nv = h->nverts;
    p->nf = h->nfaces;
    p->ne = h->nedges;
    p->v = h->verts;
    p->ff = h->face_first;
    p->fv = h->face_verts;
    p->pl = h->planes;
    p->e = h->edges;
    copy3(h->center, p->center);
    p->size = h->radius;
    if (!(p->size > 0.0)) {
        double r2 = 0.0;
        for (int v = 0; v < h->nverts; ++v) {
            double w[3];
            sub3(h->verts + 3 * v, h->center, w);
            r2 = fmax(r2, dot3(w, w));
        }
        p->size = sqrt(r2);
    }
}

/* ---- cores ---- */

void mo_cl_cvx_from_object(cvx *s, const mo_cl_object *o, cvx_store *st)
{
    copy3(o->pos, s->c);
    memcpy(s->R, o->rot, sizeof s->R);
    s->hh = 0.0;
    s->rad = 0.0;
    s->r = 0.0;
    s->p = NULL;
    switch (o->type) {
    case MO_CL_SPHERE:
        s->kind = CV_POINT;
        s->r = o->radius;
        s->size = fabs(o->radius);
        break;
    case MO_CL_CAPSULE:
        s->kind = CV_SEGMENT;
        s->hh = o->half_height;
        s->r = o->radius;
        s->size = o->half_height + o->radius;
        break;
    case MO_CL_CYLINDER:
        s->kind = CV_CYLINDER;
        s->hh = o->half_height;
        s->rad = o->radius;
        s->size = sqrt(o->radius * o->radius + o->half_height * o->half_height);
        break;
    case MO_CL_BOX:
        box_poly_init(&st->box, o->he);
        s->kind = CV_POLY;
        s->p = &st->box.p;
        s->size = st->box.p.size;
        break;
    default: /* MO_CL_HULL */
        hull_poly_init(&st->hull, o->hull);
        s->kind = CV_POLY;
        s->p = &st->hull;
        s->size = st->hull.size;
        break;
    }
    if (s->kind == CV_POLY) {
        double w[3];
        mat_vec(s->R, s->p->center, w);
        madd3(s->c, 1.0, w, s->cen);
    } else {
        copy3(s->c, s->cen);
    }
    if (!(s->size > 0.0))
        s->size = 1e-9;
}

void mo_cl_cvx_from_triangle(cvx *s, const tri_poly *t)
{
    static const double I[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    s->kind = CV_POLY;
    s->c[0] = s->c[1] = s->c[2] = 0.0;
    memcpy(s->R, I, sizeof s->R);
    s->hh = s->rad = s->r = 0.0;
    s->p = &t->p;
    copy3(t->p.center, s->cen);
    s->size = t->p.size > 0.0 ? t->p.size : 1e-9;
}

/* index of the polytope vertex furthest along local direction dl (first of ties) */
int mo_cl_poly_support_index(const poly *p, const double *dl)
{
    int best = 0;
    double bd = -HUGE_VAL;
    for (int i = 0; i < p->nv; ++i) {
        double d = dot3(p->v + 3 * i, dl);
        if (d > bd) {
            bd = d;
            best = i;
        }
    }
    return best;
}

/* the core's point furthest along world direction d (any length) */
void mo_cl_support(const cvx *s, const double *d, double *out)
{
    switch (s->kind) {
    case CV_POINT:
        copy3(s->c, out);
        return;
    case CV_SEGMENT: {
        double w[3];
        rot_col(s->R, 2, w);
        madd3(s->c, dot3(d, w) >= 0.0 ? s->hh : -s->hh, w, out);
        return;
    }
    case CV_CYLINDER: {
        double dl[3], pl[3];
        mat_tvec(s->R, d, dl);
        double rho = sqrt(dl[0] * dl[0] + dl[1] * dl[1]);
        if (rho > 1e-300) {
            pl[0] = s->rad * dl[0] / rho;
            pl[1] = s->rad * dl[1] / rho;
        } else {
            pl[0] = pl[1] = 0.0;
        }
        pl[2] = dl[2] >= 0.0 ? s->hh : -s->hh;
        mat_vec(s->R, pl, out);
        madd3(s->c, 1.0, out, out);
        return;
    }
    default: {
        double dl[3];
        mat_tvec(s->R, d, dl);
        int i = mo_cl_poly_support_index(s->p, dl);
        mat_vec(s->R, s->p->v + 3 * i, out);
        madd3(s->c, 1.0, out, out);
        return;
    }
    }
}

/* h(d) = max over the core of d.x */
double mo_cl_support_value(const cvx *s, const double *d)
{
    double x[3];
    mo_cl_support(s, d, x);
    return dot3(d, x);
}

/* ---- GJK distance between cores ---- */

static void support_pair(const cvx *A, const cvx *B, const double *d, sv *out)
{
    double nd[3] = {-d[0], -d[1], -d[2]};
    mo_cl_support(A, d, out->a);
    mo_cl_support(B, nd, out->b);
    sub3(out->a, out->b, out->w);
}

/* closest point to the origin on segment / triangle of simplex points; reduces
   s to the supporting sub-simplex with weights lam; returns its size */
static int closest_segment(sv *s, double *lam)
{
    double ab[3];
    sub3(s[1].w, s[0].w, ab);
    double den = dot3(ab, ab);
    double t = den > 0.0 ? -dot3(s[0].w, ab) / den : 1.0;
    if (t <= 0.0) {
        lam[0] = 1.0;
        return 1;
    }
    if (t >= 1.0) {
        s[0] = s[1];
        lam[0] = 1.0;
        return 1;
    }
    lam[0] = 1.0 - t;
    lam[1] = t;
    return 2;
}

static int closest_triangle(sv *s, double *lam)
{
    const double *a = s[0].w, *b = s[1].w, *c = s[2].w;
    double ab[3], ac[3];
    sub3(b, a, ab);
    sub3(c, a, ac);
    double d1 = -dot3(ab, a), d2 = -dot3(ac, a);
    if (d1 <= 0.0 && d2 <= 0.0) {
        lam[0] = 1.0;
        return 1;
    }
    double d3 = -dot3(ab, b), d4 = -dot3(ac, b);
    if (d3 >= 0.0 && d4 <= d3) {
        s[0] = s[1];
        lam[0] = 1.0;
        return 1;
    }
    double vc = d1 * d4 - d3 * d2;
    if (vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0) {
        double v = d1 / (d1 - d3);
        lam[0] = 1.0 - v;
        lam[1] = v;
        return 2;
    }
    double d5 = -dot3(ab, c), d6 = -dot3(ac, c);
    if (d6 >= 0.0 && d5 <= d6) {
        s[0] = s[2];
        lam[0] = 1.0;
        return 1;
    }
    double vb = d5 * d2 - d1 * d6;
    if (vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0) {
        double w = d2 / (d2 - d6);
        s[1] = s[2];
        lam[0] = 1.0 - w;
        lam[1] = w;
        return 2;
    }
    double va = d3 * d6 - d5 * d4;
    if (va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0) {
        double w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        s[0] = s[1];
        s[1] = s[2];
        lam[0] = 1.0 - w;
        lam[1] = w;
        return 2;
    }
    double sum = va + vb + vc;
    if (!(sum > 0.0)) { /* degenerate (collinear): best edge */
        sv e[2] = {s[0], s[2]};
        double l[2] = {1.0, 0.0};
        int n = closest_segment(e, l);
        s[0] = e[0];
        s[1] = e[1];
        lam[0] = l[0];
        lam[1] = l[1];
        return n;
    }
    lam[1] = vb / sum;
    lam[2] = vc / sum;
    lam[0] = 1.0 - lam[1] - lam[2];
    return 3;
}

static void simplex_point(const sv *s, const double *lam, int n, double *v)
{
    v[0] = v[1] = v[2] = 0.0;
    for (int i = 0; i < n; ++i)
        madd3(v, lam[i], s[i].w, v);
}

static int closest_tetra(sv *s, double *lam)
{
    /* faces (i, j, k) opposite l; origin outside a face when it and l are on
       opposite sides of its plane */
    static const int F[4][4] = {{0, 1, 2, 3}, {0, 2, 3, 1}, {0, 3, 1, 2}, {1, 3, 2, 0}};
    double best = HUGE_VAL;
    sv bs[3];
    double bl[3] = {1.0, 0.0, 0.0};
    int bn = 0, any = 0;
    for (int f = 0; f < 4; ++f) {
        const double *a = s[F[f][0]].w, *b = s[F[f][1]].w, *c = s[F[f][2]].w, *d = s[F[f][3]].w;
        double ab[3], ac[3], nrm[3], ad[3];
        sub3(b, a, ab);
        sub3(c, a, ac);
        cross3(ab, ac, nrm);
        sub3(d, a, ad);
        double sp = -dot3(nrm, a), sd = dot3(nrm, ad);
        if (!(sp * sd < 0.0) && sd != 0.0)
            continue;
        any = 1;
        sv t[3] = {s[F[f][0]], s[F[f][1]], s[F[f][2]]};
        double l[3], v[3];
        int n = closest_triangle(t, l);
        simplex_point(t, l, n, v);
        double dd = dot3(v, v);
        if (dd < best) {
            best = dd;
            bn = n;
            for (int i = 0; i < n; ++i) {
                bs[i] = t[i];
                bl[i] = l[i];
            }
        }
    }
    if (!any)
        return 4; /* origin inside */
    for (int i = 0; i < bn; ++i) {
        s[i] = bs[i];
        lam[i] = bl[i];
    }
    return bn;
}

void mo_cl_gjk(const cvx *A, const cvx *B, gjk_res *res)
{
    sv s[4];
    double lam[4] = {1.0, 0.0, 0.0, 0.0};
    double d[3];
    sub3(B->cen, A->cen, d);
    if (!(dot3(d, d) > 0.0)) {
        d[0] = 1.0;
        d[1] = d[2] = 0.0;
    }
    support_pair(A, B, d, &s[0]);
    int n = 1;
    double v[3];
    copy3(s[0].w, v);
    double scale = A->size + B->size;
    double touch = k_touch_rel * scale;
    res->overlap = 0;
    res->enclosed = 0;
    for (int it = 0; it < GJK_ITERS; ++it) {
        double vv = dot3(v, v);
        if (!(vv > touch * touch)) {
            res->overlap = 1;
            break;
        }
        double dir[3] = {-v[0], -v[1], -v[2]};
        sv w;
        support_pair(A, B, dir, &w);
        if (vv - dot3(v, w.w) <= k_gjk_rel * vv)
            break;
        int dup = 0;
        for (int i = 0; i < n; ++i)
            dup |= w.w[0] == s[i].w[0] && w.w[1] == s[i].w[1] && w.w[2] == s[i].w[2];
        if (dup)
            break;
        s[n++] = w;
        if (n == 2)
            n = closest_segment(s, lam);
        else if (n == 3)
            n = closest_triangle(s, lam);
        else
            n = closest_tetra(s, lam);
        if (n == 4) {
            res->overlap = 1;
            res->enclosed = 1;
            for (int i = 0; i < 4; ++i)
                res->simplex[i] = s[i];
            break;
        }
        double nv[3];
        simplex_point(s, lam, n, nv);
        double nvv = dot3(nv, nv);
        copy3(nv, v);
        if (!(nvv < vv))
            break; /* no progress */
    }
    if (n > 3)
        n = 3;
    res->pa[0] = res->pa[1] = res->pa[2] = 0.0;
    res->pb[0] = res->pb[1] = res->pb[2] = 0.0;
    for (int i = 0; i < n; ++i) {
        madd3(res->pa, lam[i], s[i].a, res->pa);
        madd3(res->pb, lam[i], s[i].b, res->pb);
    }
    res->dist = norm3(v);
    copy3(v, res->v);
    if (!(res->dist > touch))
        res->overlap = 1;
}

/* ---- EPA: penetration of overlapping cores, fixed capacity ---- */

#define EPA_V 128
#define EPA_F 256
#define EPA_E 128
#define EPA_ITERS 100

typedef struct epa_face {
    int v[3];
    double n[3]; /* outward unit normal */
    double d;    /* distance of the origin to the face plane */
    int alive;
} epa_face;

static int epa_face_set(epa_face *f, const sv *V, int a, int b, int c)
{
    double ab[3], ac[3];
    f->v[0] = a;
    f->v[1] = b;
    f->v[2] = c;
    sub3(V[b].w, V[a].w, ab);
    sub3(V[c].w, V[a].w, ac);
    cross3(ab, ac, f->n);
    f->alive = 1;
    if (!normalize3(f->n))
        return 0;
    f->d = dot3(f->n, V[a].w);
    return 1;
}

/* Expanding polytope (van den Bergen) from GJK's tetrahedron around the
   origin in A - B: the face nearest the origin, refined by support points
   until within tolerance. Writes the outward normal n of A - B there (the
   direction b must move: from a to b) and the depth; 0 when it fails
   (degenerate start, capacity). */
int mo_cl_epa(const cvx *A, const cvx *B, const sv *tet, double *n, double *depth)
{
    sv V[EPA_V];
    epa_face F[EPA_F];
    int nv = 4, nf = 0;
    for (int i = 0; i < 4; ++i)
        V[i] = tet[i];
    double c[3] = {0, 0, 0};
    for (int i = 0; i < 4; ++i)
        madd3(c, 0.25, V[i].w, c);
    static const int T[4][3] = {{0, 1, 2}, {0, 3, 1}, {0, 2, 3}, {1, 3, 2}};
    for (int f = 0; f < 4; ++f) {
        int a = T[f][0], b = T[f][1], d = T[f][2];
        double ab[3], ad[3], nn[3], ca[3];
        sub3(V[b].w, V[a].w, ab);
        sub3(V[d].w, V[a].w, ad);
        cross3(ab, ad, nn);
        sub3(V[a].w, c, ca);
        if (dot3(nn, ca) < 0.0) {
            int t = b;
            b = d;
            d = t;
        }
        if (!epa_face_set(&F[nf++], V, a, b, d))
            return 0;
    }
    double scale = A->size + B->size;
    int best = -1;
    for (int it = 0; it < EPA_ITERS; ++it) {
        best = -1;
        for (int f = 0; f < nf; ++f)
            if (F[f].alive && (best < 0 || F[f].d < F[best].d))
                best = f;
        if (best < 0)
            return 0;
        sv w;
        support_pair(A, B, F[best].n, &w);
        double dw = dot3(F[best].n, w.w);
        if (dw - F[best].d <= 1e-12 * scale + 1e-9 * fabs(F[best].d))
            break;
        if (nv >= EPA_V || nf > EPA_F - EPA_E)
            break; /* full: the nearest face so far */
        /* faces seen from w go; their boundary (edges used once) is the horizon */
        int E[EPA_E][2], ne = 0, overflow = 0;
        for (int f = 0; f < nf; ++f) {
            if (!F[f].alive)
                continue;
            double q[3];
            sub3(w.w, V[F[f].v[0]].w, q);
            if (!(dot3(F[f].n, q) > 1e-14 * scale))
                continue;
            F[f].alive = 0;
            for (int e = 0; e < 3; ++e) {
                int a = F[f].v[e], b = F[f].v[(e + 1) % 3], found = -1;
                for (int k = 0; k < ne && found < 0; ++k)
                    if (E[k][0] == b && E[k][1] == a)
                        found = k;
                if (found >= 0) {
                    E[found][0] = E[ne - 1][0];
                    E[found][1] = E[ne - 1][1];
                    --ne;
                } else if (ne < EPA_E) {
                    E[ne][0] = a;
                    E[ne][1] = b;
                    ++ne;
                } else {
                    overflow = 1;
                }
            }
        }
        if (overflow || ne < 3)
            return 0;
        /* compact dead faces, then add the cone from w */
        int m = 0;
        for (int f = 0; f < nf; ++f)
            if (F[f].alive)
                F[m++] = F[f];
        nf = m;
        if (nf + ne > EPA_F)
            return 0;
        V[nv] = w;
        for (int k = 0; k < ne; ++k)
            if (!epa_face_set(&F[nf++], V, E[k][0], E[k][1], nv))
                F[nf - 1].alive = 0;
        ++nv;
    }
    best = -1;
    for (int f = 0; f < nf; ++f)
        if (F[f].alive && (best < 0 || F[f].d < F[best].d))
            best = f;
    if (best < 0 || !(F[best].d >= -1e-12 * scale))
        return 0;
    copy3(F[best].n, n);
    *depth = F[best].d;
    return 1;
}
