/* tetmesh_gmsh.c: Gmsh .msh, ASCII format 2.x and 4.1 (gmsh.info/doc,
 * "MSH file format"). One record a line, as Gmsh writes them.
 *
 *   2.x  $Nodes: <n>, then <tag> <x> <y> <z>
 *        $Elements: <n>, then <tag> <type> <ntags> <tags...> <nodes...>;
 *        the first tag is the physical group
 *   4.1  $Entities: <points> <curves> <surfaces> <volumes>, then one line per
 *        entity; a volume's line is <tag> <box: 6 numbers> <nphysical>
 *        <physical...> <nsurfaces> <surfaces...>
 *        $Nodes: <blocks> <n> <min tag> <max tag>, then per block
 *        <dim> <entity> <parametric> <count>, <count> tag lines, <count>
 *        coordinate lines (x y z, and dim parametric coordinates if parametric)
 *        $Elements: <blocks> <n> <min tag> <max tag>, then per block
 *        <dim> <entity> <type> <count> and <count> lines <tag> <nodes...>
 *
 * Tetrahedra are type 4 (kept) and 11 (refused); every other element type is
 * skipped line by line. Other sections are skipped to their $End line. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tetmesh_internal.h"

typedef struct gm_node {
    long long tag;
    int index, line;
} gm_node;

typedef struct gm_volume {
    long long tag;
    int physical; /* the first physical tag, 0 if none */
} gm_volume;

typedef struct gm_reader {
    tm_text t;
    int version; /* 2 or 4 */
    mo_tetmesh *out;
    gm_node *map; /* nnodes, sorted by tag */
    gm_volume *vols;
    int nvols;
    bool have_entities, have_nodes, have_elements;
    int elements_line; /* line of $Elements */
    int cap;           /* room in the tetrahedron arrays */
    int *lines;
    long long *numbers;
} gm_reader;

static const char *axis_name[3] = {"x", "y", "z"};
static const char *coord_name[4] = {"the x coordinate", "the y coordinate", "the z coordinate", "a parametric coordinate"};

/* the next record of a section holding n things, the i-th of them now */
static mo_status gm_record(gm_reader *r, const char *section, const char *what, long long i, long long n)
{
    tm_text *t = &r->t;
    if (!tm_line(t)) return tm_err(t, "the file ends inside $%s after %lld of %lld %s", section, i, n, what);
    if (tm_line_is_section(t)) {
        char text[48];
        tm_line_text(t, text);
        return tm_err(t, "'%s' after %lld of %lld %s", text, i, n, what);
    }
    return MO_OK;
}

/* the header line of a section */
static mo_status gm_header(gm_reader *r, const char *section)
{
    tm_text *t = &r->t;
    if (!tm_line(t)) return tm_err(t, "the file ends inside $%s", section);
    if (tm_line_is_section(t)) {
        char text[48];
        tm_line_text(t, text);
        return tm_err(t, "'%s' where the header of $%s was expected", text, section);
    }
    return MO_OK;
}

/* the $End line of a section whose records were all read (n of what; what
   NULL for a section without a count) */
static mo_status gm_section_end(gm_reader *r, const char *section, long long n, const char *what)
{
    tm_text *t = &r->t;
    char end[64];
    snprintf(end, sizeof end, "$End%s", section);
    if (!tm_line(t)) return tm_err(t, "the file ends inside $%s (no %s)", section, end);
    if (!tm_line_is(t, end)) {
        char text[48];
        tm_line_text(t, text);
        if (!what) return tm_err(t, "expected %s, found '%s'", end, text);
        return tm_err(t, "expected %s after the %lld %s the section declares, found '%s'", end, n, what, text);
    }
    return MO_OK;
}

