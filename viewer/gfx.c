/* gfx.c: OpenGL 3.3 core drawing for moreau-view (gfx.h). */
#include "gfx.h"

#include <epoxy/gl.h>
#include <errno.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "font.h"

#define MAX_MESHES 65536

typedef struct mesh {
    GLuint vao, vbo;
    int count; /* vertices; 0 = free slot */
} mesh;

typedef struct vbuf { /* growable CPU array of fixed-size records */
    unsigned char *p;
    size_t n, cap, rec;
} vbuf;

typedef struct v3c { float x, y, z; uint32_t c; } v3c;          /* 3-D line / point vertex */
typedef struct v3nc { float x, y, z, nx, ny, nz; uint32_t c; } v3nc; /* lit triangle vertex with its colour */
typedef struct v2t { float x, y, u, v; uint32_t c; } v2t;       /* 2-D vertex (u < 0: solid colour) */

struct gfx {
    int w, h;
    GLuint fbo, color_rb, depth_rb;
    GLuint prog_mesh, prog_line, prog_2d;
    GLint u_mesh_vp, u_mesh_model, u_mesh_nmat, u_mesh_color, u_mesh_eye, u_mesh_vcol;
    GLint u_line_vp, u_line_psize;
    GLint u_2d_size, u_2d_tex;
    GLuint font_tex;
    int font_tex_w;
    mesh *meshes; /* [MAX_MESHES], 0..GFX_MESH_BUILTIN-1 built in */
    int nmeshes;
    GLuint dyn_vao, dyn_vbo;
    vbuf lines[2], points[2], tris2d, lines2d, tris3d;
    vm_mat4 vp;
    double eye[3];
};

/* ---- helpers ---- */

static int vbuf_push(vbuf *b, const void *rec)
{
    if (b->n == b->cap) {
        size_t cap = b->cap ? 2 * b->cap : 1024;
        unsigned char *p = realloc(b->p, cap * b->rec);
        if (!p) return -1;
        b->p = p, b->cap = cap;
    }
    memcpy(b->p + b->n * b->rec, rec, b->rec);
    b->n++;
    return 0;
}

static GLuint compile(GLenum type, const char *src, char *err, size_t n)
{
    GLuint s = glCreateShader(type);
    glShaderSource(s, 1, &src, NULL);
    glCompileShader(s);
    GLint ok = 0;
    glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
    if (!ok) {
        char log[1024] = "";
        glGetShaderInfoLog(s, sizeof log, NULL, log);
        snprintf(err, n, "shader compilation failed: %s", log);
        glDeleteShader(s);
        return 0;
    }
    return s;
}

static GLuint program(const char *vs, const char *fs, char *err, size_t n)
{
    GLuint v = compile(GL_VERTEX_SHADER, vs, err, n);
    if (!v) return 0;
    GLuint f = compile(GL_FRAGMENT_SHADER, fs, err, n);
    if (!f) {
        glDeleteShader(v);
        return 0;
    }
    GLuint p = glCreateProgram();
    glAttachShader(p, v);
    glAttachShader(p, f);
    glLinkProgram(p);
    glDeleteShader(v);
    glDeleteShader(f);
    GLint ok = 0;
    glGetProgramiv(p, GL_LINK_STATUS, &ok);
    if (!ok) {
        char log[1024] = "";
        glGetProgramInfoLog(p, sizeof log, NULL, log);
        snprintf(err, n, "shader link failed: %s", log);
        glDeleteProgram(p);
        return 0;
    }
    return p;
}

static const char *mesh_vs = "#version 330 core\n"
                             "layout(location = 0) in vec3 a_pos;\n"
                             "layout(location = 1) in vec3 a_nrm;\n"
                             "layout(location = 2) in vec4 a_col;\n"
                             "uniform mat4 u_vp, u_model;\n"
                             "uniform mat3 u_nmat;\n"
                             "out vec3 v_nrm, v_pos;\n"
                             "out vec4 v_col;\n"
                             "void main() {\n"
                             "  v_col = a_col;\n"
                             "  vec4 p = u_model * vec4(a_pos, 1.0);\n"
                             "  v_pos = p.xyz;\n"
                             "  v_nrm = u_nmat * a_nrm;\n"
                             "  gl_Position = u_vp * p;\n"
                             "}\n";
