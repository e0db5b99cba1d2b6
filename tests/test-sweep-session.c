/* LsSweepSession: a sweep followed from a main loop. Real runners ($LOADSCOPE
 * run --events -) on a tiny synthetic dataset and the simulated sink: the
 * signals in order, what the store records, cancel, a runner killed in the
 * middle, and bad knobs refused before anything runs. */
#include <gio/gio.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <signal.h>
#include <stdlib.h>
#include <sqlite3.h>
#include <string.h>

#include "app/sweep/sweep-session.h"
#include "test-sql.h"
#include "test-util.h"

static const char *tmp_dir;

static const char *
runner (void)
{
  const char *p = g_getenv ("LOADSCOPE");
  if (!p)
    g_error ("LOADSCOPE is not set: run the tests with `meson test`");
  return p;
}

/* What a session said, in order. */
typedef enum {
  ON_NOTHING,
  ON_FIRST_BATCH_CANCEL, /* cancel at the first batch */
  ON_FIRST_BATCH_KILL,   /* SIGKILL the first runner at its first batch */
} action;

typedef struct {
  LsSweepSession *session;
  GMainLoop *loop;
  const char *db;
  action act;
  gboolean acted;
  GPtrArray *log;           /* "run-started 1 workers=0", "event batch", ... */
  GPtrArray *labels;
  GPtrArray *summaries;     /* JsonObject or NULL per run-finished */
  GPtrArray *errors;
  GPtrArray *outputs;       /* what the runners wrote that is not an event */
  GArray *exit_statuses;    /* int, per run-finished */
  guint batches, runs_started, runs_finished, finishes;
  gboolean cancelled;
  gint64 run_id;            /* of the current run, from its "started" event */
  gboolean in_run;
} recorder;

static void
on_run_started (LsSweepSession *s, guint index, const char *label, recorder *r)
{
  g_assert_false (r->in_run);
  g_assert_cmpuint (index, ==, r->runs_started + 1);
  g_assert_cmpuint (ls_sweep_session_get_current (s), ==, index);
  g_assert_true (ls_sweep_session_is_running (s));
  r->in_run = TRUE;
  r->runs_started++;
  g_ptr_array_add (r->labels, g_strdup (label));
  g_ptr_array_add (r->log, g_strdup_printf ("run-started %u %s", index, label));
}

static void
on_event (LsSweepSession *s, JsonObject *event, recorder *r)
{
  const char *kind = json_object_get_string_member_with_default (event, "event", "?");
  g_assert_true (r->in_run);
  g_ptr_array_add (r->log, g_strdup_printf ("event %s", kind));
  if (strcmp (kind, "started") == 0)
    r->run_id = json_object_get_int_member_with_default (event, "run_id", 0);
  if (strcmp (kind, "batch") != 0)
    return;
  r->batches++;
  if (r->acted || r->act == ON_NOTHING)
    return;
  r->acted = TRUE;
  if (r->act == ON_FIRST_BATCH_CANCEL)
    ls_sweep_session_cancel (s);
  else
    {
      g_autofree char *sql = g_strdup_printf ("SELECT runner_pid FROM run WHERE id = %" G_GINT64_FORMAT, r->run_id);
      gint64 pid = ls_test_sql_int (r->db, sql);
      g_assert_cmpint (pid, >, 0);
      g_assert_cmpint (kill ((pid_t) pid, SIGKILL), ==, 0);
    }
}

static void
on_run_finished (LsSweepSession *s, guint index, JsonObject *summary, recorder *r)
{
  g_assert_true (r->in_run);
  g_assert_cmpuint (index, ==, r->runs_started);
  r->in_run = FALSE;
  r->runs_finished++;
  int status = ls_sweep_session_get_exit_status (s);
  g_array_append_val (r->exit_statuses, status);
  g_ptr_array_add (r->summaries, summary ? json_object_ref (summary) : NULL);
  g_ptr_array_add (r->log, g_strdup_printf ("run-finished %u %s", index, summary ? "summary" : "NULL"));
}

static void
on_finished (LsSweepSession *s, gboolean cancelled, recorder *r)
{
  g_assert_false (r->in_run);
  g_assert_false (ls_sweep_session_is_running (s));
  r->finishes++;
  r->cancelled = cancelled;
  g_ptr_array_add (r->log, g_strdup_printf ("finished %s", cancelled ? "TRUE" : "FALSE"));
  g_main_loop_quit (r->loop);
}