/* a line of exactly n integers */
static mo_status gm_ints(gm_reader *r, int n, long long *v, const char *layout)
{
    tm_text *t = &r->t;
    int got = tm_count(t);
    if (got != n) return tm_err(t, "expected %s, found %d values", layout, got);
    for (int k = 0; k < n; k++) {
        char bad[48];
        if (!tm_int(t, &v[k], bad)) return tm_err(t, "expected %s, found '%s'", layout, bad);
    }
    return MO_OK;
}

/* a count from a header: lo to max, and no more than the rest of the file
   can hold at two bytes a record (refused before allocating for it) */
static mo_status gm_count(gm_reader *r, long long n, long long lo, long long max, const char *one, const char *many)
{
    tm_text *t = &r->t;
    if (n < lo || n > max) return tm_err(t, "the %s count %lld is out of range (%lld to %lld)", one, n, lo, max);
    if ((size_t)n > tm_room(t) / 2)
        return tm_err(t, "the file is too short for the %lld %s its header declares", n, many);
    return MO_OK;
}

static mo_status gm_oom(gm_reader *r, const char *what)
{
    tm_set_err(r->t.err, r->t.err_size, "%s: out of memory for the %s", r->t.path, what);
    return MO_ERR_OUT_OF_MEMORY;
}

/* ---- $Nodes ---- */

/* x y z of node i (tag) from the current line, which has `extra` more numbers */
static mo_status gm_coords(gm_reader *r, int i, long long tag, int extra)
{
    tm_text *t = &r->t;
    int got = tm_count(t);
    if (got != 3 + extra)
        return tm_err(t, "the coordinate line of node %lld has %d values, expected %d", tag, got, 3 + extra);
    double *x = r->out->nodes + 3 * (size_t)i;
    char bad[48];
    for (int k = 0; k < 3 + extra; k++) {
        double v;
        if (!tm_num(t, &v, bad))
            return tm_err(t, "expected a number for %s of node %lld, found '%s'", coord_name[k < 3 ? k : 3], tag, bad);
        if (k < 3) {
            if (!isfinite(v)) return tm_err(t, "node %lld has a non-finite %s coordinate (%s)", tag, axis_name[k], bad);
            x[k] = v;
        }
    }
    return MO_OK;
}

static mo_status gm_node_tag(gm_reader *r, const char *text, long long tag)
{
    if (tag < 1) return tm_err(&r->t, "node tag %s is not positive", text);
    return MO_OK;
}

static int gm_node_cmp(const void *a, const void *b)
{
    const gm_node *x = a, *y = b;
    if (x->tag != y->tag) return x->tag < y->tag ? -1 : 1;
    return (x->index > y->index) - (x->index < y->index);
}

/* sorts the tag map; a tag defined twice is reported at its earliest repeat */
static mo_status gm_sort_nodes(gm_reader *r)
{
    int n = r->out->nnodes;
    qsort(r->map, (size_t)n, sizeof *r->map, gm_node_cmp);
    int dup = -1;
    for (int k = 1; k < n; k++)
        if (r->map[k].tag == r->map[k - 1].tag && (dup < 0 || r->map[k].line < r->map[dup].line)) dup = k;
    if (dup < 0) return MO_OK;
    tm_set_err(r->t.err, r->t.err_size, "%s:%d: node %lld is defined twice (first on line %d)", r->t.path,
               r->map[dup].line, r->map[dup].tag, r->map[dup - 1].line);
    return MO_ERR_IO;
}

static mo_status gm_alloc_nodes(gm_reader *r, long long n)
{
    r->out->nodes = malloc(3 * sizeof(double) * (size_t)n);
    r->map = malloc(sizeof *r->map * (size_t)n);
    if (!r->out->nodes || !r->map) return gm_oom(r, "nodes");
    r->out->nnodes = (int)n;
    return MO_OK;
}

