#include "ui/ls-window.h"

#include "loadscope-ui-resources.h"

#include "app/core/i18n.h"
#include "app/store/store.h"
#include "app/sweep/sweep-session.h"
#include "ui/ls-history-page.h"
#include "ui/ls-results-page.h"
#include "ui/ls-run-page.h"
#include "ui/ls-setup-page.h"
#include "ui/ls-tune-dialog.h"

struct _LsWindow {
  AdwApplicationWindow parent_instance;
  AdwToastOverlay *toasts;
  AdwViewStack *stack;
  GtkWidget *run_button;
  GtkWidget *cancel_button;
  LsSetupPage *setup_page;
  LsRunPage *run_page;
  LsResultsPage *results_page;
  LsHistoryPage *history_page;
  LsSweepSession *session;
  GSignalGroup *session_signals; /* the window's handlers, on whichever session runs */
  GPtrArray *sweep_toasts; /* AdwToast: the current sweep's, dismissed with it */
  AdwToast *last_toast;
  char *db;
};

G_DEFINE_FINAL_TYPE (LsWindow, ls_window, ADW_TYPE_APPLICATION_WINDOW)

/* A toast's title is markup: a message is shown as plain text, so one
 * with <, > or & ("<class>/<image>.jpg") shows whole. */
static AdwToast *
plain_toast (const char *message)
{
  g_autofree char *escaped = g_markup_escape_text (message, -1);
  return adw_toast_new (escaped);
}

static void
show_toast (LsWindow *self, AdwToast *toast)
{
  g_set_object (&self->last_toast, toast);
  adw_toast_overlay_add_toast (self->toasts, toast);
}

void
ls_window_toast (LsWindow *self, const char *message)
{
  AdwToast *toast = plain_toast (message);
  adw_toast_set_timeout (toast, 6);
  show_toast (self, toast);
}

void
ls_window_toast_file (LsWindow *self, const char *message, const char *path)
{
  AdwToast *toast = plain_toast (message);
  g_autoptr (GFile) file = g_file_new_for_path (path);
  g_autofree char *uri = g_file_get_uri (file);
  adw_toast_set_timeout (toast, 10); /* time to reach the button */
  adw_toast_set_button_label (toast, _("_Open"));
  adw_toast_set_action_name (toast, "win.open-file");
  adw_toast_set_action_target_value (toast, g_variant_new_string (uri));
  show_toast (self, toast);
}

AdwToast *
ls_window_last_toast (LsWindow *self)
{
  return self->last_toast;
}

static void
open_file_activated (GtkWidget *widget, const char *name, GVariant *parameter)
{
  gtk_show_uri (GTK_WINDOW (widget), g_variant_get_string (parameter, NULL), GDK_CURRENT_TIME);
}

/* A toast about the sweep going on: none of them outlives the next start. */
static void
sweep_toast (LsWindow *self, const char *message)
{
  AdwToast *toast = plain_toast (message);
  adw_toast_set_timeout (toast, 6);
  g_ptr_array_add (self->sweep_toasts, g_object_ref (toast));
  show_toast (self, toast);
}

static void
dismiss_sweep_toasts (LsWindow *self)
{
  for (guint i = 0; i < self->sweep_toasts->len; i++)
    adw_toast_dismiss (self->sweep_toasts->pdata[i]);
  g_ptr_array_set_size (self->sweep_toasts, 0);
}

static void
set_running (LsWindow *self, gboolean running)
{
  gtk_widget_set_visible (self->run_button, !running);
  gtk_widget_set_visible (self->cancel_button, running);
  gtk_widget_set_sensitive (GTK_WIDGET (self->setup_page), !running);
}

/* ------------------------------------------------------------ the sweep */

static void
on_run_started (LsSweepSession *session, guint index, const char *label, LsWindow *self)
{
  ls_run_page_run_started (self->run_page, index, ls_sweep_session_get_total (session), label);
}

static void
on_event (LsSweepSession *session, JsonObject *event, LsWindow *self)
{
  ls_run_page_event (self->run_page, event);
}

static void
on_run_finished (LsSweepSession *session, guint index, JsonObject *summary, LsWindow *self)
{
  ls_setup_page_note_run (self->setup_page, summary);
  /* A runner that ended without a summary was reported by "error". */
  if (summary && g_strcmp0 (json_object_get_string_member_with_default (summary, "status", ""), "failed") == 0)
    {
      g_autofree char *msg = g_strdup_printf (_("Run %u failed: %s"), index,
                                              json_object_get_string_member_with_default (summary, "error", "?"));
      sweep_toast (self, msg);
    }
}

static void
on_error (LsSweepSession *session, const char *message, LsWindow *self)
{
  /* A failed sweep says why on the Run page instead. */
  if (!ls_sweep_session_get_failure (session))
    sweep_toast (self, message);
}

