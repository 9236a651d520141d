/* shape_info.c: read-only views for viewers (moreau.h, "viewer support"):
 * shape enumeration and geometry, shape world poses
 * (per-contact residuals are in debug_draw.c). Nothing here changes the world (the error sentence aside). */
#include <math.h>
#include <string.h>
#include "model/world.h"

int mo_world_shapes(const mo_world *w, mo_shape_id *out, int cap)
{
    if (!w) return 0;
    int n = 0;
    for (int i = 0; i < w->shape_count; i++) {
        const mo_shape *s = &w->shapes[i];
        if (!s->alive) continue;
        if (out && n < cap) out[n] = (mo_shape_id){(uint32_t)i + 1, s->generation};
        n++;
    }
    return n;
}

static mo_status stale(const mo_world *w, mo_shape_id id, const char *fn)
{
    mo_set_error(w, "%s: shape id (index %u, generation %u) %s", fn, id.index,
                 id.generation, mo_id_fault(w, id.generation, "does not name a live shape"));
    return MO_ERR_STALE_ID;
}

mo_status mo_shape_get_info(const mo_world *w, mo_shape_id id, mo_shape_info *out)
{
    MO_NEED_W(w);
    if (!w) return MO_ERR_INVALID_ARGUMENT;
    if (!out) {
        mo_set_error(w, "mo_shape_get_info: out must not be NULL");
        return MO_ERR_INVALID_ARGUMENT;
    }
    const mo_shape *s = mo_shape_get(w, id);
    if (!s) return stale(w, id, "mo_shape_get_info");
    const mo_body *b = &w->bodies[s->body];
    memset(out, 0, sizeof *out);
    out->type = (mo_shape_type)s->type;
    out->body = (mo_body_id){(uint32_t)s->body + 1, b->generation};
    out->body_type = b->type;
    out->radius = s->radius;
    out->half_height = s->half_height;
    out->half_extents = (mo_vec3){s->he[0], s->he[1], s->he[2]};
    out->margin = s->margin;
    out->friction = s->friction;
    out->density = s->density;
    out->position = (mo_vec3){s->lpos[0], s->lpos[1], s->lpos[2]};
    out->orientation = (mo_quat){s->lq[0], s->lq[1], s->lq[2], s->lq[3]};
    if (s->type == MO_SHAPE_CONVEX_HULL && s->hull) {
        out->vertex_count = s->hull->nverts;
        out->vertices = s->hull->verts;
        out->face_count = s->hull->nfaces;
        out->face_first = s->hull->face_first;
        out->face_vertices = s->hull->face_verts;
    } else if (s->type == MO_SHAPE_MESH && s->mesh) {
        out->vertex_count = s->mesh->nverts;
        out->vertices = s->mesh->verts;
        out->triangle_count = s->mesh->ntris;
        out->triangles = s->mesh->tris;
    }
    return MO_OK;
}

mo_status mo_shape_world_pose(const mo_world *w, mo_shape_id id, mo_vec3 *position, mo_quat *orientation)
{
    MO_NEED_W(w);
    if (!w) return MO_ERR_INVALID_ARGUMENT;
    const mo_shape *s = mo_shape_get(w, id);
    if (!s) return stale(w, id, "mo_shape_world_pose");
    const mo_body *b = &w->bodies[s->body];
    double p[3], q[4];
    mo_q_rotate(p, b->k.q, s->lpos);
    mo_v3_add(p, p, b->k.x);
    mo_q_mul(q, b->k.q, s->lq);
    if (position) *position = (mo_vec3){p[0], p[1], p[2]};
    if (orientation) *orientation = (mo_quat){q[0], q[1], q[2], q[3]};
    return MO_OK;
}