static mo_status gm_nodes2(gm_reader *r)
{
    tm_text *t = &r->t;
    long long n;
    mo_status s = gm_header(r, "Nodes");
    if (s == MO_OK) s = gm_ints(r, 1, &n, "the node count");
    if (s == MO_OK) s = gm_count(r, n, 1, INT_MAX / 3, "node", "nodes");
    if (s == MO_OK) s = gm_alloc_nodes(r, n);
    for (int i = 0; s == MO_OK && i < n; i++) {
        s = gm_record(r, "Nodes", "nodes", i, n);
        if (s != MO_OK) break;
        int got = tm_count(t);
        if (got != 4) return tm_err(t, "a node line has %d values, expected 4 (tag, x, y, z)", got);
        char bad[48];
        long long tag;
        if (!tm_int(t, &tag, bad)) return tm_err(t, "expected a node tag, found '%s'", bad);
        s = gm_node_tag(r, bad, tag);
        if (s == MO_OK) s = gm_coords(r, i, tag, 0);
        r->map[i] = (gm_node){tag, i, t->line};
    }
    if (s == MO_OK) s = gm_section_end(r, "Nodes", n, "nodes");
    return s;
}

static mo_status gm_nodes4(gm_reader *r)
{
    tm_text *t = &r->t;
    long long h[4];
    mo_status s = gm_header(r, "Nodes");
    if (s == MO_OK) s = gm_ints(r, 4, h, "<blocks> <nodes> <min tag> <max tag>");
    if (s == MO_OK) s = gm_count(r, h[1], 1, INT_MAX / 3, "node", "nodes");
    if (s == MO_OK) s = gm_count(r, h[0], 0, INT_MAX, "node block", "node blocks");
    if (s == MO_OK) s = gm_alloc_nodes(r, h[1]);
    long long blocks = h[0], n = h[1];
    int read = 0;
    for (long long b = 0; s == MO_OK && b < blocks; b++) {
        long long bh[4];
        s = gm_record(r, "Nodes", "node blocks", b, blocks);
        if (s == MO_OK) s = gm_ints(r, 4, bh, "a node block header <dim> <entity> <parametric> <nodes>");
        if (s != MO_OK) break;
        if (bh[0] < 0 || bh[0] > 3) return tm_err(t, "node block of an entity of dimension %lld", bh[0]);
        if (bh[2] != 0 && bh[2] != 1) return tm_err(t, "the parametric flag %lld is not 0 or 1", bh[2]);
        if (bh[3] < 0 || bh[3] > n - read)
            return tm_err(t, "a block of %lld nodes: the blocks would hold more than the %lld nodes the header declares",
                          bh[3], n);
        int nb = (int)bh[3], extra = bh[2] ? (int)bh[0] : 0;
        for (int k = 0; s == MO_OK && k < nb; k++) {
            s = gm_record(r, "Nodes", "node tags of the block", k, nb);
            if (s != MO_OK) break;
            if (tm_count(t) != 1) return tm_err(t, "expected one node tag, found %d values", tm_count(t));
            char bad[48];
            long long tag;
            if (!tm_int(t, &tag, bad)) return tm_err(t, "expected a node tag, found '%s'", bad);
            s = gm_node_tag(r, bad, tag);
            r->map[read + k] = (gm_node){tag, read + k, t->line};
        }
        for (int k = 0; s == MO_OK && k < nb; k++) {
            s = gm_record(r, "Nodes", "coordinate lines of the block", k, nb);
            if (s == MO_OK) s = gm_coords(r, read + k, r->map[read + k].tag, extra);
        }
        read += nb;
    }
    if (s == MO_OK && read != n)
        return tm_err(t, "the %lld node blocks hold %d nodes, the header declares %lld", blocks, read, n);
    if (s == MO_OK) s = gm_section_end(r, "Nodes", n, "nodes");
    return s;
}

/* ---- $Entities (4.1) ---- */

static int gm_volume_cmp(const void *a, const void *b)
{
    const gm_volume *x = a, *y = b;
    return (x->tag > y->tag) - (x->tag < y->tag);
}

