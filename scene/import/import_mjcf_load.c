/* import_mjcf_load.c: mo_mjcf_load. The parsed description (import_mjcf.c) is
 * built by the URDF builders (import_urdf_build.c, import_urdf_artic.c); this
 * adds what URDF has no word for: the <worldbody> geoms of a free root on a
 * static body, the actuators (drives), <option> (after everything else
 * succeeded, so that a failed load leaves the world as it was). The mass
 * properties of geoms (inertia from geoms) live here too. */
#include <stdlib.h>
#include <string.h>

#include "import_mjcf.h"

mo_mjcf_options mo_default_mjcf_options(void)
{
    mo_mjcf_options o;
    memset(&o, 0, sizeof o);
    o.articulation = true;
    o.collision_meshes = MO_URDF_MESH_AUTO;
    o.max_hull_vertices = 44;
    o.self_collision = true;
    o.friction = 1.0;
    o.massless_link_mass = 0.01;
    o.apply_option = true;
    o.internal_value = MJ_OPTIONS_COOKIE;
    return o;
}

/* ---- small frame math (import_mjcf.h) ---- */

mo_quat mj_axis_angle(mo_vec3 ax, double a)
{
    double s = sin(0.5 * a);
    return (mo_quat){cos(0.5 * a), ax.x * s, ax.y * s, ax.z * s};
}

mo_quat mj_mat_quat(double R[3][3])
{
    double t = R[0][0] + R[1][1] + R[2][2];
    mo_quat q;
    if (t > 0) {
        double s = 2 * sqrt(1 + t);
        q = (mo_quat){0.25 * s, (R[2][1] - R[1][2]) / s, (R[0][2] - R[2][0]) / s, (R[1][0] - R[0][1]) / s};
    } else if (R[0][0] > R[1][1] && R[0][0] > R[2][2]) {
        double s = 2 * sqrt(1 + R[0][0] - R[1][1] - R[2][2]);
        q = (mo_quat){(R[2][1] - R[1][2]) / s, 0.25 * s, (R[0][1] + R[1][0]) / s, (R[0][2] + R[2][0]) / s};
    } else if (R[1][1] > R[2][2]) {
        double s = 2 * sqrt(1 + R[1][1] - R[0][0] - R[2][2]);
        q = (mo_quat){(R[0][2] - R[2][0]) / s, (R[0][1] + R[1][0]) / s, 0.25 * s, (R[1][2] + R[2][1]) / s};
    } else {
        double s = 2 * sqrt(1 + R[2][2] - R[0][0] - R[1][1]);
        q = (mo_quat){(R[1][0] - R[0][1]) / s, (R[0][2] + R[2][0]) / s, (R[1][2] + R[2][1]) / s, 0.25 * s};
    }
    return ur_qnorm(q);
}

double mj_vlen(mo_vec3 v) { return sqrt(v.x * v.x + v.y * v.y + v.z * v.z); }
mo_vec3 mj_vscale(mo_vec3 v, double s) { return ur_v(v.x * s, v.y * s, v.z * s); }
mo_vec3 mj_vcross(mo_vec3 a, mo_vec3 b)
{
    return ur_v(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}

/* the rotation taking +z onto unit z */
mo_quat mj_z_to(mo_vec3 z)
{
    mo_vec3 a = mj_vcross(ur_v(0, 0, 1), z);
    double s = mj_vlen(a), cth = z.z;
    if (s < 1e-14) return cth > 0 ? (mo_quat){1, 0, 0, 0} : (mo_quat){0, 1, 0, 0};
    return mj_axis_angle(mj_vscale(a, 1 / s), atan2(s, cth));
}

void mj_acc_add(mj_mass_acc *a, double m, mo_vec3 p, mo_quat q, mo_mat3 Ic)
{
    double R[3][3];
    ur_qmat(q, R);
    double d[3] = {p.x, p.y, p.z}, dd = p.x * p.x + p.y * p.y + p.z * p.z;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            double s = 0;
            for (int k = 0; k < 3; k++)
                for (int l = 0; l < 3; l++) s += R[i][k] * Ic.m[k][l] * R[j][l];
            a->I.m[i][j] += s + m * ((i == j ? dd : 0) - d[i] * d[j]);
        }
    a->m += m;
    a->mc = ur_add(a->mc, mj_vscale(p, m));
}

