/* The JSON reader of an import: a JSON export walked span by span, each
 * record checked and handed to the merge (import-merge.c). Apart from the
 * bundle's reader, which shares nothing with it but the merge. */
#include <json-glib/json-glib.h>
#include <string.h>

#include "app/core/i18n.h"
#include "app/core/text-controls.h"
#include "app/store/import-private.h"
#include "app/store/json-spans.h"

static const char *const child_extra[] = { "batches", "series", "worker_processes", NULL };

/* A JSON export is walked span by span (json-spans.h): the text is held
 * once and each record parsed alone, so an import takes about the file's
 * size in memory, not json-glib's tree of all of it. */

/* Syntax: the file is no JSON after all. */
static gboolean
not_json (GError **error, const char *why)
{
  return ls_store_invalid (error, "not a Loadscope export: neither an SQLite bundle nor JSON (%s); " LS_IMPORT_FORMATS_TEXT,
                  why);
}

/* The span parsed (one record, or a scalar) with the import's parser: its
 * root, owned by the parser until the next parse. */
static JsonNode *
parse_span (JsonParser *parser, const char *text, gsize len, GError **error)
{
  g_autoptr (GError) local = NULL;
  if (!json_parser_load_from_data (parser, text, (gssize) len, &local))
    return not_json (error, local->message), NULL;
  JsonNode *root = json_parser_get_root (parser);
  if (!root)
    return not_json (error, "a value expected"), NULL;
  return root;
}

/* A member name's raw text, for messages and lookups (an export's names
 * hold no escapes; one that does is an unknown field). */
static char *
name_text (const char *name, gsize len)
{
  g_autofree char *raw = g_strndup (name, len);
  return ls_text_clean (raw, TRUE);
}

typedef struct {
  const char *value;
  gsize len;
} span;

/* The object's members whose names are in names[] into spans[] (a name
 * twice is refused); any other name is refused, unless skip_unknown (then
 * the caller gets them through others: "name":value text, comma joined). */
static gboolean
member_spans (const char *text, gsize len, const char *const *names, span *spans, GString *others,
              const char *where, GError **error)
{
  ls_json_cursor c;
  g_autoptr (GError) local = NULL;
  if (!ls_json_cursor_open (&c, text, len, '{', &local))
    return not_json (error, local->message);
  const char *name, *value;
  gsize name_len, value_len;
  int got;
  while ((got = ls_json_cursor_member (&c, &name, &name_len, &value, &value_len, &local)) == 1)
    {
      gint found = -1;
      for (gint i = 0; names[i]; i++)
        if (strlen (names[i]) == name_len && memcmp (names[i], name, name_len) == 0)
          found = i;
      if (found < 0)
        {
          if (!others)
            {
              g_autofree char *shown = name_text (name, name_len);
              return ls_store_invalid (error, "%sunknown field '%s'", where, shown);
            }
          if (others->len > 1)
            g_string_append_c (others, ',');
          g_string_append_c (others, '"');
          g_string_append_len (others, name, (gssize) name_len);
          g_string_append (others, "\":");
          g_string_append_len (others, value, (gssize) value_len);
          continue;
        }
      if (spans[found].value)
        return ls_store_invalid (error, "%sfield '%s' appears twice", where, names[found]);
      spans[found] = (span){ value, value_len };
    }
  if (got < 0)
    return not_json (error, local->message);
  /* Nothing but blanks after the object. */
  while (c.pos < c.len && (c.text[c.pos] == ' ' || c.text[c.pos] == '\t' || c.text[c.pos] == '\n'
                           || c.text[c.pos] == '\r'))
    c.pos++;
  if (c.pos < c.len)
    return not_json (error, "text after the end");
  return TRUE;
}

typedef gboolean (*json_row_func) (importer *imp, JsonObject *row, int version, const char *where, gpointer user,
                                   GError **error);

/* Each element of the array at s (named `name` in `where`), an object,
 * parsed alone and handed to each. */
