/* The Tune window (ls-tune-dialog.h). */
#include "ui/ls-tune-dialog.h"

#include <signal.h>
#include <string.h>

#include "app/analysis/tune.h"
#include "app/core/worker-path.h"
#include "app/store/store-query.h"

struct _LsTuneDialog {
  AdwWindow parent_instance;
  GtkEntry *memory;
  GtkEntry *time_budget;
  GtkButton *start;
  GtkSpinner *spinner;
  GtkLabel *progress;
  GtkLabel *result;
  ls_sweep_request *request;
  char *db;
  LsTuneDoneFunc done;
  gpointer done_data;
  GSubprocess *proc;
  GDataInputStream *err;
  GCancellable *cancel;
  char *result_text;
};

G_DEFINE_FINAL_TYPE (LsTuneDialog, ls_tune_dialog, ADW_TYPE_WINDOW)

GPtrArray *
ls_tune_dialog_argv (const ls_sweep_request *request, const char *runner, const char *db, const char *memory,
                     const char *time_budget)
{
  GPtrArray *argv = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (argv, g_strdup (runner));
  g_ptr_array_add (argv, g_strdup ("tune"));
  g_ptr_array_add (argv, g_strdup ("--dataset"));
  g_ptr_array_add (argv, g_strdup (request->dataset));
  for (guint k = 0; k < LS_SWEEP_N_KNOBS; k++)
    {
      /* tune chooses these; a knob swept over several values is left to it too. */
      if (k == LS_SWEEP_KNOB_WORKERS || k == LS_SWEEP_KNOB_PREFETCH || k == LS_SWEEP_KNOB_PIN
          || k == LS_SWEEP_KNOB_PERSISTENT || k == LS_SWEEP_KNOB_DATASET || !request->knobs[k]
          || request->knobs[k]->len != 1)
        continue;
      g_ptr_array_add (argv, g_strdup_printf ("--%s", ls_sweep_knobs[k].name));
      g_ptr_array_add (argv, g_strdup (g_ptr_array_index (request->knobs[k], 0)));
    }
  if (request->drop_last)
    g_ptr_array_add (argv, g_strdup ("--drop-last"));
  if (memory && *memory)
    {
      g_ptr_array_add (argv, g_strdup ("--memory-budget"));
      g_ptr_array_add (argv, g_strdup (memory));
    }
  if (time_budget && *time_budget)
    {
      g_ptr_array_add (argv, g_strdup ("--time-budget"));
      g_ptr_array_add (argv, g_strdup (time_budget));
    }
  if (db)
    {
      g_ptr_array_add (argv, g_strdup ("--db"));
      g_ptr_array_add (argv, g_strdup (db));
    }
  g_ptr_array_add (argv, g_strdup ("--json"));
  g_ptr_array_add (argv, NULL);
  return argv;
}

gboolean
ls_tune_dialog_is_running (LsTuneDialog *self)
{
  return self->proc != NULL;
}

const char *
ls_tune_dialog_get_result (LsTuneDialog *self)
{
  return self->result_text;
}

static void
set_running (LsTuneDialog *self, gboolean running)
{
  gtk_widget_set_sensitive (GTK_WIDGET (self->start), !running);
  gtk_widget_set_sensitive (GTK_WIDGET (self->memory), !running);
  gtk_widget_set_sensitive (GTK_WIDGET (self->time_budget), !running);
  gtk_spinner_set_spinning (self->spinner, running);
}

static void
show_result (LsTuneDialog *self, const char *text)
{
  g_free (self->result_text);
  self->result_text = g_strdup (text);
  gtk_label_set_text (self->result, text);
}

/* The summaries of the sweep's runs, from the store. */
static JsonArray *
sweep_summaries (const char *db, gint64 sweep_id)
{
  JsonArray *out = json_array_new ();
  g_autoptr (ls_store) store = ls_store_open_to_read (db, NULL);
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
  return out;
}

