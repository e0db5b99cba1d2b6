#include "app/store/export-format-private.h"
#include "app/core/i18n.h"
#include "app/core/record-ranges.h"
#include "app/core/text-controls.h"
#include "app/core/summary-keys.h"
#include "app/store/import-input.h"

#include <math.h>
#include <string.h>

#include "app/store/store-private.h"
#include "loader/pool.h"

#define BYTES_MAX LS_RECORD_MAX_BYTES
#define COUNT_MAX LS_RECORD_MAX_COUNT
#define MS_MAX LS_RECORD_MAX_MS
#define NS_MAX 4e18
#define TEXT_MAX 4096
#define PID_MAX 4294967295.0

/* min/max for text: its length in bytes. */
#define T(name, min, max, set) { name, LS_FIELD_TEXT, FALSE, min, max, set, 1 }
#define TN(name, max) { name, LS_FIELD_TEXT, TRUE, 0, max, NULL, 1 }
#define I(name, min, max) { name, LS_FIELD_INT, FALSE, min, max, NULL, 1 }
#define IN(name, min, max, since) { name, LS_FIELD_INT, TRUE, min, max, NULL, since }
#define R(name, min, max) { name, LS_FIELD_REAL, FALSE, min, max, NULL, 1 }
#define RN(name, min, max, since) { name, LS_FIELD_REAL, TRUE, min, max, NULL, since }
#define F(name) { name, LS_FIELD_FLAG, FALSE, 0, 1, NULL, 1 }

static const ls_field machine_fields[] = {
  { "fingerprint", LS_FIELD_FINGERPRINT, FALSE, 0, 0, NULL, 1 },
  T ("hostname", 1, 255, NULL),
  T ("os", 0, 1024, NULL),
  T ("kernel", 0, 1024, NULL),
  T ("arch", 0, 64, NULL),
  T ("cpu_model", 0, 1024, NULL),
  I ("logical_cores", 1, 65536),
  I ("ram_bytes", 0, BYTES_MAX),
  TN ("gpu", 1024),
  TN ("driver", 256),
  TN ("cuda", 256),
  { "container", LS_FIELD_TEXT, TRUE, 0, 32, NULL, 11 },
};

static const char *const sweep_statuses[] = { "running", "done", "failed", "interrupted", NULL };

static const ls_field sweep_fields[] = {
  { "uuid", LS_FIELD_UUID, FALSE, 0, 0, NULL, 1 },
  { "machine_fingerprint", LS_FIELD_MACHINE_REF, FALSE, 0, 0, NULL, 1 },
  { "started_at", LS_FIELD_TIME, FALSE, 0, 0, NULL, 1 },
  { "finished_at", LS_FIELD_TIME, TRUE, 0, 0, NULL, 1 },
  T ("status", 1, 32, sweep_statuses),
  { "grid", LS_FIELD_JSON, FALSE, 0, 0, NULL, 1 },
  I ("configurations", 0, 1000000),
  I ("repeat", 1, 1000000),
  { "error", LS_FIELD_TEXT, TRUE, 0, 65536, NULL, 3 },
  /* The process that owned a running sweep, as runner_pid: kept for the
   * record, dropped on import (it means nothing on another machine). */
  IN ("owner_pid", 0, PID_MAX, 5),
  IN ("owner_start", 0, (double) G_MAXINT64, 5),
};

const char *const ls_run_statuses[] = { "running", "done", "failed", "interrupted", NULL };
static const char *const formats[] = { "synthetic", "jpeg-dir", "hdf5", "pytorch", NULL };
static const char *const start_methods[] = { "fork", "spawn", NULL };
static const char *const on_errors[] = { "fail", "skip", NULL };
static const char *const outputs[] = { "f32-chw", "u8-hwc", NULL };
static const char *const sinks[] = { "none", "sim", "cuda", NULL };
static const char *const pins[] = { "off", "staging", "arena", NULL };

