/* convex_manifold.c: contact manifolds of the convex narrowphase (the design
 * is in collide_convex.c's header comment): the support feature of a core
 * along a normal (face polygon, cylinder cap, edge, segment or point), a
 * feature clipped against a reference polygon, two nearly parallel segments,
 * and the manifold of a pair of cores along a normal with its one-contact
 * fallback. No allocation, no mutable state: every routine is reentrant. */
#include "convex_internal.h"

#include <math.h>
#include <stddef.h>

/* ---- support features ---- */

/* face f of a polytope core (more than FEAT_CAP vertices: evenly subsampled) */
void mo_cl_poly_face_feature(const cvx *s, int f, feature *F)
{
    const poly *p = s->p;
    int first = p->ff[f], cnt = p->ff[f + 1] - first;
    int n = cnt < FEAT_CAP ? cnt : FEAT_CAP;
    for (int i = 0; i < n; ++i) {
        int j = (cnt <= FEAT_CAP) ? i : (int)((long long)i * cnt / FEAT_CAP);
        poly_vertex(s, p->fv[first + j], F->p[i]);
        F->lab[i] = j & 15;
    }
    F->n = n;
    mat_vec(s->R, p->pl + 4 * f, F->nrm);
    F->code = fcode(FK_FACE, f);
    F->exact = 1;
}

/* fixed rim directions of a cylinder cap: angle k * 45 deg in the local xy plane */
static const double k_rim[8][2] = {{1, 0},
                                   {0.70710678118654752, 0.70710678118654752},
                                   {0, 1},
                                   {-0.70710678118654752, 0.70710678118654752},
                                   {-1, 0},
                                   {-0.70710678118654752, -0.70710678118654752},
                                   {0, -1},
                                   {0.70710678118654752, -0.70710678118654752}};

/* cap polygon of a cylinder, cap side sg (+1: +z), counter-clockwise seen from
   outside; dl: local feature direction, its deepest rim point inserted when the
   direction is tilted off the axis by more than k_tilt */
static void cylinder_cap_feature(const cvx *s, double sg, const double *dl, feature *F)
{
    double pts[9][2];
    int labs[9], m = 0;
    double rho = sqrt(dl[0] * dl[0] + dl[1] * dl[1]);
    double len = norm3(dl);
    double rx = 0.0, ry = 0.0;
    int ins_after = -1;
    if (rho > k_tilt * len) {
        rx = dl[0] / rho;
        ry = dl[1] / rho;
        int jb = 0;
        double bd = -2.0;
        for (int j = 0; j < 8; ++j) {
            double dj = k_rim[j][0] * rx + k_rim[j][1] * ry;
            if (dj > bd) {
                bd = dj;
                jb = j;
            }
        }
        if (bd < 1.0 - 5e-7) {
            double cr = k_rim[jb][0] * ry - k_rim[jb][1] * rx; /* > 0: after jb */
            ins_after = cr > 0.0 ? jb : (jb + 7) % 8;
        }
    }
    for (int j = 0; j < 8; ++j) {
        pts[m][0] = k_rim[j][0];
        pts[m][1] = k_rim[j][1];
        labs[m++] = j;
        if (j == ins_after) {
            pts[m][0] = rx;
            pts[m][1] = ry;
            labs[m++] = 8 + j;
        }
    }
    for (int i = 0; i < m; ++i) {
        int j = sg > 0.0 ? i : m - 1 - i; /* -z cap: clockwise in local xy */
        double pl[3] = {s->rad * pts[j][0], s->rad * pts[j][1], sg * s->hh};
        mat_vec(s->R, pl, F->p[i]);
        madd3(s->c, 1.0, F->p[i], F->p[i]);
        F->lab[i] = labs[j];
    }
    F->n = m;
    double w[3];
    rot_col(s->R, 2, w);
    for (int k = 0; k < 3; ++k)
        F->nrm[k] = sg * w[k];
    F->code = fcode(FK_FACE, sg > 0.0);
    F->exact = 0; /* inscribed in the disk: a grown side would leave it */
}

