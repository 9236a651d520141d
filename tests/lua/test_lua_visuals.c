/* test_lua_visuals.c: mo_scene_file_visuals, the URDF visuals a scene keeps for viewers.
 *
 * A scene loads scenes/models/arm/arm.urdf (moreau.urdf, at an offset and turned base)
 * next to a ground and a box; the same URDF is loaded with mo_urdf_load into a world
 * of its own with the same base pose. At the zero configuration (the scene not stepped):
 * one scene visual per URDF <visual>, in order, each on the body of its link, with the
 * URDF's type, size, material colour and mesh path (resolved); its world pose (body
 * pose composed with the returned pose in the body frame) equals mo_urdf_link_pose
 * composed with the visual's <origin>, to 1e-9. Bodies and shapes of the scene that are
 * not URDF links have no visuals; a scene without URDFs has none; destroying a link's
 * body drops its visuals (stale ids skipped); cap smaller than the count; NULL scene.
 * Skips (77) when the importers are not built. */
#define _XOPEN_SOURCE 700 /* realpath, mkdtemp */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <moreau/import.h>
#include <moreau/moreau.h>
#include <moreau/scene.h>

#include "check.h"

static char tmpdir[256], scene_path[400];
static const char *scenes_dir;

static mo_scene_file *load(const char *text, char *err, size_t n)
{
    FILE *f = fopen(scene_path, "w");
    if (!f) {
        perror(scene_path);
        exit(1);
    }
    fputs(text, f);
    fclose(f);
    char models[4200];
    snprintf(models, sizeof models, "%s/models", scenes_dir);
    const char *sp[1] = {models};
    mo_scene_options o = mo_default_scene_options();
    o.search_paths = sp;
    o.search_path_count = 1;
    mo_scene_file *s = NULL;
    err[0] = '\0';
    mo_scene_file_load(scene_path, &o, &s, err, n);
    return s;
}

static mo_quat qmul(mo_quat a, mo_quat b)
{
    return (mo_quat){a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z, a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
                     a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x, a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w};
}

static mo_vec3 qrot(mo_quat q, mo_vec3 v)
{
    mo_quat p = qmul(qmul(q, (mo_quat){0, v.x, v.y, v.z}), (mo_quat){q.w, -q.x, -q.y, -q.z});
    return (mo_vec3){p.x, p.y, p.z};
}

/* the base pose used for both loads: 30 degrees about z, then 10 degrees about x */
#define BASE_Q "{0.9622501868990583, 0.08418598282936919, 0.0225575252680273, 0.2578341604963657}"
static const mo_quat base_q = {0.9622501868990583, 0.08418598282936919, 0.0225575252680273, 0.2578341604963657};

