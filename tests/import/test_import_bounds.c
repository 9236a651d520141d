/* test_import_bounds: mesh files that made Assimp run without bound (issue 18,
 * "bounded cost for any input"). Assimp 5.2's Collada parser loops forever,
 * allocating, on one index in a <p> that is not an integer ("nan", "1e9":
 * 75-220 s and 19 GB before std::bad_alloc in the issue), and reserves for
 * declared counts; mo_mesh_load now scans such files first (import_scan.c).
 *
 * Each bad file is tests/import/data/box.dae with one change, written here to
 * a fresh folder; each is loaded in a child process capped at 1 GiB of address
 * space (tests/bounded.h; not applied under ASan) and must fail there with its
 * exact sentence (before the scan, the "nan" file ended in "std::bad_alloc"
 * after 24 s under that cap). The untouched box still loads in the capped
 * child. A scene file that loads the "nan" file fails with its own file and
 * line, and the mesh's. PLY headers whose element counts exceed the bytes that
 * follow (over 100 s in Assimp before). Skips (77) without Assimp. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "moreau/import.h"
#include "moreau/scene.h"
#include "moreau/moreau.h"
#include "bounded.h"
#include "tmpdir.h"
#include "check.h"

#define DATA MO_SOURCE_ROOT "/tests/import/data/"
#define CAP ((size_t)1 << 30)

static char tmpdir[256];
static char *box; /* box.dae's text */

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *b = malloc((size_t)n + 1);
    if (b && fread(b, 1, (size_t)n, f) != (size_t)n) free(b), b = NULL;
    if (b) b[n] = '\0';
    fclose(f);
    return b;
}

/* box.dae with its first `from` replaced by `to`, written as tmpdir/name */
static void write_variant(const char *name, const char *from, const char *to, char *path, size_t size)
{
    snprintf(path, size, "%s/%s", tmpdir, name);
    const char *at = strstr(box, from);
    if (!at) {
        fprintf(stderr, "box.dae has no '%s'\n", from);
        exit(1);
    }
    FILE *f = fopen(path, "wb");
    if (!f) exit(1);
    fwrite(box, 1, (size_t)(at - box), f);
    fputs(to, f);
    fputs(at + strlen(from), f);
    fclose(f);
}

/* the file src with its first `from` replaced by `to` (n bytes), written as tmpdir/name */
static void write_patched(const char *src, const char *name, const char *from, size_t from_n, const char *to,
                          size_t to_n, char *path, size_t size)
{
    snprintf(path, size, "%s/%s", tmpdir, name);
    FILE *in = fopen(src, "rb");
    if (!in) exit(1);
    char b[1 << 16];
    size_t n = fread(b, 1, sizeof b, in);
    fclose(in);
    const char *at = NULL;
    for (size_t i = 0; i + from_n <= n && !at; i++)
        if (memcmp(b + i, from, from_n) == 0) at = b + i;
    if (!at) {
        fprintf(stderr, "%s has no '%s'\n", src, from);
        exit(1);
    }
    FILE *f = fopen(path, "wb");
    if (!f) exit(1);
    fwrite(b, 1, (size_t)(at - b), f);
    fwrite(to, 1, to_n, f);
    fwrite(at + from_n, 1, n - (size_t)(at - b) - from_n, f);
    fclose(f);
}

static int load_child(void *arg, char *msg, size_t size)
{
    mo_mesh_data m;
    mo_status st = mo_mesh_load((const char *)arg, (mo_vec3){1, 1, 1}, &m, msg, size);
    if (st == MO_OK) snprintf(msg, size, "%d vertices, %d triangles", m.nvertices, m.ntriangles);
    mo_mesh_free(&m);
    return (int)st;
}

