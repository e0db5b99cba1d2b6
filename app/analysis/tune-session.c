/* The Tune window's runner (tune-session.h). */
#include "app/analysis/tune-session.h"

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
  JsonObject *result;
  JsonArray *summaries;
  char *error;
  gboolean running; /* from start until "finished" */
};

G_DEFINE_FINAL_TYPE (LsTuneSession, ls_tune_session, G_TYPE_OBJECT)

enum { SIGNAL_FINISHED, N_SIGNALS };
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

static void
on_ended (GObject *source, GAsyncResult *res, gpointer data)
{
  g_autoptr (LsTuneSession) self = data;
  g_autoptr (GError) error = NULL;
  g_autofree char *out = NULL, *err = NULL;
  gboolean ok = g_subprocess_communicate_utf8_finish (G_SUBPROCESS (source), res, &out, &err, &error);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return; /* disposed meanwhile */
  g_clear_object (&self->proc);
  g_autoptr (JsonNode) node = ok && out ? json_from_string (out, NULL) : NULL;
  if (!node || !JSON_NODE_HOLDS_OBJECT (node))
    {
      self->error = g_strdup (error ? error->message : err && *err ? g_strstrip (err) : "no result");
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

gboolean
ls_tune_session_start (LsTuneSession *self, GError **error)
{
  double v;
  g_return_val_if_fail (!self->proc, FALSE);
  if (self->memory && *self->memory && !ls_tune_parse_size (self->memory, &v))
    {
      g_set_error (error, LS_TUNE_ERROR, LS_TUNE_ERROR_INVALID,
                   "The memory budget is not a size: write it as 4G, 512M or a number of bytes.");
      return FALSE;
    }
  if (self->time_budget && *self->time_budget && !ls_tune_parse_duration (self->time_budget, &v))
    {
      g_set_error (error, LS_TUNE_ERROR, LS_TUNE_ERROR_INVALID,
                   "The time budget is not a duration: write it as 120s or 5m.");
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
  /* Its progress lines go to stderr: communicate () collects them. */
  self->running = TRUE;
  g_subprocess_communicate_utf8_async (self->proc, NULL, self->cancel, on_ended, g_object_ref (self));
  return TRUE;
}

void
ls_tune_session_cancel (LsTuneSession *self)
{
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
}

static void
ls_tune_session_init (LsTuneSession *self)
{
  self->summaries = json_array_new ();
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