static const char *mesh_fs = "#version 330 core\n"
                             "in vec3 v_nrm, v_pos;\n"
                             "in vec4 v_col;\n"
                             "uniform vec4 u_color;\n"
                             "uniform vec3 u_eye;\n"
                             "uniform int u_vcol;\n"
                             "out vec4 o_color;\n"
                             "void main() {\n"
                             "  vec3 n = normalize(v_nrm);\n"
                             "  vec3 v = normalize(u_eye - v_pos);\n"
                             "  if (dot(n, v) < 0.0) n = -n;\n"
                             "  vec3 l1 = normalize(vec3(0.4, 0.3, 1.0)), l2 = normalize(vec3(-0.6, -0.8, 0.3));\n"
                             "  float d = 0.30 + 0.55 * max(dot(n, l1), 0.0) + 0.20 * max(dot(n, l2), 0.0);\n"
                             "  float s = pow(max(dot(reflect(-l1, n), v), 0.0), 24.0) * 0.25;\n"
                             "  vec4 c = u_vcol != 0 ? v_col : u_color;\n"
                             "  o_color = vec4(min(c.rgb * d + vec3(s), vec3(1.0)), c.a);\n"
                             "}\n";
static const char *line_vs = "#version 330 core\n"
                             "layout(location = 0) in vec3 a_pos;\n"
                             "layout(location = 1) in vec4 a_col;\n"
                             "uniform mat4 u_vp;\n"
                             "uniform float u_psize;\n"
                             "out vec4 v_col;\n"
                             "void main() { v_col = a_col; gl_PointSize = u_psize; gl_Position = u_vp * vec4(a_pos, 1.0); }\n";
static const char *line_fs = "#version 330 core\n"
                             "in vec4 v_col;\n"
                             "out vec4 o_color;\n"
                             "void main() { o_color = v_col; }\n";
static const char *twod_vs = "#version 330 core\n"
                             "layout(location = 0) in vec2 a_pos;\n"
                             "layout(location = 1) in vec2 a_uv;\n"
                             "layout(location = 2) in vec4 a_col;\n"
                             "uniform vec2 u_size;\n"
                             "out vec2 v_uv;\n"
                             "out vec4 v_col;\n"
                             "void main() {\n"
                             "  v_uv = a_uv; v_col = a_col;\n"
                             "  gl_Position = vec4(2.0 * a_pos.x / u_size.x - 1.0, 1.0 - 2.0 * a_pos.y / u_size.y, 0.0, 1.0);\n"
                             "}\n";
static const char *twod_fs = "#version 330 core\n"
                             "in vec2 v_uv;\n"
                             "in vec4 v_col;\n"
                             "uniform sampler2D u_tex;\n"
                             "out vec4 o_color;\n"
                             "void main() {\n"
                             "  if (v_uv.x < 0.0) { o_color = v_col; return; }\n"
                             "  if (texture(u_tex, v_uv).r < 0.5) discard;\n"
                             "  o_color = v_col;\n"
                             "}\n";

/* ---- built-in meshes ---- */

typedef struct fbuf {
    float *p;
    int n, cap; /* vertices */
} fbuf;

static int fpush(fbuf *b, const double *p, const double *n)
{
    if (b->n == b->cap) {
        int cap = b->cap ? 2 * b->cap : 256;
        float *q = realloc(b->p, (size_t)cap * 6 * sizeof(float));
        if (!q) return -1;
        b->p = q, b->cap = cap;
    }
    float *o = b->p + 6 * b->n++;
    for (int k = 0; k < 3; k++) o[k] = (float)p[k], o[3 + k] = (float)n[k];
    return 0;
}

static int ftri(fbuf *b, const double *a, const double *na, const double *c, const double *nc, const double *d,
                const double *nd)
{
    return fpush(b, a, na) | fpush(b, c, nc) | fpush(b, d, nd);
}

