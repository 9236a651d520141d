/* moreau.h: the public C API of the Moreau multibody engine.
 *
 * Units are SI throughout (m, kg, s, N, rad); z is up by convention only (the
 * gravity vector is a setting). Every call that can fail returns mo_status;
 * mo_world_last_error() then holds one sentence naming the object and the bad
 * value, and the world is unchanged (mo_world_step is the exception: see
 * there). Calls on a const mo_world * also write that sentence when they fail.
 * Objects are referred to by small value ids (index + generation): a zeroed id
 * is null, a stale id is refused. Ids carry their world: the high 12 bits of a
 * generation are the world's tag, so an id of another world is refused with
 * MO_ERR_STALE_ID ("... belongs to another world"; the tags repeat after 4095
 * worlds have been created in one process). Only mo_world is a pointer. No
 * global state: worlds are independent, and one world must not be used from
 * several threads at once.
 *
 * Pointers: every pointer is checked. A NULL world makes a call that returns a
 * status return MO_ERR_INVALID_ARGUMENT (there is no world to hold a sentence)
 * and a call that returns a value return its neutral value (0, false, "", a
 * zero vector, default settings). A NULL output or input pointer that a
 * function needs is MO_ERR_INVALID_ARGUMENT with "<function>: <name> must not
 * be NULL". Outputs that may be NULL say so at their function.
 *
 * Limits: values outside the ranges below (MO_*_MAX) are refused, so that no
 * product a step forms overflows. A step that still makes a non-finite value
 * returns MO_ERR_NOT_FINITE naming the stage and the object, with the world
 * rolled back to before the call (mo_world_step). */
#ifndef MOREAU_H
#define MOREAU_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32)
#  define MO_API
#elif defined(__GNUC__)
#  define MO_API __attribute__((visibility("default")))
#else
#  define MO_API
#endif

/* version of this header (major.minor.patch) */
#define MO_VERSION_MAJOR 0 /* major: incompatible API changes */
#define MO_VERSION_MINOR 3 /* minor: compatible additions (3: articulation contacts, limits, mimics, link bodies; mo_contact
                            * read-back fields; state format 3) */
#define MO_VERSION_PATCH 0 /* patch: fixes */

/* ---- basic types ------------------------------------------------------ */

/* 3-vector (positions m, velocities m/s, forces N...; the unit is the field's) */
typedef struct mo_vec3 { double x, y, z; } mo_vec3;
/* unit quaternion, w + xi + yj + zk */
typedef struct mo_quat { double w, x, y, z; } mo_quat;
/* 3x3 matrix, row-major: m[row][col] */
typedef struct mo_mat3 { double m[3][3]; } mo_mat3;

/* result of every fallible call; the sentence is in mo_world_last_error() (or the caller's err buffer) */
typedef enum mo_status {
    MO_OK = 0,               /* success */
    MO_ERR_INVALID_ARGUMENT, /* NaN, negative mass, bad enum, NULL pointer... */
    MO_ERR_STALE_ID,         /* id of a destroyed object, or the null id. Ids carry no world: another world's id is
                              * refused only when it names no live object of this world */
    MO_ERR_OUT_OF_MEMORY,    /* an allocation failed */
    MO_ERR_UNSUPPORTED,      /* feature not built in, or not available (e.g. no GPU) */
    MO_ERR_IO,               /* file could not be read or written */
    MO_ERR_NOT_FINITE,       /* a step produced a non-finite value: the sentence names the stage and the body,
                              * particle, joint or element; the world was rolled back to before the step */
} mo_status;

/* ---- limits -----------------------------------------------------------------
 * Values beyond these are refused with MO_ERR_INVALID_ARGUMENT (the sentence
 * names the value and the range). They keep every product a step forms
 * (m v^2, I w x I w, h^2 k, the cone projections) finite in double precision
 * with room to spare; no robot comes near them. Vector limits hold for each
 * component. */
#define MO_MASS_MIN 1e-12          /* kg: dynamic bodies, particles, shapes' masses from density */
#define MO_MASS_MAX 1e20           /* kg */
#define MO_INERTIA_MAX 1e30        /* kg m^2: each entry of an inertia tensor */
#define MO_LENGTH_MAX 1e9          /* m: coordinates of positions and points */
#define MO_SPEED_MAX 1e8           /* m/s and rad/s: linear and angular velocities */
#define MO_FORCE_MAX 1e20          /* N and N m: applied forces and torques */
#define MO_GRAVITY_MAX 1e8         /* m/s^2: gravity */
#define MO_YOUNG_MAX 1e15          /* Pa: FEM Young's modulus */
#define MO_DENSITY_MAX 1e8         /* kg/m^3: FEM and shape densities */
#define MO_TIME_STEP_MIN 1e-8      /* s */
#define MO_TIME_STEP_MAX 1.0       /* s */
#define MO_ITERATIONS_MAX 100000   /* solver max_iterations of a world's steps */
#define MO_FC_ITERATIONS_MAX 10000000 /* max_iterations of a single offline solve (mo_fc_solve, moreau/fclib.h) */
#define MO_LINEAR_ITERATIONS_MAX 100000 /* Newton's inner linear iterations (newton.linear_iterations) */
#define MO_THREADS_PER_CORE 4      /* threads: at most this many per core (mo_world_max_threads) */

/* Short constant name of a status, e.g. "MO_ERR_STALE_ID"; "MO_ERR_UNKNOWN" for
 * other values. A static string (never freed). */
MO_API const char *mo_status_name(mo_status s);

/* ids: index + generation. {0} is the null id; generation 0 never names a live object */
typedef struct mo_body_id { uint32_t index; uint32_t generation; } mo_body_id;
typedef struct mo_particle_id { uint32_t index; uint32_t generation; } mo_particle_id; /* a particle (or FEM node) */
typedef struct mo_joint_id { uint32_t index; uint32_t generation; } mo_joint_id;       /* a joint */

/* true for the null body id (generation 0); says nothing about whether a non-null id is live */
static inline bool mo_body_id_is_null(mo_body_id id) { return id.generation == 0; }
/* true for the null joint id (generation 0) */
static inline bool mo_joint_id_is_null(mo_joint_id id) { return id.generation == 0; }
/* true for the null particle id (generation 0) */
static inline bool mo_particle_id_is_null(mo_particle_id id) { return id.generation == 0; }

/* a simulation world: owns every body, shape, joint, particle and FEM mesh in it (opaque) */
typedef struct mo_world mo_world;

/* ---- solver settings ---------------------------------------------------- */

/* which solver a step (or mo_fc_solve) uses; mo_solver_available tells what this build has */
typedef enum mo_solver_kind {
    MO_SOLVER_PGS = 0,   /* projected Gauss-Seidel (Lacoursiere), SOR factor omega */
    MO_SOLVER_JACOBI,    /* projected Jacobi, omega scaled below 2/lambda_max(D^-1 N) */
    MO_SOLVER_APGD,      /* accelerated projected gradient descent (Mazhar et al. 2015; Acary-Cariaga) */
    MO_SOLVER_SPG,       /* P-SPG-FB: preconditioned spectral projected gradient with fallback (Tasora et al.) */
    MO_SOLVER_CG,        /* conjugate gradient on N: bilateral-only problems (K = R^m) */
    MO_SOLVER_MINRES,    /* MINRES on N: bilateral-only problems */
    MO_SOLVER_CHOLESKY,  /* sparse Cholesky of N (CHOLMOD): bilateral-only problems */
    MO_SOLVER_NEWTON,    /* position-level non-smooth Newton (Macklin et al. 2019): settings.newton */
    MO_SOLVER_COUNT      /* number of solver kinds (not a solver) */
} mo_solver_kind;

/* how contact friction is modelled */
typedef enum mo_friction_model {
    MO_FRICTION_CONE = 0, /* exact Coulomb cone, one scalar step per contact (CCP solution) */
    MO_FRICTION_BOX,      /* per-axis box |gt_k| <= mu*gn with the current gn (the GS paper's; PGS only) */
    MO_FRICTION_POLYHEDRAL, /* cone faceted with friction_facets directions: the dual QP lambda >= 0 (Gavrea-Petra) */
} mo_friction_model;

/* APGD's step-size (rho) choices (the APGD paper's names) */
typedef enum mo_apgd_rho {
    MO_RHO_EIGEN = 0,     /* EigenWRho: 1 / lambda_max(N), power iteration (default) */
    MO_RHO_NORM,          /* WRho: 1 / |N|_F */
    MO_RHO_SMALLER,       /* SmallerRho: rho = 2/3 (the paper's absolute value; the ratio rule rescales it) */
    MO_RHO_NORMAL,        /* Normal: rho = 1 (the paper's) */
    MO_RHO_ACARY,         /* |M|_1 / |H|_1 where M and H exist (scenes, FCLIB global); else EigenWRho */
} mo_apgd_rho;

/* MO_SOLVER_APGD's settings (mo_solver_settings.apgd); checked by mo_world_set_solver */
typedef struct mo_apgd_settings {
    mo_apgd_rho rho;      /* initial step choice; default MO_RHO_EIGEN */
    bool backtracking;    /* Lipschitz backtracking (accept on <=); default true */
    bool adaptive_rho;    /* the paper's ratio rule (L = 0.9, L_min = 0.3, w = 2/3) after an accepted step; default true */
    bool restart;         /* adaptive restart when grad f(y)^T (g_k - g_k-1) > 0; default true */
    double rho_ratio_max, rho_ratio_min, rho_factor; /* L, L_min, w; defaults 0.9, 0.3, 2/3;
                                                      * 0 < L_min < L < 1, 0 < w < 1 */
} mo_apgd_settings;

/* P-SPG-FB's spectral (Barzilai-Borwein) step rule */
typedef enum mo_spg_step_rule {
    MO_SPG_ALTERNATE = 0, /* BB1 on odd iterations, BB2 on even ones (the P-SPG-FB listing) */
    MO_SPG_ABBMIN         /* adaptive BB (Frassoldati-Zanni-Zanghirati ABBmin2): BB1, or the smallest BB2 of the
                           * last 9 when BB2 / BB1 < tau (tau adapted by 0.9 / 1.1); fewer iterations on
                           * bilateral problems, mixed on contact problems (docs/solvers.md) */
} mo_spg_step_rule;

