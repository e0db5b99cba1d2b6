#include "app/cli/cli-show.h"
#include "app/cli/cli-args.h"

#include <json-glib/json-glib.h>
#include <stdio.h>
#include <string.h>

#include "app/cli/cli-store-status.h"
#include "app/cli/cli-terminal-text.h"
#include "app/core/i18n.h"
#include "app/store/store-query.h"
#include "app/core/terminal-text.h"

static const char *const machine_columns[] = { "hostname", "os",  "kernel", "arch", "cpu_model", "logical_cores",
                                               "ram_bytes", "gpu", "driver", "cuda", "container", "fingerprint" };

static const char *
str_or (JsonObject *o, const char *name, const char *otherwise)
{
  JsonNode *n = json_object_get_member (o, name);
  return n && JSON_NODE_HOLDS_VALUE (n) && json_node_get_value_type (n) == G_TYPE_STRING ? json_node_get_string (n)
                                                                                          : otherwise;
}

static JsonNode *
copy_member (JsonObject *o, const char *name)
{
  JsonNode *n = json_object_get_member (o, name);
  return n ? json_node_copy (n) : json_node_new (JSON_NODE_NULL);
}

/* The stored summary (what `run --json` printed), with the run's current
 * status and its machine, knobs, figures and workers from the store. */
static JsonNode *
show_json (JsonObject *run, JsonArray *workers, gint64 series)
{
  g_autoptr (JsonParser) parser = json_parser_new ();
  JsonObject *root = NULL;
  const char *summary = str_or (run, "summary", NULL);

  if (summary && json_parser_load_from_data (parser, summary, -1, NULL)
      && JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)))
    root = json_object_ref (json_node_get_object (json_parser_get_root (parser)));
  else
    root = json_object_new ();

  json_object_set_int_member (root, "run_id", json_object_get_int_member (run, "id"));
  json_object_set_string_member (root, "run_uuid", str_or (run, "uuid", ""));
  json_object_set_member (root, "status", copy_member (run, "status"));
  json_object_set_member (root, "error", copy_member (run, "error"));
  json_object_set_member (root, "started_at", copy_member (run, "started_at"));
  json_object_set_member (root, "finished_at", copy_member (run, "finished_at"));
  json_object_set_member (root, "sweep_uuid", copy_member (run, "sweep_uuid"));
  json_object_set_boolean_member (root, "simulated", json_object_get_int_member (run, "simulated") != 0);

  JsonObject *machine = json_object_new ();
  for (guint i = 0; i < G_N_ELEMENTS (machine_columns); i++)
    {
      g_autofree char *column = g_strdup_printf ("machine_%s", machine_columns[i]);
      json_object_set_member (machine, machine_columns[i], copy_member (run, column));
    }
  json_object_set_object_member (root, "machine", machine);

  JsonObject *knobs = json_object_new ();
  for (guint i = 0; i < ls_n_run_knobs; i++)
    {
      JsonNode *n = json_object_get_member (run, ls_run_knobs[i].column);
      if (ls_run_knobs[i].flag && n && !JSON_NODE_HOLDS_NULL (n))
        json_object_set_boolean_member (knobs, ls_run_knobs[i].column, json_node_get_int (n) != 0);
      else
        json_object_set_member (knobs, ls_run_knobs[i].column, copy_member (run, ls_run_knobs[i].column));
    }
  json_object_set_object_member (root, "knobs", knobs);

  JsonObject *figures = json_object_new ();
  for (guint i = 0; i < ls_n_run_figures; i++)
    json_object_set_member (figures, ls_run_figures[i].column, copy_member (run, ls_run_figures[i].column));
  static const char *const more[] = { "wait_max_ms", "uss_peak_bytes", "private_peak_bytes", "arena_bytes",
                                      "samples", "skipped_samples", "copy_ms_mean", "compute_ms_mean",
                                      "stage_read_ms", "stage_decode_ms", "stage_transform_ms", "stage_write_ms",
                                      "stage_idle_ms", "stage_busy_ms" };
  for (guint i = 0; i < G_N_ELEMENTS (more); i++)
    json_object_set_member (figures, more[i], copy_member (run, more[i]));
  json_object_set_object_member (root, "figures", figures);

  json_object_set_array_member (root, "worker_processes", json_array_ref (workers));
  json_object_set_member (root, "batches_recorded", copy_member (run, "batches_recorded"));
  json_object_set_member (root, "epochs_run", copy_member (run, "epochs_run"));
  json_object_set_int_member (root, "series_samples_recorded", series);
  return json_node_init_object (json_node_alloc (), root);
}

/* "  status:" padded to 22 columns by display width (a CJK character
 * takes two), as printf's "  %-20s" pads an English label. */
static void
put_label (const char *label)
{
  printf ("  %s", label);
  for (gsize k = ls_i18n_display_width (label); k < 20; k++)
    putchar (' ');
}

