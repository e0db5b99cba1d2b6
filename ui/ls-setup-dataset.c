/* Setup's dataset (ls-setup-page.h): the chosen folder or file, checked in
 * a thread as `loadscope run` would check it, and the sample dataset
 * generated in a thread with its progress. */
#include "ui/ls-setup-page-private.h"

#include "app/core/i18n.h"
#include "app/core/dataset-check.h"
#include "app/maker/sample-dataset.h"
#include "ui/ls-window.h"

static void
show_dataset (LsSetupPage *self, const char *finding, gboolean bad)
{
  ls_setup_page_show_check (self->dataset_row, self->dataset_problem_label, self->dataset, finding,
                            bad ? _("Cannot be used (see below)") : NULL);
}

static void
check_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *description = ls_dataset_check_finish (result, &error);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  LsSetupPage *self = user_data; /* alive: dispose cancels the check */
  g_clear_object (&self->checking);
  g_clear_pointer (&self->dataset_problem, g_free);
  if (!description)
    self->dataset_problem = g_strdup (error->message);
  show_dataset (self, description ? description : self->dataset_problem, description == NULL);
}

void
ls_setup_page_set_dataset (LsSetupPage *self, const char *path)
{
  g_free (self->dataset);
  self->dataset = g_strdup (path);
  /* Saved when chosen, not only on a clean close. */
  if (self->settings && path && *path)
    g_settings_set_string (self->settings, "last-dataset", path);
  g_clear_pointer (&self->dataset_problem, g_free);
  if (self->checking)
    g_cancellable_cancel (self->checking);
  g_clear_object (&self->checking);
  if (!path || !*path)
    {
      show_dataset (self, NULL, FALSE);
      return;
    }
  /* The runner's own check, now, so a bad choice is said where it was made. */
  show_dataset (self, "Checking…", FALSE);
  self->checking = g_cancellable_new ();
  ls_dataset_check_async (path, self->checking, check_done, self);
}

gboolean
ls_setup_page_is_checking_dataset (LsSetupPage *self)
{
  return self->checking != NULL;
}

const char *
ls_setup_page_get_dataset_problem (LsSetupPage *self)
{
  return self->dataset_problem;
}

const char *
ls_setup_page_get_dataset (LsSetupPage *self)
{
  return self->dataset;
}

static void
on_chooser_response (GtkNativeDialog *dialog, int response, LsSetupPage *self)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr (GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));
      g_autofree char *path = g_file_get_path (file);
      ls_setup_page_set_dataset (self, path);
    }
  g_object_unref (dialog);
}

static void
choose (LsSetupPage *self, GtkFileChooserAction action, const char *title)
{
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (self));
  GtkFileChooserNative *dialog = gtk_file_chooser_native_new (title, GTK_WINDOW (root), action, "_Choose", "_Cancel");
  if (action == GTK_FILE_CHOOSER_ACTION_OPEN)
    {
      GtkFileFilter *filter = gtk_file_filter_new ();
      gtk_file_filter_set_name (filter, _("HDF5 files"));
      gtk_file_filter_add_suffix (filter, "h5");
      gtk_file_filter_add_suffix (filter, "hdf5");
      gtk_file_filter_add_suffix (filter, "hdf");
      gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (dialog), filter);
      g_object_unref (filter);
    }
  g_signal_connect (dialog, "response", G_CALLBACK (on_chooser_response), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (dialog));
}

void
ls_setup_page_on_choose_folder (LsSetupPage *self)
{
  choose (self, GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER, _("Choose a folder of class folders of JPEG images"));
}

void
ls_setup_page_on_choose_file (LsSetupPage *self)
{
  choose (self, GTK_FILE_CHOOSER_ACTION_OPEN, _("Choose an HDF5 file"));
}

typedef struct {
  GWeakRef page;
  double fraction;
} progress_update;

static gboolean
apply_progress (gpointer data)
{
  progress_update *u = data;
  g_autoptr (LsSetupPage) self = g_weak_ref_get (&u->page);
  if (self)
    gtk_progress_bar_set_fraction (self->generate_progress, u->fraction);
  g_weak_ref_clear (&u->page);
  g_free (u);
  return G_SOURCE_REMOVE;
}

static void
generation_progress (uint64_t done, uint64_t total, uint64_t bytes, void *user)
{
  progress_update *u = g_new0 (progress_update, 1);
  g_weak_ref_init (&u->page, user);
  u->fraction = total ? (double) done / (double) total : 0;
  g_idle_add (apply_progress, u);
}

static void
generate_thread (GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
  GError *error = NULL;
  char *path = ls_sample_dataset_ensure (generation_progress, source, NULL, &error);
  if (path)
    g_task_return_pointer (task, path, g_free);
  else
    g_task_return_error (task, error);
}

static void
generate_done (GObject *source, GAsyncResult *result, gpointer data)
{
  LsSetupPage *self = LS_SETUP_PAGE (source);
  g_autoptr (GError) error = NULL;
  g_autofree char *path = g_task_propagate_pointer (G_TASK (result), &error);

  self->generating = FALSE;
  gtk_widget_set_visible (GTK_WIDGET (self->generate_progress), FALSE);
  gtk_widget_set_sensitive (GTK_WIDGET (self->generate_button), TRUE);
  if (path)
    ls_setup_page_set_dataset (self, path);
  else
    {
      GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (self));
      if (LS_IS_WINDOW (root))
        ls_window_toast (LS_WINDOW (root), error->message);
    }
}

void
ls_setup_page_generate_sample (LsSetupPage *self)
{
  if (self->generating)
    return;
  self->generating = TRUE;
  gtk_widget_set_sensitive (GTK_WIDGET (self->generate_button), FALSE);
  gtk_progress_bar_set_fraction (self->generate_progress, 0);
  gtk_widget_set_visible (GTK_WIDGET (self->generate_progress), TRUE);
  g_autoptr (GTask) task = g_task_new (self, NULL, generate_done, NULL);
  g_task_run_in_thread (task, generate_thread);
}

void
ls_setup_page_dataset_dispose (LsSetupPage *self)
{
  g_clear_pointer (&self->dataset, g_free);
  g_clear_pointer (&self->dataset_problem, g_free);
  if (self->checking)
    g_cancellable_cancel (self->checking);
  g_clear_object (&self->checking);
}
