/* import_scan.h: checks of a mesh file before Assimp reads it (import_scan.c) */
#ifndef MOREAU_IMPORT_SCAN_H
#define MOREAU_IMPORT_SCAN_H

#include "moreau/import.h"

/* MO_OK, or a sentence "PATH[:LINE]: cannot read: ..." in err: a file over
   MO_MESH_MAX_FILE_BYTES, a zip archive, or a Collada file whose integer lists
   or counts Assimp would loop or over-allocate on. A file that cannot be opened
   passes (mo_mesh_load says why). */
mo_status mo_mesh_scan(const char *path, char *err, size_t err_size);

#endif
