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
 * the same way (a closed dynamic mesh resting on the ground). Mesh/mesh is not
 * supported (0 contacts): meshes are meant for static scenery and for bodies
 * that touch convex shapes; give dynamic bodies hulls or compounds. */
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

int mo_cl_collide_mesh(const mo_cl_object *a, int ia, const mo_cl_object *b, int ib, double margin, mo_cl_contact *out)
{
    int a_mesh = a->type == MO_CL_MESH;
    const mo_cl_object *mesh = a_mesh ? a : b, *other = a_mesh ? b : a;
    int im = a_mesh ? ia : ib, io = a_mesh ? ib : ia;
    if (!mesh->mesh || mesh->mesh->ntris < 1) return 0;
    if (other->type == MO_CL_MESH || other->type == MO_CL_NONE) return 0;
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
    int k = 0;
    for (int i = 0; i < c.n; i++)
        if (c.pool[i].gap < margin) {
            c.pool[k] = c.pool[i];
            c.ids[k] = c.ids[i];
            k++;
        }
    int n = reduce_pool(c.pool, c.ids, k, out);
    for (int i = 0; i < n; i++) {
        out[i].a = ia;
        out[i].b = ib;
    }
    return n;
}
