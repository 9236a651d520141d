/* tetmesh.h: tetrahedral meshes for FEM, read from files and checked.
 *
 * Formats, chosen by the file's extension (case ignored):
 *   .node / .ele  TetGen: the pair "stem.node" + "stem.ele" (either name may be
 *                 given; the other is read beside it). Node numbering starts
 *                 at the first node number of the .node file, 0 or 1, and the
 *                 .ele file's node references follow it, as TetGen does.
 *                 Node and tetrahedron numbers must each start at 0 or 1 and
 *                 run on consecutively; each record must have exactly the
 *                 values its header announces (TetGen's 2D and 10-node forms
 *                 are refused, MO_ERR_UNSUPPORTED). Comments (# to the end of the line)
 *                 and blank lines are skipped. The first tetrahedron
 *                 attribute (TetGen's region attribute, -A) is the region; it
 *                 must be a whole number. Point attributes and boundary
 *                 markers are read as numbers and dropped.
 *   .msh          Gmsh ASCII, format 2.x (2.0 to 2.2) and 4.1. Binary files
 *                 and formats 3 and 4.0 are refused (MO_ERR_UNSUPPORTED).
 *                 Only linear tetrahedra (element type 4) are kept; every
 *                 other element type (points, lines, triangles, hexahedra...)
 *                 is skipped, except second-order tetrahedra (type 11), which
 *                 are refused rather than cut to their corners: their mid-edge
 *                 nodes would be left as free nodes. The region is
 *                 the element's physical tag (2.x: its first tag; 4.1: the
 *                 first physical tag of its volume in $Entities), 0 if none.
 *                 Node tags may be any positive numbers in any order; nodes
 *                 keep the file's order. Sections other than $MeshFormat,
 *                 $Entities, $Nodes and $Elements are skipped.
 *
 * Orientation: a tetrahedron (a, b, c, d) is positive when
 * (b - a) . ((c - a) x (d - a)) > 0, i.e. its signed volume
 * V = det[b - a, c - a, d - a] / 6 is positive; TetGen and Gmsh both write
 * positive tetrahedra. A tetrahedron is flat ("zero volume") when
 * |6 V| <= 1e-12 L^3, L its longest edge, and inverted when V is negative
 * beyond that. Both are refused by default, naming the tetrahedron; with
 * MO_TETMESH_REORIENT an inverted tetrahedron gets its last two nodes swapped
 * instead (flat ones are still refused).
 *
 * Nodes that no tetrahedron uses are kept (a node's index is its place in the
 * file). Every error from a file names the file and the line
 * ("bar.msh:57: ..."); errors are one sentence written into err (err may be
 * NULL). Status: MO_ERR_IO for files that cannot be read, malformed or
 * invalid content; MO_ERR_UNSUPPORTED for binary .msh, unsupported versions
 * and second-order elements; MO_ERR_INVALID_ARGUMENT for NULL arguments, an
 * unknown extension and (mo_tetmesh_check) invalid meshes in memory;
 * MO_ERR_OUT_OF_MEMORY.
 *
 * Bounded cost: a declared node, element, entity or block count above one
 * record per two bytes left in the file is refused before anything is
 * allocated for it ("bar.msh:5: the file is too short for the 500000000 nodes
 * its header declares"), so memory stays proportional to the file's size (the
 * file itself is read whole; a scene file refuses one larger than what is left
 * of its memory cap). */
#ifndef MOREAU_TETMESH_H
#define MOREAU_TETMESH_H

#include "moreau.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A tetrahedral mesh. mo_tetmesh_load allocates the arrays (malloc) and
 * mo_tetmesh_free frees them; a mesh built in memory keeps its owner's arrays
 * (then do not call mo_tetmesh_free on it unless they were malloc'ed). */
typedef struct mo_tetmesh {
    int nnodes, ntets; /* nodes (>= 4 for mo_tetmesh_check) and tetrahedra (>= 1) */
    double *nodes;    /* 3 * nnodes, x y z (the file's units) */
    int *tets;        /* 4 * ntets, 0-based node indices, positive orientation after loading */
    int *tet_region;  /* ntets: region / physical tag (TetGen attribute, Gmsh physical group), 0 if none;
                         may be NULL in a mesh built in memory (all 0) */
} mo_tetmesh;

/* flags of mo_tetmesh_load_flags */
#define MO_TETMESH_REORIENT 1u /* swap the last two nodes of inverted tetrahedra instead of refusing them */

/* Reads a tetrahedral mesh (.node, .ele or .msh, by extension; see above) and
 * checks it as mo_tetmesh_check does, naming the file, the line and the
 * element's number in the file. *out is overwritten (not freed); on success
 * the caller frees it with mo_tetmesh_free; on failure it is zeroed and
 * nothing is allocated. path and out must not be NULL (refused with
 * MO_ERR_INVALID_ARGUMENT); err may be NULL (then err_size is ignored). Status
 * codes as listed above. */
MO_API mo_status mo_tetmesh_load(const char *path, mo_tetmesh *out, char *err, size_t err_size);
/* The same with flags (0 or MO_TETMESH_REORIENT; other bits are refused with
 * MO_ERR_INVALID_ARGUMENT). */
MO_API mo_status mo_tetmesh_load_flags(const char *path, unsigned flags, mo_tetmesh *out, char *err,
                                       size_t err_size);
/* Checks a mesh built in memory: at least one tetrahedron, arrays present,
 * finite coordinates, node indices in [0, nnodes), no node used twice in a
 * tetrahedron, no flat or inverted tetrahedron. Tetrahedra and nodes are
 * named by their 0-based index ("mo_tetmesh_check: tetrahedron 16 is
 * inverted (volume -2.1e-06)"). tet_region is not looked at. MO_OK or
 * MO_ERR_INVALID_ARGUMENT (also for a NULL m); err may be NULL. */
MO_API mo_status mo_tetmesh_check(const mo_tetmesh *m, char *err, size_t err_size);
/* Tetrahedron t of m: 1 when positively oriented, -1 when inverted, 0 when
 * flat (|6 V| <= 1e-12 L^3 with L its longest edge; non-finite volumes count as
 * flat) and also 0, with a NaN volume, for invalid input (NULL m or arrays, t
 * outside [0, ntets), a node index outside [0, nnodes)). volume (may be NULL)
 * gets its signed volume (cubic file units). */
MO_API int mo_tetmesh_element_orientation(const mo_tetmesh *m, int t, double *volume);
/* Sum of the tetrahedra's signed volumes (cubic file units); 0 for NULL or an
 * empty mesh. Indices are not checked: call it on a checked mesh. */
MO_API double mo_tetmesh_volume(const mo_tetmesh *m);
/* Frees every array and zeroes *m. NULL and zeroed meshes are allowed. */
MO_API void mo_tetmesh_free(mo_tetmesh *m);

#ifdef __cplusplus
}
#endif

#endif