/* MO_SOLVER_SPG's settings (mo_solver_settings.spg); checked by mo_world_set_solver */
typedef struct mo_spg_settings {
    double alpha_min, alpha_max; /* BB step safeguards; defaults 1e-9, 1e9 (the paper's);
                                  * 0 < alpha_min < alpha_max < inf */
    int n_gll;                   /* non-monotone window, in [1, 100]; default 10 (the paper's) */
    double armijo;               /* Armijo gamma, in (0, 1); default 1e-4 (Birgin-Martinez-Raydan) */
    double sigma_min, sigma_max; /* backtracking safeguards on the new lambda, 0 < min < max < 1; defaults 0.1, 0.9 */
    double tau_g;                /* fallback measure's step, >= 0; 0 = 1 / max diag N (the CCP residual's); default 0 */
    double alpha0;               /* first step alpha-hat_0, >= 0; 0 = 1 / max diag of P^-1 N; default 0 */
    bool preconditioner;         /* per-cone averaged diagonal P; default true */
    mo_spg_step_rule step_rule;  /* spectral step: MO_SPG_ALTERNATE (the paper's BB1/BB2) or MO_SPG_ABBMIN; default the paper's */
} mo_spg_settings;

/* ==== non-smooth Newton settings (MO_SOLVER_NEWTON) ==== */
/* the NCP function of the Newton step's complementarity rows */
typedef enum mo_ncp_function {
    MO_NCP_FISCHER_BURMEISTER = 0, /* phi(a, b) = a + b - sqrt(a^2 + b^2) */
    MO_NCP_MIN_MAP,                /* phi(a, b) = min(a, b) */
} mo_ncp_function;

/* the inner linear solver of each Newton iteration */
typedef enum mo_newton_linear {
    MO_NEWTON_PCR = 0,             /* preconditioned conjugate residual, diagonal preconditioner (the paper's) */
    MO_NEWTON_PCG,                 /* preconditioned conjugate gradient, diagonal preconditioner */
    MO_NEWTON_JACOBI,              /* damped Jacobi, factor newton.jacobi_omega */
    MO_NEWTON_GAUSS_SEIDEL,        /* Gauss-Seidel sweeps in row order (matrix-free) */
    MO_NEWTON_CHOLESKY,            /* sparse Cholesky of the assembled Schur matrix (CHOLMOD; mo_solver_available) */
} mo_newton_linear;

/* complementarity preconditioning of the Newton step (c_n normal, c_f friction rows) */
typedef enum mo_newton_scaling {
    MO_NEWTON_SCALING_MASS = 0,    /* complementarity preconditioning: c_n = h^2 (J M^-1 J^T)_ii, c_f = h (J M^-1 J^T)_ii */
    MO_NEWTON_SCALING_IDENTITY,    /* c_n = c_f = 1 */
    MO_NEWTON_SCALING_CONSTANT,    /* c_n = h^2 k, c_f = h k with k = newton.scaling_constant (1/kg) */
} mo_newton_scaling;

/* MO_SOLVER_NEWTON's settings (mo_solver_settings.newton); checked by mo_world_set_solver */
typedef struct mo_newton_settings {
    int iterations;                /* Newton iterations per step, in [1, 1000]; default 12 */
    int linear_iterations;         /* inner linear iterations per Newton iteration (fixed budget), in [1, 100000]; default 20 */
    double linear_tolerance;       /* stop an inner solve early at this relative residual, in [0, 1); default 0 (full budget) */
    double step_fraction;          /* damped Newton: fraction of the step taken, in (0, 1]; default 0.8 */
    double regularisation;         /* delta of the identity shift of the Schur system, m/N, >= 0; default 1e-9 */
    mo_ncp_function ncp;           /* default MO_NCP_FISCHER_BURMEISTER */
    mo_newton_linear linear;       /* default MO_NEWTON_PCR; MO_NEWTON_CHOLESKY refused in a build without CHOLMOD */
    mo_newton_scaling scaling;     /* default MO_NEWTON_SCALING_MASS */
    double scaling_constant;       /* k of MO_NEWTON_SCALING_CONSTANT, 1/kg, > 0; default 1 */
    double jacobi_omega;           /* damping of MO_NEWTON_JACOBI, in (0, 1]; default 0.5 */
    int halvings;                  /* step halving: a step whose final Newton residual is above halving_residual (or
                                    * not finite) is undone and redone as two steps of h/2, each of them halved
                                    * again the same way, at most this many times (h / 2^halvings); in [0, 10];
                                    * default 0 (off) */
    double halving_residual;       /* m, > 0; default 1e-5 */
} mo_newton_settings;
/* ==== end of non-smooth Newton settings ==== */

/* Everything a solve uses. Start from mo_default_solver_settings(); values out
 * of the ranges below are refused by mo_world_create / mo_world_set_solver /
 * mo_fc_solve with MO_ERR_INVALID_ARGUMENT. */
typedef struct mo_solver_settings {
    mo_solver_kind kind;           /* default MO_SOLVER_PGS */
    mo_friction_model friction;    /* default MO_FRICTION_CONE */
    int max_iterations;            /* sweeps / iterations per step (all outer updates together), >= 1; default 50 */
    double tolerance;              /* stop when the CCP residual (m/s) <= tolerance; 0 = run all sweeps; default 0 */
    double omega;                  /* SOR / relaxation factor in (0, 2); default 1.0 (PGS), Jacobi scales it by its bound */
    bool warm_start;               /* start from last step's impulses (contacts matched by feature key); default true */
    bool record_residuals;         /* compute both residuals after every sweep (costs one N product each); default false */
    int friction_facets;           /* p in [4, 64] tangent directions of MO_FRICTION_POLYHEDRAL; default 8 */
    bool diagonal_scaling;         /* APGD and SPG solve the problem in gamma-hat = D^1/2 gamma, D = diag(N) averaged
                                    * per block (a contact's 3 rows, a joint's rows): mass ratios between blocks no
                                    * longer set the step; histories are in the scaled units; default false */
    int coulomb_updates;           /* outer fixed-point updates of s = mu |u_t| e_n that turn the convex relaxation
                                    * into exact Coulomb friction, >= 0; 0 = relaxation (CCP) only; default 0 */
    int position_projections;      /* after each step, this many Gauss-Newton projections of the joints' rigid
                                    * bilateral rows onto their constraint (post-stabilisation: removes the joint
                                    * drift a velocity-level step leaves), each one bilateral solve with cholesky,
                                    * minres or cg (the world's solver when it is one of them, else minres);
                                    * velocities unchanged; in [0, 16]; default 0 */
    mo_apgd_settings apgd;         /* used by MO_SOLVER_APGD only */
    mo_spg_settings spg;           /* used by MO_SOLVER_SPG only */
    mo_newton_settings newton;     /* MO_SOLVER_NEWTON: its own iteration counts; max_iterations and omega
                                    * are not used by it, tolerance stops it on the Newton residual (m) */
} mo_solver_settings;

/* The default solver settings (the defaults listed in the structs above). */
MO_API mo_solver_settings mo_default_solver_settings(void);
/* short lower-case name of a solver ("pgs", "jacobi", "apgd", "spg", "cg", "minres", "cholesky", "newton"); "?" if unknown */
MO_API const char *mo_solver_name(mo_solver_kind k);
/* The solver of a name given by mo_solver_name (exact, case-sensitive) into *out
 * (out may be NULL: only tests the name); false, *out untouched, when no solver
 * has that name or name is NULL. */
MO_API bool mo_solver_from_name(const char *name, mo_solver_kind *out);
/* True when this build can run solver k (MO_SOLVER_CHOLESKY needs CHOLMOD); false for unknown kinds. */
MO_API bool mo_solver_available(mo_solver_kind k);

/* What a solver supports, as the engine's one solver table states it (every
 * check of the engine reads these flags; mo_solver_caps gives 0 for unknown kinds). */
enum {
    MO_SOLVER_CAP_CONTACTS = 1u << 0,        /* solves frictional contact rows itself (pure contact problems: FCLIB) */
    MO_SOLVER_CAP_BILATERAL = 1u << 1,       /* joints' bilateral and boxed rows */
    MO_SOLVER_CAP_FACETS = 1u << 2,          /* MO_FRICTION_POLYHEDRAL as the facet problem (lambda >= 0); without
                                              * it the exact cone is kept under that setting */
    MO_SOLVER_CAP_SCALING = 1u << 3,         /* settings.diagonal_scaling applies */
    MO_SOLVER_CAP_COULOMB_UPDATES = 1u << 4, /* settings.coulomb_updates run as outer updates of s = mu |u_t| */
    MO_SOLVER_CAP_INLINE_COULOMB = 1u << 5,  /* does the Coulomb update inside its sweep instead (PGS) */
    MO_SOLVER_CAP_FEM = 1u << 6,             /* FEM meshes (their rows exist only in the position-level step) */
    MO_SOLVER_CAP_SYMMETRIC = 1u << 7,       /* assumes N symmetric (non-symmetric outside problems: no guarantee) */
    MO_SOLVER_CAP_POSITION = 1u << 8,        /* a position-level step: replaces the velocity-level solve of a step */
    MO_SOLVER_CAP_BILATERAL_SOLVE = 1u << 9, /* a Krylov or direct solve of the bilateral rows, other rows by block
                                              * Gauss-Seidel alternation; position projections use it */
    MO_SOLVER_CAP_CPU = 1u << 10,            /* runs on the CPU backend */
    MO_SOLVER_CAP_CUDA = 1u << 11,           /* is written over the backend operations, so it runs on the CUDA backend
                                              * (newton: its inner PCR, PCG or Jacobi solves) */
};
/* The MO_SOLVER_CAP_* flags of solver k; 0 for unknown kinds. */
MO_API unsigned mo_solver_caps(mo_solver_kind k);

/* ---- backends --------------------------------------------------------------- */

/* Where a world's solver runs (mo_world_def.backend, mo_world_set_backend). */
typedef enum mo_backend {
    MO_BACKEND_CPU = 0,  /* the CPU (the reference; every solver) */
    MO_BACKEND_CUDA,     /* the CUDA module on device 0 (solvers with MO_SOLVER_CAP_CUDA: jacobi, apgd, spg, on the
                          * cone or box friction model without diagonal_scaling; newton's inner pcr, pcg or jacobi
                          * solves); asking for it without a usable module and device is an error with a sentence,
                          * never a CPU run */
    MO_BACKEND_AUTO,     /* the device when one is usable, the solver and settings run there and the step has at
                          * least MO_BACKEND_AUTO_MIN_ROWS rows; else the CPU. mo_step_stats.backend says which ran */
    MO_BACKEND_COUNT     /* number of backends (not a backend) */
} mo_backend;
#define MO_BACKEND_AUTO_MIN_ROWS 9000 /* the device won per step from 8 949 rows on an H200 (docs/gpu.md) */
/* "cpu", "cuda", "auto"; "?" if unknown */
MO_API const char *mo_backend_name(mo_backend b);
/* the backend of a name given by mo_backend_name into *out (may be NULL); false when none has that name */
MO_API bool mo_backend_from_name(const char *name, mo_backend *out);