static const ls_field run_fields[] = {
  { "uuid", LS_FIELD_UUID, FALSE, 0, 0, NULL, 1 },
  { "machine_fingerprint", LS_FIELD_MACHINE_REF, FALSE, 0, 0, NULL, 1 },
  { "sweep_uuid", LS_FIELD_SWEEP_REF, TRUE, 0, 0, NULL, 1 },
  IN ("runner_pid", 0, PID_MAX, 1),
  { "started_at", LS_FIELD_TIME, FALSE, 0, 0, NULL, 1 },
  { "finished_at", LS_FIELD_TIME, TRUE, 0, 0, NULL, 1 },
  T ("status", 1, 32, ls_run_statuses),
  TN ("error", 65536),
  T ("dataset", 1, TEXT_MAX, NULL),
  T ("format", 1, 32, formats),
  IN ("dataset_samples", 0, COUNT_MAX, 1),
  IN ("sample_bytes", 0, BYTES_MAX, 1),
  I ("workers", 0, LS_RECORD_MAX_WORKERS),
  T ("start_method", 1, 16, start_methods),
  I ("batch_size", 1, LS_RECORD_MAX_BATCH_SIZE),
  I ("prefetch", 1, 64),
  F ("persistent"),
  F ("shuffle"),
  F ("drop_last"),
  F ("in_order"),
  I ("seed", 0, (double) G_MAXINT64), /* every seed `run` takes, 2^63 - 1 included */
  R ("timeout_s", 0, 1e7),
  T ("on_error", 1, 16, on_errors),
  T ("output", 1, 16, outputs),
  I ("epochs", 0, LS_RECORD_MAX_EPOCHS),
  I ("max_batches", 0, COUNT_MAX),
  I ("warmup", 0, 4294967295.0),
  T ("sink", 1, 16, sinks),
  F ("simulated"),
  { "pin", LS_FIELD_TEXT, TRUE, 1, 16, pins, 1 },
  { "non_blocking", LS_FIELD_FLAG, TRUE, 0, 1, NULL, 1 },
  RN ("model_ms", 0, 60000, 1),
  { "summary", LS_FIELD_JSON, TRUE, 0, 0, NULL, 1 },
  RN (LS_KEY_THROUGHPUT, 0, LS_RECORD_MAX_THROUGHPUT, 2),
  RN ("wait_p50_ms", 0, MS_MAX, 2),
  RN ("wait_p95_ms", 0, MS_MAX, 2),
  RN ("wait_p99_ms", 0, MS_MAX, 2),
  RN ("wait_max_ms", 0, MS_MAX, 2),
  RN (LS_KEY_GPU_UTIL_EXACT, 0, 1.000001, 2),
  RN (LS_KEY_GPU_UTIL_NVML, 0, 1.000001, 2),
  IN ("rss_peak_bytes", 0, BYTES_MAX, 2),
  IN (LS_KEY_PSS_PEAK, 0, BYTES_MAX, 2),
  IN ("uss_peak_bytes", 0, BYTES_MAX, 2),
  IN ("private_peak_bytes", 0, BYTES_MAX, 2),
  IN ("arena_bytes", 0, BYTES_MAX, 2),
  RN ("cpu_percent", 0, LS_RECORD_MAX_CPU_PERCENT, 2),
  RN (LS_KEY_FIRST_BATCH_MS, 0, MS_MAX, 2),
  RN ("epoch_boundary_ms", 0, MS_MAX, 2),
  IN ("samples", 0, COUNT_MAX, 2),
  IN ("skipped_samples", 0, COUNT_MAX, 2),
  RN ("stage_read_ms", 0, MS_MAX, 4),
  RN ("stage_decode_ms", 0, MS_MAX, 4),
  RN ("stage_transform_ms", 0, MS_MAX, 4),
  RN ("stage_write_ms", 0, MS_MAX, 4),
  RN ("stage_idle_ms", 0, MS_MAX, 4),
  RN ("stage_busy_ms", 0, MS_MAX, 4),
  RN ("first_worker_start_ms", 0, MS_MAX, 9),
  RN ("first_populate_ms", 0, MS_MAX, 9),
  RN ("first_in_flight_ms", 0, MS_MAX, 9),
  RN ("first_build_ms", 0, MS_MAX, 9),
  RN ("first_handoff_ms", 0, MS_MAX, 9),
  IN ("arena_page_bytes", 0, BYTES_MAX, 9),
};

