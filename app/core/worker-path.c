#include "app/core/worker-path.h"

#include <glib.h>
#include <stdlib.h>

#include "platform/fs.h"

/* "loadscope-worker", "loadscope-worker.exe" on Windows (meson.build). */
#define WORKER_FILE "loadscope-worker" LS_EXE_SUFFIX

char *
ls_worker_path (void)
{
  const char *env = g_getenv ("LOADSCOPE_WORKER");
  g_autofree char *self = NULL;
  g_autofree char *dir = NULL;

  if (env && *env)
    return g_strdup (env);
  self = ls_self_exe_path ();
  if (g_strcmp0 (self, "loadscope") == 0)
    return g_strdup ("loadscope-worker");
  dir = g_path_get_dirname (self);
  char *beside = g_build_filename (dir, WORKER_FILE, NULL);
  if (g_file_test (beside, G_FILE_TEST_IS_EXECUTABLE))
    return beside;
  g_free (beside);
  char *build_tree = g_build_filename (dir, "..", "loader", WORKER_FILE, NULL);
  if (g_file_test (build_tree, G_FILE_TEST_IS_EXECUTABLE))
    return build_tree;
  g_free (build_tree);
  return g_build_filename (dir, WORKER_FILE, NULL);
}

char *
ls_self_exe_path (void)
{
  char *raw = ls_fs_self_exe ();
  char *self = g_strdup (raw ? raw : "loadscope");
  free (raw);
  return self;
}

const char *
ls_worker_path_for_process (void)
{
  static char *path;
  static gsize once;
  if (g_once_init_enter (&once))
    {
      path = ls_worker_path ();
      g_once_init_leave (&once, 1);
    }
  return path;
}
