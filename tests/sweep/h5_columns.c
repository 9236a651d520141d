/* h5_columns FILE COLUMN...: prints the datasets /runs/COLUMN of a moreau-sweep results.h5 side by side,
 * one line per run, comma-separated (float64 as %.17g, strings as stored), for tests/sweep/test_sweep.py */
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: h5_columns FILE COLUMN...\n");
        return 2;
    }
    int nc = argc - 2;
    hid_t f = H5Fopen(argv[1], H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0) return 1;
    double **num = calloc((size_t)nc, sizeof *num);
    char ***str = calloc((size_t)nc, sizeof *str);
    hssize_t n = -1;
    for (int c = 0; c < nc; c++) {
        char path[256];
        snprintf(path, sizeof path, "/runs/%s", argv[c + 2]);
        hid_t ds = H5Dopen2(f, path, H5P_DEFAULT);
        if (ds < 0) {
            fprintf(stderr, "no dataset %s\n", path);
            return 1;
        }
        hid_t sp = H5Dget_space(ds), t = H5Dget_type(ds);
        hssize_t k = H5Sget_simple_extent_npoints(sp);
        if (n >= 0 && k != n) return 1;
        n = k;
        if (H5Tget_class(t) == H5T_FLOAT) {
            num[c] = malloc((size_t)(n > 0 ? n : 1) * sizeof(double));
            if (n > 0) H5Dread(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, num[c]);
        } else {
            str[c] = malloc((size_t)(n > 0 ? n : 1) * sizeof(char *));
            hid_t mt = H5Tcopy(H5T_C_S1);
            H5Tset_size(mt, H5T_VARIABLE);
            if (n > 0) H5Dread(ds, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, str[c]);
            H5Tclose(mt);
        }
        H5Tclose(t);
        H5Sclose(sp);
        H5Dclose(ds);
    }
    for (hssize_t r = 0; r < n; r++)
        for (int c = 0; c < nc; c++) {
            if (num[c]) printf("%.17g", num[c][r]);
            else printf("%s", str[c][r]);
            putchar(c + 1 < nc ? ',' : '\n');
        }
    for (int c = 0; c < nc; c++) {
        for (hssize_t r = 0; str[c] && r < n; r++) H5free_memory(str[c][r]);
        free(str[c]);
        free(num[c]);
    }
    free(str);
    free(num);
    H5Fclose(f);
    return 0;
}