static int build_box(fbuf *b)
{
    int r = 0;
    for (int axis = 0; axis < 3; axis++)
        for (int sgn = -1; sgn <= 1; sgn += 2) {
            double n[3] = {0, 0, 0}, c[4][3];
            n[axis] = sgn;
            int u = (axis + 1) % 3, v = (axis + 2) % 3;
            static const double su[4] = {-1, 1, 1, -1}, sv[4] = {-1, -1, 1, 1};
            for (int k = 0; k < 4; k++) {
                c[k][axis] = sgn;
                c[k][u] = su[k];
                c[k][v] = sv[k] * sgn;
            }
            r |= ftri(b, c[0], n, c[1], n, c[2], n) | ftri(b, c[0], n, c[2], n, c[3], n);
        }
    return r;
}

static void sph(double th, double ph, double *p)
{
    p[0] = sin(th) * cos(ph), p[1] = sin(th) * sin(ph), p[2] = cos(th);
}

static int build_sphere(fbuf *b)
{
    const int nt = 16, np = 32;
    int r = 0;
    for (int i = 0; i < nt; i++)
        for (int j = 0; j < np; j++) {
            double a[3], c[3], d[3], e[3];
            double t0 = VM_PI * i / nt, t1 = VM_PI * (i + 1) / nt, p0 = 2 * VM_PI * j / np, p1 = 2 * VM_PI * (j + 1) / np;
            sph(t0, p0, a), sph(t1, p0, c), sph(t1, p1, d), sph(t0, p1, e);
            r |= ftri(b, a, a, c, c, d, d) | ftri(b, a, a, d, d, e, e);
        }
    return r;
}

static int build_cylinder(fbuf *b)
{
    const int ns = 32;
    int r = 0;
    for (int j = 0; j < ns; j++) {
        double p0 = 2 * VM_PI * j / ns, p1 = 2 * VM_PI * (j + 1) / ns;
        double n0[3] = {cos(p0), sin(p0), 0}, n1[3] = {cos(p1), sin(p1), 0};
        double a[3] = {n0[0], n0[1], -1}, c[3] = {n1[0], n1[1], -1}, d[3] = {n1[0], n1[1], 1}, e[3] = {n0[0], n0[1], 1};
        r |= ftri(b, a, n0, c, n1, d, n1) | ftri(b, a, n0, d, n1, e, n0);
        double up[3] = {0, 0, 1}, dn[3] = {0, 0, -1}, ct[3] = {0, 0, 1}, cb[3] = {0, 0, -1};
        r |= ftri(b, ct, up, e, up, d, up) | ftri(b, cb, dn, c, dn, a, dn);
    }
    return r;
}

static int build_quad(fbuf *b)
{
    double n[3] = {0, 0, 1}, a[3] = {-1, -1, 0}, c[3] = {1, -1, 0}, d[3] = {1, 1, 0}, e[3] = {-1, 1, 0};
    return ftri(b, a, n, c, n, d, n) | ftri(b, a, n, d, n, e, n);
}

static int upload_mesh(gfx *g, int slot, const float *v, int n)
{
    mesh *m = &g->meshes[slot];
    glGenVertexArrays(1, &m->vao);
    glGenBuffers(1, &m->vbo);
    glBindVertexArray(m->vao);
    glBindBuffer(GL_ARRAY_BUFFER, m->vbo);
    glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)n * 6 * (GLsizeiptr)sizeof(float), v, GL_STATIC_DRAW);
    glEnableVertexAttribArray(0);
    glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, 6 * sizeof(float), (void *)0);
    glEnableVertexAttribArray(1);
    glVertexAttribPointer(1, 3, GL_FLOAT, GL_FALSE, 6 * sizeof(float), (void *)(3 * sizeof(float)));
    glBindVertexArray(0);
    m->count = n;
    return 0;
}

/* ---- framebuffer ---- */

