/* sweep_plan.c: grid parsing, CSV rows and the journal of moreau-sweep (sweep_plan.h) */
#include "sweep_plan.h"
#include "read_all.h"

#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <moreau/moreau.h>

void sweep_plan_free(sweep_plan *pl)
{
    for (int i = 0; i < pl->nparams; i++) free(pl->params[i].values);
    memset(pl, 0, sizeof *pl);
}

static int plan_fail(sweep_plan *pl, char *err, size_t n, const char *grid, const char *what, const char *item)
{
    snprintf(err, n, "--grid '%s': %s%s%s%s", grid, item ? "'" : "", item ? item : "", item ? "': " : "", what);
    sweep_plan_free(pl);
    return -1;
}

static int add_value(sweep_param *p, const char *v, size_t len)
{
    if (p->nvalues == SWEEP_MAX_VALUES || len == 0 || len >= SWEEP_VALUE_LEN) return -1;
    char(*nv)[SWEEP_VALUE_LEN] = realloc(p->values, (size_t)(p->nvalues + 1) * sizeof *nv);
    if (!nv) return -1;
    p->values = nv;
    memcpy(p->values[p->nvalues], v, len);
    p->values[p->nvalues][len] = '\0';
    p->nvalues++;
    return 0;
}

/* a finite number spelled fully by s (len bytes) */
static bool parse_number(const char *s, size_t len, double *out)
{
    char buf[SWEEP_VALUE_LEN + 16];
    if (len == 0 || len >= sizeof buf) return false;
    memcpy(buf, s, len);
    buf[len] = '\0';
    char *end = NULL;
    errno = 0;
    double v = strtod(buf, &end);
    if (end == buf || *end || errno == ERANGE || !isfinite(v)) return false;
    *out = v;
    return true;
}

/* "A:B:N": N values from A to B; 1 when item is a range (added), 0 when not, -1 with why set */
static int add_range(sweep_param *p, const char *item, const char **why)
{
    const char *c1 = strchr(item, ':');
    if (!c1) return 0;
    const char *c2 = strchr(c1 + 1, ':');
    double a, b, nd;
    if (!c2 || strchr(c2 + 1, ':') || !parse_number(item, (size_t)(c1 - item), &a) ||
        !parse_number(c1 + 1, (size_t)(c2 - c1 - 1), &b) || !parse_number(c2 + 1, strlen(c2 + 1), &nd)) {
        *why = "a range is A:B:N with numbers A, B and a count N";
        return -1;
    }
    if (nd != floor(nd) || nd < 1 || nd > SWEEP_MAX_VALUES) {
        *why = "the count N of a range A:B:N must be a whole number from 1 to 4096";
        return -1;
    }
    int n = (int)nd;
    if (n == 1 && a != b) {
        *why = "a range of 1 value must have A = B";
        return -1;
    }
    for (int k = 0; k < n; k++) {
        double v = n == 1 ? a : a + (b - a) * k / (n - 1);
        if (k == n - 1) v = b;
        char s[SWEEP_VALUE_LEN];
        int len = snprintf(s, sizeof s, "%.12g", v);
        if (!strcmp(s, "-0")) len = snprintf(s, sizeof s, "0");
        if (add_value(p, s, (size_t)len)) {
            *why = "too many values (or out of memory)";
            return -1;
        }
    }
    return 1;
}

