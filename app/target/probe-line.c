/* The probe's lines, checked before they are believed (probe-line.h). */
#include "app/target/probe-line.h"

#include <gio/gio.h>
#include <math.h>
#include <string.h>

#include "app/core/summary-keys.h"
#include "app/store/import-input.h"

#define PID_MAX 4294967295.0
#define SHORT_TEXT 256   /* versions, a device, a dataset's class name */
#define LONG_TEXT 65536  /* a message, a traceback */

void
ls_probe_state_init (ls_probe_state *st)
{
  st->last_seq = -1;
}

static gboolean
bad (GError **error, const char *event, const char *member, const char *why)
{
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "%s%s%s: %s", event, member ? "." : "",
               member ? member : "", why);
  return FALSE;
}

/* A member that may be missing (when !required) or null (when nullable):
 * *present tells. */
static gboolean
member (JsonObject *o, const char *ev, const char *name, gboolean required, gboolean nullable, JsonNode **out,
        GError **error)
{
  *out = json_object_get_member (o, name);
  if (!*out)
    return required ? bad (error, ev, name, "missing") : TRUE;
  if (JSON_NODE_HOLDS_NULL (*out))
    {
      *out = NULL;
      return nullable ? TRUE : bad (error, ev, name, "null where a value is required");
    }
  return TRUE;
}

static gboolean
check_int (JsonObject *o, const char *ev, const char *name, gboolean required, gboolean nullable, double min,
           double max, GError **error)
{
  JsonNode *n;
  if (!member (o, ev, name, required, nullable, &n, error))
    return FALSE;
  if (!n)
    return TRUE;
  if (!JSON_NODE_HOLDS_VALUE (n) || json_node_get_value_type (n) != G_TYPE_INT64)
    return bad (error, ev, name, "not a whole number");
  gint64 v = json_node_get_int (n);
  if ((double) v < min || (double) v > max)
    {
      /* untranslated: a reason the probe's line is refused: the run's error, kept in the store */
      g_autofree char *why = g_strdup_printf ("%" G_GINT64_FORMAT " is out of range (%.15g to %.15g)", v, min, max);
      return bad (error, ev, name, why);
    }
  return TRUE;
}

static gboolean
check_number (JsonObject *o, const char *ev, const char *name, gboolean required, gboolean nullable, double max,
              GError **error)
{
  JsonNode *n;
  if (!member (o, ev, name, required, nullable, &n, error))
    return FALSE;
  if (!n)
    return TRUE;
  GType t = JSON_NODE_HOLDS_VALUE (n) ? json_node_get_value_type (n) : G_TYPE_INVALID;
  if (t != G_TYPE_INT64 && t != G_TYPE_DOUBLE)
    return bad (error, ev, name, "not a number");
  double v = json_node_get_double (n);
  if (!isfinite (v) || v < 0 || v > max)
    {
      /* untranslated: a reason the probe's line is refused: the run's error, kept in the store */
      g_autofree char *why = g_strdup_printf ("%g is out of range (0 to %.15g)", v, max);
      return bad (error, ev, name, why);
    }
  return TRUE;
}

static gboolean
check_bool (JsonObject *o, const char *ev, const char *name, gboolean required, GError **error)
{
  JsonNode *n;
  if (!member (o, ev, name, required, FALSE, &n, error))
    return FALSE;
  if (n && (!JSON_NODE_HOLDS_VALUE (n) || json_node_get_value_type (n) != G_TYPE_BOOLEAN))
    return bad (error, ev, name, "not true or false");
  return TRUE;
}

/* A string of at most max bytes; `label` ones hold no control characters
 * (they are printed and put in file names as they are). */
static gboolean
text_ok (const char *s, gsize max, gboolean label)
{
  gsize len = strlen (s);
  if (len > max)
    return FALSE;
  for (gsize i = 0; label && i < len; i++)
    if ((guchar) s[i] < 0x20 || s[i] == 0x7f)
      return FALSE;
  return TRUE;
}

static gboolean
check_text (JsonObject *o, const char *ev, const char *name, gboolean required, gboolean nullable, gsize max,
            gboolean label, GError **error)
{
  JsonNode *n;
  if (!member (o, ev, name, required, nullable, &n, error))
    return FALSE;
  if (!n)
    return TRUE;
  if (!JSON_NODE_HOLDS_VALUE (n) || json_node_get_value_type (n) != G_TYPE_STRING)
    return bad (error, ev, name, "not a string");
  if (!text_ok (json_node_get_string (n), max, label))
    {
      /* untranslated: a reason the probe's line is refused: the run's error, kept in the store */
      g_autofree char *why = g_strdup_printf (label ? "longer than %" G_GSIZE_FORMAT " bytes or holds control characters"
                                                    /* untranslated: a reason the probe's line is refused: the run's error, kept in the store */
                                                    : "longer than %" G_GSIZE_FORMAT " bytes",
                                              max);
      return bad (error, ev, name, why);
    }
  return TRUE;
}