/* ---- world ---------------------------------------------------------------- */

/* A world's settings. Start from mo_default_world_def(); mo_world_create refuses
 * values out of the ranges below. */
typedef struct mo_world_def {
    mo_vec3 gravity;               /* m/s^2, finite; default (0, 0, -9.81) */
    double time_step;              /* s, finite and > 0; default 1/120 */
    mo_solver_settings solver;     /* default mo_default_solver_settings() */
    double contact_compliance;     /* epsilon of contact normal rows, m/N, >= 0; default 0 (rigid) */
    double joint_compliance;       /* epsilon of joint rows, m/N (rad/(N m) for angular), >= 0; default 0 */
    double damping_steps;          /* SPOOK d = tau/h, >= 0; default 4 */
    double max_push_velocity;      /* cap on the stabilisation push-out speed of a penetrating contact, m/s, > 0; default 1 */
    double contact_margin;         /* contacts are generated for gaps below this, m, >= 0; default 0.01 */
    int threads;                   /* worker threads for per-element loops (OpenMP), >= 0; 0 = OpenMP's default; ignored
                                    * without OpenMP; results are bit-identical for any count; default 1 */
    int substeps;                  /* k in [1, 1000]: each mo_world_step runs k steps of time_step / k; default 1 */
    mo_backend backend;            /* where the solver runs; default MO_BACKEND_CPU (see mo_world_set_backend) */
    /* sleeping (moreau/sleep.h): islands at rest for sleep_time sleep; default off (the reference behaviour) */
    bool sleep;                    /* default false */
    double sleep_linear_velocity;  /* m/s, finite, >= 0: a body rests below this speed; default 0.05 */
    double sleep_angular_velocity; /* rad/s, finite, >= 0: and below this angular speed; default 0.05 */
    double sleep_time;             /* s, finite, >= 0: an island sleeps when every body rested this long; default 0.5 */
    int internal_value;            /* set by mo_default_world_def(); do not touch */
} mo_world_def;

/* The default world settings (the defaults listed above); the only valid start
 * for a mo_world_def (mo_world_create refuses a def it did not initialise). */
MO_API mo_world_def mo_default_world_def(void);

/* Creates an empty world from def (copied; must not be NULL). *out (out must not
 * be NULL) receives the world, or NULL on failure; err (may be NULL, then
 * err_size is ignored) gets "" or a sentence. MO_ERR_INVALID_ARGUMENT for NULL
 * def/out, a def not from mo_default_world_def() or a value out of range;
 * MO_ERR_OUT_OF_MEMORY. The caller destroys the world with mo_world_destroy. */
MO_API mo_status mo_world_create(const mo_world_def *def, mo_world **out, char *err, size_t err_size);
/* Destroys a world and everything in it: its ids become meaningless and every
 * pointer it handed out (statistics histories, shape info arrays, FEM surfaces,
 * error sentence) dangles. NULL is allowed. */
MO_API void mo_world_destroy(mo_world *w);
/* Sentence of the most recent failed call on this world ("" when none failed;
 * successful calls do not clear it). Owned by the world, overwritten by the next
 * failure. w may be NULL: returns a static sentence saying so. */
MO_API const char *mo_world_last_error(const mo_world *w);
/* Sets the sentence mo_world_last_error returns (cut to 511 bytes; NULL: ""), for
 * libraries built on this API (the scene loaders) that report a failure through
 * the world. w must not be NULL. */
MO_API void mo_world_set_error(mo_world *w, const char *sentence);

/* Sets gravity (m/s^2, world frame) from the next step on. MO_ERR_INVALID_ARGUMENT
 * when a component is not finite. */
MO_API mo_status mo_world_set_gravity(mo_world *w, mo_vec3 g);
/* gravity, m/s^2 */
MO_API mo_vec3 mo_world_gravity(const mo_world *w);
/* Sets the time step h (s) of the next mo_world_step calls. MO_ERR_INVALID_ARGUMENT
 * unless MO_TIME_STEP_MIN <= h <= MO_TIME_STEP_MAX. */
MO_API mo_status mo_world_set_time_step(mo_world *w, double h);
/* time step, s (the whole step: substeps divide it) */
MO_API double mo_world_time_step(const mo_world *w);
/* Replaces the solver settings (s copied; must not be NULL). Solver settings are
 * data: they may change between any two steps. MO_ERR_INVALID_ARGUMENT for NULL,
 * a value out of range, an unavailable solver, or a solver other than
 * MO_SOLVER_NEWTON while the world has FEM meshes; the settings are then unchanged. */
MO_API mo_status mo_world_set_solver(mo_world *w, const mo_solver_settings *s);
/* a copy of the current solver settings */
MO_API mo_solver_settings mo_world_solver(const mo_world *w);
/* Selects where the solver runs. MO_BACKEND_CUDA loads the CUDA module and
 * opens device 0 (kept until the world is destroyed or the backend set back to
 * cpu); it fails with MO_ERR_UNSUPPORTED and a sentence (the module path, the
 * driver's or the module's reason) when that is not possible, and with
 * MO_ERR_INVALID_ARGUMENT when the world's solver settings do not run on the
 * device (mo_world_last_error names the setting); the world is then unchanged.
 * MO_BACKEND_AUTO never fails for a missing device: it runs on the CPU then.
 * Settings changed later are checked against the backend the same way
 * (mo_world_set_solver refuses pgs on cuda). A device failure during a step
 * fails mo_world_step with MO_ERR_UNSUPPORTED and the device's sentence. */
MO_API mo_status mo_world_set_backend(mo_world *w, mo_backend b);
MO_API mo_backend mo_world_backend(const mo_world *w);
/* the name of the device the world holds ("" when it holds none: cpu, or auto without a device) */
MO_API const char *mo_world_device_name(const mo_world *w);
/* Worker threads of the next steps (as mo_world_def.threads: in [0,
 * mo_world_max_threads()], 0 = OpenMP's default). MO_ERR_INVALID_ARGUMENT outside:
 * every thread of an OpenMP team has its own stack (100,000 threads overflowed
 * the process before the cap). */
MO_API mo_status mo_world_set_threads(mo_world *w, int threads);
/* The most threads mo_world_set_threads accepts: MO_THREADS_PER_CORE per core
 * of this machine (OpenMP's processor count; 1 core without OpenMP), at least 4. */
MO_API int mo_world_max_threads(void);
/* Substeps k (1..1000): every mo_world_step runs k whole steps (predict,
 * collide, assemble, solve, integrate, projections) of time_step / k. The
 * step's statistics then sum the stage times, iterations, linear iterations
 * and NaN warnings over the substeps, keep the largest residual, penetration
 * and joint error, converged only when every substep converged, and the rest
 * (counts, histories, coulomb_error) are the last substep's.
 * MO_ERR_INVALID_ARGUMENT outside [1, 1000]. */
MO_API mo_status mo_world_set_substeps(mo_world *w, int substeps);
/* substeps per mo_world_step, in [1, 1000] */
MO_API int mo_world_substeps(const mo_world *w);
/* simulated time, s: the sum of the time steps of the steps taken (0 before the first) */
MO_API double mo_world_time(const mo_world *w);

/* ---- settings by name ------------------------------------------------------
 * Every field of mo_world_def (and of its solver settings) has one name, the
 * same in Lua scene files (world{}, moreau.set_solver), on the command line
 * of moreau-run, moreau-bench and moreau-view (--set NAME=VALUE) and here:
 * "time_step", "solver.kind", "solver.newton.linear"... Values are text:
 * numbers as C's strtod reads them, booleans true/false, choices by name,
 * vectors as x,y,z. docs/settings.md lists the table (moreau-run
 * --list-settings prints it). */

typedef enum mo_setting_type {
    MO_SETTING_INT = 0,   /* an integer */
    MO_SETTING_REAL,      /* a double */
    MO_SETTING_BOOL,      /* true or false */
    MO_SETTING_CHOICE,    /* one of choices[] */
    MO_SETTING_VEC3,      /* three numbers x,y,z */
} mo_setting_type;

/* One setting of the table (static storage, never freed). The range is the one
 * mo_world_create and mo_world_set_solver check for this field alone; some
 * fields are also checked against another (doc says which). */
typedef struct mo_setting_info {
    const char *name;           /* "solver.newton.iterations" */
    mo_setting_type type;
    double min, max;            /* range of INT and REAL values (+-inf: unbounded) */
    bool min_open, max_open;    /* the bound itself is excluded */
    const char *const *choices; /* CHOICE: the names in enum order, NULL-terminated; else NULL */
    const char *unit;           /* SI unit ("s", "m/N"; "" when none) */
    const char *doc;            /* one line */
} mo_setting_info;

/* number of settings in the table */
MO_API int mo_setting_count(void);
/* setting i (0 <= i < mo_setting_count()), NULL outside */
MO_API const mo_setting_info *mo_setting_at(int i);
/* the setting called name, NULL for an unknown name or NULL */
MO_API const mo_setting_info *mo_setting_find(const char *name);
/* true when name is a group of settings ("solver", "solver.newton"): the prefix of
 * some setting's name before a dot; false for NULL */
MO_API bool mo_setting_is_group(const char *name);
/* Parses value (text, see above) into the field of def called name. Only the
 * type is checked here (ranges are checked when the def is used); def is
 * unchanged on failure. MO_ERR_INVALID_ARGUMENT, with one sentence in err (may
 * be NULL), for NULL arguments, an unknown name or a value of the wrong type. */
MO_API mo_status mo_world_def_set(mo_world_def *def, const char *name, const char *value, char *err,
                                  size_t err_size);
/* The field of def called name as text into out (doubles with 17 digits, so
 * that mo_world_def_set reads back the same value). MO_ERR_INVALID_ARGUMENT
 * (out empty) for NULL arguments or an unknown name. */
MO_API mo_status mo_world_def_get(const mo_world_def *def, const char *name, char *out, size_t out_size);
/* Applies count "NAME=VALUE" assignments to the world's settings at once: all
 * are parsed into a copy of its def, which is checked as mo_world_create and
 * mo_world_set_solver check (FEM meshes need the newton solver) and then
 * replaces the world's. MO_ERR_INVALID_ARGUMENT with the sentence
 * (mo_world_last_error) and the world unchanged otherwise. assignments may be
 * NULL when count is 0. w must not be NULL. */