/* the support feature of a core along unit direction d */
static void get_feature(const cvx *s, const double *d, feature *F)
{
    const double feat_cos = sqrt(1.0 - k_feat_sin * k_feat_sin);
    switch (s->kind) {
    case CV_POINT:
        F->n = 1;
        copy3(s->c, F->p[0]);
        F->lab[0] = 0;
        F->code = fcode(FK_VERTEX, 0);
        return;
    case CV_SEGMENT: {
        double w[3];
        rot_col(s->R, 2, w);
        double k = dot3(d, w);
        if (s->hh > 0.0 && fabs(k) <= k_feat_sin) {
            F->n = 2;
            madd3(s->c, -s->hh, w, F->p[0]);
            madd3(s->c, s->hh, w, F->p[1]);
            F->lab[0] = 0;
            F->lab[1] = 1;
            F->code = fcode(FK_EDGE, 0);
        } else {
            F->n = 1;
            madd3(s->c, k >= 0.0 ? s->hh : -s->hh, w, F->p[0]);
            F->lab[0] = k >= 0.0;
            F->code = fcode(FK_VERTEX, k >= 0.0);
        }
        return;
    }
    case CV_CYLINDER: {
        double dl[3];
        mat_tvec(s->R, d, dl);
        double rho = sqrt(dl[0] * dl[0] + dl[1] * dl[1]);
        if (fabs(dl[2]) >= feat_cos || !(rho > 0.0)) {
            cylinder_cap_feature(s, dl[2] >= 0.0 ? 1.0 : -1.0, dl, F);
            return;
        }
        double rl[3] = {s->rad * dl[0] / rho, s->rad * dl[1] / rho, 0.0};
        if (fabs(dl[2]) <= k_feat_sin) {
            for (int e = 0; e < 2; ++e) {
                double pl[3] = {rl[0], rl[1], e ? s->hh : -s->hh};
                mat_vec(s->R, pl, F->p[e]);
                madd3(s->c, 1.0, F->p[e], F->p[e]);
                F->lab[e] = e;
            }
            F->n = 2;
            F->code = fcode(FK_CURVED, 0);
        } else {
            double pl[3] = {rl[0], rl[1], dl[2] >= 0.0 ? s->hh : -s->hh};
            mat_vec(s->R, pl, F->p[0]);
            madd3(s->c, 1.0, F->p[0], F->p[0]);
            F->lab[0] = 0;
            F->n = 1;
            F->code = fcode(FK_CURVED, 1 + (dl[2] >= 0.0));
        }
        return;
    }
    default: {
        const poly *p = s->p;
        double dl[3];
        mat_tvec(s->R, d, dl);
        int fb = 0;
        double bd = -HUGE_VAL;
        for (int f = 0; f < p->nf; ++f) {
            double c = dot3(p->pl + 4 * f, dl);
            if (c > bd) {
                bd = c;
                fb = f;
            }
        }
        if (bd >= feat_cos) {
            mo_cl_poly_face_feature(s, fb, F);
            return;
        }
        int v = mo_cl_poly_support_index(p, dl);
        int eb = -1, ub = -1;
        double best = k_feat_sin;
        for (int e = 0; e < p->ne; ++e) {
            int i0 = p->e[2 * e], i1 = p->e[2 * e + 1];
            if (i0 != v && i1 != v)
                continue;
            int u = i0 == v ? i1 : i0;
            double ev[3];
            sub3(p->v + 3 * u, p->v + 3 * v, ev);
            double l = norm3(ev);
            if (!(l > 0.0))
                continue;
            double c = fabs(dot3(ev, dl)) / l;
            if (c <= best) {
                best = c;
                eb = e;
                ub = u;
            }
        }
        if (eb >= 0) {
            int lo = v < ub ? v : ub, hi = v < ub ? ub : v;
            poly_vertex(s, lo, F->p[0]);
            poly_vertex(s, hi, F->p[1]);
            F->lab[0] = 0;
            F->lab[1] = 1;
            F->n = 2;
            F->code = fcode(FK_EDGE, eb);
            return;
        }
        F->n = 1;
        poly_vertex(s, v, F->p[0]);
        F->lab[0] = 0;
        F->code = fcode(FK_VERTEX, v);
        return;
    }
    }
}

/* ---- clipping a feature against a reference polygon ---- */

/* Sutherland-Hodgman against sx x + sy y <= off. A point created where the
   polygon leaves the half-plane starts an edge along the clip line (label); one
   created where it re-enters continues the crossed edge's label (box/box's) */
