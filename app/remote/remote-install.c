/* `loadscope remote install TARGET --bundle DIR`: the bundle as one tar
 * through the transport's stdin, checked by sha256 on the target, unpacked
 * beside and then moved into KEY/ in one step (a run never sees half a
 * bundle). */
#include "app/remote/remote.h"
#include "app/core/i18n.h"

#include <glib/gstdio.h>

#include "app/core/tmp-dir.h"

static const char install_script[]
    = "set -e\n"
      "mkdir -p \"$base\"\n"
      "p=$d.part.$$\n"
      "rm -rf \"$p\"\n"
      "mkdir -p \"$p\"\n"
      "cat > \"$p/bundle.tar\"\n"
      "s=$(sha256sum \"$p/bundle.tar\" | cut -d' ' -f1)\n"
      "if [ \"$s\" != \"$2\" ]; then\n"
      "  rm -rf \"$p\"\n"
      "  echo \"the copy's sha256 is $s, expected $2 (the transfer was damaged)\" >&2\n"
      "  exit 3\n"
      "fi\n"
      "tar -xf \"$p/bundle.tar\" -C \"$p\"\n"
      "rm -f \"$p/bundle.tar\"\n"
      "if [ ! -x \"$p/loadscope\" ]; then rm -rf \"$p\"; echo 'the bundle has no loadscope' >&2; exit 3; fi\n"
      "echo \"$2\" > \"$p/installed\"\n"
      "rm -rf \"$d\"\n"
      "mv \"$p\" \"$d\"\n"
      "echo \"$d\"\n"
      "\"$d/loadscope\" --version\n";

static gboolean
make_tar (const char *bundle_dir, const char *tar_path, GError **error)
{
  const char *argv[] = { "tar", "-C", bundle_dir, "-cf", tar_path, ".", NULL };
  g_autoptr (GSubprocess) proc = g_subprocess_newv (argv, G_SUBPROCESS_FLAGS_STDERR_PIPE, error);
  g_autofree char *err = NULL;
  if (!proc || !g_subprocess_communicate_utf8 (proc, NULL, NULL, NULL, &err, error))
    return FALSE;
  if (!g_subprocess_get_successful (proc))
    {
      g_set_error (error, LS_REMOTE_ERROR, LS_REMOTE_ERROR_FAILED, _("tar of %s failed: %s"), bundle_dir,
                   err ? g_strstrip (err) : "");
      return FALSE;
    }
  return TRUE;
}

static char *
file_sha256 (const char *path, GError **error)
{
  g_autoptr (GMappedFile) map = g_mapped_file_new (path, FALSE, error);
  if (!map)
    return NULL;
  return g_compute_checksum_for_data (G_CHECKSUM_SHA256, (const guchar *) g_mapped_file_get_contents (map),
                                      g_mapped_file_get_length (map));
}

gboolean
ls_remote_install (const ls_remote_target *target, const char *bundle_dir, FILE *out, GError **error)
{
  g_autofree char *wrapper = g_build_filename (bundle_dir, "loadscope", NULL);
  g_autofree char *binary = g_build_filename (bundle_dir, "bin", "loadscope", NULL);
  if (!g_file_test (wrapper, G_FILE_TEST_IS_REGULAR) || !g_file_test (binary, G_FILE_TEST_IS_REGULAR))
    {
      g_set_error (error, LS_REMOTE_ERROR, LS_REMOTE_ERROR_FAILED,
                   _("%s is not a Loadscope bundle (no loadscope and bin/loadscope in it): make one with "
                   "`bash tests/device/bundle.sh --from BUILD --out DIR --max-mb 0`"),
                   bundle_dir);
      return FALSE;
    }
  g_autofree char *tmp = ls_tmp_dir_make ("loadscope-remote-", error); /* a killed one's: removed */
  if (!tmp)
    return FALSE;
  g_autofree char *tar_path = g_build_filename (tmp, "bundle.tar", NULL);
  gboolean ok = FALSE;
  g_autofree char *sum = NULL;
  if (make_tar (bundle_dir, tar_path, error) && (sum = file_sha256 (tar_path, error)))
    {
      g_autofree char *key = ls_remote_version_key ();
      g_autofree char *script = g_strconcat (ls_remote_script_prelude, install_script, NULL);
      const char *args[] = { key, sum, NULL };
      g_autoptr (GPtrArray) argv = ls_remote_sh_argv (target, script, args);
      fprintf (out, _("remote install: %s: sending %s (sha256 %.16s...) as version %s\n"), target->text, bundle_dir, sum,
               key);
      g_autoptr (GBytes) said = ls_remote_command (target, argv, tar_path, 0, NULL, NULL, error);
      if (said)
        {
          g_autofree char *text = g_bytes_get_size (said) ? g_strndup (g_bytes_get_data (said, NULL), g_bytes_get_size (said))
                                                          : g_strdup ("");
          fprintf (out, _("remote install: %s: installed and checked:\n%s"), target->text, text);
          ok = TRUE;
        }
    }
  ls_tmp_dir_remove (tmp);
  return ok;
}