static const ls_field batch_fields[] = {
  I ("seq", 0, COUNT_MAX),
  I ("epoch", 0, 1000000),
  I ("batch", 0, COUNT_MAX),
  I ("samples", 0, LS_RECORD_MAX_BATCH_SIZE),
  R ("ready_ms", 0, MS_MAX),
  R ("wait_ms", 0, MS_MAX),
  RN (LS_KEY_COPY_MS, 0, MS_MAX, 2),
  RN (LS_KEY_COMPUTE_MS, 0, MS_MAX, 2),
  RN ("stage_ms", 0, MS_MAX, 2),
  RN ("read_ms", 0, MS_MAX, 4),
  RN ("decode_ms", 0, MS_MAX, 4),
  RN ("transform_ms", 0, MS_MAX, 4),
  RN ("write_ms", 0, MS_MAX, 4),
  RN ("idle_ms", 0, MS_MAX, 4),
  RN ("busy_ms", 0, MS_MAX, 4),
  RN ("sampler_ms", 0, MS_MAX, 6),
  RN ("getitem_ms", 0, MS_MAX, 6),
  RN ("collate_ms", 0, MS_MAX, 6),
  RN ("handoff_ms", 0, MS_MAX, 6),
  RN ("pin_ms", 0, MS_MAX, 7),
  IN ("worker", -1, 65536, 8),
  RN ("build_start_ms", 0, MS_MAX, 8),
  RN ("build_end_ms", 0, MS_MAX, 8),
};

static const ls_field sample_fields[] = {
  R ("t_ms", 0, MS_MAX),
  IN ("processes", 0, 65536, 1),
  IN ("rss_bytes", 0, BYTES_MAX, 1),
  IN ("pss_bytes", 0, BYTES_MAX, 1),
  IN ("uss_bytes", 0, BYTES_MAX, 1),
  IN ("working_set_bytes", 0, BYTES_MAX, 1),
  IN ("private_bytes", 0, BYTES_MAX, 1),
  IN ("runner_pss_bytes", 0, BYTES_MAX, 1),
  IN ("cpu_ns", 0, NS_MAX, 1),
  RN ("gpu_util", 0, 1.000001, 2),
  IN ("gpu_mem_bytes", 0, BYTES_MAX, 2),
};

static const ls_field worker_fields[] = {
  I ("idx", 0, LS_RECORD_MAX_WORKERS - 1),
  I ("epoch", 0, 1000000),
  I ("pid", 0, PID_MAX),
  RN ("startup_ms", 0, MS_MAX, 1),
  TN ("exit", 1024),
  IN ("cpu_ns", 0, NS_MAX, 1),
  RN ("populate_ms", 0, MS_MAX, 9),
  IN ("measured_faults", 0, COUNT_MAX, 9),
  IN ("measured_bytes", 0, BYTES_MAX, 9),
};

const ls_record_kind ls_record_machine = { "machine", "machines", machine_fields, G_N_ELEMENTS (machine_fields) };
const ls_record_kind ls_record_sweep = { "sweep", "sweeps", sweep_fields, G_N_ELEMENTS (sweep_fields) };
const ls_record_kind ls_record_run = { "run", "runs", run_fields, G_N_ELEMENTS (run_fields) };
const ls_record_kind ls_record_batch = { "batch", "batches", batch_fields, G_N_ELEMENTS (batch_fields) };
const ls_record_kind ls_record_sample = { "sample", "series", sample_fields, G_N_ELEMENTS (sample_fields) };
const ls_record_kind ls_record_worker = { "worker", "worker_processes", worker_fields, G_N_ELEMENTS (worker_fields) };

int
ls_record_field_index (const ls_record_kind *kind, const char *name)
{
  for (guint i = 0; i < kind->n_fields; i++)
    if (strcmp (kind->fields[i].name, name) == 0)
      return (int) i;
  return -1;
}

const ls_field *
ls_record_field (const ls_record_kind *kind, const char *name)
{
  int i = ls_record_field_index (kind, name);
  return i < 0 ? NULL : &kind->fields[i];
}

void
ls_field_values_clear (ls_field_value *values, guint n)
{
  for (guint i = 0; i < n; i++)
    {
      if (values[i].node)
        json_node_unref (values[i].node);
      memset (&values[i], 0, sizeof values[i]);
    }
}