double mj_geom_volume(int t, mo_vec3 s, mo_vec3 *I)
{
    double r = s.x, v;
    switch (t) {
    case MO_URDF_GEOM_SPHERE:
        v = 4.0 / 3.0 * MJ_PI * r * r * r;
        *I = ur_v(0.4 * v * r * r, 0.4 * v * r * r, 0.4 * v * r * r);
        return v;
    case MO_URDF_GEOM_BOX: { /* full lengths */
        v = s.x * s.y * s.z;
        *I = ur_v(v / 12 * (s.y * s.y + s.z * s.z), v / 12 * (s.x * s.x + s.z * s.z), v / 12 * (s.x * s.x + s.y * s.y));
        return v;
    }
    case MO_URDF_GEOM_CYLINDER: {
        double h = s.z;
        v = MJ_PI * r * r * h;
        double ix = v * (3 * r * r + h * h) / 12;
        *I = ur_v(ix, ix, 0.5 * v * r * r);
        return v;
    }
    case MO_URDF_GEOM_CAPSULE: { /* a cylinder of length h and two hemispheres (MuJoCo's formula) */
        double h = s.z, vc = MJ_PI * r * r * h, vs = 4.0 / 3.0 * MJ_PI * r * r * r;
        double ix = vc * (3 * r * r + h * h) / 12 + 0.4 * vs * r * r + vs * h * (3 * r + 2 * h) / 8;
        *I = ur_v(ix, ix, 0.5 * vc * r * r + 0.4 * vs * r * r);
        return vc + vs;
    }
    default:
        *I = ur_v(0, 0, 0);
        return 0;
    }
}

bool mj_mesh_mass(const mo_mesh_data *m, double *volume, mo_vec3 *com, mo_mat3 *inertia)
{
    /* tetrahedra (0, a, b, c) of the triangles: volume, first and second moments */
    double V = 0, c1[3] = {0, 0, 0}, C[3][3] = {{0}};
    for (int t = 0; t < m->ntriangles; t++) {
        const double *a = &m->vertices[3 * m->triangles[3 * t]], *b = &m->vertices[3 * m->triangles[3 * t + 1]],
                     *c = &m->vertices[3 * m->triangles[3 * t + 2]];
        double v = (a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) +
                    a[2] * (b[0] * c[1] - b[1] * c[0])) / 6.0;
        V += v;
        for (int i = 0; i < 3; i++) c1[i] += v * (a[i] + b[i] + c[i]) / 4.0;
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++)
                C[i][j] += v / 20.0 * (a[i] * a[j] + b[i] * b[j] + c[i] * c[j] +
                                       (a[i] + b[i] + c[i]) * (a[j] + b[j] + c[j]));
    }
    if (!(V > 0) || !isfinite(V)) return false;
    double p[3] = {c1[0] / V, c1[1] / V, c1[2] / V};
    /* second moment about the centre, then the inertia tensor tr(C) E - C */
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) C[i][j] -= V * p[i] * p[j];
    double tr = C[0][0] + C[1][1] + C[2][2];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) inertia->m[i][j] = (i == j ? tr : 0) - C[i][j];
    *volume = V;
    *com = ur_v(p[0], p[1], p[2]);
    return true;
}

void mj_desc_free(mj_desc *d)
{
    for (int i = 0; i < d->nworld; i++) mo_mesh_free(&d->world[i].mesh);
    free(d->world);
    free(d->act);
    free(d->off);
    free(d->eq);
    ur_robot_free(&d->r);
    memset(d, 0, sizeof *d);
}

#ifdef MO_HAVE_URDF
static void set_world_error(mo_world *w, char *err, size_t n, mo_status st)
{
    if (st == MO_ERR_OUT_OF_MEMORY && err[0] == '\0') snprintf(err, n, "out of memory");
    ur_set_world_error(w, err);
}

