#include "ui/ls-setup-page.h"

#include "app/core/dataset-check.h"
#include "app/core/run-options.h"
#include "app/core/sweep-request.h"
#include "app/maker/sample-dataset.h"
#include "app/target/target-check.h"
#include "ui/ls-window.h"

struct _LsSetupPage {
  GtkBox parent_instance;
  AdwComboRow *target_row;  /* LsSetupTarget */
  GtkSwitch *script_own_knobs; /* a script keeps its batch size, prefetch, persistence */
  AdwPreferencesGroup *dataset_group;
  AdwPreferencesGroup *script_group;
  AdwActionRow *script_row;
  AdwEntryRow *script_args;
  AdwEntryRow *python;
  GtkSpinButton *loader_index;
  GtkLabel *script_problem_label;
  AdwActionRow *model_row;   /* the script's own step replaces it */
  AdwActionRow *dataset_row;
  GtkLabel *dataset_problem_label; /* what the check found wrong, in full */
  GtkProgressBar *generate_progress;
  GtkButton *generate_button;
  AdwEntryRow *workers;
  GtkSpinButton *batch_size;
  GtkSpinButton *prefetch;
  GtkSwitch *persistent;
  GtkCheckButton *pin[3];
  GtkSwitch *non_blocking;
  GtkCheckButton *start[2];
  GtkSpinButton *model_ms;
  GtkSpinButton *batches;
  GtkLabel *estimate;
  GSettings *settings;    /* the workbench's, once bound */
  char *dataset;
  char *dataset_problem;  /* why the chosen dataset cannot be used; NULL: fine or unchecked */
  GCancellable *checking; /* the check of the chosen dataset, while it runs */
  gboolean generating;
  char *script;
  char *script_problem;     /* why the script cannot be run; NULL: fine or unchecked */
  GCancellable *script_checking;
  guint python_recheck;     /* a check after the interpreter's name stops changing */
};

G_DEFINE_FINAL_TYPE (LsSetupPage, ls_setup_page, GTK_TYPE_BOX)

static const char *const pin_names[3] = { "off", "staging", "arena" };
static const char *const start_names[2] = { "fork", "spawn" };

/* ------------------------------------------------------------ request */

static void
add_checked (ls_sweep_request *request, ls_sweep_knob_id k, GtkCheckButton **checks, const char *const *names,
             int n)
{
  for (int i = 0; i < n; i++)
    if (gtk_check_button_get_active (checks[i]))
      ls_sweep_request_add (request, k, names[i]);
}

static gboolean
script_keeps_knobs (LsSetupPage *self)
{
  return ls_setup_page_get_target (self) == LS_SETUP_TARGET_PYTORCH && gtk_switch_get_active (self->script_own_knobs);
}

/* The request as the knobs stand, without the dataset, not checked: the
 * worker counts as typed, empty ones left out. */
static ls_sweep_request *
knobs_request (LsSetupPage *self)
{
  ls_sweep_request *request = ls_sweep_request_new ();
  g_auto (GStrv) workers = g_strsplit (gtk_editable_get_text (GTK_EDITABLE (self->workers)), ",", -1);
  char ms[G_ASCII_DTOSTR_BUF_SIZE];

  for (char **w = workers; *w; w++)
    if (*g_strstrip (*w) != '\0')
      ls_sweep_request_add (request, LS_SWEEP_KNOB_WORKERS, *w);
  add_checked (request, LS_SWEEP_KNOB_PIN, self->pin, pin_names, 3);
  add_checked (request, LS_SWEEP_KNOB_START, self->start, start_names, 2);
  /* Knobs not given stay the script's own (the runner applies only those
   * it is given). */
  if (!script_keeps_knobs (self))
    {
      ls_sweep_request_add_int (request, LS_SWEEP_KNOB_BATCH_SIZE, gtk_spin_button_get_value_as_int (self->batch_size));
      ls_sweep_request_add_int (request, LS_SWEEP_KNOB_PREFETCH, gtk_spin_button_get_value_as_int (self->prefetch));
      ls_sweep_request_add_switch (request, LS_SWEEP_KNOB_PERSISTENT, gtk_switch_get_active (self->persistent));
    }
  ls_sweep_request_add_switch (request, LS_SWEEP_KNOB_NON_BLOCKING, gtk_switch_get_active (self->non_blocking));
  /* A script's own step takes the model step's place. */
  if (ls_setup_page_get_target (self) == LS_SETUP_TARGET_LOADSCOPE)
    ls_sweep_request_add (request, LS_SWEEP_KNOB_MODEL_MS,
                          g_ascii_dtostr (ms, sizeof ms, gtk_spin_button_get_value (self->model_ms)));
  ls_sweep_request_add_int (request, LS_SWEEP_KNOB_BATCHES, gtk_spin_button_get_value_as_int (self->batches));
  ls_sweep_request_add (request, LS_SWEEP_KNOB_SINK, "auto");
  return request;
}

