/* tetmesh.c: mo_tetmesh_load (dispatch by extension), the shared line reader
 * and the readers' volume check (through the engine's
 * mo_tetmesh_element_orientation). Formats and rules: tetmesh.h. The checks
 * of a mesh in memory (mo_tetmesh_check) are the engine's
 * (engine/model/tetmesh.c). */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tetmesh_internal.h"

/* ---- errors ---- */

void tm_set_err(char *err, size_t err_size, const char *fmt, ...)
{
    if (!err || err_size == 0) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, err_size, fmt, ap);
    va_end(ap);
}

static mo_status tm_verr(const tm_text *t, mo_status s, const char *fmt, va_list ap)
{
    if (!t->err || t->err_size == 0) return s;
    int n = snprintf(t->err, t->err_size, "%s:%d: ", t->path, t->line > 0 ? t->line : 1);
    if (n >= 0 && (size_t)n < t->err_size) vsnprintf(t->err + n, t->err_size - (size_t)n, fmt, ap);
    return s;
}

mo_status tm_err(const tm_text *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    mo_status s = tm_verr(t, MO_ERR_IO, fmt, ap);
    va_end(ap);
    return s;
}

mo_status tm_err_status(const tm_text *t, mo_status s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    tm_verr(t, s, fmt, ap);
    va_end(ap);
    return s;
}

/* ---- the line reader ---- */

mo_status tm_open(tm_text *t, const char *path, bool comments, char *err, size_t err_size)
{
    memset(t, 0, sizeof *t);
    t->path = path;
    t->comments = comments;
    t->err = err;
    t->err_size = err_size;
    FILE *f = fopen(path, "rb");
    if (!f) {
        tm_set_err(err, err_size, "%s: cannot open: %s", path, strerror(errno));
        return MO_ERR_IO;
    }
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap + 1);
    while (buf) {
        len += fread(buf + len, 1, cap - len, f);
        if (len < cap) break;
        if (cap > (SIZE_MAX - 1) / 2) {
            free(buf);
            buf = NULL;
            break;
        }
        char *nb = realloc(buf, cap * 2 + 1);
        if (!nb) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = nb;
        cap *= 2;
    }
    if (!buf) {
        fclose(f);
        tm_set_err(err, err_size, "%s: out of memory reading the file", path);
        return MO_ERR_OUT_OF_MEMORY;
    }
    bool failed = ferror(f) != 0;
    fclose(f);
    if (failed) {
        free(buf);
        tm_set_err(err, err_size, "%s: read error", path);
        return MO_ERR_IO;
    }
    buf[len] = '\0';
    t->buf = buf;
    t->len = len;
    return MO_OK;
}

void tm_close(tm_text *t)
{
    free(t->buf);
    t->buf = NULL;
}

static bool tm_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

bool tm_line(tm_text *t)
{
    while (t->next < t->len) {
        const char *s = t->buf + t->next;
        const char *nl = memchr(s, '\n', t->len - t->next);
        const char *e = nl ? nl : t->buf + t->len;
        t->next = nl ? (size_t)(nl - t->buf) + 1 : t->len;
        t->line++;
        if (t->comments) {
            const char *h = memchr(s, '#', (size_t)(e - s));
            if (h) e = h;
        }
        while (s < e && tm_blank(*s)) s++;
        while (e > s && tm_blank(e[-1])) e--;
        if (s < e) {
            t->p = s;
            t->end = e;
            return true;
        }
    }
    t->p = t->end = t->buf + t->len;
    return false;
}

int tm_count(const tm_text *t)
{
    int n = 0;
    const char *p = t->p;
    while (p < t->end) {
        while (p < t->end && tm_blank(*p)) p++;
        if (p == t->end) break;
        n++;
        while (p < t->end && !tm_blank(*p)) p++;
    }
    return n;
}

bool tm_line_is(const tm_text *t, const char *word)
{
    size_t n = strlen(word);
    return (size_t)(t->end - t->p) == n && memcmp(t->p, word, n) == 0;
}

bool tm_line_is_section(const tm_text *t)
{
    return t->p < t->end && *t->p == '$';
}

static void tm_text_of(const char *s, size_t n, char out[48])
{
    size_t k = n > 40 ? 40 : n;
    for (size_t i = 0; i < k; i++) {
        unsigned char ch = (unsigned char)s[i];
        out[i] = ch >= 0x20 && ch < 0x7f ? (char)ch : '?';
    }
    if (n > 40) {
        memcpy(out + k, "...", 3);
        k += 3;
    }
    out[k] = '\0';
}

void tm_line_text(const tm_text *t, char out[48])
{
    tm_text_of(t->p, (size_t)(t->end - t->p), out);
}

