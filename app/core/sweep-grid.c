#include "app/core/sweep-grid.h"

#include <json-glib/json-glib.h>
#include <string.h>

#include "app/core/i18n.h"
#include "app/core/run-options.h"
#include "app/core/sweep-request.h"

G_DEFINE_QUARK (ls-sweep-error-quark, ls_sweep_error)

const ls_sweep_knob ls_sweep_knobs[LS_SWEEP_N_KNOBS] = {
  [LS_SWEEP_KNOB_WORKERS] = { "workers", TRUE, N_ ("Worker processes") },
  [LS_SWEEP_KNOB_BATCH_SIZE] = { "batch-size", TRUE, N_ ("Samples per batch") },
  [LS_SWEEP_KNOB_PREFETCH] = { "prefetch", TRUE, N_ ("Batches in flight per worker") },
  [LS_SWEEP_KNOB_PERSISTENT] = { "persistent", TRUE, "on|off" },
  [LS_SWEEP_KNOB_START] = { "start", TRUE, "fork|spawn" },
  [LS_SWEEP_KNOB_SHUFFLE] = { "shuffle", TRUE, "on|off" },
  [LS_SWEEP_KNOB_IN_ORDER] = { "in-order", TRUE, "on|off" },
  [LS_SWEEP_KNOB_PIN] = { "pin", TRUE, "off|staging|arena" },
  [LS_SWEEP_KNOB_NON_BLOCKING] = { "non-blocking", TRUE, "on|off" },
  [LS_SWEEP_KNOB_MODEL_MS] = { "model-ms", TRUE, N_ ("Device busy time per batch") },
  [LS_SWEEP_KNOB_OUTPUT] = { "output", TRUE, "f32-chw|u8-hwc" },
  [LS_SWEEP_KNOB_SINK] = { "sink", TRUE, "auto|cuda|sim|none" },
  [LS_SWEEP_KNOB_SEED] = { "seed", TRUE, N_ ("Seed") },
  [LS_SWEEP_KNOB_CROP] = { "crop", TRUE, N_ ("Crop side") },
  [LS_SWEEP_KNOB_DATASET] = { "dataset", FALSE, N_ ("PATH or synthetic") },
  [LS_SWEEP_KNOB_FORMAT] = { "format", FALSE, "auto|jpeg-dir|hdf5" },
  [LS_SWEEP_KNOB_COUNT] = { "count", FALSE, N_ ("Synthetic samples") },
  [LS_SWEEP_KNOB_SIZE] = { "size", FALSE, N_ ("Synthetic sample size WxH") },
  [LS_SWEEP_KNOB_SAMPLE_COST_US] = { "sample-cost-us", FALSE, N_ ("Synthetic CPU work per sample") },
  [LS_SWEEP_KNOB_EPOCHS] = { "epochs", FALSE, N_ ("Epochs per run") },
  [LS_SWEEP_KNOB_BATCHES] = { "batches", FALSE, N_ ("Batches per run") },
  [LS_SWEEP_KNOB_WARMUP] = { "warmup", FALSE, N_ ("Batches left out of the figures") },
  [LS_SWEEP_KNOB_TIMEOUT] = { "timeout", FALSE, N_ ("Seconds to wait for a batch") },
  [LS_SWEEP_KNOB_ON_ERROR] = { "on-error", FALSE, "fail|skip" },
  [LS_SWEEP_KNOB_PIXEL_LIMIT] = { "pixel-limit", FALSE, N_ ("Megapixels") },
  [LS_SWEEP_KNOB_DEVICE] = { "device", FALSE, N_ ("CUDA device") },
  [LS_SWEEP_KNOB_SIM_BANDWIDTH_PAGEABLE] = { "sim-bandwidth-pageable", FALSE, "GB/s" },
  [LS_SWEEP_KNOB_SIM_BANDWIDTH_PINNED] = { "sim-bandwidth-pinned", FALSE, "GB/s" },
  [LS_SWEEP_KNOB_TARGET] = { "target", FALSE, "loadscope|pytorch" },
  [LS_SWEEP_KNOB_SCRIPT] = { "script", FALSE, N_ ("--target pytorch: the training script") },
  [LS_SWEEP_KNOB_PYTHON] = { "python", FALSE, N_ ("--target pytorch: the interpreter") },
  [LS_SWEEP_KNOB_SCRIPT_ARGS] = { "script-args", FALSE, N_ ("--target pytorch: the script's arguments") },
  [LS_SWEEP_KNOB_LOADER] = { "loader", FALSE, N_ ("--target pytorch: which DataLoader, from 0") },
  [LS_SWEEP_KNOB_RANKS] = { "ranks", TRUE, N_ ("--target pytorch: ranks, started as torchrun does") },
  [LS_SWEEP_KNOB_THREADS] = { "threads", TRUE, N_ ("--target pytorch: threads per rank") },
  [LS_SWEEP_KNOB_LAUNCHER] = { "launcher", FALSE, N_ ("--target pytorch --ranks: probe|torchrun (who starts the ranks)") },
};

