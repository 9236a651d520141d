/* collide_mesh.c: triangle meshes against convex shapes and planes.
 *
 * Mesh/convex: the convex object's bounding box, taken into the mesh frame,
 * selects triangles through the mesh's BVH (mo_cl_mesh_query); each
 * triangle is collided one-sided with mo_cl_collide_triangle
 * (collide_convex.c); the contacts of all triangles are pooled and, beyond
 * four, reduced to four spread-out points (mo_cl_reduce_points) in the plane
 * of the deepest contact's normal. Feature id: triangle index << 8 | the
 * triangle's own feature id (low 8 bits), so ids stay stable while the same
 * triangles touch. Mesh/plane: the mesh's vertices under the plane, reduced
 * the same way (a closed dynamic mesh resting on the ground).
 *
 * Mesh/mesh: the two BVHs are walked together (node pairs whose boxes, b's
 * taken into a's frame, overlap within the margins; the larger node is split)
 * down to triangle pairs. Triangle tb of mesh b stands for the solid behind it:
 * the prism swept from tb backwards along its normal by a depth (its longest
 * edge; for a closed mesh at most half the smallest extent of the mesh's box,
 * so it stays inside thin closed meshes), a 6-vertex convex hull built
 * directly (no qhull). Triangle ta of mesh a is collided one-sided with that
 * prism by mo_cl_collide_triangle, so a's faces push b's solid out along a's
 * front side; contacts are pooled and reduced as above, feature id: the two
 * triangle indices mixed with the triangle routine's id. Face on face, a vertex
 * of b on a face of a and edge on edge come out of the triangle routine's
 * separating axes; a vertex of a deep in a face of b is seen only through a's
 * triangles around it. Cost: the overlapping node pairs plus one small
 * convex/triangle test per overlapping triangle pair. */
#include <math.h>
#include <string.h>
#include "collide_internal.h"
#include "shapes.h"

#define POOL 128

typedef struct mesh_ctx {
    const mo_cl_object *mesh, *convex;
    double margin;
    int flip;                   /* the convex object is a */
    mo_cl_contact pool[POOL];
    uint32_t ids[POOL];
    int n;
} mesh_ctx;

static void world_point(const mo_cl_object *o, const double *l, double *w)
{
    for (int k = 0; k < 3; k++) w[k] = o->pos[k] + o->rot[3 * k] * l[0] + o->rot[3 * k + 1] * l[1] + o->rot[3 * k + 2] * l[2];
}

static void on_triangle(void *vctx, int tri)
{
    mesh_ctx *c = (mesh_ctx *)vctx;
    const mo_cl_mesh *m = c->mesh->mesh;
    double tw[9];
    for (int v = 0; v < 3; v++) world_point(c->mesh, m->verts + 3 * m->tris[3 * tri + v], tw + 3 * v);
    mo_cl_contact tmp[MO_CL_MAX_POINTS];
    int k = mo_cl_collide_triangle(tw, c->convex, c->margin, c->flip, tmp);
    for (int i = 0; i < k && c->n < POOL; i++) {
        c->pool[c->n] = tmp[i];
        /* triangle index mixed with the triangle's full feature id (its low bits alone are not unique) */
        c->ids[c->n] = (uint32_t)tri * 2654435761u ^ tmp[i].feature;
        c->n++;
    }
}

/* pooled contacts -> at most 4, written to out */
static int reduce_pool(mo_cl_contact *pool, uint32_t *ids, int n, mo_cl_contact *out)
{
    for (int i = 0; i < n; i++) pool[i].feature = ids[i];
    if (n <= MO_CL_MAX_POINTS) {
        memcpy(out, pool, (size_t)n * sizeof *out);
        return n;
    }
    int deep = 0;
    for (int i = 1; i < n; i++)
        if (pool[i].gap < pool[deep].gap) deep = i;
    const double *nz = pool[deep].normal;
    double t1[3], t2[3];
    /* a basis of the plane normal to nz */
    if (fabs(nz[0]) < 0.6) { t1[0] = 0; t1[1] = nz[2]; t1[2] = -nz[1]; }
    else { t1[0] = -nz[2]; t1[1] = 0; t1[2] = nz[0]; }
    double l = sqrt(t1[0] * t1[0] + t1[1] * t1[1] + t1[2] * t1[2]);
    for (int k = 0; k < 3; k++) t1[k] /= l;
    t2[0] = nz[1] * t1[2] - nz[2] * t1[1];
    t2[1] = nz[2] * t1[0] - nz[0] * t1[2];
    t2[2] = nz[0] * t1[1] - nz[1] * t1[0];
    mo_cl_clip_pt pts[POOL];
    for (int i = 0; i < n; i++) {
        const double *p = pool[i].point_a;
        pts[i].x = p[0] * t1[0] + p[1] * t1[1] + p[2] * t1[2];
        pts[i].y = p[0] * t2[0] + p[1] * t2[1] + p[2] * t2[2];
        pts[i].z = pool[i].gap;
        pts[i].label = 0;
    }
    int sel[4];
    mo_cl_reduce_points(pts, ids, n, 1e-6, sel);
    for (int i = 0; i < 4; i++) out[i] = pool[sel[i]];
    return 4;
}

