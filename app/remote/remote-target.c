/* Targets: parsing, the argv that reaches them, the version key, and one
 * command run to its end. */
#include "app/remote/remote.h"
#include "app/core/i18n.h"

#include <string.h>

#include "app/core/worker-path.h"

G_DEFINE_QUARK (loadscope-remote-error-quark, ls_remote_error)

/* Where the bundle is on the target, and the check that it is there
 * (exit 97 lists the versions that are). */
const char ls_remote_script_prelude[]
    = "set -u\n"
      "base=${LOADSCOPE_REMOTE_CACHE:-}\n"
      "if [ -z \"$base\" ]; then\n"
      "  [ -n \"${HOME:-}\" ] || { echo 'loadscope-remote: HOME is not set on the target' >&2; exit 96; }\n"
      "  base=$HOME/.cache/loadscope/remote\n"
      "fi\n"
      "d=$base/$1\n"
      "need_bundle () {\n"
      "  if [ ! -x \"$d/loadscope\" ] || [ ! -f \"$d/installed\" ]; then\n"
      "    echo \"loadscope-remote-missing: $(ls \"$base\" 2>/dev/null | tr '\\n' ' ')\" >&2\n"
      "    exit 97\n"
      "  fi\n"
      "}\n";

ls_remote_target *
ls_remote_target_parse (const char *text, GError **error)
{
  g_autoptr (ls_remote_target) t = g_new0 (ls_remote_target, 1);
  t->text = g_strdup (text ? text : "");
  if (text && g_str_has_prefix (text, "ssh:"))
    {
      t->kind = LS_REMOTE_SSH;
      t->host = g_strdup (text + 4);
      /* A host starting with '-' would be read by ssh as an option. */
      if (!*t->host || t->host[0] == '-' || strpbrk (t->host, " \t\r\n"))
        {
          g_set_error (error, LS_REMOTE_ERROR, LS_REMOTE_ERROR_TARGET,
                       _("--on %s: give a host after ssh: (a name, user@host or a ~/.ssh/config alias), without "
                       "spaces or a leading '-'"),
                       text);
          return NULL;
        }
      return g_steal_pointer (&t);
    }
  if (text && g_str_has_prefix (text, "exec:"))
    {
      g_autoptr (GError) why = NULL;
      t->kind = LS_REMOTE_EXEC;
#ifdef G_OS_WIN32
      /* A Windows path's backslashes (exec:C:\tools\enter.exe) are kept as
       * typed, not read as a POSIX shell's escapes; quote with "..." there. */
      g_auto (GStrv) parts = g_strsplit (text + 5, "\\", -1);
      g_autofree char *command = g_strjoinv ("\\\\", parts);
#else
      const char *command = text + 5;
#endif
      if (!g_shell_parse_argv (command, NULL, &t->prefix, &why))
        {
          g_set_error (error, LS_REMOTE_ERROR, LS_REMOTE_ERROR_TARGET,
                       _("--on %s: the command after exec: cannot be split into arguments (%s)"), text,
                       why->message);
          return NULL;
        }
      return g_steal_pointer (&t);
    }
  g_set_error (error, LS_REMOTE_ERROR, LS_REMOTE_ERROR_TARGET,
               _("--on %s: not a target: give ssh:HOST (a GPU server, through ssh) or exec:COMMAND (a command prefix "
               "that runs a program inside a container, such as exec:docker exec -i NAME)"),
               text ? text : "");
  return NULL;
}

void
ls_remote_target_free (ls_remote_target *target)
{
  if (!target)
    return;
  g_free (target->text);
  g_free (target->host);
  g_strfreev (target->prefix);
  g_free (target);
}

char *
ls_remote_quote (const char *s)
{
  GString *q = g_string_new ("'");
  for (const char *p = s; *p; p++)
    {
      if (*p == '\'')
        g_string_append (q, "'\\''");
      else
        g_string_append_c (q, *p);
    }
  g_string_append_c (q, '\'');
  return g_string_free (q, FALSE);
}

