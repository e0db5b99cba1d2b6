/* LsSweepSession: the sweep engine, driven from a main loop. One runner
 * (`loadscope run ... --events -`) at a time, started with GSubprocess; its
 * stdout is read line by line asynchronously and every JSON object is
 * emitted as "event". A run ends when both its stdout has reached EOF and
 * the runner has been reaped; then "run-finished" is emitted and the next
 * runner starts. While anything is pending, the pending operation holds a
 * reference to the session, so dropping the last outside reference does
 * not stop a sweep: cancel it first.
 *
 * The store is only touched in worker threads (GTask), one step at a time,
 * so the main loop never waits on SQLite (a busy store waits up to its
 * 5 s busy timeout): recording the sweep (*_thread below), reading each
 * run back when its runner ends, and ending the sweep. The main loop goes
 * on with the next step in the task's callback. */
#include "app/sweep/sweep-session.h"
#include "app/core/i18n.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "app/store/store.h"
#include "app/sweep/sweep-recorded.h"
#include "app/core/run-events.h"
#include "app/core/sweep-grid.h"
#include "app/core/worker-path.h"
#include "platform/process.h"

/* Asks the runner to stop; it records the run as interrupted. GLib can
 * signal a subprocess only on Unix; Windows has no signal for it, so the
 * runner listens on an event (ls_process_interrupt_listen in cli-run.c). */
static void
interrupt_runner (GSubprocess *proc)
{
#ifdef G_OS_UNIX
  g_subprocess_send_signal (proc, SIGINT);
#else
  const char *id = g_subprocess_get_identifier (proc);
  if (id)
    ls_process_interrupt ((ls_pid) g_ascii_strtoull (id, NULL, 10), NULL);
#endif
}

/* How long to wait for the rest of a reaped runner's output (a worker it
 * left behind may hold the pipe open) before giving up on it. */
#define DRAIN_TIMEOUT_S 2

/* A runner's own words (its stderr, merged into the events pipe) are
 * kept up to this many bytes, the latest ones. */
#define SAID_MAX 4096

/* `loadscope run` exits 2 for bad usage or input: the same for every
 * configuration of the sweep, so the sweep stops there. */
#define RUNNER_BAD_INPUT 2

struct _LsSweepSession {
  GObject parent_instance;

  ls_sweep_request *request; /* a copy of what was given */
  char *runner;              /* the executable, once found */

  ls_sweep_grid *grid;
  guint repeat;
  ls_store *store;           /* NULL: no_db */
  char *store_path;
  gint64 sweep_id;
  guint total;
  guint current;
  gboolean started;
  gboolean running;
  gboolean cancelled;
  char *failure; /* why the sweep stopped by itself; NULL otherwise */
  guint unrecorded;     /* runs that ran but are not in the store */
  char *unrecorded_why; /* the first of them, in words */
  JsonArray *summaries;

  /* The current run. */
  GSubprocess *proc;
  GDataInputStream *in;
  GCancellable *reading;
  char *label;
  char *configuration;  /* label without the repeat note */
  int exit_status;      /* of the runner that ended last */
  GString *said; /* what the runner wrote that is not an event */
  char *run_error; /* its "error" event's message, said when it ends */
  JsonObject *summary;
  gboolean read_done;
  gboolean wait_done;
  guint drain_source;
};

G_DEFINE_FINAL_TYPE (LsSweepSession, ls_sweep_session, G_TYPE_OBJECT)

enum {
  SIGNAL_RUN_STARTED,
  SIGNAL_EVENT,
  SIGNAL_RUN_FINISHED,
  SIGNAL_FINISHED,
  SIGNAL_ERROR,
  SIGNAL_OUTPUT,
  N_SIGNALS,
};

static guint signals[N_SIGNALS];

static void start_next (LsSweepSession *self);
static char *runner_words (LsSweepSession *self);

typedef struct {
  ls_store *store;
  gint64 sweep_id;
} abandoned;

static void
end_abandoned_sweep_thread (GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
  abandoned *a = data;
  ls_store_sweep_end (a->store, a->sweep_id, "interrupted", NULL, NULL);
  g_clear_pointer (&a->store, ls_store_close);
  g_task_return_boolean (task, TRUE);
}

