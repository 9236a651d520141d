/* broad_internal.h: what the broadphase files share inside the collision
 * layer: the box overlap test and the fat box of the dynamic AABB tree
 * (broad_tree.c) that the tree broadphase (broad_bp.c) uses too, and the
 * counting sort of pair arrays that both broadphases (collide_broad.c,
 * broad_bp.c) sort their pairs with. Not for the engine. */
#ifndef MOREAU_BROAD_INTERNAL_H
#define MOREAU_BROAD_INTERNAL_H

#ifdef __cplusplus
extern "C" {
#endif

static inline int boxes_overlap(const double *alo, const double *ahi, const double *blo, const double *bhi)
{
    return (alo[0] <= bhi[0]) & (blo[0] <= ahi[0]) & (alo[1] <= bhi[1]) & (blo[1] <= ahi[1]) &
           (alo[2] <= bhi[2]) & (blo[2] <= ahi[2]);
}

/* box grown by margin on every side and extended by the displacement on its side */
static inline void fatten(const double *lo, const double *hi, const double *d, double margin, double *flo,
                          double *fhi)
{
    for (int k = 0; k < 3; ++k) {
        flo[k] = lo[k] - margin;
        fhi[k] = hi[k] + margin;
        if (d) {
            if (d[k] > 0.0)
                fhi[k] += d[k];
            else if (d[k] < 0.0)
                flo[k] += d[k];
        }
    }
}

/* stable counting sort of src into dst by element `key` (0 or 1) of each
   pair; values in [0, n), cnt holds n + 1 ints (collide_broad.c) */
void mo_cl_pairs_counting_sort(int (*src)[2], int (*dst)[2], int count, int key, int n, int *cnt);

#ifdef __cplusplus
}
#endif
#endif
