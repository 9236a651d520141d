/* MuJoCo 2.2.2 peer benchmark on Moreau's robot scenes (issue 19): scenes/quadruped.lua,
 * scenes/arm6.lua and scenes/double_pendulum.lua, rebuilt here as MJCF with the same links,
 * masses, inertias, joint axes, shapes, gains, time step and duration, and the same holding
 * figures the scenes check. Optional tool, not part of the Meson build (tools/peers_robots/README.md).
 *
 *   usage: bench_mujoco_robots SCENE [key=value ...]
 *     SCENE       quadruped | arm6 | double_pendulum
 *     solver=     Newton (MuJoCo's default) | PGS | CG
 *     iterations= solver iterations (default: MuJoCo's, 100)
 *     h=          time step (default 1/120, as the scenes)
 *     integrator= Euler (MuJoCo's default) | RK4 | implicit
 *     duration=   simulated seconds (default: the scene's: 5, 6, 10)
 *     lead=       0 (default): the PD targets are those of the step's start t, as an explicit drive
 *                 acting over the step wants; 1: those of its end t + h, as the Lua scenes give
 *                 Moreau's implicit drives (evaluated at the end of the step)
 *     solref="TC DR"  contact solref of every geom (default: MuJoCo's, 0.02 1)
 *     xml=FILE    also write the generated MJCF to FILE
 *   BENCH_TRACE=N (environment): every Nth step's time, contacts, solver iterations, qpos/qvel[0..2] on stderr
 *
 * Control (computed before each mj_step, outside the timed call): the scenes' PD drives are
 * implicit in Moreau (evaluated at the end of the step). Here the damping term is the joint's
 * `damping` (integrated implicitly by MuJoCo's Euler integrator) and everything else is an
 * explicit joint torque in qfrc_applied: tau = feed-forward + kp (q_target - q) + kd v_target,
 * clamped to the scene's max effort (the clamp does not include the damping term), with the
 * targets of the step's start t (lead=0; lead=1: of its end t + h, as the scenes give Moreau's
 * implicit drives; with explicit torques that puts the arm one step, v h, off its reference).
 * The feed-forward is the scenes': gravity compensation G(q) (qfrc_bias at zero velocity) and, for the quadruped, minus
 * J_foot^T (0, 0, W/n) over the stance feet (mj_jac). Observations and the controller use a
 * second mjData, so the timed mjData's warm start is untouched. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <mujoco/mujoco.h>

static char *xml;
static size_t xlen, xcap;
static void put(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void put(const char *fmt, ...)
{
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        int n = vsnprintf(xml + xlen, xcap - xlen, fmt, ap);
        va_end(ap);
        if (n >= 0 && (size_t)n < xcap - xlen) {
            xlen += (size_t)n;
            return;
        }
        xcap = xcap * 2 + (size_t)n + 1024;
        xml = realloc(xml, xcap);
    }
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* a body with a hinge joint (axis), an inertial at com with a diagonal inertia */
static void body_open(const char *name, const double pos[3], const double axis[3], double damping, double mass,
                      const double com[3], const double inertia[3])
{
    put("<body name=\"%s\" pos=\"%.12g %.12g %.12g\">", name, pos[0], pos[1], pos[2]);
    if (axis)
        put("<joint name=\"%s\" type=\"hinge\" axis=\"%g %g %g\" damping=\"%.12g\"/>", name, axis[0], axis[1], axis[2],
            damping);
    put("<inertial pos=\"%.12g %.12g %.12g\" mass=\"%.12g\" diaginertia=\"%.12g %.12g %.12g\"/>", com[0], com[1],
        com[2], mass, inertia[0], inertia[1], inertia[2]);
}

static void rod_i(double m, double l, double out[3]) /* quadruped.lua's rod(m, l) */
{
    out[0] = out[1] = m * l * l / 12;
    out[2] = 1e-4;
}
static void rod_r(double m, double l, double r, double out[3]) /* arm6.lua's rod(m, l, r) */
{
    out[0] = out[1] = m * (3 * r * r + l * l) / 12;
    out[2] = m * r * r / 2;
}

