/* The built-in sample dataset: 800 JPEG images like ImageNet's, generated
 * once into the cache folder. Used by the demo and the workbench. */
#pragma once

#include <glib.h>

#include "app/maker/dataset-maker.h"

#define LS_SAMPLE_IMAGES 800

/* $XDG_CACHE_HOME/loadscope/sample-jpeg-dir-800 (newly allocated). */
char *ls_sample_dataset_path (void);

/* Generates it unless it is there; returns its path or NULL with error.
 * progress (may be NULL) is called in the calling thread. */
char *ls_sample_dataset_ensure (ls_make_progress_fn progress, void *progress_data, const volatile sig_atomic_t *interrupt,
                                GError **error);
