/* test_import_artic_chain: a robot's link bodies kept apart by a collision group, not pair exclusions
 * (mo_articulation_set_collision_group; issue 19). Chains written here whose link boxes overlap every link
 * two down the chain (links i and i + 2, not parent and child: they collide unless kept apart) and rest
 * 1 cm into a ground plane; one step, then which bodies touch:
 *   urdf      100 links, default options (no self_collision): no pair excluded (4950 before), the model's and
 *             the articulation's group 0x10000 on every link body, no two link bodies touching, all 100
 *             touching the ground; load time and exclusions printed
 *   urdf_self the same chain with self_collision and exclude_pairs (l0, l2), (l50, l52): the 2 pairs
 *             excluded, group 0, the 96 other pairs (i, i + 2) touching, no parent and child, nothing further
 *   mjcf      20 nested bodies: self_collision = false as the URDF default (group, no exclusion, no link
 *             pair touching); MJCF's default self_collision: the 18 pairs (i, i + 2) touching */
#define _DEFAULT_SOURCE
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "moreau/articulation.h"
#include "moreau/import.h"
#include "testutil.h"
#include "tmpdir.h"

static char dir[256];

static mo_world *new_world(void)
{
    mo_world_def wd = mo_default_world_def();
    mo_world *w = NULL;
    char err[256];
    if (mo_world_create(&wd, &w, err, sizeof err) != MO_OK) {
        fprintf(stderr, "%s\n", err);
        exit(1);
    }
    mo_body_def gd = mo_default_body_def();
    gd.type = MO_BODY_STATIC;
    gd.shape.type = MO_SHAPE_PLANE;
    mo_body_id g;
    CHECK(mo_body_create(w, &gd, &g) == MO_OK);
    return w;
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* n links 0.1 m apart along x on hinges about y, each a box 0.22 x 0.04 x 0.04 m centred 0.05 m along its link:
   link i spans [0.1 i - 0.06, 0.1 i + 0.16], overlapping links i +- 1 and i +- 2 */
static const char *chain_urdf(int n)
{
    static char path[300];
    snprintf(path, sizeof path, "%s/chain%d.urdf", dir, n);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (!f) exit(1);
    fprintf(f, "<robot name='chain'>\n");
    for (int i = 0; i < n; i++)
        fprintf(f, "<link name='l%d'><inertial><origin xyz='0.05 0 0'/><mass value='0.1'/><inertia ixx='1e-4' "
                   "iyy='1e-4' izz='1e-4'/></inertial><collision><origin xyz='0.05 0 0'/><geometry><box "
                   "size='0.22 0.04 0.04'/></geometry></collision></link>\n", i);
    for (int i = 1; i < n; i++)
        fprintf(f, "<joint name='j%d' type='continuous'><parent link='l%d'/><child link='l%d'/><origin "
                   "xyz='0.1 0 0'/><axis xyz='0 1 0'/></joint>\n", i, i - 1, i);
    fprintf(f, "</robot>\n");
    fclose(f);
    return path;
}

/* the same chain as MJCF nested bodies (box geoms by half sizes, mass from the default density) */
static const char *chain_mjcf(int n)
{
    static char path[300];
    snprintf(path, sizeof path, "%s/chain%d.xml", dir, n);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (!f) exit(1);
    fprintf(f, "<mujoco>\n<worldbody>\n");
    for (int i = 0; i < n; i++)
        fprintf(f, "<body name='l%d' pos='%s 0 %s'><joint type='hinge' axis='0 1 0'/><geom type='box' "
                   "size='0.11 0.02 0.02' pos='0.05 0 0'/>\n", i, i ? "0.1" : "0", i ? "0" : "0.01");
    for (int i = 0; i < n; i++) fprintf(f, "</body>\n");
    fprintf(f, "</worldbody>\n</mujoco>\n");
    fclose(f);
    return path;
}

/* link index of a body in m, -1 for another body */
static int link_of(const mo_urdf_model *m, mo_body_id b)
{
    for (int k = 0; k < m->nlinks; k++)
        if (!mo_body_id_is_null(m->links[k].body) && m->links[k].body.index == b.index) return k;
    return -1;
}

/* after one step: touch[i * n + j] (i < j) for touching links i and j of m; *ground: links touching another body */
static void contacts(mo_world *w, const mo_urdf_model *m, bool *touch, int *ground)
{
    int n = m->nlinks;
    memset(touch, 0, (size_t)n * (size_t)n * sizeof *touch);
    CHECK(mo_world_step(w) == MO_OK);
    int nc = mo_world_contacts(w, NULL, 0);
    mo_contact *c = malloc((size_t)(nc + 1) * sizeof *c);
    bool *on = calloc((size_t)n, sizeof *on);
    CHECK(c && on && mo_world_contacts(w, c, nc) == nc);
    for (int i = 0; i < nc; i++) {
        int a = link_of(m, c[i].body_a), b = link_of(m, c[i].body_b);
        if (a >= 0 && b >= 0) touch[(a < b ? a : b) * n + (a < b ? b : a)] = true;
        else if (a >= 0 || b >= 0) on[a >= 0 ? a : b] = true;
    }
    *ground = 0;
    for (int k = 0; k < n; k++) *ground += on[k];
    free(c);
    free(on);
}

/* pairs touching: all, those two apart (i, i + 2), parent and child (i, i + 1) */
static void count_pairs(const bool *touch, int n, int *all, int *two, int *one)
{
    *all = *two = *one = 0;
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) {
            *all += touch[i * n + j];
            *two += touch[i * n + j] && j == i + 2;
            *one += touch[i * n + j] && j == i + 1;
        }
}