/* the pooled contacts below margin, reduced to at most 4 into out, named (ia, ib); their count */
static int finish_pool(mo_cl_contact *pool, uint32_t *ids, int n, double margin, int ia, int ib, mo_cl_contact *out)
{
    int k = 0;
    for (int i = 0; i < n; i++)
        if (pool[i].gap < margin) {
            pool[k] = pool[i];
            ids[k] = ids[i];
            k++;
        }
    int m = reduce_pool(pool, ids, k, out);
    for (int i = 0; i < m; i++) {
        out[i].a = ia;
        out[i].b = ib;
    }
    return m;
}

static int mesh_plane(const mo_cl_object *mesh, int im, const mo_cl_object *plane, int ip, double margin,
                      int mesh_is_a, mo_cl_contact *out)
{
    const mo_cl_mesh *m = mesh->mesh;
    double n[3] = {plane->rot[2], plane->rot[5], plane->rot[8]};
    mo_cl_contact pool[POOL];
    uint32_t ids[POOL];
    int cnt = 0;
    for (int v = 0; v < m->nverts && cnt < POOL; v++) {
        double p[3];
        world_point(mesh, m->verts + 3 * v, p);
        double d = (p[0] - plane->pos[0]) * n[0] + (p[1] - plane->pos[1]) * n[1] + (p[2] - plane->pos[2]) * n[2];
        double gap = d - mesh->margin - plane->margin;
        if (!(gap < margin)) continue;
        mo_cl_contact *c = &pool[cnt];
        memset(c, 0, sizeof *c);
        double pp[3] = {p[0] - d * n[0], p[1] - d * n[1], p[2] - d * n[2]}; /* on the plane */
        if (mesh_is_a) {
            c->a = im; c->b = ip;
            for (int k = 0; k < 3; k++) {
                c->normal[k] = -n[k];
                c->point_a[k] = p[k] - mesh->margin * n[k];
                c->point_b[k] = pp[k] + plane->margin * n[k];
            }
        } else {
            c->a = ip; c->b = im;
            for (int k = 0; k < 3; k++) {
                c->normal[k] = n[k];
                c->point_a[k] = pp[k] + plane->margin * n[k];
                c->point_b[k] = p[k] - mesh->margin * n[k];
            }
        }
        c->gap = gap;
        ids[cnt++] = (uint32_t)v;
    }
    return reduce_pool(pool, ids, cnt, out);
}

/* ---- mesh/mesh ---- */

/* triangle tb of b (world vertices t, unit front normal n) swept backwards by depth: a convex hull */
typedef struct prism {
    mo_cl_hull h;
    double verts[18], planes[20];
    int face_first[6], face_verts[18], edges[18];
} prism;

