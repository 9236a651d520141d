/* check.h: the tests' small assertion macros. Each failed check prints its
 * place and values and marks the run failed; every check, passed or not, is
 * counted. main() returns check_result(), check_result_counted() or, for a
 * test run in named groups, check_groups_result().
 *
 * CHECK_NEAR's failure line comes in three formats, one per family of tests
 * (each test keeps the one it was written with):
 *   CHECK_NEAR_G12       a = %.12g, b = %.12g, |diff| %.3g > %.3g   (default)
 *   CHECK_NEAR_G17_TOL   a = %.17g, b = %.17g, tol %g
 *   CHECK_NEAR_G17_DIFF  a = %.17g, b = %.17g, |diff| = %.3g, tol %.3g
 * A test picks a non-default one by defining CHECK_NEAR as its name before
 * including this header, e.g. #define CHECK_NEAR CHECK_NEAR_G17_TOL (an
 * object-like alias, so the printed expressions are the ones written). */
#ifndef MO_TEST_CHECK_H
#define MO_TEST_CHECK_H

#include <math.h>
#include <stdio.h>
#include <string.h>

static int check_failures = 0; /* failed checks, and failures a test reports itself */
static int check_count = 0;    /* checks run */

#define CHECK(cond)                                                                  \
    do {                                                                             \
        ++check_count;                                                               \
        if (!(cond)) {                                                               \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
            ++check_failures;                                                        \
        }                                                                            \
    } while (0)

/* the body of the CHECK_NEAR variants: evaluates a, b and tol once, counts the
   check, and unless |a - b| <= tol (NaN fails) runs report, which sees the
   values as a_, b_ and t_ */
#define CHECK_NEAR_BODY_(a, b, tol, report)        \
    do {                                           \
        double a_ = (a), b_ = (b), t_ = (tol);     \
        ++check_count;                             \
        if (!(fabs(a_ - b_) <= t_)) {              \
            report;                                \
            ++check_failures;                      \
        }                                          \
    } while (0)

#define CHECK_NEAR_G12(a, b, tol)                                                                         \
    CHECK_NEAR_BODY_(a, b, tol,                                                                           \
                     fprintf(stderr, "%s:%d: CHECK_NEAR failed: %s = %.12g, %s = %.12g, |diff| %.3g > %.3g\n", \
                             __FILE__, __LINE__, #a, a_, #b, b_, fabs(a_ - b_), t_))

#define CHECK_NEAR_G17_TOL(a, b, tol)                                                             \
    CHECK_NEAR_BODY_(a, b, tol,                                                                   \
                     fprintf(stderr, "%s:%d: CHECK_NEAR failed: %s = %.17g, %s = %.17g, tol %g\n", \
                             __FILE__, __LINE__, #a, a_, #b, b_, t_))

#define CHECK_NEAR_G17_DIFF(a, b, tol)                                                                   \
    CHECK_NEAR_BODY_(a, b, tol,                                                                          \
                     fprintf(stderr,                                                                     \
                             "%s:%d: CHECK_NEAR failed: %s = %.17g, %s = %.17g, |diff| = %.3g, tol %.3g\n", \
                             __FILE__, __LINE__, #a, a_, #b, b_, fabs(a_ - b_), t_))

#ifndef CHECK_NEAR
#define CHECK_NEAR CHECK_NEAR_G12
#endif

/* the three components of v against (x, y, z), each a CHECK_NEAR */
#define CHECK_VEC(v, x, y, z, tol)      \
    do {                                \
        CHECK_NEAR((v)[0], (x), (tol)); \
        CHECK_NEAR((v)[1], (y), (tol)); \
        CHECK_NEAR((v)[2], (z), (tol)); \
    } while (0)

#define CHECK_STR(a, b)                                                      \
    do {                                                                     \
        const char *a_ = (a), *b_ = (b);                                     \
        ++check_count;                                                       \
        if (strcmp(a_, b_) != 0) {                                           \
            fprintf(stderr, "%s:%d: CHECK_STR failed:\n  got      \"%s\"\n  expected \"%s\"\n", \
                    __FILE__, __LINE__, a_, b_);                             \
            check_failures++;                                                \
        }                                                                    \
    } while (0)

/* "name: all checks passed" on stdout, or the failure count on stderr; 0 or 1 */
static inline int check_result(const char *name)
{
    if (check_failures) fprintf(stderr, "%s: %d check(s) failed\n", name, check_failures);
    else printf("%s: all checks passed\n", name);
    return check_failures ? 1 : 0;
}

/* the same with the number of checks: "name: all N checks passed" on stdout,
   or "name: F of N checks failed" on stderr; 0 or 1 */
static inline int check_result_counted(const char *name)
{
    if (check_failures) {
        fprintf(stderr, "%s: %d of %d checks failed\n", name, check_failures, check_count);
        return 1;
    }
    printf("%s: all %d checks passed\n", name, check_count);
    return 0;
}

/* ---- named groups of checks: a line per group, a total at the end ---- */

static int check_group_failures_at = 0, check_group_count_at = 0; /* at check_group_begin() */
static int check_groups_failed = 0;

static inline void check_group_begin(void)
{
    check_group_failures_at = check_failures;
    check_group_count_at = check_count;
}

/* "ok   name  N checks, F failed" (or FAIL), name and N padded to the widths given */
static inline void check_group_end(const char *name, int name_width, int count_width)
{
    int nf = check_failures - check_group_failures_at, nc = check_count - check_group_count_at;
    if (nf) check_groups_failed++;
    printf("%s %-*s %*d checks, %d failed\n", nf ? "FAIL" : "ok  ", name_width, name, count_width, nc, nf);
    fflush(stdout);
}

/* "N checks, F failed (G groups failed)" on stdout; 0 or 1 */
static inline int check_groups_result(void)
{
    printf("%d checks, %d failed (%d groups failed)\n", check_count, check_failures, check_groups_failed);
    return check_failures ? 1 : 0;
}

#endif