/* the <worldbody> geoms under a free root: a static body of their own */
static mo_status world_body(mo_world *w, const char *path, const mj_desc *d, const mo_mjcf_options *opt,
                            mo_body_id *out, char *err, size_t n)
{
    *out = (mo_body_id){0, 0};
    if (d->nworld == 0) return MO_OK;
    mo_body_def bd = mo_default_body_def();
    bd.type = MO_BODY_STATIC;
    mo_status st = mo_body_create(w, &bd, out);
    int line = 0;
    for (int i = 0; i < d->nworld && st == MO_OK; i++) {
        const ur_geom *g = &d->world[i];
        line = g->line;
        mo_shape_def sd = mo_default_shape_def();
        sd.position = g->pos;
        sd.orientation = g->q;
        sd.friction = g->has_friction ? g->friction : opt->friction;
        mo_vec3 *pts = NULL;
        switch (g->type) {
        case MO_URDF_GEOM_BOX: sd.type = MO_SHAPE_BOX; sd.half_extents = ur_v(0.5 * g->size.x, 0.5 * g->size.y, 0.5 * g->size.z); break;
        case MO_URDF_GEOM_SPHERE: sd.type = MO_SHAPE_SPHERE; sd.radius = g->size.x; break;
        case MO_URDF_GEOM_CYLINDER: sd.type = MO_SHAPE_CYLINDER; sd.radius = g->size.x; sd.half_height = 0.5 * g->size.z; break;
        case MO_URDF_GEOM_CAPSULE: sd.type = MO_SHAPE_CAPSULE; sd.radius = g->size.x; sd.half_height = 0.5 * g->size.z; break;
        case MO_URDF_GEOM_PLANE: sd.type = MO_SHAPE_PLANE; break;
        default: /* a static mesh: triangles */
            pts = malloc((size_t)g->mesh.nvertices * sizeof *pts);
            if (!pts) {
                st = MO_ERR_OUT_OF_MEMORY;
                break;
            }
            for (int v = 0; v < g->mesh.nvertices; v++)
                pts[v] = ur_v(g->mesh.vertices[3 * v], g->mesh.vertices[3 * v + 1], g->mesh.vertices[3 * v + 2]);
            sd.type = MO_SHAPE_MESH;
            sd.vertices = pts;
            sd.vertex_count = g->mesh.nvertices;
            sd.indices = g->mesh.triangles;
            sd.triangle_count = g->mesh.ntriangles;
            break;
        }
        mo_shape_id sh;
        if (st == MO_OK) st = mo_shape_create(w, *out, &sd, &sh);
        free(pts);
    }
    if (st != MO_OK) {
        snprintf(err, n, "%s:%d: worldbody: cannot create the geom: %s", path, line,
                 st == MO_ERR_OUT_OF_MEMORY ? "out of memory" : mo_world_last_error(w));
        if (!mo_body_id_is_null(*out)) mo_body_destroy(w, *out);
        *out = (mo_body_id){0, 0};
    }
    return st;
}

/* the actuators: position and velocity as the articulation's drives; motors record their force range */
static mo_status actuators(mo_world *w, const char *path, const mj_desc *d, mo_urdf_model *m, char *err, size_t n)
{
    for (int i = 0; i < d->nact; i++) {
        const mj_actuator *a = &d->act[i];
        mo_urdf_joint *j = &m->joints[a->joint];
        if (a->force_limited) j->effort = a->force_hi * (a->kind == 0 ? a->gear : 1.0);
        if (a->kind == 0) continue;
        if (mo_articulation_id_is_null(m->articulation)) {
            snprintf(err, n, "%s:%d: %s '%s': position and velocity actuators become articulation drives: "
                     "load with articulation = true", path, a->line, a->kind == 1 ? "position" : "velocity", a->name);
            return MO_ERR_INVALID_ARGUMENT;
        }
        mo_joint_drive dr;
        mo_status st = mo_articulation_drive(w, m->articulation, j->child_link, &dr);
        if (a->kind == 1) dr.stiffness = a->kp;
        dr.damping += a->kv;
        if (a->force_limited) dr.max_effort = a->force_hi;
        if (st == MO_OK) st = mo_articulation_set_drive(w, m->articulation, j->child_link, &dr);
        if (st != MO_OK) {
            snprintf(err, n, "%s:%d: actuator '%s': cannot set the drive: %s", path, a->line, a->name,
                     mo_world_last_error(w));
            return st;
        }
        j->motor = MO_MOTOR_POSITION;
    }
    return MO_OK;
}
#endif