/* ---- quadruped.lua ---- */
#define BX 0.25
#define BY 0.12
#define BZ 0.05
#define BMASS 10.0
#define HIP_X 0.20
#define HIP_Y 0.12
#define HIP_Z (-0.05)
#define HIP_OFS 0.05
#define L1 0.22
#define L2 0.22
#define R_FOOT 0.02
#define M_HIP 0.6
#define M_THIGH 1.0
#define M_SHANK 0.3
#define Q_THIGH 0.6
#define Q_KNEE (-1.2)
#define STAND 1.0
#define PERIOD 0.3
#define AMP 0.1
#define LIFT 0.3
#define QKP 300.0
#define QKD 6.0
#define QEFFORT 80.0
static const char *leg_name[4] = {"fl", "fr", "rl", "rr"};
static const double leg_x[4] = {1, 1, -1, -1}, leg_y[4] = {1, -1, 1, -1}, leg_phase[4] = {0, M_PI, M_PI, 0};
static double quad_z0(void) { return -HIP_Z + (L1 + L2) * cos(Q_THIGH) + R_FOOT; }

static void build_quadruped(void)
{
    double z0 = quad_z0(), c0[3] = {0, 0, 0}, in[3];
    put("<default><geom friction=\"1 0.005 0.0001\"/></default><worldbody>");
    put("<geom name=\"floor\" type=\"plane\" size=\"0 0 1\"/>");
    double bi[3] = {BMASS / 3 * (BY * BY + BZ * BZ), BMASS / 3 * (BX * BX + BZ * BZ), BMASS / 3 * (BX * BX + BY * BY)};
    put("<body name=\"base\" pos=\"0 0 %.12g\"><freejoint name=\"base\"/>", z0);
    put("<inertial pos=\"0 0 0\" mass=\"%.12g\" diaginertia=\"%.12g %.12g %.12g\"/>", BMASS, bi[0], bi[1], bi[2]);
    put("<geom name=\"base\" type=\"box\" size=\"%g %g %g\"/>", BX, BY, BZ);
    static const double ax_x[3] = {1, 0, 0}, ax_y[3] = {0, 1, 0};
    for (int i = 0; i < 4; i++) {
        char nm[32];
        double p[3] = {leg_x[i] * HIP_X, leg_y[i] * HIP_Y, HIP_Z}, hi[3] = {5e-4, 5e-4, 5e-4};
        snprintf(nm, sizeof nm, "%s_hip", leg_name[i]);
        body_open(nm, p, ax_x, QKD, M_HIP, c0, hi);
        double pt[3] = {0, leg_y[i] * HIP_OFS, 0}, ct[3] = {0, 0, -L1 / 2};
        rod_i(M_THIGH, L1, in);
        snprintf(nm, sizeof nm, "%s_thigh", leg_name[i]);
        body_open(nm, pt, ax_y, QKD, M_THIGH, ct, in);
        double ps[3] = {0, 0, -L1}, cs[3] = {0, 0, -L2 / 2};
        rod_i(M_SHANK, L2, in);
        snprintf(nm, sizeof nm, "%s_shank", leg_name[i]);
        body_open(nm, ps, ax_y, QKD, M_SHANK, cs, in);
        put("<geom name=\"%s\" type=\"capsule\" fromto=\"0 0 0 0 0 %.12g\" size=\"%g\"/>", nm, -L2, R_FOOT);
        put("</body></body></body>");
    }
    put("</body></worldbody><contact>");
    for (int i = 0; i < 4; i++) put("<exclude body1=\"base\" body2=\"%s_shank\"/>", leg_name[i]);
    put("</contact>");
}

