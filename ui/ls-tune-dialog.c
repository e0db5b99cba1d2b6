/* The Tune window (ls-tune-dialog.h). */
#include "ui/ls-tune-dialog-private.h"

#include <string.h>

#include "app/analysis/tune-session.h"

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
  LsTuneSession *session; /* while tune runs, and after: its result */
  char *result_text;
};

G_DEFINE_FINAL_TYPE (LsTuneDialog, ls_tune_dialog, ADW_TYPE_WINDOW)

gboolean
ls_tune_dialog_is_running (LsTuneDialog *self)
{
  return self->session && ls_tune_session_is_running (self->session);
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

static void
on_finished (LsTuneSession *session, LsTuneDialog *self)
{
  set_running (self, FALSE);
  JsonObject *o = ls_tune_session_get_result (session);
  if (!o)
    {
      g_autofree char *why = g_strdup_printf ("Tune did not finish: %s", ls_tune_session_get_error (session));
      show_result (self, why);
      gtk_label_set_text (self->progress, "");
      return;
    }
  const char *verdict = json_object_get_string_member_with_default (o, "verdict", "");
  const char *pytorch = json_object_get_string_member_with_default (o, "pytorch", "");
  g_autofree char *text = g_strdup_printf ("%s\n\nIn PyTorch: %s", verdict, pytorch);
  show_result (self, text);
  gtk_label_set_text (self->progress, "Done: its runs are on the Results page and in History.");
  gint64 sweep_id = json_object_get_int_member_with_default (o, "sweep_id", 0);
  if (self->done && sweep_id > 0)
    self->done (self->db, sweep_id, ls_tune_session_get_summaries (session), self->done_data);
}

void
ls_tune_dialog_start (LsTuneDialog *self)
{
  g_autoptr (GError) error = NULL;
  if (self->session)
    {
      g_signal_handlers_disconnect_by_data (self->session, self);
      g_clear_object (&self->session);
    }
  self->session = ls_tune_session_new (self->request, self->db, gtk_editable_get_text (GTK_EDITABLE (self->memory)),
                                       gtk_editable_get_text (GTK_EDITABLE (self->time_budget)));
  g_signal_connect (self->session, "finished", G_CALLBACK (on_finished), self);
  if (!ls_tune_session_start (self->session, &error))
    {
      show_result (self, error->message);
      return;
    }
  show_result (self, "");
  gtk_label_set_text (self->progress, "Measuring a first configuration…");
  set_running (self, TRUE);
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
  /* the session asks tune to end its current run as interrupted */
  if (self->session)
    g_signal_handlers_disconnect_by_data (self->session, self);
  g_clear_object (&self->session);
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
                                    "within the budgets, for the dataset or script and the other knobs of the Setup "
                                    "page. It measures a few configurations, fits a model, and measures where the "
                                    "model points.");
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
