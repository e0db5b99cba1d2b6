/* Setup's target and script (ls-setup-page.h): Loadscope's loader or the
 * user's PyTorch script, the script with its arguments and interpreter,
 * checked in a thread (app/target/target-check.h) when chosen and when the
 * interpreter's name stops changing. */
#include "ui/ls-setup-page-private.h"

#include "app/core/i18n.h"
#include "app/target/target-check.h"

LsSetupTarget
ls_setup_page_get_target (LsSetupPage *self)
{
  return adw_combo_row_get_selected (self->target_row) == LS_SETUP_TARGET_PYTORCH ? LS_SETUP_TARGET_PYTORCH
                                                                                  : LS_SETUP_TARGET_LOADSCOPE;
}

void
ls_setup_page_set_target (LsSetupPage *self, LsSetupTarget target)
{
  adw_combo_row_set_selected (self->target_row, target);
}

/* A script has no dataset row (it loads its own data) and no model step
 * (its own step is measured). */
void
ls_setup_page_on_target_changed (LsSetupPage *self)
{
  gboolean script = ls_setup_page_get_target (self) == LS_SETUP_TARGET_PYTORCH;
  gboolean local = ls_setup_machine_is_local (self->machine); /* else the path there is typed under it */
  gtk_widget_set_visible (GTK_WIDGET (self->dataset_group), !script && local);
  gtk_widget_set_visible (GTK_WIDGET (self->script_group), script);
  gtk_widget_set_visible (GTK_WIDGET (self->script_row), local);
  gtk_widget_set_visible (GTK_WIDGET (self->script_problem_label), local && self->script_problem);
  ls_setup_machine_set_script (self->machine, script);
  gtk_widget_set_sensitive (GTK_WIDGET (self->model_row), !script);
  ls_setup_page_knob_rows_sensitive (self);
  ls_setup_page_update_estimate (self);
}

static void
show_script (LsSetupPage *self, const char *finding, gboolean bad)
{
  ls_setup_page_show_check (self->script_row, self->script_problem_label, self->script, finding,
                            bad ? _("Cannot be run (see below)") : NULL);
}

static void
script_check_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *chosen = NULL;
  gboolean cuda = FALSE;
  g_autofree char *description = ls_target_pytorch_check_finish (result, &chosen, &cuda, &error);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  LsSetupPage *self = user_data; /* alive: dispose cancels the check */
  g_clear_object (&self->script_checking);
  g_clear_pointer (&self->script_problem, g_free);
  if (!description)
    self->script_problem = g_strdup (error->message);
  /* Known only when the check passed; a failed one leaves the pins shown. */
  self->script_on_cpu = description && !cuda;
  ls_setup_page_knob_rows_sensitive (self);
  ls_setup_page_update_estimate (self);
  /* None given: the row names the interpreter found, which runs use (no
   * second check of the same one). */
  if (description && chosen && !*gtk_editable_get_text (GTK_EDITABLE (self->python)))
    {
      self->python_found = TRUE;
      gtk_editable_set_text (GTK_EDITABLE (self->python), chosen);
      self->python_found = FALSE;
    }
  show_script (self, description ? description : self->script_problem, description == NULL);
}

/* The script and interpreter checked now (app/target/target-check.h), so a
 * missing file or an interpreter without torch is said where it was chosen. */
static void
check_script (LsSetupPage *self)
{
  g_clear_handle_id (&self->python_recheck, g_source_remove);
  g_clear_pointer (&self->script_problem, g_free);
  if (self->script_checking)
    g_cancellable_cancel (self->script_checking);
  g_clear_object (&self->script_checking);
  if (!self->script || !*self->script)
    {
      show_script (self, NULL, FALSE);
      return;
    }
  show_script (self, "Checking…", FALSE);
  self->script_checking = g_cancellable_new ();
  ls_target_pytorch_check_async (self->script, gtk_editable_get_text (GTK_EDITABLE (self->python)),
                                 self->script_checking, script_check_done, self);
}

