/* The Tune window's runner (tune-session.h). */
#include "app/analysis/tune-session.h"
#include "app/core/i18n.h"

#include "app/analysis/tune.h"
#include "app/core/worker-path.h"
#include "app/store/store-query.h"
#include "platform/process.h"

struct _LsTuneSession {
  GObject parent_instance;
  ls_sweep_request *request;
  char *db, *memory, *time_budget;
  GSubprocess *proc;
  GCancellable *cancel;
  GDataInputStream *err_lines; /* the runner's stderr, a line at a time (its progress) */
  GOutputStream *out;          /* its stdout (the result), collected */
  GString *err;                /* its stderr, all of it (the reason when it fails) */
  guint pending;               /* of stdout, stderr and the exit, those not yet done */
  char *last_line;             /* its latest progress line */
  gboolean cancelled;          /* ls_tune_session_cancel was called */
  JsonObject *result;
  JsonArray *summaries;
  char *error;
  gboolean running; /* from start until "finished" */
};

G_DEFINE_FINAL_TYPE (LsTuneSession, ls_tune_session, G_TYPE_OBJECT)

enum { SIGNAL_FINISHED, SIGNAL_PROGRESS, N_SIGNALS };
static guint signals[N_SIGNALS];

static void
add (GPtrArray *argv, const char *a, const char *b)
{
  g_ptr_array_add (argv, g_strdup (a));
  if (b)
    g_ptr_array_add (argv, g_strdup (b));
}

GPtrArray *
ls_tune_session_argv (LsTuneSession *self, const char *runner)
{
  const ls_sweep_request *request = self->request;
  GPtrArray *argv = g_ptr_array_new_with_free_func (g_free);
  add (argv, runner, "tune");
  if (request->dataset)
    add (argv, "--dataset", request->dataset); /* a script has none: --target pytorch --script */
  for (guint k = 0; k < LS_SWEEP_N_KNOBS; k++)
    {
      /* tune chooses these; a knob swept over several values is left to it too. */
      if (k == LS_SWEEP_KNOB_WORKERS || k == LS_SWEEP_KNOB_PREFETCH || k == LS_SWEEP_KNOB_PIN
          || k == LS_SWEEP_KNOB_PERSISTENT || k == LS_SWEEP_KNOB_DATASET || !request->knobs[k]
          || request->knobs[k]->len != 1)
        continue;
      g_autofree char *flag = g_strdup_printf ("--%s", ls_sweep_knobs[k].name);
      add (argv, flag, g_ptr_array_index (request->knobs[k], 0));
    }
  if (request->drop_last)
    add (argv, "--drop-last", NULL);
  if (self->memory && *self->memory)
    add (argv, "--memory-budget", self->memory);
  if (self->time_budget && *self->time_budget)
    add (argv, "--time-budget", self->time_budget);
  if (self->db)
    add (argv, "--db", self->db);
  add (argv, "--json", NULL);
  g_ptr_array_add (argv, NULL);
  return argv;
}

static void
finish (LsTuneSession *self)
{
  self->running = FALSE;
  g_signal_emit (self, signals[SIGNAL_FINISHED], 0);
}

/* The summaries of the sweep's runs, from the store: in a thread, as a
 * locked store may make the read wait. */
static void
read_summaries (GTask *task, gpointer source, gpointer data, GCancellable *cancel)
{
  LsTuneSession *self = source;
  gint64 sweep_id = GPOINTER_TO_SIZE (data);
  JsonArray *out = json_array_new ();
  g_autoptr (ls_store) store = ls_store_open_to_read (self->db, NULL);
  char ref[32];
  g_snprintf (ref, sizeof ref, "%" G_GINT64_FORMAT, sweep_id);
  g_autoptr (GArray) ids = store ? ls_store_select_runs (store, NULL, ref, NULL) : NULL;
  for (guint i = 0; ids && i < ids->len; i++)
    {
      g_autoptr (JsonObject) run = ls_store_run_object (store, g_array_index (ids, gint64, i), NULL);
      const char *text = run ? json_object_get_string_member_with_default (run, "summary", NULL) : NULL;
      g_autoptr (JsonNode) node = text ? json_from_string (text, NULL) : NULL;
      if (node && JSON_NODE_HOLDS_OBJECT (node))
        json_array_add_object_element (out, json_object_ref (json_node_get_object (node)));
    }
  g_task_return_pointer (task, out, (GDestroyNotify) json_array_unref);
}