static void
update_estimate (LsSetupPage *self)
{
  g_autoptr (ls_sweep_request) request = knobs_request (self);
  guint nw = ls_sweep_request_count (request, LS_SWEEP_KNOB_WORKERS);
  guint np = ls_sweep_request_count (request, LS_SWEEP_KNOB_PIN);
  guint ns = ls_sweep_request_count (request, LS_SWEEP_KNOB_START);
  guint configs = nw * np * ns;
  g_autofree char *text = NULL;

  if (configs == 0)
    text = g_strdup ("Choose at least one worker count, pin mode and start method.");
  else
    text = g_strdup_printf ("%u configuration%s (%u worker counts × %u pin modes × %u start methods), %.0f batches "
                            "each: about %.0f s.",
                            configs, configs == 1 ? "" : "s", nw, np, ns, gtk_spin_button_get_value (self->batches),
                            MAX (1.0, ls_sweep_request_estimate_seconds (request, g_get_num_processors ())));
  gtk_label_set_text (self->estimate, text);
}

static void knob_rows_sensitive (LsSetupPage *self);

static void
on_changed (LsSetupPage *self)
{
  knob_rows_sensitive (self);
  update_estimate (self);
}

/* ------------------------------------------------------------ dataset */

/* The dataset row's subtitle: the path, and what the check found; a
 * problem also in full below the row, where it wraps. */
static void
show_dataset (LsSetupPage *self, const char *finding, gboolean bad)
{
  gtk_widget_set_visible (GTK_WIDGET (self->dataset_problem_label), bad);
  if (!self->dataset || !*self->dataset)
    {
      adw_action_row_set_subtitle (self->dataset_row, "None chosen yet");
      return;
    }
  g_autofree char *text = g_markup_printf_escaped ("%s\n%s", self->dataset, bad ? "Cannot be used (see below)" : finding);
  adw_action_row_set_subtitle (self->dataset_row, text);
  if (bad)
    gtk_label_set_text (self->dataset_problem_label, finding);
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
      gtk_file_filter_set_name (filter, "HDF5 files");
      gtk_file_filter_add_suffix (filter, "h5");
      gtk_file_filter_add_suffix (filter, "hdf5");
      gtk_file_filter_add_suffix (filter, "hdf");
      gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (dialog), filter);
      g_object_unref (filter);
    }
  g_signal_connect (dialog, "response", G_CALLBACK (on_chooser_response), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (dialog));
}

static void
on_choose_folder (LsSetupPage *self)
{
  choose (self, GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER, "Choose a folder of class folders of JPEG images");
}

static void
on_choose_file (LsSetupPage *self)
{
  choose (self, GTK_FILE_CHOOSER_ACTION_OPEN, "Choose an HDF5 file");
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

/* ------------------------------------------------------------ script */

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

/* The knobs a script keeps are not the page's to set. */
static void
knob_rows_sensitive (LsSetupPage *self)
{
  gboolean own = script_keeps_knobs (self);
  gtk_widget_set_sensitive (GTK_WIDGET (self->batch_size), !own);
  gtk_widget_set_sensitive (GTK_WIDGET (self->prefetch), !own);
  gtk_widget_set_sensitive (GTK_WIDGET (self->persistent), !own);
}

/* A script has no dataset row (it loads its own data) and no model step
 * (its own step is measured). */
static void
on_target_changed (LsSetupPage *self)
{
  gboolean script = ls_setup_page_get_target (self) == LS_SETUP_TARGET_PYTORCH;
  gtk_widget_set_visible (GTK_WIDGET (self->dataset_group), !script);
  gtk_widget_set_visible (GTK_WIDGET (self->script_group), script);
  gtk_widget_set_sensitive (GTK_WIDGET (self->model_row), !script);
  knob_rows_sensitive (self);
  update_estimate (self);
}

/* The script row's subtitle and the problem below it, as for the dataset. */
static void
show_script (LsSetupPage *self, const char *finding, gboolean bad)
{
  gtk_widget_set_visible (GTK_WIDGET (self->script_problem_label), bad);
  if (!self->script || !*self->script)
    {
      adw_action_row_set_subtitle (self->script_row, "None chosen yet");
      return;
    }
  g_autofree char *text = g_markup_printf_escaped ("%s\n%s", self->script, bad ? "Cannot be run (see below)" : finding);
  adw_action_row_set_subtitle (self->script_row, text);
  if (bad)
    gtk_label_set_text (self->script_problem_label, finding);
}

static void
script_check_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *description = ls_target_pytorch_check_finish (result, &error);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  LsSetupPage *self = user_data; /* alive: dispose cancels the check */
  g_clear_object (&self->script_checking);
  g_clear_pointer (&self->script_problem, g_free);
  if (!description)
    self->script_problem = g_strdup (error->message);
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
static void
on_python_changed (LsSetupPage *self)
{
  if (!self->script)
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

static void
on_choose_script (LsSetupPage *self)
{
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (self));
  GtkFileChooserNative *dialog = gtk_file_chooser_native_new ("Choose your PyTorch training script", GTK_WINDOW (root),
                                                              GTK_FILE_CHOOSER_ACTION_OPEN, "_Choose", "_Cancel");
  GtkFileFilter *filter = gtk_file_filter_new ();
  gtk_file_filter_set_name (filter, "Python scripts");
  gtk_file_filter_add_suffix (filter, "py");
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (dialog), filter);
  g_object_unref (filter);
  g_signal_connect (dialog, "response", G_CALLBACK (on_script_response), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (dialog));
}

