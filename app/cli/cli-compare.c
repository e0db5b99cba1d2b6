#include "app/cli/cli-compare.h"
#include "app/core/i18n.h"
#include "app/cli/cli-args.h"

#include <json-glib/json-glib.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "app/cli/cli-store-status.h"
#include "app/cli/cli-terminal-text.h"
#include "app/report/compare-table.h"
#include "app/store/store-query.h"
#include "app/core/terminal-text.h"

#define LABEL_WIDTH 24
#define CELL_WIDTH 28

static const char *
str_or (JsonObject *o, const char *name, const char *otherwise)
{
  JsonNode *n = json_object_get_member (o, name);
  return n && JSON_NODE_HOLDS_VALUE (n) && json_node_get_value_type (n) == G_TYPE_STRING ? json_node_get_string (n)
                                                                                          : otherwise;
}

static JsonNode *
compare_json (const ls_compare_table *table)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  GPtrArray *runs = table->runs;

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "runs");
  json_builder_begin_array (b);
  for (guint i = 0; i < runs->len; i++)
    {
      JsonObject *r = g_ptr_array_index (runs, i);
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "run_id");
      json_builder_add_int_value (b, json_object_get_int_member (r, "id"));
      static const char *const texts[] = { "uuid", "machine_hostname", "dataset", "started_at", "status", "sink" };
      static const char *const names[] = { "run_uuid", "machine", "dataset", "started_at", "status", "sink" };
      for (guint k = 0; k < G_N_ELEMENTS (texts); k++)
        {
          json_builder_set_member_name (b, names[k]);
          json_builder_add_string_value (b, str_or (r, texts[k], ""));
        }
      json_builder_set_member_name (b, "simulated");
      json_builder_add_boolean_value (b, json_object_get_int_member (r, "simulated") != 0);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);

  json_builder_set_member_name (b, "figures");
  json_builder_begin_object (b);
  for (guint f = 0; f < ls_n_run_figures; f++)
    {
      const ls_run_figure *fig = &ls_run_figures[f];
      json_builder_set_member_name (b, fig->column);
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "label");
      json_builder_add_string_value (b, fig->label);
      json_builder_set_member_name (b, "values");
      json_builder_begin_array (b);
      for (guint i = 0; i < runs->len; i++)
        {
          JsonNode *n = json_object_get_member (g_ptr_array_index (runs, i), fig->column);
          json_builder_add_value (b, n ? json_node_copy (n) : json_node_new (JSON_NODE_NULL));
        }
      json_builder_end_array (b);
      json_builder_set_member_name (b, "delta_percent");
      json_builder_begin_array (b);
      const ls_compare_row *row = ls_compare_table_find (table, fig->column);
      for (guint i = 0; i < runs->len; i++)
        {
          if (!isnan (row->delta[i]))
            json_builder_add_double_value (b, row->delta[i]);
          else
            json_builder_add_null_value (b);
        }
      json_builder_end_array (b);
      /* "better", "worse", "same" against the first run (null: no change to tell) */
      json_builder_set_member_name (b, "change");
      json_builder_begin_array (b);
      for (guint i = 0; i < runs->len; i++)
        {
          if (i == 0 || isnan (row->delta[i]))
            json_builder_add_null_value (b);
          else
            json_builder_add_string_value (b, row->better[i] > 0 ? "better" : row->better[i] < 0 ? "worse" : "same");
        }
      json_builder_end_array (b);
      json_builder_end_object (b);
    }
  json_builder_end_object (b);

  json_builder_set_member_name (b, "knobs_differ");
  json_builder_begin_object (b);
  for (guint k = 0; k < ls_n_run_knobs; k++)
    {
      const ls_run_knob *knob = &ls_run_knobs[k];
      const ls_compare_row *row = ls_compare_table_find (table, knob->column);
      if (!row || !row->differs)
        continue;
      json_builder_set_member_name (b, knob->column);
      json_builder_begin_array (b);
      for (guint i = 0; i < runs->len; i++)
        {
          JsonNode *n = json_object_get_member (g_ptr_array_index (runs, i), knob->column);
          if (n && knob->flag && !JSON_NODE_HOLDS_NULL (n))
            json_builder_add_boolean_value (b, json_node_get_int (n) != 0);
          else
            json_builder_add_value (b, n ? json_node_copy (n) : json_node_new (JSON_NODE_NULL));
        }
      json_builder_end_array (b);
    }
  json_builder_end_object (b);
  json_builder_end_object (b);
  return json_builder_get_root (b);
}

static void
put_padded (const char *text, int width)
{
  /* by display width: a CJK character takes two columns */
  fputs (text, stdout);
  for (int k = (int) ls_i18n_display_width (text); k < width; k++)
    putchar (' ');
}

static void
print_row (const char *label, GPtrArray *cells)
{
  put_padded (label, LABEL_WIDTH);
  for (guint i = 0; i < cells->len; i++)
    {
      putchar (' ');
      put_padded (g_ptr_array_index (cells, i), i + 1 < cells->len ? CELL_WIDTH : 0);
    }
  printf ("\n");
}

