/* Setup's Machine choice (ls-setup-machine.h). The row's items: "This
 * computer", the hosts of ~/.ssh/config as ssh:HOST, "Another target…"
 * (the typed one). The hosts are read in a thread; the choice kept in the
 * settings is applied once they are there. */
#include "ui/ls-setup-machine.h"

#include "app/core/i18n.h"
#include "app/remote/remote-ssh-config.h"
#include "app/remote/remote.h"

struct _LsSetupMachine {
  AdwPreferencesGroup parent_instance;
  AdwComboRow *machine_row;
  AdwEntryRow *other_entry;
  AdwEntryRow *path_entry;
  GtkLabel *problem_label;
  GtkButton *install_button; /* shown when the chosen machine lacks this version */
  GtkStringList *offered;  /* the row's items */
  GPtrArray *hosts;        /* char *: the hosts offered, in the row's order after "This computer" */
  GCancellable *reading;   /* the hosts being read */
  GSettings *settings;
  char *wanted;            /* the choice to apply once the hosts are read */
  char *read_problem;      /* why ~/.ssh/config could not be read */
  char *problem;           /* shown under the row */
  gboolean script;
  gboolean filling;        /* the row is being refilled: no choice is made */
  GCancellable *checking;  /* the chosen target being asked whether it is ready */
  guint check_soon;        /* the ask, once the choice has settled */
  GCancellable *installing; /* the install started by the button */
};

G_DEFINE_FINAL_TYPE (LsSetupMachine, ls_setup_machine, ADW_TYPE_PREFERENCES_GROUP)

enum { SIGNAL_CHANGED, N_SIGNALS };
static guint signals[N_SIGNALS];

static guint
other_index (LsSetupMachine *self)
{
  return self->hosts->len + 1;
}

static void
show_problem_now (LsSetupMachine *self)
{
  const char *text = self->problem ? self->problem : self->read_problem;
  gtk_label_set_text (self->problem_label, text ? text : "");
  gtk_widget_set_visible (GTK_WIDGET (self->problem_label), text != NULL);
}

void
ls_setup_machine_show_problem (LsSetupMachine *self, const char *message)
{
  g_return_if_fail (LS_IS_SETUP_MACHINE (self));
  g_free (self->problem);
  self->problem = message && *message ? g_strdup (message) : NULL;
  show_problem_now (self);
}

const char *
ls_setup_machine_get_problem (LsSetupMachine *self)
{
  g_return_val_if_fail (LS_IS_SETUP_MACHINE (self), NULL);
  return self->problem;
}

gboolean
ls_setup_machine_is_local (LsSetupMachine *self)
{
  g_return_val_if_fail (LS_IS_SETUP_MACHINE (self), TRUE);
  return adw_combo_row_get_selected (self->machine_row) == 0;
}

/* The target as the row stands: NULL for this computer. */
static char *
current_target (LsSetupMachine *self)
{
  guint i = adw_combo_row_get_selected (self->machine_row);
  if (i == 0 || i == GTK_INVALID_LIST_POSITION)
    return NULL;
  if (i <= self->hosts->len)
    return g_strconcat ("ssh:", (const char *) self->hosts->pdata[i - 1], NULL);
  g_autofree char *typed = g_strdup (gtk_editable_get_text (GTK_EDITABLE (self->other_entry)));
  return g_strdup (g_strstrip (typed));
}

/* A typed target that is not one is said at once. */
static void
check_typed (LsSetupMachine *self)
{
  g_clear_pointer (&self->problem, g_free);
  if (adw_combo_row_get_selected (self->machine_row) == other_index (self))
    {
      g_autofree char *text = current_target (self);
      g_autoptr (GError) error = NULL;
      g_autoptr (ls_remote_target) target = NULL;
      if (*text && !(target = ls_remote_target_parse (text, &error)))
        self->problem = g_strdup (error->message);
    }
  show_problem_now (self);
}

static void
update_rows (LsSetupMachine *self)
{
  guint i = adw_combo_row_get_selected (self->machine_row);
  gtk_widget_set_visible (GTK_WIDGET (self->other_entry), i == other_index (self));
  gtk_widget_set_visible (GTK_WIDGET (self->path_entry), i != 0);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self->path_entry),
                                 self->script ? _("Script on that machine (its path)")
                                              : _("Dataset on that machine (its path)"));
}