/* A session dropped while its sweep runs (its window closed): the sweep is
 * marked interrupted in a worker thread, waited for because the process
 * may end right after. */
static void
end_abandoned_sweep (ls_store *store, gint64 sweep_id)
{
  abandoned a = { store, sweep_id };
  g_autoptr (GTask) task = g_task_new (NULL, NULL, NULL, NULL);
  g_task_set_task_data (task, &a, NULL);
  g_task_run_in_thread_sync (task, end_abandoned_sweep_thread);
}

static void
ls_sweep_session_dispose (GObject *object)
{
  LsSweepSession *self = LS_SWEEP_SESSION (object);

  /* Only reached with a runner still going through g_object_run_dispose ():
   * pending operations hold references. Do not leave it running. */
  if (self->proc)
    interrupt_runner (self->proc);
  g_clear_handle_id (&self->drain_source, g_source_remove);
  if (self->reading)
    g_cancellable_cancel (self->reading);
  G_OBJECT_CLASS (ls_sweep_session_parent_class)->dispose (object);
}

static void
ls_sweep_session_finalize (GObject *object)
{
  LsSweepSession *self = LS_SWEEP_SESSION (object);

  if (self->store && self->sweep_id > 0 && self->running && self->request->sweep_id <= 0)
    end_abandoned_sweep (g_steal_pointer (&self->store), self->sweep_id);
  g_clear_pointer (&self->store, ls_store_close);
  g_clear_pointer (&self->grid, ls_sweep_grid_free);
  g_clear_pointer (&self->request, ls_sweep_request_free);
  g_clear_pointer (&self->summaries, json_array_unref);
  g_clear_pointer (&self->summary, json_object_unref);
  g_clear_object (&self->proc);
  g_clear_object (&self->in);
  g_clear_object (&self->reading);
  g_free (self->label);
  g_free (self->configuration);
  g_free (self->store_path);
  g_free (self->failure);
  g_free (self->unrecorded_why);
  g_free (self->run_error);
  if (self->said)
    g_string_free (self->said, TRUE);
  g_free (self->runner);
  G_OBJECT_CLASS (ls_sweep_session_parent_class)->finalize (object);
}

static void
ls_sweep_session_class_init (LsSweepSessionClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = ls_sweep_session_dispose;
  object_class->finalize = ls_sweep_session_finalize;

  signals[SIGNAL_RUN_STARTED] = g_signal_new ("run-started", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL,
                                              NULL, NULL, G_TYPE_NONE, 2, G_TYPE_UINT, G_TYPE_STRING);
  signals[SIGNAL_EVENT] = g_signal_new ("event", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                        G_TYPE_NONE, 1, JSON_TYPE_OBJECT);
  signals[SIGNAL_RUN_FINISHED] = g_signal_new ("run-finished", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL,
                                               NULL, NULL, G_TYPE_NONE, 2, G_TYPE_UINT, JSON_TYPE_OBJECT);
  signals[SIGNAL_FINISHED] = g_signal_new ("finished", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                                           NULL, G_TYPE_NONE, 1, G_TYPE_BOOLEAN);
  signals[SIGNAL_ERROR] = g_signal_new ("error", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                        G_TYPE_NONE, 1, G_TYPE_STRING);
  signals[SIGNAL_OUTPUT] = g_signal_new ("output", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                         G_TYPE_NONE, 1, G_TYPE_STRING);
}

static void
ls_sweep_session_init (LsSweepSession *self)
{
  self->repeat = 1;
  self->exit_status = -1;
}

LsSweepSession *
ls_sweep_session_new (const ls_sweep_request *request)
{
  LsSweepSession *self;

  g_return_val_if_fail (request != NULL, NULL);

  self = g_object_new (LS_TYPE_SWEEP_SESSION, NULL);
  self->request = ls_sweep_request_copy (request);
  return self;
}

static void
emit_error (LsSweepSession *self, const char *format, ...) G_GNUC_PRINTF (2, 3);

static void
emit_error (LsSweepSession *self, const char *format, ...)
{
  va_list ap;
  va_start (ap, format);
  g_autofree char *message = g_strdup_vprintf (format, ap);
  va_end (ap);
  g_signal_emit (self, signals[SIGNAL_ERROR], 0, message);
}