static mo_status gm_entities(gm_reader *r)
{
    tm_text *t = &r->t;
    long long h[4];
    mo_status s = gm_header(r, "Entities");
    if (s == MO_OK) s = gm_ints(r, 4, h, "<points> <curves> <surfaces> <volumes>");
    for (int k = 0; s == MO_OK && k < 4; k++) s = gm_count(r, h[k], 0, INT_MAX, "entity", "entities");
    if (s != MO_OK) return s;
    long long lower = h[0] + h[1] + h[2];
    for (long long i = 0; s == MO_OK && i < lower; i++) s = gm_record(r, "Entities", "entities", i, lower + h[3]);
    if (s != MO_OK) return s;
    r->vols = malloc(sizeof *r->vols * (size_t)(h[3] + 1));
    if (!r->vols) return gm_oom(r, "entities");
    for (long long i = 0; i < h[3]; i++) {
        s = gm_record(r, "Entities", "entities", lower + i, lower + h[3]);
        if (s != MO_OK) return s;
        int got = tm_count(t);
        const char *layout = "a volume line <tag> <6 box numbers> <physicals> <physical tags...> <surfaces> <surfaces...>";
        if (got < 9) return tm_err(t, "expected %s, found %d values", layout, got);
        char bad[48];
        long long tag, np, nb, phys = 0;
        if (!tm_int(t, &tag, bad)) return tm_err(t, "expected a volume tag, found '%s'", bad);
        for (int k = 0; k < 6; k++) {
            double v;
            if (!tm_num(t, &v, bad)) return tm_err(t, "expected a number in the box of volume %lld, found '%s'", tag, bad);
        }
        if (!tm_int(t, &np, bad) || np < 0 || np > got - 9)
            return tm_err(t, "volume %lld: bad physical tag count '%s'", tag, bad);
        for (long long k = 0; k < np; k++) {
            long long p;
            if (!tm_int(t, &p, bad) || p < -INT_MAX || p > INT_MAX)
                return tm_err(t, "volume %lld: expected a physical tag, found '%s'", tag, bad);
            if (k == 0) phys = p;
        }
        if (!tm_int(t, &nb, bad) || nb != got - 9 - np)
            return tm_err(t, "volume %lld: bad bounding surface count '%s' (%lld values follow it)", tag, bad,
                          (long long)got - 9 - np);
        for (long long k = 0; k < nb; k++) {
            long long v;
            if (!tm_int(t, &v, bad)) return tm_err(t, "volume %lld: expected a surface tag, found '%s'", tag, bad);
        }
        r->vols[i] = (gm_volume){tag, (int)phys};
    }
    r->nvols = (int)h[3];
    qsort(r->vols, (size_t)r->nvols, sizeof *r->vols, gm_volume_cmp);
    r->have_entities = true;
    return gm_section_end(r, "Entities", lower + h[3], "entities");
}

/* ---- $Elements ---- */

static mo_status gm_alloc_tets(gm_reader *r, long long n)
{
    size_t c = (size_t)n + 1;
    r->out->tets = malloc(4 * sizeof(int) * c);
    r->out->tet_region = malloc(sizeof(int) * c);
    r->lines = malloc(sizeof(int) * c);
    r->numbers = malloc(sizeof(long long) * c);
    if (!r->out->tets || !r->out->tet_region || !r->lines || !r->numbers) return gm_oom(r, "elements");
    r->cap = (int)n;
    return MO_OK;
}

/* what: "element 6 is a second-order tetrahedron", "a block of 3 second-order tetrahedra" */
static mo_status gm_second_order(gm_reader *r, const char *what)
{
    return tm_err_status(&r->t, MO_ERR_UNSUPPORTED,
                         "%s (type 11): only linear tetrahedra (type 4) are read; mesh with Mesh.ElementOrder = 1",
                         what);
}