MO_API mo_status mo_world_set_settings(mo_world *w, const char *const *assignments, int count);
/* The world's setting called name as text (mo_world_def_get). */
MO_API mo_status mo_world_get_setting(const mo_world *w, const char *name, char *out, size_t out_size);

/* Advances the world by one time step (time_step, in substeps and, with
 * MO_SOLVER_NEWTON, halvings): predict, collide, assemble, solve, integrate,
 * project. Applied forces are consumed. Non-convergence does not fail the step:
 * it shows in the statistics (converged, residual; nan_warnings counts the
 * recoverable cases: a position projection skipped, a solve without room kept
 * at the unconstrained velocity). Each stage's results are checked: a
 * non-finite velocity, pose or Newton force fails the step with
 * MO_ERR_NOT_FINITE and a sentence naming the step, the stage and the body,
 * particle (FEM node and its mesh), joint row, contact, FEM row or
 * articulation (with Newton halvings > 0 such a step is first halved). Other failures:
 * MO_ERR_OUT_OF_MEMORY (the sentence names the stage), MO_ERR_UNSUPPORTED (the
 * device failed), MO_ERR_INVALID_ARGUMENT for a NULL w. On every failure the
 * world is rolled back to its state before the call: poses, velocities,
 * pending forces, joints, articulations, the contact cache and list, FEM state, time, step
 * count and statistics (their histories are cleared). The rollback copy is
 * taken at the start of every step (O(bodies + particles + joints + contacts),
 * small beside the step). */
MO_API mo_status mo_world_step(mo_world *w);

/* Figures of one mo_world_step (mo_world_last_stats); all zeros before the first step. */
typedef struct mo_step_stats {
    uint64_t step;                 /* index of the step these figures describe (0 = first) */
    int bodies, particles, joints; /* live objects */
    int dofs;                      /* generalized velocity size (6 per dynamic body, 3 per particle) */
    int pairs;                     /* candidate shape pairs from the broadphase (narrowphase tests) */
    int contacts;                  /* contact points */
    int rows;                      /* constraint rows assembled */
    int nonzeros;                  /* non-zeros of the CSR Jacobian */
    int iterations;                /* solver sweeps performed */
    bool converged;                /* reached the tolerance (false if tolerance is 0 or budget hit) */
    double residual;               /* CCP residual ||g - P_K(g - a(Ng + r))|| / a after the solve, m/s */
    double coulomb_error;          /* FCLIB/Siconos Coulomb error over contact rows after the solve (0 if no contacts) */
    double max_penetration;        /* deepest contact penetration seen at collision time, m (>= 0) */
    double max_joint_error;        /* largest position error of a joint's bilateral rows after the step, m */
    double t_predict, t_collide, t_assemble, t_solve, t_integrate; /* wall time per stage, s */
    int nan_warnings;              /* non-finite values met and reset during the step */
    int residual_count;            /* entries in the per-iteration arrays (when record_residuals) */
    const double *residual_history;       /* CCP residual after each sweep; owned by the world, valid until next step;
                                           * NULL unless record_residuals */
    const double *coulomb_error_history;  /* Coulomb error after each sweep; same */
    double regularisation;         /* MO_SOLVER_CHOLESKY: delta it added to N's diagonal because N was singular
                                    * (redundant rigid constraints), 0 otherwise */
    /* MO_SOLVER_NEWTON: iterations is the Newton iteration count, residual the Newton residual (m,
     * docs/newton.md, "Statistics"), the histories hold per Newton iteration the Newton residual and the inner
     * solve's final relative residual; linear_history (when record_residuals) the relative residual
     * |b - A x|_D / |b|_D (|r|_D = sqrt(r^T diag(A)^-1 r)) after every inner iteration, all Newton iterations
     * one after the other */
    int linear_iterations;         /* inner linear iterations of the step (Newton), 0 for other solvers */
    int linear_count;              /* entries of linear_history */
    const double *linear_history;  /* owned by the world, valid until next step; NULL when not recorded */
    int halvings;                  /* Newton step halving: steps undone and redone as two halves during this step
                                    * (0 when none). With halvings or substeps the stage times, iterations, linear
                                    * iterations and NaN warnings are sums over the steps kept and undone; residual,
                                    * max_penetration and max_joint_error the largest of the steps kept, converged
                                    * true when all were; the other fields are the last step's */
    mo_backend backend;            /* where the last solve ran: MO_BACKEND_CPU or MO_BACKEND_CUDA */
    int awake_bodies, sleeping_bodies; /* live dynamic bodies awake and asleep after the step (moreau/sleep.h) */
    int islands;                   /* islands of dynamic bodies after the step, awake and asleep (contacts and joints) */
} mo_step_stats;

/* Statistics of the last step (a copy; all zeros before the first step). Its
 * history pointers are owned by the world and stay valid until the next step
 * or mo_world_destroy. */
MO_API mo_step_stats mo_world_last_stats(const mo_world *w);

/* FNV-1a hash of every live body's and particle's (FEM nodes included) pose and
 * velocity bits, then every live articulation's q and qdot (moreau/articulation.h),
 * in slot order: equal hashes mean bit-identical states. */
MO_API uint64_t mo_world_state_hash(const mo_world *w);

/* ---- state save and restore (as MuJoCo's mj_getState / mj_setState) -------
 * The state is what a step reads that earlier steps or the caller's inputs
 * changed: time and step count; live bodies' poses, velocities, applied
 * forces and torques and sleep state (moreau/sleep.h); live particles' positions, velocities and applied forces
 * (FEM nodes too); live joints' motors (mode, targets, max force), warm-start
 * impulses and reactions; the contact cache (last step's impulses, for warm
 * starting); FEM meshes' last forces, activations, fixed-node targets and
 * velocities; FEM attachments (points, compliance, last forces) and the last
 * step's FEM surface contacts; live articulations' q, qdot, held joint torques,
 * drives and joint damping (moreau/articulation.h). Restoring it and stepping gives bit-identical
 * states to those that followed the save, in the same world or in a world
 * built the same way (same calls in the same order, same settings: the
 * settings, gravity, time step, masses, shapes and materials are the model,
 * not the state). The buffer is a byte array in this build's native layout
 * (not a portable file format), with a magic, a version and a checksum. */

/* Bytes mo_world_save_state needs for w's current state (changes when objects
 * are created or destroyed and with the number of cached contacts, so call it
 * right before saving). 0 when w is NULL. */
MO_API size_t mo_world_state_size(const mo_world *w);
/* Writes w's state into buf (not NULL, size bytes, at least
 * mo_world_state_size(w)); the world is not changed. MO_ERR_INVALID_ARGUMENT
 * with the sentence when buf is NULL or too small. */
MO_API mo_status mo_world_save_state(mo_world *w, void *buf, size_t size);
/* Restores a state that mo_world_save_state wrote (buf not NULL, size bytes,
 * may be more than the state). The world must have the structure of the one
 * saved: the same slot counts of bodies, shapes, particles, joints, FEM meshes,
 * FEM attachments and articulations (with their link, coordinate and velocity
 * counts), and per slot the same alive flag, generation and kind
 * (body type and shape count, shape's body, particle's mesh, joint type and
 * bodies, mesh sizes, attachment's mesh, node and body). Afterwards
 * mo_world_contacts reports no contacts and mo_world_last_stats zeros until
 * the next step. MO_ERR_INVALID_ARGUMENT, world unchanged, with a sentence
 * saying why for a buffer that is NULL, truncated, has a bad magic, another
 * format version, a checksum mismatch, or comes from a world of another
 * structure (naming the first difference); MO_ERR_OUT_OF_MEMORY, world
 * unchanged, when room for the cached contacts cannot be made. */
MO_API mo_status mo_world_restore_state(mo_world *w, const void *buf, size_t size);

/* ---- shapes (collision geometry attached to a body) ---------------------- */

/* a shape; ids are checked like body ids */
typedef struct mo_shape_id { uint32_t index; uint32_t generation; } mo_shape_id;
/* true for the null shape id (generation 0) */
static inline bool mo_shape_id_is_null(mo_shape_id id) { return id.generation == 0; }

/* the geometry of a shape; the fields of mo_shape_def each one uses */
typedef enum mo_shape_type {
    MO_SHAPE_NONE = 0,   /* no collision geometry */
    MO_SHAPE_SPHERE,     /* radius */
    MO_SHAPE_BOX,        /* half_extents */
    MO_SHAPE_PLANE,      /* half-space z <= 0 of the shape frame (static bodies only) */
    MO_SHAPE_CAPSULE,    /* segment (0, 0, +-half_height) of the shape frame swept by radius */
    MO_SHAPE_CYLINDER,   /* axis z of the shape frame, caps at +-half_height, radius */
    MO_SHAPE_CONVEX_HULL,/* convex hull of points (computed with qhull) */
    MO_SHAPE_MESH,       /* triangle mesh (BVH inside); closed meshes have mass properties */
    MO_SHAPE_TYPE_COUNT  /* number of shape types (not a type) */
} mo_shape_type;

/* A shape to create. Start from mo_default_shape_def(); only the fields of its
 * type are read. Arrays are copied: the caller keeps ownership. */
typedef struct mo_shape_def {
    mo_shape_type type;         /* default MO_SHAPE_NONE (refused by mo_shape_create) */
    double radius;              /* sphere, capsule, cylinder: m > 0 */
    mo_vec3 half_extents;       /* box: m > 0 each */
    double friction;            /* Coulomb mu >= 0; a pair uses sqrt(mu_a mu_b); default 0.5 */
    double half_height;         /* capsule, cylinder: m > 0 */
    const mo_vec3 *points;      /* convex hull: point_count >= 4 finite points, not all coplanar, shape frame; copied */
    int point_count;            /* entries of points */
    const mo_vec3 *vertices;    /* mesh: vertex_count >= 3 finite vertices, shape frame; copied */
    int vertex_count;           /* entries of vertices */
    const int *indices;         /* mesh: 3 per triangle, 0-based, counter-clockwise seen from outside, no
                                 * zero-area triangle; copied */
    int triangle_count;         /* mesh: triangles in indices, >= 1 */
    mo_vec3 position;           /* pose of the shape in its body's frame (compound bodies); default origin */
    mo_quat orientation;        /* default identity; normalised on create, must be non-zero */
    double density;             /* kg/m^3 > 0, for mo_body_set_mass_from_shapes; default 1000 */
    double margin;              /* collision thickness around the shape, m >= 0; default 0 */
    uint32_t category;          /* collision filtering: shapes a and b may collide when */
    uint32_t mask;              /* (a.category & b.mask) and (b.category & a.mask); defaults 1 and all bits */
    int internal_value;         /* set by mo_default_shape_def(); do not touch */
} mo_shape_def;