static gboolean
each_element (importer *imp, JsonParser *parser, span s, const char *where, const char *name, int version,
              json_row_func each, gpointer user, GError **error)
{
  if (!s.value)
    return ls_store_invalid (error, "%s: missing field '%s'", where, name);
  ls_json_cursor c;
  g_autoptr (GError) local = NULL;
  if (!ls_json_cursor_open (&c, s.value, s.len, '[', &local))
    return ls_store_invalid (error, "%s.%s: expected an array", where, name);
  const char *value;
  gsize len;
  int got;
  for (guint i = 0; (got = ls_json_cursor_element (&c, &value, &len, &local)) == 1; i++)
    {
      g_autofree char *at = g_strdup_printf ("%s%s%s[%u]", where, *where ? "." : "", name, i);
      JsonNode *n = parse_span (parser, value, len, error);
      if (!n)
        return FALSE;
      if (!JSON_NODE_HOLDS_OBJECT (n))
        return ls_store_invalid (error, "%s: expected an object", at);
      if (!each (imp, json_node_get_object (n), version, at, user, error))
        return FALSE;
    }
  return got == 0 ? TRUE : not_json (error, local->message);
}

typedef struct {
  int k;
  gint64 run_id;
  gint64 batch_size;
} json_run_ctx;

static gboolean
json_child (importer *imp, JsonObject *row, int version, const char *where, gpointer user, GError **error)
{
  json_run_ctx *c = user;
  ls_field_value values[64];
  gboolean ok = ls_record_from_json (kinds[c->k], row, version, NULL, values, where, error)
                && ls_importer_child (imp, c->k, c->run_id, c->batch_size, values, where, error);
  ls_field_values_clear (values, kinds[c->k]->n_fields);
  return ok;
}

/* A run: its own fields parsed apart from its batches, series and worker
 * processes, which are parsed one row at a time. */
static gboolean
json_run (importer *imp, JsonParser *parser, const char *text, gsize len, int version, const char *where,
          GError **error)
{
  static const char *const children[] = { "batches", "series", "worker_processes", NULL };
  span spans[3] = { { 0 } };
  ls_field_value values[64];
  g_assert (ls_record_run.n_fields <= G_N_ELEMENTS (values));
  g_autoptr (GString) own = g_string_new ("{");
  g_autofree char *prefix = g_strdup_printf ("%s: ", where);
  if (!member_spans (text, len, children, spans, own, prefix, error))
    return FALSE;
  g_string_append_c (own, '}');
  JsonNode *n = parse_span (parser, own->str, own->len, error);
  if (!n)
    return FALSE;
  if (!JSON_NODE_HOLDS_OBJECT (n))
    return ls_store_invalid (error, "%s: expected an object", where);
  if (!ls_record_from_json (&ls_record_run, json_node_get_object (n), version, child_extra, values, where, error))
    return FALSE;
  json_run_ctx c = { 0, ls_importer_run (imp, values, -1, where, error),
                     value (&ls_record_run, values, "batch_size")->i };
  ls_field_values_clear (values, ls_record_run.n_fields);
  if (c.run_id < 0)
    return FALSE;
  for (c.k = K_BATCH; c.k <= K_WORKER; c.k++)
    if (!each_element (imp, parser, spans[c.k - K_BATCH], where, kinds[c.k]->plural, version, json_child, &c, error))
      return FALSE;
  return TRUE;
}

static gboolean
json_top_record (importer *imp, JsonObject *row, int version, const char *where, gpointer user, GError **error)
{
  int k = GPOINTER_TO_INT (user);
  ls_field_value values[64];
  gboolean ok = ls_record_from_json (kinds[k], row, version, NULL, values, where, error)
                && (k == K_MACHINE ? ls_importer_machine (imp, values, where, error)
                                   : ls_importer_sweep (imp, values, where, error));
  ls_field_values_clear (values, kinds[k]->n_fields);
  return ok;
}

/* A scalar member of the export's top: its node, or NULL when absent. */
static JsonNode *
top_value (JsonParser *parser, span s, GError **error, gboolean *bad)
{
  *bad = FALSE;
  if (!s.value)
    return NULL;
  JsonNode *n = parse_span (parser, s.value, s.len, error);
  *bad = n == NULL;
  return n;
}