static void
on_finished (GObject *source, GAsyncResult *res, gpointer data)
{
  g_autoptr (LsTuneDialog) self = data;
  g_autoptr (GError) error = NULL;
  g_autofree char *out = NULL, *err = NULL;
  gboolean ok = g_subprocess_communicate_utf8_finish (G_SUBPROCESS (source), res, &out, &err, &error);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  g_clear_object (&self->proc);
  set_running (self, FALSE);
  g_autoptr (JsonNode) node = ok && out ? json_from_string (out, NULL) : NULL;
  if (!node || !JSON_NODE_HOLDS_OBJECT (node))
    {
      g_autofree char *why = g_strdup_printf ("Tune did not finish: %s", error ? error->message
                                              : err && *err ? g_strstrip (err) : "no result");
      show_result (self, why);
      gtk_label_set_text (self->progress, "");
      return;
    }
  JsonObject *o = json_node_get_object (node);
  const char *verdict = json_object_get_string_member_with_default (o, "verdict", "");
  const char *pytorch = json_object_get_string_member_with_default (o, "pytorch", "");
  g_autofree char *text = g_strdup_printf ("%s\n\nIn PyTorch: %s", verdict, pytorch);
  show_result (self, text);
  gtk_label_set_text (self->progress, "Done: its runs are on the Results page and in History.");
  gint64 sweep_id = json_object_get_int_member_with_default (o, "sweep_id", 0);
  if (self->done && sweep_id > 0)
    {
      g_autoptr (JsonArray) summaries = sweep_summaries (self->db, sweep_id);
      self->done (self->db, sweep_id, summaries, self->done_data);
    }
}

void
ls_tune_dialog_start (LsTuneDialog *self)
{
  g_autoptr (GError) error = NULL;
  const char *memory = gtk_editable_get_text (GTK_EDITABLE (self->memory));
  const char *time_budget = gtk_editable_get_text (GTK_EDITABLE (self->time_budget));
  double v;
  if (*memory && !ls_tune_parse_size (memory, &v))
    {
      show_result (self, "The memory budget is not a size: write it as 4G, 512M or a number of bytes.");
      return;
    }
  if (*time_budget && !ls_tune_parse_duration (time_budget, &v))
    {
      show_result (self, "The time budget is not a duration: write it as 120s or 5m.");
      return;
    }
  g_autofree char *self_exe = ls_self_exe_path ();
  const char *runner = g_getenv ("LOADSCOPE") ? g_getenv ("LOADSCOPE") : self_exe;
  g_autoptr (GPtrArray) argv = ls_tune_dialog_argv (self->request, runner, self->db, memory, time_budget);
  self->proc = g_subprocess_newv ((const char *const *) argv->pdata,
                                  G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE, &error);
  if (!self->proc)
    {
      g_autofree char *why = g_strdup_printf ("Tune could not start: %s", error->message);
      show_result (self, why);
      return;
    }
  show_result (self, "");
  gtk_label_set_text (self->progress, "Measuring a first configuration…");
  set_running (self, TRUE);
  g_clear_object (&self->cancel);
  self->cancel = g_cancellable_new ();
  /* Its progress lines go to stderr: communicate () collects them; the
   * label says what it is doing in general terms meanwhile. */
  g_subprocess_communicate_utf8_async (self->proc, NULL, self->cancel, on_finished, g_object_ref (self));
}

static void
on_start_clicked (GtkButton *button, LsTuneDialog *self)
{
  ls_tune_dialog_start (self);
}

static void
ls_tune_dialog_dispose (GObject *object)
{
  LsTuneDialog *self = LS_TUNE_DIALOG (object);
  if (self->cancel)
    g_cancellable_cancel (self->cancel);
  /* tune ends its current run as interrupted (Unix); elsewhere it is stopped. */
  if (self->proc)
#ifdef G_OS_UNIX
    g_subprocess_send_signal (self->proc, SIGINT);
#else
    g_subprocess_force_exit (self->proc);
#endif
  g_clear_object (&self->proc);
  g_clear_object (&self->cancel);
  g_clear_pointer (&self->request, ls_sweep_request_free);
  g_clear_pointer (&self->db, g_free);
  g_clear_pointer (&self->result_text, g_free);
  G_OBJECT_CLASS (ls_tune_dialog_parent_class)->dispose (object);
}

static void
ls_tune_dialog_class_init (LsTuneDialogClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = ls_tune_dialog_dispose;
}