/* The default shape def (MO_SHAPE_NONE, defaults listed above); the only valid
 * start for a mo_shape_def (creation refuses a def it did not initialise). */
MO_API mo_shape_def mo_default_shape_def(void);
/* Attaches a shape to a body of any type (bodies may carry several: compound
 * bodies; planes need a static body). The body's mass is not changed: call
 * mo_body_set_mass_from_shapes for that. def and out must not be NULL (refused).
 * *out is the new id, or the null id on failure. MO_ERR_STALE_ID for a stale
 * body; MO_ERR_INVALID_ARGUMENT for MO_SHAPE_NONE, a def not from
 * mo_default_shape_def() or a bad value (sizes, hull or mesh data, friction,
 * margin, density, pose); MO_ERR_OUT_OF_MEMORY. */
MO_API mo_status mo_shape_create(mo_world *w, mo_body_id body, const mo_shape_def *def, mo_shape_id *out);
/* Removes a shape from its body; the body's mass is not changed. MO_ERR_STALE_ID
 * for a stale id. */
MO_API mo_status mo_shape_destroy(mo_world *w, mo_shape_id id);
/* true when id names a live shape of this world */
MO_API bool mo_shape_is_valid(const mo_world *w, mo_shape_id id);
/* The body a shape is attached to, into *out (must not be NULL). MO_ERR_STALE_ID
 * for a stale id. */
MO_API mo_status mo_shape_body(const mo_world *w, mo_shape_id id, mo_body_id *out);
/* Mass (kg, at the shape's density), centre of mass in the body frame (m), and
 * inertia about that centre in body axes (kg m^2). Any output may be NULL.
 * MO_ERR_INVALID_ARGUMENT for shapes with no volume (planes, open meshes);
 * MO_ERR_STALE_ID for a stale id. */
MO_API mo_status mo_shape_mass(const mo_world *w, mo_shape_id id, double *mass, mo_vec3 *com, mo_mat3 *inertia);
/* Sets a dynamic body's mass and inertia from its shapes' volumes and densities
 * (compound bodies summed with the parallel-axis theorem; shapes with no volume
 * are skipped). The body's frame is kept at its centre of mass: when the shapes'
 * centre of mass is off the body origin, the body moves there and its shapes and
 * joint anchors are shifted so that nothing moves in the world. MO_ERR_STALE_ID
 * for a stale id; MO_ERR_INVALID_ARGUMENT for a static or kinematic body or when
 * no shape has a volume (body unchanged). */
MO_API mo_status mo_body_set_mass_from_shapes(mo_world *w, mo_body_id body);

/* ---- queries ----------------------------------------------------------------- */

/* a ray cast's hit (mo_world_raycast) */
typedef struct mo_ray_hit {
    mo_shape_id shape;          /* the shape hit */
    mo_body_id body;            /* its body */
    mo_vec3 point;              /* world hit point, m */
    mo_vec3 normal;             /* unit surface normal at the hit, facing the ray: outward for a solid hit from
                                 * outside, -dir from inside a solid (hit at distance 0) */
    double distance;            /* along the (normalised) ray, m */
} mo_ray_hit;

/* World queries. Both walk the broadphase's AABB trees (O(log n) per query plus
 * the shapes near the ray or box); the first query after a step or a pose or
 * shape change brings the trees up to date first (O(n)), so they answer for the
 * world as it is, also before the first step. That update writes inside the
 * world: do not run queries on one world from several threads at once, nor
 * during mo_world_step. They see shapes only (not particles) and set no error
 * sentence. */

/* Closest hit of the ray origin + s dir/|dir|, 0 <= s <= max_distance, against every
 * shape (ties: the shape of the higher index). Returns true with *hit filled (hit
 * may be NULL: only tests), false on a miss or invalid input (zero or non-finite
 * dir, non-finite origin, max_distance < 0 or NaN; infinity is allowed). Sphere and
 * capsule radii include the margin; meshes are surfaces, seen from both sides. */
MO_API bool mo_world_raycast(const mo_world *w, mo_vec3 origin, mo_vec3 dir, double max_distance, mo_ray_hit *hit);
/* Shapes whose bounding box (grown by twice the shape's margin; a plane: its
 * half-space) overlaps the world box [lo, hi] (m), in slot order: writes up to cap
 * ids to out (may be NULL; cap <= 0 writes none) and returns how many there are.
 * NaN bounds match every shape. */
MO_API int mo_world_query_aabb(const mo_world *w, mo_vec3 lo, mo_vec3 hi, mo_shape_id *out, int cap);

/* ---- rigid bodies --------------------------------------------------------- */

/* how a body moves */
typedef enum mo_body_type {
    MO_BODY_DYNAMIC = 0,  /* integrated, has 6 DOFs */
    MO_BODY_STATIC,       /* never moves */
    MO_BODY_KINEMATIC,    /* moves with its set velocity, unaffected by forces and contacts */
} mo_body_type;

/* A body to create. Start from mo_default_body_def(); mo_body_create refuses
 * values out of the ranges below. */
typedef struct mo_body_def {
    mo_body_type type;           /* default MO_BODY_DYNAMIC */
    mo_vec3 position;            /* centre of mass, world frame, m */
    mo_quat orientation;         /* unit (normalised on create); default identity */
    mo_vec3 linear_velocity;     /* m/s, world; must be zero for a static body */
    mo_vec3 angular_velocity;    /* rad/s, world; must be zero for a static body */
    double mass;                 /* kg, > 0 for dynamic bodies (ignored for others); default 1 */
    mo_mat3 inertia;             /* body-frame inertia about the centre of mass, kg m^2, symmetric
                                    positive definite; all zeros (default) = computed from the shape (any
                                    closed shape) and mass */
    mo_shape_def shape;          /* default MO_SHAPE_NONE; any other type creates one shape from this def (at its
                                    position / orientation in the body frame; mo_shape_create adds more) */
    double linear_damping;       /* 1/s, >= 0; default 0 */
    double angular_damping;      /* 1/s, >= 0; default 0 */
    bool gyroscopic;             /* implicit gyroscopic term; default true */
    uint32_t collision_group;    /* bodies sharing a non-zero group never collide; default 0. A body's own
                                    shapes never collide with each other */
    int internal_value;          /* set by mo_default_body_def(); do not touch */
} mo_body_def;

/* The default body def (a dynamic body of 1 kg at the origin, no shape); the
 * only valid start for a mo_body_def (creation refuses a def it did not initialise). */
MO_API mo_body_def mo_default_body_def(void);
/* Creates a body (and its inline shape, if def->shape.type is not
 * MO_SHAPE_NONE). def and out must not be NULL (refused); *out is the new id, or
 * the null id on failure. When the inertia is computed from the shape and the
 * shape's centre of mass is off the body origin (hulls, meshes, an offset shape
 * pose), the body frame moves to that centre (as mo_body_set_mass_from_shapes).
 * MO_ERR_INVALID_ARGUMENT for a def not from mo_default_body_def() or a bad value
 * (non-finite pose or velocity, zero quaternion, moving static body, mass, damping,
 * inertia not SPD, zero inertia without a closed shape, bad shape);
 * MO_ERR_OUT_OF_MEMORY. */
MO_API mo_status mo_body_create(mo_world *w, const mo_body_def *def, mo_body_id *out);
/* Destroys a body with its shapes and every joint attached to it (their ids
 * become stale); FEM attachments to it are dropped. MO_ERR_STALE_ID for a stale id. */
MO_API mo_status mo_body_destroy(mo_world *w, mo_body_id id);
/* true when id names a live body of this world */
MO_API bool mo_body_is_valid(const mo_world *w, mo_body_id id);

/* Body state getters: each writes into *out (must not be NULL; not checked) and
 * returns MO_OK, or MO_ERR_STALE_ID (out untouched) for a stale id. */
/* position of the body frame's origin (the centre of mass of a dynamic body), world, m */
MO_API mo_status mo_body_position(const mo_world *w, mo_body_id id, mo_vec3 *out);
/* orientation of the body frame, unit quaternion, world */
MO_API mo_status mo_body_orientation(const mo_world *w, mo_body_id id, mo_quat *out);
/* linear velocity of the body origin, world, m/s */
MO_API mo_status mo_body_linear_velocity(const mo_world *w, mo_body_id id, mo_vec3 *out);
/* angular velocity, world, rad/s */
MO_API mo_status mo_body_angular_velocity(const mo_world *w, mo_body_id id, mo_vec3 *out);
/* Mass (kg) and body-frame inertia about the centre of mass (kg m^2); both 0 for
 * static and kinematic bodies. Either pointer may be NULL. MO_ERR_STALE_ID for a
 * stale id. */
MO_API mo_status mo_body_mass(const mo_world *w, mo_body_id id, double *mass, mo_mat3 *inertia_body);
/* Moves a body of any type to a pose: frame origin (m, world) and orientation
 * (normalised here); velocities are kept and joints are not re-solved.
 * MO_ERR_INVALID_ARGUMENT (body unchanged) for non-finite values or a zero
 * quaternion; MO_ERR_STALE_ID for a stale id. */
MO_API mo_status mo_body_set_pose(mo_world *w, mo_body_id id, mo_vec3 position, mo_quat orientation);
/* Sets the linear (m/s) and angular (rad/s) velocity, world frame, of a dynamic or
 * kinematic body. MO_ERR_INVALID_ARGUMENT for a static body or non-finite values;
 * MO_ERR_STALE_ID for a stale id. */
MO_API mo_status mo_body_set_velocity(mo_world *w, mo_body_id id, mo_vec3 linear, mo_vec3 angular);
/* Force (N) at the centre of mass and torque (N m), world frame, applied during
 * the next step only (cleared after it). Accumulates. Accepted but without effect
 * on static and kinematic bodies. MO_ERR_INVALID_ARGUMENT for non-finite values;
 * MO_ERR_STALE_ID for a stale id. */
MO_API mo_status mo_body_apply_force(mo_world *w, mo_body_id id, mo_vec3 force, mo_vec3 torque);
/* Force (N) at a world point (m), next step only: adds the force and the torque
 * (p - x) x f as mo_body_apply_force does. MO_ERR_INVALID_ARGUMENT for non-finite
 * values; MO_ERR_STALE_ID for a stale id. */
