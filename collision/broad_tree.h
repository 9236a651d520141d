/* broad_tree.h: inspection hooks of the dynamic AABB tree
 * (collision/broad_tree.c) and of the tree broadphase (collision/broad_bp.c),
 * for tests, step statistics and the world queries (engine/shape.c, which
 * walk the trees). The interfaces themselves are in shapes.h. Internal, not
 * public. */
#ifndef MOREAU_BROAD_TREE_H
#define MOREAU_BROAD_TREE_H

#include "shapes.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- tree structure (read-only) ---- */

/* root node id, -1 when the tree is empty (t may be NULL: -1) */
int mo_cl_tree_root(const mo_cl_tree *t);
/* node ids are in [0, capacity) */
int mo_cl_tree_capacity(const mo_cl_tree *t);
/* Node `id`: 0 when id is out of range or a free node (outputs untouched),
 * 1 for a leaf (a proxy: user and fat box), 2 for an inner node (box = union
 * of the children's). parent is -1 at the root; child1/child2 are -1 for
 * leaves; height is 0 for leaves, 1 + max(children) for inner nodes. Any
 * output pointer may be NULL. */
int mo_cl_tree_node(const mo_cl_tree *t, int id, int *parent, int *child1, int *child2, int *height,
                    int *user, double *lo, double *hi);

/* ---- tree broadphase ---- */

/* proxies inserted (new objects, objects that changed tree) plus proxies
   re-inserted because they left their fat box, in the last mo_cl_bp_update_pairs */
int mo_cl_bp_last_reinserts(const mo_cl_broadphase_tree *bp);
/* fat box of object i of the last successful mo_cl_bp_update_pairs; returns 1,
   or 0 when i has no proxy (plane, unknown type, NaN bounds, out of range) */
int mo_cl_bp_fat_box(const mo_cl_broadphase_tree *bp, int i, double *lo, double *hi);
/* drops the cached candidate pairs: the next update queries every proxy, as
   after a failed update (tests of that path; the result is the same) */
void mo_cl_bp_forget_pairs(mo_cl_broadphase_tree *bp);
/* the static (moving = 0) or moving (moving = 1) tree, for inspection */
const mo_cl_tree *mo_cl_bp_tree(const mo_cl_broadphase_tree *bp, int moving);
/* the trees' leaves hold the broadphase's record ids as their user values: the
   object user value (mo_cl_object.user) of record id rec, or INT_MIN when rec
   is not a live record */
int mo_cl_bp_record_user(const mo_cl_broadphase_tree *bp, int rec);

#ifdef __cplusplus
}
#endif
#endif
