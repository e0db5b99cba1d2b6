/* The Tune window (ls-tune-dialog.h). */
#include "ui/ls-tune-dialog-private.h"

#include <string.h>

#include "app/core/i18n.h"
#include "app/analysis/tune-session.h"

struct _LsTuneDialog {
  AdwWindow parent_instance;
  GtkEntry *memory;
  GtkEntry *time_budget;
  GtkButton *start;
  GtkButton *cancel;
  GtkSpinner *spinner;
  GtkLabel *progress;
  GtkLabel *result;
  ls_sweep_request *request;
  char *db;
  LsTuneDoneFunc done;
  gpointer done_data;
  LsTuneSession *session; /* while tune runs, and after: its result */
  char *result_text;
  guint measuring;    /* runs started so far */
  gboolean cancelling; /* Cancel was pressed: a second press does nothing */
};

G_DEFINE_FINAL_TYPE (LsTuneDialog, ls_tune_dialog, ADW_TYPE_WINDOW)

gboolean
ls_tune_dialog_is_running (LsTuneDialog *self)
{
  return self->session && ls_tune_session_is_running (self->session);
}

const char *
ls_tune_dialog_get_progress (LsTuneDialog *self)
{
  return gtk_label_get_text (self->progress);
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
  /* Always shown, only sensitive: hiding a button that may hold the focus
   * left GTK 4.8 a stale focus widget. The focus goes back to Tune. */
  gtk_widget_set_sensitive (GTK_WIDGET (self->cancel), running);
  gtk_spinner_set_spinning (self->spinner, running);
  if (!running)
    gtk_widget_grab_focus (GTK_WIDGET (self->start));
}

static void
show_result (LsTuneDialog *self, const char *text)
{
  g_free (self->result_text);
  self->result_text = g_strdup (text);
  gtk_label_set_text (self->result, text);
}

/* Tune's own progress lines, each as it comes, and how many runs so far. */
static void
on_progress (LsTuneSession *session, const char *line, LsTuneDialog *self)
{
  if (g_str_has_prefix (line, "measuring "))
    self->measuring++;
  g_autofree char *text = self->measuring > 0 ? g_strdup_printf (_("Run %u: %s"), self->measuring, line)
                                              : g_strdup (line);
  gtk_label_set_text (self->progress, text);
}

static void
on_finished (LsTuneSession *session, LsTuneDialog *self)
{
  set_running (self, FALSE);
  JsonObject *o = ls_tune_session_get_result (session);
  if (!o)
    {
      g_autofree char *why = g_strdup_printf (_("Tune did not finish: %s"), ls_tune_session_get_error (session));
      show_result (self, why);
      gtk_label_set_text (self->progress, "");
      return;
    }
  /* The recommendation and verdict as Results and `sweep` give them for
   * the same runs (its DataLoader line in it), then tune's own line. */
  show_result (self, json_object_get_string_member_with_default (o, "verdict", ""));
  gtk_label_set_text (self->progress, _("Done: its runs are on the Results page and in History."));
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
  self->measuring = 0;
  self->cancelling = FALSE;
  g_signal_connect (self->session, "finished", G_CALLBACK (on_finished), self);
  g_signal_connect (self->session, "progress", G_CALLBACK (on_progress), self);
  if (!ls_tune_session_start (self->session, &error))
    {
      show_result (self, error->message);
      return;
    }
  show_result (self, "");
  gtk_label_set_text (self->progress, _("Measuring a first configuration…"));
  set_running (self, TRUE);
}

static void
on_start_clicked (GtkButton *button, LsTuneDialog *self)
{
  ls_tune_dialog_start (self);
}

void
ls_tune_dialog_cancel (LsTuneDialog *self)
{
  if (!ls_tune_dialog_is_running (self) || self->cancelling)
    return;
  ls_tune_session_cancel (self->session);
  self->cancelling = TRUE;
  gtk_label_set_text (self->progress, _("Cancelling: the run in progress ends and is recorded…"));
}

static void
on_cancel_clicked (GtkButton *button, LsTuneDialog *self)
{
  ls_tune_dialog_cancel (self);
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
  gtk_widget_dispose_template (GTK_WIDGET (object), LS_TYPE_TUNE_DIALOG);
  G_OBJECT_CLASS (ls_tune_dialog_parent_class)->dispose (object);
}

static void
ls_tune_dialog_class_init (LsTuneDialogClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  G_OBJECT_CLASS (klass)->dispose = ls_tune_dialog_dispose;
  gtk_widget_class_set_template_from_resource (widget_class, "/org/loadscope/Loadscope/ui/ls-tune-dialog.ui");
  gtk_widget_class_bind_template_child (widget_class, LsTuneDialog, memory);
  gtk_widget_class_bind_template_child (widget_class, LsTuneDialog, time_budget);
  gtk_widget_class_bind_template_child (widget_class, LsTuneDialog, start);
  gtk_widget_class_bind_template_child (widget_class, LsTuneDialog, cancel);
  gtk_widget_class_bind_template_child (widget_class, LsTuneDialog, spinner);
  gtk_widget_class_bind_template_child (widget_class, LsTuneDialog, progress);
  gtk_widget_class_bind_template_child (widget_class, LsTuneDialog, result);
  gtk_widget_class_bind_template_callback (widget_class, on_start_clicked);
  gtk_widget_class_bind_template_callback (widget_class, on_cancel_clicked);
}

static void
ls_tune_dialog_init (LsTuneDialog *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
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
