#include "app/core/sweep-request.h"
#include "app/core/i18n.h"

#include <string.h>

#include "app/core/run-options.h"

ls_sweep_request *
ls_sweep_request_new (void)
{
  ls_sweep_request *r = g_new0 (ls_sweep_request, 1);
  r->repeat = 1;
  return r;
}

static gpointer
copy_string (gconstpointer s, gpointer unused)
{
  return g_strdup (s);
}

ls_sweep_request *
ls_sweep_request_copy (const ls_sweep_request *request)
{
  ls_sweep_request *r = ls_sweep_request_new ();

  r->dataset = g_strdup (request->dataset);
  for (guint k = 0; k < LS_SWEEP_N_KNOBS; k++)
    if (request->knobs[k])
      r->knobs[k] = g_ptr_array_copy (request->knobs[k], copy_string, NULL);
  r->repeat = request->repeat;
  r->drop_last = request->drop_last;
  r->db = g_strdup (request->db);
  r->no_db = request->no_db;
  r->runner = g_strdup (request->runner);
  r->on = g_strdup (request->on);
  r->sweep_id = request->sweep_id;
  return r;
}

void
ls_sweep_request_free (ls_sweep_request *request)
{
  if (!request)
    return;
  for (guint k = 0; k < LS_SWEEP_N_KNOBS; k++)
    g_clear_pointer (&request->knobs[k], g_ptr_array_unref);
  g_free (request->dataset);
  g_free (request->db);
  g_free (request->runner);
  g_free (request->on);
  g_free (request);
}

gboolean
ls_sweep_request_is_script (const ls_sweep_request *request)
{
  const GPtrArray *target = request->knobs[LS_SWEEP_KNOB_TARGET];
  return target && target->len > 0 && g_strcmp0 (target->pdata[0], "pytorch") == 0;
}

void
ls_sweep_request_add (ls_sweep_request *request, ls_sweep_knob_id k, const char *value)
{
  g_return_if_fail (k < LS_SWEEP_N_KNOBS && value != NULL);

  if (k == LS_SWEEP_KNOB_DATASET)
    {
      g_free (request->dataset);
      request->dataset = g_strdup (value);
      return;
    }
  if (!request->knobs[k])
    request->knobs[k] = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (request->knobs[k], g_strdup (value));
}

void
ls_sweep_request_add_int (ls_sweep_request *request, ls_sweep_knob_id k, gint64 value)
{
  char text[32];
  g_snprintf (text, sizeof text, "%" G_GINT64_FORMAT, value);
  ls_sweep_request_add (request, k, text);
}

void
ls_sweep_request_add_double (ls_sweep_request *request, ls_sweep_knob_id k, double value)
{
  char text[G_ASCII_DTOSTR_BUF_SIZE];
  ls_sweep_request_add (request, k, g_ascii_dtostr (text, sizeof text, value));
}

void
ls_sweep_request_add_switch (ls_sweep_request *request, ls_sweep_knob_id k, gboolean on)
{
  ls_sweep_request_add (request, k, on ? "on" : "off");
}

