#include "app/core/run-events.h"

#include <math.h>
#include <string.h>

#include "app/core/run-summary.h"
#include "app/core/summary-keys.h"
#include "app/core/terminal-text.h"

struct ls_run_events {
  FILE *out;
  gboolean owned;
};

ls_run_events *
ls_run_events_open (const char *path, GError **error)
{
  ls_run_events *ev = g_new0 (ls_run_events, 1);
  if (strcmp (path, "-") == 0)
    ev->out = stdout;
  else
    {
      ev->out = fopen (path, "w");
      ev->owned = TRUE;
      if (!ev->out)
        {
          g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (errno), "--events %s: %s", path,
                       g_strerror (errno));
          g_free (ev);
          return NULL;
        }
    }
  return ev;
}

void
ls_run_events_close (ls_run_events *ev)
{
  if (!ev)
    return;
  if (ev->owned)
    fclose (ev->out);
  else
    fflush (ev->out);
  g_free (ev);
}

static JsonBuilder *
begin (const char *event)
{
  JsonBuilder *b = json_builder_new ();
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "event");
  json_builder_add_string_value (b, event);
  return b;
}

static void
emit (ls_run_events *ev, JsonBuilder *b)
{
  json_builder_end_object (b);
  g_autoptr (JsonNode) node = json_builder_get_root (b);
  g_autoptr (JsonGenerator) gen = json_generator_new ();
  json_generator_set_root (gen, node);
  g_autofree char *raw = json_generator_to_data (gen, NULL);
  g_autofree char *line = ls_terminal_json (raw);
  fputs (line, ev->out);
  fputc ('\n', ev->out);
  fflush (ev->out);
  g_object_unref (b);
}

static void
add_double (JsonBuilder *b, const char *name, double v, gboolean valid)
{
  json_builder_set_member_name (b, name);
  if (valid && !isnan (v)) /* NaN: not measured (JSON has no NaN) */
    json_builder_add_double_value (b, v);
  else
    json_builder_add_null_value (b);
}

void
ls_run_events_started (ls_run_events *ev, const ls_run_result *r, gint64 run_id, const char *run_uuid,
                       uint64_t planned_batches)
{
  JsonBuilder *b = begin ("started");
  json_builder_set_member_name (b, "run_id");
  if (run_id > 0)
    json_builder_add_int_value (b, run_id);
  else
    json_builder_add_null_value (b);
  json_builder_set_member_name (b, "run_uuid");
  if (run_uuid)
    json_builder_add_string_value (b, run_uuid);
  else
    json_builder_add_null_value (b);
  json_builder_set_member_name (b, "sink");
  json_builder_add_string_value (b, r->sink_name);
  json_builder_set_member_name (b, "simulated");
  json_builder_add_boolean_value (b, r->simulated);
  json_builder_set_member_name (b, "sink_note");
  if (r->sink_note[0])
    json_builder_add_string_value (b, r->sink_note);
  else
    json_builder_add_null_value (b);
  json_builder_set_member_name (b, "planned_batches");
  if (planned_batches != UINT64_MAX)
    json_builder_add_int_value (b, (gint64) planned_batches);
  else
    json_builder_add_null_value (b);
  json_builder_set_member_name (b, "arena_bytes");
  json_builder_add_int_value (b, (gint64) r->arena_bytes);
  emit (ev, b);
}

void
ls_run_events_workers (ls_run_events *ev, const ls_worker_info *w, size_t n)
{
  JsonBuilder *b = begin ("workers");
  json_builder_set_member_name (b, "epoch");
  json_builder_add_int_value (b, n ? w[0].epoch : 0);
  json_builder_set_member_name (b, "pids");
  json_builder_begin_array (b);
  for (size_t i = 0; i < n; i++)
    json_builder_add_int_value (b, (gint64) w[i].pid);
  json_builder_end_array (b);
  emit (ev, b);
}