size_t tm_room(const tm_text *t)
{
    return t->len - t->next;
}

/* the next token, copied NUL-terminated into tok (false if none or longer than 63) */
static bool tm_token(tm_text *t, char tok[64], char bad[48])
{
    const char *p = t->p;
    while (p < t->end && tm_blank(*p)) p++;
    const char *s = p;
    while (p < t->end && !tm_blank(*p)) p++;
    t->p = p;
    size_t n = (size_t)(p - s);
    tm_text_of(s, n, bad);
    if (n == 0 || n > 63) return false;
    memcpy(tok, s, n);
    tok[n] = '\0';
    return true;
}

bool tm_num(tm_text *t, double *v, char bad[48])
{
    char tok[64], *e;
    if (!tm_token(t, tok, bad)) return false;
    *v = strtod(tok, &e);
    return *e == '\0';
}

bool tm_int(tm_text *t, long long *v, char bad[48])
{
    char tok[64], *e;
    if (!tm_token(t, tok, bad)) return false;
    errno = 0;
    *v = strtoll(tok, &e, 10);
    return *e == '\0' && errno == 0;
}

/* ---- geometry (through mo_tetmesh_element_orientation) ---- */

void tm_reorient(mo_tetmesh *m)
{
    for (int t = 0; t < m->ntets; t++)
        if (mo_tetmesh_element_orientation(m, t, NULL) < 0) {
            int *tet = m->tets + 4 * (size_t)t, s = tet[2];
            tet[2] = tet[3];
            tet[3] = s;
        }
}

mo_status tm_check_volumes(const mo_tetmesh *m, const char *path, const int *lines, const long long *numbers,
                           char *err, size_t err_size)
{
    for (int t = 0; t < m->ntets; t++) {
        double vol;
        int o = mo_tetmesh_element_orientation(m, t, &vol);
        if (o > 0) continue;
        tm_set_err(err, err_size, "%s:%d: tetrahedron %lld %s (volume %.3g)", path, lines[t], numbers[t],
                   o == 0 ? "has zero volume" : "is inverted", vol);
        return MO_ERR_IO;
    }
    return MO_OK;
}

/* ---- public ---- */

static bool tm_ends_with(const char *s, size_t n, const char *ext)
{
    size_t k = strlen(ext);
    if (n < k) return false;
    for (size_t i = 0; i < k; i++) {
        char c = s[n - k + i];
        if (c >= 'A' && c <= 'Z') c = (char)(c - 'A' + 'a');
        if (c != ext[i]) return false;
    }
    return true;
}

mo_status mo_tetmesh_load_flags(const char *path, unsigned flags, mo_tetmesh *out, char *err, size_t err_size)
{
    if (out) memset(out, 0, sizeof *out);
    if (!path || !out) {
        tm_set_err(err, err_size, "mo_tetmesh_load: %s is NULL", !path ? "path" : "out");
        return MO_ERR_INVALID_ARGUMENT;
    }
    if (flags & ~MO_TETMESH_REORIENT) {
        tm_set_err(err, err_size, "mo_tetmesh_load: unknown flags 0x%x", flags & ~MO_TETMESH_REORIENT);
        return MO_ERR_INVALID_ARGUMENT;
    }
    size_t n = strlen(path);
    if (tm_ends_with(path, n, ".msh")) return tm_read_gmsh(path, flags, out, err, err_size);
    bool node = tm_ends_with(path, n, ".node"), ele = tm_ends_with(path, n, ".ele");
    if (!node && !ele) {
        tm_set_err(err, err_size, "mo_tetmesh_load: '%s' has none of the extensions .node, .ele (TetGen) or .msh (Gmsh)",
                   path);
        return MO_ERR_INVALID_ARGUMENT;
    }
    /* the other file of the pair: same stem, the extension's case kept */
    size_t stem = n - (node ? 5 : 4);
    char *other = malloc(stem + 6);
    if (!other) {
        tm_set_err(err, err_size, "mo_tetmesh_load: out of memory");
        return MO_ERR_OUT_OF_MEMORY;
    }
    memcpy(other, path, stem);
    bool upper = path[stem + 1] >= 'A' && path[stem + 1] <= 'Z';
    strcpy(other + stem, node ? (upper ? ".ELE" : ".ele") : (upper ? ".NODE" : ".node"));
    mo_status s = node ? tm_read_tetgen(path, other, flags, out, err, err_size)
                       : tm_read_tetgen(other, path, flags, out, err, err_size);
    free(other);
    return s;
}

mo_status mo_tetmesh_load(const char *path, mo_tetmesh *out, char *err, size_t err_size)
{
    return mo_tetmesh_load_flags(path, 0, out, err, err_size);
}