MO_API mo_status mo_body_apply_force_at(mo_world *w, mo_body_id id, mo_vec3 force, mo_vec3 world_point);
/* World-frame point (m) of a body-frame point, into *out (must not be NULL).
 * MO_ERR_STALE_ID for a stale id. */
MO_API mo_status mo_body_world_point(const mo_world *w, mo_body_id id, mo_vec3 local, mo_vec3 *out);
/* Kinetic energy 1/2 m v.v + 1/2 w.Iw (J) into *out (must not be NULL); 0 for
 * static and kinematic bodies. MO_ERR_STALE_ID for a stale id. */
MO_API mo_status mo_body_kinetic_energy(const mo_world *w, mo_body_id id, double *out);
/* The body's collision group (mo_body_def.collision_group) into *out (not NULL).
 * MO_ERR_STALE_ID for a destroyed or unknown id. */
MO_API mo_status mo_body_collision_group(const mo_world *w, mo_body_id id, uint32_t *out);
/* Pair exclusion: enabled = false stops every contact between the shapes of
 * bodies a and b (any types) from the next step on; true allows them again
 * (the other filters still apply: groups, category/mask, joints). Repeating a
 * setting is a no-op. The exclusion is model, like collision groups: not in
 * mo_world_save_state; it goes when either body is destroyed (a body later made
 * in the same slot starts with none). MO_ERR_STALE_ID naming "body a" or
 * "body b" for a stale id; MO_ERR_INVALID_ARGUMENT when a and b are the same
 * body; MO_ERR_OUT_OF_MEMORY (nothing changed). Cost: O(excluded pairs) per
 * change; a step pays a binary search only for pairs of two bodies that both
 * have exclusions. */
MO_API mo_status mo_world_set_pair_collision(mo_world *w, mo_body_id a, mo_body_id b, bool enabled);
/* Whether a and b's shapes may collide as far as pair exclusion goes: *enabled
 * (not NULL) is false after mo_world_set_pair_collision(w, a, b, false), true
 * otherwise (groups, masks and joints are not looked at). Errors as above. */
MO_API mo_status mo_world_pair_collision(const mo_world *w, mo_body_id a, mo_body_id b, bool *enabled);
/* The excluded pairs, sorted by slot: writes up to cap of them into a[i], b[i]
 * (either may be NULL) and returns how many there are (0 for a NULL w). */
MO_API int mo_world_excluded_pairs(const mo_world *w, mo_body_id *a, mo_body_id *b, int cap);
/* Every live body's id, in slot order: writes up to cap of them into out (may be
 * NULL when cap is 0) and returns how many there are (0 for a NULL world). */
MO_API int mo_world_bodies(const mo_world *w, mo_body_id *out, int cap);

/* ---- particles (3-DOF point masses) ---------------------------------------- */

/* A particle to create. Start from mo_default_particle_def(). */
typedef struct mo_particle_def {
    mo_vec3 position;       /* m, world, finite */
    mo_vec3 velocity;       /* m/s, world, finite */
    double mass;            /* kg > 0; default 1 */
    double radius;          /* collision sphere radius against shapes, m >= 0 (particles do not collide with each
                             * other); default 0 */
    double friction;        /* mu >= 0; a contact uses sqrt(mu mu_shape); default 0.5 */
    int internal_value;     /* set by mo_default_particle_def(); do not touch */
} mo_particle_def;

/* The default particle def (1 kg at the origin, radius 0); the only valid start
 * for a mo_particle_def (creation refuses a def it did not initialise). */
MO_API mo_particle_def mo_default_particle_def(void);
/* Creates a particle. def and out must not be NULL (refused); *out is the new
 * id, or the null id on failure. MO_ERR_INVALID_ARGUMENT for a def not from
 * mo_default_particle_def() or a bad value; MO_ERR_OUT_OF_MEMORY. */
MO_API mo_status mo_particle_create(mo_world *w, const mo_particle_def *def, mo_particle_id *out);
/* Destroys a particle. MO_ERR_STALE_ID for a stale id; MO_ERR_INVALID_ARGUMENT for
 * a node of an FEM mesh (destroy the mesh). */
MO_API mo_status mo_particle_destroy(mo_world *w, mo_particle_id id);
/* Position (m, world) into *out (must not be NULL; not checked). MO_ERR_STALE_ID for a stale id. */
MO_API mo_status mo_particle_position(const mo_world *w, mo_particle_id id, mo_vec3 *out);
/* Velocity (m/s, world) into *out (must not be NULL; not checked). MO_ERR_STALE_ID for a stale id. */
MO_API mo_status mo_particle_velocity(const mo_world *w, mo_particle_id id, mo_vec3 *out);
/* Sets the velocity (m/s, world). MO_ERR_INVALID_ARGUMENT for non-finite values;
 * MO_ERR_STALE_ID for a stale id. */
MO_API mo_status mo_particle_set_velocity(mo_world *w, mo_particle_id id, mo_vec3 v);
/* Force (N, world) applied during the next step only (cleared after it);
 * accumulates. MO_ERR_INVALID_ARGUMENT for non-finite values; MO_ERR_STALE_ID for
 * a stale id. */
MO_API mo_status mo_particle_apply_force(mo_world *w, mo_particle_id id, mo_vec3 force);

/* ==== FEM meshes ==============================================================
 * Tetrahedral meshes of hyperelastic material, solved by the non-smooth Newton
 * step (MO_SOLVER_NEWTON only: creating a mesh in a world with another solver,
 * or setting another solver while a mesh exists, is refused). Each node is one
 * particle (mass lumped: density x volume / 4 of every tetrahedron it belongs
 * to), so nodes collide with rigid shapes as particles do (spheres of the
 * mesh's radius; only boundary nodes collide). Each tetrahedron gives rows in
 * compliance form (docs/fem.md, "FEM meshes in the world"): linear corotational, 6
 * rows; stable Neo-Hookean without the log term, 7 rows (or the 2-row form of
 * MO_FEM_NEO_HOOKEAN_2ROW). Fixed nodes are held by bilateral
 * rows on the chosen axes at a target that moves with the node's fixed
 * velocity (mo_fem_mesh_set_fixed_velocity). Node and element indices are
 * 0-based, in the order of the mesh given at creation. */
/* an FEM mesh; ids are checked like body ids */
typedef struct mo_fem_mesh_id { uint32_t index; uint32_t generation; } mo_fem_mesh_id;
/* true for the null FEM mesh id (generation 0) */
static inline bool mo_fem_mesh_id_is_null(mo_fem_mesh_id id) { return id.generation == 0; }

/* material model of a tetrahedron */
typedef enum mo_fem_model {
    MO_FEM_COROTATIONAL = 0, /* linear corotational: strain sym(R^T F) - I, R from the polar decomposition */
    MO_FEM_NEO_HOOKEAN,      /* stable Neo-Hookean (Smith et al. 2018) without the log term: 7 rows (docs/fem.md) */
    MO_FEM_NEO_HOOKEAN_2ROW, /* the same energy in the Newton paper's 2 rows (J - alpha, sqrt(I_C)) with the
                                diagonal geometric stiffness; for comparison: free meshes diverge (docs/fem.md) */
} mo_fem_model;

/* one material of an FEM mesh (mo_fem_mesh_def.materials) */
typedef struct mo_fem_material_def {
    double young;            /* Young's modulus, Pa, finite and > 0 */
    double poisson;          /* Poisson's ratio in (-1, 0.5) */
    double density;          /* kg/m^3, finite and > 0 */
    mo_fem_model model;      /* a mo_fem_model value */
} mo_fem_material_def;

struct mo_tetmesh; /* moreau/tetmesh.h */

/* An FEM mesh to create. Start from mo_default_fem_mesh_def(); arrays are read
 * during mo_fem_mesh_create only (copied): the caller keeps ownership. */
typedef struct mo_fem_mesh_def {
    const struct mo_tetmesh *mesh; /* a loaded or checked mesh (its nodes and tets are used), or NULL: */
    const mo_vec3 *nodes;          /*   node_count rest positions (mesh frame, m) */
    int node_count;                /*   entries of nodes, >= 4 */
    const int *tets;               /*   4 node indices per tetrahedron, 0-based, positively oriented */
    int tet_count;                 /*   tetrahedra in tets, >= 1 */
    const mo_fem_material_def *materials; /* material_count >= 1 materials, not NULL; copied */
    int material_count;            /* entries of materials */
    const int *element_material;   /* per tetrahedron index into materials; NULL = all use materials[0] */
    const double *activation;      /* per tetrahedron activation a > -1 (rest volume scaled by 1 + a); NULL = 0 */
    mo_vec3 position;              /* pose of the mesh frame in the world; default origin, identity */
    mo_quat orientation;           /* normalised on create, must be non-zero; default identity */
    mo_vec3 velocity;              /* initial velocity of every node, m/s */
    const int *fixed_nodes;        /* fixed_count node indices held in place (moved only by their fixed velocity);
                                    * may be NULL only when fixed_count is 0; no node twice */
    int fixed_count;               /* entries of fixed_nodes, >= 0 */
    const unsigned char *fixed_axes; /* per fixed node: world axes held, bits 1 = x, 2 = y, 4 = z (1..7); NULL = all */
    double friction;               /* Coulomb mu of the nodes against shapes, >= 0; default 0.5 */
    double radius;                 /* collision radius of the nodes, m >= 0; default 0 */
    int internal_value;            /* set by mo_default_fem_mesh_def(); do not touch */
} mo_fem_mesh_def;

/* The default FEM mesh def (no mesh, no material: both must be filled in); the
 * only valid start for a mo_fem_mesh_def (creation refuses a def it did not initialise). */
MO_API mo_fem_mesh_def mo_default_fem_mesh_def(void);
/* Creates a mesh and one particle per node. def and out must not be NULL
 * (refused); *out is the new id, or the null id on failure.
 * Checks everything first (sentences name the element, node or material:
 * degenerate or inverted tetrahedra by index through mo_tetmesh_check,
 * Young's modulus, Poisson's ratio, density, material indices, activations,
 * fixed nodes, nodes of no tetrahedron) and leaves the world unchanged when
 * anything is refused: MO_ERR_INVALID_ARGUMENT (also when the world's solver is
 * not MO_SOLVER_NEWTON), MO_ERR_OUT_OF_MEMORY. */
