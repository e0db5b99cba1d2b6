/* The probe's per-run folder: $TMPDIR/loadscope-probe-<runner pid>-XXXXXX,
 * the script's TMPDIR while it runs (the probe's own files, Python's
 * multiprocessing folders, the script's temporary files), removed by the
 * runner whatever happened to the script; a runner that was killed leaves
 * it to the next run, which removes the folders of runners that are gone. */
#pragma once

#include <glib.h>

#define LS_PROBE_DIR_PREFIX "loadscope-probe-"

/* Makes a new folder (mode 0700) after removing those whose runner is gone. */
char *ls_probe_dir_make (GError **error);

/* Removes the folder and everything in it, never following a symbolic link
 * out of it (the script made what is inside). FALSE when something stayed. */
gboolean ls_probe_dir_remove (const char *dir);