static void prism_build(prism *p, const double *t, const double *n, double depth)
{
    static const int ff[6] = {0, 3, 6, 10, 14, 18};
    static const int fv[18] = {0, 1, 2, 3, 5, 4, 0, 3, 4, 1, 1, 4, 5, 2, 2, 5, 3, 0};
    static const int ed[18] = {0, 1, 1, 2, 2, 0, 3, 4, 4, 5, 5, 3, 0, 3, 1, 4, 2, 5};
    memset(&p->h, 0, sizeof p->h);
    for (int v = 0; v < 3; v++)
        for (int k = 0; k < 3; k++) {
            p->verts[3 * v + k] = t[3 * v + k];
            p->verts[9 + 3 * v + k] = t[3 * v + k] - depth * n[k];
        }
    memcpy(p->face_first, ff, sizeof ff);
    memcpy(p->face_verts, fv, sizeof fv);
    memcpy(p->edges, ed, sizeof ed);
    /* front, back, then the side of edge (i, i + 1): outward (v_{i+1} - v_i) x n */
    double *pl = p->planes;
    for (int k = 0; k < 3; k++) {
        pl[k] = n[k];
        pl[4 + k] = -n[k];
    }
    pl[3] = n[0] * t[0] + n[1] * t[1] + n[2] * t[2];
    pl[7] = -(pl[3] - depth);
    for (int i = 0; i < 3; i++) {
        const double *vi = t + 3 * i, *vj = t + 3 * ((i + 1) % 3);
        double e[3] = {vj[0] - vi[0], vj[1] - vi[1], vj[2] - vi[2]};
        double o[3] = {e[1] * n[2] - e[2] * n[1], e[2] * n[0] - e[0] * n[2], e[0] * n[1] - e[1] * n[0]};
        double l = sqrt(o[0] * o[0] + o[1] * o[1] + o[2] * o[2]);
        double *q = pl + 8 + 4 * i;
        for (int k = 0; k < 3; k++) q[k] = o[k] / l;
        q[3] = q[0] * vi[0] + q[1] * vi[1] + q[2] * vi[2];
    }
    p->h.nverts = 6;
    p->h.verts = p->verts;
    p->h.nfaces = 5;
    p->h.face_first = p->face_first;
    p->h.face_verts = p->face_verts;
    p->h.planes = p->planes;
    p->h.nedges = 9;
    p->h.edges = p->edges;
    double r2 = 0.0;
    for (int k = 0; k < 3; k++) {
        double c = 0.0;
        for (int v = 0; v < 6; v++) c += p->verts[3 * v + k];
        p->h.center[k] = c / 6.0;
    }
    for (int v = 0; v < 6; v++) {
        double d2 = 0.0;
        for (int k = 0; k < 3; k++) {
            double d = p->verts[3 * v + k] - p->h.center[k];
            d2 += d * d;
        }
        if (d2 > r2) r2 = d2;
    }
    p->h.radius = sqrt(r2);
}

/* box of local box [lo, hi] of an object with pose (R, t) relative to the frame of interest */
static void box_to_frame(const double *R, const double *t, const double *lo, const double *hi, double *olo, double *ohi)
{
    for (int i = 0; i < 3; i++) {
        double c = t[i], e = 0.0;
        for (int j = 0; j < 3; j++) {
            double m = 0.5 * (lo[j] + hi[j]), h = 0.5 * (hi[j] - lo[j]);
            c += R[3 * i + j] * m;
            e += fabs(R[3 * i + j]) * h;
        }
        olo[i] = c - e;
        ohi[i] = c + e;
    }
}

static void tri_world(const mo_cl_object *o, int tri, double *tw)
{
    const mo_cl_mesh *m = o->mesh;
    for (int v = 0; v < 3; v++) world_point(o, m->verts + 3 * m->tris[3 * tri + v], tw + 3 * v);
}

/* the prism depth for mesh m: see the file comment */
static double prism_depth_cap(const mo_cl_mesh *m)
{
    if (!m->closed) return HUGE_VAL;
    const mo_cl_bvh_node *r = &m->nodes[0];
    double e = fmin(r->hi[0] - r->lo[0], fmin(r->hi[1] - r->lo[1], r->hi[2] - r->lo[2]));
    return 0.5 * e;
}

