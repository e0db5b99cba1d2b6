/* The records of the exchange format (JSON exports, sqlite bundles): which
 * fields each table's rows carry, how they read from the store and from
 * JSON, and the checks an import applies to every one of them. Rows refer
 * to each other by identity, never by a store's row ids: a run names its
 * machine by fingerprint and its sweep by uuid. */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>
#include <sqlite3.h>

#define LS_EXPORT_FORMAT_NAME "loadscope-export"

/* Sets LS_STORE_ERROR_INVALID with the message; FALSE, to return. */
gboolean ls_store_invalid (GError **error, const char *format, ...) G_GNUC_PRINTF (2, 3);

typedef enum {
  LS_FIELD_INT,         /* an integer */
  LS_FIELD_REAL,        /* a finite number (integers are taken) */
  LS_FIELD_FLAG,        /* 0 or 1; true or false in JSON */
  LS_FIELD_TEXT,        /* UTF-8 without NUL; min/max bound its length in bytes */
  LS_FIELD_UUID,        /* "8-4-4-4-12" hex */
  LS_FIELD_TIME,        /* ISO 8601 with a zone, as the store keeps times */
  LS_FIELD_FINGERPRINT, /* 32 lower-case hex digits (ls_machine_fingerprint) */
  LS_FIELD_JSON,        /* JSON text in the store, an object or array in JSON exports */
  LS_FIELD_MACHINE_REF, /* a machine's fingerprint; the store keeps machine_id */
  LS_FIELD_SWEEP_REF,   /* a sweep's uuid; the store keeps sweep_id */
} ls_field_kind;

typedef struct {
  const char *name;       /* the member in JSON, the column in CSV */
  ls_field_kind kind;
  gboolean nullable;
  double min, max;        /* numbers: the range; text: the length */
  const char *const *set; /* text: the values allowed, NULL-terminated */
  int since;              /* the schema version that added it */
} ls_field;

typedef struct {
  const char *table;  /* in the store */
  const char *plural; /* member of the JSON export ("runs"), or of its run
                         ("batches", "series", "worker_processes": apart
                         from the run's own "samples" and "workers") */
  const ls_field *fields;
  guint n_fields;
} ls_record_kind;

extern const ls_record_kind ls_record_machine;
extern const ls_record_kind ls_record_sweep;
extern const ls_record_kind ls_record_run;
extern const ls_record_kind ls_record_batch;  /* rows of one run: no run field */
extern const ls_record_kind ls_record_sample;
extern const ls_record_kind ls_record_worker;

/* The run statuses of the store. */
extern const char *const ls_run_statuses[];

const ls_field *ls_record_field (const ls_record_kind *kind, const char *name);
int ls_record_field_index (const ls_record_kind *kind, const char *name);

/* One field's value as read. Text is borrowed (from the statement's row or
 * the JSON tree); node is owned. */
typedef enum {
  LS_VALUE_NULL,
  LS_VALUE_INT,
  LS_VALUE_REAL,
  LS_VALUE_BOOL,
  LS_VALUE_TEXT,
  LS_VALUE_NODE,  /* a JSON object or array */
  LS_VALUE_OTHER, /* binary data, or JSON of the wrong shape: always rejected */
} ls_value_type;

typedef struct {
  ls_value_type type;
  gint64 i;
  double d;
  const char *s;
  gsize len;
  JsonNode *node;
  gboolean present; /* FALSE: the member is missing from the JSON object */
} ls_field_value;

void ls_field_values_clear (ls_field_value *values, guint n);

/* SELECT of a record's fields, in order, then `extra` columns (may be
 * NULL), from `table AS t`, then `tail` (a WHERE or ORDER BY clause, may
 * be NULL). */
char *ls_record_select_sql (const ls_record_kind *kind, const char *extra, const char *tail);

/* Reads columns 0.. of the current row. JSON text is parsed here (a
 * column that does not parse becomes LS_VALUE_OTHER). */
void ls_record_from_row (const ls_record_kind *kind, sqlite3_stmt *st, ls_field_value *values);

/* Reads a JSON object's members. Fails on a member that is not a field and
 * not in `extra`; a field the export's version predates may be missing. */
gboolean ls_record_from_json (const ls_record_kind *kind, JsonObject *object, int version, const char *const *extra,
                              ls_field_value *values, const char *where, GError **error);

/* Checks every value against its field: presence, type and range. The
 * value of a flag is normalized to LS_VALUE_INT 0/1. `where` names the
 * record in messages ("runs[3]"). */
gboolean ls_record_check (const ls_record_kind *kind, ls_field_value *values, const char *where, GError **error);

/* Adds the fields as members of the object being built. */
void ls_record_add_to_builder (const ls_record_kind *kind, const ls_field_value *values, JsonBuilder *builder);

/* Binds a checked value (not a reference) to parameter i. */
void ls_field_value_bind (sqlite3_stmt *st, int i, const ls_field *field, const ls_field_value *value);

/* d in the fewest significant digits (at most 17) that read back with
 * g_ascii_strtod as exactly d, in the C locale; buf of at least
 * G_ASCII_DTOSTR_BUF_SIZE bytes. Returns buf. */
const char *ls_format_double (char *buf, gsize size, double d);

/* Appends the value as one CSV cell (RFC 4180 quoting; numbers as
 * ls_format_double writes them). */
void ls_field_value_append_csv (GString *out, const ls_field_value *value);
void ls_csv_append_text (GString *out, const char *text);