static int make_fbo(gfx *g, int w, int h)
{
    if (g->fbo) {
        glDeleteFramebuffers(1, &g->fbo);
        glDeleteRenderbuffers(1, &g->color_rb);
        glDeleteRenderbuffers(1, &g->depth_rb);
    }
    glGenFramebuffers(1, &g->fbo);
    glGenRenderbuffers(1, &g->color_rb);
    glGenRenderbuffers(1, &g->depth_rb);
    glBindRenderbuffer(GL_RENDERBUFFER, g->color_rb);
    glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, w, h);
    glBindRenderbuffer(GL_RENDERBUFFER, g->depth_rb);
    glRenderbufferStorage(GL_RENDERBUFFER, GL_DEPTH_COMPONENT24, w, h);
    glBindFramebuffer(GL_FRAMEBUFFER, g->fbo);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, g->color_rb);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, g->depth_rb);
    int ok = glCheckFramebufferStatus(GL_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE;
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    g->w = w, g->h = h;
    return ok ? 0 : -1;
}

int gfx_resize(gfx *g, int width, int height)
{
    if (width < 1) width = 1;
    if (height < 1) height = 1;
    if (width == g->w && height == g->h) return 0;
    return make_fbo(g, width, height);
}

void gfx_size(const gfx *g, int *width, int *height)
{
    *width = g->w;
    *height = g->h;
}

/* ---- create / destroy ---- */

gfx *gfx_create(int width, int height, char *err, size_t err_size)
{
    gfx *g = calloc(1, sizeof *g);
    if (!g) {
        snprintf(err, err_size, "out of memory");
        return NULL;
    }
    g->meshes = calloc(MAX_MESHES, sizeof(mesh));
    if (!g->meshes) {
        free(g);
        snprintf(err, err_size, "out of memory");
        return NULL;
    }
    g->lines[0].rec = g->lines[1].rec = g->points[0].rec = g->points[1].rec = sizeof(v3c);
    g->tris2d.rec = g->lines2d.rec = sizeof(v2t);
    g->tris3d.rec = sizeof(v3nc);
    g->prog_mesh = program(mesh_vs, mesh_fs, err, err_size);
    if (g->prog_mesh) g->prog_line = program(line_vs, line_fs, err, err_size);
    if (g->prog_line) g->prog_2d = program(twod_vs, twod_fs, err, err_size);
    if (!g->prog_2d) {
        gfx_destroy(g);
        return NULL;
    }
    g->u_mesh_vp = glGetUniformLocation(g->prog_mesh, "u_vp");
    g->u_mesh_model = glGetUniformLocation(g->prog_mesh, "u_model");
    g->u_mesh_nmat = glGetUniformLocation(g->prog_mesh, "u_nmat");
    g->u_mesh_color = glGetUniformLocation(g->prog_mesh, "u_color");
    g->u_mesh_eye = glGetUniformLocation(g->prog_mesh, "u_eye");
    g->u_mesh_vcol = glGetUniformLocation(g->prog_mesh, "u_vcol");
    g->u_line_vp = glGetUniformLocation(g->prog_line, "u_vp");
    g->u_line_psize = glGetUniformLocation(g->prog_line, "u_psize");
    g->u_2d_size = glGetUniformLocation(g->prog_2d, "u_size");
    g->u_2d_tex = glGetUniformLocation(g->prog_2d, "u_tex");

    /* built-in meshes */
    int (*build[GFX_MESH_BUILTIN])(fbuf *) = {build_box, build_sphere, build_cylinder, build_quad};
    for (int i = 0; i < GFX_MESH_BUILTIN; i++) {
        fbuf b = {0};
        if (build[i](&b)) {
            free(b.p);
            snprintf(err, err_size, "out of memory");
            gfx_destroy(g);
            return NULL;
        }
        upload_mesh(g, i, b.p, b.n);
        free(b.p);
    }
    g->nmeshes = GFX_MESH_BUILTIN;

    /* font atlas: 95 glyphs in a row of 6x9 cells (glyph at the cell's top left) */
    g->font_tex_w = 95 * MO_FONT_CELL_W;
    unsigned char *atlas = calloc((size_t)g->font_tex_w * MO_FONT_CELL_H, 1);
    if (!atlas) {
        snprintf(err, err_size, "out of memory");
        gfx_destroy(g);
        return NULL;
    }
    for (int c = 0; c < 95; c++) {
        const unsigned char *gl = mo_font_glyph(32 + c);
        /* letters with descenders sit one row lower in their cell */
        int down = strchr("gjpqy", 32 + c) ? 1 : 0;
        for (int r = 0; r < MO_FONT_GLYPH_H; r++)
            for (int x = 0; x < MO_FONT_GLYPH_W; x++)
                if (gl[r] & (0x10 >> x)) atlas[(r + down) * g->font_tex_w + c * MO_FONT_CELL_W + x] = 255;
    }
    glGenTextures(1, &g->font_tex);
    glBindTexture(GL_TEXTURE_2D, g->font_tex);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_R8, g->font_tex_w, MO_FONT_CELL_H, 0, GL_RED, GL_UNSIGNED_BYTE, atlas);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    free(atlas);

    glGenVertexArrays(1, &g->dyn_vao);
    glGenBuffers(1, &g->dyn_vbo);
    if (make_fbo(g, width, height)) {
        snprintf(err, err_size, "cannot make a %dx%d offscreen framebuffer", width, height);
        gfx_destroy(g);
        return NULL;
    }
    return g;
}