GPtrArray *
ls_remote_argv (const ls_remote_target *target, const char *const *remote_argv)
{
  GPtrArray *argv = g_ptr_array_new_with_free_func (g_free);
  if (target->kind == LS_REMOTE_SSH)
    {
      const char *ssh = g_getenv ("LOADSCOPE_SSH");
      g_ptr_array_add (argv, g_strdup (ssh && *ssh ? ssh : "ssh"));
      /* No terminal; no prompt: a password or passphrase asked for is an
       * error that ssh reports, never something typed here. */
      g_ptr_array_add (argv, g_strdup ("-T"));
      g_ptr_array_add (argv, g_strdup ("-o"));
      g_ptr_array_add (argv, g_strdup ("BatchMode=yes"));
      g_ptr_array_add (argv, g_strdup ("-o"));
      g_ptr_array_add (argv, g_strdup ("ConnectTimeout=20"));
      /* A target that stops answering mid-sweep (a dropped link, a host
       * that froze) ends the connection in about a minute, not never:
       * the runs finished so far stay recorded, the current one is
       * marked interrupted. */
      g_ptr_array_add (argv, g_strdup ("-o"));
      g_ptr_array_add (argv, g_strdup ("ServerAliveInterval=15"));
      g_ptr_array_add (argv, g_strdup ("-o"));
      g_ptr_array_add (argv, g_strdup ("ServerAliveCountMax=4"));
      const char *more = g_getenv ("LOADSCOPE_SSH_OPTIONS");
      g_auto (GStrv) extra = NULL;
      if (more && *more && g_shell_parse_argv (more, NULL, &extra, NULL))
        for (guint i = 0; extra[i]; i++)
          g_ptr_array_add (argv, g_strdup (extra[i]));
      g_ptr_array_add (argv, g_strdup (target->host));
      g_ptr_array_add (argv, g_strdup ("--"));
      /* ssh joins these into one line for the remote shell: each is quoted. */
      for (guint i = 0; remote_argv[i]; i++)
        g_ptr_array_add (argv, ls_remote_quote (remote_argv[i]));
    }
  else
    {
      for (guint i = 0; target->prefix[i]; i++)
        g_ptr_array_add (argv, g_strdup (target->prefix[i]));
      for (guint i = 0; remote_argv[i]; i++)
        g_ptr_array_add (argv, g_strdup (remote_argv[i]));
    }
  g_ptr_array_add (argv, NULL);
  return argv;
}

GPtrArray *
ls_remote_sh_argv (const ls_remote_target *target, const char *script, const char *const *args)
{
  g_autoptr (GPtrArray) remote = g_ptr_array_new ();
  g_ptr_array_add (remote, (char *) "sh");
  g_ptr_array_add (remote, (char *) "-c");
  g_ptr_array_add (remote, (char *) script);
  g_ptr_array_add (remote, (char *) "sh"); /* $0 */
  for (guint i = 0; args && args[i]; i++)
    g_ptr_array_add (remote, (char *) args[i]);
  g_ptr_array_add (remote, NULL);
  return ls_remote_argv (target, (const char *const *) remote->pdata);
}

char *
ls_remote_version_key (void)
{
  return ls_remote_version_key_of (NULL);
}

char *
ls_remote_version_key_of (const char *exe)
{
  g_autofree char *self = exe && *exe ? g_strdup (exe) : ls_self_exe_path ();
  g_autofree char *contents = NULL;
  gsize len = 0;
  g_autofree char *sum = NULL;
  if (self && g_file_get_contents (self, &contents, &len, NULL))
    sum = g_compute_checksum_for_data (G_CHECKSUM_SHA256, (const guchar *) contents, len);
  return g_strdup_printf ("%s-%.16s", LS_VERSION, sum ? sum : "unknown");
}

char *
ls_remote_transport_failure (const ls_remote_target *target, int exit_status, const char *stderr_text)
{
  g_autofree char *said = g_strstrip (g_strdup (stderr_text ? stderr_text : ""));
  g_autofree char *key = ls_remote_version_key ();
  if (exit_status == 97)
    {
      const char *have = strstr (said, "loadscope-remote-missing:");
      g_autofree char *others = g_strstrip (g_strdup (have ? have + strlen ("loadscope-remote-missing:") : ""));
      char *nl = strchr (others, '\n');
      if (nl)
        *nl = '\0';
      return g_strdup_printf (_("%s has no Loadscope %s installed%s%s%s: run `loadscope remote install %s`"),
                              target->text, key, *others ? _(" (it has ") : "", others, *others ? ")" : "",
                              target->text);
    }
  if (exit_status == 96)
    return g_strdup_printf (_("%s: HOME is not set on the target: set LOADSCOPE_REMOTE_CACHE there, or HOME"),
                            target->text);
  if (target->kind == LS_REMOTE_SSH && exit_status == 255)
    return g_strdup_printf (_("could not reach %s through ssh (exit status 255)%s%s; ssh runs with BatchMode=yes, so a "
                            "password or passphrase prompt is an error: use a key (ssh-agent, ~/.ssh/config)"),
                            target->host, *said ? ": " : "", said);
  if (exit_status == 126 || exit_status == 127)
    return g_strdup_printf (_("%s: the command could not be started there (exit status %d)%s%s"), target->text,
                            exit_status, *said ? ": " : "", said);
  return g_strdup_printf (_("%s: exit status %d%s%s"), target->text, exit_status, *said ? ": " : "", said);
}