static void test_urdf(void)
{
    const int n = 100;
    const char *path = chain_urdf(n);
    mo_world *w = new_world();
    mo_urdf_options o = mo_default_urdf_options();
    o.base_position = (mo_vec3){0, 0, 0.01}; /* the boxes 1 cm into the ground */
    mo_urdf_model m;
    char err[1024];
    double t0 = now();
    mo_status s = mo_urdf_load(w, path, &o, &m, err, sizeof err);
    double t = now() - t0;
    CHECK(s == MO_OK);
    if (s != MO_OK) {
        fprintf(stderr, "%s\n", err);
        exit(1);
    }
    int nx = mo_world_excluded_pairs(w, NULL, NULL, 0);
    printf("urdf: %d links loaded in %.4f s, %d pairs excluded (%d before groups)\n", n, t, nx, n * (n - 1) / 2);
    CHECK(nx == 0);
    CHECK(m.nlinks == n && m.collision_group == 0x10000);
    uint32_t g = 0;
    CHECK(mo_articulation_collision_group(w, m.articulation, &g) == MO_OK && g == 0x10000);
    for (int k = 0; k < n; k++) CHECK(mo_body_collision_group(w, m.links[k].body, &g) == MO_OK && g == 0x10000);
    bool *touch = malloc((size_t)n * n * sizeof *touch);
    int ground, all, two, one;
    contacts(w, &m, touch, &ground);
    count_pairs(touch, n, &all, &two, &one);
    printf("urdf: after one step %d link pairs touching, %d links on the ground\n", all, ground);
    CHECK(all == 0 && ground == n);
    mo_urdf_model_free(&m);
    mo_world_destroy(w);

    /* self_collision with two pairs excluded: every other pair two apart touches */
    w = new_world();
    o.self_collision = true;
    static const char *const pairs[] = {"l0", "l2", "l52", "l50"};
    o.exclude_pairs = pairs;
    o.nexclude_pairs = 2;
    CHECK(mo_urdf_load(w, path, &o, &m, err, sizeof err) == MO_OK);
    CHECK(mo_world_excluded_pairs(w, NULL, NULL, 0) == 2 && m.collision_group == 0);
    CHECK(mo_articulation_collision_group(w, m.articulation, &g) == MO_OK && g == 0);
    contacts(w, &m, touch, &ground);
    count_pairs(touch, n, &all, &two, &one);
    printf("urdf_self: %d link pairs touching (%d two apart, %d parent and child), %d links on the ground\n", all,
           two, one, ground);
    CHECK(all == n - 4 && two == n - 4 && one == 0 && ground == n);
    CHECK(!touch[0 * n + 2] && !touch[50 * n + 52] && touch[1 * n + 3] && touch[97 * n + 99]);
    mo_urdf_model_free(&m);
    mo_world_destroy(w);
    free(touch);
}

static void test_mjcf(void)
{
    enum { n = 20 };
    const char *path = chain_mjcf(n);
    for (int self = 0; self < 2; self++) {
        mo_world *w = new_world();
        mo_mjcf_options o = mo_default_mjcf_options();
        o.self_collision = self;
        mo_urdf_model m;
        char err[1024];
        mo_status s = mo_mjcf_load(w, path, &o, &m, err, sizeof err);
        CHECK(s == MO_OK);
        if (s != MO_OK) {
            fprintf(stderr, "%s\n", err);
            mo_world_destroy(w);
            return;
        }
        CHECK(m.nlinks == n + 1); /* link 0 is the world */
        CHECK(mo_world_excluded_pairs(w, NULL, NULL, 0) == 0);
        uint32_t g = 1;
        CHECK(mo_articulation_collision_group(w, m.articulation, &g) == MO_OK && g == (self ? 0 : 0x10000));
        CHECK(m.collision_group == g);
        static bool touch[(n + 1) * (n + 1)];
        int ground, all, two, one;
        contacts(w, &m, touch, &ground);
        count_pairs(touch, n + 1, &all, &two, &one);
        printf("mjcf: self_collision %s: %d link pairs touching (%d two apart), %d links on the ground\n",
               self ? "true" : "false", all, two, ground);
        CHECK(all == (self ? n - 2 : 0) && two == all && ground == n);
        mo_urdf_model_free(&m);
        mo_world_destroy(w);
    }
}

int main(void)
{
    if (test_tmpdir_make(dir, sizeof dir, "moreau_artic_chain")) return 1;
    {
        mo_world *w = new_world();
        mo_urdf_model m;
        char err[1024];
        mo_status s = mo_urdf_load(w, chain_urdf(3), NULL, &m, err, sizeof err);
        mo_world_destroy(w);
        if (s == MO_ERR_UNSUPPORTED) {
            printf("import_artic_chain: %s: skipped\n", err);
            test_tmpdir_remove(dir);
            return 77;
        }
        mo_urdf_model_free(&m);
    }
    test_urdf();
    test_mjcf();
    test_tmpdir_remove(dir);
    return check_result("import_artic_chain");
}