void
ls_setup_page_set_script (LsSetupPage *self, const char *path)
{
  g_free (self->script);
  /* As the runner names it: absolute, without "..". */
  self->script = path && *path ? g_canonicalize_filename (path, NULL) : NULL;
  self->script_batch = 0; /* another script's is not this one's */
  /* Saved when chosen, not only on a clean close. */
  if (self->settings && self->script)
    g_settings_set_string (self->settings, "last-script", self->script);
  check_script (self);
}

const char *
ls_setup_page_get_script (LsSetupPage *self)
{
  return self->script;
}

void
ls_setup_page_set_script_args (LsSetupPage *self, const char *args)
{
  gtk_editable_set_text (GTK_EDITABLE (self->script_args), args ? args : "");
}

void
ls_setup_page_set_python (LsSetupPage *self, const char *python)
{
  gtk_editable_set_text (GTK_EDITABLE (self->python), python ? python : "");
  check_script (self); /* at once, not after the typing pause */
}

gboolean
ls_setup_page_is_checking_script (LsSetupPage *self)
{
  return self->script_checking != NULL || self->python_recheck != 0;
}

const char *
ls_setup_page_get_script_problem (LsSetupPage *self)
{
  return self->script_problem;
}

static gboolean
python_recheck (gpointer data)
{
  LsSetupPage *self = data;
  self->python_recheck = 0;
  check_script (self);
  return G_SOURCE_REMOVE;
}

/* Importing torch takes a second or two: checked once typing pauses. */
void
ls_setup_page_on_python_changed (LsSetupPage *self)
{
  if (!self->script || self->python_found)
    return;
  g_clear_handle_id (&self->python_recheck, g_source_remove);
  self->python_recheck = g_timeout_add (600, python_recheck, self);
}

static void
on_script_response (GtkNativeDialog *dialog, int response, LsSetupPage *self)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr (GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));
      g_autofree char *path = g_file_get_path (file);
      ls_setup_page_set_script (self, path);
    }
  g_object_unref (dialog);
}

void
ls_setup_page_on_choose_script (LsSetupPage *self)
{
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (self));
  GtkFileChooserNative *dialog = gtk_file_chooser_native_new (_("Choose your PyTorch training script"), GTK_WINDOW (root),
                                                              GTK_FILE_CHOOSER_ACTION_OPEN, "_Choose", "_Cancel");
  GtkFileFilter *filter = gtk_file_filter_new ();
  gtk_file_filter_set_name (filter, _("Python scripts"));
  gtk_file_filter_add_suffix (filter, "py");
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (dialog), filter);
  g_object_unref (filter);
  g_signal_connect (dialog, "response", G_CALLBACK (on_script_response), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (dialog));
}

static void
on_python_response (GtkNativeDialog *dialog, int response, LsSetupPage *self)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr (GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));
      g_autofree char *path = g_file_get_path (file);
      ls_setup_page_set_python (self, path);
    }
  g_object_unref (dialog);
}

/* The interpreter by its file: the check then names it and says whether
 * it imports torch. */
void
ls_setup_page_on_choose_python (LsSetupPage *self)
{
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (self));
  GtkFileChooserNative *dialog = gtk_file_chooser_native_new (_("Choose the Python interpreter that imports torch"),
                                                              GTK_WINDOW (root), GTK_FILE_CHOOSER_ACTION_OPEN,
                                                              "_Choose", "_Cancel");
  g_signal_connect (dialog, "response", G_CALLBACK (on_python_response), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (dialog));
}

void
ls_setup_page_script_dispose (LsSetupPage *self)
{
  g_clear_handle_id (&self->python_recheck, g_source_remove);
  if (self->script_checking)
    g_cancellable_cancel (self->script_checking);
  g_clear_object (&self->script_checking);
  g_clear_pointer (&self->script, g_free);
  g_clear_pointer (&self->script_problem, g_free);
}
