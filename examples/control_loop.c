/* control_loop.c: embedding Moreau in a robot control loop.
 *
 * A one-link arm (a 1 kg, 0.5 m box on a revolute joint to the world) follows
 * a sine trajectory. The physics steps at 1 kHz; every 10 steps (100 Hz) the
 * controller reads the joint angle, estimates its rate, and computes a PD
 * torque with gravity compensation, which it applies to the link until the
 * next control tick. The program exits 0 when the tracking error stays under
 * 0.1 rad after the first second (it is also run as a test).
 *
 * Build against an installed Moreau:
 *   cc control_loop.c $(pkg-config --cflags --libs moreau) -lm -o control_loop */
#include <math.h>
#include <stdio.h>
#include <moreau/moreau.h>

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

    /* the link: a 0.5 m box hanging from a horizontal hinge at the origin */
    const double L = 0.5, m = 1.0;
    mo_body_def bd = mo_default_body_def();
    bd.mass = m;
    bd.shape.type = MO_SHAPE_BOX;
    bd.shape.half_extents = (mo_vec3){0.025, 0.025, L / 2};
    bd.position = (mo_vec3){0, 0, -L / 2};
    mo_body_id link;
    if (mo_body_create(w, &bd, &link) != MO_OK) {
        fprintf(stderr, "%s\n", mo_world_last_error(w));
        return 1;
    }
    mo_joint_def jd = mo_default_joint_def();
    jd.type = MO_JOINT_REVOLUTE;
    jd.body_b = link;
    jd.anchor_a = (mo_vec3){0, 0, 0};
    jd.anchor_b = (mo_vec3){0, 0, L / 2};
    jd.axis_a = jd.axis_b = (mo_vec3){0, 1, 0};
    mo_joint_id hinge;
    if (mo_joint_create(w, &jd, &hinge) != MO_OK) {
        fprintf(stderr, "%s\n", mo_world_last_error(w));
        return 1;
    }

    /* PD + gravity compensation at 100 Hz; the torque is held between updates */
    const double kp = 60.0, kd = 4.0;
    double torque = 0.0, prev_angle = 0.0, max_err = 0.0;
    for (int step = 0; step < 5000; step++) {
        double t = step * wd.time_step;
        if (step % 10 == 0) {
            double q, target = 0.6 * sin(2.0 * t), dtarget = 1.2 * cos(2.0 * t);
            mo_joint_position(w, hinge, &q);
            double dq = step ? (q - prev_angle) / (10 * wd.time_step) : 0.0;
            prev_angle = q;
            /* gravity torque of a link hanging at angle q about +y: m g (L/2) sin q */
            torque = kp * (target - q) + kd * (dtarget - dq) + m * 9.81 * (L / 2) * sin(q);
            if (t > 1.0 && fabs(target - q) > max_err) max_err = fabs(target - q);
            if (step % 500 == 0) printf("t=%.2f s  angle=%+.4f rad  target=%+.4f rad  torque=%+.3f N m\n", t, q, target, torque);
        }
        /* torque about the hinge axis on the link, and the reaction on the world (none needed) */
        mo_body_apply_force(w, link, (mo_vec3){0, 0, 0}, (mo_vec3){0, torque, 0});
        if (mo_world_step(w) != MO_OK) {
            fprintf(stderr, "%s\n", mo_world_last_error(w));
            return 1;
        }
    }
    printf("tracking error after the first second: max %.4f rad\n", max_err);
    mo_world_destroy(w);
    return max_err < 0.1 ? 0 : 1;
}