static void
on_error (LsSweepSession *s, const char *message, recorder *r)
{
  g_ptr_array_add (r->errors, g_strdup (message));
}

static void
on_output (LsSweepSession *s, const char *line, recorder *r)
{
  g_ptr_array_add (r->outputs, g_strdup (line));
}

static gboolean
on_too_long (gpointer user_data)
{
  g_error ("the sweep did not finish in time");
  return G_SOURCE_REMOVE;
}

static void
free_summary (gpointer p)
{
  if (p)
    json_object_unref (p);
}

static void
recorder_init (recorder *r, LsSweepSession *s, const char *db, action act)
{
  memset (r, 0, sizeof *r);
  r->session = s;
  r->db = db;
  r->act = act;
  r->loop = g_main_loop_new (NULL, FALSE);
  r->log = g_ptr_array_new_with_free_func (g_free);
  r->labels = g_ptr_array_new_with_free_func (g_free);
  r->errors = g_ptr_array_new_with_free_func (g_free);
  r->outputs = g_ptr_array_new_with_free_func (g_free);
  r->exit_statuses = g_array_new (FALSE, FALSE, sizeof (int));
  r->summaries = g_ptr_array_new_with_free_func (free_summary);
  g_signal_connect (s, "run-started", G_CALLBACK (on_run_started), r);
  g_signal_connect (s, "event", G_CALLBACK (on_event), r);
  g_signal_connect (s, "run-finished", G_CALLBACK (on_run_finished), r);
  g_signal_connect (s, "finished", G_CALLBACK (on_finished), r);
  g_signal_connect (s, "error", G_CALLBACK (on_error), r);
  g_signal_connect (s, "output", G_CALLBACK (on_output), r);
}

static void
recorder_run (recorder *r)
{
  guint watchdog = g_timeout_add_seconds (120, on_too_long, NULL);
  g_main_loop_run (r->loop);
  g_source_remove (watchdog);
  for (guint i = 0; i < r->log->len; i++)
    if (strcmp (r->log->pdata[i], "event batch") != 0)
      g_test_message ("%s", (char *) r->log->pdata[i]);
  for (guint i = 0; i < r->errors->len; i++)
    g_test_message ("error: %s", (char *) r->errors->pdata[i]);
}

static void
recorder_clear (recorder *r)
{
  g_signal_handlers_disconnect_by_data (r->session, r);
  g_main_loop_unref (r->loop);
  g_ptr_array_unref (r->log);
  g_ptr_array_unref (r->labels);
  g_ptr_array_unref (r->errors);
  g_ptr_array_unref (r->outputs);
  g_array_unref (r->exit_statuses);
  g_ptr_array_unref (r->summaries);
}

/* A request from knobs as `loadscope sweep` takes them (name, text, ...,
 * NULL), plus "repeat" and "drop-last"; the store and runner of the test. */
static ls_sweep_request *
request_new (const char *db, const char *first, ...)
{
  ls_sweep_request *r = ls_sweep_request_new ();
  va_list ap;
  va_start (ap, first);
  for (const char *k = first; k; k = va_arg (ap, const char *))
    {
      const char *v = va_arg (ap, const char *);
      g_autoptr (GError) error = NULL;
      if (strcmp (k, "repeat") == 0)
        r->repeat = (guint) atoi (v);
      else if (strcmp (k, "drop-last") == 0)
        r->drop_last = strcmp (v, "on") == 0;
      else
        g_assert_true (ls_sweep_request_set_text (r, k, v, &error));
      g_assert_no_error (error);
    }
  va_end (ap);
  r->db = g_strdup (db);
  r->runner = g_strdup (runner ());
  return r;
}

static gint64
count_for_sweep (const char *db, const char *where, gint64 sweep_id)
{
  g_autofree char *sql = g_strdup_printf ("SELECT count(*) FROM run WHERE sweep_id = %" G_GINT64_FORMAT "%s%s",
                                          sweep_id, where ? " AND " : "", where ? where : "");
  return ls_test_sql_int (db, sql);
}

static char *
sweep_status (const char *db, gint64 sweep_id)
{
  g_autofree char *sql = g_strdup_printf ("SELECT status FROM sweep WHERE id = %" G_GINT64_FORMAT, sweep_id);
  return ls_test_sql_text (db, sql);
}

