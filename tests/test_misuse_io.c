/* test_misuse_io.c: the file-facing headers (fclib.h, import.h, tetmesh.h,
 * scene.h) and moreau.h's state calls called with NULL and out-of-range
 * arguments (issue 18; test_misuse.c does the rest of moreau.h). Each call
 * returns its documented refusal with the exact sentence where there is one,
 * writes nothing through NULL, and does not crash (CI runs this under
 * ASan/UBSan). Works in every build: a reader not built in still refuses
 * NULL arguments first. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "moreau/moreau.h"
#include "moreau/fclib.h"
#include "moreau/import.h"
#include "moreau/tetmesh.h"
#include "moreau/scene.h"
#include "moreau/batch.h"
#include "check.h"

static char err[512];

#define REFUSED(call, sentence)                                         \
    do {                                                                \
        err[0] = '\0';                                                  \
        CHECK((call) == MO_ERR_INVALID_ARGUMENT);                       \
        CHECK_STR(err, (sentence));                                     \
    } while (0)

int main(void)
{
    mo_world_def wd = mo_default_world_def();
    mo_world *w;
    CHECK(mo_world_create(&wd, &w, err, sizeof err) == MO_OK);
    const uint64_t h0 = mo_world_state_hash(w);

    /* ---- fclib.h ---- */
    mo_fc_problem fp;
    memset(&fp, 0, sizeof fp);
    mo_fc_result fr;
    double r[3] = {0, 0, 0};
    mo_solver_settings ss = mo_fc_default_settings();
    REFUSED(mo_fc_read(NULL, &fp, err, sizeof err), "mo_fc_read: path and out must not be NULL");
    REFUSED(mo_fc_read("p.dat", NULL, err, sizeof err), "mo_fc_read: path and out must not be NULL");
    CHECK(mo_fc_read("/nonexistent/p.dat", &fp, NULL, 0) == MO_ERR_IO); /* err may be NULL */
    REFUSED(mo_fc_write(NULL, &fp, err, sizeof err), "mo_fc_write: path and problem must not be NULL");
    REFUSED(mo_fc_write("p.hdf5", NULL, err, sizeof err), "mo_fc_write: path and problem must not be NULL");
    REFUSED(mo_fc_write_dat(NULL, &fp, err, sizeof err), "mo_fc_write_dat: path and problem must not be NULL");
    mo_fc_free(NULL);
    CHECK(isnan(mo_fc_error(NULL, r, NULL)));
    REFUSED(mo_fc_solve(NULL, &ss, r, NULL, &fr, NULL, NULL, err, sizeof err),
            "mo_fc_solve: problem, settings and r must not be NULL");
    REFUSED(mo_fc_solve_auto(NULL, &ss, r, NULL, &fr, err, sizeof err),
            "mo_fc_solve_auto: problem, settings and r must not be NULL");
    CHECK(mo_world_contact_problem(NULL, &fp) == MO_ERR_INVALID_ARGUMENT);
    CHECK(mo_world_contact_problem(w, NULL) == MO_ERR_INVALID_ARGUMENT);
    CHECK_STR(mo_world_last_error(w), "mo_world_contact_problem: out must not be NULL");

    /* ---- import.h ---- */
    mo_mesh_data md;
    mo_urdf_model um;
    mo_urdf_options uo = mo_default_urdf_options();
    REFUSED(mo_mesh_load(NULL, (mo_vec3){1, 1, 1}, &md, err, sizeof err), "mo_mesh_load: path and out must not be NULL");
    REFUSED(mo_mesh_load("m.obj", (mo_vec3){1, 1, 1}, NULL, err, sizeof err),
            "mo_mesh_load: path and out must not be NULL");
    mo_mesh_free(NULL);
    REFUSED(mo_urdf_load(NULL, "r.urdf", &uo, &um, err, sizeof err),
            "mo_urdf_load: world, path and out must not be NULL");
    REFUSED(mo_urdf_load(w, NULL, &uo, &um, err, sizeof err), "mo_urdf_load: world, path and out must not be NULL");
    REFUSED(mo_urdf_load(w, "r.urdf", &uo, NULL, err, sizeof err),
            "mo_urdf_load: world, path and out must not be NULL");
    mo_urdf_model_free(NULL);
    CHECK(mo_urdf_find_link(NULL, "base") == -1 && mo_urdf_find_joint(NULL, "j") == -1);
    CHECK(mo_urdf_link_pose(NULL, NULL, 0, NULL, NULL) == MO_ERR_INVALID_ARGUMENT);
    CHECK(mo_urdf_link_pose(w, NULL, 0, NULL, NULL) == MO_ERR_INVALID_ARGUMENT);
    mo_mjcf_options jo = mo_default_mjcf_options();
    REFUSED(mo_mjcf_load(NULL, "r.xml", &jo, &um, err, sizeof err), "mo_mjcf_load: world, path and out must not be NULL");
    REFUSED(mo_mjcf_load(w, NULL, &jo, &um, err, sizeof err), "mo_mjcf_load: world, path and out must not be NULL");
    REFUSED(mo_mjcf_load(w, "r.xml", &jo, NULL, err, sizeof err), "mo_mjcf_load: world, path and out must not be NULL");

    /* ---- tetmesh.h ---- */
    mo_tetmesh tm;
    REFUSED(mo_tetmesh_load(NULL, &tm, err, sizeof err), "mo_tetmesh_load: path is NULL");
    REFUSED(mo_tetmesh_load("m.node", NULL, err, sizeof err), "mo_tetmesh_load: out is NULL");
    REFUSED(mo_tetmesh_load_flags(NULL, 0, &tm, err, sizeof err), "mo_tetmesh_load: path is NULL");
    REFUSED(mo_tetmesh_check(NULL, err, sizeof err), "mo_tetmesh_check: mesh is NULL");
    double vol = 0.0;
    CHECK(mo_tetmesh_element_orientation(NULL, 0, &vol) == 0 && isnan(vol));
    {
        double nodes[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
        int tets[4] = {0, 1, 2, 3}, bad[4] = {0, 1, 2, 9};
        mo_tetmesh m;
        memset(&m, 0, sizeof m);
        m.nnodes = 4;
        m.ntets = 1;
        m.nodes = nodes;
        m.tets = tets;
        CHECK(mo_tetmesh_element_orientation(&m, 0, &vol) == 1 && fabs(vol - 1.0 / 6.0) < 1e-15);
        CHECK(mo_tetmesh_element_orientation(&m, 1, &vol) == 0 && isnan(vol));  /* t out of range */
        CHECK(mo_tetmesh_element_orientation(&m, -1, &vol) == 0 && isnan(vol));
        m.tets = bad;
        CHECK(mo_tetmesh_element_orientation(&m, 0, &vol) == 0 && isnan(vol)); /* node 9 of 4 */
    }
    CHECK(mo_tetmesh_volume(NULL) == 0.0);
    mo_tetmesh_free(NULL);

    /* ---- scene.h ---- */
    mo_scene_file *sf = NULL;
    mo_scene_options so = mo_default_scene_options();
    REFUSED(mo_scene_file_load(NULL, &so, &sf, err, sizeof err), "mo_scene_file_load: path and out must not be NULL");
    REFUSED(mo_scene_file_load("s.lua", &so, NULL, err, sizeof err), "mo_scene_file_load: path and out must not be NULL");
    mo_scene_file_destroy(NULL);
    CHECK(mo_scene_file_world(NULL) == NULL && mo_scene_file_duration(NULL) == 0.0);
    CHECK(mo_scene_file_step(NULL) == MO_ERR_INVALID_ARGUMENT);
    CHECK(!mo_scene_file_done(NULL, NULL));
    CHECK(mo_scene_file_last_error(NULL) != NULL);
    CHECK(mo_scene_file_steps(NULL) == 0 && mo_scene_file_bodies(NULL, NULL, 0) == 0);
    CHECK(!mo_scene_file_param_read(NULL, NULL) && !mo_scene_file_param_read(NULL, "x"));
    CHECK(mo_scene_file_visuals(NULL, NULL, 0) == 0 && mo_scene_file_check_count(NULL) == 0);
    CHECK(mo_scene_file_checks(NULL, NULL, 0) == 0);

    /* ---- batch.h: NULL batches and defs ---- */
    mo_batch *mb = NULL;
    mo_batch_def bd = mo_default_batch_def();
    REFUSED(mo_batch_create(NULL, &mb, err, sizeof err), "mo_batch_create: def must not be NULL");
    REFUSED(mo_batch_create(&bd, NULL, err, sizeof err), "mo_batch_create: out must not be NULL");
    REFUSED(mo_batch_create(&bd, &mb, err, sizeof err),
            "mo_batch_create: exactly one of scene_path and build must be set, got neither");
    CHECK(mb == NULL);
    mo_batch_destroy(NULL);
    CHECK(strcmp(mo_batch_last_error(NULL), "mo_batch_last_error: the batch is NULL") == 0);
    CHECK(mo_batch_world_count(NULL) == 0 && mo_batch_threads(NULL) == 0);
    CHECK(mo_batch_sizes(NULL, NULL, NULL, NULL, NULL) == MO_ERR_INVALID_ARGUMENT);
    CHECK(mo_batch_world(NULL, 0) == NULL && mo_batch_scene(NULL, 0) == NULL);
    CHECK(mo_batch_body(NULL, 0, 0).generation == 0 && mo_batch_articulation(NULL, 0, 0).generation == 0);
    CHECK(mo_batch_set_threads(NULL, 1) == MO_ERR_INVALID_ARGUMENT && mo_batch_step(NULL) == MO_ERR_INVALID_ARGUMENT);
    CHECK(mo_batch_step_n(NULL, 1) == MO_ERR_INVALID_ARGUMENT && mo_batch_drive_count(NULL) == 0);
    CHECK(mo_batch_get_drive_targets(NULL, NULL, NULL, 0) == MO_ERR_INVALID_ARGUMENT);
    CHECK(mo_batch_set_drive_targets(NULL, NULL, NULL, 0) == MO_ERR_INVALID_ARGUMENT);
    CHECK(mo_batch_world_status(NULL, 0) == MO_ERR_INVALID_ARGUMENT);
    CHECK(mo_batch_get_bodies(NULL, NULL, NULL, NULL, NULL, 0) == MO_ERR_INVALID_ARGUMENT);
    CHECK(mo_batch_set_bodies(NULL, NULL, NULL, NULL, NULL, 0) == MO_ERR_INVALID_ARGUMENT);
    CHECK(mo_batch_get_joints(NULL, NULL, 0, NULL, 0) == MO_ERR_INVALID_ARGUMENT);
    CHECK(mo_batch_set_joints(NULL, NULL, 0, NULL, 0) == MO_ERR_INVALID_ARGUMENT);
    CHECK(mo_batch_contact_counts(NULL, NULL, 0) == MO_ERR_INVALID_ARGUMENT);
    CHECK(mo_batch_state_hashes(NULL, NULL, 0) == MO_ERR_INVALID_ARGUMENT);
    CHECK(mo_batch_set_gravity(NULL, 0, (mo_vec3){0, 0, 0}) == MO_ERR_INVALID_ARGUMENT);
    CHECK(mo_batch_set_settings(NULL, 0, NULL, 0) == MO_ERR_INVALID_ARGUMENT);
    CHECK(mo_batch_reset(NULL, 0) == MO_ERR_INVALID_ARGUMENT && mo_batch_mark_initial(NULL, 0) == MO_ERR_INVALID_ARGUMENT);

    /* ---- moreau.h: state ---- */
    CHECK(mo_world_state_size(NULL) == 0);
    CHECK(mo_world_save_state(NULL, NULL, 0) == MO_ERR_INVALID_ARGUMENT);
    CHECK(mo_world_restore_state(NULL, NULL, 0) == MO_ERR_INVALID_ARGUMENT);
    CHECK(mo_world_save_state(w, NULL, 64) == MO_ERR_INVALID_ARGUMENT);
    CHECK_STR(mo_world_last_error(w), "mo_world_save_state: buf must not be NULL");
    CHECK(mo_world_restore_state(w, NULL, 64) == MO_ERR_INVALID_ARGUMENT);
    CHECK_STR(mo_world_last_error(w), "mo_world_restore_state: buf must not be NULL");
    {
        unsigned char junk[64];
        memset(junk, 0xab, sizeof junk);
        CHECK(mo_world_restore_state(w, junk, sizeof junk) == MO_ERR_INVALID_ARGUMENT);
        CHECK(mo_world_save_state(w, junk, 8) == MO_ERR_INVALID_ARGUMENT); /* too small */
    }

    CHECK(mo_world_state_hash(w) == h0);
    mo_world_destroy(w);
    return check_result("misuse_io");
}