void gfx_destroy(gfx *g)
{
    if (!g) return;
    for (int i = 0; i < g->nmeshes; i++)
        if (g->meshes[i].count) {
            glDeleteVertexArrays(1, &g->meshes[i].vao);
            glDeleteBuffers(1, &g->meshes[i].vbo);
        }
    free(g->meshes);
    if (g->fbo) {
        glDeleteFramebuffers(1, &g->fbo);
        glDeleteRenderbuffers(1, &g->color_rb);
        glDeleteRenderbuffers(1, &g->depth_rb);
    }
    if (g->font_tex) glDeleteTextures(1, &g->font_tex);
    if (g->dyn_vao) glDeleteVertexArrays(1, &g->dyn_vao);
    if (g->dyn_vbo) glDeleteBuffers(1, &g->dyn_vbo);
    if (g->prog_mesh) glDeleteProgram(g->prog_mesh);
    if (g->prog_line) glDeleteProgram(g->prog_line);
    if (g->prog_2d) glDeleteProgram(g->prog_2d);
    for (int i = 0; i < 2; i++) free(g->lines[i].p), free(g->points[i].p);
    free(g->tris2d.p);
    free(g->lines2d.p);
    free(g->tris3d.p);
    free(g);
}

/* ---- meshes ---- */

int gfx_mesh_create(gfx *g, const float *vertices, int nvertices)
{
    int slot = -1;
    for (int i = GFX_MESH_BUILTIN; i < g->nmeshes; i++)
        if (!g->meshes[i].count) {
            slot = i;
            break;
        }
    if (slot < 0) {
        if (g->nmeshes == MAX_MESHES) return -1;
        slot = g->nmeshes++;
    }
    if (nvertices < 3) return -1;
    upload_mesh(g, slot, vertices, nvertices);
    return slot;
}

void gfx_mesh_delete(gfx *g, int handle)
{
    if (handle < GFX_MESH_BUILTIN || handle >= g->nmeshes || !g->meshes[handle].count) return;
    glDeleteVertexArrays(1, &g->meshes[handle].vao);
    glDeleteBuffers(1, &g->meshes[handle].vbo);
    g->meshes[handle].count = 0;
}

