/* `loadscope report`: the team-review report of a sweep, a run, some runs
 * or the whole store, as one HTML file or Markdown with PNG charts beside
 * it (app/report/report.h). */
#include "app/cli/cli-report.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "app/core/i18n.h"
#include "app/cli/cli-args.h"
#include "app/cli/cli-store-status.h"
#include "app/report/report.h"
#include "app/store/store-query.h"
#include "platform/fs.h"

#define usage_error(...) ls_cli_usage_error ("report", __VA_ARGS__)

int
ls_cli_report (int argc, char **argv)
{
  g_autoptr (GOptionContext) context = g_option_context_new (_("- one report file for a team review"));
  g_autoptr (GError) error = NULL;
  g_autofree char *db = NULL, *run = NULL, *runs = NULL, *sweep = NULL, *format_name = NULL, *output = NULL;
  gboolean all = FALSE, force = FALSE;
  GOptionEntry entries[] = {
    { "db", 0, 0, G_OPTION_ARG_FILENAME, &db, N_("The run store (default: $XDG_DATA_HOME/loadscope/history.sqlite)"),
      N_("PATH") },
    { "sweep", 0, 0, G_OPTION_ARG_STRING, &sweep, N_("The runs of a sweep (id or uuid prefix)"), N_("ID") },
    { "run", 0, 0, G_OPTION_ARG_STRING, &run, N_("One run (id or uuid prefix)"), N_("ID") },
    { "runs", 0, 0, G_OPTION_ARG_STRING, &runs, N_("Some runs, a comma list (ids or uuid prefixes)"), N_("ID,ID,...") },
    { "all", 0, 0, G_OPTION_ARG_NONE, &all, N_("Every run of the store"), NULL },
    { "format", 0, 0, G_OPTION_ARG_STRING, &format_name,
      N_("html (one self-contained file) or md (Markdown, charts as PNG beside it); default: from FILE's "
      "extension (.md: md), else html"), N_("FORMAT") },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, N_("The file to write"), N_("FILE") },
    { "force", 0, 0, G_OPTION_ARG_NONE, &force, N_("Replace FILE if it exists"), NULL },
    { NULL },
  };
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  g_option_context_set_summary (
      context,
      _("One file a teammate opens in a browser, or pastes into a pull request: the recommendation, the verdict\n"
        "and its findings, the DataLoader(...) line, the charts (the SIMULATED GPU mark where it applies), the\n"
        "runs with the knobs that differ highlighted, each machine (OS, CPU, cores, memory, GPU and driver;\n"
        "Wine marked), the dataset or script, and Loadscope's version and store. Runs from several machines or\n"
        "systems (an imported Windows bundle next to Linux runs) are put side by side: worker start-up by\n"
        "platform and start method, throughput and memory at the same knobs, and what differs in words.\n"
        "\n"
        "html: one file, no network request of any kind (a Content-Security-Policy forbids them), charts inline\n"
        "      as SVG, dark-mode aware, printable, readable without JavaScript (with it, tables sort).\n"
        "md:   Markdown; each chart is written as FILE-STEM-<chart>.png beside it and linked relatively.\n"
        "Text from the store (dataset, script and machine names, which can come from imported bundles) is\n"
        "escaped: it reads as text, never as markup. FILE is replaced in one step: a failure leaves none.\n"
        "\n"
        "Examples:\n"
        "  loadscope report --sweep 3 -o sweep-3.html\n"
        "  loadscope report --runs 12,14,31 --format md -o review.md\n"
        "\n"
        "Exit status: 0 written, 1 FILE could not be written or the store read now (locked), 2 bad usage,\n"
        "no such run or sweep, an empty store, or no store there."));
  if (!ls_cli_parse_args (context, &argc, &argv, &error))
    return usage_error ("%s", error->message);
  if (argc > 1)
    return usage_error ("unexpected argument '%s'", argv[1]);
  if ((run != NULL) + (runs != NULL) + (sweep != NULL) + (all != FALSE) != 1)
    return usage_error ("%s", "say what to report: one of --sweep ID, --run ID, --runs ID,ID,... or --all");
  if (!output)
    return usage_error ("%s", "-o FILE is required (FILE.html, or FILE.md with --format md)");
  if (strcmp (output, "-") == 0)
    return usage_error ("%s", "a report cannot go to stdout: give -o FILE");
  ls_report_format format = g_str_has_suffix (output, ".md") ? LS_REPORT_MARKDOWN : LS_REPORT_HTML;
  if (format_name && !ls_report_format_parse (format_name, &format))
    return usage_error ("--format %s: must be html or md", format_name);
  if (g_file_test (output, G_FILE_TEST_IS_DIR))
    return usage_error ("%s: is a folder; give a file name", output);
  if (g_file_test (output, G_FILE_TEST_EXISTS) && !force)
    return usage_error ("%s: already exists (--force replaces it)", output);
  g_autofree char *folder = g_path_get_dirname (output);
  if (!g_file_test (folder, G_FILE_TEST_IS_DIR))
    {
      fprintf (stderr, _("loadscope report: %s: cannot write it: its folder %s does not exist\n"), output, folder);
      return 1;
    }

  g_autoptr (ls_store) store = ls_store_open_to_read (db, &error);
  if (!store)
    {
      fprintf (stderr, _("loadscope report: %s\n"), error->message);
      return ls_cli_store_error_status (error);
    }
  /* --force -o STORE would replace the store with its own report. */
  static const char *const parts[] = { "", "-wal", "-shm", "-journal" };
  for (guint i = 0; i < G_N_ELEMENTS (parts); i++)
    {
      g_autofree char *part = g_strconcat (ls_store_path (store), parts[i], NULL);
      if (ls_fs_same_file (output, part))
        return usage_error ("%s: is the store being reported on (%s); write the report elsewhere", output,
                            ls_store_path (store));
    }

  ls_report_selection selection = { .sweep = sweep, .run = run, .runs = runs, .all = all };
  g_autoptr (ls_report) report = ls_report_write (store, &selection, format, output, &error);
  if (!report)
    {
      fprintf (stderr, _("loadscope report: %s\n"), error->message);
      return error->domain == LS_STORE_ERROR ? ls_cli_store_error_status (error) : 1;
    }
  g_autofree char *n_runs = g_strdup_printf (ngettext ("%u run", "%u runs", report->runs->len), report->runs->len);
  g_autofree char *n_machines
      = g_strdup_printf (ngettext ("%u machine", "%u machines", report->machines->len), report->machines->len);
  g_autofree char *n_charts = g_strdup_printf (ngettext ("%u chart", "%u charts", report->charts->len), report->charts->len);
  /* TRANSLATORS: wrote the report of TITLE (3 runs on 1 machine, 4 charts[, as PNG files beside it]) to FILE */
  printf (_("wrote the report of %s (%s on %s, %s%s) to %s\n"), report->title, n_runs, n_machines, n_charts,
          format == LS_REPORT_MARKDOWN && report->charts->len ? _(", as PNG files beside it") : "", output);
  if (report->simulated)
    printf (_("runs on the simulated GPU are marked SIMULATED GPU\n"));
  return 0;
}