int sweep_plan_parse(sweep_plan *pl, const char *grid, int seeds, char *err, size_t err_size)
{
    memset(pl, 0, sizeof *pl);
    if (!grid) grid = "";
    if (seeds < 1) {
        snprintf(err, err_size, "--seeds %d: must be at least 1", seeds);
        return -1;
    }
    pl->seeds = seeds;
    const char *s = grid;
    while (*s) {
        const char *end = strchr(s, ',');
        size_t len = end ? (size_t)(end - s) : strlen(s);
        char item[256];
        if (len == 0) return plan_fail(pl, err, err_size, grid, "an empty item (two commas, or a comma at an end)", NULL);
        if (len >= sizeof item) return plan_fail(pl, err, err_size, grid, "an item longer than 255 characters", NULL);
        memcpy(item, s, len);
        item[len] = '\0';
        const char *eq = strchr(item, '=');
        const char *val = item;
        if (eq) {
            size_t nl = (size_t)(eq - item);
            if (nl == 0 || nl >= SWEEP_NAME_LEN)
                return plan_fail(pl, err, err_size, grid, "a name must have 1 to 63 characters", item);
            for (size_t k = 0; k < nl; k++)
                if (!(item[k] == '_' || item[k] == '.' || (item[k] >= 'a' && item[k] <= 'z') ||
                      (item[k] >= 'A' && item[k] <= 'Z') || (item[k] >= '0' && item[k] <= '9')))
                    return plan_fail(pl, err, err_size, grid, "a name has only letters, digits, '_' and '.'", item);
            if (pl->nparams == SWEEP_MAX_PARAMS)
                return plan_fail(pl, err, err_size, grid, "more than 16 names", NULL);
            sweep_param *p = &pl->params[pl->nparams++];
            memcpy(p->name, item, nl);
            p->name[nl] = '\0';
            for (int i = 0; i < pl->nparams - 1; i++)
                if (!strcmp(pl->params[i].name, p->name))
                    return plan_fail(pl, err, err_size, grid, "the name is given twice", p->name);
            if (!strcmp(p->name, "seed"))
                return plan_fail(pl, err, err_size, grid, "the seed is not a grid name: use --seeds N", NULL);
            p->setting = mo_setting_find(p->name) != NULL;
            val = eq + 1;
        } else if (pl->nparams == 0) {
            return plan_fail(pl, err, err_size, grid, "a value before any NAME=", item);
        }
        sweep_param *p = &pl->params[pl->nparams - 1];
        const char *why = NULL;
        int r = add_range(p, val, &why);
        if (r < 0) return plan_fail(pl, err, err_size, grid, why, item);
        if (r == 0) {
            size_t vl = strlen(val);
            if (vl == 0) return plan_fail(pl, err, err_size, grid, "an empty value", item);
            if (vl >= SWEEP_VALUE_LEN) return plan_fail(pl, err, err_size, grid, "a value longer than 47 characters", item);
            for (size_t k = 0; k < vl; k++)
                if (val[k] == '"' || val[k] == '=' || (unsigned char)val[k] < 0x20)
                    return plan_fail(pl, err, err_size, grid, "a value cannot hold '\"', '=' or control characters", item);
            if (add_value(p, val, vl)) return plan_fail(pl, err, err_size, grid, "too many values (or out of memory)", item);
        }
        s += len;
        if (*s == ',') {
            s++;
            if (!*s) return plan_fail(pl, err, err_size, grid, "an empty item (two commas, or a comma at an end)", NULL);
        }
    }
    long long points = 1;
    for (int i = 0; i < pl->nparams; i++) {
        points *= pl->params[i].nvalues;
        if (points * seeds > SWEEP_MAX_RUNS) {
            snprintf(err, err_size, "--grid '%s' with --seeds %d: more than %d runs", grid, seeds, SWEEP_MAX_RUNS);
            sweep_plan_free(pl);
            return -1;
        }
    }
    if (points * seeds > SWEEP_MAX_RUNS) {
        snprintf(err, err_size, "--seeds %d: more than %d runs", seeds, SWEEP_MAX_RUNS);
        sweep_plan_free(pl);
        return -1;
    }
    pl->npoints = (int)points;
    pl->nruns = (int)(points * seeds);
    return 0;
}

void sweep_plan_run(const sweep_plan *pl, int r, int *point, int *seed, int *idx)
{
    int p = r / pl->seeds;
    if (point) *point = p;
    if (seed) *seed = r % pl->seeds;
    if (idx)
        for (int i = pl->nparams - 1; i >= 0; i--) {
            idx[i] = p % pl->params[i].nvalues;
            p /= pl->params[i].nvalues;
        }
}

/* ---- CSV ---- */

typedef struct buf { char *p; size_t n, len; bool over; } buf;

static void put(buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(buf *b, const char *fmt, ...)
{
    if (b->over) return;
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(b->p + b->len, b->n - b->len, fmt, ap);
    va_end(ap);
    if (k < 0 || (size_t)k >= b->n - b->len) b->over = true;
    else b->len += (size_t)k;
}

/* a text field, quoted when it holds a comma, a quote or a line break */
static void put_field(buf *b, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        put(b, "%s", s);
        return;
    }
    put(b, "\"");
    for (const char *c = s; *c; c++) put(b, *c == '"' ? "\"\"" : "%c", *c);
    put(b, "\"");
}

static const char *const measured[] = {"status", "checks", "checks_held", "claims_held", "failed", "steps",
                                       "sim_time_s", "max_penetration_m", "max_joint_error_m", "mean_iterations",
                                       "max_residual", "max_contacts", "hash", "details", "error"};
static const char *const machine[] = {"ms_per_step", "wall_s", "rank"};
#define NMEASURED ((int)(sizeof measured / sizeof measured[0]))
#define NMACHINE ((int)(sizeof machine / sizeof machine[0]))