static void
on_summaries (GObject *source, GAsyncResult *res, gpointer data)
{
  LsTuneSession *self = LS_TUNE_SESSION (source);
  JsonArray *got = g_task_propagate_pointer (G_TASK (res), NULL);
  if (got)
    {
      g_clear_pointer (&self->summaries, json_array_unref);
      self->summaries = got;
    }
  finish (self);
}

/* The runner's stdout, stderr and exit are all in: its result, or why none. */
static void
ended (LsTuneSession *self)
{
  if (--self->pending > 0)
    return;
  gsize n = g_memory_output_stream_get_data_size (G_MEMORY_OUTPUT_STREAM (self->out));
  g_autofree char *out = g_strndup (g_memory_output_stream_get_data (G_MEMORY_OUTPUT_STREAM (self->out)), n);
  g_clear_object (&self->out);
  g_clear_object (&self->err_lines);
  g_clear_object (&self->proc);
  g_autoptr (JsonNode) node = *out ? json_from_string (out, NULL) : NULL;
  if (!node || !JSON_NODE_HOLDS_OBJECT (node))
    {
      g_strstrip (self->err->str);
      self->error = g_strdup (self->cancelled ? _("cancelled; the runs it finished are in History")
                              : self->err->len ? self->err->str
                                               : _("no result"));
      finish (self);
      return;
    }
  self->result = json_object_ref (json_node_get_object (node));
  gint64 sweep_id = json_object_get_int_member_with_default (self->result, "sweep_id", 0);
  if (sweep_id <= 0)
    {
      finish (self);
      return;
    }
  g_autoptr (GTask) task = g_task_new (self, NULL, on_summaries, NULL);
  g_task_set_task_data (task, GSIZE_TO_POINTER ((gsize) sweep_id), NULL);
  g_task_run_in_thread (task, read_summaries);
}

static void
on_stdout (GObject *source, GAsyncResult *res, gpointer data)
{
  g_autoptr (LsTuneSession) self = data;
  g_autoptr (GError) error = NULL;
  g_output_stream_splice_finish (G_OUTPUT_STREAM (source), res, &error);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return; /* disposed meanwhile */
  ended (self);
}

static void read_line (LsTuneSession *self);

static void
on_line (GObject *source, GAsyncResult *res, gpointer data)
{
  g_autoptr (LsTuneSession) self = data;
  g_autoptr (GError) error = NULL;
  g_autofree char *line = g_data_input_stream_read_line_finish_utf8 (G_DATA_INPUT_STREAM (source), res, NULL, &error);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  if (!line)
    {
      ended (self); /* the end of stderr (or a line that is not UTF-8: the rest is lost) */
      return;
    }
  g_string_append_printf (self->err, "%s\n", line);
  g_strstrip (line);
  if (*line)
    {
      g_free (self->last_line);
      self->last_line = g_steal_pointer (&line);
      g_signal_emit (self, signals[SIGNAL_PROGRESS], 0, self->last_line);
    }
  read_line (self);
}

static void
read_line (LsTuneSession *self)
{
  g_data_input_stream_read_line_async (self->err_lines, G_PRIORITY_DEFAULT, self->cancel, on_line,
                                       g_object_ref (self));
}

static void
on_exit (GObject *source, GAsyncResult *res, gpointer data)
{
  g_autoptr (LsTuneSession) self = data;
  g_autoptr (GError) error = NULL;
  g_subprocess_wait_finish (G_SUBPROCESS (source), res, &error);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  ended (self);
}