static gboolean
check_probe (JsonObject *o, GError **error)
{
  return check_int (o, "probe", "pid", TRUE, FALSE, 2, PID_MAX, error)
         && check_text (o, "probe", "python", FALSE, TRUE, 64, TRUE, error)
         && check_text (o, "probe", "torch", FALSE, TRUE, 64, TRUE, error)
         && check_text (o, "probe", "executable", FALSE, TRUE, 4096, TRUE, error)
         && check_bool (o, "probe", "cuda", FALSE, error)
         && check_bool (o, "probe", "copies_timed", FALSE, error)
         && check_text (o, "probe", "device", FALSE, TRUE, SHORT_TEXT, TRUE, error);
}

/* script_asked: the knobs as the script wrote them, plain values only (it
 * is stored in the summary: no depth of the script's choosing). */
static gboolean
check_asked (JsonObject *o, GError **error)
{
  JsonNode *n;
  if (!member (o, "loader", "script_asked", FALSE, TRUE, &n, error))
    return FALSE;
  if (!n)
    return TRUE;
  if (!JSON_NODE_HOLDS_OBJECT (n))
    return bad (error, "loader", "script_asked", "not an object");
  JsonObject *asked = json_node_get_object (n);
  if (json_object_get_size (asked) > 16)
    return bad (error, "loader", "script_asked", "more than 16 members");
  JsonObjectIter it;
  const char *name;
  JsonNode *v;
  json_object_iter_init (&it, asked);
  while (json_object_iter_next (&it, &name, &v))
    {
      if (!text_ok (name, 64, TRUE) || !(JSON_NODE_HOLDS_NULL (v) || JSON_NODE_HOLDS_VALUE (v)))
        return bad (error, "loader", "script_asked", "a member is not a plain value under a short name");
      if (JSON_NODE_HOLDS_VALUE (v) && json_node_get_value_type (v) == G_TYPE_STRING
          && !text_ok (json_node_get_string (v), SHORT_TEXT, FALSE))
        return bad (error, "loader", "script_asked", "a text longer than 256 bytes");
      if (JSON_NODE_HOLDS_VALUE (v) && json_node_get_value_type (v) == G_TYPE_DOUBLE
          && !isfinite (json_node_get_double (v)))
        return bad (error, "loader", "script_asked", "a number that is not finite");
    }
  return TRUE;
}

static gboolean
check_notes (JsonObject *o, GError **error)
{
  JsonNode *n;
  if (!member (o, "loader", "notes", FALSE, TRUE, &n, error))
    return FALSE;
  if (!n)
    return TRUE;
  if (!JSON_NODE_HOLDS_ARRAY (n))
    return bad (error, "loader", "notes", "not an array");
  JsonArray *a = json_node_get_array (n);
  if (json_array_get_length (a) > 64)
    return bad (error, "loader", "notes", "more than 64 notes");
  for (guint i = 0; i < json_array_get_length (a); i++)
    {
      JsonNode *e = json_array_get_element (a, i);
      if (!JSON_NODE_HOLDS_VALUE (e) || json_node_get_value_type (e) != G_TYPE_STRING
          || !text_ok (json_node_get_string (e), 4096, FALSE))
        return bad (error, "loader", "notes", "a note is not a string of at most 4096 bytes");
    }
  return TRUE;
}

static gboolean
check_loader (JsonObject *o, GError **error)
{
  if (!(check_int (o, "loader", "index", FALSE, FALSE, 0, LS_PROBE_MAX_EPOCH, error)
        && check_int (o, "loader", "num_workers", TRUE, FALSE, 0, LS_PROBE_MAX_WORKERS, error)
        && check_int (o, "loader", "batch_size", TRUE, TRUE, 1, LS_PROBE_MAX_SAMPLES, error)
        && check_int (o, "loader", "prefetch_factor", FALSE, TRUE, 1, 64, error)
        && check_bool (o, "loader", "persistent_workers", FALSE, error)
        && check_bool (o, "loader", "pin_memory", FALSE, error)
        && check_text (o, "loader", "multiprocessing_context", FALSE, TRUE, 16, TRUE, error)
        && check_text (o, "loader", "dataset", FALSE, TRUE, SHORT_TEXT, TRUE, error)
        && check_int (o, "loader", "dataset_samples", FALSE, TRUE, 0, (double) LS_PROBE_MAX_COUNT, error)
        && check_asked (o, error) && check_notes (o, error)))
    return FALSE;
  const char *mp = json_object_get_string_member_with_default (o, "multiprocessing_context", NULL);
  if (mp && strcmp (mp, "fork") != 0 && strcmp (mp, "spawn") != 0 && strcmp (mp, "forkserver") != 0)
    return bad (error, "loader", "multiprocessing_context", "not fork, spawn or forkserver");
  return TRUE;
}