static void
test_two_configurations (void)
{
  g_autofree char *db = ls_test_tmp_path ("two.sqlite");
  g_autoptr (ls_sweep_request) request = request_new (db, "dataset", "synthetic", "count", "256", "size", "8x8",
                                                      "batch-size", "8", "workers", "0,1", "batches", "6", "warmup",
                                                      "1", "sink", "sim", "model-ms", "1", NULL);
  g_autoptr (LsSweepSession) s = ls_sweep_session_new (request);
  g_autoptr (GError) error = NULL;
  recorder r;

  recorder_init (&r, s, db, ON_NOTHING);
  g_assert_cmpuint (ls_sweep_session_get_current (s), ==, 0);
  g_assert_false (ls_sweep_session_is_running (s));
  g_assert_true (ls_sweep_session_start (s, &error));
  g_assert_no_error (error);
  g_assert_true (ls_sweep_session_is_running (s));
  g_assert_cmpuint (ls_sweep_session_get_total (s), ==, 2);
  g_assert_cmpint (ls_sweep_session_get_sweep_id (s), >, 0);
  recorder_run (&r);

  g_assert_cmpuint (r.runs_started, ==, 2);
  g_assert_cmpuint (r.runs_finished, ==, 2);
  g_assert_cmpuint (r.finishes, ==, 1);
  g_assert_false (r.cancelled);
  g_assert_cmpuint (r.errors->len, ==, 0);
  g_assert_cmpstr (r.labels->pdata[0], ==, "workers=0");
  g_assert_cmpstr (r.labels->pdata[1], ==, "workers=1");
  g_assert_cmpuint (r.batches, ==, 12);
  /* Each run: started first, its batches, finished last, then run-finished. */
  g_assert_cmpstr (r.log->pdata[0], ==, "run-started 1 workers=0");
  g_assert_cmpstr (r.log->pdata[1], ==, "event started");
  g_assert_cmpstr (r.log->pdata[r.log->len - 1], ==, "finished FALSE");
  g_assert_cmpstr (r.log->pdata[r.log->len - 2], ==, "run-finished 2 summary");
  g_assert_cmpstr (r.log->pdata[r.log->len - 3], ==, "event finished");

  JsonArray *kept = ls_sweep_session_get_summaries (s);
  g_assert_cmpuint (json_array_get_length (kept), ==, 2);
  for (guint i = 0; i < 2; i++)
    {
      JsonObject *o = r.summaries->pdata[i];
      g_assert_nonnull (o);
      g_assert_true (o == json_array_get_object_element (kept, i));
      g_assert_cmpstr (json_object_get_string_member (o, "status"), ==, "done");
      g_assert_cmpint (json_object_get_int_member (o, "workers"), ==, i);
      g_assert_cmpstr (json_object_get_string_member (o, "sink"), ==, "sim");
      g_assert_cmpint (json_object_get_int_member (o, "run_id"), >, 0);
    }

  gint64 sweep = ls_sweep_session_get_sweep_id (s);
  g_assert_cmpint (count_for_sweep (db, NULL, sweep), ==, 2);
  g_assert_cmpint (count_for_sweep (db, "status = 'done'", sweep), ==, 2);
  g_autofree char *status = sweep_status (db, sweep);
  g_assert_cmpstr (status, ==, "done");
  recorder_clear (&r);
}

static ls_sweep_request *
slow_request (const char *db)
{
  /* About 5 ms a batch with one worker: long enough to act in the middle. */
  return request_new (db, "dataset", "synthetic", "count", "4000", "size", "8x8", "sample-cost-us", "600",
                      "batch-size", "8", "workers", "1,2", "batches", "400", "sink", "sim", "model-ms", "1", NULL);
}