static char *
find_runner (const char *runner, GError **error)
{
  g_autofree char *path = NULL;

  if (!runner)
    path = ls_self_exe_path ();
  else if (strchr (runner, G_DIR_SEPARATOR))
    path = g_strdup (runner);
  else
    path = g_find_program_in_path (runner);
  if (!path || !g_file_test (path, G_FILE_TEST_IS_EXECUTABLE) || g_file_test (path, G_FILE_TEST_IS_DIR))
    {
      g_set_error (error, G_SPAWN_ERROR, G_SPAWN_ERROR_NOENT, _("the runner %s is not an executable program"),
                   runner ? runner : path ? path : _("(this program)"));
      return NULL;
    }
  return g_steal_pointer (&path);
}

/* What recording a sweep needs and gives, for its worker thread. */
typedef struct {
  char *db;
  char *grid_text;
  int configurations, repeat;
  gboolean no_db;        /* nothing to record */
  gint64 given_sweep_id; /* > 0: record into this sweep, not a new one */
  ls_store *store;       /* out */
  char *store_path;      /* out, also when only the sweep's row failed */
  gint64 sweep_id;       /* out */
} recording;

static void
recording_free (recording *r)
{
  g_free (r->db);
  g_free (r->grid_text);
  g_clear_pointer (&r->store, ls_store_close);
  g_free (r->store_path);
  g_free (r);
}

/* Opens the store (migrating it), finds this machine and begins the
 * sweep's row. Runs in record_sweep_thread for the window; the command
 * line's synchronous start calls it on its own thread. */
static gboolean
record_sweep_in_thread (recording *r, GError **error)
{
  if (r->no_db)
    return TRUE;
  r->store = ls_store_open (r->db, error);
  if (!r->store)
    return FALSE;
  r->store_path = g_strdup (ls_store_path (r->store));
  gint64 machine = ls_store_this_machine (r->store, NULL, NULL, error);
  if (machine < 0)
    return FALSE;
  r->sweep_id = r->given_sweep_id > 0
                    ? r->given_sweep_id
                    : ls_store_sweep_begin (r->store, machine, r->grid_text, r->configurations, r->repeat, error);
  return r->sweep_id >= 0;
}

