/* check.h: the tests' small assertion macros. Each failed check prints its
 * place and values and marks the run failed; main() returns check_result(). */
#ifndef MO_TEST_CHECK_H
#define MO_TEST_CHECK_H

#include <math.h>
#include <stdio.h>
#include <string.h>

static int check_failures = 0;

#define CHECK(cond)                                                          \
    do {                                                                     \
        if (!(cond)) {                                                       \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
            check_failures++;                                                \
        }                                                                    \
    } while (0)

#define CHECK_NEAR(a, b, tol)                                                \
    do {                                                                     \
        double a_ = (a), b_ = (b), t_ = (tol);                               \
        if (!(fabs(a_ - b_) <= t_)) {                                        \
            fprintf(stderr, "%s:%d: CHECK_NEAR failed: %s = %.12g, %s = %.12g, |diff| %.3g > %.3g\n", \
                    __FILE__, __LINE__, #a, a_, #b, b_, fabs(a_ - b_), t_);  \
            check_failures++;                                                \
        }                                                                    \
    } while (0)

#define CHECK_STR(a, b)                                                      \
    do {                                                                     \
        const char *a_ = (a), *b_ = (b);                                     \
        if (strcmp(a_, b_) != 0) {                                           \
            fprintf(stderr, "%s:%d: CHECK_STR failed:\n  got      \"%s\"\n  expected \"%s\"\n", \
                    __FILE__, __LINE__, a_, b_);                             \
            check_failures++;                                                \
        }                                                                    \
    } while (0)

static inline int check_result(const char *name)
{
    if (check_failures) fprintf(stderr, "%s: %d check(s) failed\n", name, check_failures);
    else printf("%s: all checks passed\n", name);
    return check_failures ? 1 : 0;
}

#endif