/* ---- arm6.lua ---- */
#define ARM_KP 3000.0
#define TRACK 4.0
#define TOOL 0.05
static const double Q0[6] = {0, 0.5, 0.8, 0, 0.5, 0}, AAMP[6] = {0.5, 0.4, 0.5, 0.8, 0.6, 1.0};
static const double TARGET[3] = {0.35, 0.25, 0.45};
static double akp[6], akd[6], aeffort[6];
static void arm_gains(void)
{
    for (int i = 0; i < 6; i++) {
        akp[i] = i < 3 ? ARM_KP : ARM_KP / 10;
        akd[i] = 2 * sqrt(akp[i] * (i < 3 ? 0.5 : 0.01));
        aeffort[i] = i < 3 ? 300 : 60;
    }
}
static void build_arm6(void)
{
    static const char *nm[6] = {"yaw", "shoulder", "elbow", "wrist_roll", "wrist_pitch", "flange"};
    static const double ax[6][3] = {{0, 0, 1}, {0, 1, 0}, {0, 1, 0}, {0, 0, 1}, {0, 1, 0}, {0, 0, 1}};
    static const double pz[6] = {0.1, 0.15, 0.4, 0.35, 0.08, 0.08}, mass[6] = {4, 3, 2, 0.8, 0.5, 0.3};
    static const double cz[6] = {0.05, 0.2, 0.175, 0.04, 0.04, 0.03}, len[6] = {0.1, 0.4, 0.35, 0.08, 0.08, 0.06};
    static const double rad[6] = {0.08, 0.05, 0.04, 0.03, 0.03, 0.03};
    put("<worldbody>");
    for (int i = 0; i < 6; i++) {
        double p[3] = {0, 0, pz[i]}, c[3] = {0, 0, cz[i]}, in[3];
        rod_r(mass[i], len[i], rad[i], in);
        body_open(nm[i], p, ax[i], akd[i], mass[i], c, in);
    }
    for (int i = 0; i < 6; i++) put("</body>");
    put("</worldbody>");
}

/* ---- double_pendulum.lua ---- */
static void build_pendulum(void)
{
    double I[3] = {1.0 / 12, 1.0 / 12, 1e-4}, c[3] = {0, 0, -0.5}, ax[3] = {0, 1, 0};
    put("<worldbody>");
    double p0[3] = {0, 0, 2.5}, p1[3] = {0, 0, -1.0};
    body_open("upper", p0, ax, 0, 1.0, c, I);
    body_open("lower", p1, ax, 0, 1.0, c, I);
    put("</body></body></worldbody>");
}

/* total energy of d's state (d must have been through mj_forward): kinetic 1/2 v^T M v + potential
 * sum m g z (zero at the world origin, as Moreau's) */
static double energy(const mjModel *m, mjData *d)
{
    double *Mv = malloc(sizeof(double) * (size_t)m->nv), k = 0, p = 0;
    mj_mulM(m, d, Mv, d->qvel);
    for (int i = 0; i < m->nv; i++) k += 0.5 * d->qvel[i] * Mv[i];
    for (int b = 1; b < m->nbody; b++) p -= m->body_mass[b] * mju_dot3(m->opt.gravity, d->xipos + 3 * b);
    free(Mv);
    return k + p;
}

static void forward_at(const mjModel *m, const mjData *d, mjData *o, int zero_vel)
{
    mju_copy(o->qpos, d->qpos, m->nq);
    if (zero_vel)
        mju_zero(o->qvel, m->nv);
    else
        mju_copy(o->qvel, d->qvel, m->nv);
    o->time = d->time;
    mj_forward(m, o);
}

