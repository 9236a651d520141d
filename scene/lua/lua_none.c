/* lua_none.c: scene.h without Lua (configured with -Dlua=disabled or without
 * liblua5.4-dev): loading refuses with a sentence, the rest answers empty. */
#include <stdio.h>

#include "moreau/scene.h"

mo_scene_options mo_default_scene_options(void)
{
    mo_scene_options o = {0};
    return o;
}

mo_status mo_scene_file_load(const char *path, const mo_scene_options *opt, mo_scene_file **out, char *err,
                             size_t err_size)
{
    (void)opt;
    if (out) *out = NULL;
    if (err && err_size)
        snprintf(err, err_size, "%s: this Moreau was built without Lua (install liblua5.4-dev and reconfigure): "
                 "scene files cannot be run", path ? path : "(null)");
    return MO_ERR_UNSUPPORTED;
}

void mo_scene_file_destroy(mo_scene_file *s) { (void)s; }
mo_world *mo_scene_file_world(const mo_scene_file *s) { (void)s; return NULL; }
double mo_scene_file_duration(const mo_scene_file *s) { (void)s; return 0.0; }
mo_status mo_scene_file_step(mo_scene_file *s) { (void)s; return MO_ERR_UNSUPPORTED; }
bool mo_scene_file_done(const mo_scene_file *s, const char **reason)
{
    (void)s;
    if (reason) *reason = "";
    return true;
}
const char *mo_scene_file_last_error(const mo_scene_file *s) { (void)s; return "built without Lua"; }
uint64_t mo_scene_file_steps(const mo_scene_file *s) { (void)s; return 0; }
bool mo_scene_file_param_read(const mo_scene_file *s, const char *name) { (void)s, (void)name; return false; }
int mo_scene_file_check_count(const mo_scene_file *s) { (void)s; return 0; }
int mo_scene_file_checks(mo_scene_file *s, mo_scene_check_result *out, int cap)
{
    (void)s, (void)out, (void)cap;
    return 0;
}
int mo_scene_file_bodies(const mo_scene_file *s, mo_scene_body *out, int cap)
{
    (void)s, (void)out, (void)cap;
    return 0;
}
int mo_scene_file_visuals(const mo_scene_file *s, mo_scene_visual *out, int cap)
{
    (void)s, (void)out, (void)cap;
    return 0;
}