static void
on_finished (LsSweepSession *session, gboolean cancelled, LsWindow *self)
{
  const char *failure = ls_sweep_session_get_failure (session);
  LsSetupMachine *machine = ls_setup_page_get_machine (self->setup_page);
  set_running (self, FALSE);
  /* What went wrong on another machine is said under its row too. */
  if (failure && !ls_setup_machine_is_local (machine))
    ls_setup_machine_show_problem (machine, failure);
  ls_run_page_sweep_finished (self->run_page, cancelled, failure);
  JsonArray *summaries = ls_sweep_session_get_summaries (session);
  if (!failure && summaries && json_array_get_length (summaries) > 0)
    {
      ls_results_page_show_sweep (self->results_page, self->db, ls_sweep_session_get_sweep_id (session), summaries);
      adw_view_stack_set_visible_child_name (self->stack, "results");
    }
  ls_history_page_reload (self->history_page);
  if (cancelled)
    sweep_toast (self, _("Sweep cancelled; the current run is recorded as interrupted."));
  g_signal_group_set_target (self->session_signals, NULL);
  g_clear_object (&self->session);
}

/* The store is open and the sweep recorded (in a worker thread); its first
 * run starts next. */
static void
sweep_started (GObject *source, GAsyncResult *result, gpointer data)
{
  g_autoptr (LsWindow) self = data;
  LsSweepSession *session = LS_SWEEP_SESSION (source);
  g_autoptr (GError) error = NULL;

  if (!ls_sweep_session_start_finish (session, result, &error))
    {
      ls_window_toast (self, error->message);
      set_running (self, FALSE);
      if (self->session == session)
        {
          g_signal_group_set_target (self->session_signals, NULL);
          g_clear_object (&self->session);
        }
      return;
    }
  if (self->session != session)
    return;
  ls_run_page_sweep_started (self->run_page, ls_sweep_session_get_total (session));
  adw_view_stack_set_visible_child_name (self->stack, "run");
}

static void
run_activated (GtkWidget *widget, const char *action, GVariant *param)
{
  LsWindow *self = LS_WINDOW (widget);
  g_autoptr (GError) error = NULL;

  if (self->session)
    return;
  dismiss_sweep_toasts (self);
  g_autoptr (ls_sweep_request) request = ls_setup_page_get_request (self->setup_page, &error);
  if (!request)
    {
      ls_window_toast (self, error->message);
      return;
    }
  request->db = g_strdup (self->db);
  request->runner = g_strdup (g_getenv ("LOADSCOPE"));
  ls_setup_machine_show_problem (ls_setup_page_get_machine (self->setup_page), NULL);
  self->session = ls_sweep_session_new (request);
  g_signal_group_set_target (self->session_signals, self->session);
  set_running (self, TRUE);
  ls_sweep_session_start_async (self->session, NULL, sweep_started, g_object_ref (self));
}

/* Tune recorded its sweep: shown on Results, listed in History. */
static void
tune_done (const char *db, gint64 sweep_id, JsonArray *summaries, gpointer data)
{
  LsWindow *self = data;
  if (json_array_get_length (summaries) > 0)
    {
      ls_results_page_show_sweep (self->results_page, db, sweep_id, summaries);
      adw_view_stack_set_visible_child_name (self->stack, "results");
    }
  ls_history_page_reload (self->history_page);
}

/* History asked for a sweep: Results reads and shows it. */
static void
open_sweep (LsWindow *self, gint64 sweep_id)
{
  ls_results_page_open_sweep (self->results_page, self->db, sweep_id);
  adw_view_stack_set_visible_child_name (self->stack, "results");
}

static void
tune_activated (GtkWidget *widget, const char *action, GVariant *param)
{
  LsWindow *self = LS_WINDOW (widget);
  g_autoptr (GError) error = NULL;

  if (self->session)
    return;
  g_autoptr (ls_sweep_request) request = ls_setup_page_get_request (self->setup_page, &error);
  if (!request)
    {
      ls_window_toast (self, error->message);
      return;
    }
  if (request->on)
    {
      /* The Tune window's session has no --on yet: it would measure here. */
      g_autofree char *message = g_strdup_printf (
          _("Tune runs on this computer only in the window; for %s use: loadscope tune --on %s"), request->on,
          request->on);
      ls_window_toast (self, message);
      return;
    }
  LsTuneDialog *dialog = ls_tune_dialog_new (GTK_WINDOW (self), request, self->db, tune_done, self);
  gtk_window_present (GTK_WINDOW (dialog));
}

static void
cancel_activated (GtkWidget *widget, const char *action, GVariant *param)
{
  LsWindow *self = LS_WINDOW (widget);
  if (self->session)
    ls_sweep_session_cancel (self->session);
}

static void
export_activated (GtkWidget *widget, const char *action, GVariant *param)
{
  LsWindow *self = LS_WINDOW (widget);
  adw_view_stack_set_visible_child_name (self->stack, "history");
  ls_history_page_export (self->history_page);
}

static void
import_activated (GtkWidget *widget, const char *action, GVariant *param)
{
  LsWindow *self = LS_WINDOW (widget);
  adw_view_stack_set_visible_child_name (self->stack, "history");
  ls_history_page_import (self->history_page);
}