static gboolean
check_workers (JsonObject *o, GError **error)
{
  if (!check_int (o, "workers", "epoch", TRUE, FALSE, 0, LS_PROBE_MAX_EPOCH, error))
    return FALSE;
  JsonNode *n = json_object_get_member (o, "pids");
  if (!n || !JSON_NODE_HOLDS_ARRAY (n))
    return bad (error, "workers", "pids", "missing or not an array");
  JsonArray *a = json_node_get_array (n);
  if (json_array_get_length (a) > LS_PROBE_MAX_WORKERS)
    return bad (error, "workers", "pids", "more pids than a DataLoader has workers (60)");
  for (guint i = 0; i < json_array_get_length (a); i++)
    {
      JsonNode *e = json_array_get_element (a, i);
      if (!JSON_NODE_HOLDS_VALUE (e) || json_node_get_value_type (e) != G_TYPE_INT64)
        return bad (error, "workers", "pids", "a pid is not a whole number");
      gint64 pid = json_node_get_int (e);
      /* pid 1 is init, never a worker; 0 and below name process groups. */
      if (pid < 2 || (double) pid > PID_MAX)
        {
          /* untranslated: a reason the probe's line is refused: the run's error, kept in the store */
          g_autofree char *why = g_strdup_printf ("pid %" G_GINT64_FORMAT " cannot be a worker", pid);
          return bad (error, "workers", "pids", why);
        }
    }
  return TRUE;
}

static gboolean
check_batch (ls_probe_state *st, JsonObject *o, GError **error)
{
  if (!(check_int (o, "batch", "seq", TRUE, FALSE, 0, (double) LS_PROBE_MAX_COUNT, error)
        && check_int (o, "batch", "epoch", TRUE, FALSE, 0, LS_PROBE_MAX_EPOCH, error)
        && check_int (o, "batch", "batch", TRUE, FALSE, 0, (double) LS_PROBE_MAX_COUNT, error)
        && check_int (o, "batch", "samples", TRUE, FALSE, 0, LS_PROBE_MAX_SAMPLES, error)
        && check_number (o, "batch", "ready_ms", TRUE, FALSE, LS_PROBE_MAX_MS, error)
        && check_number (o, "batch", "wait_ms", TRUE, FALSE, LS_PROBE_MAX_MS, error)
        && check_number (o, "batch", LS_KEY_COMPUTE_MS, FALSE, TRUE, LS_PROBE_MAX_MS, error)
        && check_number (o, "batch", LS_KEY_COPY_MS, FALSE, TRUE, LS_PROBE_MAX_MS, error)
        && check_number (o, "batch", "busy_ms", FALSE, TRUE, LS_PROBE_MAX_MS, error)
        && check_number (o, "batch", "idle_ms", FALSE, TRUE, LS_PROBE_MAX_MS, error)
        && check_number (o, "batch", "sampler_ms", FALSE, TRUE, LS_PROBE_MAX_MS, error)
        && check_number (o, "batch", "getitem_ms", FALSE, TRUE, LS_PROBE_MAX_MS, error)
        && check_number (o, "batch", "collate_ms", FALSE, TRUE, LS_PROBE_MAX_MS, error)
        && check_number (o, "batch", "handoff_ms", FALSE, TRUE, LS_PROBE_MAX_MS, error)
        && check_number (o, "batch", "pin_ms", FALSE, TRUE, LS_PROBE_MAX_MS, error)
        && check_number (o, "batch", "build_start_ms", FALSE, TRUE, LS_PROBE_MAX_MS, error)
        && check_number (o, "batch", "build_end_ms", FALSE, TRUE, LS_PROBE_MAX_MS, error)
        && check_int (o, "batch", "worker_pid", FALSE, TRUE, 1, PID_MAX, error)))
    return FALSE;
  gint64 seq = json_object_get_int_member (o, "seq");
  if (seq <= st->last_seq)
    {
      /* untranslated: a reason the probe's line is refused: the run's error, kept in the store */
      g_autofree char *why = g_strdup_printf ("%" G_GINT64_FORMAT " does not follow the last batch's %" G_GINT64_FORMAT,
                                              seq, st->last_seq);
      return bad (error, "batch", "seq", why);
    }
  st->last_seq = seq;
  return TRUE;
}