char *
ls_record_select_sql (const ls_record_kind *kind, const char *extra, const char *tail)
{
  GString *sql = g_string_new ("SELECT ");
  for (guint i = 0; i < kind->n_fields; i++)
    {
      const ls_field *f = &kind->fields[i];
      if (i)
        g_string_append (sql, ", ");
      if (f->kind == LS_FIELD_MACHINE_REF)
        /* untranslated: SQL */
        g_string_append (sql, "(SELECT fingerprint FROM machine WHERE machine.id = t.machine_id)");
      else if (f->kind == LS_FIELD_SWEEP_REF)
        /* untranslated: SQL */
        g_string_append (sql, "(SELECT uuid FROM sweep WHERE sweep.id = t.sweep_id)");
      else
        g_string_append_printf (sql, "t.\"%s\"", f->name);
    }
  if (extra)
    g_string_append_printf (sql, ", %s", extra);
  g_string_append_printf (sql, " FROM \"%s\" AS t", kind->table);
  if (tail)
    g_string_append_printf (sql, " %s", tail);
  return g_string_free (sql, FALSE);
}

static JsonNode *
parse_json_text (const char *text, gsize len)
{
  g_autoptr (JsonParser) parser = json_parser_new_immutable ();
  /* A bundle's column may nest 100,000 levels: json-glib would overflow the stack. */
  if (!ls_json_text_check (text, len, NULL))
    return NULL;
  g_autofree char *fixed = g_strndup (text, len); /* stored by json-glib: "1e-300.0" */
  len = ls_json_text_repair_numbers (fixed, len);
  if (!json_parser_load_from_data (parser, fixed, (gssize) len, NULL) || !json_parser_get_root (parser))
    return NULL;
  return json_node_ref (json_parser_get_root (parser));
}

void
ls_record_from_row (const ls_record_kind *kind, sqlite3_stmt *st, ls_field_value *values)
{
  for (guint i = 0; i < kind->n_fields; i++)
    {
      ls_field_value *v = &values[i];
      memset (v, 0, sizeof *v);
      v->present = TRUE;
      switch (sqlite3_column_type (st, (int) i))
        {
        case SQLITE_NULL:
          v->type = LS_VALUE_NULL;
          break;
        case SQLITE_INTEGER:
          v->type = LS_VALUE_INT;
          v->i = sqlite3_column_int64 (st, (int) i);
          break;
        case SQLITE_FLOAT:
          v->type = LS_VALUE_REAL;
          v->d = sqlite3_column_double (st, (int) i);
          break;
        case SQLITE_TEXT:
          v->s = (const char *) sqlite3_column_text (st, (int) i);
          v->len = (gsize) sqlite3_column_bytes (st, (int) i);
          v->type = LS_VALUE_TEXT;
          if (kind->fields[i].kind == LS_FIELD_JSON)
            {
              v->node = parse_json_text (v->s, v->len);
              v->type = v->node ? LS_VALUE_NODE : LS_VALUE_OTHER;
            }
          break;
        default:
          v->type = LS_VALUE_OTHER;
          break;
        }
    }
}

static gboolean
in_list (const char *const *list, const char *name)
{
  for (; list && *list; list++)
    if (strcmp (*list, name) == 0)
      return TRUE;
  return FALSE;
}

gboolean
ls_store_invalid (GError **error, const char *format, ...)
{
  va_list ap;
  va_start (ap, format);
  char *message = g_strdup_vprintf (format, ap);
  va_end (ap);
  g_set_error_literal (error, LS_STORE_ERROR, LS_STORE_ERROR_INVALID, message);
  g_free (message);
  return FALSE;
}