gboolean
ls_sweep_request_set_text (ls_sweep_request *request, const char *name, const char *text, GError **error)
{
  int k = ls_sweep_knob_find (name);

  g_return_val_if_fail (text != NULL, FALSE);
  if (k < 0)
    {
      g_set_error (error, LS_SWEEP_ERROR, LS_SWEEP_ERROR_KNOB, _("--%s: not a knob a sweep takes"), name);
      return FALSE;
    }
  if (k == LS_SWEEP_KNOB_SCRIPT || k == LS_SWEEP_KNOB_SCRIPT_ARGS || k == LS_SWEEP_KNOB_PYTHON)
    {
      /* A path or a script's arguments may hold commas: one value. */
      g_clear_pointer (&request->knobs[k], g_ptr_array_unref);
      ls_sweep_request_add (request, k, text);
      return TRUE;
    }
  if (k == LS_SWEEP_KNOB_DATASET)
    {
      /* A dataset path may hold a comma. */
      ls_sweep_request_add (request, k, text);
      return TRUE;
    }
  if (!ls_sweep_knobs[k].sweepable && strchr (text, ','))
    {
      g_set_error (error, LS_SWEEP_ERROR, LS_SWEEP_ERROR_KNOB, _("--%s %s: this knob takes one value"), name, text);
      return FALSE;
    }
  g_clear_pointer (&request->knobs[k], g_ptr_array_unref);
  if (!ls_sweep_knobs[k].sweepable)
    {
      ls_sweep_request_add (request, k, text);
      return TRUE;
    }
  g_auto (GStrv) parts = g_strsplit (text, ",", -1);
  for (guint i = 0; parts[i]; i++)
    if (*g_strstrip (parts[i]) == '\0')
      {
        g_set_error (error, LS_SWEEP_ERROR, LS_SWEEP_ERROR_KNOB, _("--%s %s: an empty value in the list"), name, text);
        return FALSE;
      }
  for (guint i = 0; parts[i]; i++)
    ls_sweep_request_add (request, k, parts[i]);
  return TRUE;
}

guint
ls_sweep_request_count (const ls_sweep_request *request, ls_sweep_knob_id k)
{
  g_return_val_if_fail (k < LS_SWEEP_N_KNOBS, 0);
  if (k == LS_SWEEP_KNOB_DATASET)
    return request->dataset ? 1 : 0;
  return request->knobs[k] ? request->knobs[k]->len : 0;
}

guint64
ls_sweep_request_configurations (const ls_sweep_request *request)
{
  guint64 total = 1;
  for (guint k = 0; k < LS_SWEEP_N_KNOBS; k++)
    if (k != LS_SWEEP_KNOB_DATASET && request->knobs[k])
      total *= request->knobs[k]->len;
  return total;
}

/* Knob k's values as numbers, or its default when not given. */
static GArray *
numbers (const ls_sweep_request *request, ls_sweep_knob_id k, double fallback)
{
  GArray *out = g_array_new (FALSE, FALSE, sizeof (double));
  const GPtrArray *given = request->knobs[k];
  if (!given || given->len == 0)
    g_array_append_val (out, fallback);
  else
    for (guint i = 0; i < given->len; i++)
      {
        double v = g_ascii_strtod (given->pdata[i], NULL);
        g_array_append_val (out, v);
      }
  return out;
}

double
ls_sweep_request_estimate_seconds (const ls_sweep_request *request, guint cores)
{
  const GPtrArray *given = request->knobs[LS_SWEEP_KNOB_BATCHES];
  guint64 configurations = ls_sweep_request_configurations (request);

  if (!given || given->len != 1)
    return -1;
  if (configurations == 0)
    return 0;
  double batches = g_ascii_strtod (given->pdata[0], NULL);
  g_autoptr (GArray) workers = numbers (request, LS_SWEEP_KNOB_WORKERS, ls_run_default.workers);
  g_autoptr (GArray) sizes = numbers (request, LS_SWEEP_KNOB_BATCH_SIZE, ls_run_default.batch_size);
  g_autoptr (GArray) steps = numbers (request, LS_SWEEP_KNOB_MODEL_MS, ls_run_default.model_ms);
  /* Every other list multiplies the configurations without changing a run. */
  double others = (double) configurations / (double) (workers->len * sizes->len * steps->len);
  double seconds = 0;

  for (guint w = 0; w < workers->len; w++)
    for (guint b = 0; b < sizes->len; b++)
      for (guint m = 0; m < steps->len; m++)
        {
          double lanes = MAX (1.0, MIN (g_array_index (workers, double, w), (double) cores));
          double load = batches * g_array_index (sizes, double, b) * 2e-3 / lanes;
          double model = batches * g_array_index (steps, double, m) / 1e3;
          seconds += (MAX (load, model) + 0.5) * others;
        }
  return seconds * MAX (1u, request->repeat);
}
