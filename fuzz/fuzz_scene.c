/* fuzz_scene.c: the Lua scene loader (moreau/scene.h) on arbitrary text.
 *
 * The input is the text of a scene file, written as scene.lua into the
 * process's temporary folder; the project's scenes/ folder is a search folder,
 * so include("lib/..."), require("lib.x") and the models under scenes/models
 * resolve as they do for the catalogue. Budgets are tighter than the defaults
 * (40 M instructions to load, 4 M per step's callbacks and per check, 128 MiB,
 * 400 objects) so that one input stays well under libFuzzer's 5 s timeout;
 * the loader must honour them. A scene that loads is stepped up to 3 times
 * and its checks evaluated.
 *
 * Promises checked (scene.h): a failed load returns a status other than MO_OK,
 * leaves *out NULL and writes a non-empty sentence (that it names the file and
 * line: errors raised in C functions get the calling Lua line); a loaded
 * scene has a world; a step's status is a mo_status; once a step fails, every
 * later step fails too; the check count is at least the number failing. */
#include <moreau/scene.h>

#include "fuzz_util.h"

static void quiet(void *user, const char *line)
{
    (void)user;
    (void)line;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[512];
    fuzz_write("scene.lua", data, size, path, sizeof path);

    const char *search[1];
    mo_scene_options opt = mo_default_scene_options();
    const char *scenes = fuzz_scenes_dir();
    if (scenes != NULL) {
        search[0] = scenes;
        opt.search_paths = search;
        opt.search_path_count = 1;
    }
    opt.load_instructions = 40000000;
    opt.step_instructions = 4000000;
    opt.check_instructions = 4000000;
    opt.memory_limit = (size_t)128 << 20;
    opt.max_objects = 400;
    opt.print = quiet;

    mo_scene_file *s = (mo_scene_file *)1;
    char err[512];
    err[0] = '\0';
    mo_status st = mo_scene_file_load(path, &opt, &s, err, sizeof err);
    FUZZ_CHECK(st >= MO_OK && st <= MO_ERR_IO);
    if (st != MO_OK) {
        FUZZ_CHECK(s == NULL);
        FUZZ_CHECK(err[0] != '\0');
        FUZZ_CHECK(strstr(err, ".lua") != NULL); /* the scene or the file it included, by name */
        return 0;
    }
    FUZZ_CHECK(s != NULL);
    mo_world *w = mo_scene_file_world(s);
    FUZZ_CHECK(w != NULL);

    bool failed = false;
    /* Newton steps (FEM meshes, the arch) cost seconds under the sanitizers and coverage, as
       do steps of hundreds of bodies: such scenes are loaded and checked, not stepped
       (fuzz_api steps small worlds with every solver, fuzz_tet small FEM meshes) */
    bool cheap = mo_world_solver(w).kind != MO_SOLVER_NEWTON && mo_world_fem_meshes(w, NULL, 0) == 0 &&
                 mo_world_bodies(w, NULL, 0) <= 100;
    int steps = cheap ? 2 : 0;
    for (int i = 0; i < steps && !mo_scene_file_done(s, NULL); i++) {
        mo_status ss = mo_scene_file_step(s);
        FUZZ_CHECK(ss >= MO_OK && ss <= MO_ERR_IO);
        if (failed) FUZZ_CHECK(ss != MO_OK);
        if (ss != MO_OK) {
            failed = true;
            FUZZ_CHECK(mo_scene_file_last_error(s)[0] != '\0');
        }
    }
    int nchecks = mo_scene_file_check_count(s);
    mo_scene_check_result res[16];
    int nfail = mo_scene_file_checks(s, res, 16);
    FUZZ_CHECK(nchecks >= 0 && nfail >= 0 && nfail <= nchecks);
    int nb = mo_scene_file_bodies(s, NULL, 0);
    FUZZ_CHECK(nb >= 0 && nb <= mo_world_bodies(w, NULL, 0));
    mo_scene_file_destroy(s);
    return 0;
}