static void
test_cancel (void)
{
  g_autofree char *db = ls_test_tmp_path ("cancel.sqlite");
  g_autoptr (ls_sweep_request) request = slow_request (db);
  g_autoptr (LsSweepSession) s = ls_sweep_session_new (request);
  g_autoptr (GError) error = NULL;
  recorder r;

  recorder_init (&r, s, db, ON_FIRST_BATCH_CANCEL);
  g_assert_true (ls_sweep_session_start (s, &error));
  g_assert_no_error (error);
  recorder_run (&r);

  g_assert_true (r.cancelled);
  g_assert_cmpuint (r.finishes, ==, 1);
  g_assert_cmpuint (r.runs_started, ==, 1);
  g_assert_cmpuint (r.runs_finished, ==, 1);
  g_assert_cmpuint (ls_sweep_session_get_current (s), ==, 1);
  /* The runner caught SIGINT: its summary says interrupted. */
  JsonObject *o = r.summaries->pdata[0];
  g_assert_nonnull (o);
  g_assert_cmpstr (json_object_get_string_member (o, "status"), ==, "interrupted");
  g_assert_cmpint (json_object_get_int_member (o, "workers"), ==, 1);

  gint64 sweep = ls_sweep_session_get_sweep_id (s);
  g_assert_cmpint (count_for_sweep (db, NULL, sweep), ==, 1);
  g_assert_cmpint (count_for_sweep (db, "status = 'interrupted'", sweep), ==, 1);
  g_autofree char *status = sweep_status (db, sweep);
  g_assert_cmpstr (status, ==, "interrupted");
  /* Cancelling again, or after the end, does nothing. */
  ls_sweep_session_cancel (s);
  recorder_clear (&r);
}

/* Cancelled at once, before the runner could even catch SIGINT. */
static void
test_cancel_at_once (void)
{
  g_autofree char *db = ls_test_tmp_path ("cancel-at-once.sqlite");
  g_autoptr (ls_sweep_request) request = slow_request (db);
  g_autoptr (LsSweepSession) s = ls_sweep_session_new (request);
  g_autoptr (GError) error = NULL;
  recorder r;

  recorder_init (&r, s, db, ON_NOTHING);
  g_assert_true (ls_sweep_session_start (s, &error));
  g_assert_no_error (error);
  ls_sweep_session_cancel (s);
  g_assert_true (ls_sweep_session_is_running (s));
  recorder_run (&r);

  g_assert_true (r.cancelled);
  g_assert_cmpuint (r.runs_started, ==, 1);
  g_assert_cmpuint (r.runs_finished, ==, 1);
  g_assert_cmpuint (r.errors->len, ==, 0);
  gint64 sweep = ls_sweep_session_get_sweep_id (s);
  g_assert_cmpint (count_for_sweep (db, "status IN ('running', 'done')", sweep), ==, 0);
  g_autofree char *status = sweep_status (db, sweep);
  g_assert_cmpstr (status, ==, "interrupted");
  recorder_clear (&r);
}

static void
test_killed_runner (void)
{
  g_autofree char *db = ls_test_tmp_path ("killed.sqlite");
  g_autoptr (ls_sweep_request) request = slow_request (db);
  g_assert_true (ls_sweep_request_set_text (request, "batches", "30", NULL));
  g_autoptr (LsSweepSession) s = ls_sweep_session_new (request);
  g_autoptr (GError) error = NULL;
  recorder r;

  recorder_init (&r, s, db, ON_FIRST_BATCH_KILL);
  g_assert_true (ls_sweep_session_start (s, &error));
  g_assert_no_error (error);
  recorder_run (&r);

  /* The first run is lost and said so; the sweep went on. */
  g_assert_false (r.cancelled);
  g_assert_cmpuint (r.runs_started, ==, 2);
  g_assert_cmpuint (r.runs_finished, ==, 2);
  g_assert_null (r.summaries->pdata[0]);
  g_assert_nonnull (r.summaries->pdata[1]);
  g_assert_cmpuint (json_array_get_length (ls_sweep_session_get_summaries (s)), ==, 1);
  g_assert_cmpuint (r.errors->len, ==, 1);
  g_assert_nonnull (strstr (r.errors->pdata[0], "[1/2] workers=1: the runner ended without a summary"));

  gint64 sweep = ls_sweep_session_get_sweep_id (s);
  g_assert_cmpint (count_for_sweep (db, "status = 'interrupted' AND workers = 1", sweep), ==, 1);
  g_assert_cmpint (count_for_sweep (db, "status = 'done' AND workers = 2", sweep), ==, 1);
  g_autofree char *status = sweep_status (db, sweep);
  g_assert_cmpstr (status, ==, "done");
  recorder_clear (&r);
}