static void
record_sweep_thread (GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
  GError *error = NULL;
  if (record_sweep_in_thread (data, &error))
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

/* Checks the request and finds the runner; on success the session holds
 * its grid and runner and counts as started. */
static gboolean
prepare (LsSweepSession *self, GError **error)
{
  const ls_sweep_request *request = self->request;
  g_autoptr (ls_sweep_grid) grid = NULL;
  g_autofree char *runner = NULL;

  if (request->repeat < 1 || request->repeat > LS_SWEEP_REPEAT_MAX)
    {
      g_set_error (error, LS_SWEEP_ERROR, LS_SWEEP_ERROR_KNOB, _("--repeat %u: must be between 1 and %d"), request->repeat,
                   LS_SWEEP_REPEAT_MAX);
      return FALSE;
    }
  grid = ls_sweep_grid_new (request, error);
  if (!grid)
    return FALSE;
  runner = find_runner (request->runner, error);
  if (!runner)
    return FALSE;
  self->started = TRUE;
  self->running = TRUE; /* a cancel from now on is kept */
  self->repeat = request->repeat;
  self->grid = g_steal_pointer (&grid);
  self->total = ls_sweep_grid_size (self->grid) * self->repeat;
  self->runner = g_steal_pointer (&runner);
  return TRUE;
}

static recording *
recording_new (LsSweepSession *self)
{
  recording *r = g_new0 (recording, 1);
  r->db = g_strdup (self->request->db);
  r->grid_text = ls_sweep_grid_to_json (self->grid);
  r->configurations = (int) ls_sweep_grid_size (self->grid);
  r->repeat = (int) self->repeat;
  r->no_db = self->request->no_db;
  r->given_sweep_id = self->request->sweep_id;
  return r;
}

/* Takes what recording gave (the store path even when it failed). */
static gboolean
take_recording (LsSweepSession *self, recording *r, gboolean recorded)
{
  g_free (self->store_path);
  self->store_path = g_strdup (r->store_path);
  if (!recorded)
    {
      self->running = FALSE;
      return FALSE;
    }
  self->store = g_steal_pointer (&r->store);
  self->sweep_id = r->sweep_id;
  return TRUE;
}

static void
launch (LsSweepSession *self)
{
  self->summaries = json_array_new ();
  /* A handler may drop the caller's reference during the first run-started. */
  g_autoptr (LsSweepSession) hold = g_object_ref (self);
  start_next (self);
}

gboolean
ls_sweep_session_start (LsSweepSession *self, GError **error)
{
  g_return_val_if_fail (LS_IS_SWEEP_SESSION (self), FALSE);
  g_return_val_if_fail (!self->started, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!prepare (self, error))
    return FALSE;
  recording *r = recording_new (self);
  gboolean ok = take_recording (self, r, record_sweep_in_thread (r, error));
  recording_free (r);
  if (!ok)
    return FALSE;
  launch (self);
  return TRUE;
}

static void
on_recorded (GObject *source, GAsyncResult *result, gpointer data)
{
  LsSweepSession *self = LS_SWEEP_SESSION (source);
  g_autoptr (GTask) outer = data;
  GError *error = NULL;
  recording *r = g_task_get_task_data (G_TASK (result));

  if (!take_recording (self, r, g_task_propagate_boolean (G_TASK (result), &error)))
    {
      g_task_return_error (outer, error);
      return;
    }
  /* The caller hears that it started before the first "run-started". */
  g_task_return_boolean (outer, TRUE);
  launch (self);
}

void
ls_sweep_session_start_async (LsSweepSession *self, GCancellable *cancellable, GAsyncReadyCallback callback,
                              gpointer user_data)
{
  g_autoptr (GTask) outer = NULL;
  GError *error = NULL;

  g_return_if_fail (LS_IS_SWEEP_SESSION (self));
  g_return_if_fail (!self->started);

  outer = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (outer, ls_sweep_session_start_async);
  if (!prepare (self, &error))
    {
      g_task_return_error (outer, error);
      return;
    }
  g_autoptr (GTask) task = g_task_new (self, NULL, on_recorded, g_steal_pointer (&outer));
  g_task_set_task_data (task, recording_new (self), (GDestroyNotify) recording_free);
  g_task_run_in_thread (task, record_sweep_thread);
}

gboolean
ls_sweep_session_start_finish (LsSweepSession *self, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

/* Ending the sweep's row, in a worker thread. */
typedef struct {
  ls_store *store;
  gint64 sweep_id;
  const char *status;
  char *reason;
} ending;

static void
ending_free (ending *e)
{
  g_clear_pointer (&e->store, ls_store_close);
  g_free (e->reason);
  g_free (e);
}

static void
end_sweep_thread (GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
  ending *e = data;
  GError *error = NULL;
  gboolean ended = ls_store_sweep_end (e->store, e->sweep_id, e->status, e->reason, &error);
  /* Closed here, before "finished": whoever hears it may read the file at once. */
  g_clear_pointer (&e->store, ls_store_close);
  if (ended)
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

static void
on_sweep_ended (GObject *source, GAsyncResult *result, gpointer data)
{
  LsSweepSession *self = LS_SWEEP_SESSION (source);
  g_autoptr (GError) error = NULL;

  if (!g_task_propagate_boolean (G_TASK (result), &error))
    emit_error (self, "%s", error->message);
  g_signal_emit (self, signals[SIGNAL_FINISHED], 0, self->cancelled);
}

static void
finish_sweep (LsSweepSession *self)
{
  self->running = FALSE;
  const char *status = self->failure ? "failed" : self->cancelled ? "interrupted" : self->unrecorded ? "failed" : "done";
  if (!self->store || self->request->sweep_id > 0)
    {
      g_clear_pointer (&self->store, ls_store_close);
      g_signal_emit (self, signals[SIGNAL_FINISHED], 0, self->cancelled);
      return;
    }
  ending *e = g_new0 (ending, 1);
  e->store = g_steal_pointer (&self->store);
  e->sweep_id = self->sweep_id;
  e->status = status;
  e->reason = self->failure || !self->unrecorded
                  ? g_strdup (self->failure)
                  /* untranslated: kept in the store as the sweep's reason */
                  : g_strdup_printf ("%u of %u runs could not be recorded; the first: %s", self->unrecorded,
                                     self->total, self->unrecorded_why);
  g_autoptr (GTask) task = g_task_new (self, NULL, on_sweep_ended, NULL);
  g_task_set_task_data (task, e, (GDestroyNotify) ending_free);
  g_task_run_in_thread (task, end_sweep_thread);
}

/* A run that ended, between its runner and "run-finished". */
typedef struct {
  ls_store *store;     /* borrowed from the session, used by the thread alone */
  JsonObject *summary; /* NULL: the runner ended without one */
  char *label;
  char *said;
  int status;
  char *lost;          /* out: why a summary is not in the store; NULL: it is */
} run_end;

static void
run_end_free (run_end *r)
{
  g_clear_pointer (&r->summary, json_object_unref);
  g_free (r->label);
  g_free (r->said);
  g_free (r->lost);
  g_free (r);
}

/* Measured is not recorded: a full disk leaves a summary without its run in
 * the store, so it is read back. A runner without a summary may have left
 * its run "running": marked interrupted now. */
static void
check_run_thread (GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
  run_end *r = data;
  if (r->summary)
    r->lost = ls_sweep_run_not_recorded (r->store, r->summary, r->said);
  else
    ls_store_mark_dead_runs (r->store, NULL);
  g_task_return_boolean (task, TRUE);
}

static void
run_ended (LsSweepSession *self, run_end *r)
{
  if (r->lost)
    {
      JsonObject *marked = ls_sweep_summary_not_recorded (r->summary, r->lost);
      json_object_unref (r->summary);
      r->summary = marked;
      if (self->unrecorded++ == 0)
        self->unrecorded_why = g_strdup_printf ("run %u (%s): %s", self->current, r->label, r->lost);
      emit_error (self, "[%u/%u] %s: not recorded in the store: %s", self->current, self->total, r->label, r->lost);
    }
  if (r->summary)
    json_array_add_object_element (self->summaries, json_object_ref (r->summary));
  else if (!self->cancelled)
    /* A runner told to stop before it could catch SIGINT is no news. */
    emit_error (self, "[%u/%u] %s: the runner ended without a summary (exit status %d)%s%s", self->current,
                self->total, r->label, r->status, *r->said ? ": " : "", r->said);
  g_signal_emit (self, signals[SIGNAL_RUN_FINISHED], 0, self->current, r->summary);
  start_next (self);
}

static void
on_run_checked (GObject *source, GAsyncResult *result, gpointer data)
{
  LsSweepSession *self = LS_SWEEP_SESSION (source);
  g_task_propagate_boolean (G_TASK (result), NULL);
  run_ended (self, g_task_get_task_data (G_TASK (result)));
}

static void
end_run (LsSweepSession *self)
{
  run_end *r = g_new0 (run_end, 1);
  r->summary = g_steal_pointer (&self->summary);
  r->label = g_steal_pointer (&self->label);
  r->status = -1;

  g_clear_handle_id (&self->drain_source, g_source_remove);
  if (g_subprocess_get_if_exited (self->proc))
    r->status = g_subprocess_get_exit_status (self->proc);
  else if (g_subprocess_get_if_signaled (self->proc))
    r->status = 128 + g_subprocess_get_term_sig (self->proc);
  self->exit_status = r->status;
  g_clear_object (&self->proc);
  g_clear_object (&self->in);
  g_clear_object (&self->reading);

  r->said = runner_words (self);
  g_autofree char *run_error = g_steal_pointer (&self->run_error);
  if (r->status == RUNNER_BAD_INPUT && !r->summary && !self->cancelled)
    {
      /* Every configuration would be refused the same way: stop here. */
      /* untranslated: kept in the store as the sweep's reason */
      self->failure = g_strdup (run_error ? run_error : *r->said ? r->said : "the runner refused its input (exit status 2)");
      emit_error (self, "%s", self->failure);
      g_signal_emit (self, signals[SIGNAL_RUN_FINISHED], 0, self->current, NULL);
      run_end_free (r);
      start_next (self);
      return;
    }
  if (run_error && !self->cancelled)
    emit_error (self, "[%u/%u] %s: %s", self->current, self->total, r->label, run_error);
  if (!self->store)
    {
      run_ended (self, r);
      run_end_free (r);
      return;
    }
  r->store = self->store;
  g_autoptr (GTask) task = g_task_new (self, NULL, on_run_checked, NULL);
  g_task_set_task_data (task, r, (GDestroyNotify) run_end_free);
  g_task_run_in_thread (task, check_run_thread);
}

/* What the runner wrote outside its events, trimmed, on one line each
 * joined by "; ", without the "loadscope run: " prefix of its messages. */
static char *
runner_words (LsSweepSession *self)
{
  g_autoptr (GString) out = g_string_new (NULL);
  g_auto (GStrv) lines = g_strsplit (self->said ? self->said->str : "", "\n", -1);
  for (guint i = 0; lines[i]; i++)
    {
      char *line = g_strstrip (lines[i]);
      if (g_str_has_prefix (line, "loadscope run: "))
        line += strlen ("loadscope run: ");
      if (!*line)
        continue;
      if (out->len)
        g_string_append (out, "; ");
      g_string_append (out, line);
    }
  if (self->said)
    g_string_truncate (self->said, 0);
  return g_string_free (g_steal_pointer (&out), FALSE);
}

static void
keep_said (LsSweepSession *self, const char *line, gsize len)
{
  if (!self->said)
    self->said = g_string_new (NULL);
  g_string_append_len (self->said, line, (gssize) len);
  g_string_append_c (self->said, '\n');
  if (self->said->len > SAID_MAX)
    g_string_erase (self->said, 0, (gssize) (self->said->len - SAID_MAX));
}

static void
maybe_end_run (LsSweepSession *self)
{
  if (self->read_done && self->wait_done)
    end_run (self);
}

/* One line of the runner's --events stream. */
static void
handle_line (LsSweepSession *self, const char *line, gsize len)
{
  g_autoptr (JsonObject) event = ls_run_events_parse_line (line, len);
  const char *kind;

  if (!event)
    {
      /* Its stderr, merged into the pipe: shown as it comes, kept for
       * the message when it ends. */
      g_autofree char *valid = g_utf8_make_valid (line, (gssize) len);
      g_signal_emit (self, signals[SIGNAL_OUTPUT], 0, line);
      keep_said (self, valid, strlen (valid));
      return;
    }
  kind = json_object_get_string_member_with_default (event, "event", "");
  if (strcmp (kind, "finished") == 0)
    {
      JsonNode *summary = json_object_get_member (event, "summary");
      if (summary && JSON_NODE_HOLDS_OBJECT (summary))
        {
          g_clear_pointer (&self->summary, json_object_unref);
          self->summary = json_object_ref (json_node_get_object (summary));
        }
    }
  g_signal_emit (self, signals[SIGNAL_EVENT], 0, event);
  /* Said when the run ends, once it is known whether it stops the sweep.
   * After cancel, the runner's "interrupted after N batches" is no news. */
  if (strcmp (kind, "error") == 0 && !self->cancelled)
    {
      g_free (self->run_error);
      self->run_error = g_strdup (json_object_get_string_member_with_default (event, "message", "?"));
    }
}

static void
on_line (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (LsSweepSession) self = user_data;
  g_autoptr (GError) error = NULL;
  gsize len = 0;
  g_autofree char *line = g_data_input_stream_read_line_finish (G_DATA_INPUT_STREAM (source), result, &len, &error);

  if (!line)
    {
      self->read_done = TRUE;
      maybe_end_run (self);
      return;
    }
  handle_line (self, line, len);
  g_data_input_stream_read_line_async (self->in, G_PRIORITY_DEFAULT, self->reading, on_line, g_object_ref (self));
}

static gboolean
on_drain_timeout (gpointer user_data)
{
  LsSweepSession *self = user_data;
  self->drain_source = 0;
  g_cancellable_cancel (self->reading);
  return G_SOURCE_REMOVE;
}

static void
on_exit (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (LsSweepSession) self = user_data;

  g_subprocess_wait_finish (G_SUBPROCESS (source), result, NULL);
  self->wait_done = TRUE;
  if (!self->read_done)
    self->drain_source = g_timeout_add_seconds (DRAIN_TIMEOUT_S, on_drain_timeout, self);
  maybe_end_run (self);
}

/* Starts the next runner, or ends the sweep when there is none (or it was
 * cancelled). A runner that cannot be started is reported and skipped. */
static void
start_next (LsSweepSession *self)
{
  guint size = ls_sweep_grid_size (self->grid);

  while (!self->cancelled && !self->failure && self->current < self->total)
    {
      g_autoptr (GError) error = NULL;
      guint c = self->current % size;
      guint round = self->current / size;
      g_autoptr (GPtrArray) argv = ls_sweep_grid_runner_argv (
          self->grid, c, self->runner, self->store ? self->store_path : NULL, self->sweep_id);
      g_autofree char *label = ls_sweep_grid_label (self->grid, c);
      /* On a target machine: the runner follows the run there (app/remote/). */
      if (self->request->on)
        {
          g_ptr_array_insert (argv, 2, g_strdup (self->request->on));
          g_ptr_array_insert (argv, 2, g_strdup ("--on"));
        }

      self->current++;
      g_free (self->configuration);
      self->configuration = g_strdup (label);
      self->exit_status = -1;
      if (self->repeat > 1)
        {
          char *more = g_strdup_printf ("%s (repeat %u of %u)", label, round + 1, self->repeat);
          g_free (label);
          label = more;
        }
      /* Its stderr comes on the same pipe: a reason it gives is shown. */
      self->proc = g_subprocess_newv ((const char *const *) argv->pdata,
                                      G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_MERGE, &error);
      if (!self->proc)
        {
          emit_error (self, "[%u/%u] %s: %s", self->current, self->total, label, error->message);
          g_signal_emit (self, signals[SIGNAL_RUN_FINISHED], 0, self->current, NULL);
          continue;
        }
      self->label = g_steal_pointer (&label);
      self->in = g_data_input_stream_new (g_subprocess_get_stdout_pipe (self->proc));
      self->reading = g_cancellable_new ();
      self->read_done = self->wait_done = FALSE;
      g_data_input_stream_read_line_async (self->in, G_PRIORITY_DEFAULT, self->reading, on_line, g_object_ref (self));
      g_subprocess_wait_async (self->proc, NULL, on_exit, g_object_ref (self));
      g_signal_emit (self, signals[SIGNAL_RUN_STARTED], 0, self->current, self->label);
      return;
    }
  finish_sweep (self);
}

void
ls_sweep_session_cancel (LsSweepSession *self)
{
  g_return_if_fail (LS_IS_SWEEP_SESSION (self));

  if (!self->running || self->cancelled)
    return;
  self->cancelled = TRUE;
  if (self->proc)
    interrupt_runner (self->proc);
}

guint
ls_sweep_session_get_total (LsSweepSession *self)
{
  g_return_val_if_fail (LS_IS_SWEEP_SESSION (self), 0);
  return self->total;
}

guint
ls_sweep_session_get_current (LsSweepSession *self)
{
  g_return_val_if_fail (LS_IS_SWEEP_SESSION (self), 0);
  return self->current;
}

gint64
ls_sweep_session_get_sweep_id (LsSweepSession *self)
{
  g_return_val_if_fail (LS_IS_SWEEP_SESSION (self), 0);
  return self->sweep_id;
}

gboolean
ls_sweep_session_is_running (LsSweepSession *self)
{
  g_return_val_if_fail (LS_IS_SWEEP_SESSION (self), FALSE);
  return self->running;
}

JsonArray *
ls_sweep_session_get_summaries (LsSweepSession *self)
{
  g_return_val_if_fail (LS_IS_SWEEP_SESSION (self), NULL);
  return self->summaries;
}

const char *
ls_sweep_session_get_failure (LsSweepSession *self)
{
  g_return_val_if_fail (LS_IS_SWEEP_SESSION (self), NULL);
  return self->failure;
}

const char *
ls_sweep_session_get_configuration_label (LsSweepSession *self)
{
  g_return_val_if_fail (LS_IS_SWEEP_SESSION (self), NULL);
  return self->configuration;
}

int
ls_sweep_session_get_exit_status (LsSweepSession *self)
{
  g_return_val_if_fail (LS_IS_SWEEP_SESSION (self), -1);
  return self->exit_status;
}

const char *
ls_sweep_session_get_store_path (LsSweepSession *self)
{
  g_return_val_if_fail (LS_IS_SWEEP_SESSION (self), NULL);
  return self->store_path;
}
