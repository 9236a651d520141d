/* fuzz_urdf.c: the URDF loader (moreau/import.h, libxml2) on arbitrary text.
 *
 * The input is a URDF file, written as robot.urdf into the process's
 * temporary folder; scenes/models is a search folder (package://arm/... and
 * the catalogue's meshes resolve). The robot is loaded into a fresh world with
 * one ground box, which is then stepped twice. The first byte picks the
 * options: bit 0x10 set (a file starting with '<') builds bodies and joints
 * (maximal), clear the default articulation.
 *
 * Promises checked (import.h): a failed load returns a status other than
 * MO_OK, zeroes *out, writes "FILE...: what" into err and leaves no body of the
 * file in the world (the world's bodies are what they were, and the state hash
 * is unchanged); a loaded model has a root link, links[0].parent_joint == -1,
 * parents before children, one live body per link (an articulation: a live
 * articulation, a live link body exactly for the links with collision
 * geometry, null engine joints), joints naming links in range, and
 * mo_urdf_link_pose answers MO_OK for each link; stepping returns MO_OK. */
#include <moreau/import.h>

#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[512];
    fuzz_write("robot.urdf", data, size, path, sizeof path);

    mo_world *w = NULL;
    mo_world_def wd = mo_default_world_def();
    FUZZ_CHECK(mo_world_create(&wd, &w, NULL, 0) == MO_OK);
    mo_body_def ground = mo_default_body_def();
    ground.type = MO_BODY_STATIC;
    ground.position = (mo_vec3){0, 0, -0.5};
    ground.shape = mo_default_shape_def();
    ground.shape.type = MO_SHAPE_BOX;
    ground.shape.half_extents = (mo_vec3){5, 5, 0.5};
    mo_body_id gid;
    FUZZ_CHECK(mo_body_create(w, &ground, &gid) == MO_OK);
    uint64_t hash0 = mo_world_state_hash(w);

    char models[512];
    const char *search[1];
    mo_urdf_options opt = mo_default_urdf_options();
    const char *scenes = fuzz_scenes_dir();
    if (scenes != NULL) {
        snprintf(models, sizeof models, "%s/models", scenes);
        search[0] = models;
        opt.search_paths = search;
        opt.nsearch_paths = 1;
    }
    /* the first byte (when any) picks the build options, so that both mesh
       modes, a floating base and both forms are reached ('<' keeps the seeds maximal, as before the
       articulation became the default) */
    if (size > 0) {
        opt.fixed_base = (data[0] & 1) != 0;
        opt.collision_meshes = (mo_urdf_mesh_mode)((data[0] >> 1) % 3);
        opt.self_collision = (data[0] & 8) != 0;
        opt.articulation = (data[0] & 0x10) == 0;
    }

    mo_urdf_model m;
    memset(&m, 0xab, sizeof m);
    char err[512];
    err[0] = '\0';
    mo_status st = mo_urdf_load(w, path, &opt, &m, err, sizeof err);
    FUZZ_CHECK(st >= MO_OK && st <= MO_ERR_IO);
    if (st != MO_OK) {
        FUZZ_CHECK(m.nlinks == 0 && m.links == NULL && m.joints == NULL);
        FUZZ_CHECK(err[0] != '\0');
        FUZZ_CHECK(mo_world_bodies(w, NULL, 0) == 1);
        FUZZ_CHECK(mo_world_state_hash(w) == hash0);
        mo_world_destroy(w);
        return 0;
    }
    FUZZ_CHECK(m.nlinks >= 1 && m.links != NULL);
    FUZZ_CHECK(m.links[0].parent_joint == -1);
    bool artic = opt.articulation;
    FUZZ_CHECK(mo_articulation_is_valid(w, m.articulation) == artic);
    for (int i = 0; i < m.nlinks; i++) {
        const mo_urdf_link *l = &m.links[i];
        if (artic && l->ncollisions == 0) FUZZ_CHECK(mo_body_id_is_null(l->body));
        else FUZZ_CHECK(mo_body_is_valid(w, l->body));
        if (i > 0) {
            FUZZ_CHECK(l->parent_joint >= 0 && l->parent_joint < m.njoints);
            FUZZ_CHECK(m.joints[l->parent_joint].child_link == i);
            FUZZ_CHECK(m.joints[l->parent_joint].parent_link < i);
        }
        mo_vec3 p;
        mo_quat q;
        FUZZ_CHECK(mo_urdf_link_pose(w, &m, i, &p, &q) == MO_OK);
    }
    for (int j = 0; j < m.njoints; j++) {
        FUZZ_CHECK(m.joints[j].parent_link >= 0 && m.joints[j].parent_link < m.nlinks);
        FUZZ_CHECK(m.joints[j].child_link >= 0 && m.joints[j].child_link < m.nlinks);
        FUZZ_CHECK(mo_joint_id_is_null(m.joints[j].joint) || (!artic && mo_joint_is_valid(w, m.joints[j].joint)));
    }
    for (int c = 0; c < m.ncollisions; c++) FUZZ_CHECK(mo_shape_is_valid(w, m.collisions[c].shape));
    FUZZ_CHECK(mo_urdf_find_link(&m, m.links[0].name) >= 0);
    for (int i = 0; i < 2; i++) FUZZ_CHECK(mo_world_step(w) == MO_OK);
    mo_urdf_model_free(&m);
    mo_world_destroy(w);
    return 0;
}