void gfx_begin(gfx *g, const vm_mat4 *view_proj, const double *eye)
{
    g->vp = *view_proj;
    memcpy(g->eye, eye, sizeof g->eye);
    glBindFramebuffer(GL_FRAMEBUFFER, g->fbo);
    glViewport(0, 0, g->w, g->h);
    glClearColor(0.16f, 0.18f, 0.22f, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
    glEnable(GL_DEPTH_TEST);
    glDisable(GL_BLEND);
    glDisable(GL_CULL_FACE);
    glUseProgram(g->prog_mesh);
    glUniformMatrix4fv(g->u_mesh_vp, 1, GL_FALSE, g->vp.m);
    glUniform3f(g->u_mesh_eye, (float)eye[0], (float)eye[1], (float)eye[2]);
    glUniform1i(g->u_mesh_vcol, 0);
}

void gfx_draw_mesh(gfx *g, int mesh_id, const vm_mat4 *model, const float *nmat, const float *rgba)
{
    if (mesh_id < 0 || mesh_id >= g->nmeshes || !g->meshes[mesh_id].count) return;
    glUseProgram(g->prog_mesh);
    glUniformMatrix4fv(g->u_mesh_model, 1, GL_FALSE, model->m);
    glUniformMatrix3fv(g->u_mesh_nmat, 1, GL_FALSE, nmat);
    glUniform4fv(g->u_mesh_color, 1, rgba);
    glBindVertexArray(g->meshes[mesh_id].vao);
    glDrawArrays(GL_TRIANGLES, 0, g->meshes[mesh_id].count);
    glBindVertexArray(0);
}

void gfx_set_wireframe(gfx *g, bool on)
{
    (void)g;
    glPolygonMode(GL_FRONT_AND_BACK, on ? GL_LINE : GL_FILL);
}

/* ---- lit triangles with per-vertex colours ---- */

static uint32_t to_bytes(uint32_t c);

void gfx_tri(gfx *g, const double *p0, const double *p1, const double *p2, const double *n, const uint32_t *rgba)
{
    const double *p[3] = {p0, p1, p2};
    for (int j = 0; j < 3; j++) {
        v3nc v = {(float)p[j][0], (float)p[j][1], (float)p[j][2], (float)n[0], (float)n[1], (float)n[2],
                  to_bytes(rgba[j])};
        vbuf_push(&g->tris3d, &v);
    }
}

void gfx_flush_tris(gfx *g)
{
    vbuf *b = &g->tris3d;
    if (!b->n) return;
    static const float identity4[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    static const float identity3[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    glUseProgram(g->prog_mesh);
    glUniformMatrix4fv(g->u_mesh_model, 1, GL_FALSE, identity4);
    glUniformMatrix3fv(g->u_mesh_nmat, 1, GL_FALSE, identity3);
    glUniform1i(g->u_mesh_vcol, 1);
    glBindVertexArray(g->dyn_vao);
    glBindBuffer(GL_ARRAY_BUFFER, g->dyn_vbo);
    glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)(b->n * sizeof(v3nc)), b->p, GL_STREAM_DRAW);
    glEnableVertexAttribArray(0);
    glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, sizeof(v3nc), (void *)0);
    glEnableVertexAttribArray(1);
    glVertexAttribPointer(1, 3, GL_FLOAT, GL_FALSE, sizeof(v3nc), (void *)(3 * sizeof(float)));
    glEnableVertexAttribArray(2);
    glVertexAttribPointer(2, 4, GL_UNSIGNED_BYTE, GL_TRUE, sizeof(v3nc), (void *)(6 * sizeof(float)));
    glDrawArrays(GL_TRIANGLES, 0, (GLsizei)b->n);
    glDisableVertexAttribArray(2);
    glBindVertexArray(0);
    glUniform1i(g->u_mesh_vcol, 0);
    b->n = 0;
}

/* ---- 3-D lines and points ---- */

void gfx_line(gfx *g, int layer, const double *a, const double *b, uint32_t rgba)
{
    v3c va = {(float)a[0], (float)a[1], (float)a[2], rgba}, vb = {(float)b[0], (float)b[1], (float)b[2], rgba};
    vbuf_push(&g->lines[layer & 1], &va);
    vbuf_push(&g->lines[layer & 1], &vb);
}

void gfx_point(gfx *g, int layer, const double *p, uint32_t rgba)
{
    v3c v = {(float)p[0], (float)p[1], (float)p[2], rgba};
    vbuf_push(&g->points[layer & 1], &v);
}

/* colours are 0xRRGGBBAA: stored as bytes R, G, B, A for the vertex attribute */
static uint32_t to_bytes(uint32_t c)
{
    unsigned char b[4] = {(unsigned char)(c >> 24), (unsigned char)(c >> 16), (unsigned char)(c >> 8),
                          (unsigned char)c};
    uint32_t r;
    memcpy(&r, b, 4);
    return r;
}