static void
test_bad_knobs (void)
{
  g_autofree char *db = ls_test_tmp_path ("bad.sqlite");
  struct {
    const char *knob, *value, *message;
  } cases[] = {
    { "workers", "-1", "--workers -1" },
    { "workers", "0,-1", "--workers -1" },
    { "pin", "off,maybe", "--pin maybe" },
    { "epochs", "1,2", "--epochs 1,2: this knob takes one value" },
    { "workers", "1,,2", "--workers 1,,2: an empty value" },
    { "wrokers", "1", "--wrokers: not a knob" },
    { "repeat", "0", "--repeat 0" },
  };
  for (size_t i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (ls_sweep_request) request = request_new (db, "dataset", "synthetic", "sink", "sim", NULL);
      g_autoptr (GError) error = NULL;

      if (strcmp (cases[i].knob, "repeat") == 0)
        request->repeat = (guint) atoi (cases[i].value);
      else if (!ls_sweep_request_set_text (request, cases[i].knob, cases[i].value, &error))
        {
          /* Refused as typed, before there is a session. */
          g_test_message ("%s", error->message);
          g_assert_error (error, LS_SWEEP_ERROR, LS_SWEEP_ERROR_KNOB);
          g_assert_nonnull (strstr (error->message, cases[i].message));
          continue;
        }
      g_autoptr (LsSweepSession) s = ls_sweep_session_new (request);
      recorder r;

      recorder_init (&r, s, db, ON_NOTHING);
      g_assert_false (ls_sweep_session_start (s, &error));
      g_assert_error (error, LS_SWEEP_ERROR, LS_SWEEP_ERROR_KNOB);
      g_test_message ("%s", error->message);
      g_assert_nonnull (strstr (error->message, cases[i].message));
      g_assert_false (ls_sweep_session_is_running (s));
      g_assert_cmpuint (r.runs_started + r.finishes + r.errors->len, ==, 0);
      recorder_clear (&r);
    }
  /* The same knobs added one value at a time: a list for a knob that takes
   * one value, and an empty value, are refused by the session. */
  {
    g_autoptr (ls_sweep_request) request = request_new (db, "dataset", "synthetic", NULL);
    g_autoptr (GError) error = NULL;
    ls_sweep_request_add_int (request, LS_SWEEP_KNOB_EPOCHS, 1);
    ls_sweep_request_add_int (request, LS_SWEEP_KNOB_EPOCHS, 2);
    g_autoptr (LsSweepSession) s = ls_sweep_session_new (request);
    g_assert_false (ls_sweep_session_start (s, &error));
    g_assert_nonnull (strstr (error->message, "--epochs 1,2: this knob takes one value"));
  }
  {
    g_autoptr (ls_sweep_request) request = request_new (db, "dataset", "synthetic", NULL);
    g_autoptr (GError) error = NULL;
    ls_sweep_request_add (request, LS_SWEEP_KNOB_PIN, "off");
    ls_sweep_request_add (request, LS_SWEEP_KNOB_PIN, " ");
    g_autoptr (LsSweepSession) s = ls_sweep_session_new (request);
    g_assert_false (ls_sweep_session_start (s, &error));
    g_assert_nonnull (strstr (error->message, "an empty value in the list"));
  }
  /* Nothing was recorded: the store was not even created. */
  g_assert_false (g_file_test (db, G_FILE_TEST_EXISTS));

  /* A runner that is not there is refused too, before the store. */
  g_autoptr (ls_sweep_request) request = request_new (db, "dataset", "synthetic", NULL);
  g_free (request->runner);
  request->runner = g_strdup ("/nonexistent/loadscope");
  g_autoptr (LsSweepSession) s = ls_sweep_session_new (request);
  g_autoptr (GError) error = NULL;
  g_assert_false (ls_sweep_session_start (s, &error));
  g_assert_nonnull (strstr (error->message, "/nonexistent/loadscope"));
  g_assert_false (g_file_test (db, G_FILE_TEST_EXISTS));
}

/* A runner that refuses its input (exit status 2: JPEGs but no class
 * folders) stops the sweep at once, in its own words, recorded failed. */