/* point (local, in body b's frame) in world coordinates */
static void body_point(const mjData *d, int b, const double loc[3], double out[3])
{
    mju_rotVecMat(out, loc, d->xmat + 9 * b);
    mju_addTo3(out, d->xpos + 3 * b);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s quadruped|arm6|double_pendulum [solver=Newton|PGS|CG] [iterations=N] [h=H] "
                        "[integrator=Euler|RK4|implicit] [duration=T] [lead=0|1] [solref=\"TC DR\"] [xml=FILE]\n", argv[0]);
        return 2;
    }
    const char *scene = argv[1], *solver = NULL, *integ = NULL, *xml_out = NULL, *solref = NULL;
    int iters = 0, lead = 0;
    double h = 1.0 / 120, duration = -1;
    for (int a = 2; a < argc; a++) {
        if (!strncmp(argv[a], "solver=", 7)) solver = argv[a] + 7;
        else if (!strncmp(argv[a], "iterations=", 11)) iters = atoi(argv[a] + 11);
        else if (!strncmp(argv[a], "h=", 2)) h = atof(argv[a] + 2);
        else if (!strncmp(argv[a], "integrator=", 11)) integ = argv[a] + 11;
        else if (!strncmp(argv[a], "duration=", 9)) duration = atof(argv[a] + 9);
        else if (!strncmp(argv[a], "xml=", 4)) xml_out = argv[a] + 4;
        else if (!strncmp(argv[a], "solref=", 7)) solref = argv[a] + 7;
        else if (!strncmp(argv[a], "lead=", 5)) lead = atoi(argv[a] + 5);
        else {
            fprintf(stderr, "unknown argument %s\n", argv[a]);
            return 2;
        }
    }
    int kind = !strcmp(scene, "quadruped") ? 0 : !strcmp(scene, "arm6") ? 1 : !strcmp(scene, "double_pendulum") ? 2 : -1;
    if (kind < 0) {
        fprintf(stderr, "unknown scene %s\n", scene);
        return 2;
    }
    if (duration < 0) duration = kind == 0 ? 5.0 : kind == 1 ? 6.0 : 10.0;
    arm_gains();

    put("<mujoco model=\"%s\"><compiler angle=\"radian\" inertiafromgeom=\"false\"/>", scene);
    put("<option timestep=\"%.15g\" gravity=\"0 0 -9.81\"", h);
    if (solver) put(" solver=\"%s\"", solver);
    if (iters > 0) put(" iterations=\"%d\"", iters);
    if (integ) put(" integrator=\"%s\"", integ);
    put("/>");
    if (solref) put("<default><geom solref=\"%s\"/></default>", solref);
    if (kind == 0) build_quadruped();
    else if (kind == 1) build_arm6();
    else build_pendulum();
    put("</mujoco>");

    char fname[256];
    snprintf(fname, sizeof fname, "/tmp/bench_mujoco_robots_%d.xml", (int)getpid());
    FILE *f = fopen(fname, "w");
    if (!f) return 1;
    fwrite(xml, 1, xlen, f);
    fclose(f);
    if (xml_out && (f = fopen(xml_out, "w"))) {
        fwrite(xml, 1, xlen, f);
        fclose(f);
    }
    char err[1000] = "";
    mjModel *m = mj_loadXML(fname, NULL, err, sizeof err);
    unlink(fname);
    if (!m) {
        fprintf(stderr, "mj_loadXML: %s\n", err);
        return 1;
    }
    mjData *d = mj_makeData(m), *o = mj_makeData(m);
    const int nv = m->nv, steps = (int)floor(duration / h + 0.5);
    double *jac = malloc(sizeof(double) * 3 * (size_t)nv), *gc = malloc(sizeof(double) * (size_t)nv);
    double *t_step = malloc(sizeof(double) * (size_t)steps);

    /* initial state */
    double z0 = quad_z0(), e0 = 0, e_rest = 0;
    int base_geom = -1, shank[4] = {0}, base_touched = 0;
    if (kind == 0) {
        for (int i = 0; i < 4; i++) {
            d->qpos[7 + 3 * i + 1] = Q_THIGH;
            d->qpos[7 + 3 * i + 2] = Q_KNEE;
            char nm[32];
            snprintf(nm, sizeof nm, "%s_shank", leg_name[i]);
            shank[i] = mj_name2id(m, mjOBJ_BODY, nm);
        }
        base_geom = mj_name2id(m, mjOBJ_GEOM, "base");
    } else if (kind == 1) {
        for (int i = 0; i < 6; i++) {
            d->qpos[i] = Q0[i];
            d->qvel[i] = AAMP[i] * 2 * M_PI * 0.5;
        }
    } else {
        forward_at(m, d, o, 1);
        e_rest = energy(m, o);
        d->qpos[0] = 1.2;
        d->qpos[1] = -0.6;
        forward_at(m, d, o, 0);
        e0 = energy(m, o);
    }
    const int flange = mj_name2id(m, mjOBJ_BODY, "flange");

    double stand_dz = 0, stand_tilt = 0, trot_min_z = 1e300, x_start = d->qpos[0];
    double track_err = 0, q_cmd[6], reach_err = 0, e_worst = 0;
    int have_cmd = 0;
    long iter_sum = 0, ncon_sum = 0;
    int iter_max = 0, trace = getenv("BENCH_TRACE") ? atoi(getenv("BENCH_TRACE")) : 0;
    for (int s = 0; s < steps; s++) {
        const double t = d->time;
        if (kind == 0) {
            /* observe (as quadruped.lua's observe(t)) */
            const double *q = d->qpos;
            double tilt = acos(fmax(-1, fmin(1, 1 - 2 * (q[4] * q[4] + q[5] * q[5])))) * 180 / M_PI;
            if (t <= STAND + 1e-9) {
                stand_dz = fmax(stand_dz, fabs(q[2] - z0));
                stand_tilt = fmax(stand_tilt, tilt);
            } else {
                trot_min_z = fmin(trot_min_z, q[2]);
            }
            /* targets for t + h */
            double tt = t + lead * h, th[4], kn[4];
            int stance[4], n = 0;
            for (int i = 0; i < 4; i++) {
                th[i] = Q_THIGH;
                kn[i] = Q_KNEE;
                stance[i] = 1;
                if (tt >= STAND && duration > STAND) {
                    double ph = 2 * M_PI * (tt - STAND) / PERIOD + leg_phase[i];
                    double ramp = fmin(1, (tt - STAND) / PERIOD);
                    th[i] = Q_THIGH + ramp * AMP * (cos(ph) - 1);
                    kn[i] = Q_KNEE - ramp * LIFT * fmax(0, sin(ph));
                    stance[i] = sin(ph) <= 0;
                }
                n += stance[i];
            }
            /* feed-forward G - sum J_foot^T (0, 0, W/n) */
            forward_at(m, d, o, 1);
            mju_copy(gc, o->qfrc_bias, nv);
            double W = (BMASS + 4 * (M_HIP + M_THIGH + M_SHANK)) * 9.81;
            for (int i = 0; i < 4 && n > 0; i++) {
                if (!stance[i]) continue;
                double loc[3] = {0, 0, -L2}, pw[3];
                body_point(o, shank[i], loc, pw);
                mj_jac(m, o, jac, NULL, pw, shank[i]);
                for (int k = 0; k < nv; k++) gc[k] -= jac[2 * nv + k] * W / n;
            }
            for (int i = 0; i < 4; i++) {
                double tq[3] = {0, th[i], kn[i]};
                for (int j = 0; j < 3; j++) {
                    int k = 6 + 3 * i + j;
                    double tau = gc[k] + QKP * (tq[j] - d->qpos[7 + 3 * i + j]);
                    d->qfrc_applied[k] = fmax(-QEFFORT, fmin(QEFFORT, tau));
                }
            }
        } else if (kind == 1) {
            forward_at(m, d, o, 1);
            double qt[6], vt[6], w = 2 * M_PI * 0.5;
            if (t < TRACK - 0.5 * h) {
                for (int i = 0; i < 6; i++)
                    track_err = fmax(track_err, fabs(d->qpos[i] - (Q0[i] + AAMP[i] * sin(w * t))));
                for (int i = 0; i < 6; i++) {
                    qt[i] = Q0[i] + AAMP[i] * sin(w * (t + lead * h));
                    vt[i] = AAMP[i] * w * cos(w * (t + lead * h));
                }
            } else {
                if (!have_cmd) {
                    for (int i = 0; i < 6; i++) q_cmd[i] = d->qpos[i];
                    have_cmd = 1;
                }
                double loc[3] = {0, 0, TOOL}, x[3], e[3], A[3][3], b[3], y[3];
                body_point(o, flange, loc, x);
                for (int r = 0; r < 3; r++) e[r] = TARGET[r] - x[r];
                reach_err = mju_norm3(e);
                mj_jac(m, o, jac, NULL, x, flange);
                for (int r = 0; r < 3; r++) {
                    for (int c = 0; c < 3; c++) {
                        double sum = 0;
                        for (int k = 0; k < 6; k++) sum += jac[r * nv + k] * jac[c * nv + k];
                        A[r][c] = sum + (r == c ? 0.02 * 0.02 : 0);
                    }
                    b[r] = 4.0 * e[r];
                }
                /* Cramer's rule, as arm6.lua */
                double det = A[0][0] * (A[1][1] * A[2][2] - A[1][2] * A[2][1]) - A[0][1] * (A[1][0] * A[2][2] - A[1][2] * A[2][0]) +
                             A[0][2] * (A[1][0] * A[2][1] - A[1][1] * A[2][0]);
                for (int c = 0; c < 3; c++) {
                    double M[3][3];
                    memcpy(M, A, sizeof M);
                    for (int r = 0; r < 3; r++) M[r][c] = b[r];
                    y[c] = (M[0][0] * (M[1][1] * M[2][2] - M[1][2] * M[2][1]) - M[0][1] * (M[1][0] * M[2][2] - M[1][2] * M[2][0]) +
                            M[0][2] * (M[1][0] * M[2][1] - M[1][1] * M[2][0])) / det;
                }
                for (int k = 0; k < 6; k++) {
                    double v = jac[k] * y[0] + jac[nv + k] * y[1] + jac[2 * nv + k] * y[2];
                    v = fmax(-1.0, fmin(1.0, v));
                    q_cmd[k] += h * v;
                    qt[k] = q_cmd[k];
                    vt[k] = v;
                }
            }
            for (int i = 0; i < 6; i++) {
                double tau = o->qfrc_bias[i] + akp[i] * (qt[i] - d->qpos[i]) + akd[i] * vt[i];
                d->qfrc_applied[i] = fmax(-aeffort[i], fmin(aeffort[i], tau));
            }
        }

        double t0 = now_s();
        mj_step(m, d);
        t_step[s] = now_s() - t0;

        iter_sum += d->solver_iter;
        if (d->solver_iter > iter_max) iter_max = d->solver_iter;
        ncon_sum += d->ncon;
        if (kind == 0)
            for (int c = 0; c < d->ncon; c++)
                if (d->contact[c].geom1 == base_geom || d->contact[c].geom2 == base_geom) base_touched = 1;
        if (kind == 2) {
            forward_at(m, d, o, 0);
            e_worst = fmax(e_worst, fabs(energy(m, o) - e0));
        }
        if (trace && s % trace == 0)
            fprintf(stderr, "step %d t=%.4f ncon=%d iter=%d qpos[0..2]=%.5f %.5f %.5f qvel[0..2]=%.4f %.4f %.4f\n", s + 1,
                    d->time, d->ncon, d->solver_iter, d->qpos[0], d->qpos[1], d->qpos[2], d->qvel[0], d->qvel[1],
                    d->qvel[2]);
        if (!isfinite(d->qpos[0])) {
            printf("diverged at step %d\n", s);
            return 1;
        }
    }

    static const char *sn[] = {"PGS", "CG", "Newton"};
    static const char *in[] = {"Euler", "RK4", "implicit"};
    printf("engine=mujoco version=%d scene=%s h=%.6f steps=%d nv=%d solver=%s iterations=%d tolerance=%g cone=%s "
           "integrator=%s lead=%d solref=%s\n", mj_version(), scene, h, steps, nv, sn[m->opt.solver], m->opt.iterations, m->opt.tolerance,
           m->opt.cone == mjCONE_PYRAMIDAL ? "pyramidal" : "elliptic", in[m->opt.integrator], lead,
           solref ? solref : "default");
    double total = 0;
    for (int s = 0; s < steps; s++) total += t_step[s];
    qsort(t_step, (size_t)steps, sizeof(double), cmp_d);
    double med = steps % 2 ? t_step[steps / 2] : 0.5 * (t_step[steps / 2 - 1] + t_step[steps / 2]);
    printf("ms_per_step median=%.5f mean=%.5f solver_iter_mean=%.2f solver_iter_max=%d ncon_mean=%.2f\n", 1e3 * med,
           1e3 * total / steps, (double)iter_sum / steps, iter_max, (double)ncon_sum / steps);
    if (kind == 0) {
        double dx = d->qpos[0] - x_start;
        trot_min_z = fmin(trot_min_z, d->qpos[2]);
        printf("holding: stand max|z-z0|=%.3e m max_tilt=%.3e deg (z0=%.4f); trot min_z=%.4f m base_touched=%d "
               "forward=%.4f m sideways=%.4f m\n", stand_dz, stand_tilt, z0, trot_min_z, base_touched, dx, d->qpos[1]);
    } else if (kind == 1) {
        forward_at(m, d, o, 0);
        double loc[3] = {0, 0, TOOL}, x[3], e[3];
        body_point(o, flange, loc, x);
        for (int r = 0; r < 3; r++) e[r] = TARGET[r] - x[r];
        printf("holding: track max|q-q_ref|=%.3e rad; reach tool_error=%.3e m (last control step %.3e m)\n", track_err,
               mju_norm3(e), reach_err);
    } else {
        printf("holding: max|E-E0|/(E0-E_rest)=%.3e (E0-E_rest=%.4f J)\n", e_worst / (e0 - e_rest), e0 - e_rest);
    }
    free(jac);
    free(gc);
    free(t_step);
    mj_deleteData(o);
    mj_deleteData(d);
    mj_deleteModel(m);
    free(xml);
    return 0;
}