/* loads path in the capped child: status want and exactly "path" + tail */
static void expect_bounded(const char *path, mo_status want, const char *tail)
{
    char msg[2048], full[2048];
    int st = -1;
    int rc = bounded_run(load_child, (void *)path, CAP, &st, msg, sizeof msg);
    CHECK(rc == 0);
    if (rc != 0) {
        fprintf(stderr, "  %s: the loader died in a 1 GiB address space\n", path);
        return;
    }
    CHECK(st == (int)want);
    snprintf(full, sizeof full, "%s%s", path, tail);
    CHECK_STR(msg, full);
}

int main(void)
{
    {
        mo_mesh_data m;
        char err[512];
        if (mo_mesh_load(DATA "box.dae", (mo_vec3){1, 1, 1}, &m, err, sizeof err) == MO_ERR_UNSUPPORTED) {
            printf("SKIP: built without Assimp\n");
            return 77;
        }
        mo_mesh_free(&m);
    }
    if (test_tmpdir_make(tmpdir, sizeof tmpdir, "moreau_import_bounds")) return 1;
    box = slurp(DATA "box.dae");
    CHECK(box != NULL);
    if (!box) return 1;
    if (!bounded_capped()) printf("AddressSanitizer: the 1 GiB address-space cap is not applied\n");
    char path[512];

    check_group_begin();
    /* the box itself, in the capped child */
    {
        char msg[256];
        int st = -1;
        CHECK(bounded_run(load_child, (void *)(DATA "box.dae"), CAP, &st, msg, sizeof msg) == 0);
        CHECK_STR(msg, "8 vertices, 12 triangles");
    }
    /* an index that is not an integer: Assimp looped on it */
    write_variant("nan.dae", "<p>0 3 2", "<p>nan 3 2", path, sizeof path);
    expect_bounded(path, MO_ERR_IO, ":22: cannot read: <p> holds \"nan\" where an integer index was expected");
    write_variant("e9.dae", "<p>0 3 2", "<p>0 1e9 2", path, sizeof path);
    expect_bounded(path, MO_ERR_IO, ":22: cannot read: <p> holds \"1e9\" where an integer index was expected");
    /* declared counts */
    write_variant("tricount.dae", "<triangles count=\"12\">", "<triangles count=\"1000000000\">", path, sizeof path);
    expect_bounded(path, MO_ERR_IO,
                   ":20: cannot read: <triangles> has count 1000000000, more than the 780 a file of this size can "
                   "hold (one per two bytes)");
    write_variant("arrcount.dae", "count=\"24\"", "count=\"300\"", path, sizeof path);
    expect_bounded(path, MO_ERR_IO, ":12: cannot read: <float_array> declares count 300 but holds 24 values");
    write_variant("offset.dae", "offset=\"0\"", "offset=\"1000000\"", path, sizeof path);
    expect_bounded(path, MO_ERR_IO,
                   ":21: cannot read: <input> has offset 1000000, more than the 64 allowed");
    check_group_end("Collada", 10, 3);

    /* PLY: declared element counts against the bytes after the header (Assimp ran for
       over 100 s on a 30-byte body declaring 1e8 vertices or faces) */
    check_group_begin();
    {
        static const char *const head = "ply\nformat ascii 1.0\nelement vertex %s\nproperty float x\n"
                                         "property float y\nproperty float z\nelement face %s\n"
                                         "property list uchar int vertex_indices\nend_header\n"
                                         "0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n";
        const char *counts[3][2] = {{"3", "1"}, {"100000000", "1"}, {"3", "100000000"}};
        const char *names[3] = {"ok.ply", "v1e8.ply", "f1e8.ply"};
        for (int k = 0; k < 3; k++) {
            snprintf(path, sizeof path, "%s/%s", tmpdir, names[k]);
            FILE *pf = fopen(path, "w");
            if (pf) fprintf(pf, head, counts[k][0], counts[k][1]), fclose(pf);
        }
        char msg[256];
        int st = -1;
        snprintf(path, sizeof path, "%s/ok.ply", tmpdir);
        CHECK(bounded_run(load_child, path, CAP, &st, msg, sizeof msg) == 0 && st == MO_OK);
        CHECK_STR(msg, "3 vertices, 1 triangles");
        snprintf(path, sizeof path, "%s/v1e8.ply", tmpdir);
        expect_bounded(path, MO_ERR_IO,
                       ":3: cannot read: PLY element 'vertex' declares 100000000 records but 26 bytes follow the header");
        snprintf(path, sizeof path, "%s/f1e8.ply", tmpdir);
        expect_bounded(path, MO_ERR_IO,
                       ":7: cannot read: PLY element 'face' declares 100000000 records but 26 bytes follow the header");
    }
    check_group_end("PLY", 10, 3);

    /* glTF: a binary glTF's header and chunk lengths against the file (Assimp allocated
       a JSON chunk's declared 2.1 GB for an 824-byte file), sizes and counts in the JSON */
    check_group_begin();
    {
        char msg[256];
        int st = -1;
        CHECK(bounded_run(load_child, (void *)(DATA "box.glb"), CAP, &st, msg, sizeof msg) == 0 && st == MO_OK);
        CHECK_STR(msg, "8 vertices, 12 triangles");
        CHECK(bounded_run(load_child, (void *)(DATA "box.gltf"), CAP, &st, msg, sizeof msg) == 0 && st == MO_OK);
        CHECK_STR(msg, "8 vertices, 12 triangles");
    }
    write_patched(DATA "box.glb", "chunk.glb", "\x58\x02\x00\x00JSON", 8, "\x00\x00\x00\x7eJSON", 8, path,
                  sizeof path);
    expect_bounded(path, MO_ERR_IO, ": cannot read: binary glTF chunk 0 declares 2113929216 bytes but 776 follow its header");
    write_patched(DATA "box.glb", "total.glb", "\x1c\x03\x00\x00", 4, "\x00\x00\x01\x00", 4, path, sizeof path);
    expect_bounded(path, MO_ERR_IO, ": cannot read: the binary glTF header declares 65536 bytes but the file has 796");
    write_patched(DATA "box.gltf", "count.gltf", "\"count\": 8", 10, "\"count\": 1000000000", 19, path, sizeof path);
    expect_bounded(path, MO_ERR_IO,
                   ":43: cannot read: glTF count 1000000000 is more than the 168 bytes of the largest buffer declared");
    write_patched(DATA "box.gltf", "length.gltf", "\"byteLength\": 168", 17, "\"byteLength\": 4000000000", 24, path,
                  sizeof path);
    expect_bounded(path, MO_ERR_IO,
                   ":79: cannot read: glTF byteLength 4000000000 is more than the 256 MiB a mesh file may have");
    write_patched(DATA "box.gltf", "float.gltf", "\"count\": 8", 10, "\"count\": 8e9", 12, path, sizeof path);
    expect_bounded(path, MO_ERR_IO, ":43: cannot read: glTF count is not a non-negative integer");
    check_group_end("glTF", 10, 3);

    check_group_begin();
    /* a zip archive */
    snprintf(path, sizeof path, "%s/box.zae", tmpdir);
    FILE *f = fopen(path, "wb");
    if (f) fwrite("PK\003\004\024\000\000\000", 1, 8, f), fclose(f);
    expect_bounded(path, MO_ERR_UNSUPPORTED,
                   ": cannot read: zip archives (.zae, .3mf) are not read, as what they expand to cannot be checked "
                   "first");
    /* a file over the size limit (sparse: no disk used) */
    snprintf(path, sizeof path, "%s/huge.obj", tmpdir);
    int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0600);
    CHECK(fd >= 0 && ftruncate(fd, (off_t)MO_MESH_MAX_FILE_BYTES + 1) == 0);
    if (fd >= 0) close(fd);
    expect_bounded(path, MO_ERR_IO, ": cannot read: the file has 268435457 bytes, more than the 256 MiB a mesh file may have");
    check_group_end("size, zip", 10, 3);

    /* URDF: entity amplification, an external entity, the size cap; the world keeps no body */
    check_group_begin();
    {
        mo_world_def wd = mo_default_world_def();
        mo_world *w = NULL;
        char err[2048], want[2048];
        CHECK(mo_world_create(&wd, &w, err, sizeof err) == MO_OK);
        mo_urdf_model um;
        snprintf(path, sizeof path, "%s/lol.urdf", tmpdir);
        f = fopen(path, "w");
        if (f) {
            /* ten levels of ten: 1e10 characters if expanded */
            fputs("<?xml version=\"1.0\"?>\n<!DOCTYPE robot [\n<!ENTITY a0 \"xxxxxxxxxx\">\n", f);
            for (int k = 1; k < 10; k++) {
                fprintf(f, "<!ENTITY a%d \"", k);
                for (int j = 0; j < 10; j++) fprintf(f, "&a%d;", k - 1);
                fputs("\">\n", f);
            }
            fputs("]>\n<robot name=\"&a9;\"><link name=\"&a9;\"/></robot>\n", f);
            fclose(f);
        }
        mo_status st = mo_urdf_load(w, path, NULL, &um, err, sizeof err);
        if (st != MO_ERR_UNSUPPORTED) {
            CHECK(st == MO_ERR_IO);
            snprintf(want, sizeof want, "%s:14: XML error: Detected an entity reference loop", path);
            CHECK_STR(err, want);
            snprintf(path, sizeof path, "%s/ext.urdf", tmpdir);
            f = fopen(path, "w");
            if (f) {
                fputs("<?xml version=\"1.0\"?>\n<!DOCTYPE robot [\n<!ENTITY z SYSTEM \"/dev/zero\">\n]>\n"
                      "<robot name=\"r\"><link name=\"&z;\"/></robot>\n",
                      f);
                fclose(f);
            }
            CHECK(mo_urdf_load(w, path, NULL, &um, err, sizeof err) == MO_ERR_IO);
            snprintf(want, sizeof want, "%s:5: XML error: Attribute references external entity 'z'", path);
            CHECK_STR(err, want);
            snprintf(path, sizeof path, "%s/huge.urdf", tmpdir);
            int ufd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0600);
            CHECK(ufd >= 0 && ftruncate(ufd, (off_t)MO_URDF_MAX_FILE_BYTES + 1) == 0);
            if (ufd >= 0) close(ufd);
            CHECK(mo_urdf_load(w, path, NULL, &um, err, sizeof err) == MO_ERR_IO);
            snprintf(want, sizeof want,
                     "%s: cannot read: the file has 67108865 bytes, more than the 64 MiB a URDF file may have", path);
            CHECK_STR(err, want);
            CHECK(mo_world_bodies(w, NULL, 0) == 0);
        }
        mo_world_destroy(w);
    }
    check_group_end("URDF", 10, 3);

    /* from a scene file: the scene fails, naming its line and the mesh's */
    check_group_begin();
    snprintf(path, sizeof path, "%s/s.lua", tmpdir);
    f = fopen(path, "w");
    if (f) fputs("world{}\nlocal m = moreau.mesh('nan.dae')\n", f), fclose(f);
    mo_scene_file *s = NULL;
    char err[2048], want[2048];
    mo_status st = mo_scene_file_load(path, NULL, &s, err, sizeof err);
    if (st != MO_ERR_UNSUPPORTED) {
        CHECK(st != MO_OK && s == NULL);
        snprintf(want, sizeof want,
                 "%s/s.lua:2: mesh: %s/nan.dae:22: cannot read: <p> holds \"nan\" where an integer index was expected",
                 tmpdir, tmpdir);
        CHECK_STR(err, want);
    }
    mo_scene_file_destroy(s);
    check_group_end("scene", 10, 3);

    free(box);
    test_tmpdir_remove(tmpdir);
    return check_groups_result();
}