static void
remember (LsSetupMachine *self)
{
  if (self->filling || !self->settings)
    return;
  g_autofree char *target = current_target (self);
  g_settings_set_string (self->settings, "machine", target ? target : "");
  g_free (self->wanted);
  self->wanted = g_strdup (target ? target : "");
}

/* ------------------------------------------------------------ the check */

static void
set_status (LsSetupMachine *self, const char *text)
{
  adw_action_row_set_subtitle (ADW_ACTION_ROW (self->machine_row), text);
}

static void
checked (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (LsSetupMachine) self = user_data;
  g_autoptr (GError) error = NULL;
  gboolean ready = ls_remote_check_finish (result, &error);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return; /* another choice, or the window closed */
  g_clear_object (&self->checking);
  set_status (self, ready ? _("Ready: this version of Loadscope is installed there") : "");
  ls_setup_machine_show_problem (self, ready ? NULL : error->message);
  gtk_widget_set_visible (GTK_WIDGET (self->install_button),
                          g_error_matches (error, LS_REMOTE_ERROR, LS_REMOTE_ERROR_MISSING));
}

static gboolean
check_now (gpointer data)
{
  LsSetupMachine *self = data;
  self->check_soon = 0;
  g_autofree char *text = current_target (self);
  if (!text || !*text || self->problem) /* a typed target that is not one is said already */
    return G_SOURCE_REMOVE;
  self->checking = g_cancellable_new ();
  set_status (self, _("Checking the machine…"));
  /* the runner the window's sweeps use (ls-window.c): its version is asked for */
  ls_remote_check_async (text, g_getenv ("LOADSCOPE"), self->checking, checked, g_object_ref (self));
  return G_SOURCE_REMOVE;
}

/* A machine chosen (or typed) is asked, in a thread, whether it answers
 * and holds this version; what it says goes under the row before any
 * sweep. Typing waits for a pause. */
static void
check_soon (LsSetupMachine *self)
{
  if (self->checking)
    g_cancellable_cancel (self->checking);
  g_clear_object (&self->checking);
  if (self->installing)
    g_cancellable_cancel (self->installing); /* its answer no longer concerns the row */
  g_clear_object (&self->installing);
  gtk_widget_set_visible (GTK_WIDGET (self->install_button), FALSE);
  gtk_widget_set_sensitive (GTK_WIDGET (self->install_button), TRUE);
  g_clear_handle_id (&self->check_soon, g_source_remove);
  set_status (self, "");
  if (!ls_setup_machine_is_local (self))
    self->check_soon = g_timeout_add (500, check_now, self);
}

/* The Install button: `loadscope remote install TARGET` in a subprocess
 * (it makes the bundle of this build and sends it), then the check again. */
static void
install_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (LsSetupMachine) self = user_data;
  g_autoptr (GError) error = NULL;
  gboolean ok = ls_remote_install_finish (result, &error);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  g_clear_object (&self->installing);
  gtk_widget_set_sensitive (GTK_WIDGET (self->install_button), TRUE);
  if (ok)
    check_soon (self);
  else
    {
      set_status (self, "");
      ls_setup_machine_show_problem (self, error->message);
    }
}

static void
on_install (LsSetupMachine *self)
{
  g_autofree char *text = current_target (self);
  if (!text || !*text || self->installing)
    return;
  self->installing = g_cancellable_new ();
  gtk_widget_set_sensitive (GTK_WIDGET (self->install_button), FALSE);
  ls_setup_machine_show_problem (self, NULL);
  set_status (self, _("Installing Loadscope there: making the bundle of this build and sending it…"));
  ls_remote_install_async (text, g_getenv ("LOADSCOPE"), self->installing, install_done, g_object_ref (self));
}

gboolean
ls_setup_machine_is_installing (LsSetupMachine *self)
{
  g_return_val_if_fail (LS_IS_SETUP_MACHINE (self), FALSE);
  return self->installing != NULL;
}

static void
on_selected (LsSetupMachine *self)
{
  if (self->filling)
    return;
  update_rows (self);
  check_typed (self);
  remember (self);
  check_soon (self);
  g_signal_emit (self, signals[SIGNAL_CHANGED], 0);
}

static void
on_other_changed (LsSetupMachine *self)
{
  if (adw_combo_row_get_selected (self->machine_row) != other_index (self))
    return;
  check_typed (self);
  remember (self);
  check_soon (self);
}

