/* tetmesh_tetgen.c: TetGen's .node + .ele pair.
 *
 *   .node  <nodes> [<dimension 3> [<attributes> [<boundary markers 0|1>]]]
 *          then per node: <number> <x> <y> <z> [attributes...] [marker]
 *   .ele   <tetrahedra> [<nodes per tetrahedron 4> [<attributes>]]
 *          then per tetrahedron: <number> <n1> <n2> <n3> <n4> [attributes...]
 *
 * The first node number (0 or 1) sets the numbering of both files, as in
 * TetGen's load_node; numbers must then run on consecutively. Every record
 * must have exactly the values its header announces. '#' starts a comment. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tetmesh_internal.h"

/* a header of 1 to max integers, the missing ones set to their defaults */
static mo_status tg_header(tm_text *t, int max, long long *v, const char *layout)
{
    if (!tm_line(t)) return tm_err(t, "the file is empty (expected the header %s)", layout);
    int n = tm_count(t);
    if (n > max) return tm_err(t, "the header has %d values, expected %s", n, layout);
    for (int k = 0; k < n; k++) {
        char bad[48];
        if (!tm_int(t, &v[k], bad)) return tm_err(t, "expected an integer in the header %s, found '%s'", layout, bad);
    }
    return MO_OK;
}

/* nothing but comments after the last record */
static mo_status tg_no_more(tm_text *t, long long count, const char *what)
{
    if (!tm_line(t)) return MO_OK;
    char text[48];
    tm_line_text(t, text);
    return tm_err(t, "unexpected '%s' after the %lld %s the header declares", text, count, what);
}

static mo_status tg_nodes(tm_text *t, mo_tetmesh *out, int *first)
{
    const char *layout = "<nodes> [<dimension> [<attributes> [<boundary markers>]]]";
    long long h[4] = {0, 3, 0, 0};
    mo_status s = tg_header(t, 4, h, layout);
    if (s != MO_OK) return s;
    if (h[0] < 1 || h[0] > INT_MAX / 3) return tm_err(t, "the node count %lld is out of range (1 to %d)", h[0], INT_MAX / 3);
    if (h[1] != 3)
        return tm_err_status(t, MO_ERR_UNSUPPORTED, "the dimension is %lld: only 3D meshes are read", h[1]);
    if (h[2] < 0 || h[2] > 1000) return tm_err(t, "the attribute count %lld is out of range (0 to 1000)", h[2]);
    if (h[3] != 0 && h[3] != 1) return tm_err(t, "the boundary marker count %lld is not 0 or 1", h[3]);
    int n = (int)h[0], nattr = (int)h[2], nmark = (int)h[3], nval = 4 + nattr + nmark;
    /* each record takes at least two bytes (a digit and a line end): a count
       beyond that is a lie, refused before allocating for it */
    if ((size_t)n > tm_room(t) / 2)
        return tm_err(t, "the file is too short for the %d nodes its header declares", n);
    out->nodes = malloc(3 * sizeof(double) * (size_t)n);
    if (!out->nodes) {
        tm_set_err(t->err, t->err_size, "%s: out of memory for %d nodes", t->path, n);
        return MO_ERR_OUT_OF_MEMORY;
    }
    out->nnodes = n;
    for (int i = 0; i < n; i++) {
        if (!tm_line(t)) return tm_err(t, "the file ends after %d of %d nodes", i, n);
        int got = tm_count(t);
        if (got != nval)
            return tm_err(t, "a node line has %d values, expected %d (number, x, y, z%s%s)", got, nval,
                          nattr ? ", attributes" : "", nmark ? ", boundary marker" : "");
        char bad[48];
        long long num;
        if (!tm_int(t, &num, bad)) return tm_err(t, "expected a node number, found '%s'", bad);
        if (i == 0) {
            if (num != 0 && num != 1)
                return tm_err(t, "the first node number is %lld: TetGen numbers nodes from 0 or 1", num);
            *first = (int)num;
        } else if (num != *first + (long long)i) {
            if (num >= *first && num < *first + (long long)i) return tm_err(t, "node %lld is defined twice", num);
            return tm_err(t, "node number %lld is out of sequence (expected %lld)", num, *first + (long long)i);
        }
        double *x = out->nodes + 3 * (size_t)i;
        static const char *axis[3] = {"x", "y", "z"};
        for (int k = 0; k < 3; k++) {
            if (!tm_num(t, &x[k], bad))
                return tm_err(t, "expected a number for the %s coordinate of node %lld, found '%s'", axis[k], num, bad);
            if (!isfinite(x[k]))
                return tm_err(t, "node %lld has a non-finite %s coordinate (%s)", num, axis[k], bad);
        }
        for (int k = 0; k < nattr; k++) {
            double a;
            if (!tm_num(t, &a, bad))
                return tm_err(t, "expected a number for attribute %d of node %lld, found '%s'", k + 1, num, bad);
        }
        if (nmark) {
            long long mk;
            if (!tm_int(t, &mk, bad))
                return tm_err(t, "expected an integer boundary marker for node %lld, found '%s'", num, bad);
        }
    }
    return tg_no_more(t, n, "nodes");
}