static const char *const event_names[] = {
  [LS_PROBE_EV_PROBE] = "probe",     [LS_PROBE_EV_LOADER] = "loader",     [LS_PROBE_EV_WORKERS] = "workers",
  [LS_PROBE_EV_WORKER_READY] = "worker_ready", [LS_PROBE_EV_BATCH] = "batch", [LS_PROBE_EV_FINISHED] = "finished",
  [LS_PROBE_EV_ERROR] = "error",     [LS_PROBE_EV_STAGES] = "stages",     [LS_PROBE_EV_RANKS] = "ranks",
};

/* Figures in a flat object: what the runner may copy into the summary
 * without giving the script a say in its shape. */
static gboolean
check_figures (JsonObject *o, const char *ev, GError **error)
{
  if (json_object_get_size (o) > 64)
    return bad (error, ev, NULL, "more than 64 members");
  JsonObjectIter it;
  const char *name;
  JsonNode *v;
  json_object_iter_init (&it, o);
  while (json_object_iter_next (&it, &name, &v))
    {
      if (strcmp (name, "event") == 0)
        continue;
      if (!text_ok (name, 64, TRUE))
        return bad (error, ev, NULL, "a member name longer than 64 bytes or with control characters");
      if (JSON_NODE_HOLDS_NULL (v))
        continue;
      if (!check_number (o, ev, name, TRUE, TRUE, (double) LS_PROBE_MAX_COUNT, error))
        return FALSE;
    }
  return TRUE;
}

/* ranks: as many flat objects of figures as world_size says, each with
 * its rank in order (the launcher in loadscope_probe/ranks.py). */
static gboolean
check_ranks (JsonObject *o, GError **error)
{
  if (!(check_int (o, "ranks", "world_size", TRUE, FALSE, 1, LS_PROBE_MAX_RANKS, error)
        && check_int (o, "ranks", "master_port", FALSE, TRUE, 1, 65535, error)))
    return FALSE;
  JsonNode *n = json_object_get_member (o, "ranks");
  if (!n || !JSON_NODE_HOLDS_ARRAY (n))
    return bad (error, "ranks", "ranks", "missing or not an array");
  JsonArray *a = json_node_get_array (n);
  if ((gint64) json_array_get_length (a) != json_object_get_int_member (o, "world_size"))
    return bad (error, "ranks", "ranks", "not one entry per rank of world_size");
  for (guint i = 0; i < json_array_get_length (a); i++)
    {
      JsonNode *e = json_array_get_element (a, i);
      if (!JSON_NODE_HOLDS_OBJECT (e))
        return bad (error, "ranks", "ranks", "an entry is not an object");
      JsonObject *r = json_node_get_object (e);
      if (!check_figures (r, "ranks[]", error)
          || !check_int (r, "ranks[]", "rank", TRUE, FALSE, i, i, error))
        return FALSE;
    }
  return TRUE;
}

static gboolean
check_event (ls_probe_state *st, JsonObject *o, ls_probe_event kind, GError **error)
{
  switch (kind)
    {
    case LS_PROBE_EV_PROBE:
      return check_probe (o, error);
    case LS_PROBE_EV_LOADER:
      return check_loader (o, error);
    case LS_PROBE_EV_WORKERS:
      return check_workers (o, error);
    case LS_PROBE_EV_WORKER_READY:
      return check_int (o, "worker_ready", "pid", TRUE, FALSE, 2, PID_MAX, error)
             && check_int (o, "worker_ready", "worker", FALSE, TRUE, 0, LS_PROBE_MAX_WORKERS - 1, error)
             && check_number (o, "worker_ready", "startup_ms", FALSE, TRUE, LS_PROBE_MAX_MS, error);
    case LS_PROBE_EV_BATCH:
      return check_batch (st, o, error);
    case LS_PROBE_EV_FINISHED:
      return check_text (o, "finished", "reason", FALSE, TRUE, 64, TRUE, error)
             && check_int (o, "finished", "batches", FALSE, TRUE, 0, (double) LS_PROBE_MAX_COUNT, error)
             && check_number (o, "finished", "cpu_ms", FALSE, TRUE, LS_PROBE_MAX_MS, error);
    case LS_PROBE_EV_ERROR:
      return check_text (o, "error", "kind", FALSE, TRUE, 64, TRUE, error)
             && check_text (o, "error", "message", TRUE, FALSE, LONG_TEXT, FALSE, error)
             && check_text (o, "error", "traceback", FALSE, TRUE, LONG_TEXT, FALSE, error);
    case LS_PROBE_EV_STAGES:
      return check_figures (o, "stages", error);
    case LS_PROBE_EV_RANKS:
      return check_ranks (o, error);
    }
  return bad (error, "?", NULL, "an unknown event");
}