void sweep_csv_header(const sweep_plan *pl, char *out, size_t n)
{
    buf b = {out, n, 0, false};
    put(&b, "run,point,seed");
    for (int i = 0; i < pl->nparams; i++) put(&b, ",%s", pl->params[i].name);
    for (int i = 0; i < NMEASURED; i++) put(&b, ",%s", measured[i]);
    for (int i = 0; i < NMACHINE; i++) put(&b, ",%s", machine[i]);
    put(&b, "\n");
}

int sweep_csv_stable_columns(const sweep_plan *pl) { return 3 + pl->nparams + NMEASURED; }

int sweep_csv_row(const sweep_plan *pl, const sweep_result *r, char *out, size_t n)
{
    buf b = {out, n, 0, false};
    int idx[SWEEP_MAX_PARAMS];
    sweep_plan_run(pl, r->run, NULL, NULL, idx);
    put(&b, "%d,%d,%d", r->run, r->point, r->seed);
    for (int i = 0; i < pl->nparams; i++) {
        put(&b, ",");
        put_field(&b, pl->params[i].values[idx[i]]);
    }
    put(&b, ",%s,%d,%d,%s,", r->status, r->checks, r->checks_held,
        !strcmp(r->status, "ok") && r->checks_held == r->checks ? "true" : "false");
    put_field(&b, r->failed);
    put(&b, ",%llu,%.17g,%.17g,%.17g,%.17g,%.17g,%d,0x%016llx,", (unsigned long long)r->steps, r->sim_time,
        r->max_penetration, r->max_joint_error, r->mean_iterations, r->max_residual, r->max_contacts,
        (unsigned long long)r->hash);
    put_field(&b, r->details);
    put(&b, ",");
    put_field(&b, r->error);
    put(&b, ",%.6f,%.3f,%d\n", r->ms_per_step, r->wall_s, r->rank);
    return b.over ? -1 : (int)b.len;
}

int sweep_csv_split(const char *line, char **out, int cap)
{
    int n = 0;
    const char *c = line;
    while (n < cap) {
        size_t len = strlen(c), k = 0;
        char *f = malloc(len + 1);
        if (!f) break;
        if (*c == '"') {
            c++;
            while (*c && !(*c == '"' && c[1] != '"')) {
                if (*c == '"') c++;
                f[k++] = *c++;
            }
            if (*c == '"') c++;
        } else {
            while (*c && *c != ',' && *c != '\n' && *c != '\r') f[k++] = *c++;
        }
        f[k] = '\0';
        out[n++] = f;
        if (*c != ',') break;
        c++;
    }
    return n;
}

int sweep_cheapest(const sweep_plan *pl, char **rows, int nrows, double *ms)
{
    enum { CAP = 64 + SWEEP_MAX_PARAMS };
    int *held = calloc((size_t)pl->npoints, sizeof *held); /* seeds that held; -1 once one did not */
    double *sum = calloc((size_t)pl->npoints, sizeof *sum);
    int best = -1;
    const int c_held = 3 + pl->nparams + 3, c_ms = sweep_csv_stable_columns(pl); /* claims_held, ms_per_step */
    for (int i = 0; held && sum && i < nrows; i++) {
        char *f[CAP];
        int n = sweep_csv_split(rows[i], f, CAP);
        if (n > c_ms) {
            int point = atoi(f[1]);
            if (point >= 0 && point < pl->npoints && held[point] >= 0) {
                if (!strcmp(f[c_held], "true")) {
                    held[point]++;
                    sum[point] += strtod(f[c_ms], NULL);
                } else {
                    held[point] = -1;
                }
            }
        }
        for (int k = 0; k < n; k++) free(f[k]);
    }
    for (int p = 0; held && sum && p < pl->npoints; p++) {
        if (held[p] != pl->seeds) continue;
        double m = sum[p] / pl->seeds;
        if (best < 0 || m < *ms) {
            best = p;
            *ms = m;
        }
    }
    free(held);
    free(sum);
    return best;
}

/* ---- journal ---- */