static void
test_bad_input_stops (void)
{
  g_autofree char *db = ls_test_tmp_path ("bad-input.sqlite");
  g_autofree char *flat = ls_test_tmp_path ("flat-jpegs");
  g_assert_cmpint (g_mkdir_with_parents (flat, 0700), ==, 0);
  for (int i = 0; i < 3; i++)
    {
      g_autofree char *name = g_strdup_printf ("%s/img%d.jpg", flat, i);
      g_assert_true (g_file_set_contents (name, "\xff\xd8\xff\xd9", 4, NULL));
    }
  g_autoptr (ls_sweep_request) request = request_new (db, "dataset", flat, "workers", "0,1,2", "pin", "off,staging",
                                                      "sink", "sim", "batches", "3", NULL);
  g_autoptr (LsSweepSession) s = ls_sweep_session_new (request);
  g_autoptr (GError) error = NULL;
  recorder r;

  recorder_init (&r, s, db, ON_NOTHING);
  g_assert_true (ls_sweep_session_start (s, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (ls_sweep_session_get_total (s), ==, 6);
  recorder_run (&r);

  g_assert_cmpuint (r.finishes, ==, 1);
  g_assert_false (r.cancelled);
  g_assert_cmpuint (r.runs_started, ==, 1);
  const char *failure = ls_sweep_session_get_failure (s);
  g_assert_nonnull (failure);
  g_assert_nonnull (strstr (failure, "found 3 JPEG files but no class folders"));
  g_assert_cmpuint (r.errors->len, ==, 1);
  g_assert_cmpstr (r.errors->pdata[0], ==, failure);
  /* Its stderr came through as it was written, and its exit status. */
  gboolean said = FALSE;
  for (guint i = 0; i < r.outputs->len; i++)
    said |= strstr (r.outputs->pdata[i], "found 3 JPEG files but no class folders") != NULL;
  g_assert_true (said);
  g_assert_cmpint (g_array_index (r.exit_statuses, int, 0), ==, 2);

  gint64 sweep = ls_sweep_session_get_sweep_id (s);
  g_autofree char *status = sweep_status (db, sweep);
  g_assert_cmpstr (status, ==, "failed");
  g_autofree char *sql = g_strdup_printf ("SELECT error FROM sweep WHERE id = %" G_GINT64_FORMAT, sweep);
  g_autofree char *why = ls_test_sql_text (db, sql);
  g_assert_cmpstr (why, ==, failure);
  recorder_clear (&r);
}

static void
test_repeat (void)
{
  g_autofree char *db = ls_test_tmp_path ("repeat.sqlite");
  g_autoptr (ls_sweep_request) request = request_new (db, "dataset", "synthetic", "count", "64", "size", "8x8",
                                                      "batch-size", "8", "pin", "off,staging", "batches", "3", "sink",
                                                      "sim", "model-ms", "0", "repeat", "2", NULL);
  g_autoptr (LsSweepSession) s = ls_sweep_session_new (request);
  g_autoptr (GError) error = NULL;
  recorder r;

  recorder_init (&r, s, db, ON_NOTHING);
  g_assert_true (ls_sweep_session_start (s, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (ls_sweep_session_get_total (s), ==, 4);
  recorder_run (&r);
  g_assert_cmpuint (r.runs_finished, ==, 4);
  g_assert_cmpstr (r.labels->pdata[0], ==, "pin=off (repeat 1 of 2)");
  g_assert_cmpstr (r.labels->pdata[1], ==, "pin=staging (repeat 1 of 2)");
  g_assert_cmpstr (r.labels->pdata[3], ==, "pin=staging (repeat 2 of 2)");
  g_assert_cmpstr (ls_sweep_session_get_configuration_label (s), ==, "pin=staging");
  for (guint i = 0; i < 4; i++)
    g_assert_cmpint (g_array_index (r.exit_statuses, int, i), ==, 0);
  g_assert_cmpint (count_for_sweep (db, "status = 'done'", ls_sweep_session_get_sweep_id (s)), ==, 4);
  recorder_clear (&r);
}

/* A request built value by value (as the workbench does), recorded
 * nowhere (as `loadscope sweep --no-db`). */
static void
test_typed_request_without_store (void)
{
  g_autofree char *db = ls_test_tmp_path ("never.sqlite");
  g_autoptr (ls_sweep_request) request = ls_sweep_request_new ();
  g_autoptr (GError) error = NULL;
  recorder r;

  ls_sweep_request_add (request, LS_SWEEP_KNOB_DATASET, "synthetic");
  ls_sweep_request_add_int (request, LS_SWEEP_KNOB_COUNT, 64);
  ls_sweep_request_add (request, LS_SWEEP_KNOB_SIZE, "8x8");
  ls_sweep_request_add_int (request, LS_SWEEP_KNOB_BATCH_SIZE, 8);
  ls_sweep_request_add_int (request, LS_SWEEP_KNOB_WORKERS, 0);
  ls_sweep_request_add_int (request, LS_SWEEP_KNOB_WORKERS, 1);
  ls_sweep_request_add_switch (request, LS_SWEEP_KNOB_PERSISTENT, TRUE);
  ls_sweep_request_add_double (request, LS_SWEEP_KNOB_MODEL_MS, 0.5);
  ls_sweep_request_add_int (request, LS_SWEEP_KNOB_BATCHES, 3);
  ls_sweep_request_add (request, LS_SWEEP_KNOB_SINK, "sim");
  request->drop_last = TRUE;
  request->db = g_strdup (db);
  request->no_db = TRUE;
  request->runner = g_strdup (runner ());
  g_assert_cmpuint (ls_sweep_request_count (request, LS_SWEEP_KNOB_WORKERS), ==, 2);
  g_assert_cmpuint (ls_sweep_request_count (request, LS_SWEEP_KNOB_DATASET), ==, 1);
  g_assert_cmpuint (ls_sweep_request_configurations (request), ==, 2);

  g_autoptr (LsSweepSession) s = ls_sweep_session_new (request);
  /* The session keeps its own copy. */
  g_clear_pointer (&request, ls_sweep_request_free);
  recorder_init (&r, s, db, ON_NOTHING);
  g_assert_true (ls_sweep_session_start (s, &error));
  g_assert_no_error (error);
  g_assert_cmpint (ls_sweep_session_get_sweep_id (s), ==, 0);
  g_assert_null (ls_sweep_session_get_store_path (s));
  recorder_run (&r);
  g_assert_cmpuint (r.runs_finished, ==, 2);
  g_assert_cmpuint (r.errors->len, ==, 0);
  for (guint i = 0; i < 2; i++)
    {
      JsonObject *o = r.summaries->pdata[i];
      g_assert_nonnull (o);
      g_assert_cmpstr (json_object_get_string_member (o, "status"), ==, "done");
      g_assert_true (json_object_get_null_member (o, "run_id"));
      g_assert_cmpfloat (json_object_get_double_member (o, "model_ms"), ==, 0.5);
    }
  g_assert_false (g_file_test (db, G_FILE_TEST_EXISTS));
  recorder_clear (&r);
}

/* The Setup page's estimate, from the request alone. */
static void
test_estimate (void)
{
  g_autoptr (ls_sweep_request) request = ls_sweep_request_new ();

  /* No --batches: cannot be told. */
  g_assert_cmpfloat (ls_sweep_request_estimate_seconds (request, 4), <, 0);
  g_assert_true (ls_sweep_request_set_text (request, "workers", "0,1,2,4", NULL));
  g_assert_true (ls_sweep_request_set_text (request, "pin", "off,staging", NULL));
  g_assert_true (ls_sweep_request_set_text (request, "batch-size", "64", NULL));
  g_assert_true (ls_sweep_request_set_text (request, "model-ms", "20", NULL));
  g_assert_true (ls_sweep_request_set_text (request, "batches", "40", NULL));
  g_assert_cmpuint (ls_sweep_request_configurations (request), ==, 8);
  /* Loading 40 x 64 images at 2 ms on 1, 1, 2 and 2 cores (5.12, 5.12,
   * 2.56, 2.56 s) outlasts 40 steps of 20 ms; 0.5 s start-up; x 2 pins. */
  double expected = 2 * ((5.12 + 0.5) * 2 + (2.56 + 0.5) * 2);
  g_assert_cmpfloat_with_epsilon (ls_sweep_request_estimate_seconds (request, 2), expected, 1e-9);
  /* Enough cores: the model step (0.8 s per run) is the slower for 4 workers. */
  expected = 2 * ((5.12 + 0.5) * 2 + (2.56 + 0.5) + (1.28 + 0.5));
  g_assert_cmpfloat_with_epsilon (ls_sweep_request_estimate_seconds (request, 16), expected, 1e-9);
  request->repeat = 3;
  g_assert_cmpfloat_with_epsilon (ls_sweep_request_estimate_seconds (request, 16), 3 * expected, 1e-9);
}

/* The main loop's turns while another process holds the store's write lock. */
typedef struct {
  gboolean locked;
  guint ticks_while_locked;
  gboolean started, started_while_locked;
  GError *start_error;
} lock_watch;

static gboolean
count_tick (gpointer data)
{
  lock_watch *w = data;
  if (w->locked)
    w->ticks_while_locked++;
  return G_SOURCE_CONTINUE;
}

static void
on_lock_line (GObject *source, GAsyncResult *result, gpointer data)
{
  lock_watch *w = data;
  g_autofree char *line = g_data_input_stream_read_line_finish (G_DATA_INPUT_STREAM (source), result, NULL, NULL);
  if (line && strcmp (line, "released") == 0)
    w->locked = FALSE;
}

static void
on_started_async (GObject *source, GAsyncResult *result, gpointer data)
{
  lock_watch *w = data;
  w->started = ls_sweep_session_start_finish (LS_SWEEP_SESSION (source), result, &w->start_error);
  w->started_while_locked = w->locked;
}

/* The store locked by another process for 3 s (BEGIN EXCLUSIVE) as a
 * window starts a sweep: opening it and recording the sweep wait in a
 * worker thread while the main loop keeps turning; the sweep starts once
 * the lock is gone and is recorded whole. */
static void
test_locked_store_does_not_block_the_loop (void)
{
  g_autofree char *db = ls_test_tmp_path ("locked.sqlite");
  g_autoptr (ls_sweep_request) request = request_new (db, "dataset", "synthetic", "count", "64", "size", "8x8",
                                                      "batch-size", "8", "workers", "0", "batches", "3", "warmup", "1",
                                                      "sink", "sim", "model-ms", "1", NULL);
  g_autoptr (LsSweepSession) s = ls_sweep_session_new (request);
  g_autoptr (GError) error = NULL;
  lock_watch w = { 0 };
  recorder r;

  ls_test_sql_int (db, "PRAGMA user_version"); /* the file exists */
  g_autoptr (GSubprocess) locker = g_subprocess_new (
      G_SUBPROCESS_FLAGS_STDOUT_PIPE, &error, "python3", "-c",
      "import sqlite3, sys, time\n"
      "c = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
      "c.execute('BEGIN EXCLUSIVE')\n"
      "print('locked', flush=True)\n"
      "time.sleep(3)\n"
      "c.execute('COMMIT')\n"
      "print('released', flush=True)\n",
      db, NULL);
  g_assert_no_error (error);
  g_autoptr (GDataInputStream) in = g_data_input_stream_new (g_subprocess_get_stdout_pipe (locker));
  g_autofree char *first = g_data_input_stream_read_line (in, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (first, ==, "locked");
  w.locked = TRUE;

  recorder_init (&r, s, db, ON_NOTHING);
  guint tick = g_timeout_add (20, count_tick, &w);
  g_data_input_stream_read_line_async (in, G_PRIORITY_DEFAULT, NULL, on_lock_line, &w);
  ls_sweep_session_start_async (s, NULL, on_started_async, &w);
  recorder_run (&r);
  g_source_remove (tick);
  g_assert_true (g_subprocess_wait_check (locker, NULL, &error));
  g_assert_no_error (error);

  g_test_message ("%u turns of the main loop while the store was locked", w.ticks_while_locked);
  g_assert_no_error (w.start_error);
  g_assert_true (w.started);
  g_assert_false (w.started_while_locked); /* recording the sweep waited for the lock */
  g_assert_cmpuint (w.ticks_while_locked, >=, 2); /* a blocked loop would not turn at all */
  g_assert_cmpuint (r.runs_finished, ==, 1);
  g_assert_cmpuint (r.errors->len, ==, 0);
  g_autofree char *status = sweep_status (db, ls_sweep_session_get_sweep_id (s));
  g_assert_cmpstr (status, ==, "done");
  recorder_clear (&r);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  tmp_dir = ls_test_tmp_dir_make ("ls-sweep-session-XXXXXX");
  g_test_add_func ("/app/sweep-session/two-configurations", test_two_configurations);
  g_test_add_func ("/app/sweep-session/cancel", test_cancel);
  g_test_add_func ("/app/sweep-session/cancel-at-once", test_cancel_at_once);
  g_test_add_func ("/app/sweep-session/killed-runner", test_killed_runner);
  g_test_add_func ("/app/sweep-session/bad-knobs", test_bad_knobs);
  g_test_add_func ("/app/sweep-session/repeat", test_repeat);
  g_test_add_func ("/app/sweep-session/bad-input-stops", test_bad_input_stops);
  g_test_add_func ("/app/sweep-session/typed-request-without-store", test_typed_request_without_store);
  g_test_add_func ("/app/sweep-session/estimate", test_estimate);
  g_test_add_func ("/app/sweep-session/locked-store-does-not-block-the-loop", test_locked_store_does_not_block_the_loop);
  int rc = ls_test_run_checked_shm_only ();
  ls_test_tmp_dir_remove ();
  return rc;
}
