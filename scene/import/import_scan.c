/* import_scan.c: what mo_mesh_load checks before Assimp sees a file (issue 18,
 * "bounded cost for any input").
 *
 * Assimp 5.2 has no memory cap and no import property that bounds what a
 * declared count makes it allocate, and its Collada parser loops forever,
 * allocating, on one index that is not an integer ("nan", "1e9" in a <p>:
 * 75-220 s and 19 GB before std::bad_alloc). So:
 *   - the file may have at most MO_MESH_MAX_FILE_BYTES;
 *   - zip archives (.zae, .3mf...) are refused: what they expand to cannot be
 *     checked before Assimp expands it;
 *   - Collada (.dae, or "<COLLADA" in the first KiB) is scanned as XML: the
 *     text of every integer list (<p>, <vcount>, <v>, <h>, <int_array>) must
 *     be integers only, an array's count may not exceed the numbers its text
 *     holds, every other count at most one per two bytes of the file, offsets
 *     at most MO_MESH_MAX_INPUT_OFFSET and strides at most MO_MESH_MAX_STRIDE;
 *   - PLY (a file starting "ply"): each element's declared count at most the
 *     bytes after the header (a 30-byte body declaring 1e8 vertices or faces
 *     kept Assimp busy for over 100 s);
 *   - binary glTF (a file starting "glTF"): the header's total length and
 *     every chunk's length at most the bytes the file has (Assimp allocates a
 *     JSON chunk's declared length before reading it: 2.1 GB for a 400-byte
 *     file), and the JSON inside, like a text .gltf, is checked as below;
 *   - glTF JSON (.gltf, or '{' followed by "asset" in the first KiB): every
 *     "byteLength", "byteOffset" and "byteStride" a non-negative integer of at
 *     most MO_MESH_MAX_FILE_BYTES (no buffer may be larger than a file), and
 *     every "count" at most the largest byteLength declared (an element takes
 *     at least one byte).
 * Each refusal is a sentence naming the file, the line and the element. */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import_scan.h"

typedef struct scan {
    const char *path, *buf, *end;
    size_t len;
    char *err;
    size_t err_size;
} scan;

static int line_of(const scan *s, const char *at)
{
    int line = 1;
    for (const char *p = s->buf; p < at; p++) line += *p == '\n';
    return line;
}

