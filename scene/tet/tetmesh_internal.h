/* tetmesh_internal.h: what the tet mesh readers share: a line reader over a
 * whole file in memory (line numbers, tokens, numbers with their messages)
 * and the geometric check of the tetrahedra. */
#ifndef MO_TETMESH_INTERNAL_H
#define MO_TETMESH_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "moreau/tetmesh.h"

#if defined(__GNUC__)
#define TM_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define TM_PRINTF(f, a)
#endif

/* a text file read whole, walked line by line */
typedef struct tm_text {
    const char *path;
    char *buf;          /* the file, NUL-terminated (may hold other NULs) */
    size_t len;
    size_t next;        /* offset of the next line */
    int line;           /* number of the current line (0 before the first) */
    const char *p, *end; /* what is left of the current line */
    bool comments;      /* '#' starts a comment running to the end of the line */
    char *err;
    size_t err_size;
} tm_text;

/* err = the formatted sentence (err may be NULL) */
void tm_set_err(char *err, size_t err_size, const char *fmt, ...) TM_PRINTF(3, 4);
/* reads path whole: MO_OK, MO_ERR_IO (with "path: cannot open: reason") or
   MO_ERR_OUT_OF_MEMORY */
mo_status tm_open(tm_text *t, const char *path, bool comments, char *err, size_t err_size);
void tm_close(tm_text *t);
/* "path:line: " + the message into the reader's err; returns MO_ERR_IO */
mo_status tm_err(const tm_text *t, const char *fmt, ...) TM_PRINTF(2, 3);
/* the same with another status */
mo_status tm_err_status(const tm_text *t, mo_status s, const char *fmt, ...) TM_PRINTF(3, 4);
/* the next line with a token on it (comments removed); false at the end of
   the file, t->line then the file's last line */
bool tm_line(tm_text *t);
/* tokens left on the current line */
int tm_count(const tm_text *t);
/* the current line is exactly word (surrounding blanks aside) */
bool tm_line_is(const tm_text *t, const char *word);
/* the current line starts with '$' (a Gmsh section marker) */
bool tm_line_is_section(const tm_text *t);
/* the current line for a message: at most 40 characters, unprintable bytes as '?' */
void tm_line_text(const tm_text *t, char out[48]);
/* bytes left after the current line: bounds counts read from headers */
size_t tm_room(const tm_text *t);
/* the next token as a number / an integer; false if there is none or it is
   not one (the token is then in bad, for the message) */
bool tm_num(tm_text *t, double *v, char bad[48]);
bool tm_int(tm_text *t, long long *v, char bad[48]);

/* swaps the last two nodes of every inverted (not flat) tetrahedron */
void tm_reorient(mo_tetmesh *m);
/* the sign and size check of every tetrahedron (indices already in range and
   distinct): flat or inverted ones refused, tetrahedron t named
   "path:lines[t]: tetrahedron numbers[t]" (MO_ERR_IO) */
mo_status tm_check_volumes(const mo_tetmesh *m, const char *path, const int *lines, const long long *numbers,
                           char *err, size_t err_size);

/* the readers: *out is zeroed on entry and on failure */
mo_status tm_read_tetgen(const char *node_path, const char *ele_path, unsigned flags, mo_tetmesh *out, char *err,
                         size_t err_size);
mo_status tm_read_gmsh(const char *path, unsigned flags, mo_tetmesh *out, char *err, size_t err_size);

#endif
