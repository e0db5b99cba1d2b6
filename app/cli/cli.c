#include "app/cli/cli.h"

#include <glib.h>
#include <stdio.h>
#include <string.h>

#include "app/core/i18n.h"
#include "app/cli/cli-compare.h"
#include "app/cli/cli-demo.h"
#include "app/cli/cli-export.h"
#include "app/cli/cli-history.h"
#include "app/cli/cli-import.h"
#include "app/cli/cli-machine.h"
#include "app/cli/cli-make-dataset.h"
#include "app/cli/cli-remote.h"
#include "app/cli/cli-report.h"
#include "app/cli/cli-run.h"
#include "app/cli/cli-show.h"
#include "app/cli/cli-sweep.h"
#include "app/cli/cli-tune.h"
#include "app/cli/cli-whatif.h"
#include "app/core/run-options.h"

typedef struct {
  const char *name;
  /* A command line as typed, marked with the context "synopsis": a
   * translation changes only its placeholders (PATH, RUN, FILE, [knobs]),
   * never a command or an option. */
  const char *synopsis;
  const char *summary;
  int (*run) (int argc, char **argv); /* NULL: described here, built by a later part */
} ls_command;

static const ls_command commands[] = {
  { "run", NC_ ("synopsis", "run --dataset PATH [knobs]"), N_("one measured run of the loader (see run --help)"), ls_cli_run },
  { "sweep", NC_ ("synopsis", "sweep --dataset PATH --workers 0,1,2 ..."), N_("every combination of knobs given as lists, recorded"),
    ls_cli_sweep },
  { "history", NC_ ("synopsis", "history [--sweep ID] [--json]"), N_("the recorded runs, newest first, one line each"), ls_cli_history },
  { "show", NC_ ("synopsis", "show RUN [--json]"), N_("everything recorded about one run: knobs, machine, figures, workers"),
    ls_cli_show },
  { "compare", NC_ ("synopsis", "compare RUN RUN... [--json]"), N_("headline figures side by side, in per cent of the first run"),
    ls_cli_compare },
  { "export", NC_ ("synopsis", "export --run|--sweep|--all --format F -o FILE"),
    N_("runs to csv, json, a sqlite bundle, or charts (png, svg, pdf)"), ls_cli_export },
  { "report", NC_ ("synopsis", "report --sweep ID ... -o FILE"),
    N_("one file for a team review: HTML (self-contained) or Markdown with the charts"), ls_cli_report },
  { "import", NC_ ("synopsis", "import FILE"), N_("merge a bundle or JSON export from another machine, checked first"), ls_cli_import },
  { "make-dataset", NC_ ("synopsis", "make-dataset --format F --count N OUT"),
    N_("write a sample dataset: jpeg-dir, hdf5 or hdf5-jpeg (see make-dataset --help)"), ls_cli_make_dataset },
  { "demo", "demo", N_("the headless default: a sample dataset, a sweep and a recommendation"), ls_cli_demo },
  { "whatif", NC_ ("synopsis", "whatif --run ID [--workers N] [--gpu-speed K] ..."),
    N_("predict a recorded run with other knobs (a model fitted to it and its sweep)"), ls_cli_whatif },
  { "tune", NC_ ("synopsis", "tune --dataset PATH [--memory-budget 4G] ..."),
    N_("the best workers, prefetch, pin and persistence within budgets, measured"), ls_cli_tune },
  { "remote", NC_ ("synopsis", "remote install|collect TARGET"), N_("a GPU server (ssh:HOST) or a container (exec:COMMAND) for --on"),
    ls_cli_remote },
  { "machine", "machine", N_("describe this machine (cores, memory, OS, CPU) as runs will record it"), ls_cli_machine },
};

static void
print_usage (FILE *to)
{
  fputs (_("Usage: loadscope COMMAND [OPTIONS]\n"
           "\n"
           "Loadscope runs a multi-process data loader with PyTorch DataLoader's knobs over\n"
           "real data into a GPU consumer, sweeps the knobs, records every run and plots\n"
           "GPU utilization, batch latency and memory against them.\n"
           "\n"
           "Commands:\n"),
         to);
  /* Each synopsis padded to 36 display columns (a translated placeholder
   * may be wide), as printf's %-36s pads ASCII. */
  for (size_t i = 0; i < G_N_ELEMENTS (commands); i++)
    {
      const char *synopsis = g_dpgettext2 (GETTEXT_PACKAGE, "synopsis", commands[i].synopsis);
      fprintf (to, "  %s", synopsis);
      for (gsize k = ls_i18n_display_width (synopsis); k < 36; k++)
        fputc (' ', to);
      fprintf (to, " %s\n", _(commands[i].summary));
    }
  g_autofree char *defaults = ls_run_defaults_text ();
  fprintf (to,
           _("\n"
             "Options:\n"
             "  -h, --help     show this help\n"
             "  --version      show the version\n"
             "\n"
             "Every run, sweep and demo starts from the same knobs unless told otherwise:\n"
             "workers %d, %s.\n"
             "\n"
             "`loadscope COMMAND --help` describes each command's options.\n"),
           LS_RUN_DEFAULT_WORKERS, defaults);
}

int
ls_cli_main (int argc, char **argv)
{
  if (argc < 2 || strcmp (argv[1], "--help") == 0 || strcmp (argv[1], "-h") == 0 || strcmp (argv[1], "help") == 0)
    {
      print_usage (stdout);
      return argc < 2 ? 2 : 0;
    }
  if (strcmp (argv[1], "--version") == 0)
    {
      printf ("loadscope %s\n", LS_VERSION);
      return 0;
    }
  for (size_t i = 0; i < G_N_ELEMENTS (commands); i++)
    if (strcmp (argv[1], commands[i].name) == 0)
      return commands[i].run (argc - 1, argv + 1);

  fprintf (stderr, _("loadscope: unknown command '%s'\n\n"), argv[1]);
  print_usage (stderr);
  return 2;
}