MO_API mo_status mo_fem_mesh_create(mo_world *w, const mo_fem_mesh_def *def, mo_fem_mesh_id *out);
/* Destroys the mesh, its particles and its attachments. MO_ERR_STALE_ID for a stale id. */
MO_API mo_status mo_fem_mesh_destroy(mo_world *w, mo_fem_mesh_id id);
/* true when id names a live FEM mesh of this world; w may be NULL (false) */
MO_API bool mo_fem_mesh_is_valid(const mo_world *w, mo_fem_mesh_id id);
/* Activation a > -1 (finite) of one tetrahedron from the next step on.
 * MO_ERR_INVALID_ARGUMENT for an element out of range or a bad a; MO_ERR_STALE_ID. */
MO_API mo_status mo_fem_mesh_set_activation(mo_world *w, mo_fem_mesh_id id, int element, double a);
/* Velocity of a fixed node's target (m/s, world): the target moves by h v each step.
 * MO_ERR_INVALID_ARGUMENT when node is not a fixed node or v is not finite;
 * MO_ERR_STALE_ID for a stale mesh id. */
MO_API mo_status mo_fem_mesh_set_fixed_velocity(mo_world *w, mo_fem_mesh_id id, int node, mo_vec3 v);
/* Numbers of nodes and of tetrahedra; either pointer may be NULL. MO_ERR_STALE_ID for a stale id. */
MO_API mo_status mo_fem_mesh_counts(const mo_world *w, mo_fem_mesh_id id, int *nodes, int *elements);
/* Current position of a node (m, world) into *out. MO_ERR_INVALID_ARGUMENT for a
 * node out of range or a NULL out; MO_ERR_STALE_ID for a stale id. */
MO_API mo_status mo_fem_mesh_node_position(const mo_world *w, mo_fem_mesh_id id, int node, mo_vec3 *out);
/* The particle of a node (positions, velocities, forces go through the particle API;
 * mo_particle_destroy refuses it: destroy the mesh). MO_ERR_INVALID_ARGUMENT for a
 * node out of range or a NULL out; MO_ERR_STALE_ID for a stale id. */
MO_API mo_status mo_fem_mesh_node_particle(const mo_world *w, mo_fem_mesh_id id, int node, mo_particle_id *out);
/* Total signed volume of the tetrahedra at the nodes' current positions, and at rest (m^3); either may be NULL.
 * MO_ERR_STALE_ID for a stale id. */
MO_API mo_status mo_fem_mesh_volume(const mo_world *w, mo_fem_mesh_id id, double *current, double *rest);
/* Attachments: holds a node to the point of a rigid body where the
 * node is now (kept in the body frame) by 3 bilateral rows in the Newton
 * system, C = x_node - (x_body + R_body r) with the given compliance (m/N, 0 =
 * rigid). Any body type: a static body holds the node in place (as a fixed
 * node), a kinematic body carries it along its prescribed motion, a dynamic
 * body and the mesh pull on each other. One attachment per node; a fixed node
 * cannot be attached. The mesh does not collide with the bodies it is attached
 * to. Destroying the body (or the mesh) removes its attachments. Refusals
 * (stale ids: MO_ERR_STALE_ID; node out of range, negative or non-finite
 * compliance, node fixed or already attached: MO_ERR_INVALID_ARGUMENT;
 * MO_ERR_OUT_OF_MEMORY) name the node and leave the world unchanged. */
MO_API mo_status mo_fem_mesh_attach(mo_world *w, mo_fem_mesh_id id, int node, mo_body_id body, double compliance);
/* Removes a node's attachment. MO_ERR_INVALID_ARGUMENT when the node is out of
 * range or not attached; MO_ERR_STALE_ID for a stale mesh id. */
MO_API mo_status mo_fem_mesh_detach(mo_world *w, mo_fem_mesh_id id, int node);
/* The body a node is attached to and the last step's force of the attachment
 * on the node (N, world; the body receives the opposite at the attachment
 * point; zero before its first step); either pointer may be NULL. Refused
 * (MO_ERR_INVALID_ARGUMENT) when the node is out of range or not attached;
 * MO_ERR_STALE_ID for a stale mesh id. */
MO_API mo_status mo_fem_mesh_attachment(const mo_world *w, mo_fem_mesh_id id, int node, mo_body_id *body,
                                        mo_vec3 *force);
/* The centroid of a tetrahedron at the nodes' current positions (world, m).
 * MO_ERR_INVALID_ARGUMENT for an element out of range or a NULL out; MO_ERR_STALE_ID. */
MO_API mo_status mo_fem_mesh_element_centroid(const mo_world *w, mo_fem_mesh_id id, int element, mo_vec3 *out);
/* The boundary surface: every tetrahedron face that belongs to no other
 * tetrahedron, 3 node indices each, wound counter-clockwise seen from outside
 * ((b - a) x (c - a) points out). The array belongs to the mesh (valid until it
 * is destroyed); either pointer may be NULL. MO_ERR_STALE_ID for a stale id. */
MO_API mo_status mo_fem_mesh_surface(const mo_world *w, mo_fem_mesh_id id, const int **triangles, int *count);
/* The world's live FEM meshes in creation-slot order: copies up to cap ids into
 * out (may be NULL) and returns how many there are; w may be NULL (0). */
MO_API int mo_world_fem_meshes(const mo_world *w, mo_fem_mesh_id *out, int cap);
/* Strain of each tetrahedron at the nodes' current positions: the Frobenius
 * norm |E|_F of the Green-Lagrange strain E = 1/2 (F^T F - I), F = Ds Dm^-1
 * against the element's rest shape with its activation. 0 at rest and
 * under any rigid motion; under a uniform stretch diag(s1, s2, s3),
 * 1/2 sqrt(sum_i (s_i^2 - 1)^2). Writes the first min(cap, elements) values;
 * out may be NULL only when cap is 0. MO_ERR_INVALID_ARGUMENT for cap < 0, a NULL
 * out with cap > 0, or a NULL w (no sentence then); MO_ERR_STALE_ID. */
MO_API mo_status mo_fem_mesh_element_strain(const mo_world *w, mo_fem_mesh_id id, double *out, int cap);
/* Per node: the mean of mo_fem_mesh_element_strain over the tetrahedra the
 * node belongs to (unweighted). Writes the first min(cap, nodes) values; NULL
 * and cap as mo_fem_mesh_element_strain; also MO_ERR_OUT_OF_MEMORY. */
MO_API mo_status mo_fem_mesh_node_strain(const mo_world *w, mo_fem_mesh_id id, double *out, int cap);
/* The lumped mass of a node (kg): density x volume / 4 of each of its tetrahedra.
 * MO_ERR_INVALID_ARGUMENT for a node out of range, a NULL mass or a NULL w;
 * MO_ERR_STALE_ID for a stale id. */
MO_API mo_status mo_fem_mesh_node_mass(const mo_world *w, mo_fem_mesh_id id, int node, double *mass);
/* ==== end of FEM meshes ==================================================== */

/* ---- joints --------------------------------------------------------------- */

/* kind of joint; the rows each one adds */
typedef enum mo_joint_type {
    MO_JOINT_FIXED = 0,  /* weld: 3 linear + 3 angular rows */
    MO_JOINT_SPHERICAL,  /* ball: 3 linear rows */
    MO_JOINT_REVOLUTE,   /* hinge about axis: 3 linear + 2 angular rows; angle limit and motor */
    MO_JOINT_PRISMATIC,  /* slider along axis: 2 linear + 3 angular rows; translation limit and motor */
    MO_JOINT_DISTANCE,   /* keeps |pB - pA| = length: 1 row; with limits: min <= |pB - pA| <= max */
} mo_joint_type;

/* motor of a revolute or prismatic joint */
typedef enum mo_motor_mode {
    MO_MOTOR_OFF = 0,    /* no motor (default) */
    MO_MOTOR_VELOCITY,   /* drive the joint rate to target_velocity with |force| <= max_force */
    MO_MOTOR_POSITION,   /* PD drive toward target_position: stiffness, damping, |force| <= max_force */
} mo_motor_mode;

/* A joint to create. Start from mo_default_joint_def(); mo_joint_create refuses
 * values out of the ranges below. */
typedef struct mo_joint_def {
    mo_joint_type type;       /* default MO_JOINT_SPHERICAL */
    mo_body_id body_a;        /* null id = the world (fixed frame) */
    mo_body_id body_b;        /* must be a valid body, not body_a; at least one of the two must be dynamic */
    mo_vec3 anchor_a;         /* anchor in A's body frame (world frame if A is the world), m */
    mo_vec3 anchor_b;         /* anchor in B's body frame, m */
    mo_vec3 axis_a;           /* joint axis in A's frame (revolute, prismatic); normalised; default (1,0,0) */
    mo_vec3 axis_b;           /* the same axis in B's frame; default (1,0,0) */
    double length;            /* distance joint rest length, m >= 0; < 0 (default) = distance at creation */
    /* limits: revolute angle (rad), prismatic translation (m), distance length (m) */
    bool enable_limit;        /* revolute, prismatic and distance joints only; default false */
    double lower, upper;      /* lower <= upper; distance: lower >= 0; revolute angles lie in (-pi, pi] */
    /* motor along the joint's free DOF (revolute: rad/s and N m; prismatic: m/s and N) */
    mo_motor_mode motor;      /* revolute and prismatic joints only; default MO_MOTOR_OFF */
    double target_velocity;   /* MO_MOTOR_VELOCITY target rate, rad/s or m/s, finite */
    double target_position;   /* MO_MOTOR_POSITION target angle (rad) or offset (m), finite */
    double stiffness;         /* PD: N m/rad or N/m, >= 0 */
    double damping;           /* PD: N m s/rad or N s/m, >= 0 (not both 0 for a position motor) */
    double max_force;         /* motor force bound, N m or N, > 0; default infinity */
    double compliance;        /* m/N (rad/(N m) angular), finite; < 0 (default) = the world's joint_compliance */
    bool collide_connected;   /* let the two bodies collide; default false */
    int internal_value;       /* set by mo_default_joint_def(); do not touch */
} mo_joint_def;

/* The default joint def (a spherical joint, no limit, no motor); the only valid
 * start for a mo_joint_def (creation refuses a def it did not initialise). */
MO_API mo_joint_def mo_default_joint_def(void);
/* Creates a joint between body_a (or the world) and body_b; the bodies' current
 * relative orientation is the joint's reference (the revolute angle reads 0 now;
 * fixed and prismatic joints keep it). def and out must not be NULL (refused);
 * *out is the new id, or the null id on failure. MO_ERR_STALE_ID for a stale
 * body; MO_ERR_INVALID_ARGUMENT for a def not from mo_default_joint_def(),
 * body_a == body_b, no dynamic body, or a value out of range;
 * MO_ERR_OUT_OF_MEMORY. */