JsonObject *
ls_probe_line_parse (ls_probe_state *st, const char *line, gsize len, ls_probe_event *kind, GError **error)
{
  if (len > LS_PROBE_LINE_MAX)
    {
      /* untranslated: a reason the probe's line is refused: the run's error, kept in the store */
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "a line of %" G_GSIZE_FORMAT " bytes (at most %"
                   G_GSIZE_FORMAT ")", len, LS_PROBE_LINE_MAX);
      return NULL;
    }
  if (!g_utf8_validate_len (line, len, NULL))
    {
      /* untranslated: a reason the probe's line is refused: the run's error, kept in the store */
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "a line that is not UTF-8 text");
      return NULL;
    }
  /* The import's own depth cap, before json-glib recurses once per level. */
  g_autoptr (GError) local = NULL;
  if (!ls_json_text_check (line, len, &local))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "%s", local->message);
      return NULL;
    }
  g_autoptr (JsonParser) parser = json_parser_new ();
  if (!json_parser_load_from_data (parser, line, (gssize) len, &local))
    {
      /* untranslated: a reason the probe's line is refused: the run's error, kept in the store */
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "a line that is not JSON: %s", local->message);
      return NULL;
    }
  JsonNode *root = json_parser_get_root (parser);
  if (!root || !JSON_NODE_HOLDS_OBJECT (root))
    {
      /* untranslated: a reason the probe's line is refused: the run's error, kept in the store */
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "a line that is not a JSON object");
      return NULL;
    }
  JsonObject *o = json_node_get_object (root);
  JsonNode *ev = json_object_get_member (o, "event");
  if (!ev || !JSON_NODE_HOLDS_VALUE (ev) || json_node_get_value_type (ev) != G_TYPE_STRING)
    {
      /* untranslated: a reason the probe's line is refused: the run's error, kept in the store */
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "a line without an \"event\" string");
      return NULL;
    }
  const char *name = json_node_get_string (ev);
  for (guint k = 0; k < G_N_ELEMENTS (event_names); k++)
    if (strcmp (name, event_names[k]) == 0)
      {
        if (!check_event (st, o, (ls_probe_event) k, error))
          return NULL;
        *kind = (ls_probe_event) k;
        return json_object_ref (o);
      }
  /* untranslated: a reason the probe's line is refused: the run's error, kept in the store */
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "an unknown event (not one the probe writes)");
  return NULL;
}

struct ls_probe_reader {
  GString *partial; /* an unfinished line */
};

ls_probe_reader *
ls_probe_reader_new (void)
{
  ls_probe_reader *r = g_new0 (ls_probe_reader, 1);
  r->partial = g_string_new (NULL);
  return r;
}

void
ls_probe_reader_free (ls_probe_reader *r)
{
  if (!r)
    return;
  g_string_free (r->partial, TRUE);
  g_free (r);
}

gsize
ls_probe_reader_pending (const ls_probe_reader *r)
{
  return r->partial->len;
}

static gboolean
too_long (GError **error)
{
  /* untranslated: a reason the probe's line is refused: the run's error, kept in the store */
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "a line longer than %" G_GSIZE_FORMAT " bytes",
               LS_PROBE_LINE_MAX);
  return FALSE;
}

gboolean
ls_probe_reader_feed (ls_probe_reader *r, const char *data, gsize len, ls_probe_line_fn fn, gpointer user,
                      GError **error)
{
  /* Each byte is looked at once: a line that never ends costs its length,
   * not its length squared. */
  while (len > 0)
    {
      const char *nl = memchr (data, '\n', len);
      gsize piece = nl ? (gsize) (nl - data) : len;
      if (r->partial->len + piece > LS_PROBE_LINE_MAX)
        {
          g_string_truncate (r->partial, 0);
          return too_long (error);
        }
      if (!nl)
        {
          g_string_append_len (r->partial, data, (gssize) piece);
          return TRUE;
        }
      gboolean go_on;
      if (r->partial->len == 0)
        go_on = fn (user, data, piece);
      else
        {
          g_string_append_len (r->partial, data, (gssize) piece);
          go_on = fn (user, r->partial->str, r->partial->len);
          g_string_truncate (r->partial, 0);
        }
      if (!go_on)
        return FALSE;
      data += piece + 1;
      len -= piece + 1;
    }
  return TRUE;
}