void
ls_setup_machine_set_target (LsSetupMachine *self, const char *target)
{
  g_return_if_fail (LS_IS_SETUP_MACHINE (self));
  g_free (self->wanted);
  self->wanted = g_strdup (target ? target : "");
  if (self->reading)
    return; /* applied when the hosts are there */
  guint index = 0;
  if (target && *target)
    {
      index = other_index (self);
      for (guint i = 0; i < self->hosts->len; i++)
        if (g_str_has_prefix (target, "ssh:") && g_strcmp0 (target + 4, self->hosts->pdata[i]) == 0)
          index = i + 1;
      if (index == other_index (self))
        gtk_editable_set_text (GTK_EDITABLE (self->other_entry), target);
    }
  if (adw_combo_row_get_selected (self->machine_row) == index)
    on_selected (self);
  else
    adw_combo_row_set_selected (self->machine_row, index);
}

void
ls_setup_machine_set_path (LsSetupMachine *self, const char *path)
{
  g_return_if_fail (LS_IS_SETUP_MACHINE (self));
  gtk_editable_set_text (GTK_EDITABLE (self->path_entry), path ? path : "");
}

void
ls_setup_machine_set_script (LsSetupMachine *self, gboolean script)
{
  g_return_if_fail (LS_IS_SETUP_MACHINE (self));
  self->script = script;
  update_rows (self);
}

gboolean
ls_setup_machine_get_choice (LsSetupMachine *self, char **target, char **path, GError **error)
{
  g_return_val_if_fail (LS_IS_SETUP_MACHINE (self), FALSE);
  *target = NULL;
  *path = NULL;
  if (self->reading && *self->wanted)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                           _("The machines are still being read from your ssh configuration; try again."));
      return FALSE;
    }
  g_autofree char *text = current_target (self);
  if (!text)
    return TRUE;
  if (!*text)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                           _("Type the target to run on: ssh:HOST or exec:COMMAND."));
      return FALSE;
    }
  g_autoptr (GError) why = NULL;
  g_autoptr (ls_remote_target) parsed = ls_remote_target_parse (text, &why);
  if (!parsed)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, _("The machine cannot be used: %s"),
                   why->message);
      return FALSE;
    }
  g_autofree char *there = g_strdup (gtk_editable_get_text (GTK_EDITABLE (self->path_entry)));
  g_strstrip (there);
  if (!*there)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   self->script ? _("Type the script's path on %s.") : _("Type the dataset's path on %s."), text);
      return FALSE;
    }
  *target = g_steal_pointer (&text);
  *path = g_steal_pointer (&there);
  return TRUE;
}

/* ------------------------------------------------------------ the hosts */

static void
read_hosts (GTask *task, gpointer source, gpointer path, GCancellable *cancellable)
{
  GError *error = NULL;
  GPtrArray *hosts = ls_ssh_config_hosts (path, &error);
  if (hosts)
    g_task_return_pointer (task, hosts, (GDestroyNotify) g_ptr_array_unref);
  else
    g_task_return_error (task, error);
}

static void
fill (LsSetupMachine *self, GPtrArray *hosts)
{
  self->filling = TRUE;
  g_ptr_array_set_size (self->hosts, 0);
  guint old = g_list_model_get_n_items (G_LIST_MODEL (self->offered));
  g_autoptr (GPtrArray) items = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (items, g_strdup (_("This computer")));
  for (guint i = 0; hosts && i < hosts->len; i++)
    {
      g_ptr_array_add (self->hosts, g_strdup (hosts->pdata[i]));
      g_ptr_array_add (items, g_strconcat ("ssh:", (const char *) hosts->pdata[i], NULL));
    }
  g_ptr_array_add (items, g_strdup (_("Another target…")));
  g_ptr_array_add (items, NULL);
  gtk_string_list_splice (self->offered, 0, old, (const char *const *) items->pdata);
  self->filling = FALSE;
  g_autofree char *wanted = g_strdup (self->wanted);
  ls_setup_machine_set_target (self, wanted);
}

static void
hosts_read (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) hosts = g_task_propagate_pointer (G_TASK (result), &error);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  LsSetupMachine *self = user_data; /* alive: dispose cancels the read */
  g_clear_object (&self->reading);
  g_clear_pointer (&self->read_problem, g_free);
  if (!hosts)
    self->read_problem = g_strdup_printf (_("The hosts of your ssh configuration are not offered: %s"),
                                          error->message);
  fill (self, hosts);
  show_problem_now (self);
}