static void draw_v3c(gfx *g, vbuf *b, GLenum mode)
{
    if (!b->n) return;
    v3c *v = (v3c *)b->p;
    for (size_t i = 0; i < b->n; i++) v[i].c = to_bytes(v[i].c);
    glBindVertexArray(g->dyn_vao);
    glBindBuffer(GL_ARRAY_BUFFER, g->dyn_vbo);
    glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)(b->n * sizeof(v3c)), b->p, GL_STREAM_DRAW);
    glEnableVertexAttribArray(0);
    glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, sizeof(v3c), (void *)0);
    glEnableVertexAttribArray(1);
    glVertexAttribPointer(1, 4, GL_UNSIGNED_BYTE, GL_TRUE, sizeof(v3c), (void *)(3 * sizeof(float)));
    glDisableVertexAttribArray(2);
    glDrawArrays(mode, 0, (GLsizei)b->n);
    glBindVertexArray(0);
    b->n = 0;
}

void gfx_flush_3d(gfx *g, int layer)
{
    layer &= 1;
    GLint poly[2];
    glGetIntegerv(GL_POLYGON_MODE, poly);
    glPolygonMode(GL_FRONT_AND_BACK, GL_FILL);
    if (layer) glDisable(GL_DEPTH_TEST);
    else glEnable(GL_DEPTH_TEST);
    glUseProgram(g->prog_line);
    glUniformMatrix4fv(g->u_line_vp, 1, GL_FALSE, g->vp.m);
    glEnable(GL_PROGRAM_POINT_SIZE);
    glUniform1f(g->u_line_psize, 7.0f);
    draw_v3c(g, &g->lines[layer], GL_LINES);
    draw_v3c(g, &g->points[layer], GL_POINTS);
    glEnable(GL_DEPTH_TEST);
    glPolygonMode(GL_FRONT_AND_BACK, (GLenum)poly[0]);
}

/* ---- 2-D layer ---- */

static void quad2d(gfx *g, float x, float y, float w, float h, float u0, float v0, float u1, float v1, uint32_t c)
{
    v2t a = {x, y, u0, v0, c}, b = {x + w, y, u1, v0, c}, d = {x + w, y + h, u1, v1, c}, e = {x, y + h, u0, v1, c};
    vbuf_push(&g->tris2d, &a), vbuf_push(&g->tris2d, &b), vbuf_push(&g->tris2d, &d);
    vbuf_push(&g->tris2d, &a), vbuf_push(&g->tris2d, &d), vbuf_push(&g->tris2d, &e);
}

void gfx_rect(gfx *g, float x, float y, float w, float h, uint32_t rgba)
{
    quad2d(g, x, y, w, h, -1, -1, -1, -1, rgba);
}

void gfx_line2d(gfx *g, float x0, float y0, float x1, float y1, uint32_t rgba)
{
    v2t a = {x0 + 0.5f, y0 + 0.5f, -1, -1, rgba}, b = {x1 + 0.5f, y1 + 0.5f, -1, -1, rgba};
    vbuf_push(&g->lines2d, &a);
    vbuf_push(&g->lines2d, &b);
}

float gfx_text(gfx *g, float x, float y, const char *s, uint32_t rgba, int scale)
{
    float cx = x, cy = y, wmax = 0;
    const float cw = (float)(MO_FONT_CELL_W * scale), ch = (float)(MO_FONT_CELL_H * scale);
    for (; *s; s++) {
        if (*s == '\n') {
            cy += ch;
            cx = x;
            continue;
        }
        int c = (unsigned char)*s;
        if (c < 32 || c > 126) c = '?';
        if (c != ' ') {
            float u0 = (float)((c - 32) * MO_FONT_CELL_W) / (float)g->font_tex_w;
            float u1 = (float)((c - 32) * MO_FONT_CELL_W + MO_FONT_CELL_W) / (float)g->font_tex_w;
            quad2d(g, cx, cy, cw, ch, u0, 0.0f, u1, 1.0f, rgba);
        }
        cx += cw;
        if (cx - x > wmax) wmax = cx - x;
    }
    return wmax;
}