static int clip_half(const mo_cl_clip_pt *in, int n, double sx, double sy, double off, int label,
                     mo_cl_clip_pt *out)
{
    int m = 0;
    for (int i = 0; i < n; ++i) {
        const mo_cl_clip_pt *p = &in[i];
        const mo_cl_clip_pt *q = (i + 1 < n) ? &in[i + 1] : &in[0];
        double fp = sx * p->x + sy * p->y - off;
        double fq = sx * q->x + sy * q->y - off;
        if (fp <= 0.0) {
            if (m < MO_CL_CLIP_CAP)
                out[m++] = *p;
            if (fq > 0.0 && m < MO_CL_CLIP_CAP) {
                double t = fp / (fp - fq);
                mo_cl_clip_pt r = {p->x + t * (q->x - p->x), p->y + t * (q->y - p->y),
                                   p->z + t * (q->z - p->z), label};
                out[m++] = r;
            }
        } else if (fq <= 0.0 && m < MO_CL_CLIP_CAP) {
            double t = fp / (fp - fq);
            mo_cl_clip_pt r = {p->x + t * (q->x - p->x), p->y + t * (q->y - p->y), p->z + t * (q->z - p->z),
                               p->label};
            out[m++] = r;
        }
    }
    return m;
}

/* Contacts of feature inc clipped against the reference polygon ref (a face of
   a when ref_is_b = 0). n: contact normal from a to b; ra, rb: rounding radii;
   cut: keep gap < cut. The incident points lie on their core; each gap is the
   distance from the reference plane along n. */