/* ------------------------------------------------------------ knobs */

/* What the request needs of its target: a usable dataset, or a script
 * that passed its check. */
static gboolean
target_ready (LsSetupPage *self, GError **error)
{
  if (ls_setup_page_get_target (self) == LS_SETUP_TARGET_PYTORCH)
    {
      if (!self->script)
        {
          g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, "Choose your PyTorch script first.");
          return FALSE;
        }
      if (self->script_problem)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, "The script cannot be run: %s",
                       self->script_problem);
          return FALSE;
        }
      return TRUE;
    }
  if (!self->dataset || !*self->dataset)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                           "Choose a dataset first, or generate the sample one.");
      return FALSE;
    }
  if (self->dataset_problem)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, "The dataset cannot be used: %s",
                   self->dataset_problem);
      return FALSE;
    }
  return TRUE;
}

ls_sweep_request *
ls_setup_page_get_request (LsSetupPage *self, GError **error)
{
  if (!target_ready (self, error))
    return NULL;
  g_autoptr (ls_sweep_request) request = knobs_request (self);
  if (ls_sweep_request_count (request, LS_SWEEP_KNOB_WORKERS) == 0
      || ls_sweep_request_count (request, LS_SWEEP_KNOB_PIN) == 0
      || ls_sweep_request_count (request, LS_SWEEP_KNOB_START) == 0)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                           "Choose at least one worker count, pin mode and start method.");
      return NULL;
    }
  /* The worker counts as typed: an empty one in the list is refused,
   * naming it, as `loadscope sweep` refuses it. */
  if (!ls_sweep_request_set_text (request, "workers", gtk_editable_get_text (GTK_EDITABLE (self->workers)), error))
    return NULL;
  if (ls_setup_page_get_target (self) == LS_SETUP_TARGET_LOADSCOPE)
    ls_sweep_request_add (request, LS_SWEEP_KNOB_DATASET, self->dataset);
  else if (!ls_target_pytorch_request (request, self->script, gtk_editable_get_text (GTK_EDITABLE (self->python)),
                                       gtk_editable_get_text (GTK_EDITABLE (self->script_args)),
                                       gtk_spin_button_get_value_as_int (self->loader_index), error))
    return NULL;
  return g_steal_pointer (&request);
}

static char *
checked_list (GtkCheckButton **checks, const char *const *names, int n)
{
  GString *s = g_string_new (NULL);
  for (int i = 0; i < n; i++)
    if (gtk_check_button_get_active (checks[i]))
      g_string_append_printf (s, "%s%s", s->len ? "," : "", names[i]);
  return g_string_free (s, FALSE);
}

/* Settings keep a comma list for a row of check buttons. */
static void
load_checks (GSettings *settings, const char *key, GtkCheckButton **checks, const char *const *names, int n)
{
  g_autofree char *value = g_settings_get_string (settings, key);
  g_auto (GStrv) parts = g_strsplit (value, ",", -1);
  for (int i = 0; i < n; i++)
    gtk_check_button_set_active (checks[i], g_strv_contains ((const char *const *) parts, names[i]));
}

typedef struct {
  GSettings *settings;
  const char *key;
  GtkCheckButton **checks;
  const char *const *names;
  int n;
} check_binding;

static void
save_checks (GtkCheckButton *button, check_binding *b)
{
  g_autofree char *list = checked_list (b->checks, b->names, b->n);
  g_settings_set_string (b->settings, b->key, list);
}