static void
compare_text (const ls_compare_table *table)
{
  GPtrArray *runs = table->runs;
  JsonObject *first = g_ptr_array_index (runs, 0);
  g_autoptr (GPtrArray) cells = g_ptr_array_new_with_free_func (g_free);
  gboolean any_simulated = FALSE;

  for (guint i = 0; i < runs->len; i++)
    g_ptr_array_add (cells, g_strdup_printf (_("run %lld"),
                                             (long long) json_object_get_int_member (g_ptr_array_index (runs, i), "id")));
  print_row ("", cells);
  static const char *const texts[] = { "uuid", "machine_hostname", "dataset", "status" };
  static const char *const labels[] = { "uuid", N_ ("machine"), N_ ("dataset"), N_ ("status") };
  for (guint k = 0; k < G_N_ELEMENTS (texts); k++)
    {
      g_ptr_array_set_size (cells, 0);
      for (guint i = 0; i < runs->len; i++)
        {
          const char *s = str_or (g_ptr_array_index (runs, i), texts[k], "-");
          g_ptr_array_add (cells, k == 0 ? g_strndup (s, 8) : g_strdup (s));
        }
      print_row (_(labels[k]), cells);
    }
  g_ptr_array_set_size (cells, 0);
  for (guint i = 0; i < runs->len; i++)
    {
      JsonObject *r = g_ptr_array_index (runs, i);
      gboolean sim = json_object_get_int_member (r, "simulated") != 0;
      any_simulated |= sim;
      g_ptr_array_add (cells, g_strdup_printf ("%s%s", str_or (r, "sink", "-"), sim ? "*" : ""));
    }
  print_row ("sink", cells);

  printf (_("\nfigures (change against run %lld):\n"), (long long) json_object_get_int_member (first, "id"));
  for (guint f = 0; f < ls_n_run_figures; f++)
    {
      const ls_compare_row *row = ls_compare_table_find (table, ls_run_figures[f].column);
      g_ptr_array_set_size (cells, 0);
      for (guint i = 0; i < runs->len; i++)
        {
          const char *value = row->cells->pdata[i];
          g_autofree char *change = ls_compare_change_text (row, i);
          if (change)
            g_ptr_array_add (cells, g_strdup_printf ("%s (%s)", value, change));
          else
            g_ptr_array_add (cells, g_strdup (value));
        }
      print_row (row->label, cells);
    }

  gboolean header = FALSE;
  for (guint k = 0; k < ls_n_run_knobs; k++)
    {
      const ls_compare_row *row = ls_compare_table_find (table, ls_run_knobs[k].column);
      if (!row || !row->differs)
        continue;
      if (!header)
        printf (_("\nknobs that differ:\n"));
      header = TRUE;
      print_row (row->label, row->cells);
    }
  if (!header)
    printf (_("\nthe runs have the same knobs\n"));
  if (any_simulated)
    printf (_("* simulated GPU: copy and model step are modelled, not measured on a device.\n"));
}

int
ls_cli_compare (int argc, char **argv)
{
  g_autoptr (GOptionContext) context = g_option_context_new (_("RUN RUN... - headline figures side by side"));
  g_autoptr (GError) error = NULL;
  g_autofree char *db = NULL;
  gboolean json = FALSE;
  GOptionEntry entries[] = {
    { "db", 0, 0, G_OPTION_ARG_FILENAME, &db, N_("The run store (default: $XDG_DATA_HOME/loadscope/history.sqlite)"),
      N_("PATH") },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json,
      N_("Print one JSON object: runs, figures (values and delta_percent against the first run), knobs_differ"), NULL },
    { NULL },
  };

  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  g_option_context_set_summary (
      context, _("Throughput, batch wait p50/p95/p99, GPU utilization (exact and NVML), peak PSS and RSS,\n"
                 "CPU, time to first batch and the epoch boundary of two or more runs, each as a change\n"
                 "in per cent against the first run marked better or worse (units and decimals as in the\n"
                 "charts), and then the knobs in which the runs differ.\n"
                 "RUN is a run id (see `loadscope history`) or the first 4 or more characters of its uuid.\n"
                 "\n"
                 "Exit status: 0 compared, 1 the store could not be read now (locked), 2 bad usage, no such run,\n"
                 "or no store there (a missing file, not a Loadscope store, a newer one)."));
  if (!ls_cli_parse_args (context, &argc, &argv, &error))
    {
      fprintf (stderr, _("loadscope compare: %s\n"), error->message);
      return 2;
    }
  if (argc < 3)
    {
      fprintf (stderr, _("loadscope compare: give two runs or more (ids or uuid prefixes)\n"));
      return 2;
    }

  g_autoptr (ls_store) store = ls_store_open_to_read (db, &error);
  g_autoptr (GPtrArray) runs = g_ptr_array_new_with_free_func ((GDestroyNotify) json_object_unref);
  for (int i = 1; store && i < argc; i++)
    {
      gint64 id = ls_store_find_run (store, argv[i], &error);
      JsonObject *run = id < 0 ? NULL : ls_store_run_object (store, id, &error);
      if (!run)
        break;
      g_ptr_array_add (runs, run);
    }
  if (error)
    {
      fprintf (stderr, _("loadscope compare: %s\n"), error->message);
      return ls_cli_store_error_status (error);
    }
  /* Imported text may hold terminal escapes and newlines. */
  for (guint i = 0; !json && i < runs->len; i++)
    ls_cli_terminal_object (g_ptr_array_index (runs, i));

  g_autoptr (ls_compare_table) table = ls_compare_table_new (runs);
  if (json)
    {
      g_autoptr (JsonNode) node = compare_json (table);
      g_autofree char *text = json_to_string (node, TRUE);
      g_autofree char *shown = ls_terminal_json (text);
      printf ("%s\n", shown);
    }
  else
    compare_text (table);
  return 0;
}