int mo_cl_clip_features(const feature *ref, const feature *inc, int ref_is_b, const double *n, double ra,
                        double rb, double cut, mo_cl_contact *out)
{
    const double *nf = ref->nrm;
    const double *o = ref->p[0];
    double u[3], v[3];
    sub3(ref->p[1], o, u);
    madd3(u, -dot3(u, nf), nf, u);
    if (!normalize3(u))
        any_perp(nf, u);
    cross3(nf, u, v);
    double cosn = (ref_is_b ? -1.0 : 1.0) * dot3(nf, n);
    if (!(cosn > 0.1))
        return 0;

    /* side lines of the reference polygon, outward, grown by the slop */
    int nr = ref->n;
    double rx[FEAT_CAP], ry[FEAT_CAP], perim = 0.0;
    for (int i = 0; i < nr; ++i) {
        double w[3];
        sub3(ref->p[i], o, w);
        rx[i] = dot3(w, u);
        ry[i] = dot3(w, v);
    }
    double sx[FEAT_CAP], sy[FEAT_CAP], so[FEAT_CAP];
    int ns = 0;
    for (int i = 0; i < nr; ++i) {
        int j = (i + 1 < nr) ? i + 1 : 0;
        double ex = rx[j] - rx[i], ey = ry[j] - ry[i];
        double l = sqrt(ex * ex + ey * ey);
        perim += l;
        if (!(l > 0.0))
            continue;
        sx[ns] = ey / l;
        sy[ns] = -ex / l;
        so[ns] = sx[ns] * rx[i] + sy[ns] * ry[i];
        ++ns;
    }
    double slop = ref->exact ? k_slop_rel * perim * 0.25 : 0.0;

    /* incident feature in reference coordinates */
    mo_cl_clip_pt A[MO_CL_CLIP_CAP], B[MO_CL_CLIP_CAP];
    int lab_pair[MO_CL_CLIP_CAP][2];
    int m = inc->n;
    for (int i = 0; i < m; ++i) {
        double w[3];
        sub3(inc->p[i], o, w);
        A[i].x = dot3(w, u);
        A[i].y = dot3(w, v);
        A[i].z = dot3(w, nf);
        A[i].label = inc->lab[i] & 15;
    }
    mo_cl_clip_pt *P = A;
    if (m >= 3) {
        mo_cl_clip_pt *Q = B;
        for (int i = 0; i < ns && m > 0; ++i) {
            m = clip_half(P, m, sx[i], sy[i], so[i] + slop, 16 + (i & 15), Q);
            mo_cl_clip_pt *t = P;
            P = Q;
            Q = t;
        }
        for (int i = 0; i < m; ++i) {
            lab_pair[i][0] = P[(i > 0) ? i - 1 : m - 1].label;
            lab_pair[i][1] = P[i].label;
        }
    } else if (m == 2) {
        /* segment: parameter range [t0, t1] */
        double t0 = 0.0, t1 = 1.0;
        int c0 = -1, c1 = -1;
        for (int i = 0; i < ns; ++i) {
            double f0 = sx[i] * A[0].x + sy[i] * A[0].y - so[i] - slop;
            double f1 = sx[i] * A[1].x + sy[i] * A[1].y - so[i] - slop;
            if (f0 > 0.0 && f1 > 0.0) {
                t0 = 1.0;
                t1 = 0.0;
                break;
            }
            if (f0 > 0.0) {
                double t = f0 / (f0 - f1);
                if (t > t0) {
                    t0 = t;
                    c0 = i;
                }
            } else if (f1 > 0.0) {
                double t = f0 / (f0 - f1);
                if (t < t1) {
                    t1 = t;
                    c1 = i;
                }
            }
        }
        if (!(t0 <= t1)) {
            m = 0;
        } else {
            mo_cl_clip_pt e0 = A[0], e1 = A[1];
            double ts[2] = {t0, t1};
            int cs[2] = {c0, c1};
            m = (t1 - t0 > 1e-12) ? 2 : 1;
            for (int k = 0; k < m; ++k) {
                double t = ts[k];
                B[k].x = e0.x + t * (e1.x - e0.x);
                B[k].y = e0.y + t * (e1.y - e0.y);
                B[k].z = e0.z + t * (e1.z - e0.z);
                lab_pair[k][0] = inc->lab[k] & 15;
                lab_pair[k][1] = cs[k] >= 0 ? 16 + (cs[k] & 15) : (inc->lab[k] & 15);
            }
            P = B;
        }
    } else {
        /* one point: kept when inside the reference polygon */
        for (int i = 0; i < ns; ++i)
            if (sx[i] * A[0].x + sy[i] * A[0].y > so[i] + slop)
                m = 0;
        lab_pair[0][0] = lab_pair[0][1] = inc->lab[0] & 15;
    }

    /* gaps along n; keep those under the cut */
    uint32_t base = (uint32_t)(ref_is_b != 0) << 30 | (ref->code & 0x3FFu) << 20 | fcode10(inc->code) << 10;
    mo_cl_clip_pt keep[MO_CL_CLIP_CAP];
    double zr[MO_CL_CLIP_CAP];
    uint32_t ids[MO_CL_CLIP_CAP];
    int nk = 0;
    for (int i = 0; i < m; ++i) {
        double gap = P[i].z / cosn - ra - rb;
        if (!(gap < cut))
            continue;
        int l0 = lab_pair[i][0], l1 = lab_pair[i][1];
        if (l0 > l1) {
            int t = l0;
            l0 = l1;
            l1 = t;
        }
        keep[nk] = P[i];
        keep[nk].z = gap;
        zr[nk] = P[i].z;
        ids[nk] = base | (uint32_t)(l0 << 5 | l1);
        ++nk;
    }
    int sel[4] = {0, 1, 2, 3};
    if (nk > MO_CL_MAX_POINTS) {
        mo_cl_reduce_points(keep, ids, nk, slop, sel);
        nk = MO_CL_MAX_POINTS;
    }
    for (int i = 0; i < nk; ++i) {
        const mo_cl_clip_pt *c = &keep[sel[i]];
        double x[3], pa[3];
        for (int k = 0; k < 3; ++k)
            x[k] = o[k] + c->x * u[k] + c->y * v[k] + zr[sel[i]] * nf[k];
        if (ref_is_b) {
            madd3(x, ra, n, pa); /* x on a's core */
        } else {
            madd3(x, -rb, n, pa); /* x on b's core: point_b, then back by the gap */
            madd3(pa, -c->z, n, pa);
        }
        mo_cl_set_contact(&out[i], n, pa, c->z, ids[sel[i]]);
    }
    return nk;
}