/* triangle ta of a against the prism of triangle tb of b, into the pool */
static void tri_tri(mesh_ctx *c, const mo_cl_object *b, int ta, int tb, double cap)
{
    double wa[9], wb[9];
    tri_world(c->mesh, ta, wa);
    tri_world(b, tb, wb);
    double e1[3], e2[3], n[3], l2 = 0.0;
    for (int k = 0; k < 3; k++) {
        e1[k] = wb[3 + k] - wb[k];
        e2[k] = wb[6 + k] - wb[k];
    }
    n[0] = e1[1] * e2[2] - e1[2] * e2[1];
    n[1] = e1[2] * e2[0] - e1[0] * e2[2];
    n[2] = e1[0] * e2[1] - e1[1] * e2[0];
    double ln = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    for (int i = 0; i < 3; i++) {
        const double *p = wb + 3 * i, *q = wb + 3 * ((i + 1) % 3);
        double d2 = (q[0] - p[0]) * (q[0] - p[0]) + (q[1] - p[1]) * (q[1] - p[1]) + (q[2] - p[2]) * (q[2] - p[2]);
        if (d2 > l2) l2 = d2;
    }
    if (!(ln > 1e-12 * l2)) return; /* degenerate (or NaN) */
    for (int k = 0; k < 3; k++) n[k] /= ln;
    double depth = fmin(sqrt(l2), cap);
    prism pr;
    prism_build(&pr, wb, n, depth);
    mo_cl_object po;
    memset(&po, 0, sizeof po);
    po.type = MO_CL_HULL;
    po.rot[0] = po.rot[4] = po.rot[8] = 1.0;
    po.hull = &pr.h;
    po.margin = b->margin;
    mo_cl_contact tmp[MO_CL_MAX_POINTS];
    int k = mo_cl_collide_triangle(wa, &po, c->margin, 0, tmp);
    /* ta's front normal */
    double na[3], f1[3], f2[3];
    for (int j = 0; j < 3; j++) {
        f1[j] = wa[3 + j] - wa[j];
        f2[j] = wa[6 + j] - wa[j];
    }
    na[0] = f1[1] * f2[2] - f1[2] * f2[1];
    na[1] = f1[2] * f2[0] - f1[0] * f2[2];
    na[2] = f1[0] * f2[1] - f1[1] * f2[0];
    for (int i = 0; i < k && c->n < POOL; i++) {
        /* the normal must leave a through ta's front and enter b through tb's front: the
           prism's side faces and back are not b's surface, and their edges with ta give
           spurious axes (a diagonal escape at a penetrated face's rim) */
        const double *nr = tmp[i].normal;
        if (!(nr[0] * na[0] + nr[1] * na[1] + nr[2] * na[2] > 0.0) ||
            !(nr[0] * n[0] + nr[1] * n[1] + nr[2] * n[2] < -1e-9))
            continue;
        c->pool[c->n] = tmp[i];
        c->ids[c->n] = ((uint32_t)ta * 2654435761u) ^ ((uint32_t)tb * 40503u + 0x9e3779b9u) ^ tmp[i].feature;
        c->n++;
    }
}

static int mesh_mesh(const mo_cl_object *a, int ia, const mo_cl_object *b, int ib, double margin, mo_cl_contact *out)
{
    const mo_cl_mesh *ma = a->mesh, *mb = b->mesh;
    if (!mb || mb->ntris < 1 || !ma->nodes || !mb->nodes) return 0;
    /* b's frame in a's: R = Ra^T Rb, t = Ra^T (pb - pa) */
    double R[9], t[3], d[3] = {b->pos[0] - a->pos[0], b->pos[1] - a->pos[1], b->pos[2] - a->pos[2]};
    for (int i = 0; i < 3; i++) {
        t[i] = a->rot[i] * d[0] + a->rot[3 + i] * d[1] + a->rot[6 + i] * d[2];
        for (int j = 0; j < 3; j++)
            R[3 * i + j] = a->rot[i] * b->rot[j] + a->rot[3 + i] * b->rot[3 + j] + a->rot[6 + i] * b->rot[6 + j];
    }
    for (int k = 0; k < 9; k++)
        if (!isfinite(R[k]) || (k < 3 && !isfinite(t[k]))) return 0;
    mesh_ctx c;
    c.mesh = a;
    c.convex = b;
    c.margin = margin + (a->margin > 0.0 ? a->margin : 0.0);
    c.flip = 0;
    c.n = 0;
    double g = margin + (a->margin > 0.0 ? a->margin : 0.0) + (b->margin > 0.0 ? b->margin : 0.0);
    double cap = prism_depth_cap(mb);
    /* node pairs, depth first; a pair splits its larger node, so the stack holds at most the
       two depths (< 128 each, mesh.c) plus one */
    int stack[2 * 272];
    int sp = 0;
    stack[sp++] = 0;
    stack[sp++] = 0;
    while (sp > 0 && c.n < POOL) {
        int nb = stack[--sp], na = stack[--sp];
        const mo_cl_bvh_node *A = &ma->nodes[na], *B = &mb->nodes[nb];
        double lo[3], hi[3];
        box_to_frame(R, t, B->lo, B->hi, lo, hi);
        if (A->lo[0] > hi[0] + g || A->hi[0] < lo[0] - g || A->lo[1] > hi[1] + g || A->hi[1] < lo[1] - g ||
            A->lo[2] > hi[2] + g || A->hi[2] < lo[2] - g)
            continue;
        if (A->count > 0 && B->count > 0) {
            for (int i = A->first; i < A->first + A->count; i++)
                for (int j = B->first; j < B->first + B->count; j++)
                    tri_tri(&c, b, ma->tri_order[i], mb->tri_order[j], cap);
            continue;
        }
        if (sp > (int)(sizeof stack / sizeof stack[0]) - 4) continue; /* never: depths < 128 */
        double sa = (A->hi[0] - A->lo[0]) + (A->hi[1] - A->lo[1]) + (A->hi[2] - A->lo[2]);
        double sb = (B->hi[0] - B->lo[0]) + (B->hi[1] - B->lo[1]) + (B->hi[2] - B->lo[2]);
        if (B->count > 0 || (A->count == 0 && sa >= sb)) { /* split a */
            stack[sp++] = A->first + 1;
            stack[sp++] = nb;
            stack[sp++] = A->first;
            stack[sp++] = nb;
        } else {
            stack[sp++] = na;
            stack[sp++] = B->first + 1;
            stack[sp++] = na;
            stack[sp++] = B->first;
        }
    }
    /* a's thickness: the triangle routine saw a's bare surface (the prisms carry b's) */
    if (a->margin > 0.0) mo_cl_inflate_contacts(c.pool, c.n, a->margin, 0.0);
    return finish_pool(c.pool, c.ids, c.n, margin, ia, ib, out);
}