mo_status mo_mjcf_load(mo_world *w, const char *path, const mo_mjcf_options *opt, mo_urdf_model *out, char *err,
                       size_t err_size)
{
    if (out) memset(out, 0, sizeof *out);
    char localerr[1024];
    if (!err || err_size == 0) {
        err = localerr;
        err_size = sizeof localerr;
    }
    err[0] = '\0';
    if (!w || !path || !out) {
        snprintf(err, err_size, "mo_mjcf_load: world, path and out must not be NULL");
        return MO_ERR_INVALID_ARGUMENT;
    }
    mo_mjcf_options def = mo_default_mjcf_options();
    if (!opt) opt = &def;
    if (opt->internal_value != MJ_OPTIONS_COOKIE) {
        snprintf(err, err_size, "%s: mjcf options were not initialised with mo_default_mjcf_options()", path);
        ur_set_world_error(w, err);
        return MO_ERR_INVALID_ARGUMENT;
    }
#ifndef MO_HAVE_URDF
    snprintf(err, err_size, "%s: MJCF files need libxml2, and this Moreau was built without it "
             "(install libxml2-dev and reconfigure with -Durdf=enabled)", path);
    ur_set_world_error(w, err);
    return MO_ERR_UNSUPPORTED;
#else
    if ((opt->nsearch_paths != 0 && !opt->search_paths) || opt->nsearch_paths < 0 || opt->nsearch_paths > 64 ||
        opt->collision_meshes < MO_URDF_MESH_AUTO || opt->collision_meshes > MO_URDF_MESH_TRIANGLES ||
        opt->max_hull_vertices < 0 || (opt->max_hull_vertices > 0 && opt->max_hull_vertices < 8) ||
        !(opt->friction >= 0) || !isfinite(opt->friction) || !(opt->massless_link_mass > 0) ||
        !isfinite(opt->massless_link_mass)) {
        snprintf(err, err_size, "%s: mjcf options out of range (nsearch_paths %d, collision_meshes %d, "
                 "max_hull_vertices %d, friction %g, massless_link_mass %g)", path, opt->nsearch_paths,
                 (int)opt->collision_meshes, opt->max_hull_vertices, opt->friction, opt->massless_link_mass);
        ur_set_world_error(w, err);
        return MO_ERR_INVALID_ARGUMENT;
    }
    mj_desc d;
    memset(&d, 0, sizeof d);
    mo_status st = mj_parse(path, opt, &d, err, err_size);
    if (st != MO_OK) {
        set_world_error(w, err, err_size, st);
        return st;
    }
    /* a free body beside others: no articulation holds it (its free joint would be below the world link) */
    for (int k = 0; k < d.r.njoints && opt->articulation; k++)
        if (d.r.joints[k].type == MO_URDF_JOINT_FLOATING) {
            snprintf(err, err_size, "%s:%d: joint '%s': a free body beside other top-level bodies cannot be part of "
                     "an articulation (a free root must be the <worldbody>'s only body): load with articulation = "
                     "false", path, d.r.joints[k].line, d.r.joints[k].name);
            ur_set_world_error(w, err);
            mj_desc_free(&d);
            return MO_ERR_INVALID_ARGUMENT;
        }
    /* the URDF builders' options */
    static const char *const no_names[1] = {""};
    mo_urdf_options uo = mo_default_urdf_options();
    uo.fixed_base = !d.free_root;
    if (d.free_root) {
        uo.base_position = d.base_position;
        uo.base_orientation = d.base_orientation;
    }
    uo.collision_meshes = opt->collision_meshes;
    uo.max_hull_vertices = opt->max_hull_vertices;
    uo.self_collision = opt->self_collision;
    uo.exclude_adjacent = true;
    uo.exclude_pairs = no_names; /* the pairs are d.r.excl (link indices); the builders read only the count */
    uo.nexclude_pairs = d.nexcl;
    uo.friction = opt->friction;
    uo.massless_link_mass = opt->massless_link_mass;
    uo.articulation = opt->articulation;
    mo_body_id wb;
    st = world_body(w, path, &d, opt, &wb, err, err_size);
    if (st == MO_OK) {
        st = opt->articulation ? ur_robot_build_articulation(w, path, &d.r, &uo, out, err, err_size)
                               : ur_robot_build(w, path, &d.r, &uo, out, err, err_size);
        if (st != MO_OK && !mo_body_id_is_null(wb)) mo_body_destroy(w, wb);
    }
    if (st == MO_OK) {
        out->world_body = wb;
        st = actuators(w, path, &d, out, err, err_size);
        if (st == MO_OK) st = mj_build_equalities(w, path, &d, out, err, err_size);
        if (st == MO_OK && opt->apply_option) {
            if (d.has_gravity) st = mo_world_set_gravity(w, d.gravity);
            if (st == MO_OK && d.has_timestep) st = mo_world_set_time_step(w, d.timestep);
            if (st != MO_OK) snprintf(err, err_size, "%s: <option>: %s", path, mo_world_last_error(w));
        }
        if (st != MO_OK) { /* undo it all */
            if (!mo_articulation_id_is_null(out->articulation)) mo_articulation_destroy(w, out->articulation);
            else
                for (int i = 0; i < out->nlinks; i++)
                    if (!mo_body_id_is_null(out->links[i].body) && mo_body_is_valid(w, out->links[i].body))
                        mo_body_destroy(w, out->links[i].body);
            if (!mo_body_id_is_null(wb)) mo_body_destroy(w, wb);
            mo_urdf_model_free(out);
        }
    }
    if (st != MO_OK) set_world_error(w, err, err_size, st);
    mj_desc_free(&d);
    return st;
#endif
}