/* the 4 node tags left on the current line become tetrahedron number (tag) */
static mo_status gm_tet(gm_reader *r, long long tag, int region)
{
    tm_text *t = &r->t;
    mo_tetmesh *m = r->out;
    if (m->ntets >= r->cap) return tm_err(t, "more elements than the section declares");
    int *tet = m->tets + 4 * (size_t)m->ntets;
    for (int k = 0; k < 4; k++) {
        char bad[48];
        long long nt;
        if (!tm_int(t, &nt, bad))
            return tm_err(t, "expected a node tag for corner %d of element %lld, found '%s'", k + 1, tag, bad);
        int lo = 0, hi = m->nnodes - 1, at = -1;
        while (lo <= hi) {
            int mid = lo + (hi - lo) / 2;
            if (r->map[mid].tag == nt) {
                at = mid;
                break;
            }
            if (r->map[mid].tag < nt) lo = mid + 1;
            else hi = mid - 1;
        }
        if (at < 0) return tm_err(t, "element %lld: node %lld is not in $Nodes", tag, nt);
        tet[k] = r->map[at].index;
        for (int j = 0; j < k; j++)
            if (tet[j] == tet[k]) return tm_err(t, "tetrahedron %lld uses node %lld twice", tag, nt);
    }
    m->tet_region[m->ntets] = region;
    r->lines[m->ntets] = t->line;
    r->numbers[m->ntets] = tag;
    m->ntets++;
    return MO_OK;
}

static mo_status gm_elements2(gm_reader *r)
{
    tm_text *t = &r->t;
    long long n;
    mo_status s = gm_header(r, "Elements");
    if (s == MO_OK) s = gm_ints(r, 1, &n, "the element count");
    if (s == MO_OK) s = gm_count(r, n, 0, INT_MAX / 4, "element", "elements");
    if (s == MO_OK) s = gm_alloc_tets(r, n);
    for (long long i = 0; s == MO_OK && i < n; i++) {
        s = gm_record(r, "Elements", "elements", i, n);
        if (s != MO_OK) break;
        int got = tm_count(t);
        if (got < 3) return tm_err(t, "an element line has %d values, expected <tag> <type> <tags> ...", got);
        char bad[48];
        long long tag, type, ntags;
        if (!tm_int(t, &tag, bad)) return tm_err(t, "expected an element tag, found '%s'", bad);
        if (!tm_int(t, &type, bad)) return tm_err(t, "expected the type of element %lld, found '%s'", tag, bad);
        if (!tm_int(t, &ntags, bad) || ntags < 0 || ntags > got - 3)
            return tm_err(t, "element %lld: bad tag count '%s'", tag, bad);
        if (type == 11) {
            char what[96];
            snprintf(what, sizeof what, "element %lld is a second-order tetrahedron", tag);
            return gm_second_order(r, what);
        }
        if (type != 4) continue;
        if (got != 3 + ntags + 4)
            return tm_err(t, "tetrahedron %lld has %lld node tags, expected 4", tag, got - 3 - ntags);
        long long phys = 0;
        for (long long k = 0; k < ntags; k++) {
            long long v;
            if (!tm_int(t, &v, bad) || v < -INT_MAX || v > INT_MAX)
                return tm_err(t, "element %lld: expected an integer tag, found '%s'", tag, bad);
            if (k == 0) phys = v;
        }
        s = gm_tet(r, tag, (int)phys);
    }
    if (s == MO_OK) s = gm_section_end(r, "Elements", n, "elements");
    return s;
}

