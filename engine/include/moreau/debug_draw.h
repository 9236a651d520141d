/* debug_draw.h: what the engine knows, drawn by whoever asks.
 *
 * The engine has no graphics code. mo_world_debug_draw walks the world's last
 * step (contacts, their impulses and residuals), its joints, its shapes'
 * bounding boxes, its particles and its FEM meshes' boundary edges and calls
 * the caller's primitives; a viewer implements them
 * with OpenGL, a test records them. Everything is in world coordinates (m);
 * colours are 0xRRGGBBAA. Only `line` is required: a NULL point, arrow, frame
 * or box callback is drawn with lines instead (see each one). Callbacks are
 * called during mo_world_debug_draw only and must not change the world. */
#ifndef MOREAU_DEBUG_DRAW_H
#define MOREAU_DEBUG_DRAW_H

#include "moreau.h"

#ifdef __cplusplus
extern "C" {
#endif

/* what to draw (flags of mo_world_debug_draw) */
enum {
    MO_DRAW_CONTACTS = 1u << 0,  /* contact points (colour MO_DRAW_COLOR_CONTACT) */
    MO_DRAW_NORMALS = 1u << 1,   /* contact normals, from A to B, normal_length long */
    MO_DRAW_FORCES = 1u << 2,    /* contact forces on B (impulse / h, world vector) as arrows force_scale m/N long */
    MO_DRAW_JOINTS = 1u << 3,    /* joint frames at both anchors, joint axes, the anchor-to-anchor error */
    MO_DRAW_AABBS = 1u << 4,     /* every bounded shape's box (margin included; planes have none) */
    MO_DRAW_RESIDUALS = 1u << 5, /* contact points coloured by their share of the CCP residual (implies points) */
    MO_DRAW_PARTICLES = 1u << 6, /* every live particle that is not a node of an FEM mesh, as a point whose size is
                                    its collision radius (m) when it has one, else point_size */
    MO_DRAW_FEM = 1u << 7,       /* every FEM mesh's boundary-surface edges (mo_fem_mesh_surface), each edge of a
                                    closed manifold surface once (as a, b with a < b: its two triangles hold it as
                                    (a, b) and (b, a)), at the nodes' current positions */
    MO_DRAW_SKELETON = 1u << 8,  /* every articulation's tree as it is now: for each link with a parent (link
                                    order) a bone from the parent link frame's origin to the link frame's origin
                                    (MO_DRAW_COLOR_SKELETON), then for a revolute or prismatic joint its axis
                                    through the link frame's origin, 2 frame_scale each way
                                    (MO_DRAW_COLOR_JOINT_AXIS); articulations in mo_world_articulations order;
                                    links without shapes included */
    MO_DRAW_ALL = 0x1ffu         /* everything above */
};

/* fixed colours (0xRRGGBBAA) */
#define MO_DRAW_COLOR_CONTACT 0xff2020ffu   /* contact point */
#define MO_DRAW_COLOR_NORMAL 0x20e0ffffu    /* contact normal */
#define MO_DRAW_COLOR_FORCE 0xffd000ffu     /* contact force arrow */
#define MO_DRAW_COLOR_AABB 0xff40ffffu      /* bounding box */
#define MO_DRAW_COLOR_JOINT_AXIS 0xffffffffu /* revolute / prismatic axis, distance joint segment */
#define MO_DRAW_COLOR_JOINT_ERROR 0xff8000ffu /* anchor A to anchor B (the joint's position error) */
#define MO_DRAW_COLOR_X 0xff3030ffu         /* frame axes x, y, z */
#define MO_DRAW_COLOR_Y 0x30ff30ffu         /* frame axis y */
#define MO_DRAW_COLOR_Z 0x3060ffffu         /* frame axis z */
#define MO_DRAW_COLOR_PARTICLE 0xc0ff40ffu  /* particle */
#define MO_DRAW_COLOR_FEM 0x40ffc0ffu       /* FEM boundary edge */
#define MO_DRAW_COLOR_SKELETON 0xffa040ffu  /* articulation bone, parent link origin to link origin */

/* The caller's drawing primitives and sizes. Start from mo_default_debug_draw()
 * and set at least line; the struct is read, not kept, by mo_world_debug_draw. */
typedef struct mo_debug_draw {
    void *user;                   /* passed to every callback; may be NULL */
    /* segment a-b (required) */
    void (*line)(void *user, mo_vec3 a, mo_vec3 b, uint32_t rgba);
    /* a point of the given size (pixels for a viewer); NULL: a 3-line cross of
       half-size point_size m */
    void (*point)(void *user, mo_vec3 p, double size, uint32_t rgba);
    /* an arrow from tail to head; NULL: the shaft and two head lines */
    void (*arrow)(void *user, mo_vec3 tail, mo_vec3 head, uint32_t rgba);
    /* a frame: origin and orientation, axes scale m long in x, y, z colours; NULL: three lines */
    void (*frame)(void *user, mo_vec3 origin, mo_quat q, double scale);
    /* an axis-aligned box; NULL: its twelve edges */
    void (*box)(void *user, mo_vec3 lo, mo_vec3 hi, uint32_t rgba);
    double point_size;            /* size passed to point (pixels for a viewer), half-size (m) of the fallback
                                     cross; default 0.02 */
    double normal_length;         /* m; default 0.2 */
    double force_scale;           /* m per N; default 0.01 */
    double frame_scale;           /* m; default 0.15 */
    /* residual colouring: contacts at or below residual_low are green, at or above
       residual_high red, log-interpolated between; defaults 1e-6 and 1e-1 (m/s) */
    double residual_low, residual_high;
    int internal_value;           /* set by mo_default_debug_draw(); do not touch */
} mo_debug_draw;

/* The default sizes listed above, every callback NULL (line must be set); the
 * only valid start (mo_world_debug_draw refuses a struct it did not initialise). */
MO_API mo_debug_draw mo_default_debug_draw(void);

/* Calls dd's primitives for the last step's contacts (points, normals, forces,
 * residual colours), the joints as they are now, the shapes' bounding boxes,
 * the particles and the FEM meshes' edges as they are now, the articulations'
 * skeletons, as flags choose, in
 * that order: for each contact point, normal, force; then each joint; then each
 * box; then each particle (slot order); then each mesh's edges (mesh by mesh in
 * mo_world_fem_meshes order, triangle by triangle, edges ab, bc, ca); then each
 * articulation's bones and axes (MO_DRAW_SKELETON). Before the first step there are no
 * contacts. Flags outside MO_DRAW_ALL are ignored. Returns MO_ERR_INVALID_ARGUMENT
 * (and draws nothing) when w or dd is NULL, dd->line is NULL, or dd was not made
 * by mo_default_debug_draw (the sentence is in mo_world_last_error, except for a
 * NULL w). */
MO_API mo_status mo_world_debug_draw(const mo_world *w, const mo_debug_draw *dd, unsigned flags);

/* Colour of a residual (m/s) with dd's residual_low/high (green - yellow - red,
 * opaque): at or below low (also 0, negative and NaN) green, at or above high red.
 * dd may be NULL: low 1e-6, high 1e-1; a low <= 0 is taken as 1e-6 and a high <=
 * low as low x 1e5. */
MO_API uint32_t mo_debug_draw_residual_color(const mo_debug_draw *dd, double residual);

#ifdef __cplusplus
}
#endif
#endif