/* A knob as shown; epochs and batches as run, not only as asked. */
static char *
knob_text (JsonObject *run, const ls_run_knob *knob)
{
  double asked = 0, ran = 0;
  if (strcmp (knob->column, "epochs") == 0 && ls_json_number (run, "epochs", &asked)
      && ls_json_number (run, "epochs_run", &ran))
    {
      if (asked == 0)
        return g_strdup_printf (_("%.0f run (as many as the batches asked for)"), ran);
      if (ran != asked)
        return g_strdup_printf (_("%.0f (%.0f run)"), asked, ran);
    }
  if (strcmp (knob->column, "max_batches") == 0 && ls_json_number (run, "max_batches", &asked) && asked == 0)
    return g_strdup (_("every batch of each epoch"));
  return ls_run_knob_text (run, knob);
}

/* Where a batch's build time went (schema 4 on; older runs have none). */
static void
show_stages (JsonObject *run)
{
  static const char *const stages[] = { "read", "decode", "transform", "write", "idle" };
  static const char *const shown[] = { N_ ("read"), N_ ("decode"), N_ ("transform"), N_ ("write") };
  double ms[G_N_ELEMENTS (stages)], busy = 0, sum = 0;

  for (guint i = 0; i < G_N_ELEMENTS (stages); i++)
    {
      g_autofree char *column = g_strdup_printf ("stage_%s_ms", stages[i]);
      if (!ls_json_number (run, column, &ms[i]))
        return;
      if (i < 4)
        sum += ms[i];
    }
  ls_json_number (run, "stage_busy_ms", &busy);
  put_label (_("build per batch:"));
  for (guint i = 0; i < 4; i++)
    printf (" %s %.2f%s", _(shown[i]), ms[i], i < 3 ? " +" : " ms");
  if (sum > 0)
    printf (_(" (%.0f %% decode)"), 100.0 * ms[1] / sum);
  printf ("\n");
  put_label (_("workers per batch:"));
  printf (_(" %.2f ms busy, %.2f ms idle waiting for a task (mean after the warm-up; summed over samples and "
            "workers)\n"),
          busy, ms[4]);
}

static void
show_text (JsonObject *run, JsonArray *workers, gint64 series)
{
  gboolean sim = json_object_get_int_member (run, "simulated") != 0;
  double v;

  printf (_("run %lld  %s\n"), (long long) json_object_get_int_member (run, "id"), str_or (run, "uuid", ""));
  /* the status and error as recorded */
  put_label (_("status:"));
  printf (" %s\n", str_or (run, "status", "-"));
  if (str_or (run, "error", NULL))
    {
      put_label (_("error:"));
      printf (" %s\n", str_or (run, "error", ""));
    }
  put_label (_("started:"));
  printf (" %s\n", str_or (run, "started_at", "-"));
  put_label (_("finished:"));
  printf (" %s\n", str_or (run, "finished_at", "-"));
  put_label (_("sweep:"));
  printf (" %s\n", str_or (run, "sweep_uuid", "-"));

  ls_json_number (run, "machine_ram_bytes", &v);
  put_label (_("machine:"));
  printf (_(" %s: %s, %s, %s, %s, %lld logical cores, %.1f GiB\n"), str_or (run, "machine_hostname", "?"),
          str_or (run, "machine_os", "?"), str_or (run, "machine_kernel", "?"), str_or (run, "machine_arch", "?"),
          str_or (run, "machine_cpu_model", "?"), (long long) json_object_get_int_member (run, "machine_logical_cores"),
          v / (1024.0 * 1024.0 * 1024.0));
  const char *container = str_or (run, "machine_container", NULL);
  if (container && strcmp (container, "none") != 0)
    {
      put_label (_("container:"));
      printf (" %s\n", container);
    }
  if (str_or (run, "machine_gpu", NULL))
    {
      put_label ("GPU:");
      printf (_(" %s (driver %s, CUDA %s)\n"), str_or (run, "machine_gpu", ""), str_or (run, "machine_driver", "?"),
              str_or (run, "machine_cuda", "?"));
    }

  printf (_("knobs:\n"));
  for (guint i = 0; i < ls_n_run_knobs; i++)
    {
      JsonNode *given = json_object_get_member (run, ls_run_knobs[i].column);
      if (ls_run_knobs[i].script && (!given || json_node_is_null (given)))
        continue; /* ranks, threads: not the loader's */
      g_autofree char *label = g_strdup_printf (_("%s:"), _(ls_run_knobs[i].label));
      g_autofree char *value = knob_text (run, &ls_run_knobs[i]);
      put_label (label);
      printf (" %s%s\n", value, sim && strcmp (ls_run_knobs[i].column, "sink") == 0 ? _(" (SIMULATED GPU)") : "");
    }

  printf (_("figures:\n"));
  for (guint i = 0; i < ls_n_run_figures; i++)
    {
      const ls_run_figure *f = &ls_run_figures[i];
      g_autofree char *label = g_strdup_printf (_("%s:"), _(f->label));
      g_autofree char *value = ls_run_figure_text (run, f);
      gboolean absent = strcmp (value, "-") == 0;
      put_label (label);
      printf (" %s%s%s%s\n", value, absent ? "" : " ", absent ? "" : _(f->unit),
              !absent && sim && g_str_has_prefix (f->column, "gpu_util") ? _(" (simulated)") : "");
    }
  /* The device side of a batch, where there was a device (or its model). */
  static const struct {
    const char *column, *label;
  } per_batch[] = { { "copy_ms_mean", N_ ("copy per batch:") }, { "compute_ms_mean", N_ ("compute per batch:") } };
  for (guint i = 0; i < G_N_ELEMENTS (per_batch); i++)
    if (ls_json_number (run, per_batch[i].column, &v))
      {
        put_label (_(per_batch[i].label));
        printf (sim ? _(" %.3f ms (mean after the warm-up, simulated)\n") : _(" %.3f ms (mean after the warm-up)\n"), v);
      }
  show_stages (run);
  if (ls_json_number (run, "samples", &v))
    {
      double skipped = 0;
      put_label (_("samples:"));
      printf (" %.0f", v);
      if (ls_json_number (run, "skipped_samples", &skipped) && skipped > 0)
        printf (_(" (%.0f skipped)"), skipped);
      printf ("\n");
    }
  if (ls_json_number (run, "arena_bytes", &v))
    {
      put_label (_("arena:"));
      printf (_(" %.1f MB\n"), v / 1e6);
    }

  printf ("%s\n", json_array_get_length (workers) ? _("workers:") : _("workers: none recorded"));
  for (guint i = 0; i < json_array_get_length (workers); i++)
    {
      JsonObject *w = json_array_get_object_element (workers, i);
      g_autofree char *ready = ls_json_number (w, "startup_ms", &v) ? g_strdup_printf (_("ready after %.1f ms"), v)
                                                                     : g_strdup (_("never ready"));
      g_autofree char *cpu = ls_json_number (w, "cpu_ns", &v) ? g_strdup_printf (_(", CPU %.1f ms"), v / 1e6)
                                                               : g_strdup ("");
      /* the worker's exit as recorded */
      printf (_("  #%lld epoch %lld, pid %lld, %s, %s%s\n"), (long long) json_object_get_int_member (w, "idx"),
              (long long) json_object_get_int_member (w, "epoch"), (long long) json_object_get_int_member (w, "pid"),
              ready, str_or (w, "exit", _("exit not recorded")), cpu);
    }
  printf (_("recorded: %lld batches, %lld series samples\n"),
          (long long) json_object_get_int_member (run, "batches_recorded"), (long long) series);
}