static mo_status tg_tets(tm_text *t, mo_tetmesh *out, int first, int **lines, long long **numbers)
{
    const char *layout = "<tetrahedra> [<nodes per tetrahedron> [<attributes>]]";
    long long h[3] = {0, 4, 0};
    mo_status s = tg_header(t, 3, h, layout);
    if (s != MO_OK) return s;
    if (h[0] < 1 || h[0] > INT_MAX / 4)
        return tm_err(t, "the tetrahedron count %lld is out of range (1 to %d)", h[0], INT_MAX / 4);
    if (h[1] == 10)
        return tm_err_status(t, MO_ERR_UNSUPPORTED,
                             "10-node (second-order) tetrahedra are not read: mesh without TetGen's -o2");
    if (h[1] != 4) return tm_err(t, "%lld nodes per tetrahedron: expected 4", h[1]);
    if (h[2] < 0 || h[2] > 1000) return tm_err(t, "the attribute count %lld is out of range (0 to 1000)", h[2]);
    int n = (int)h[0], nattr = (int)h[2], nval = 5 + nattr;
    if ((size_t)n > tm_room(t) / 2)
        return tm_err(t, "the file is too short for the %d tetrahedra its header declares", n);
    out->tets = malloc(4 * sizeof(int) * (size_t)n);
    out->tet_region = malloc(sizeof(int) * (size_t)n);
    *lines = malloc(sizeof(int) * (size_t)n);
    *numbers = malloc(sizeof(long long) * (size_t)n);
    if (!out->tets || !out->tet_region || !*lines || !*numbers) {
        tm_set_err(t->err, t->err_size, "%s: out of memory for %d tetrahedra", t->path, n);
        return MO_ERR_OUT_OF_MEMORY;
    }
    out->ntets = n;
    long long first_tet = 0, lo = first, hi = (long long)first + out->nnodes - 1;
    for (int i = 0; i < n; i++) {
        if (!tm_line(t)) return tm_err(t, "the file ends after %d of %d tetrahedra", i, n);
        int got = tm_count(t);
        if (got != nval)
            return tm_err(t, "a tetrahedron line has %d values, expected %d (number, 4 nodes%s)", got, nval,
                          nattr ? ", attributes" : "");
        char bad[48];
        long long num;
        if (!tm_int(t, &num, bad)) return tm_err(t, "expected a tetrahedron number, found '%s'", bad);
        if (i == 0) {
            if (num != 0 && num != 1)
                return tm_err(t, "the first tetrahedron number is %lld: TetGen numbers from 0 or 1", num);
            first_tet = num;
        } else if (num != first_tet + i) {
            if (num >= first_tet && num < first_tet + i) return tm_err(t, "tetrahedron %lld is defined twice", num);
            return tm_err(t, "tetrahedron number %lld is out of sequence (expected %lld)", num, first_tet + i);
        }
        (*lines)[i] = t->line;
        (*numbers)[i] = num;
        int *tet = out->tets + 4 * (size_t)i;
        for (int k = 0; k < 4; k++) {
            long long v;
            if (!tm_int(t, &v, bad))
                return tm_err(t, "expected a node number for corner %d of tetrahedron %lld, found '%s'", k + 1, num,
                              bad);
            if (v < lo || v > hi)
                return tm_err(t, "tetrahedron %lld: node %lld is out of range (the nodes are numbered %lld to %lld)", num,
                              v, lo, hi);
            tet[k] = (int)(v - first);
            for (int j = 0; j < k; j++)
                if (tet[j] == tet[k]) return tm_err(t, "tetrahedron %lld uses node %lld twice", num, v);
        }
        out->tet_region[i] = 0;
        for (int k = 0; k < nattr; k++) {
            double a;
            if (!tm_num(t, &a, bad))
                return tm_err(t, "expected a number for attribute %d of tetrahedron %lld, found '%s'", k + 1, num, bad);
            if (k == 0) {
                if (!(a == floor(a) && fabs(a) <= INT_MAX))
                    return tm_err(t, "tetrahedron %lld: the region attribute '%s' is not a whole number", num, bad);
                out->tet_region[i] = (int)a;
            }
        }
    }
    return tg_no_more(t, n, "tetrahedra");
}

mo_status tm_read_tetgen(const char *node_path, const char *ele_path, unsigned flags, mo_tetmesh *out, char *err,
                         size_t err_size)
{
    memset(out, 0, sizeof *out);
    int *lines = NULL;
    long long *numbers = NULL;
    int first = 0;
    tm_text t;
    mo_status s = tm_open(&t, node_path, true, err, err_size);
    if (s == MO_OK) {
        s = tg_nodes(&t, out, &first);
        tm_close(&t);
    }
    if (s == MO_OK) s = tm_open(&t, ele_path, true, err, err_size);
    if (s == MO_OK) {
        s = tg_tets(&t, out, first, &lines, &numbers);
        tm_close(&t);
    }
    if (s == MO_OK) {
        if (flags & MO_TETMESH_REORIENT) tm_reorient(out);
        s = tm_check_volumes(out, ele_path, lines, numbers, err, err_size);
    }
    free(lines);
    free(numbers);
    if (s != MO_OK) mo_tetmesh_free(out);
    return s;
}
