/* run_batch.h: `moreau-run SCENE --batch N` (run_batch.c): N copies of a scene
 * file or built-in scene stepped together as one mo_batch (moreau/batch.h). */
#ifndef MO_RUN_BATCH_H
#define MO_RUN_BATCH_H

#include <stdbool.h>
#include <moreau/scene.h>

/* Runs `worlds` copies of scene (a scene file when file is true, with sopt, else a built-in scene by name)
 * for steps steps (< 0: the scene's duration), settings over each world's (a "threads=K" among them is the
 * batch's threads over worlds; default all), and prints the world-steps per second, how many distinct final
 * states there are and, for scene files, how many worlds' claims hold. Returns the exit status: 0, 1 for a
 * failure (or with check, a world whose claims fail), 2 for a bad setting. */
int run_batch(const char *scene, bool file, const mo_scene_options *sopt, const char *const *settings, int nsettings,
              int worlds, int steps, double seconds, bool check);

#endif