struct ls_sweep_grid {
  char *values[LS_SWEEP_N_KNOBS]; /* as typed; NULL: not given */
  char **lists[LS_SWEEP_N_KNOBS]; /* sweepable knobs given, split and stripped */
  guint size;
  gboolean drop_last;
};

int
ls_sweep_knob_find (const char *name)
{
  for (guint k = 0; k < LS_SWEEP_N_KNOBS; k++)
    if (strcmp (ls_sweep_knobs[k].name, name) == 0)
      return (int) k;
  return -1;
}

void
ls_sweep_grid_free (ls_sweep_grid *grid)
{
  if (!grid)
    return;
  for (guint k = 0; k < LS_SWEEP_N_KNOBS; k++)
    {
      g_free (grid->values[k]);
      g_strfreev (grid->lists[k]);
    }
  g_free (grid);
}

guint
ls_sweep_grid_size (const ls_sweep_grid *grid)
{
  return grid->size;
}

/* Configuration c's value of every knob (NULL: not given), pointing into
 * the grid. The last knob varies fastest. */
static void
configuration (const ls_sweep_grid *grid, guint c, const char **view)
{
  guint rest = c;
  for (int k = LS_SWEEP_N_KNOBS - 1; k >= 0; k--)
    {
      if (grid->lists[k])
        {
          guint n = g_strv_length (grid->lists[k]);
          view[k] = grid->lists[k][rest % n];
          rest /= n;
        }
      else
        view[k] = grid->values[k];
    }
}

static char *
describe (const ls_sweep_grid *grid, const char *const *view)
{
  GString *s = g_string_new (NULL);
  for (guint k = 0; k < LS_SWEEP_N_KNOBS; k++)
    if (grid->lists[k] && g_strv_length (grid->lists[k]) > 1)
      g_string_append_printf (s, "%s%s=%s", s->len ? " " : "", ls_sweep_knobs[k].name, view[k]);
  if (s->len == 0)
    /* untranslated: a configuration's label, as typed and recorded */
    g_string_append (s, "(one configuration)");
  return g_string_free (s, FALSE);
}

char *
ls_sweep_grid_label (const ls_sweep_grid *grid, guint c)
{
  const char *view[LS_SWEEP_N_KNOBS];
  g_return_val_if_fail (c < grid->size, NULL);
  configuration (grid, c, view);
  return describe (grid, view);
}

static GPtrArray *
runner_argv (const char *runner, const char *const *view, gboolean drop_last, const char *db, gint64 sweep_id)
{
  GPtrArray *a = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (a, g_strdup (runner));
  g_ptr_array_add (a, g_strdup ("run"));
  for (guint k = 0; k < LS_SWEEP_N_KNOBS; k++)
    if (view[k])
      {
        g_ptr_array_add (a, g_strdup_printf ("--%s", ls_sweep_knobs[k].name));
        g_ptr_array_add (a, g_strdup (view[k]));
      }
  if (drop_last)
    g_ptr_array_add (a, g_strdup ("--drop-last"));
  if (db)
    {
      g_ptr_array_add (a, g_strdup ("--db"));
      g_ptr_array_add (a, g_strdup (db));
    }
  else
    g_ptr_array_add (a, g_strdup ("--no-db"));
  if (sweep_id > 0)
    {
      g_ptr_array_add (a, g_strdup ("--sweep-id"));
      g_ptr_array_add (a, g_strdup_printf ("%" G_GINT64_FORMAT, sweep_id));
    }
  g_ptr_array_add (a, g_strdup ("--events"));
  g_ptr_array_add (a, g_strdup ("-"));
  g_ptr_array_add (a, NULL);
  return a;
}

GPtrArray *
ls_sweep_grid_runner_argv (const ls_sweep_grid *grid, guint c, const char *runner, const char *db, gint64 sweep_id)
{
  const char *view[LS_SWEEP_N_KNOBS];
  g_return_val_if_fail (c < grid->size, NULL);
  configuration (grid, c, view);
  return runner_argv (runner, view, grid->drop_last, db, sweep_id);
}

/* Parses and checks one configuration as the runner will, so a bad value
 * stops the sweep before anything runs. */
