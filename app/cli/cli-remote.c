/* `loadscope remote`: install the runner's bundle on a target machine,
 * collect the runs a dropped connection left there, print this build's
 * version key. Runs themselves go through `run --on` and `sweep --on`. */
#include "app/cli/cli-remote.h"
#include "app/core/i18n.h"
#include "app/cli/cli-args.h"

#include <stdio.h>
#include <string.h>

#include "app/core/tmp-dir.h"
#include "app/remote/remote.h"
#include "app/target/target-pytorch.h"
#include "platform/process.h"

static int
usage (FILE *to, int code)
{
  fprintf (to, _("Usage:\n"
                 "  loadscope remote install TARGET [--bundle DIR]   copy the runner's bundle to the target, checked\n"
                 "  loadscope remote collect TARGET [--db PATH]     bring home the runs a dropped connection left there\n"
                 "  loadscope remote key                            this build's version key (the folder it installs to)\n"
                 "\n"
                 "TARGET is ssh:HOST (anything ssh accepts, ~/.ssh/config aliases too; ssh does the connecting\n"
                 "with BatchMode, so a password prompt is an error) or exec:COMMAND, a prefix that runs a\n"
                 "program inside a container and passes stdin and stdout (exec:docker exec -i NAME).\n"
                 "Without --bundle (or $LOADSCOPE_REMOTE_BUNDLE) the bundle is made from this installation\n"
                 "first (tests/device/bundle.sh, installed in libexec/loadscope). Then:\n"
                 "loadscope sweep --on TARGET --dataset PATH-THERE ...\n"));
  return code;
}

/* `remote wait-runner PIDFILE NAME`, run on the target by the fetch of a
 * run's store: waits (at most 30 s) while the runner the pid file names
 * still runs with NAME (its store's) in its command line, so the store is
 * exported only once the runner is done with it. A pid file that is
 * missing or holds no pid: nothing to wait for. */
static int
wait_runner (const char *pid_file, const char *name)
{
  g_autofree char *text = NULL;
  gsize len = 0;
  guint64 pid = 0;
  if (!g_file_get_contents (pid_file, &text, &len, NULL) || len > 32)
    return 0;
  if (!g_ascii_string_to_unsigned (g_strstrip (text), 10, 1, G_MAXINT32, &pid, NULL))
    return 0;
  for (int i = 0; i < 150 && ls_process_is_alive ((gint64) pid, name); i++)
    g_usleep (200 * 1000);
  return 0;
}

int
ls_cli_remote (int argc, char **argv)
{
  g_autoptr (GError) error = NULL;
  char *bundle = NULL, *db = NULL;
  char *made = NULL, *tmp = NULL; /* a bundle made here, and its folder */
  GOptionEntry entries[] = {
    { "bundle", 0, 0, G_OPTION_ARG_FILENAME, &bundle, N_("The bundle folder (tests/device/bundle.sh)"), N_("DIR") },
    { "db", 0, 0, G_OPTION_ARG_FILENAME, &db, N_("The local run store"), N_("PATH") },
    { NULL },
  };
  g_autoptr (GOptionContext) context = g_option_context_new (_("install|collect|key [TARGET]"));
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  g_option_context_set_help_enabled (context, FALSE);
  int code = 2;
  g_autoptr (ls_remote_target) target = NULL;

  if (argc == 4 && strcmp (argv[1], "wait-runner") == 0)
    return wait_runner (argv[2], argv[3]);
  for (int i = 1; i < argc; i++)
    if (strcmp (argv[i], "--help") == 0 || strcmp (argv[i], "-h") == 0)
      return usage (stdout, 0);
  char **args = argv;
  if (!ls_cli_parse_args (context, &argc, &args, &error))
    {
      code = ls_cli_usage_error ("remote", "%s", error->message);
      goto out;
    }
  if (argc >= 2 && strcmp (args[1], "key") == 0 && argc == 2)
    {
      g_autofree char *key = ls_remote_version_key ();
      printf ("%s\n", key);
      code = 0;
      goto out;
    }
  if (argc != 3 || (strcmp (args[1], "install") != 0 && strcmp (args[1], "collect") != 0))
    {
      code = usage (stderr, 2);
      goto out;
    }
  target = ls_remote_target_parse (args[2], &error);
  if (!target)
    {
      code = ls_cli_usage_error ("remote", "%s", error->message);
      goto out;
    }
  if (strcmp (args[1], "collect") == 0)
    {
      code = ls_remote_collect (target, db, stdout);
      goto out;
    }
  const char *dir = bundle ? bundle : g_getenv ("LOADSCOPE_REMOTE_BUNDLE");
  if (!dir || !*dir)
    {
      /* None given: made from this installation, then sent. */
      g_autofree char *probe = NULL;
      if ((probe = ls_target_probe_dir (&error)) && (tmp = ls_tmp_dir_make ("loadscope-bundle-", &error)))
        {
          made = g_build_filename (tmp, "bundle", NULL);
          printf (_("remote install: making the bundle of this installation in %s\n"), made);
          fflush (stdout);
          if (!ls_remote_make_bundle (made, probe, &error))
            g_clear_pointer (&made, g_free);
        }
      if (!made)
        {
          fprintf (stderr, _("loadscope remote install: %s\n"), error->message);
          goto out;
        }
      dir = made;
    }
  if (!ls_remote_install (target, dir, stdout, &error))
    {
      fprintf (stderr, _("loadscope remote install: %s\n"), error->message);
      code = error->domain == LS_REMOTE_ERROR && error->code == LS_REMOTE_ERROR_FAILED ? 1 : 2;
      goto out;
    }
  code = 0;
out:
  if (tmp)
    ls_tmp_dir_remove (tmp);
  g_free (tmp);
  g_free (made);
  g_free (bundle);
  g_free (db);
  return code;
}