MO_API mo_status mo_joint_create(mo_world *w, const mo_joint_def *def, mo_joint_id *out);
/* Destroys a joint. MO_ERR_STALE_ID for a stale id. */
MO_API mo_status mo_joint_destroy(mo_world *w, mo_joint_id id);
/* true when id names a live joint of this world */
MO_API bool mo_joint_is_valid(const mo_world *w, mo_joint_id id);
/* Revolute: angle (rad, in (-pi, pi]) of B relative to A about the axis, 0 at
 * creation; prismatic: offset (m) of anchor B from anchor A along the axis;
 * distance: current length (m). MO_ERR_INVALID_ARGUMENT for fixed and spherical
 * joints; MO_ERR_STALE_ID for a stale id. out must not be NULL (not checked). */
MO_API mo_status mo_joint_position(const mo_world *w, mo_joint_id id, double *out);
/* Position error of the joint (m), angular errors not included: distance between
 * the two anchors for fixed, spherical and revolute joints; their offset across the
 * axis for prismatic joints; |length - rest length| for distance joints (with
 * limits: how far the length is outside [lower, upper]). out must not be NULL (not
 * checked). MO_ERR_STALE_ID for a stale id. */
MO_API mo_status mo_joint_error(const mo_world *w, mo_joint_id id, double *out);
/* Changes the motor of a revolute or prismatic joint from the next step on:
 * mode, targets (rad/s or m/s; rad or m, finite) and max_force (N m or N, > 0).
 * MO_MOTOR_POSITION uses the stiffness and damping given at creation and is
 * refused when both are 0; MO_MOTOR_OFF accepts any values. Turning the motor on
 * or off clears the joint's warm-start impulses. MO_ERR_INVALID_ARGUMENT (joint
 * unchanged) for other joint types or bad values; MO_ERR_STALE_ID for a stale id. */
MO_API mo_status mo_joint_set_motor(mo_world *w, mo_joint_id id, mo_motor_mode mode, double target_velocity,
                                    double target_position, double max_force);
/* Constraint force on B (N, world frame) and torque on B about its centre of
 * mass (N m, world frame) from the last step, limits and motor included; zero
 * before the joint's first step. Either pointer may be NULL. MO_ERR_STALE_ID for
 * a stale id. */
MO_API mo_status mo_joint_reaction(const mo_world *w, mo_joint_id id, mo_vec3 *force, mo_vec3 *torque);

/* ---- contacts (read back after a step) ------------------------------------- */

/* One contact point of the last step (mo_world_contacts). Everything is in the
 * world frame. With substeps (or Newton halvings) these are the contacts of the
 * last (sub)step taken, and h below is that (sub)step's length. */
typedef struct mo_contact {
    mo_body_id body_a, body_b;     /* body_b may be null when a particle is involved */
    mo_shape_id shape_a, shape_b;  /* the touching shapes (shape_b null for particles) */
    mo_particle_id particle;       /* non-null for particle contacts (then body_a is the shape's, B the particle) */
    mo_vec3 point;                 /* world point (midway between the surfaces), m */
    mo_vec3 normal;                /* unit, from A to B */
    double gap;                    /* signed distance, m (< 0 penetrating) */
    double friction;               /* Coulomb mu of the pair, sqrt(mu_a mu_b) */
    mo_vec3 impulse;               /* (normal, tangent1, tangent2) components of the impulse on B over the
                                    * (sub)step, N s: impulse.x along normal, .y along tangent1, .z along tangent2 */
    mo_vec3 tangent1, tangent2;    /* the friction directions, unit, world: (normal, tangent1, tangent2) is a
                                    * right-handed orthonormal basis (tangent1 along the sliding direction of B
                                    * relative to A at the collide stage when it slid faster than 1 mm/s) */
    mo_vec3 force;                 /* contact force on B, world, N: (normal impulse.x + tangent1 impulse.y +
                                    * tangent2 impulse.z) / h with h the (sub)step's length; A receives -force.
                                    * Zero when the step's solve did not run (no room: see mo_world_step) */
    uint64_t key;                  /* stable feature key used for warm starting */
} mo_contact;

/* Number of contacts of the last step (0 before the first); copies up to cap of
 * them into out (may be NULL; cap <= 0 copies none). Ids are built when called
 * from the slots' current generations: for an object destroyed since the step
 * they are stale, or name the new object that took its slot. FEM surface
 * contacts (rigid shapes against a mesh's boundary triangles, Newton worlds) are
 * not in this list; mo_body_contact_force counts their forces. */
MO_API int mo_world_contacts(const mo_world *w, mo_contact *out, int cap);

/* Sum of the last step's contact forces on a body (N) and of their torques about its
 * centre of mass (N m), world frame: every contact of mo_world_contacts it is in
 * (+force as B, -force as A; particle and FEM-node contacts included) and the FEM
 * surface contacts of its shapes; lever arms as the step's rows used them (collide
 * stage; FEM surface contacts: the pose after the step). At rest, force = -m gravity to the
 * solver's tolerance. Zero before the first step and after mo_world_restore_state but
 * for FEM surface contacts (state). Any body type; either pointer may be NULL.
 * MO_ERR_INVALID_ARGUMENT for a NULL w; MO_ERR_STALE_ID ("body id (index i,
 * generation g) does not name a live body" or "... belongs to another world"). */
MO_API mo_status mo_body_contact_force(const mo_world *w, mo_body_id body, mo_vec3 *force, mo_vec3 *torque);

/* ---- GPU backend (CUDA module loaded at run time) ----------------------------
 * The CUDA backend is a separate module (libmoreau_cuda.so) that libmoreau
 * loads with dlopen only when asked, so CPU programs never link CUDA. Its path
 * is $MOREAU_CUDA_MODULE when set, else the install directory
 * <libdir>/moreau/. The module runs the shared per-element kernels (cone
 * projection, prediction, integration) on the device for the agreement
 * self-test; the solvers and mo_world_step run on the CPU. These calls need no
 * world; err (may be NULL, then err_size is ignored) gets "" or a sentence. */

/* what mo_gpu_probe found */
typedef struct mo_gpu_info {
    int devices;              /* CUDA devices found (0 when none) */
    char device_name[128];    /* first device's name, "" when none */
    char module_path[512];    /* module that was loaded, "" when none */
} mo_gpu_info;

/* Loads the CUDA module and counts devices. MO_OK when at least one device is
 * usable; MO_ERR_UNSUPPORTED when the module is absent or no device is present
 * (err says which); info may be NULL. */
MO_API mo_status mo_gpu_probe(mo_gpu_info *info, char *err, size_t err_size);

/* Runs the shared kernels on n generated inputs (n in [1, 2^22]) on the device
 * and on the CPU and returns the largest absolute difference in *max_diff
 * (infinity on failure or NaN). max_diff must not be NULL (refused, like n out of
 * range, with MO_ERR_INVALID_ARGUMENT). MO_ERR_UNSUPPORTED without a module or
 * device or when the device run fails; MO_ERR_OUT_OF_MEMORY. */
MO_API mo_status mo_gpu_selftest(int n, double *max_diff, char *err, size_t err_size);

/* ==== viewer support =========================================================
 * Read-only views of a world for drawing it: every shape with its geometry and
 * pose, and each contact's share of the last step's residual. The debug-draw
 * interface (contacts, joints, boxes) is in moreau/debug_draw.h. */

/* Live shapes in slot order: writes up to cap ids to out (may be NULL) and returns
 * how many there are; w may be NULL (0). */
MO_API int mo_world_shapes(const mo_world *w, mo_shape_id *out, int cap);

/* A shape as created (mo_shape_get_info). Array pointers are owned by the world
 * and stay valid until the shape is destroyed; they are NULL for other types. */
typedef struct mo_shape_info {
    mo_shape_type type;         /* its geometry */
    mo_body_id body;            /* owning body */
    mo_body_type body_type;     /* its type (static, dynamic, kinematic) */
    double radius;              /* sphere, capsule, cylinder, m */
    double half_height;         /* capsule, cylinder: half the segment / axis length along local z, m */
    mo_vec3 half_extents;       /* box, m */
    double margin, friction, density; /* m, Coulomb mu, kg/m^3 (as created) */
    mo_vec3 position;           /* pose in the body frame */
    mo_quat orientation;        /* unit; orientation in the body frame */
    int vertex_count;           /* convex hull: the hull's vertices; mesh: the mesh's vertices */
    const double *vertices;     /* (vertex_count x 3) x, y, z in the shape frame, m */
    int triangle_count;         /* mesh */
    const int *triangles;       /* (triangle_count x 3) counter-clockwise seen from outside */
    int face_count;             /* convex hull: polygons (coplanar facets merged) */
    const int *face_first;      /* (face_count + 1) offsets into face_vertices */
    const int *face_vertices;   /* each face's vertex indices, counter-clockwise seen from outside */
} mo_shape_info;

/* Fills *out (not NULL: refused) for a live shape; MO_ERR_STALE_ID otherwise.
 * MO_ERR_INVALID_ARGUMENT for a NULL out, or a NULL w (no sentence then). */
MO_API mo_status mo_shape_get_info(const mo_world *w, mo_shape_id id, mo_shape_info *out);
/* World pose of a shape's frame: its body's pose composed with its local pose
 * (m, unit quaternion). Either output may be NULL. MO_ERR_STALE_ID for a stale
 * id; MO_ERR_INVALID_ARGUMENT for a NULL w. */
MO_API mo_status mo_shape_world_pose(const mo_world *w, mo_shape_id id, mo_vec3 *position, mo_quat *orientation);

/* Each contact's share of the last step's CCP residual, in the order of
 * mo_world_contacts: e_c = |g_c - P_K(g_c - a u_c)| / a (m/s) with g_c the
 * contact's impulse, u_c = (N g + r)_c its relative velocity after the step
 * (normal, tangents), K its friction cone and a = 1 / max_i N_ii over all the
 * step's rows, so that the sum of e_c^2 and of the joints' like terms is
 * stats.residual^2. Writes up to cap values to out (may be NULL) and returns
 * the number of contacts (0 before the first step; w may be NULL: 0). After a
 * failed (undone) mo_world_step the values are NaN: the rows they come from
 * were overwritten. */
MO_API int mo_world_contact_residuals(const mo_world *w, double *out, int cap);
/* ==== end of viewer support ================================================ */

#ifdef __cplusplus
}
#endif
#endif
