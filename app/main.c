/* The composition root: the only place that joins app/ with ui/.
 *
 * `loadscope COMMAND ...` runs a command; `loadscope` alone opens the
 * workbench where a display exists, and otherwise says how to run the
 * headless default. */
#include <stdio.h>
#include <string.h>

#include <glib.h>

#include "app/cli/cli-args.h"
#include "app/cli/cli.h"
#include "app/core/i18n.h"

#ifdef LS_HAVE_GUI
#include "ui/ls-application.h"
#endif

static gboolean
have_display (void)
{
#ifdef G_OS_WIN32
  return TRUE; /* a Windows session always has its desktop */
#else
  const char *x = g_getenv ("DISPLAY"), *w = g_getenv ("WAYLAND_DISPLAY");
  return (x && *x) || (w && *w);
#endif
}

int
main (int argc, char **argv)
{
  ls_i18n_init (ls_i18n_machine_output (argc, argv));
  argv = ls_cli_utf8_argv (&argc, argv);
  if (argc >= 2)
    return ls_cli_main (argc, argv);
#ifdef LS_HAVE_GUI
  if (have_display ())
    return ls_ui_main (argc, argv);
  fprintf (stderr, _("loadscope: no display, so no workbench. The headless default is `loadscope demo`;\n"
                   "`loadscope --help` lists every command.\n"));
#else
  (void) have_display;
  fprintf (stderr, _("loadscope: this build has no workbench (GTK 4 and libadwaita were not found).\n"
                   "The headless default is `loadscope demo`; `loadscope --help` lists every command.\n"));
#endif
  return 2;
}
