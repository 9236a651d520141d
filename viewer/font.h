/* font.h: the viewer's 5x7 bitmap font (font.c). */
#ifndef MO_VIEW_FONT_H
#define MO_VIEW_FONT_H

#define MO_FONT_GLYPH_W 5
#define MO_FONT_GLYPH_H 7
#define MO_FONT_CELL_W 6 /* advance per character, pixels at scale 1 */
#define MO_FONT_CELL_H 9 /* line height */

/* 7 rows of the glyph of c (printable ASCII; others give '?'), bit 4 = left column */
const unsigned char *mo_font_glyph(int c);

#endif