/* ------------------------------------------------------------ life */

static void
ls_window_dispose (GObject *object)
{
  LsWindow *self = LS_WINDOW (object);
  if (self->session_signals)
    g_signal_group_set_target (self->session_signals, NULL);
  g_clear_object (&self->session_signals);
  if (self->session)
    {
      ls_sweep_session_cancel (self->session);
      g_clear_object (&self->session);
    }
  gtk_widget_dispose_template (GTK_WIDGET (self), LS_TYPE_WINDOW);
  G_OBJECT_CLASS (ls_window_parent_class)->dispose (object);
}

static void
ls_window_finalize (GObject *object)
{
  LsWindow *self = LS_WINDOW (object);
  g_clear_pointer (&self->sweep_toasts, g_ptr_array_unref);
  g_clear_object (&self->last_toast);
  g_free (self->db);
  G_OBJECT_CLASS (ls_window_parent_class)->finalize (object);
}

static void
ls_window_class_init (LsWindowClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  /* Referencing the resource keeps its object (and the templates) linked in. */
  (void) ls_ui_resources_get_resource ();
  G_OBJECT_CLASS (klass)->dispose = ls_window_dispose;
  G_OBJECT_CLASS (klass)->finalize = ls_window_finalize;
  g_type_ensure (LS_TYPE_SETUP_PAGE);
  g_type_ensure (LS_TYPE_RUN_PAGE);
  g_type_ensure (LS_TYPE_RESULTS_PAGE);
  g_type_ensure (LS_TYPE_HISTORY_PAGE);
  gtk_widget_class_set_template_from_resource (widget_class, "/org/loadscope/Loadscope/ui/ls-window.ui");
  gtk_widget_class_bind_template_child (widget_class, LsWindow, toasts);
  gtk_widget_class_bind_template_child (widget_class, LsWindow, stack);
  gtk_widget_class_bind_template_child (widget_class, LsWindow, run_button);
  gtk_widget_class_bind_template_child (widget_class, LsWindow, cancel_button);
  gtk_widget_class_bind_template_child (widget_class, LsWindow, setup_page);
  gtk_widget_class_bind_template_child (widget_class, LsWindow, run_page);
  gtk_widget_class_bind_template_child (widget_class, LsWindow, results_page);
  gtk_widget_class_bind_template_child (widget_class, LsWindow, history_page);
  gtk_widget_class_install_action (widget_class, "win.run", NULL, run_activated);
  gtk_widget_class_install_action (widget_class, "win.cancel", NULL, cancel_activated);
  gtk_widget_class_install_action (widget_class, "win.tune", NULL, tune_activated);
  gtk_widget_class_install_action (widget_class, "win.export", NULL, export_activated);
  gtk_widget_class_install_action (widget_class, "win.import", NULL, import_activated);
  gtk_widget_class_install_action (widget_class, "win.open-file", "s", open_file_activated);
}

static void
ls_window_init (LsWindow *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  self->sweep_toasts = g_ptr_array_new_with_free_func (g_object_unref);
  /* Connected once; set_target moves them to each sweep's session. */
  self->session_signals = g_signal_group_new (LS_TYPE_SWEEP_SESSION);
  g_signal_group_connect (self->session_signals, "run-started", G_CALLBACK (on_run_started), self);
  g_signal_group_connect (self->session_signals, "event", G_CALLBACK (on_event), self);
  g_signal_group_connect (self->session_signals, "run-finished", G_CALLBACK (on_run_finished), self);
  g_signal_group_connect (self->session_signals, "error", G_CALLBACK (on_error), self);
  g_signal_group_connect (self->session_signals, "finished", G_CALLBACK (on_finished), self);
  const char *db = g_getenv ("LOADSCOPE_DB");
  self->db = db && *db ? g_strdup (db) : ls_store_default_path ();
  ls_history_page_set_db (self->history_page, self->db);
  g_signal_connect_swapped (self->history_page, "open-sweep", G_CALLBACK (open_sweep), self);
  /* Results shows the latest sweep recorded, from before this window too. */
  ls_results_page_open_sweep (self->results_page, self->db, 0);
}

LsWindow *
ls_window_new (LsApplication *app)
{
  LsWindow *self = g_object_new (LS_TYPE_WINDOW, "application", app, NULL);
  GSettings *settings = ls_application_get_settings (app);
  ls_setup_page_bind (self->setup_page, settings);
  g_settings_bind (settings, "window-width", self, "default-width", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (settings, "window-height", self, "default-height", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (settings, "window-maximized", self, "maximized", G_SETTINGS_BIND_DEFAULT);
  /* Back on the page left last; a start has no sweep to watch on Run. */
  g_autofree char *page = g_settings_get_string (settings, "last-page");
  adw_view_stack_set_visible_child_name (self->stack, g_str_equal (page, "run") ? "results" : page);
  g_settings_bind (settings, "last-page", self->stack, "visible-child-name", G_SETTINGS_BIND_SET);
  return self;
}
