/* sweep_h5.c: DIR/results.h5 of moreau-sweep (sweep_h5.h) */
#include "sweep_h5.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef MO_SWEEP_HDF5
#include <hdf5.h>

static bool is_number(const char *s)
{
    if (!s[0] || (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))) return false;
    char *end = NULL;
    strtod(s, &end);
    return end && *end == '\0';
}

static void attr_string(hid_t obj, const char *name, const char *value)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, strlen(value) + 1);
    hid_t sp = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(obj, name, t, sp, H5P_DEFAULT, H5P_DEFAULT);
    if (a >= 0) {
        H5Awrite(a, t, value);
        H5Aclose(a);
    }
    H5Sclose(sp);
    H5Tclose(t);
}

int sweep_write_h5(const char *dir, const sweep_plan *pl, const char *scene, const char *grid, const char *header,
                   char **rows, int nrows, char *err, size_t err_size)
{
    enum { COLS = 128 };
    char path[4096];
    snprintf(path, sizeof path, "%s/results.h5", dir);
    char *names[COLS];
    int ncols = sweep_csv_split(header, names, COLS);
    char ***cells = calloc((size_t)(nrows > 0 ? nrows : 1), sizeof *cells);
    int rc = -1;
    hid_t file = -1, group = -1;
    if (!cells) goto done;
    for (int r = 0; r < nrows; r++) {
        cells[r] = calloc(COLS, sizeof **cells);
        if (!cells[r]) goto done;
        int n = sweep_csv_split(rows[r], cells[r], COLS);
        for (int k = n; k < ncols; k++) cells[r][k] = strdup("");
    }
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    if (file < 0) goto done;
    group = H5Gcreate2(file, "runs", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (group < 0) goto done;
    attr_string(group, "scene", scene);
    attr_string(group, "grid", grid ? grid : "");
    char seeds[32];
    snprintf(seeds, sizeof seeds, "%d", pl->seeds);
    attr_string(group, "seeds", seeds);
    hsize_t dims[1] = {(hsize_t)nrows};
    hid_t space = H5Screate_simple(1, dims, NULL);
    bool ok = space >= 0;
    for (int k = 0; ok && k < ncols; k++) {
        bool numeric = nrows > 0;
        for (int r = 0; numeric && r < nrows; r++) numeric = is_number(cells[r][k]);
        hid_t type = numeric ? H5Tcopy(H5T_NATIVE_DOUBLE) : H5Tcopy(H5T_C_S1);
        if (!numeric) H5Tset_size(type, H5T_VARIABLE);
        hid_t ds = H5Dcreate2(group, names[k], type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        if (ds < 0) ok = false;
        else if (nrows > 0) {
            if (numeric) {
                double *v = malloc((size_t)nrows * sizeof *v);
                for (int r = 0; v && r < nrows; r++) v[r] = strtod(cells[r][k], NULL);
                ok = v && H5Dwrite(ds, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0;
                free(v);
            } else {
                const char **v = malloc((size_t)nrows * sizeof *v);
                for (int r = 0; v && r < nrows; r++) v[r] = cells[r][k];
                ok = v && H5Dwrite(ds, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0;
                free(v);
            }
        }
        if (ds >= 0) H5Dclose(ds);
        H5Tclose(type);
    }
    if (space >= 0) H5Sclose(space);
    rc = ok ? 0 : -1;
done:
    if (group >= 0) H5Gclose(group);
    if (file >= 0 && H5Fclose(file) < 0) rc = -1;
    if (rc != 0) snprintf(err, err_size, "%s: cannot be written (HDF5)", path);
    for (int r = 0; cells && r < nrows; r++) {
        for (int k = 0; cells[r] && k < COLS; k++) free(cells[r][k]);
        free(cells[r]);
    }
    free(cells);
    for (int k = 0; k < ncols; k++) free(names[k]);
    return rc;
}
#else
int sweep_write_h5(const char *dir, const sweep_plan *pl, const char *scene, const char *grid, const char *header,
                   char **rows, int nrows, char *err, size_t err_size)
{
    (void)dir, (void)pl, (void)scene, (void)grid, (void)header, (void)rows, (void)nrows;
    if (err_size) err[0] = '\0';
    return -1;
}
#endif