static void
on_setting_changed (GSettings *settings, const char *key, GtkCheckButton *first)
{
  check_binding *b = g_object_get_data (G_OBJECT (first), "binding");
  g_autofree char *now = checked_list (b->checks, b->names, b->n);
  g_autofree char *stored = g_settings_get_string (settings, key);
  if (g_strcmp0 (now, stored) != 0)
    load_checks (settings, key, b->checks, b->names, b->n);
}

static void
bind_checks (LsSetupPage *self, GSettings *settings, const char *key, GtkCheckButton **checks,
             const char *const *names, int n)
{
  load_checks (settings, key, checks, names, n);
  check_binding *b = g_new0 (check_binding, 1);
  *b = (check_binding){ settings, key, checks, names, n };
  g_object_set_data_full (G_OBJECT (checks[0]), "binding", b, g_free);
  for (int i = 0; i < n; i++)
    g_signal_connect (checks[i], "toggled", G_CALLBACK (save_checks), b);
  /* Settings changed elsewhere (another window, a test) show here too. */
  g_autofree char *signal = g_strdup_printf ("changed::%s", key);
  g_signal_connect_object (settings, signal, G_CALLBACK (on_setting_changed), checks[0], 0);
}

/* The target setting ("loadscope", "pytorch") as the combo row's index. */
static gboolean
target_get (GValue *value, GVariant *variant, gpointer unused)
{
  g_value_set_uint (value, g_strcmp0 (g_variant_get_string (variant, NULL), "pytorch") == 0
                               ? LS_SETUP_TARGET_PYTORCH : LS_SETUP_TARGET_LOADSCOPE);
  return TRUE;
}

static GVariant *
target_set (const GValue *value, const GVariantType *type, gpointer unused)
{
  return g_variant_new_string (g_value_get_uint (value) == LS_SETUP_TARGET_PYTORCH ? "pytorch" : "loadscope");
}

/* Windows has no fork: spawn is the only start method, so the page offers
 * no choice there (a fork kept in the settings from elsewhere is ignored). */
static void
only_spawn_on_windows (LsSetupPage *self)
{
#ifdef G_OS_WIN32
  gtk_check_button_set_active (self->start[0], FALSE);
  gtk_widget_set_visible (GTK_WIDGET (self->start[0]), FALSE);
  gtk_check_button_set_active (self->start[1], TRUE);
  gtk_widget_set_sensitive (GTK_WIDGET (self->start[1]), FALSE);
#else
  (void) self;
#endif
}

