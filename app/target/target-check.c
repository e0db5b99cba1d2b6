/* The window's check of a script target and its request knobs
 * (target-check.h). */
#define _DEFAULT_SOURCE /* realpath */
#include "app/target/target-check.h"
#include "app/core/i18n.h"

#include <stdlib.h>
#include <string.h>

static const char *
interpreter (const char *python)
{
  return python && *python ? python : LS_TARGET_DEFAULT_PYTHON;
}

/* The last non-empty line of text (the exception of a traceback). */
static char *
last_line (const char *text)
{
  g_auto (GStrv) lines = g_strsplit (text ? text : "", "\n", -1);
  for (guint n = g_strv_length (lines); n-- > 0;)
    if (*g_strstrip (lines[n]))
      return g_strdup (lines[n]);
  return g_strdup (_("no message"));
}

/* The script as the runner will open it: a regular file it can read. */
static gboolean
check_script (const char *script, GError **error)
{
  if (!script || !*script)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, _("no script chosen"));
      return FALSE;
    }
  if (!g_file_test (script, G_FILE_TEST_EXISTS))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, _("%s: no such file"), script);
      return FALSE;
    }
  if (!g_file_test (script, G_FILE_TEST_IS_REGULAR))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_REGULAR_FILE, _("%s: not a file (choose the script itself)"),
                   script);
      return FALSE;
    }
  g_autoptr (GFile) file = g_file_new_for_path (script);
  g_autoptr (GError) read_error = NULL;
  g_autoptr (GFileInputStream) in = g_file_read (file, NULL, &read_error);
  if (!in)
    {
      g_set_error (error, G_IO_ERROR, read_error->code, _("%s: cannot be read: %s"), script, read_error->message);
      return FALSE;
    }
  return TRUE;
}

/* Runs py with args; FALSE with why it could not run. Its exit status and
 * standard error come back. */
static gboolean
run_python (const char *const *argv, GCancellable *cancellable, int *status, char **out, char **err, GError **error)
{
  g_autoptr (GError) spawn_error = NULL;
  g_autoptr (GSubprocess) p = g_subprocess_newv (argv, G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE,
                                                 &spawn_error);
  if (!p)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, _("Python interpreter %s: %s"), argv[0], spawn_error->message);
      return FALSE;
    }
  if (!g_subprocess_communicate_utf8 (p, NULL, cancellable, out, err, error))
    {
      g_subprocess_force_exit (p);
      return FALSE;
    }
  *status = g_subprocess_get_if_exited (p) ? g_subprocess_get_exit_status (p) : -1;
  return TRUE;
}

/* Whether py imports torch as the probe will (loadscope_probe/__main__.py:
 * without the working folder that -c puts first on sys.path); *out gets
 * its "TORCH_VERSION PYTHON_VERSION CUDA" line (CUDA: 1 when it answers), *why the reason it did not. */
static gboolean
imports_torch (const char *py, char **out, char **why, GCancellable *cancellable, GError **error)
{
  const char *argv[] = { py, "-c",
                         "import sys; del sys.path[0]; import torch; print(torch.__version__, sys.version.split()[0], "
                         "int(bool(getattr(getattr(torch, 'cuda', None), 'is_available', lambda: 0)())))",
                         NULL };
  g_autofree char *err = NULL;
  int status = -1;
  if (!run_python (argv, cancellable, &status, out, &err, error))
    return FALSE;
  if (status != 0)
    *why = last_line (err);
  return TRUE;
}

/* The file a path names, links followed, so one interpreter reached by
 * several names or folders (python3 -> python3.11, /bin -> /usr/bin) is
 * tried once. */
static char *
real_path (const char *path)
{
#ifdef G_OS_WIN32
  return g_canonicalize_filename (path, NULL);
#else
  char *real = realpath (path, NULL);
  char *copy = g_strdup (real ? real : path);
  free (real);
  return copy;
#endif
}

/* At most this many interpreters are tried: each costs a torch import. */
#define MAX_TRIED 12