gboolean
ls_tune_session_start (LsTuneSession *self, GError **error)
{
  double v;
  g_return_val_if_fail (!self->proc, FALSE);
  if (self->memory && *self->memory && !ls_tune_parse_size (self->memory, &v))
    {
      g_set_error (error, LS_TUNE_ERROR, LS_TUNE_ERROR_INVALID,
                   _("The memory budget is not a size: write it as 4G, 512M or a number of bytes."));
      return FALSE;
    }
  if (self->time_budget && *self->time_budget && !ls_tune_parse_duration (self->time_budget, &v))
    {
      g_set_error (error, LS_TUNE_ERROR, LS_TUNE_ERROR_INVALID,
                   _("The time budget is not a duration: write it as 120s or 5m."));
      return FALSE;
    }
  g_autofree char *self_exe = ls_self_exe_path ();
  const char *runner = g_getenv ("LOADSCOPE") ? g_getenv ("LOADSCOPE") : self_exe;
  g_autoptr (GPtrArray) argv = ls_tune_session_argv (self, runner);
  self->proc = g_subprocess_newv ((const char *const *) argv->pdata,
                                  G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE, error);
  if (!self->proc)
    return FALSE;
  g_clear_pointer (&self->error, g_free);
  g_clear_pointer (&self->result, json_object_unref);
  g_clear_object (&self->cancel);
  self->cancel = g_cancellable_new ();
  /* Its result comes on stdout, its progress lines on stderr: each line
   * is said as it comes ("progress"), and the exit ends it. */
  self->running = TRUE;
  self->cancelled = FALSE;
  self->pending = 3;
  g_string_truncate (self->err, 0);
  g_clear_pointer (&self->last_line, g_free);
  self->out = g_memory_output_stream_new_resizable ();
  g_output_stream_splice_async (self->out, g_subprocess_get_stdout_pipe (self->proc),
                                G_OUTPUT_STREAM_SPLICE_CLOSE_SOURCE | G_OUTPUT_STREAM_SPLICE_CLOSE_TARGET,
                                G_PRIORITY_DEFAULT, self->cancel, on_stdout, g_object_ref (self));
  self->err_lines = g_data_input_stream_new (g_subprocess_get_stderr_pipe (self->proc));
  read_line (self);
  g_subprocess_wait_async (self->proc, self->cancel, on_exit, g_object_ref (self));
  return TRUE;
}

const char *
ls_tune_session_get_progress (LsTuneSession *self)
{
  return self->last_line;
}

void
ls_tune_session_cancel (LsTuneSession *self)
{
  self->cancelled |= self->proc != NULL;
  const char *id = self->proc ? g_subprocess_get_identifier (self->proc) : NULL;
  if (id && ls_process_interrupt ((ls_pid) g_ascii_strtoull (id, NULL, 10), NULL) != LS_OK)
    g_subprocess_force_exit (self->proc); /* it listens for none: stopped */
}

gboolean
ls_tune_session_is_running (LsTuneSession *self)
{
  return self->running;
}

JsonObject *
ls_tune_session_get_result (LsTuneSession *self)
{
  return self->result;
}

const char *
ls_tune_session_get_error (LsTuneSession *self)
{
  return self->error;
}

JsonArray *
ls_tune_session_get_summaries (LsTuneSession *self)
{
  return self->summaries;
}

static void
ls_tune_session_dispose (GObject *object)
{
  LsTuneSession *self = LS_TUNE_SESSION (object);
  if (self->proc)
    ls_tune_session_cancel (self); /* its current run ends interrupted, recorded */
  if (self->cancel)
    g_cancellable_cancel (self->cancel);
  g_clear_object (&self->proc);
  g_clear_object (&self->cancel);
  g_clear_object (&self->err_lines);
  g_clear_object (&self->out);
  G_OBJECT_CLASS (ls_tune_session_parent_class)->dispose (object);
}

static void
ls_tune_session_finalize (GObject *object)
{
  LsTuneSession *self = LS_TUNE_SESSION (object);
  g_clear_pointer (&self->request, ls_sweep_request_free);
  g_free (self->db);
  g_free (self->memory);
  g_free (self->time_budget);
  g_clear_pointer (&self->result, json_object_unref);
  g_clear_pointer (&self->summaries, json_array_unref);
  g_free (self->error);
  g_free (self->last_line);
  g_string_free (self->err, TRUE);
  G_OBJECT_CLASS (ls_tune_session_parent_class)->finalize (object);
}

static void
ls_tune_session_class_init (LsTuneSessionClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = ls_tune_session_dispose;
  G_OBJECT_CLASS (klass)->finalize = ls_tune_session_finalize;
  /* The runner ended: a result or an error, and its runs read. */
  signals[SIGNAL_FINISHED] = g_signal_new ("finished", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                                           NULL, G_TYPE_NONE, 0);
  /* A progress line of the runner ("measuring workers=2 ..."), as it comes. */
  signals[SIGNAL_PROGRESS] = g_signal_new ("progress", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                                           NULL, G_TYPE_NONE, 1, G_TYPE_STRING);
}

static void
ls_tune_session_init (LsTuneSession *self)
{
  self->summaries = json_array_new ();
  self->err = g_string_new (NULL);
}

LsTuneSession *
ls_tune_session_new (const ls_sweep_request *request, const char *db, const char *memory, const char *time_budget)
{
  LsTuneSession *self = g_object_new (LS_TYPE_TUNE_SESSION, NULL);
  self->request = ls_sweep_request_copy (request);
  self->db = g_strdup (db);
  self->memory = g_strdup (memory);
  self->time_budget = g_strdup (time_budget);
  return self;
}