void
ls_run_events_batch (ls_run_events *ev, uint64_t seq, const ls_batch_record *r)
{
  JsonBuilder *b = begin ("batch");
  json_builder_set_member_name (b, "seq");
  json_builder_add_int_value (b, (gint64) seq);
  json_builder_set_member_name (b, "epoch");
  json_builder_add_int_value (b, r->epoch);
  json_builder_set_member_name (b, "batch");
  json_builder_add_int_value (b, (gint64) r->batch);
  json_builder_set_member_name (b, "samples");
  json_builder_add_int_value (b, r->samples);
  add_double (b, "ready_ms", r->ready_ms, TRUE);
  add_double (b, "wait_ms", r->wait_ms, TRUE);
  add_double (b, LS_KEY_COPY_MS, r->copy_ms, r->compute_ms >= 0);
  add_double (b, LS_KEY_COMPUTE_MS, r->compute_ms, r->compute_ms >= 0);
  add_double (b, "read_ms", r->read_ms, TRUE);
  add_double (b, "decode_ms", r->decode_ms, TRUE);
  add_double (b, "transform_ms", r->transform_ms, TRUE);
  add_double (b, "write_ms", r->write_ms, TRUE);
  add_double (b, "idle_ms", r->idle_ms, TRUE);
  add_double (b, "busy_ms", r->busy_ms, TRUE);
  for (int k = 0; k < LS_N_SCRIPT_STAGES; k++)
    if (!isnan (ls_batch_record_script_stage (r, k)))
      {
        char name[32];
        g_snprintf (name, sizeof name, "%s_ms", ls_script_stage_name (k));
        add_double (b, name, ls_batch_record_script_stage (r, k), TRUE);
      }
  emit (ev, b);
}

void
ls_run_events_memory (ls_run_events *ev, const ls_memory_point *p)
{
  JsonBuilder *b = begin ("sample");
  add_double (b, "t_ms", p->t_ms, TRUE);
  json_builder_set_member_name (b, "processes");
  json_builder_add_int_value (b, p->processes);
  json_builder_set_member_name (b, "rss_bytes");
  json_builder_add_int_value (b, (gint64) p->rss_bytes);
  json_builder_set_member_name (b, "pss_bytes");
  json_builder_add_int_value (b, (gint64) p->pss_bytes);
  json_builder_set_member_name (b, "uss_bytes");
  json_builder_add_int_value (b, (gint64) p->uss_bytes);
  json_builder_set_member_name (b, "private_bytes");
  json_builder_add_int_value (b, (gint64) p->private_bytes);
  json_builder_set_member_name (b, "runner_pss_bytes");
  json_builder_add_int_value (b, (gint64) p->runner_pss_bytes);
  emit (ev, b);
}

void
ls_run_events_error (ls_run_events *ev, const char *message)
{
  JsonBuilder *b = begin ("error");
  json_builder_set_member_name (b, "message");
  json_builder_add_string_value (b, message);
  emit (ev, b);
}

void
ls_run_events_finished (ls_run_events *ev, JsonNode *summary)
{
  JsonBuilder *b = begin ("finished");
  json_builder_set_member_name (b, "summary");
  json_builder_add_value (b, json_node_copy (summary));
  emit (ev, b);
}

/* Whether text nests arrays and objects at most LS_RUN_EVENTS_MAX_DEPTH
 * deep (brackets inside strings do not count). */
static gboolean
depth_ok (const char *text, gsize len)
{
  int depth = 0;
  gboolean in_string = FALSE;
  for (gsize i = 0; i < len; i++)
    {
      char c = text[i];
      if (in_string)
        {
          if (c == '\\')
            i++;
          else if (c == '"')
            in_string = FALSE;
        }
      else if (c == '"')
        in_string = TRUE;
      else if ((c == '[' || c == '{') && ++depth > LS_RUN_EVENTS_MAX_DEPTH)
        return FALSE;
      else if (c == ']' || c == '}')
        depth--;
    }
  return TRUE;
}

/* The members readers take with typed getters have the type the runner
 * writes: "event" a string, the texts strings, "summary" an object, "pids"
 * an array, every other member a plain value. (json-glib gives NULL for the
 * string of a number, and warns on the number of an object.) */
static gboolean
in_list (const char *const *list, const char *name)
{
  return g_strv_contains (list, name);
}

static gboolean
plain (JsonNode *node)
{
  return JSON_NODE_HOLDS_VALUE (node) || JSON_NODE_HOLDS_NULL (node);
}

/* An object of figures (LS_KEY_BATCH_WAIT_MS: {"p50": ...}), at most one more
 * level of them ("stages_ms": {"total": {...}}). */