char *
ls_target_find_python (GCancellable *cancellable, GError **error)
{
  g_autoptr (GPtrArray) paths = g_ptr_array_new_with_free_func (g_free);
  /* An activated environment first, then each folder of PATH in order,
   * each with the usual names (a first python3 without torch, such as a
   * version manager's shim, does not hide the system's that has it). */
  const char *envs[] = { "VIRTUAL_ENV", "CONDA_PREFIX" };
  for (guint i = 0; i < G_N_ELEMENTS (envs); i++)
    if (g_getenv (envs[i]) && *g_getenv (envs[i]))
      g_ptr_array_add (paths, g_build_filename (g_getenv (envs[i]), "bin", "python", NULL));
  const char *names[] = { "python3", "python", "python3.13", "python3.12", "python3.11",
                          "python3.10", "python3.9", "python3.8" };
  g_auto (GStrv) dirs = g_strsplit (g_getenv ("PATH") ? g_getenv ("PATH") : "", G_SEARCHPATH_SEPARATOR_S, -1);
  for (guint d = 0; dirs[d]; d++)
    for (guint i = 0; *dirs[d] && i < G_N_ELEMENTS (names); i++)
      g_ptr_array_add (paths, g_build_filename (dirs[d], names[i], NULL));

  g_autoptr (GPtrArray) tried = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  for (guint i = 0; i < paths->len && tried->len < MAX_TRIED; i++)
    {
      const char *path = g_ptr_array_index (paths, i);
      if (!g_file_test (path, G_FILE_TEST_IS_EXECUTABLE) || g_file_test (path, G_FILE_TEST_IS_DIR)
          || !g_hash_table_add (seen, real_path (path)))
        continue;
      g_autofree char *out = NULL, *why = NULL;
      g_autoptr (GError) run_error = NULL;
      if (!imports_torch (path, &out, &why, cancellable, &run_error))
        {
          if (g_error_matches (run_error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
            {
              g_propagate_error (error, g_steal_pointer (&run_error));
              return NULL;
            }
          g_ptr_array_add (tried, g_strdup_printf ("%s (%s)", path, run_error->message));
          continue;
        }
      if (!why)
        return g_strdup (path);
      g_ptr_array_add (tried, g_strdup_printf ("%s (%s)", path, why));
    }
  if (tried->len == 0)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                           _("no Python interpreter on PATH (looked for python3, python and python3.8 to 3.13): "
                           "choose the one that imports torch"));
      return NULL;
    }
  g_ptr_array_add (tried, NULL);
  g_autofree char *list = g_strjoinv ("; ", (char **) tried->pdata);
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
               _("no Python interpreter on PATH imports torch: choose the one that does (tried %s)"), list);
  return NULL;
}

gboolean
ls_target_pytorch_check (const char *script, const char *python, char **description, char **chosen,
                         gboolean *cuda, GCancellable *cancellable, GError **error)
{
  if (!check_script (script, error))
    return FALSE;
  /* None given: the first interpreter on PATH that imports torch. */
  g_autofree char *searched = NULL;
  if (!python || !*python)
    {
      searched = ls_target_find_python (cancellable, error);
      if (!searched)
        return FALSE;
    }
  const char *py = searched ? searched : interpreter (python);
  /* The interpreter as found: its path is what the messages name. */
  g_autofree char *found = g_find_program_in_path (py);
  g_autofree char *named = found && g_strcmp0 (found, py) != 0 ? g_strdup_printf ("%s (%s)", py, found) : g_strdup (py);

  /* A file that is not Python is refused here, not by every run. */
  int status = -1;
  {
    const char *argv[] = { py, "-c", "import sys; compile(open(sys.argv[1], 'rb').read(), sys.argv[1], 'exec')",
                           script, NULL };
    g_autofree char *out = NULL, *err = NULL;
    if (!run_python (argv, cancellable, &status, &out, &err, error))
      return FALSE;
    if (status != 0)
      {
        g_autofree char *why = last_line (err);
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, _("%s is not a Python script %s can compile: %s"), script,
                     named, why);
        return FALSE;
      }
  }
  /* What the probe does first: import torch. */
  g_autofree char *out = NULL, *why = NULL;
  if (!imports_torch (py, &out, &why, cancellable, error))
    return FALSE;
  if (why)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, _("%s cannot import torch: %s"), named, why);
      return FALSE;
    }
  g_auto (GStrv) versions = g_strsplit (g_strstrip (out), " ", 3);
  gboolean has_cuda = versions[0] && versions[1] && g_strcmp0 (versions[2], "1") == 0;
  g_autofree char *base = g_path_get_basename (script);
  if (description)
    *description = g_strdup_printf (searched ? _("%s: torch %s%s, Python %s (%s, the first on PATH that imports torch)")
                                             : "%s: torch %s%s, Python %s (%s)",
                                    base, versions[0] ? versions[0] : "?", has_cuda ? _(" with CUDA") : _(", CPU only"),
                                    versions[0] && versions[1] ? versions[1] : "?", found ? found : py);
  if (chosen)
    *chosen = g_strdup (found ? found : py);
  if (cuda)
    *cuda = has_cuda;
  return TRUE;
}