static GtkWidget *
labelled (GtkGrid *grid, int row, const char *text, GtkEntry **entry, const char *value, const char *hint)
{
  GtkWidget *label = gtk_label_new (text);
  gtk_label_set_xalign (GTK_LABEL (label), 1);
  gtk_grid_attach (grid, label, 0, row, 1, 1);
  *entry = GTK_ENTRY (gtk_entry_new ());
  gtk_editable_set_text (GTK_EDITABLE (*entry), value);
  gtk_entry_set_placeholder_text (*entry, hint);
  gtk_widget_set_hexpand (GTK_WIDGET (*entry), TRUE);
  gtk_accessible_update_property (GTK_ACCESSIBLE (*entry), GTK_ACCESSIBLE_PROPERTY_LABEL, text, -1);
  gtk_grid_attach (grid, GTK_WIDGET (*entry), 1, row, 1, 1);
  return label;
}

static void
ls_tune_dialog_init (LsTuneDialog *self)
{
  gtk_window_set_title (GTK_WINDOW (self), "Tune");
  gtk_window_set_default_size (GTK_WINDOW (self), 560, 420);
  GtkWidget *outer = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  gtk_box_append (GTK_BOX (outer), adw_header_bar_new ());
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 12);
  gtk_widget_set_margin_start (box, 18);
  gtk_widget_set_margin_end (box, 18);
  gtk_widget_set_margin_top (box, 12);
  gtk_widget_set_margin_bottom (box, 18);
  GtkWidget *intro = gtk_label_new ("Finds the workers, prefetch, pin mode and persistence that feed the GPU best "
                                    "within the budgets, for the dataset and the other knobs of the Setup page. It "
                                    "measures a few configurations, fits a model, and measures where the model points.");
  gtk_label_set_wrap (GTK_LABEL (intro), TRUE);
  gtk_label_set_xalign (GTK_LABEL (intro), 0);
  gtk_box_append (GTK_BOX (box), intro);
  GtkGrid *grid = GTK_GRID (gtk_grid_new ());
  gtk_grid_set_row_spacing (grid, 6);
  gtk_grid_set_column_spacing (grid, 12);
  labelled (grid, 0, "Memory budget", &self->memory, "4G", "PSS peak of the loader, e.g. 4G (empty: none)");
  labelled (grid, 1, "Time budget", &self->time_budget, "120s", "How long to measure, e.g. 120s or 5m");
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (grid));
  GtkWidget *row = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 12);
  self->start = GTK_BUTTON (gtk_button_new_with_label ("Tune"));
  gtk_widget_add_css_class (GTK_WIDGET (self->start), "suggested-action");
  g_signal_connect (self->start, "clicked", G_CALLBACK (on_start_clicked), self);
  gtk_box_append (GTK_BOX (row), GTK_WIDGET (self->start));
  self->spinner = GTK_SPINNER (gtk_spinner_new ());
  gtk_box_append (GTK_BOX (row), GTK_WIDGET (self->spinner));
  self->progress = GTK_LABEL (gtk_label_new (NULL));
  gtk_label_set_xalign (self->progress, 0);
  gtk_widget_add_css_class (GTK_WIDGET (self->progress), "dim-label");
  gtk_box_append (GTK_BOX (row), GTK_WIDGET (self->progress));
  gtk_box_append (GTK_BOX (box), row);
  self->result = GTK_LABEL (gtk_label_new (NULL));
  gtk_label_set_wrap (self->result, TRUE);
  gtk_label_set_xalign (self->result, 0);
  gtk_label_set_yalign (self->result, 0);
  gtk_label_set_selectable (self->result, TRUE);
  gtk_widget_set_vexpand (GTK_WIDGET (self->result), TRUE);
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (self->result));
  gtk_box_append (GTK_BOX (outer), box);
  adw_window_set_content (ADW_WINDOW (self), outer);
}

LsTuneDialog *
ls_tune_dialog_new (GtkWindow *parent, const ls_sweep_request *request, const char *db, LsTuneDoneFunc done,
                    gpointer user_data)
{
  LsTuneDialog *self = g_object_new (LS_TYPE_TUNE_DIALOG, "transient-for", parent, "modal", TRUE, NULL);
  self->request = ls_sweep_request_copy (request);
  self->db = g_strdup (db);
  self->done = done;
  self->done_data = user_data;
  /* The button first: Enter starts, and no entry holds the focus when the
   * window goes. */
  gtk_window_set_focus (GTK_WINDOW (self), GTK_WIDGET (self->start));
  return self;
}