gboolean
ls_record_from_json (const ls_record_kind *kind, JsonObject *object, int version, const char *const *extra,
                     ls_field_value *values, const char *where, GError **error)
{
  g_autoptr (GList) members = json_object_get_members (object);
  /* Cleared first: the caller clears values even when this refuses the record. */
  memset (values, 0, kind->n_fields * sizeof *values);
  for (GList *l = members; l; l = l->next)
    {
      const char *name = l->data;
      int i = ls_record_field_index (kind, name);
      if (i < 0 && !in_list (extra, name))
        return ls_store_invalid (error, "%s: unknown field '%s'", where, name);
      if (i >= 0 && kind->fields[i].since > version)
        return ls_store_invalid (error, "%s: field '%s' is not part of version %d exports", where, name, version);
    }
  for (guint i = 0; i < kind->n_fields; i++)
    {
      ls_field_value *v = &values[i];
      JsonNode *node = json_object_get_member (object, kind->fields[i].name);
      memset (v, 0, sizeof *v);
      v->present = node != NULL || kind->fields[i].since > version;
      if (!node || JSON_NODE_HOLDS_NULL (node))
        {
          v->type = LS_VALUE_NULL;
          continue;
        }
      if (JSON_NODE_HOLDS_OBJECT (node) || JSON_NODE_HOLDS_ARRAY (node))
        {
          v->type = LS_VALUE_NODE;
          v->node = json_node_ref (node);
          continue;
        }
      GType t = json_node_get_value_type (node);
      if (t == G_TYPE_INT64)
        {
          v->type = LS_VALUE_INT;
          v->i = json_node_get_int (node);
        }
      else if (t == G_TYPE_DOUBLE)
        {
          v->type = LS_VALUE_REAL;
          v->d = json_node_get_double (node);
        }
      else if (t == G_TYPE_BOOLEAN)
        {
          v->type = LS_VALUE_BOOL;
          v->i = json_node_get_boolean (node);
        }
      else if (t == G_TYPE_STRING)
        {
          v->type = LS_VALUE_TEXT;
          v->s = json_node_get_string (node);
          v->len = strlen (v->s);
        }
      else
        v->type = LS_VALUE_OTHER;
    }
  return TRUE;
}

static const char *
describe (const ls_field_value *v, char *buf, gsize size)
{
  switch (v->type)
    {
    case LS_VALUE_NULL: return "null";
    case LS_VALUE_INT: g_snprintf (buf, size, _("the integer %lld"), (long long) v->i); return buf;
    case LS_VALUE_REAL: g_snprintf (buf, size, _("the number %g"), v->d); return buf;
    case LS_VALUE_BOOL: return v->i ? "true" : "false";
    case LS_VALUE_TEXT:
      {
        g_autofree char *shown = g_strndup (v->s, MIN (v->len, 40));
        g_autofree char *escaped = g_strescape (shown, NULL);
        g_snprintf (buf, size, _("the text \"%s\"%s"), escaped, v->len > 40 ? "..." : "");
        return buf;
      }
    case LS_VALUE_NODE: return JSON_NODE_HOLDS_ARRAY (v->node) ? "an array" : "an object";
    default: return "binary data or malformed JSON";
    }
}

static const char *
expected (const ls_field *f)
{
  switch (f->kind)
    {
    case LS_FIELD_INT: return "an integer";
    case LS_FIELD_REAL: return "a number";
    case LS_FIELD_FLAG: return "0, 1, true or false";
    case LS_FIELD_UUID:
    case LS_FIELD_SWEEP_REF: return "a uuid";
    case LS_FIELD_TIME: return "an ISO 8601 time";
    case LS_FIELD_FINGERPRINT:
    case LS_FIELD_MACHINE_REF: return "a machine fingerprint (32 hex digits)";
    case LS_FIELD_JSON: return "a JSON object";
    default: return "text";
    }
}

static gboolean
is_lower_hex (const char *s, gsize len, gsize want)
{
  if (len != want)
    return FALSE;
  for (gsize i = 0; i < len; i++)
    if (!g_ascii_isdigit (s[i]) && !(s[i] >= 'a' && s[i] <= 'f'))
      return FALSE;
  return TRUE;
}

static gboolean
check_text (const ls_field *f, const ls_field_value *v)
{
  if (v->type != LS_VALUE_TEXT || strlen (v->s) != v->len || !g_utf8_validate (v->s, (gssize) v->len, NULL))
    return FALSE;
  switch (f->kind)
    {
    case LS_FIELD_UUID:
    case LS_FIELD_SWEEP_REF:
      for (gsize i = 0; i < v->len; i++)
        if (g_ascii_isupper (v->s[i]))
          return FALSE;
      return g_uuid_string_is_valid (v->s);
    case LS_FIELD_TIME:
      {
        GDateTime *t = g_date_time_new_from_iso8601 (v->s, NULL);
        if (!t)
          return FALSE;
        g_date_time_unref (t);
        return TRUE;
      }
    case LS_FIELD_FINGERPRINT:
    case LS_FIELD_MACHINE_REF:
      return is_lower_hex (v->s, v->len, 32);
    default:
      return TRUE;
    }
}