int sweep_journal_read(const char *dir, const char *header, const sweep_plan *pl, bool *done, char ***rows,
                       int *nrows, char *err, size_t err_size)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/journal.csv", dir);
    *rows = NULL;
    *nrows = 0;
    size_t len = 0;
    int missing = 0;
    char *text = tools_read_all(path, &len, &missing);
    if (!text) {
        if (missing && access(path, F_OK) != 0) return 0; /* no journal yet */
        snprintf(err, err_size, "%s: cannot be read", path);
        return -1;
    }
    size_t hl = strlen(header);
    if (len == 0) {
        free(text);
        return 0;
    }
    if (len < hl || memcmp(text, header, hl) != 0) {
        snprintf(err, err_size, "%s: its header is not this sweep's (another grid wrote it): use another --out", path);
        free(text);
        return -1;
    }
    /* a last line without its '\n' was cut short by a crash: drop it from the file too */
    size_t keep = len;
    while (keep > hl && text[keep - 1] != '\n') keep--;
    if (keep < len && truncate(path, (off_t)keep) != 0) {
        snprintf(err, err_size, "%s: cannot cut its unfinished last line: %s", path, strerror(errno));
        free(text);
        return -1;
    }
    int cap = 0;
    for (size_t at = hl; at < keep;) {
        char *nl = memchr(text + at, '\n', keep - at);
        size_t l = (size_t)(nl - (text + at)) + 1;
        char *end = NULL;
        long run = strtol(text + at, &end, 10);
        if (end == text + at || *end != ',' || run < 0 || run >= pl->nruns) {
            snprintf(err, err_size, "%s: a row does not start with a run number of this sweep (0 to %d)", path,
                     pl->nruns - 1);
            for (int i = 0; i < *nrows; i++) free((*rows)[i]);
            free(*rows);
            *rows = NULL;
            *nrows = 0;
            free(text);
            return -1;
        }
        if (!done[run]) {
            done[run] = true;
            if (*nrows == cap) {
                cap = cap ? 2 * cap : 64;
                char **nr = realloc(*rows, (size_t)cap * sizeof *nr);
                if (!nr) break;
                *rows = nr;
            }
            char *row = malloc(l + 1);
            if (!row) break;
            memcpy(row, text + at, l);
            row[l] = '\0';
            (*rows)[(*nrows)++] = row;
        }
        at += l;
    }
    free(text);
    return 0;
}

static int write_fully(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t k = write(fd, p, n);
        if (k < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

int sweep_journal_append(const char *dir, const char *header, const char *row, char *err, size_t err_size)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/journal.csv", dir);
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT, 0644);
    if (fd < 0) {
        snprintf(err, err_size, "%s: cannot be written: %s", path, strerror(errno));
        return -1;
    }
    off_t size = lseek(fd, 0, SEEK_END);
    int rc = 0;
    if (size == 0) rc = write_fully(fd, header, strlen(header));
    if (rc == 0) rc = write_fully(fd, row, strlen(row));
    if (rc == 0) rc = fsync(fd);
    if (rc != 0) snprintf(err, err_size, "%s: cannot be written: %s", path, strerror(errno));
    close(fd);
    return rc ? -1 : 0;
}

int sweep_signature_check(const char *dir, const char *text, char *err, size_t err_size)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/sweep.txt", dir);
    size_t len = 0;
    int missing = 0;
    char *old = tools_read_all(path, &len, &missing);
    if (old) {
        bool same = len == strlen(text) && memcmp(old, text, len) == 0;
        free(old);
        if (same) return 0;
        snprintf(err, err_size, "%s: the folder holds another sweep's runs (scene, grid, seeds, length or settings "
                 "differ): use another --out, or remove the folder", path);
        return -1;
    }
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || write_fully(fd, text, strlen(text)) != 0 || fsync(fd) != 0) {
        snprintf(err, err_size, "%s: cannot be written: %s", path, strerror(errno));
        if (fd >= 0) close(fd);
        return -1;
    }
    close(fd);
    return 0;
}

static int cmp_rows(const void *a, const void *b)
{
    long x = strtol(*(char *const *)a, NULL, 10), y = strtol(*(char *const *)b, NULL, 10);
    return x < y ? -1 : x > y;
}

int sweep_write_results(const char *dir, const char *header, char **rows, int nrows, char *err, size_t err_size)
{
    char path[4096], tmp[4200];
    snprintf(path, sizeof path, "%s/results.csv", dir);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    qsort(rows, (size_t)nrows, sizeof *rows, cmp_rows);
    FILE *f = fopen(tmp, "w");
    bool ok = f && fputs(header, f) >= 0;
    for (int i = 0; ok && i < nrows; i++) ok = fputs(rows[i], f) >= 0;
    if (f && fclose(f) != 0) ok = false;
    if (!ok || rename(tmp, path) != 0) {
        snprintf(err, err_size, "%s: cannot be written: %s", path, strerror(errno));
        remove(tmp);
        return -1;
    }
    return 0;
}
