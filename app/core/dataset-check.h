#pragma once

#include <gio/gio.h>

/* The check `loadscope run` makes of a dataset before it starts, made when
 * the dataset is chosen: the format is detected and the dataset opened
 * (a JPEG folder's class folders listed, an HDF5 file's layout read), then
 * closed. On success a one-line description ("jpeg-dir: 2,000 samples");
 * on failure FALSE with the loader's reason, naming the file or folder. */
gboolean ls_dataset_check (const char *path, char **description, GError **error);

/* The same in a worker thread (a large folder takes a while to list). */
void ls_dataset_check_async (const char *path, GCancellable *cancellable, GAsyncReadyCallback callback,
                             gpointer user_data);
/* The description, or NULL with error. */
char *ls_dataset_check_finish (GAsyncResult *result, GError **error);