static mo_status gm_elements4(gm_reader *r)
{
    tm_text *t = &r->t;
    long long h[4];
    mo_status s = gm_header(r, "Elements");
    if (s == MO_OK) s = gm_ints(r, 4, h, "<blocks> <elements> <min tag> <max tag>");
    if (s == MO_OK) s = gm_count(r, h[1], 0, INT_MAX / 4, "element", "elements");
    if (s == MO_OK) s = gm_count(r, h[0], 0, INT_MAX, "element block", "element blocks");
    if (s == MO_OK) s = gm_alloc_tets(r, h[1]);
    long long blocks = h[0], n = h[1], read = 0;
    for (long long b = 0; s == MO_OK && b < blocks; b++) {
        long long bh[4];
        s = gm_record(r, "Elements", "element blocks", b, blocks);
        if (s == MO_OK) s = gm_ints(r, 4, bh, "an element block header <dim> <entity> <type> <elements>");
        if (s != MO_OK) break;
        if (bh[3] < 0 || bh[3] > n - read)
            return tm_err(t,
                          "a block of %lld elements: the blocks would hold more than the %lld elements the header "
                          "declares",
                          bh[3], n);
        long long type = bh[2], nb = bh[3];
        if (type == 11) {
            char what[96];
            snprintf(what, sizeof what, "a block of %lld second-order tetrahedra", nb);
            return gm_second_order(r, what);
        }
        int region = 0;
        if (type == 4) {
            if (bh[0] != 3) return tm_err(t, "a block of tetrahedra on an entity of dimension %lld", bh[0]);
            if (r->have_entities) {
                gm_volume key = {bh[1], 0};
                const gm_volume *v = bsearch(&key, r->vols, (size_t)r->nvols, sizeof key, gm_volume_cmp);
                if (!v) return tm_err(t, "a block of tetrahedra in volume %lld, which $Entities does not list", bh[1]);
                region = v->physical;
            }
        }
        for (long long k = 0; s == MO_OK && k < nb; k++) {
            s = gm_record(r, "Elements", "elements of the block", k, nb);
            if (s != MO_OK || type != 4) continue;
            int got = tm_count(t);
            if (got != 5) return tm_err(t, "a tetrahedron line has %d values, expected 5 (tag, 4 nodes)", got);
            char bad[48];
            long long tag;
            if (!tm_int(t, &tag, bad)) return tm_err(t, "expected an element tag, found '%s'", bad);
            s = gm_tet(r, tag, region);
        }
        read += nb;
    }
    if (s == MO_OK && read != n)
        return tm_err(t, "the %lld element blocks hold %lld elements, the header declares %lld", blocks, read, n);
    if (s == MO_OK) s = gm_section_end(r, "Elements", n, "elements");
    return s;
}

/* ---- the file ---- */

static mo_status gm_format(gm_reader *r)
{
    tm_text *t = &r->t;
    if (!tm_line(t)) return tm_err(t, "the file is empty (expected $MeshFormat)");
    if (!tm_line_is(t, "$MeshFormat")) {
        char text[48];
        tm_line_text(t, text);
        return tm_err(t, "not a Gmsh file: the first line is '%s', expected $MeshFormat", text);
    }
    mo_status s = gm_header(r, "MeshFormat");
    if (s != MO_OK) return s;
    if (tm_count(t) != 3) return tm_err(t, "expected <version> <file type> <data size>, found %d values", tm_count(t));
    char ver[48], bad[48];
    double v;
    long long type, size;
    if (!tm_num(t, &v, ver)) return tm_err(t, "expected a version number, found '%s'", ver);
    if (!tm_int(t, &type, bad)) return tm_err(t, "expected the file type (0 ASCII, 1 binary), found '%s'", bad);
    if (!tm_int(t, &size, bad)) return tm_err(t, "expected the data size, found '%s'", bad);
    if (type == 1)
        return tm_err_status(t, MO_ERR_UNSUPPORTED,
                             "binary .msh files are not read: save the mesh as ASCII (Gmsh: Mesh.Binary = 0)");
    if (type != 0) return tm_err(t, "the file type is %lld: expected 0 (ASCII)", type);
    if (v == 4.1) r->version = 4;
    else if (v == 2.0 || v == 2.1 || v == 2.2) r->version = 2;
    else
        return tm_err_status(t, MO_ERR_UNSUPPORTED,
                             "Gmsh format %s is not read: save as format 4.1 or 2.2 ASCII (Mesh.MshFileVersion)", ver);
    return gm_section_end(r, "MeshFormat", 0, NULL);
}