int
ls_cli_show (int argc, char **argv)
{
  g_autoptr (GOptionContext) context = g_option_context_new (_("RUN - everything recorded about one run"));
  g_autoptr (GError) error = NULL;
  g_autofree char *db = NULL;
  gboolean json = FALSE;
  GOptionEntry entries[] = {
    { "db", 0, 0, G_OPTION_ARG_FILENAME, &db, N_("The run store (default: $XDG_DATA_HOME/loadscope/history.sqlite)"),
      N_("PATH") },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json,
      N_("Print the run's summary with its machine, knobs, figures and workers as one JSON object"), NULL },
    { NULL },
  };

  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  g_option_context_set_summary (context, _("RUN is a run id (see `loadscope history`) or the first 4 or more characters of its uuid.\n"
                                           "\n"
                                           "Exit status: 0 shown, 1 the store could not be read now (locked), 2 bad usage, no such run,\n"
                                           "or no store there (a missing file, not a Loadscope store, a newer one)."));
  if (!ls_cli_parse_args (context, &argc, &argv, &error))
    {
      fprintf (stderr, _("loadscope show: %s\n"), error->message);
      return 2;
    }
  if (argc != 2)
    {
      fprintf (stderr, _("loadscope show: %s\n"), argc < 2 ? _("which run? (give its id or uuid prefix)")
                                                         : _("one run at a time (see `loadscope compare`)"));
      return 2;
    }

  g_autoptr (ls_store) store = ls_store_open_to_read (db, &error);
  gint64 id = store ? ls_store_find_run (store, argv[1], &error) : -1;
  if (id < 0)
    {
      fprintf (stderr, _("loadscope show: %s\n"), error->message);
      return ls_cli_store_error_status (error);
    }
  g_autoptr (JsonObject) run = ls_store_run_object (store, id, &error);
  g_autoptr (JsonArray) workers = run ? ls_store_run_workers (store, id, &error) : NULL;
  gint64 n_series = workers ? ls_store_run_n_samples (store, id, &error) : -1;
  if (n_series < 0)
    {
      fprintf (stderr, _("loadscope show: %s\n"), error->message);
      return 1;
    }

  if (json)
    {
      g_autoptr (JsonNode) node = show_json (run, workers, n_series);
      g_autofree char *text = json_to_string (node, TRUE);
      g_autofree char *shown = ls_terminal_json (text);
      printf ("%s\n", shown);
    }
  else
    {
      /* Imported text may hold terminal escapes and newlines. */
      ls_cli_terminal_object (run);
      ls_cli_terminal_array (workers);
      show_text (run, workers, n_series);
    }
  return 0;
}