void
ls_setup_machine_bind (LsSetupMachine *self, GSettings *settings, const char *ssh_config)
{
  g_return_if_fail (LS_IS_SETUP_MACHINE (self));
  g_set_object (&self->settings, settings);
  g_settings_bind (settings, "machine-other", self->other_entry, "text", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (settings, "machine-path", self->path_entry, "text", G_SETTINGS_BIND_DEFAULT);
  if (self->reading)
    g_cancellable_cancel (self->reading);
  g_clear_object (&self->reading);
  if (self->checking)
    g_cancellable_cancel (self->checking);
  g_clear_object (&self->checking);
  g_clear_handle_id (&self->check_soon, g_source_remove);
  self->reading = g_cancellable_new ();
  g_autofree char *kept = g_settings_get_string (settings, "machine");
  ls_setup_machine_set_target (self, kept); /* once the hosts are read */
  g_autoptr (GTask) task = g_task_new (NULL, self->reading, hosts_read, self);
  g_task_set_task_data (task, ssh_config ? g_strdup (ssh_config) : ls_ssh_config_default_path (), g_free);
  g_task_run_in_thread (task, read_hosts);
}

gboolean
ls_setup_machine_is_reading (LsSetupMachine *self)
{
  g_return_val_if_fail (LS_IS_SETUP_MACHINE (self), FALSE);
  return self->reading != NULL;
}

gboolean
ls_setup_machine_is_checking (LsSetupMachine *self)
{
  g_return_val_if_fail (LS_IS_SETUP_MACHINE (self), FALSE);
  return self->checking != NULL || self->check_soon != 0;
}

GListModel *
ls_setup_machine_get_offered (LsSetupMachine *self)
{
  g_return_val_if_fail (LS_IS_SETUP_MACHINE (self), NULL);
  return G_LIST_MODEL (self->offered);
}

/* ------------------------------------------------------------ life */

static void
ls_setup_machine_dispose (GObject *object)
{
  LsSetupMachine *self = LS_SETUP_MACHINE (object);
  if (self->reading)
    g_cancellable_cancel (self->reading);
  g_clear_object (&self->reading);
  if (self->installing)
    g_cancellable_cancel (self->installing);
  g_clear_object (&self->installing);
  g_clear_object (&self->settings);
  gtk_widget_dispose_template (GTK_WIDGET (self), LS_TYPE_SETUP_MACHINE);
  G_OBJECT_CLASS (ls_setup_machine_parent_class)->dispose (object);
}

static void
ls_setup_machine_finalize (GObject *object)
{
  LsSetupMachine *self = LS_SETUP_MACHINE (object);
  g_clear_object (&self->offered);
  g_ptr_array_unref (self->hosts);
  g_free (self->wanted);
  g_free (self->read_problem);
  g_free (self->problem);
  G_OBJECT_CLASS (ls_setup_machine_parent_class)->finalize (object);
}

static void
ls_setup_machine_class_init (LsSetupMachineClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  G_OBJECT_CLASS (klass)->dispose = ls_setup_machine_dispose;
  G_OBJECT_CLASS (klass)->finalize = ls_setup_machine_finalize;
  /* "changed": the machine chosen is another (this computer or not, which
   * one); not emitted for typing in the target's row. */
  signals[SIGNAL_CHANGED]
      = g_signal_new ("changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE, 0);
  gtk_widget_class_set_template_from_resource (widget_class, "/org/loadscope/Loadscope/ui/ls-setup-machine.ui");
  gtk_widget_class_bind_template_child (widget_class, LsSetupMachine, machine_row);
  gtk_widget_class_bind_template_child (widget_class, LsSetupMachine, other_entry);
  gtk_widget_class_bind_template_child (widget_class, LsSetupMachine, path_entry);
  gtk_widget_class_bind_template_child (widget_class, LsSetupMachine, problem_label);
  gtk_widget_class_bind_template_child (widget_class, LsSetupMachine, install_button);
  gtk_widget_class_bind_template_callback (widget_class, on_selected);
  gtk_widget_class_bind_template_callback (widget_class, on_other_changed);
  gtk_widget_class_bind_template_callback (widget_class, on_install);
}

static void
ls_setup_machine_init (LsSetupMachine *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  self->hosts = g_ptr_array_new_with_free_func (g_free);
  self->wanted = g_strdup ("");
  const char *items[] = { _("This computer"), _("Another target…"), NULL };
  self->offered = gtk_string_list_new (items);
  self->filling = TRUE;
  adw_combo_row_set_model (self->machine_row, G_LIST_MODEL (self->offered));
  adw_combo_row_set_selected (self->machine_row, 0);
  self->filling = FALSE;
  update_rows (self);
}