/* '$' and letters, digits or '_', not $End... */
static bool gm_section_name(const tm_text *t)
{
    size_t n = (size_t)(t->end - t->p);
    if (n < 2 || (n >= 4 && memcmp(t->p, "$End", 4) == 0)) return false;
    for (size_t k = 1; k < n; k++) {
        char c = t->p[k];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')) return false;
    }
    return true;
}

/* skips the section whose name line is the current line to its $End line */
static mo_status gm_skip(gm_reader *r)
{
    tm_text *t = &r->t;
    char end[80], text[48];
    size_t n = (size_t)(t->end - t->p);
    tm_line_text(t, text);
    if (n > 64) return tm_err(t, "the section name '%s' is too long", text);
    memcpy(end, "$End", 4);
    memcpy(end + 4, t->p + 1, n - 1);
    end[n + 3] = '\0';
    while (tm_line(t))
        if (tm_line_is(t, end)) return MO_OK;
    return tm_err(t, "the file ends inside %s (no %s)", text, end);
}

static mo_status gm_sections(gm_reader *r)
{
    tm_text *t = &r->t;
    mo_status s = gm_format(r);
    while (s == MO_OK && tm_line(t)) {
        char name[48];
        tm_line_text(t, name);
        if (!tm_line_is_section(t)) return tm_err(t, "expected a section ($Name), found '%s'", name);
        if (tm_line_is(t, "$Nodes")) {
            if (r->have_nodes) return tm_err(t, "a second $Nodes section");
            r->have_nodes = true;
            s = r->version == 2 ? gm_nodes2(r) : gm_nodes4(r);
            if (s == MO_OK) s = gm_sort_nodes(r);
        } else if (tm_line_is(t, "$Elements")) {
            if (r->have_elements) return tm_err(t, "a second $Elements section");
            if (!r->have_nodes) return tm_err(t, "$Elements comes before $Nodes");
            r->have_elements = true;
            r->elements_line = t->line;
            s = r->version == 2 ? gm_elements2(r) : gm_elements4(r);
        } else if (r->version == 4 && tm_line_is(t, "$Entities")) {
            if (r->have_entities) return tm_err(t, "a second $Entities section");
            if (r->have_elements) return tm_err(t, "$Entities comes after $Elements");
            s = gm_entities(r);
        } else if (tm_line_is(t, "$MeshFormat")) {
            return tm_err(t, "a second $MeshFormat section");
        } else if (!gm_section_name(t)) {
            return tm_err(t, "'%s' is not a section name", name);
        } else {
            s = gm_skip(r);
        }
    }
    if (s != MO_OK) return s;
    if (!r->have_elements) return tm_err(t, "the file has no $Elements section");
    if (r->out->ntets == 0) {
        t->line = r->elements_line;
        return tm_err(t, "$Elements holds no tetrahedra (element type 4)");
    }
    return MO_OK;
}

mo_status tm_read_gmsh(const char *path, unsigned flags, mo_tetmesh *out, char *err, size_t err_size)
{
    memset(out, 0, sizeof *out);
    gm_reader r;
    memset(&r, 0, sizeof r);
    r.out = out;
    mo_status s = tm_open(&r.t, path, false, err, err_size);
    if (s != MO_OK) return s;
    s = gm_sections(&r);
    tm_close(&r.t);
    if (s == MO_OK) {
        /* give back the room of skipped elements */
        int *tets = realloc(out->tets, 4 * sizeof(int) * (size_t)out->ntets);
        if (tets) out->tets = tets;
        int *reg = realloc(out->tet_region, sizeof(int) * (size_t)out->ntets);
        if (reg) out->tet_region = reg;
        if (flags & MO_TETMESH_REORIENT) tm_reorient(out);
        s = tm_check_volumes(out, path, r.lines, r.numbers, err, err_size);
    }
    free(r.map);
    free(r.vols);
    free(r.lines);
    free(r.numbers);
    if (s != MO_OK) mo_tetmesh_free(out);
    return s;
}