static gboolean
check_configuration (GPtrArray *argv, GError **error)
{
  g_autoptr (GOptionContext) ctx = g_option_context_new (NULL);
  ls_run_options opts;
  ls_run_config config;
  int argc = (int) argv->len - 2; /* without the program and the NULL */
  /* GOption may reorder and drop entries of args: it gets a shallow copy. */
  char **args = g_new0 (char *, argv->len);
  for (guint i = 1; i + 1 < argv->len; i++)
    args[i - 1] = argv->pdata[i];
  gboolean ok;

  memset (&config, 0, sizeof config);
  ls_run_options_init (&opts);
  ls_run_options_add_to (&opts, ctx);
  g_option_context_set_help_enabled (ctx, FALSE);
  ok = g_option_context_parse (ctx, &argc, &args, error) && ls_run_options_resolve (&opts, &config, error);
  ls_run_options_clear (&opts);
  g_free (args);
  return ok;
}

/* A knob's values as one text, the lists joined by commas. */
static char *
joined (const GPtrArray *values)
{
  GString *s = g_string_new (NULL);
  for (guint i = 0; i < values->len; i++)
    g_string_append_printf (s, "%s%s", i ? "," : "", (const char *) values->pdata[i]);
  return g_string_free (s, FALSE);
}

ls_sweep_grid *
ls_sweep_grid_new (const ls_sweep_request *request, GError **error)
{
  g_autoptr (ls_sweep_grid) grid = g_new0 (ls_sweep_grid, 1);
  guint64 total = 1;

  grid->drop_last = request->drop_last;
  grid->values[LS_SWEEP_KNOB_DATASET] = g_strdup (request->dataset);
  for (guint k = 0; k < LS_SWEEP_N_KNOBS; k++)
    {
      const GPtrArray *given = request->knobs[k];
      if (k == LS_SWEEP_KNOB_DATASET || !given)
        continue;
      grid->values[k] = joined (given);
      if (given->len == 0)
        {
          g_set_error (error, LS_SWEEP_ERROR, LS_SWEEP_ERROR_KNOB, _("--%s: no value"), ls_sweep_knobs[k].name);
          return NULL;
        }
      if (!ls_sweep_knobs[k].sweepable && given->len > 1)
        {
          g_set_error (error, LS_SWEEP_ERROR, LS_SWEEP_ERROR_KNOB, _("--%s %s: this knob takes one value"),
                       ls_sweep_knobs[k].name, grid->values[k]);
          return NULL;
        }
      if (!ls_sweep_knobs[k].sweepable)
        continue;
      grid->lists[k] = g_new0 (char *, given->len + 1);
      for (guint i = 0; i < given->len; i++)
        {
          grid->lists[k][i] = g_strstrip (g_strdup (given->pdata[i]));
          if (*grid->lists[k][i] == '\0')
            {
              g_set_error (error, LS_SWEEP_ERROR, LS_SWEEP_ERROR_KNOB, _("--%s %s: an empty value in the list"),
                           ls_sweep_knobs[k].name, grid->values[k]);
              return NULL;
            }
        }
      total *= given->len;
      if (total > LS_SWEEP_MAX_CONFIGURATIONS)
        break;
    }
  if (total > LS_SWEEP_MAX_CONFIGURATIONS)
    {
      g_set_error (error, LS_SWEEP_ERROR, LS_SWEEP_ERROR_KNOB, _("%llu configurations is too many (at most %d)"),
                   (unsigned long long) total, LS_SWEEP_MAX_CONFIGURATIONS);
      return NULL;
    }
  grid->size = (guint) total;

  for (guint c = 0; c < grid->size; c++)
    {
      g_autoptr (GPtrArray) argv = ls_sweep_grid_runner_argv (grid, c, "loadscope", NULL, 0);
      /* On a target machine the dataset is the target's path: checked
       * there; here, a format given stops the check looking for it. */
      if (request->on)
        {
          g_ptr_array_insert (argv, 2, g_strdup ("jpeg-dir"));
          g_ptr_array_insert (argv, 2, g_strdup ("--format"));
        }
      g_autoptr (GError) why = NULL;
      if (!check_configuration (argv, &why))
        {
          g_autofree char *label = ls_sweep_grid_label (grid, c);
          g_set_error (error, LS_SWEEP_ERROR, LS_SWEEP_ERROR_KNOB, "configuration %u of %u (%s): %s", c + 1,
                       grid->size, label, why->message);
          return NULL;
        }
    }
  return g_steal_pointer (&grid);
}

char *
ls_sweep_grid_to_json (const ls_sweep_grid *grid)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  for (guint k = 0; k < LS_SWEEP_N_KNOBS; k++)
    if (grid->values[k])
      {
        json_builder_set_member_name (b, ls_sweep_knobs[k].name);
        json_builder_add_string_value (b, grid->values[k]);
      }
  json_builder_end_object (b);
  g_autoptr (JsonNode) root = json_builder_get_root (b);
  return json_to_string (root, FALSE);
}
