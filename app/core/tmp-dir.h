/* A process's own folder in $TMPDIR: "<prefix><pid>-XXXXXX", made 0700,
 * removed by the process when it is done. A process that was killed leaves
 * its folder to the next one with the same prefix, which removes the
 * folders whose process is gone. Imports and the PyTorch probe use it. */
#pragma once

#include <glib.h>

/* Makes a new folder after removing the prefix's folders of processes that
 * are gone. NULL with the error. */
char *ls_tmp_dir_make (const char *prefix, GError **error);

/* Removes the folder and everything in it, never following a symbolic link
 * out of it (what is inside may be someone else's making) and making a
 * folder made unreadable readable again first. FALSE when something stayed. */
gboolean ls_tmp_dir_remove (const char *dir);