gboolean
ls_importer_json (importer *imp, const char *text, gsize len, GError **error)
{
  enum { T_FORMAT, T_VERSION, T_EXPORTED_AT, T_GENERATOR, T_MACHINES, T_SWEEPS, T_RUNS };
  static const char *const top[] = { "format", "version", "exported_at", "generator", "machines", "sweeps", "runs",
                                     NULL };
  span spans[7] = { { 0 } };
  g_autoptr (JsonParser) parser = json_parser_new_immutable ();
  gboolean bad = FALSE;

  gsize i = 0;
  if (len >= 3 && (guchar) text[0] == 0xef && (guchar) text[1] == 0xbb && (guchar) text[2] == 0xbf)
    i = 3;
  while (i < len && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r'))
    i++;
  if (i < len && text[i] != '{')
    return ls_store_invalid (error, "not a Loadscope export (JSON, but not an object)");
  if (!member_spans (text, len, top, spans, NULL, "", error))
    return FALSE;

  JsonNode *format = top_value (parser, spans[T_FORMAT], error, &bad);
  if (bad)
    return FALSE;
  if (!format || !JSON_NODE_HOLDS_VALUE (format) || json_node_get_value_type (format) != G_TYPE_STRING
      || strcmp (json_node_get_string (format), LS_EXPORT_FORMAT_NAME) != 0)
    return ls_store_invalid (error, "not a Loadscope export (JSON without \"format\": \"%s\")", LS_EXPORT_FORMAT_NAME);
  JsonNode *version_node = top_value (parser, spans[T_VERSION], error, &bad);
  if (bad)
    return FALSE;
  if (!version_node || !JSON_NODE_HOLDS_VALUE (version_node) || json_node_get_value_type (version_node) != G_TYPE_INT64)
    return ls_store_invalid (error, "version: missing, or not an integer");
  gint64 version = json_node_get_int (version_node);
  if (version > LS_STORE_SCHEMA_VERSION)
    {
      g_set_error (error, LS_STORE_ERROR, LS_STORE_ERROR_VERSION,
                   _("written by a newer Loadscope (export version %lld; this one reads up to %d)"),
                   (long long) version, LS_STORE_SCHEMA_VERSION);
      return FALSE;
    }
  if (version < 1)
    return ls_store_invalid (error, "version: %" G_GINT64_FORMAT " is not a Loadscope export version", version);
  JsonNode *when = top_value (parser, spans[T_EXPORTED_AT], error, &bad);
  if (bad)
    return FALSE;
  GDateTime *t = when && JSON_NODE_HOLDS_VALUE (when) && json_node_get_value_type (when) == G_TYPE_STRING
                     ? g_date_time_new_from_iso8601 (json_node_get_string (when), NULL)
                     : NULL;
  if (!t)
    return ls_store_invalid (error, "exported_at: missing, or not an ISO 8601 time");
  g_date_time_unref (t);
  JsonNode *generator = top_value (parser, spans[T_GENERATOR], error, &bad);
  if (bad)
    return FALSE;
  if (generator && (!JSON_NODE_HOLDS_VALUE (generator) || json_node_get_value_type (generator) != G_TYPE_STRING))
    return ls_store_invalid (error, "generator: expected text");

  static const int order[] = { T_MACHINES, T_SWEEPS, T_RUNS };
  for (guint o = 0; o < G_N_ELEMENTS (order); o++)
    if (!spans[order[o]].value)
      return ls_store_invalid (error, "the export: missing field '%s'", top[order[o]]);
  if (!each_element (imp, parser, spans[T_MACHINES], "", "machines", (int) version, json_top_record,
                     GINT_TO_POINTER (K_MACHINE), error)
      || !each_element (imp, parser, spans[T_SWEEPS], "", "sweeps", (int) version, json_top_record,
                        GINT_TO_POINTER (K_SWEEP), error))
    return FALSE;

  ls_json_cursor c;
  g_autoptr (GError) local = NULL;
  if (!ls_json_cursor_open (&c, spans[T_RUNS].value, spans[T_RUNS].len, '[', &local))
    return ls_store_invalid (error, "the export.runs: expected an array");
  const char *value;
  gsize value_len;
  int got;
  for (guint r = 0; (got = ls_json_cursor_element (&c, &value, &value_len, &local)) == 1; r++)
    {
      g_autofree char *at = g_strdup_printf ("runs[%u]", r);
      gsize k = 0;
      while (k < value_len && value[k] != '{' && (value[k] == ' ' || value[k] == '\n'))
        k++;
      if (k >= value_len || value[k] != '{')
        return ls_store_invalid (error, "%s: expected an object", at);
      if (!json_run (imp, parser, value, value_len, (int) version, at, error))
        return FALSE;
    }
  return got == 0 ? TRUE : not_json (error, local->message);
}