gboolean
ls_record_check (const ls_record_kind *kind, ls_field_value *values, const char *where, GError **error)
{
  char buf[128];

  for (guint i = 0; i < kind->n_fields; i++)
    {
      const ls_field *f = &kind->fields[i];
      ls_field_value *v = &values[i];

      if (!v->present)
        return ls_store_invalid (error, "%s: missing field '%s'", where, f->name);
      if (v->type == LS_VALUE_NULL)
        {
          if (!f->nullable)
            return ls_store_invalid (error, "%s.%s: must not be null (expected %s)", where, f->name, expected (f));
          continue;
        }
      switch (f->kind)
        {
        case LS_FIELD_INT:
          if (v->type != LS_VALUE_INT)
            return ls_store_invalid (error, "%s.%s: expected %s, found %s", where, f->name, expected (f),
                            describe (v, buf, sizeof buf));
          if ((double) v->i < f->min || (double) v->i > f->max)
            return ls_store_invalid (error, "%s.%s: %" G_GINT64_FORMAT " is out of range (%.15g to %.15g)", where, f->name,
                            v->i, f->min, f->max);
          break;
        case LS_FIELD_REAL:
          if (v->type == LS_VALUE_INT)
            {
              v->type = LS_VALUE_REAL;
              v->d = (double) v->i;
            }
          if (v->type != LS_VALUE_REAL || !isfinite (v->d))
            return ls_store_invalid (error, "%s.%s: expected %s, found %s", where, f->name, expected (f),
                            describe (v, buf, sizeof buf));
          if (v->d < f->min || v->d > f->max)
            return ls_store_invalid (error, "%s.%s: %g is out of range (%.15g to %.15g)", where, f->name, v->d, f->min, f->max);
          break;
        case LS_FIELD_FLAG:
          if (v->type == LS_VALUE_BOOL)
            v->type = LS_VALUE_INT;
          if (v->type != LS_VALUE_INT || (v->i != 0 && v->i != 1))
            return ls_store_invalid (error, "%s.%s: expected %s, found %s", where, f->name, expected (f),
                            describe (v, buf, sizeof buf));
          break;
        case LS_FIELD_JSON:
          if (v->type != LS_VALUE_NODE || !JSON_NODE_HOLDS_OBJECT (v->node))
            return ls_store_invalid (error, "%s.%s: expected %s, found %s", where, f->name, expected (f),
                            describe (v, buf, sizeof buf));
          break;
        default:
          /* SQLite keeps text past a NUL; every reader would cut it there. */
          if (v->type == LS_VALUE_TEXT && strlen (v->s) != v->len)
            return ls_store_invalid (error, "%s.%s: the text holds a NUL character (at byte %" G_GSIZE_FORMAT
                            "): text cannot hold NUL", where, f->name, strlen (v->s));
          if (!check_text (f, v))
            return ls_store_invalid (error, "%s.%s: expected %s, found %s", where, f->name, expected (f),
                            describe (v, buf, sizeof buf));
          if (f->kind == LS_FIELD_TEXT && ((double) v->len < f->min || (double) v->len > f->max))
            return ls_store_invalid (error, "%s.%s: %s is %s (%.0f to %.0f bytes allowed)", where, f->name,
                            describe (v, buf, sizeof buf), (double) v->len < f->min ? "too short" : "too long", f->min,
                            f->max);
          if (f->set && !in_list (f->set, v->s))
            {
              g_autofree char *allowed = g_strjoinv (", ", (char **) f->set);
              return ls_store_invalid (error, "%s.%s: %s is not one of %s", where, f->name, describe (v, buf, sizeof buf),
                              allowed);
            }
          break;
        }
    }
  return TRUE;
}

void
ls_record_add_to_builder (const ls_record_kind *kind, const ls_field_value *values, JsonBuilder *b)
{
  for (guint i = 0; i < kind->n_fields; i++)
    {
      const ls_field *f = &kind->fields[i];
      const ls_field_value *v = &values[i];
      json_builder_set_member_name (b, f->name);
      switch (v->type)
        {
        case LS_VALUE_INT:
          if (f->kind == LS_FIELD_FLAG)
            json_builder_add_boolean_value (b, v->i != 0);
          else if (f->kind == LS_FIELD_REAL)
            json_builder_add_double_value (b, (double) v->i);
          else
            json_builder_add_int_value (b, v->i);
          break;
        case LS_VALUE_REAL:
          if (isfinite (v->d))
            json_builder_add_double_value (b, v->d);
          else
            json_builder_add_null_value (b);
          break;
        case LS_VALUE_BOOL:
          json_builder_add_boolean_value (b, v->i != 0);
          break;
        case LS_VALUE_TEXT:
          json_builder_add_string_value (b, v->s);
          break;
        case LS_VALUE_NODE:
          json_builder_add_value (b, json_node_copy (v->node));
          break;
        default:
          json_builder_add_null_value (b);
          break;
        }
    }
}

