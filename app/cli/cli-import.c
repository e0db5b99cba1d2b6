#include "app/cli/cli-import.h"
#include "app/core/i18n.h"
#include "app/cli/cli-args.h"

#include <json-glib/json-glib.h>
#include <stdio.h>

#include "app/store/import.h"
#include "app/store/store.h"
#include "app/core/terminal-text.h"

static void
print_json (const char *file, const ls_import_counts *counts, GArray *runs)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "file");
  json_builder_add_string_value (b, file);
  json_builder_set_member_name (b, "runs_imported");
  json_builder_add_int_value (b, counts->runs_imported);
  json_builder_set_member_name (b, "runs_present");
  json_builder_add_int_value (b, counts->runs_present);
  json_builder_set_member_name (b, "machines_added");
  json_builder_add_int_value (b, counts->machines_added);
  json_builder_set_member_name (b, "sweeps_added");
  json_builder_add_int_value (b, counts->sweeps_added);
  json_builder_set_member_name (b, "runs");
  json_builder_begin_array (b);
  for (guint i = 0; i < runs->len; i++)
    {
      const ls_import_run *r = &g_array_index (runs, ls_import_run, i);
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "run_id");
      json_builder_add_int_value (b, r->local_id);
      json_builder_set_member_name (b, "uuid");
      json_builder_add_string_value (b, r->uuid);
      json_builder_set_member_name (b, "status");
      json_builder_add_string_value (b, r->present ? "present" : "imported");
      json_builder_set_member_name (b, "source_run_id");
      if (r->source_id > 0)
        json_builder_add_int_value (b, r->source_id);
      else
        json_builder_add_null_value (b);
      json_builder_set_member_name (b, "source_host");
      json_builder_add_string_value (b, r->source_host ? r->source_host : "");
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_builder_end_object (b);
  g_autoptr (JsonNode) root = json_builder_get_root (b);
  g_autofree char *text = json_to_string (root, TRUE);
  g_autofree char *shown = ls_terminal_json (text);
  printf ("%s\n", shown);
}

int
ls_cli_import (int argc, char **argv)
{
  g_autoptr (GOptionContext) context = g_option_context_new (_("FILE - merge runs recorded elsewhere into the store"));
  g_autoptr (GError) error = NULL;
  g_autofree char *db = NULL;
  ls_import_counts counts;
  gboolean json = FALSE;
  GOptionEntry entries[] = {
    { "db", 0, 0, G_OPTION_ARG_FILENAME, &db, N_("The run store (default: $XDG_DATA_HOME/loadscope/history.sqlite)"),
      N_("PATH") },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json,
      N_("Print one JSON object: the counts and every run of the file with its id here"), NULL },
    { NULL },
  };

  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  g_autofree char *summary = g_strdup_printf (
      _("FILE is a sqlite bundle or a JSON export (`loadscope export --format sqlite|json`)\n"
        "from this or another machine. Every field is checked first; runs already in the\n"
        "store (the same uuid) are kept once, machines keep their own description, and a\n"
        "run still running when exported arrives as interrupted. Any error imports nothing.\n"
        "Each run is listed with its id in this store (and in the bundle it came from).\n"
        "CSV exports do not import: %s.\n"
        "\n"
        "Exit status: 0 imported, 1 the store could not be written, 2 bad usage or a bad FILE."),
      LS_IMPORT_FORMATS_TEXT);
  g_option_context_set_summary (context, summary);
  if (!ls_cli_parse_args (context, &argc, &argv, &error))
    {
      fprintf (stderr, _("loadscope import: %s\n"), error->message);
      return 2;
    }
  if (argc != 2)
    {
      fprintf (stderr, _("loadscope import: %s\n"), argc < 2 ? _("which file? (a .sqlite bundle or a .json export)")
                                                           : _("one file at a time"));
      return 2;
    }

  g_autoptr (ls_store) store = ls_store_open (db, &error);
  if (!store)
    {
      fprintf (stderr, _("loadscope import: %s\n"), error->message);
      return 1;
    }
  g_autoptr (GArray) runs = NULL;
  if (!ls_import_file_runs (store, argv[1], &counts, &runs, &error))
    {
      gboolean bad_file = error->domain == LS_STORE_ERROR
                          && (error->code == LS_STORE_ERROR_INVALID || error->code == LS_STORE_ERROR_VERSION);
      fprintf (stderr, _("loadscope import: %s\nloadscope import: nothing was imported; the store is as it was\n"),
               error->message);
      return bad_file ? 2 : 1;
    }
  if (json)
    {
      print_json (argv[1], &counts, runs);
      return 0;
    }
  printf (ngettext ("imported %u run (%u already present) from %s\n", "imported %u runs (%u already present) from %s\n",
                    counts.runs_imported),
          counts.runs_imported, counts.runs_present, argv[1]);
  for (guint i = 0; i < runs->len; i++)
    {
      const ls_import_run *r = &g_array_index (runs, ls_import_run, i);
      g_autofree char *was = r->source_id > 0 ? g_strdup_printf (_("was %lld"), (long long) r->source_id)
                                              : g_strdup_printf (_("uuid %.8s"), r->uuid);
      printf (r->present ? _("  already here as run %lld (%s on %s)\n") : _("  imported as run %lld (%s on %s)\n"),
              (long long) r->local_id, was, r->source_host ? r->source_host : "?");
    }
  return 0;
}