static void test_arm(void)
{
    char err[1024];
    mo_scene_file *s = load("world{ gravity = {0, 0, -9.81} }\n"
                            "ground{}\n"
                            "body{ name = 'box', mass = 1, position = {1, 0, 0.5},\n"
                            "      shape = { type = 'box', half_extents = {0.1, 0.1, 0.1} } }\n"
                            "moreau.urdf('arm/arm.urdf', { maximal = true, position = {0.3, -0.2, 0.1},\n"
                            "  orientation = " BASE_Q " })\n",
                            err, sizeof err);
    if (!s) {
        fprintf(stderr, "arm scene: %s\n", err);
        check_failures++;
        return;
    }
    mo_world *sw = mo_scene_file_world(s);
    /* the same URDF in a world of its own */
    mo_world_def wd = mo_default_world_def();
    mo_world *w = NULL;
    CHECK(mo_world_create(&wd, &w, err, sizeof err) == MO_OK);
    char models[4200], urdf[4300];
    snprintf(models, sizeof models, "%s/models", scenes_dir);
    snprintf(urdf, sizeof urdf, "%s/arm/arm.urdf", models);
    const char *sp[1] = {models};
    mo_urdf_options o = mo_default_urdf_options();
    o.articulation = false; /* the scene's maximal import: visuals on the links' bodies */
    o.search_paths = sp;
    o.nsearch_paths = 1;
    o.base_position = (mo_vec3){0.3, -0.2, 0.1};
    o.base_orientation = base_q;
    mo_urdf_model m;
    CHECK(mo_urdf_load(w, urdf, &o, &m, err, sizeof err) == MO_OK);
    if (m.nvisuals == 0) {
        fprintf(stderr, "mo_urdf_load: %s\n", err);
        check_failures++;
        mo_world_destroy(w);
        mo_scene_file_destroy(s);
        return;
    }
    int n = mo_scene_file_visuals(s, NULL, 0);
    printf("arm: %d URDF visuals, %d scene visuals\n", m.nvisuals, n);
    CHECK(m.nvisuals == 10); /* <visual> elements in arm.urdf */
    CHECK(n == m.nvisuals);
    mo_scene_visual *v = calloc((size_t)n + 1, sizeof *v);
    CHECK(mo_scene_file_visuals(s, v, n + 1) == n);
    int nb = mo_scene_file_bodies(s, NULL, 0);
    mo_scene_body *b = calloc((size_t)nb, sizeof *b);
    mo_scene_file_bodies(s, b, nb);
    double worst_p = 0, worst_q = 0;
    int meshes = 0;
    for (int i = 0; i < n && i < m.nvisuals; i++) {
        const mo_urdf_visual *u = &m.visuals[i];
        const mo_urdf_link *l = &m.links[u->link];
        /* the scene's body of that link, by name */
        mo_body_id id = {0, 0};
        for (int k = 0; k < nb; k++)
            if (!strcmp(b[k].name, l->name)) id = b[k].id;
        CHECK(v[i].body.index == id.index && v[i].body.generation == id.generation);
        CHECK(v[i].type == u->type);
        CHECK(v[i].size.x == u->size.x && v[i].size.y == u->size.y && v[i].size.z == u->size.z);
        CHECK(!memcmp(v[i].rgba, u->rgba, sizeof u->rgba));
        if (u->type == MO_URDF_GEOM_MESH) {
            char r1[PATH_MAX] = "", r2[PATH_MAX] = "";
            CHECK(v[i].mesh_path[0] == '/');
            CHECK(realpath(v[i].mesh_path, r1) && realpath(u->mesh_path, r2) && !strcmp(r1, r2));
            meshes++;
        } else {
            CHECK(v[i].mesh_path && v[i].mesh_path[0] == '\0');
        }
        /* expected: the link frame's world pose composed with the visual's origin */
        mo_vec3 lp, bp, r;
        mo_quat lq, bq;
        CHECK(mo_urdf_link_pose(w, &m, u->link, &lp, &lq) == MO_OK);
        mo_vec3 d = qrot(lq, u->position);
        mo_vec3 ep = {lp.x + d.x, lp.y + d.y, lp.z + d.z};
        mo_quat eq = qmul(lq, u->orientation);
        /* the scene's: its body's pose composed with the visual's pose in the body frame */
        CHECK(mo_body_position(sw, v[i].body, &bp) == MO_OK && mo_body_orientation(sw, v[i].body, &bq) == MO_OK);
        r = qrot(bq, v[i].position);
        mo_vec3 gp = {bp.x + r.x, bp.y + r.y, bp.z + r.z};
        mo_quat gq = qmul(bq, v[i].orientation);
        double dp = fmax(fabs(gp.x - ep.x), fmax(fabs(gp.y - ep.y), fabs(gp.z - ep.z)));
        double s1 = gq.w * eq.w + gq.x * eq.x + gq.y * eq.y + gq.z * eq.z;
        double dq = 1 - fabs(s1);
        if (dp > worst_p) worst_p = dp;
        if (dq > worst_q) worst_q = dq;
    }
    printf("arm: %d mesh visuals; worst position error %.3g m, worst 1 - |q.q'| %.3g\n", meshes, worst_p, worst_q);
    CHECK(meshes == 6);
    CHECK(worst_p <= 1e-9);
    CHECK(worst_q <= 1e-12);
    /* a smaller cap writes only that many and still returns the count */
    mo_scene_visual two[3];
    memset(two, 0, sizeof two);
    CHECK(mo_scene_file_visuals(s, two, 2) == n);
    CHECK(two[2].mesh_path == NULL);
    CHECK(two[1].body.index == v[1].body.index && two[1].type == v[1].type);
    /* destroying a link's body (the left finger, one visual) drops its visuals */
    int fl = mo_urdf_find_link(&m, "finger_left");
    CHECK(fl >= 0);
    mo_body_id fb = {0, 0};
    for (int k = 0; k < nb && fl >= 0; k++)
        if (!strcmp(b[k].name, "finger_left")) fb = b[k].id;
    int nfl = 0;
    for (int i = 0; i < m.nvisuals; i++) nfl += m.visuals[i].link == fl;
    CHECK(nfl == 1);
    CHECK(mo_body_destroy(sw, fb) == MO_OK);
    int n2 = mo_scene_file_visuals(s, v, n);
    CHECK(n2 == n - nfl);
    for (int i = 0; i < n2; i++) CHECK(mo_body_is_valid(sw, v[i].body) && v[i].body.index != fb.index);
    /* the scene still steps and answers after that */
    CHECK(mo_scene_file_step(s) == MO_OK);
    CHECK(mo_scene_file_visuals(s, NULL, 0) == n2);
    free(b);
    free(v);
    mo_urdf_model_free(&m);
    mo_world_destroy(w);
    mo_scene_file_destroy(s);
}

/* no URDF: no visuals; NULL scene: 0 */
static void test_none(void)
{
    char err[1024];
    mo_scene_file *s = load("ground{}\nbody{ name = 'b', mass = 1, position = {0, 0, 1},\n"
                            "  shape = { type = 'sphere', radius = 0.2 } }\n", err, sizeof err);
    CHECK(s != NULL);
    mo_scene_visual v[2];
    CHECK(mo_scene_file_visuals(s, v, 2) == 0);
    CHECK(mo_scene_file_visuals(NULL, v, 2) == 0);
    mo_scene_file_destroy(s);
}

int main(void)
{
    scenes_dir = getenv("MOREAU_SCENES_DIR");
    if (!scenes_dir) scenes_dir = "scenes";
    static char abs_scenes[PATH_MAX];
    if (realpath(scenes_dir, abs_scenes)) scenes_dir = abs_scenes;
    snprintf(tmpdir, sizeof tmpdir, "/tmp/moreau-lua-visuals-XXXXXX");
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    snprintf(scene_path, sizeof scene_path, "%s/t.lua", tmpdir);
    int rc;
    char err[1024];
    mo_scene_file *probe = load("world{}\nassert(moreau.urdf and moreau.mesh, 'no importers')\n", err, sizeof err);
    if (!probe) {
        printf("lua_visuals: %s: skipped\n", err);
        rc = 77;
    } else {
        mo_scene_file_destroy(probe);
        test_none();
        test_arm();
        rc = check_result_counted("lua_visuals");
    }
    unlink(scene_path);
    rmdir(tmpdir);
    return rc;
}