void
ls_field_value_bind (sqlite3_stmt *st, int i, const ls_field *f, const ls_field_value *v)
{
  switch (v->type)
    {
    case LS_VALUE_INT:
    case LS_VALUE_BOOL:
      if (f->kind == LS_FIELD_REAL)
        sqlite3_bind_double (st, i, (double) v->i);
      else
        sqlite3_bind_int64 (st, i, v->i);
      break;
    case LS_VALUE_REAL:
      sqlite3_bind_double (st, i, v->d);
      break;
    case LS_VALUE_TEXT:
      sqlite3_bind_text (st, i, v->s, (int) v->len, SQLITE_TRANSIENT);
      break;
    case LS_VALUE_NODE:
      {
        char *text = json_to_string (v->node, FALSE);
        sqlite3_bind_text (st, i, text, -1, g_free);
        break;
      }
    default:
      sqlite3_bind_null (st, i);
      break;
    }
}

void
ls_csv_append_text (GString *out, const char *text)
{
  /* Controls other than newline and tab, and bidirectional ones, are
   * U+FFFD: a terminal or a viewer would obey them (the JSON export keeps
   * every character). */
  g_autofree char *shown = NULL;
  for (const char *p = text; *p; p++)
    if (((guchar) *p < 0x20 && *p != '\n' && *p != '\t') || *p == 0x7f || (guchar) *p >= 0x80)
      {
        text = shown = ls_text_clean (text, FALSE);
        break;
      }
  /* OWASP's CSV injection rule: a text cell a spreadsheet would read as a
   * formula (= + - @, tab, CR first) starts with ' and is quoted. Numbers
   * never come here: they stay numbers. */
  gboolean formula = text[0] && strchr ("=+-@\t\r", text[0]) != NULL;
  if (!formula && !text[strcspn (text, ",\"\r\n")] && text[0] != ' ' && (!text[0] || text[strlen (text) - 1] != ' '))
    {
      g_string_append (out, text);
      return;
    }
  g_string_append_c (out, '"');
  if (formula)
    g_string_append_c (out, '\'');
  for (const char *p = text; *p; p++)
    {
      if (*p == '"')
        g_string_append_c (out, '"');
      g_string_append_c (out, *p);
    }
  g_string_append_c (out, '"');
}

const char *
ls_format_double (char *buf, gsize size, double d)
{
  /* The fewest significant digits that read back as the same double:
   * 0.1 stays "0.1", not "0.10000000000000001"; at least the integer
   * part's digits, so 60 is "60", not "6e+01". */
  int first = 1;
  double magnitude = fabs (d);
  if (magnitude >= 1 && magnitude < 1e17)
    first = MIN (17, (int) floor (log10 (magnitude)) + 1);
  for (int digits = first; digits <= 17; digits++)
    {
      char format[8];
      g_snprintf (format, sizeof format, "%%.%dg", digits);
      g_ascii_formatd (buf, (int) size, format, d);
      if (g_ascii_strtod (buf, NULL) == d)
        break;
    }
  return buf;
}

void
ls_field_value_append_csv (GString *out, const ls_field_value *v)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  switch (v->type)
    {
    case LS_VALUE_INT:
    case LS_VALUE_BOOL:
      g_string_append_printf (out, "%" G_GINT64_FORMAT, v->i);
      break;
    case LS_VALUE_REAL:
      if (isfinite (v->d))
        g_string_append (out, ls_format_double (buf, sizeof buf, v->d));
      break;
    case LS_VALUE_TEXT:
      ls_csv_append_text (out, v->s);
      break;
    case LS_VALUE_NODE:
      {
        g_autofree char *text = json_to_string (v->node, FALSE);
        ls_csv_append_text (out, text);
        break;
      }
    default:
      break;
    }
}
