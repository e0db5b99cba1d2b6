/* Making the runner's bundle from this installation, for `remote install
 * TARGET` without --bundle: the bundle maker (tests/device/bundle.sh,
 * installed as libexec/loadscope/bundle.sh) packages this executable, its
 * worker, the probe and the settings schema with every library they need,
 * so that a user of the package never needs the source tree. */
#include "app/remote/remote.h"

#include "app/core/i18n.h"
#include "app/core/worker-path.h"

#ifndef G_OS_WIN32
/* The bundle maker: $LOADSCOPE_BUNDLE_SCRIPT, the installed one (beside
 * this executable's prefix, or where it was configured to go), else a
 * build tree's copy (<build>/tests/device). NULL when none is there. */
static char *
bundle_script (const char *exe_dir)
{
  const char *env = g_getenv ("LOADSCOPE_BUNDLE_SCRIPT");
  if (env && *env)
    return g_strdup (env);
  char *tried[] = {
    g_build_filename (exe_dir, "..", "libexec", "loadscope", "bundle.sh", NULL),
    g_strdup (LS_BUNDLE_SCRIPT),
    g_build_filename (exe_dir, "..", "tests", "device", "bundle.sh", NULL),
  };
  char *found = NULL;
  for (guint i = 0; i < G_N_ELEMENTS (tried); i++)
    {
      if (!found && g_file_test (tried[i], G_FILE_TEST_IS_REGULAR))
        found = g_strdup (tried[i]);
      g_free (tried[i]);
    }
  return found;
}
#endif

gboolean
ls_remote_make_bundle (const char *out_dir, const char *probe_dir, GError **error)
{
#ifdef G_OS_WIN32
  g_set_error_literal (error, LS_REMOTE_ERROR, LS_REMOTE_ERROR_MISSING,
                       _("a Windows installation cannot make the Linux bundle: give --bundle DIR, a folder made on "
                         "Linux by `bash tests/device/bundle.sh --from BUILD --out DIR --max-mb 0`"));
  return FALSE;
#else
  g_autofree char *exe = ls_self_exe_path ();
  g_autofree char *worker = ls_worker_path ();
  g_autofree char *exe_dir = g_path_get_dirname (exe);
  g_autofree char *script = bundle_script (exe_dir);
  if (!script)
    {
      g_set_error (error, LS_REMOTE_ERROR, LS_REMOTE_ERROR_MISSING,
                   _("no bundle maker was found (looked in %s/../libexec/loadscope and %s): give --bundle DIR or set "
                     "LOADSCOPE_BUNDLE_SCRIPT"),
                   exe_dir, LS_BUNDLE_SCRIPT);
      return FALSE;
    }
  /* The compiled schema: the build tree's, the package's own copy, else
   * the system's folder (its XML is compiled then). */
  char *candidates[] = {
    g_build_filename (exe_dir, "..", "data", NULL),
    g_build_filename (exe_dir, "..", "share", "loadscope", "schemas", NULL),
    g_build_filename (exe_dir, "..", "share", "glib-2.0", "schemas", NULL),
  };
  g_autofree char *schemas = NULL;
  for (guint i = 0; i < G_N_ELEMENTS (candidates); i++)
    {
      g_autofree char *compiled = g_build_filename (candidates[i], "gschemas.compiled", NULL);
      if (!schemas && (g_file_test (compiled, G_FILE_TEST_IS_REGULAR) || i == G_N_ELEMENTS (candidates) - 1))
        schemas = g_strdup (candidates[i]);
      g_free (candidates[i]);
    }
  const char *argv[] = { "bash", script, "--exe", exe, "--worker", worker, "--probe", probe_dir,
                         "--schemas", schemas, "--out", out_dir, "--max-mb", "0", NULL };
  int status = 0;
  g_autoptr (GError) why = NULL;
  /* Its progress and errors go straight to this terminal. */
  if (!g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH | G_SPAWN_CHILD_INHERITS_STDIN, NULL, NULL,
                     NULL, NULL, &status, &why))
    {
      g_set_error (error, LS_REMOTE_ERROR, LS_REMOTE_ERROR_FAILED, _("could not start the bundle maker %s: %s"),
                   script, why->message);
      return FALSE;
    }
  if (!g_spawn_check_wait_status (status, &why))
    {
      g_set_error (error, LS_REMOTE_ERROR, LS_REMOTE_ERROR_FAILED, _("the bundle maker %s failed (%s); its words are above"),
                   script, why->message);
      return FALSE;
    }
  return TRUE;
#endif
}