void
ls_setup_page_bind (LsSetupPage *self, GSettings *s)
{
  g_settings_bind (s, "workers", self->workers, "text", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (s, "batch-size", self->batch_size, "value", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (s, "prefetch", self->prefetch, "value", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (s, "persistent", self->persistent, "active", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (s, "non-blocking", self->non_blocking, "active", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (s, "model-ms", self->model_ms, "value", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (s, "batches-per-run", self->batches, "value", G_SETTINGS_BIND_DEFAULT);
  bind_checks (self, s, "pin-modes", self->pin, pin_names, 3);
  bind_checks (self, s, "start-methods", self->start, start_names, 2);
  g_autofree char *last = g_settings_get_string (s, "last-dataset");
  if (last && *last)
    ls_setup_page_set_dataset (self, last);
  g_settings_bind (s, "script-args", self->script_args, "text", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (s, "python", self->python, "text", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (s, "loader-index", self->loader_index, "value", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind_with_mapping (s, "target", self->target_row, "selected", G_SETTINGS_BIND_DEFAULT, target_get,
                                target_set, NULL, NULL);
  g_autofree char *script = g_settings_get_string (s, "last-script");
  if (script && *script)
    ls_setup_page_set_script (self, script);
  g_set_object (&self->settings, s);
  only_spawn_on_windows (self);
  update_estimate (self);
}

static void
ls_setup_page_dispose (GObject *object)
{
  LsSetupPage *self = LS_SETUP_PAGE (object);
  if (self->settings && self->dataset)
    g_settings_set_string (self->settings, "last-dataset", self->dataset);
  if (self->settings && self->script)
    g_settings_set_string (self->settings, "last-script", self->script);
  g_clear_object (&self->settings);
  g_clear_pointer (&self->dataset, g_free);
  g_clear_pointer (&self->dataset_problem, g_free);
  if (self->checking)
    g_cancellable_cancel (self->checking);
  g_clear_object (&self->checking);
  g_clear_handle_id (&self->python_recheck, g_source_remove);
  if (self->script_checking)
    g_cancellable_cancel (self->script_checking);
  g_clear_object (&self->script_checking);
  g_clear_pointer (&self->script, g_free);
  g_clear_pointer (&self->script_problem, g_free);
  gtk_widget_dispose_template (GTK_WIDGET (self), LS_TYPE_SETUP_PAGE);
  G_OBJECT_CLASS (ls_setup_page_parent_class)->dispose (object);
}

static void
ls_setup_page_class_init (LsSetupPageClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  G_OBJECT_CLASS (klass)->dispose = ls_setup_page_dispose;
  gtk_widget_class_set_template_from_resource (widget_class, "/org/loadscope/Loadscope/ui/ls-setup-page.ui");
  gtk_widget_class_bind_template_child (widget_class, LsSetupPage, target_row);
  gtk_widget_class_bind_template_child (widget_class, LsSetupPage, script_own_knobs);
  gtk_widget_class_bind_template_child (widget_class, LsSetupPage, dataset_group);
  gtk_widget_class_bind_template_child (widget_class, LsSetupPage, script_group);
  gtk_widget_class_bind_template_child (widget_class, LsSetupPage, script_row);
  gtk_widget_class_bind_template_child (widget_class, LsSetupPage, script_args);
  gtk_widget_class_bind_template_child (widget_class, LsSetupPage, python);
  gtk_widget_class_bind_template_child (widget_class, LsSetupPage, loader_index);
  gtk_widget_class_bind_template_child (widget_class, LsSetupPage, script_problem_label);
  gtk_widget_class_bind_template_child (widget_class, LsSetupPage, model_row);
  gtk_widget_class_bind_template_child (widget_class, LsSetupPage, dataset_row);
  gtk_widget_class_bind_template_child (widget_class, LsSetupPage, dataset_problem_label);
  gtk_widget_class_bind_template_child (widget_class, LsSetupPage, generate_progress);
  gtk_widget_class_bind_template_child (widget_class, LsSetupPage, generate_button);
  gtk_widget_class_bind_template_child (widget_class, LsSetupPage, workers);
  gtk_widget_class_bind_template_child (widget_class, LsSetupPage, batch_size);
  gtk_widget_class_bind_template_child (widget_class, LsSetupPage, prefetch);
  gtk_widget_class_bind_template_child (widget_class, LsSetupPage, persistent);
  gtk_widget_class_bind_template_child_full (widget_class, "pin_off", FALSE, G_STRUCT_OFFSET (LsSetupPage, pin[0]));
  gtk_widget_class_bind_template_child_full (widget_class, "pin_staging", FALSE, G_STRUCT_OFFSET (LsSetupPage, pin[1]));
  gtk_widget_class_bind_template_child_full (widget_class, "pin_arena", FALSE, G_STRUCT_OFFSET (LsSetupPage, pin[2]));
  gtk_widget_class_bind_template_child (widget_class, LsSetupPage, non_blocking);
  gtk_widget_class_bind_template_child_full (widget_class, "start_fork", FALSE, G_STRUCT_OFFSET (LsSetupPage, start[0]));
  gtk_widget_class_bind_template_child_full (widget_class, "start_spawn", FALSE,
                                             G_STRUCT_OFFSET (LsSetupPage, start[1]));
  gtk_widget_class_bind_template_child (widget_class, LsSetupPage, model_ms);
  gtk_widget_class_bind_template_child (widget_class, LsSetupPage, batches);
  gtk_widget_class_bind_template_child (widget_class, LsSetupPage, estimate);
  gtk_widget_class_bind_template_callback (widget_class, on_choose_folder);
  gtk_widget_class_bind_template_callback (widget_class, on_choose_file);
  gtk_widget_class_bind_template_callback_full (widget_class, "on_generate_clicked",
                                                G_CALLBACK (ls_setup_page_generate_sample));
  gtk_widget_class_bind_template_callback (widget_class, on_changed);
  gtk_widget_class_bind_template_callback (widget_class, on_target_changed);
  gtk_widget_class_bind_template_callback (widget_class, on_choose_script);
  gtk_widget_class_bind_template_callback (widget_class, on_python_changed);
}

static void
ls_setup_page_init (LsSetupPage *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  /* The knobs start from the defaults every run has (run-options.h). */
  gtk_spin_button_set_value (self->batch_size, ls_run_default.batch_size);
  gtk_spin_button_set_value (self->prefetch, ls_run_default.prefetch);
  gtk_spin_button_set_value (self->model_ms, ls_run_default.model_ms);
  gtk_spin_button_set_value (self->batches, 40);
  only_spawn_on_windows (self);
  update_estimate (self);
}
