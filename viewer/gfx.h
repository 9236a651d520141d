/* gfx.h: the viewer's OpenGL 3.3 core layer: an offscreen framebuffer that
 * every frame is drawn into (then shown in the window, read back for PNGs),
 * lit meshes, batched 3-D lines and points, and a 2-D layer (rectangles,
 * lines, bitmap text) in pixel coordinates with the origin at the top left.
 * Needs a current GL context (libepoxy resolves the entry points). */
#ifndef MO_VIEW_GFX_H
#define MO_VIEW_GFX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "vmath.h"

typedef struct gfx gfx;

/* built-in unit meshes: cube [-1, 1]^3, sphere of radius 1, cylinder of radius 1 along z in [-1, 1],
 * a square [-1, 1]^2 at z = 0 facing +z */
enum { GFX_MESH_BOX = 0, GFX_MESH_SPHERE, GFX_MESH_CYLINDER, GFX_MESH_QUAD, GFX_MESH_BUILTIN };

gfx *gfx_create(int width, int height, char *err, size_t err_size);
void gfx_destroy(gfx *g);
/* resizes the offscreen framebuffer; 0 or -1 */
int gfx_resize(gfx *g, int width, int height);
void gfx_size(const gfx *g, int *width, int *height);

/* starts a frame: binds the framebuffer, clears to the background */
void gfx_begin(gfx *g, const vm_mat4 *view_proj, const double *eye);
/* triangles (x, y, z, nx, ny, nz per vertex, 3 vertices per triangle); returns a mesh handle > 0 or -1 */
int gfx_mesh_create(gfx *g, const float *vertices, int nvertices);
void gfx_mesh_delete(gfx *g, int handle);
/* draws a built-in or created mesh, lit, with the normal matrix nmat (column-major 3x3) */
void gfx_draw_mesh(gfx *g, int mesh, const vm_mat4 *model, const float *nmat, const float *rgba);
void gfx_set_wireframe(gfx *g, bool on);
/* lit triangles in world coordinates with one normal and a colour per vertex (0xRRGGBBAA), batched;
 * gfx_flush_tris draws them (depth-tested, in the current wireframe mode) and empties the batch */
void gfx_tri(gfx *g, const double *p0, const double *p1, const double *p2, const double *n, const uint32_t *rgba);
void gfx_flush_tris(gfx *g);

/* 3-D lines and points, batched; layer 0 is depth-tested, layer 1 drawn over everything */
void gfx_line(gfx *g, int layer, const double *a, const double *b, uint32_t rgba);
void gfx_point(gfx *g, int layer, const double *p, uint32_t rgba);
/* draws and empties the batches of a layer */
void gfx_flush_3d(gfx *g, int layer);

/* 2-D layer, pixels from the top left; drawn by gfx_flush_2d in the order rectangles+text, then lines */
void gfx_rect(gfx *g, float x, float y, float w, float h, uint32_t rgba);
void gfx_line2d(gfx *g, float x0, float y0, float x1, float y1, uint32_t rgba);
/* text with the viewer font at an integer scale; returns the width in pixels. '\n' starts a new line. */
float gfx_text(gfx *g, float x, float y, const char *s, uint32_t rgba, int scale);
void gfx_flush_2d(gfx *g);

/* copies the framebuffer into rgb (width * height * 3 bytes, top row first) */
void gfx_read_rgb(gfx *g, unsigned char *rgb);
/* shows the framebuffer in the current window's default framebuffer of that size */
void gfx_present(gfx *g, int window_width, int window_height);

/* writes an 8-bit RGB PNG (libpng); 0, or -1 with a sentence in err */
int gfx_write_png(const char *path, int width, int height, const unsigned char *rgb, char *err, size_t err_size);

#endif