static mo_status scan_fail(const scan *s, const char *at, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static mo_status scan_fail(const scan *s, const char *at, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (s->err && s->err_size) snprintf(s->err, s->err_size, "%s:%d: cannot read: %s", s->path, line_of(s, at), msg);
    return MO_ERR_IO;
}

static const char *find(const char *p, const char *end, const char *what)
{
    size_t n = strlen(what);
    for (; p + n <= end; p++)
        if (memcmp(p, what, n) == 0) return p;
    return NULL;
}

static bool is_ws(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

/* the text t..e as an integer list: number of integers, or -1 at the first bad token (*bad) */
static long long int_tokens(const char *t, const char *e, const char **bad)
{
    long long n = 0;
    while (t < e) {
        while (t < e && is_ws(*t)) t++;
        if (t == e) break;
        const char *s = t;
        if (*t == '-' || *t == '+') t++;
        const char *d = t;
        while (t < e && *t >= '0' && *t <= '9') t++;
        if (t == d || (t < e && !is_ws(*t))) {
            *bad = s;
            return -1;
        }
        n++;
    }
    return n;
}

static long long any_tokens(const char *t, const char *e)
{
    long long n = 0;
    while (t < e) {
        while (t < e && is_ws(*t)) t++;
        if (t == e) break;
        while (t < e && !is_ws(*t)) t++;
        n++;
    }
    return n;
}

/* an attribute's value as a non-negative integer (digits only), -1 otherwise */
static long long attr_int(const char *v, size_t n)
{
    long long x = 0;
    if (n == 0 || n > 18) return n > 18 ? (long long)1 << 62 : -1;
    for (size_t k = 0; k < n; k++) {
        if (v[k] < '0' || v[k] > '9') return -1;
        x = 10 * x + (v[k] - '0');
    }
    return x;
}

static mo_status scan_collada(scan *s)
{
    static const char *const int_lists[] = {"p", "vcount", "v", "h", "int_array", NULL};
    const char *p = s->buf, *end = s->end;
    while ((p = memchr(p, '<', (size_t)(end - p)))) {
        const char *tag = p;
        if (end - p >= 4 && memcmp(p, "<!--", 4) == 0) {
            const char *q = find(p + 4, end, "-->");
            if (!q) return scan_fail(s, tag, "a comment is not closed");
            p = q + 3;
            continue;
        }
        if (end - p >= 9 && memcmp(p, "<![CDATA[", 9) == 0) {
            const char *q = find(p + 9, end, "]]>");
            if (!q) return scan_fail(s, tag, "a CDATA section is not closed");
            p = q + 3;
            continue;
        }
        if (p + 1 < end && (p[1] == '?' || p[1] == '!' || p[1] == '/')) {
            const char *q = memchr(p, '>', (size_t)(end - p));
            if (!q) return scan_fail(s, tag, "markup is not closed");
            p = q + 1;
            continue;
        }
        /* a start tag: its name without a namespace prefix */
        p++;
        const char *name = p;
        while (p < end && !is_ws(*p) && *p != '>' && *p != '/') p++;
        const char *name_end = p;
        for (const char *c = name; c < name_end; c++)
            if (*c == ':') name = c + 1;
        char nm[32];
        size_t nl = (size_t)(name_end - name) < sizeof nm - 1 ? (size_t)(name_end - name) : sizeof nm - 1;
        memcpy(nm, name, nl);
        nm[nl] = '\0';
        long long count = -1;
        bool closed = false;
        /* attributes */
        for (;;) {
            while (p < end && is_ws(*p)) p++;
            if (p >= end) return scan_fail(s, tag, "element <%s> is not closed", nm);
            if (*p == '>') {
                p++;
                break;
            }
            if (*p == '/') {
                closed = true;
                p++;
                continue;
            }
            const char *an = p;
            while (p < end && *p != '=' && !is_ws(*p) && *p != '>') p++;
            size_t anl = (size_t)(p - an);
            while (p < end && is_ws(*p)) p++;
            if (p >= end || *p != '=') continue;
            p++;
            while (p < end && is_ws(*p)) p++;
            if (p >= end || (*p != '"' && *p != '\'')) return scan_fail(s, tag, "element <%s> has a bad attribute", nm);
            char quote = *p++;
            const char *v = p;
            while (p < end && *p != quote) p++;
            if (p >= end) return scan_fail(s, tag, "element <%s> has an attribute that is not closed", nm);
            size_t vl = (size_t)(p - v);
            p++;
            bool is_count = anl == 5 && memcmp(an, "count", 5) == 0;
            bool is_offset = anl == 6 && memcmp(an, "offset", 6) == 0;
            bool is_stride = anl == 6 && memcmp(an, "stride", 6) == 0;
            if (!is_count && !is_offset && !is_stride) continue;
            long long x = attr_int(v, vl);
            const char *an_text = is_count ? "count" : is_offset ? "offset" : "stride";
            if (x < 0) return scan_fail(s, tag, "<%s> has %s \"%.*s\", not an integer", nm, an_text, vl > 40 ? 40 : (int)vl, v);
            long long max = is_count ? (long long)(s->len / 2) : is_offset ? MO_MESH_MAX_INPUT_OFFSET : MO_MESH_MAX_STRIDE;
            if (x > max)
                return scan_fail(s, tag, "<%s> has %s %lld, more than the %lld %s", nm, an_text, x, max,
                                 is_count ? "a file of this size can hold (one per two bytes)" : "allowed");
            if (is_count) count = x;
        }
        if (closed) continue;
        bool int_list = false;
        for (int k = 0; int_lists[k]; k++) int_list |= strcmp(nm, int_lists[k]) == 0;
        bool array = nl > 6 && strcmp(nm + nl - 6, "_array") == 0;
        if (!int_list && !array) continue;
        /* the element's text runs to the next '<', which must close it */
        const char *t = p, *te = memchr(p, '<', (size_t)(end - p));
        if (!te || te + 1 >= end || te[1] != '/')
            return scan_fail(s, tag, "<%s> holds markup or is not closed (only numbers are read there)", nm);
        long long n;
        if (int_list || strcmp(nm, "int_array") == 0) {
            const char *bad = NULL;
            n = int_tokens(t, te, &bad);
            if (n < 0) {
                size_t bl = 0;
                while (bad + bl < te && !is_ws(bad[bl]) && bl < 40) bl++;
                return scan_fail(s, bad, "<%s> holds \"%.*s\" where an integer index was expected", nm, (int)bl, bad);
            }
        } else {
            n = any_tokens(t, te);
        }
        if (array && count > n)
            return scan_fail(s, tag, "<%s> declares count %lld but holds %lld values", nm, count, n);
        p = te;
    }
    return MO_OK;
}

/* PLY: every "element NAME COUNT" of the header at most one record per byte after
   the header (Assimp reserves for the count and then reads record by record: a
   30-byte body declaring 1e8 vertices ran for minutes) */
static mo_status scan_ply(scan *s)
{
    const char *p = s->buf, *end = s->end, *hdr_end = find(p, end, "end_header");
    if (!hdr_end) return MO_OK; /* Assimp says what is wrong */
    const char *body = memchr(hdr_end, '\n', (size_t)(end - hdr_end));
    long long left = body ? (long long)(end - body - 1) : 0;
    while (p < hdr_end) {
        const char *eol = memchr(p, '\n', (size_t)(hdr_end - p));
        if (!eol) eol = hdr_end;
        if (eol - p > 8 && memcmp(p, "element", 7) == 0 && is_ws(p[7])) {
            char name[64] = "";
            long long count = -1;
            char line[256];
            size_t ll = (size_t)(eol - p) < sizeof line - 1 ? (size_t)(eol - p) : sizeof line - 1;
            memcpy(line, p, ll);
            line[ll] = '\0';
            if (sscanf(line + 7, "%63s %lld", name, &count) == 2 && (count < 0 || count > left))
                return scan_fail(s, p, "PLY element '%s' declares %lld records but %lld bytes follow the header", name,
                                 count, left);
        }
        p = eol + 1;
    }
    return MO_OK;
}

static unsigned long u32le(const unsigned char *b)
{
    return (unsigned long)b[0] | (unsigned long)b[1] << 8 | (unsigned long)b[2] << 16 | (unsigned long)b[3] << 24;
}

/* a refusal with no line (the binary part of a file) */
static mo_status scan_fail_bin(const scan *s, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static mo_status scan_fail_bin(const scan *s, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (s->err && s->err_size) snprintf(s->err, s->err_size, "%s: cannot read: %s", s->path, msg);
    return MO_ERR_IO;
}

/* the value after "key": in glTF JSON (v..e): a non-negative integer, or -1 */
static long long json_uint(const char *v, const char *e)
{
    while (v < e && is_ws(*v)) v++;
    if (v < e && *v == ':') v++;
    while (v < e && is_ws(*v)) v++;
    long long n = 0;
    const char *d = v;
    while (v < e && *v >= '0' && *v <= '9') {
        if (n > (long long)MO_MESH_MAX_FILE_BYTES * 16) return -1;
        n = n * 10 + (*v++ - '0');
    }
    if (v == d || (v < e && (*v == '.' || *v == 'e' || *v == 'E'))) return -1;
    return n;
}

/* glTF JSON in t..e: byte sizes bounded by the largest file, counts by the largest byteLength */
static mo_status scan_gltf_json(scan *s, const char *t, const char *e)
{
    static const char *const sizes[] = {"\"byteLength\"", "\"byteOffset\"", "\"byteStride\""};
    long long most = 0;
    for (int k = 0; k < 3; k++)
        for (const char *p = find(t, e, sizes[k]); p; p = find(p + 1, e, sizes[k])) {
            long long n = json_uint(p + strlen(sizes[k]), e);
            int key = (int)strlen(sizes[k]) - 2;
            if (n < 0)
                return scan_fail(s, p, "glTF %.*s is not a non-negative integer", key, sizes[k] + 1);
            if (n > (long long)MO_MESH_MAX_FILE_BYTES)
                return scan_fail(s, p, "glTF %.*s %lld is more than the %d MiB a mesh file may have", key,
                                 sizes[k] + 1, n, (int)(MO_MESH_MAX_FILE_BYTES >> 20));
            if (k == 0 && n > most) most = n;
        }
    for (const char *p = find(t, e, "\"count\""); p; p = find(p + 1, e, "\"count\"")) {
        long long n = json_uint(p + 7, e);
        if (n < 0) return scan_fail(s, p, "glTF count is not a non-negative integer");
        if (n > most)
            return scan_fail(s, p, "glTF count %lld is more than the %lld bytes of the largest buffer declared", n,
                             most);
    }
    return MO_OK;
}

/* binary glTF: header and chunk lengths against the file, then the JSON chunk */
static mo_status scan_glb(scan *s)
{
    const unsigned char *b = (const unsigned char *)s->buf;
    unsigned long len = (unsigned long)s->len;
    if (len < 12) return MO_OK; /* Assimp says the header is short */
    unsigned long version = u32le(b + 4), total = u32le(b + 8);
    if (total > len)
        return scan_fail_bin(s, "the binary glTF header declares %lu bytes but the file has %lu", total, len);
    if (version == 1) {
        if (len < 20) return MO_OK;
        unsigned long content = u32le(b + 12);
        if (content > len - 20)
            return scan_fail_bin(s, "the binary glTF 1 header declares %lu bytes of JSON but %lu follow it", content,
                                 len - 20);
        return scan_gltf_json(s, s->buf + 20, s->buf + 20 + content);
    }
    unsigned long at = 12;
    for (int chunk = 0; at + 8 <= len; chunk++) {
        unsigned long clen = u32le(b + at), type = u32le(b + at + 4);
        if (clen > len - at - 8)
            return scan_fail_bin(s, "binary glTF chunk %d declares %lu bytes but %lu follow its header", chunk, clen,
                                 len - at - 8);
        if (chunk == 0 && type == 0x4E4F534Aul) { /* "JSON" */
            mo_status st = scan_gltf_json(s, s->buf + at + 8, s->buf + at + 8 + clen);
            if (st != MO_OK) return st;
        }
        at += 8 + clen;
    }
    return MO_OK;
}

static bool ci_contains(const char *b, size_t n, const char *what)
{
    size_t w = strlen(what);
    for (size_t i = 0; i + w <= n; i++) {
        size_t k = 0;
        while (k < w && tolower((unsigned char)b[i + k]) == what[k]) k++;
        if (k == w) return true;
    }
    return false;
}

mo_status mo_mesh_scan(const char *path, char *err, size_t err_size)
{
    FILE *f = fopen(path, "rb");
    if (!f) return MO_OK; /* the caller reports it */
    if (fseek(f, 0, SEEK_END) != 0) {
        fclose(f);
        return MO_OK;
    }
    long size = ftell(f);
    if (size < 0 || (unsigned long)size > MO_MESH_MAX_FILE_BYTES) {
        fclose(f);
        if (err && err_size)
            snprintf(err, err_size, "%s: cannot read: the file has %ld bytes, more than the %d MiB a mesh file may have",
                     path, size, (int)(MO_MESH_MAX_FILE_BYTES >> 20));
        return MO_ERR_IO;
    }
    rewind(f);
    char *buf = malloc((size_t)size + 1);
    if (!buf) {
        fclose(f);
        if (err && err_size) snprintf(err, err_size, "%s: out of memory", path);
        return MO_ERR_OUT_OF_MEMORY;
    }
    size_t len = fread(buf, 1, (size_t)size, f);
    fclose(f);
    buf[len] = '\0';
    mo_status st = MO_OK;
    size_t pl = strlen(path);
    bool dae = pl >= 4 && (strcmp(path + pl - 4, ".dae") == 0 || strcmp(path + pl - 4, ".DAE") == 0);
    bool gltf = pl >= 5 && (strcmp(path + pl - 5, ".gltf") == 0 || strcmp(path + pl - 5, ".GLTF") == 0);
    if (len >= 4 && memcmp(buf, "PK\003\004", 4) == 0) {
        if (err && err_size)
            snprintf(err, err_size,
                     "%s: cannot read: zip archives (.zae, .3mf) are not read, as what they expand to cannot be "
                     "checked first",
                     path);
        st = MO_ERR_UNSUPPORTED;
    } else if (len >= 4 && memcmp(buf, "ply", 3) == 0 && (buf[3] == '\n' || buf[3] == '\r')) {
        scan s = {path, buf, buf + len, len, err, err_size};
        st = scan_ply(&s);
    } else if (len >= 4 && memcmp(buf, "glTF", 4) == 0) {
        scan s = {path, buf, buf + len, len, err, err_size};
        st = scan_glb(&s);
    } else if (gltf || (len > 0 && buf[strspn(buf, " \t\r\n")] == '{' &&
                        ci_contains(buf, len < 1024 ? len : 1024, "\"asset\""))) {
        scan s = {path, buf, buf + len, len, err, err_size};
        st = scan_gltf_json(&s, buf, buf + len);
    } else if (dae || ci_contains(buf, len < 1024 ? len : 1024, "<collada")) {
        scan s = {path, buf, buf + len, len, err, err_size};
        st = scan_collada(&s);
    }
    free(buf);
    return st;
}