/* two nearly parallel segment features: the two ends of their overlap */
static int segment_pair(const feature *FA, const feature *FB, const double *n, double ra, double rb, double cut,
                        mo_cl_contact *out)
{
    double ua[3], ub[3];
    sub3(FA->p[1], FA->p[0], ua);
    sub3(FB->p[1], FB->p[0], ub);
    double la = norm3(ua), lb = norm3(ub);
    if (!(la > 0.0) || !(lb > 0.0))
        return 0;
    for (int k = 0; k < 3; ++k) {
        ua[k] /= la;
        ub[k] /= lb;
    }
    double cr[3];
    cross3(ua, ub, cr);
    if (!(norm3(cr) <= k_feat_sin))
        return 0;
    double w0[3], w1[3];
    sub3(FB->p[0], FA->p[0], w0);
    sub3(FB->p[1], FA->p[0], w1);
    double s0 = dot3(ua, w0), s1 = dot3(ua, w1);
    double blo = fmin(s0, s1), bhi = fmax(s0, s1);
    double lo = fmax(0.0, blo), hi = fmin(la, bhi);
    if (!(hi - lo > 1e-9 * (la + lb)))
        return 0;
    double ts[2] = {lo, hi};
    int from_b[2] = {blo > 0.0, bhi < la};
    uint32_t base = 3u << 30 | fcode10(FA->code) << 20 | fcode10(FB->code) << 10;
    int nk = 0;
    for (int e = 0; e < 2; ++e) {
        double xa[3], xb[3], w[3];
        madd3(FA->p[0], ts[e], ua, xa);
        sub3(xa, FB->p[0], w);
        double t = clampd(dot3(w, ub), 0.0, lb);
        madd3(FB->p[0], t, ub, xb);
        sub3(xb, xa, w);
        double gap = dot3(n, w) - ra - rb;
        if (!(gap < cut))
            continue;
        double pa[3];
        madd3(xa, ra, n, pa);
        mo_cl_set_contact(&out[nk++], n, pa, gap, base | (uint32_t)(2 * e + from_b[e]));
    }
    return nk;
}

/* Contacts of cores A and B along normal n (a to b) with the deepest gap
   `gap` (rounding included): the feature manifold, else one contact (at the
   GJK witness wa on a's core when given) */
int mo_cl_make_manifold(const cvx *A, const cvx *B, const double *n, double gap, const double *wa, double cut,
                        mo_cl_contact *out)
{
    feature FA, FB;
    double nn[3] = {-n[0], -n[1], -n[2]};
    get_feature(A, n, &FA);
    get_feature(B, nn, &FB);
    double ra = A->r, rb = B->r;
    int k = 0;
    if (FA.n >= 3 || FB.n >= 3) {
        int use_b = FA.n < 3 || (FB.n >= 3 && -dot3(FB.nrm, n) > dot3(FA.nrm, n) + 1e-6);
        k = use_b ? mo_cl_clip_features(&FB, &FA, 1, n, ra, rb, cut, out) : mo_cl_clip_features(&FA, &FB, 0, n, ra, rb, cut, out);
    } else if (FA.n == 2 && FB.n == 2) {
        k = segment_pair(&FA, &FB, n, ra, rb, cut, out);
    }
    /* the manifold, unless the features (within their angle tolerance) miss
       the deepest point clearly: then that point too (in place of the
       shallowest when full) */
    if (k > 0) {
        int shallow = 0;
        for (int i = 1; i < k; ++i)
            if (out[i].gap > out[shallow].gap)
                shallow = i;
        double gmin = out[0].gap;
        for (int i = 1; i < k; ++i)
            gmin = fmin(gmin, out[i].gap);
        if (!(gap < gmin - 1e-4 * (A->size + B->size)))
            return k;
        if (k == MO_CL_MAX_POINTS)
            out[shallow] = out[--k];
    }
    if (!(gap < cut))
        return k;
    out += k;

    /* one contact */
    double pa[3];
    double gc = gap + ra + rb; /* core gap */
    if (wa) {
        madd3(wa, ra, n, pa);
    } else if (FA.n == 1) {
        madd3(FA.p[0], ra, n, pa);
    } else if (FB.n == 1) {
        madd3(FB.p[0], -gc, n, pa);
        madd3(pa, ra, n, pa);
    } else if (FA.n == 2 && FB.n == 2) {
        double da[3], db[3], qa[3], qb[3], s, t;
        sub3(FA.p[1], FA.p[0], da);
        sub3(FB.p[1], FB.p[0], db);
        segment_closest(FA.p[0], da, FB.p[0], db, &s, &t);
        madd3(FA.p[0], s, da, qa);
        madd3(FB.p[0], t, db, qb);
        for (int c = 0; c < 3; ++c)
            pa[c] = 0.5 * (qa[c] + qb[c]) - 0.5 * gc * n[c] + ra * n[c];
    } else if (FB.n >= 3) {
        /* a's deepest point into b's face */
        double qa[3];
        mo_cl_support(A, n, qa);
        madd3(qa, ra, n, pa);
    } else {
        double qb[3];
        mo_cl_support(B, nn, qb);
        madd3(qb, -gc + ra, n, pa);
    }
    mo_cl_set_contact(out, n, pa, gap, single_id(FA.code, FB.code));
    return k + 1;
}
