/* errors.c: the one place the collision layer writes a sentence into a
 * caller's error buffer (hull and mesh builders). */
#include <stdarg.h>
#include <stdio.h>
#include "shapes.h"

void mo_cl_set_err(char *err, size_t err_size, const char *fmt, ...)
{
    if (!err || err_size == 0) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, err_size, fmt, ap);
    va_end(ap);
}