int mo_cl_collide_mesh(const mo_cl_object *a, int ia, const mo_cl_object *b, int ib, double margin, mo_cl_contact *out)
{
    int a_mesh = a->type == MO_CL_MESH;
    const mo_cl_object *mesh = a_mesh ? a : b, *other = a_mesh ? b : a;
    int im = a_mesh ? ia : ib, io = a_mesh ? ib : ia;
    if (!mesh->mesh || mesh->mesh->ntris < 1) return 0;
    if (other->type == MO_CL_MESH) return mesh_mesh(a, ia, b, ib, margin, out);
    if (other->type == MO_CL_NONE) return 0;
    if (other->type == MO_CL_PLANE) return mesh_plane(mesh, im, other, io, margin, a_mesh, out);

    /* the convex object's box in the mesh frame */
    mo_cl_object cv = *other;
    mo_cl_update_aabb(&cv, margin + mesh->margin);
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int corner = 0; corner < 8; corner++) {
        double p[3] = {(corner & 1) ? cv.aabb_max[0] : cv.aabb_min[0], (corner & 2) ? cv.aabb_max[1] : cv.aabb_min[1],
                       (corner & 4) ? cv.aabb_max[2] : cv.aabb_min[2]};
        double d[3] = {p[0] - mesh->pos[0], p[1] - mesh->pos[1], p[2] - mesh->pos[2]}, l[3];
        for (int k = 0; k < 3; k++)
            l[k] = mesh->rot[k] * d[0] + mesh->rot[3 + k] * d[1] + mesh->rot[6 + k] * d[2];
        for (int k = 0; k < 3; k++) {
            if (l[k] < lo[k]) lo[k] = l[k];
            if (l[k] > hi[k]) hi[k] = l[k];
        }
    }
    if (!(lo[0] <= hi[0])) return 0; /* NaN */
    mesh_ctx c;
    c.mesh = mesh;
    c.convex = other;
    c.margin = margin + mesh->margin;
    c.flip = !a_mesh;
    c.n = 0;
    mo_cl_mesh_query(mesh->mesh, lo, hi, on_triangle, &c);
    /* the mesh's thickness: the triangle routine saw the bare surface */
    if (mesh->margin > 0.0)
        mo_cl_inflate_contacts(c.pool, c.n, a_mesh ? mesh->margin : 0.0, a_mesh ? 0.0 : mesh->margin);
    return finish_pool(c.pool, c.ids, c.n, margin, ia, ib, out);
}