typedef struct {
  char *script, *python;
} check_args;

static void
check_args_free (gpointer data)
{
  check_args *a = data;
  g_free (a->script);
  g_free (a->python);
  g_free (a);
}

static void
check_thread (GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
  check_args *a = data;
  char **said = g_new0 (char *, 4); /* the description, the interpreter, "cuda" or "cpu" */
  GError *error = NULL;
  gboolean cuda = FALSE;
  if (ls_target_pytorch_check (a->script, a->python, &said[0], &said[1], &cuda, cancellable, &error))
    {
      said[2] = g_strdup (cuda ? "cuda" : "cpu");
      g_task_return_pointer (task, said, (GDestroyNotify) g_strfreev);
    }
  else
    {
      g_strfreev (said);
      g_task_return_error (task, error);
    }
}

void
ls_target_pytorch_check_async (const char *script, const char *python, GCancellable *cancellable,
                               GAsyncReadyCallback callback, gpointer user_data)
{
  check_args *a = g_new0 (check_args, 1);
  a->script = g_strdup (script);
  a->python = g_strdup (python);
  g_autoptr (GTask) task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_task_data (task, a, check_args_free);
  g_task_set_return_on_cancel (task, TRUE);
  g_task_run_in_thread (task, check_thread);
}

char *
ls_target_pytorch_check_finish (GAsyncResult *result, char **chosen, gboolean *cuda, GError **error)
{
  char **said = g_task_propagate_pointer (G_TASK (result), error);
  if (!said)
    return NULL;
  /* Each of the three freed here: g_strfreev would stop at the first taken. */
  char *description = said[0];
  if (chosen)
    *chosen = said[1];
  else
    g_free (said[1]);
  if (cuda)
    *cuda = g_strcmp0 (said[2], "cuda") == 0;
  g_free (said[2]);
  g_free (said);
  return description;
}

gboolean
ls_target_pytorch_request (ls_sweep_request *request, const char *script, const char *python,
                           const char *script_args, int loader, GError **error)
{
  if (script_args && *script_args)
    {
      g_auto (GStrv) args = NULL;
      g_autoptr (GError) parse_error = NULL;
      if (!g_shell_parse_argv (script_args, NULL, &args, &parse_error))
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, _("the script's arguments %s: %s"), script_args,
                       parse_error->message);
          return FALSE;
        }
    }
  if (loader < 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, _("loader index %d: must not be negative"), loader);
      return FALSE;
    }
  /* The names `loadscope sweep` takes, through the same setter. */
  char index[16];
  g_snprintf (index, sizeof index, "%d", loader);
  struct {
    const char *name, *value;
  } knobs[] = { { "target", "pytorch" }, { "script", script }, { "python", interpreter (python) },
                { "script-args", script_args && *script_args ? script_args : NULL },
                { "loader", loader > 0 ? index : NULL } };
  for (guint i = 0; i < G_N_ELEMENTS (knobs); i++)
    if (knobs[i].value && !ls_sweep_request_set_text (request, knobs[i].name, knobs[i].value, error))
      return FALSE;
  return TRUE;
}
