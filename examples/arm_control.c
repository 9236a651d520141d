/* arm_control.c: a robot control loop on the articulation API (issue 19).
 *
 * A 4-DoF arm in reduced coordinates (base yaw about z, shoulder, elbow and
 * wrist pitch about y; 3, 2, 1 and 0.4 kg links of 0.1, 0.4, 0.35 and 0.1 m)
 * on a fixed base moves from its upright home pose to a target pose along a
 * quintic (minimum-jerk) joint trajectory in 2 s, then holds it 1 s. Physics
 * at 1 kHz; every 5 steps (200 Hz) the controller reads q and qdot
 * (mo_articulation_get_q/_qdot), asks the engine for the gravity
 * compensation and the mass matrix at the measured q
 * (mo_articulation_gravity_compensation, mo_articulation_mass_matrix) and
 * writes PD + gravity compensation as joint torques
 * (mo_articulation_set_torques; held until the next tick, as a motor driver
 * holds its command), the PD gains scaled by the mass matrix so that every
 * joint gets the same bandwidth (wn = 20 rad/s, critically damped) whatever
 * inertia it moves:
 *   tau = G(q) + M(q) (Kp (q_ref - q) + Kd (qdot_ref - qdot)),  Kp = wn^2, Kd = 2 wn.
 * (Plain diagonal gains are a trap here: the base yaw moves 0.02 kg m^2
 * upright and 0.5 reached out, and a held explicit torque with Kd dt / I > 2
 * diverges; the engine's implicit drives, mo_articulation_set_drive, are
 * stable at any gain, see scenes/arm6.lua.)
 * It prints the tracking error every 0.5 s and the tool point (on the wrist
 * link, from mo_articulation_link_pose) at the end, and exits 0 when the
 * tracking error stays under 0.05 rad during the move and the final error is
 * under 1e-3 rad (it is also run as a test).
 *
 * Build against an installed Moreau:
 *   cc arm_control.c $(pkg-config --cflags --libs moreau) -lm -o arm_control */
#include <math.h>
#include <stdio.h>
#include <moreau/articulation.h>
#include <moreau/moreau.h>

#define N 4

static int fail(mo_world *w)
{
    fprintf(stderr, "%s\n", mo_world_last_error(w));
    mo_world_destroy(w);
    return 1;
}

/* the quintic from a to b over T (zero velocity and acceleration at both ends): position and velocity at t */
static void quintic(double a, double b, double T, double t, double *q, double *v)
{
    double s = t <= 0 ? 0 : t >= T ? 1 : t / T;
    double p = s * s * s * (10 - 15 * s + 6 * s * s), dp = 30 * s * s * (1 - s) * (1 - s) / T;
    *q = a + (b - a) * p;
    *v = (t <= 0 || t >= T) ? 0 : (b - a) * dp;
}

int main(void)
{
    mo_world_def wd = mo_default_world_def();
    wd.time_step = 1e-3; /* 1 kHz physics */
    mo_world *w = NULL;
    char err[256];
    if (mo_world_create(&wd, &w, err, sizeof err) != MO_OK) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }

    /* the arm: each link's joint frame at the tip of its parent; rods along +z at q = 0 */
    const double mass[N] = {3.0, 2.0, 1.0, 0.4}, len[N] = {0.1, 0.4, 0.35, 0.1};
    const mo_vec3 axis[N] = {{0, 0, 1}, {0, 1, 0}, {0, 1, 0}, {0, 1, 0}};
    mo_link_def l[N];
    for (int i = 0; i < N; i++) {
        l[i] = mo_default_link_def();
        l[i].parent = i - 1;
        l[i].joint = MO_LINK_REVOLUTE;
        l[i].axis = axis[i];
        l[i].joint_position = (mo_vec3){0, 0, i ? len[i - 1] : 0.0};
        l[i].mass = mass[i];
        l[i].com = (mo_vec3){0, 0, len[i] / 2};
        double r = 0.03, ixx = mass[i] * (3 * r * r + len[i] * len[i]) / 12;
        l[i].inertia = (mo_mat3){{{ixx, 0, 0}, {0, ixx, 0}, {0, 0, mass[i] * r * r / 2}}};
        l[i].armature = 0.01; /* the motors' rotor inertia */
    }
    mo_articulation_def ad = mo_default_articulation_def();
    ad.links = l;
    ad.link_count = N;
    mo_articulation_id arm;
    if (mo_articulation_create(w, &ad, &arm) != MO_OK) return fail(w);

    /* from upright to a reach forward and to the side */
    const double home[N] = {0, 0, 0, 0}, target[N] = {0.8, 0.7, 1.1, -0.6};
    const double wn = 20.0, kp = wn * wn, kd = 2 * wn; /* 1/s^2, 1/s */
    const double T_move = 2.0, T_end = 3.0;
    const int ctrl_every = 5; /* 200 Hz */
    double q[N], qd[N], g[N], M[N * N], a[N], tau[N], max_err = 0, final_err = 0;
    const int steps = (int)lround(T_end / wd.time_step);
    for (int step = 0; step <= steps; step++) {
        const double t = step * wd.time_step;
        if (step % ctrl_every == 0 || step == steps) {
            if (mo_articulation_get_q(w, arm, q, N) != MO_OK || mo_articulation_get_qdot(w, arm, qd, N) != MO_OK ||
                mo_articulation_gravity_compensation(w, arm, g, N) != MO_OK ||
                mo_articulation_mass_matrix(w, arm, M, N * N) != MO_OK)
                return fail(w);
            double e = 0;
            for (int i = 0; i < N; i++) {
                double qr, vr;
                quintic(home[i], target[i], T_move, t, &qr, &vr);
                a[i] = kp * (qr - q[i]) + kd * (vr - qd[i]);
                e = fmax(e, fabs(qr - q[i]));
            }
            for (int i = 0; i < N; i++) {
                tau[i] = g[i];
                for (int k = 0; k < N; k++) tau[i] += M[i * N + k] * a[k];
            }
            if (t <= T_move) max_err = fmax(max_err, e);
            final_err = e;
            if (step % 500 == 0)
                printf("t=%.2f s  q=(%+.4f %+.4f %+.4f %+.4f) rad  tracking error %.2e rad\n", t, q[0], q[1], q[2],
                       q[3], e);
            if (step == steps) break;
            if (mo_articulation_set_torques(w, arm, tau, N) != MO_OK) return fail(w);
        }
        if (mo_world_step(w) != MO_OK) return fail(w);
    }
    mo_vec3 p;
    mo_quat o;
    if (mo_articulation_link_pose(w, arm, N - 1, &p, &o) != MO_OK) return fail(w);
    /* the tool point: len[N - 1] along the wrist link's z axis */
    const double tz = len[N - 1];
    mo_vec3 tip = {p.x + 2 * (o.x * o.z + o.w * o.y) * tz, p.y + 2 * (o.y * o.z - o.w * o.x) * tz,
                   p.z + (1 - 2 * (o.x * o.x + o.y * o.y)) * tz};
    printf("tool point at (%.4f, %.4f, %.4f) m\n", tip.x, tip.y, tip.z);
    printf("tracking error: max %.3e rad during the move, %.3e rad at the end\n", max_err, final_err);
    mo_world_destroy(w);
    return max_err < 0.05 && final_err < 1e-3 ? 0 : 1;
}