static gboolean
figures_ok (JsonObject *o, int levels)
{
  JsonObjectIter iter;
  const char *name;
  JsonNode *node;
  json_object_iter_init (&iter, o);
  while (json_object_iter_next (&iter, &name, &node))
    if (!plain (node) && !(levels > 0 && JSON_NODE_HOLDS_OBJECT (node) && figures_ok (json_node_get_object (node), levels - 1)))
      return FALSE;
  return TRUE;
}

/* A finished run's summary as its readers take it (the sweep's table,
 * `loadscope sweep`, the window): texts are strings, figures plain values
 * or objects of them; null anywhere. ("status": 1 gave NULL to strcmp.) */
static gboolean
summary_ok (JsonObject *summary)
{
  static const char *const texts[] = { "status", "error", "sink", "sink_note", "device", "dataset", "format",
                                       "start", "pin", "run_uuid", NULL };
  static const char *const figures[] = { LS_KEY_BATCH_WAIT_MS, LS_KEY_COPY_MS, LS_KEY_COMPUTE_MS, "stages_ms", "memory",
                                         "machine_busy", "nvml", "first_batch_parts_ms", NULL };
  static const char *const lists[] = { "worker_startup_ms", "worker_pids", "worker_measured_faults", NULL };
  JsonObjectIter iter;
  const char *name;
  JsonNode *node;

  json_object_iter_init (&iter, summary);
  while (json_object_iter_next (&iter, &name, &node))
    {
      if (JSON_NODE_HOLDS_NULL (node))
        continue;
      if (in_list (texts, name))
        {
          if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING)
            return FALSE;
        }
      else if (in_list (figures, name))
        {
          if (!JSON_NODE_HOLDS_OBJECT (node) || !figures_ok (json_node_get_object (node), 1))
            return FALSE;
        }
      else if (in_list (lists, name))
        {
          if (!JSON_NODE_HOLDS_ARRAY (node))
            return FALSE;
        }
      else if (strcmp (name, "verdict") == 0 || strcmp (name, "target") == 0)
        {
          /* target: --target pytorch's script, versions and knobs (app/target/) */
          if (!JSON_NODE_HOLDS_OBJECT (node))
            return FALSE;
        }
      else if (!JSON_NODE_HOLDS_VALUE (node))
        return FALSE;
    }
  return TRUE;
}

static gboolean
shape_ok (JsonObject *event)
{
  static const char *const texts[] = { "message", "sink", "sink_note", "run_uuid", NULL };
  JsonObjectIter iter;
  const char *name;
  JsonNode *node;
  JsonNode *kind = json_object_get_member (event, "event");

  if (!kind || !JSON_NODE_HOLDS_VALUE (kind) || json_node_get_value_type (kind) != G_TYPE_STRING)
    return FALSE;
  json_object_iter_init (&iter, event);
  while (json_object_iter_next (&iter, &name, &node))
    {
      if (strcmp (name, "summary") == 0)
        {
          if (!JSON_NODE_HOLDS_OBJECT (node) || !summary_ok (json_node_get_object (node)))
            return FALSE;
        }
      else if (strcmp (name, "pids") == 0)
        {
          if (!JSON_NODE_HOLDS_ARRAY (node))
            return FALSE;
        }
      else if (!plain (node))
        return FALSE;
      else if (in_list (texts, name) && JSON_NODE_HOLDS_VALUE (node)
               && json_node_get_value_type (node) != G_TYPE_STRING)
        return FALSE;
    }
  return TRUE;
}

JsonObject *
ls_run_events_parse_line (const char *line, gsize len)
{
  g_autoptr (JsonParser) parser = NULL;
  JsonNode *root;

  if (len == 0 || line[0] != '{' || !g_utf8_validate (line, (gssize) len, NULL) || !depth_ok (line, len))
    return NULL;
  parser = json_parser_new ();
  if (!json_parser_load_from_data (parser, line, (gssize) len, NULL) || !(root = json_parser_get_root (parser))
      || !JSON_NODE_HOLDS_OBJECT (root) || !shape_ok (json_node_get_object (root)))
    return NULL;
  return json_object_ref (json_node_get_object (root));
}
