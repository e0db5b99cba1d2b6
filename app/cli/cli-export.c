#include "app/cli/cli-export.h"
#include "app/core/i18n.h"
#include "app/cli/cli-args.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "app/cli/cli-export-chart.h"
#include "app/file/file-replace.h"
#include "app/cli/cli-store-status.h"
#include "app/store/export.h"
#include "app/store/import-input.h"
#include "app/store/store-query.h"
#include "platform/fs.h"

#define usage_error(...) ls_cli_usage_error ("export", __VA_ARGS__)


int
ls_cli_export (int argc, char **argv)
{
  g_autoptr (GOptionContext) context = g_option_context_new (_("- write recorded runs to a file"));
  g_autoptr (GError) error = NULL;
  g_autofree char *db = NULL;
  g_autofree char *run = NULL;
  g_autofree char *sweep = NULL;
  g_autofree char *format = NULL;
  g_autofree char *output = NULL;
  g_autofree char *chart = NULL;
  gboolean all = FALSE, batches = FALSE, force = FALSE, dark = FALSE, per_machine = FALSE;
  int width = 0, height = 0;
  GOptionEntry entries[] = {
    { "db", 0, 0, G_OPTION_ARG_FILENAME, &db, N_("The run store (default: $XDG_DATA_HOME/loadscope/history.sqlite)"),
      N_("PATH") },
    { "run", 0, 0, G_OPTION_ARG_STRING, &run, N_("One run (id or uuid prefix)"), N_("ID") },
    { "sweep", 0, 0, G_OPTION_ARG_STRING, &sweep, N_("The runs of a sweep (id or uuid prefix)"), N_("ID") },
    { "all", 0, 0, G_OPTION_ARG_NONE, &all, N_("Every run of the store"), NULL },
    { "format", 0, 0, G_OPTION_ARG_STRING, &format, N_("csv, json, sqlite, or charts: png, svg or pdf"), N_("FORMAT") },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, N_("The file to write (csv and json: - for stdout)"), N_("FILE") },
    { "batches", 0, 0, G_OPTION_ARG_NONE, &batches, N_("csv: one row per batch instead of one per run"), NULL },
    { "force", 0, 0, G_OPTION_ARG_NONE, &force, N_("Replace FILE if it exists"), NULL },
    { "chart", 0, 0, G_OPTION_ARG_STRING, &chart,
      N_("Charts: which (comma list; default: all of them on one page)"), N_("NAME") },
    { "width", 0, 0, G_OPTION_ARG_INT, &width, N_("Charts: page width, pixels (svg, pdf: points)"), "W" },
    { "height", 0, 0, G_OPTION_ARG_INT, &height, N_("Charts: page height"), "H" },
    { "dark", 0, 0, G_OPTION_ARG_NONE, &dark, N_("Charts: the dark theme"), NULL },
    { "per-machine", 0, 0, G_OPTION_ARG_NONE, &per_machine,
      N_("Sweep charts: one series per machine too (a sweep run on several nodes)"), NULL },
    { NULL },
  };

  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  g_autofree char *summary = g_strdup_printf (
      _("csv:    one row per run: every knob, the headline figures and the machine\n"
        "        (--batches: run_id,seq,epoch,batch,samples,ready_ms,wait_ms,copy_ms,compute_ms)\n"
        "json:   {\"format\":\"loadscope-export\",\"version\":N,...,\"machines\":[...],\"sweeps\":[...],\n"
        "        \"runs\":[{every field, \"batches\":[...],\"series\":[...],\"worker_processes\":[...]}]}\n"
        "sqlite: a self-contained store holding only these runs, for `loadscope import`\n"
        "png, svg, pdf: charts on one page (default 1280 x 800 for one, 560 high per chart)\n"
        "        --sweep ID [--chart %s]\n"
        "        --run ID   [--chart %s]\n"
        "        --all      [--chart %s]  (worker start-up by platform and start method;\n"
        "                   target: Loadscope's loader vs PyTorch scripts, throughput by workers)\n"
        "        charts of runs on the simulated GPU carry a SIMULATED GPU mark\n"
        "\n"
        "Exit status: 0 written, 1 the store could not be read now (locked) or FILE written, 2 bad usage,\n"
        "no such run or sweep, or no store there (a missing file, not a Loadscope store, a newer one)."),
      LS_CHARTS_OF_SWEEP, LS_CHARTS_OF_RUN, LS_CHARTS_OF_ALL);
  g_option_context_set_summary (context, summary);
  if (!ls_cli_parse_args (context, &argc, &argv, &error))
    return usage_error ("%s", error->message);
  if (argc > 1)
    return usage_error ("unexpected argument '%s'", argv[1]);
  if ((run != NULL) + (sweep != NULL) + (all != FALSE) != 1)
    return usage_error ("%s", "say what to export: one of --run ID, --sweep ID or --all");
  if (!format)
    return usage_error ("%s", "--format is required: csv, json, sqlite, png, svg or pdf");
  gboolean charts = strcmp (format, "png") == 0 || strcmp (format, "svg") == 0 || strcmp (format, "pdf") == 0;
  if (!charts && strcmp (format, "csv") != 0 && strcmp (format, "json") != 0 && strcmp (format, "sqlite") != 0)
    return usage_error ("--format %s: must be csv, json, sqlite, png, svg or pdf", format);
  if (!charts && per_machine)
    return usage_error ("%s", "--per-machine is for charts: --format png, svg or pdf");
  if (per_machine && !sweep)
    return usage_error ("%s", "--per-machine is for the charts of a sweep (--sweep ID)");
  if (!charts && (chart || width || height || dark))
    return usage_error ("%s", "--chart, --width, --height and --dark are for charts: --format png, svg or pdf");
  if (charts && (width < 0 || height < 0))
    return usage_error ("%s", "--width and --height must be positive");
  if (batches && strcmp (format, "csv") != 0)
    return usage_error ("%s", "--batches is for --format csv (json and sqlite exports always hold the batches)");
  if (!output)
    return usage_error ("%s", "-o FILE is required");
  gboolean to_stdout = strcmp (output, "-") == 0;
  if (to_stdout && strcmp (format, "sqlite") == 0)
    return usage_error ("%s", "a sqlite bundle cannot go to stdout: give -o FILE");
  if (to_stdout && charts)
    return usage_error ("%s", "charts cannot go to stdout: give -o FILE");
  if (!to_stdout && g_file_test (output, G_FILE_TEST_EXISTS))
    {
      if (!force)
        return usage_error ("%s: already exists (--force replaces it)", output);
      if (g_file_test (output, G_FILE_TEST_IS_DIR))
        return usage_error ("%s: is a folder", output);
    }

  if (charts)
    {
      ls_chart_export_request req = { db, run, sweep, all, chart, format, output, width, height, dark, per_machine };
      return ls_cli_export_charts (&req);
    }

  g_autoptr (ls_store) store = ls_store_open_to_read (db, &error);
  g_autoptr (GArray) ids = store ? ls_store_select_runs (store, run, sweep, &error) : NULL;
  if (!ids)
    {
      fprintf (stderr, _("loadscope export: %s\n"), error->message);
      return ls_cli_store_error_status (error);
    }
  /* `-o S --force --db S` would replace the store with its own export. */
  if (!to_stdout)
    {
      static const char *const parts[] = { "", "-wal", "-shm", "-journal" };
      for (guint i = 0; i < G_N_ELEMENTS (parts); i++)
        {
          g_autofree char *part = g_strconcat (ls_store_path (store), parts[i], NULL);
          if (ls_fs_same_file (output, part))
            return usage_error ("%s: is the store being exported (%s); write the export elsewhere", output,
                                ls_store_path (store));
        }
    }

  if (strcmp (format, "sqlite") == 0)
    {
      /* Written beside FILE under another name, then renamed over it:
       * FILE is the old one or the whole new one, never a part. */
      if (!ls_export_sqlite_replacing (store, ids, output, &error))
        {
          fprintf (stderr, _("loadscope export: %s\n"), error->message);
          return 1;
        }
    }
  else
    {
      g_autoptr (GString) text = g_string_new (NULL);
      if (strcmp (format, "json") == 0)
        {
          g_autoptr (JsonNode) root = ls_export_json (store, ids, &error);
          if (root)
            {
              g_autoptr (JsonGenerator) gen = json_generator_new ();
              json_generator_set_root (gen, root);
              json_generator_to_gstring (gen, text);
              g_string_truncate (text, ls_json_text_repair_numbers (text->str, text->len)); /* "1e-300.0" */
              g_string_append_c (text, '\n');
            }
        }
      else if (batches)
        ls_export_csv_batches (store, ids, text, &error);
      else
        ls_export_csv_runs (store, ids, text, &error);
      if (error)
        {
          fprintf (stderr, _("loadscope export: %s\n"), error->message);
          return 1;
        }
      if (to_stdout)
        {
          fwrite (text->str, 1, text->len, stdout);
          return fflush (stdout) == 0 ? 0 : 1;
        }
      if (!ls_file_replace (output, text->str, text->len, &error))
        {
          fprintf (stderr, _("loadscope export: %s\n"), error->message);
          return 1;
        }
    }
  printf (ngettext ("exported %u run to %s\n", "exported %u runs to %s\n", ids->len), ids->len, output);
  return 0;
}