static void draw_v2t(gfx *g, vbuf *b, GLenum mode)
{
    if (!b->n) return;
    v2t *v = (v2t *)b->p;
    for (size_t i = 0; i < b->n; i++) v[i].c = to_bytes(v[i].c);
    glBindVertexArray(g->dyn_vao);
    glBindBuffer(GL_ARRAY_BUFFER, g->dyn_vbo);
    glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)(b->n * sizeof(v2t)), b->p, GL_STREAM_DRAW);
    glEnableVertexAttribArray(0);
    glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, sizeof(v2t), (void *)0);
    glEnableVertexAttribArray(1);
    glVertexAttribPointer(1, 2, GL_FLOAT, GL_FALSE, sizeof(v2t), (void *)(2 * sizeof(float)));
    glEnableVertexAttribArray(2);
    glVertexAttribPointer(2, 4, GL_UNSIGNED_BYTE, GL_TRUE, sizeof(v2t), (void *)(4 * sizeof(float)));
    glDrawArrays(mode, 0, (GLsizei)b->n);
    glDisableVertexAttribArray(2);
    glBindVertexArray(0);
    b->n = 0;
}

void gfx_flush_2d(gfx *g)
{
    glPolygonMode(GL_FRONT_AND_BACK, GL_FILL);
    glDisable(GL_DEPTH_TEST);
    glEnable(GL_BLEND);
    glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
    glUseProgram(g->prog_2d);
    glUniform2f(g->u_2d_size, (float)g->w, (float)g->h);
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D, g->font_tex);
    glUniform1i(g->u_2d_tex, 0);
    draw_v2t(g, &g->tris2d, GL_TRIANGLES);
    draw_v2t(g, &g->lines2d, GL_LINES);
    glDisable(GL_BLEND);
    glEnable(GL_DEPTH_TEST);
}

/* ---- read back, present, PNG ---- */

void gfx_read_rgb(gfx *g, unsigned char *rgb)
{
    glBindFramebuffer(GL_READ_FRAMEBUFFER, g->fbo);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadPixels(0, 0, g->w, g->h, GL_RGB, GL_UNSIGNED_BYTE, rgb);
    /* GL's rows are bottom first */
    size_t row = (size_t)g->w * 3;
    unsigned char *tmp = malloc(row);
    if (tmp) {
        for (int y = 0; y < g->h / 2; y++) {
            unsigned char *a = rgb + (size_t)y * row, *b = rgb + (size_t)(g->h - 1 - y) * row;
            memcpy(tmp, a, row);
            memcpy(a, b, row);
            memcpy(b, tmp, row);
        }
        free(tmp);
    }
    glBindFramebuffer(GL_READ_FRAMEBUFFER, 0);
}

void gfx_present(gfx *g, int window_width, int window_height)
{
    glBindFramebuffer(GL_READ_FRAMEBUFFER, g->fbo);
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, 0);
    glViewport(0, 0, window_width, window_height);
    glBlitFramebuffer(0, 0, g->w, g->h, 0, 0, window_width, window_height, GL_COLOR_BUFFER_BIT, GL_NEAREST);
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
}

int gfx_write_png(const char *path, int width, int height, const unsigned char *rgb, char *err, size_t err_size)
{
    FILE *f = fopen(path, "wb");
    if (!f) {
        snprintf(err, err_size, "cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!png || !info) {
        png_destroy_write_struct(&png, NULL);
        fclose(f);
        snprintf(err, err_size, "cannot write %s: out of memory", path);
        return -1;
    }
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        fclose(f);
        snprintf(err, err_size, "cannot write %s: libpng error", path);
        return -1;
    }
    png_init_io(png, f);
    png_set_IHDR(png, info, (png_uint_32)width, (png_uint_32)height, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    for (int y = 0; y < height; y++) png_write_row(png, rgb + (size_t)y * (size_t)width * 3);
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    if (fclose(f) != 0) {
        snprintf(err, err_size, "cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}
