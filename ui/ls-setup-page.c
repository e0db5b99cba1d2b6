/* Setup (ls-setup-page.h): the page itself, its knobs, the sweep request
 * they make and their settings; the dataset and the script have files of
 * their own (ls-setup-dataset.c, ls-setup-script.c). */
#include "ui/ls-setup-page-private.h"

#include "app/core/i18n.h"
#include "app/core/run-options.h"
#include "app/core/sweep-request.h"
#include "app/target/target-check.h"

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

gboolean
ls_setup_page_script_keeps_knobs (LsSetupPage *self)
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
  /* Without CUDA a script's tensors are never copied to a device: one pin
   * mode, not a sweep of identical runs. */
  if (ls_setup_page_pins_apply (self))
    add_checked (request, LS_SWEEP_KNOB_PIN, self->pin, pin_names, 3);
  else
    ls_sweep_request_add (request, LS_SWEEP_KNOB_PIN, pin_names[0]);
  add_checked (request, LS_SWEEP_KNOB_START, self->start, start_names, 2);
  /* Knobs not given stay the script's own (the runner applies only those
   * it is given). */
  if (!ls_setup_page_script_keeps_knobs (self))
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
  ls_setup_page_ranks_add (self, request);
  return request;
}

void
ls_setup_page_show_check (AdwActionRow *row, GtkLabel *problem_label, const char *path, const char *finding,
                          const char *bad)
{
  gtk_widget_set_visible (GTK_WIDGET (problem_label), bad != NULL);
  if (!path || !*path)
    {
      adw_action_row_set_subtitle (row, _("None chosen yet"));
      return;
    }
  g_autofree char *text = g_markup_printf_escaped ("%s\n%s", path, bad ? bad : finding);
  adw_action_row_set_subtitle (row, text);
  if (bad)
    gtk_label_set_text (problem_label, finding);
}

void
ls_setup_page_update_estimate (LsSetupPage *self)
{
  g_autoptr (ls_sweep_request) request = knobs_request (self);
  guint nw = ls_sweep_request_count (request, LS_SWEEP_KNOB_WORKERS);
  guint np = ls_sweep_request_count (request, LS_SWEEP_KNOB_PIN);
  guint ns = ls_sweep_request_count (request, LS_SWEEP_KNOB_START);
  guint nt = MAX (1u, ls_sweep_request_count (request, LS_SWEEP_KNOB_THREADS));
  guint configs = nw * np * ns * nt;
  g_autofree char *more = ls_setup_page_ranks_factor (self, request);
  g_autofree char *text = NULL;

  if (configs == 0)
    text = g_strdup (_("Choose at least one worker count, pin mode and start method."));
  else
    {
      /* Each count with its own plural: "1 start method", "2 pin modes". */
      g_autofree char *c = g_strdup_printf (ngettext ("%u configuration", "%u configurations", configs), configs);
      g_autofree char *w = g_strdup_printf (ngettext ("%u worker count", "%u worker counts", nw), nw);
      g_autofree char *p = g_strdup_printf (ngettext ("%u pin mode", "%u pin modes", np), np);
      g_autofree char *s = g_strdup_printf (ngettext ("%u start method", "%u start methods", ns), ns);
      text = g_strdup_printf (_("%s (%s × %s × %s%s), %.0f batches each: about %.0f s."), c, w, p, s, more ? more : "",
                              gtk_spin_button_get_value (self->batches),
                              MAX (1.0, ls_sweep_request_estimate_seconds (request, g_get_num_processors ())));
    }
  gtk_label_set_text (self->estimate, text);
}

gboolean
ls_setup_page_pins_apply (LsSetupPage *self)
{
  return ls_setup_page_get_target (self) != LS_SETUP_TARGET_PYTORCH || !self->script_on_cpu;
}

/* The knobs a script keeps are not the page's to set: the batch size row
 * shows the script's own (once a run has told it), not the page's. */
void
ls_setup_page_knob_rows_sensitive (LsSetupPage *self)
{
  gboolean own = ls_setup_page_script_keeps_knobs (self);
  gtk_widget_set_visible (GTK_WIDGET (self->batch_size), !own);
  gtk_widget_set_visible (GTK_WIDGET (self->script_batch_label), own);
  if (own)
    {
      g_autofree char *n = self->script_batch > 0 ? g_strdup_printf ("%" G_GINT64_FORMAT, self->script_batch) : NULL;
      gtk_label_set_text (self->script_batch_label, n ? n : _("the script's"));
      adw_action_row_set_subtitle (self->batch_row, n ? _("As the script sets it (its last run)")
                                                      : _("As the script sets it (shown after a run)"));
    }
  else
    adw_action_row_set_subtitle (self->batch_row, _("Samples per batch"));
  gtk_widget_set_sensitive (GTK_WIDGET (self->prefetch), !own);
  gtk_widget_set_sensitive (GTK_WIDGET (self->persistent), !own);
  gtk_widget_set_visible (GTK_WIDGET (self->pin_row), ls_setup_page_pins_apply (self));
}

void
ls_setup_page_note_run (LsSetupPage *self, JsonObject *summary)
{
  if (ls_setup_page_get_target (self) != LS_SETUP_TARGET_PYTORCH || !summary)
    return;
  gint64 batch = json_object_get_int_member_with_default (summary, "batch_size", 0);
  if (batch > 0 && batch != self->script_batch)
    {
      self->script_batch = batch;
      ls_setup_page_knob_rows_sensitive (self);
    }
}

gint64
ls_setup_page_get_script_batch (LsSetupPage *self)
{
  return self->script_batch;
}

static void
on_changed (LsSetupPage *self)
{
  ls_setup_page_knob_rows_sensitive (self);
  ls_setup_page_update_estimate (self);
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
          g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, _("Choose your PyTorch script first."));
          return FALSE;
        }
      if (self->script_problem)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, _("The script cannot be run: %s"),
                       self->script_problem);
          return FALSE;
        }
      return TRUE;
    }
  if (!self->dataset || !*self->dataset)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                           _("Choose a dataset first, or generate the sample one."));
      return FALSE;
    }
  if (self->dataset_problem)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, _("The dataset cannot be used: %s"),
                   self->dataset_problem);
      return FALSE;
    }
  return TRUE;
}

LsSetupMachine *
ls_setup_page_get_machine (LsSetupPage *self)
{
  g_return_val_if_fail (LS_IS_SETUP_PAGE (self), NULL);
  return self->machine;
}

ls_sweep_request *
ls_setup_page_get_request (LsSetupPage *self, GError **error)
{
  /* On another machine the dataset or script is its path there, typed
   * under the Machine row: it cannot be checked from here. */
  g_autofree char *on = NULL, *there = NULL;
  if (!ls_setup_machine_get_choice (self->machine, &on, &there, error))
    return NULL;
  if (!on && !target_ready (self, error))
    return NULL;
  g_autoptr (ls_sweep_request) request = knobs_request (self);
  if (ls_sweep_request_count (request, LS_SWEEP_KNOB_WORKERS) == 0
      || ls_sweep_request_count (request, LS_SWEEP_KNOB_PIN) == 0
      || ls_sweep_request_count (request, LS_SWEEP_KNOB_START) == 0)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                           _("Choose at least one worker count, pin mode and start method."));
      return NULL;
    }
  /* The worker counts as typed: an empty one in the list is refused,
   * naming it, as `loadscope sweep` refuses it. */
  if (!ls_sweep_request_set_text (request, "workers", gtk_editable_get_text (GTK_EDITABLE (self->workers)), error)
      || !ls_setup_page_ranks_check (self, request, error))
    return NULL;
  if (ls_setup_page_get_target (self) == LS_SETUP_TARGET_LOADSCOPE)
    ls_sweep_request_add (request, LS_SWEEP_KNOB_DATASET, on ? there : self->dataset);
  else if (!ls_target_pytorch_request (request, on ? there : self->script,
                                       gtk_editable_get_text (GTK_EDITABLE (self->python)),
                                       gtk_editable_get_text (GTK_EDITABLE (self->script_args)),
                                       gtk_spin_button_get_value_as_int (self->loader_index), error))
    return NULL;
  request->on = g_steal_pointer (&on);
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
  ls_setup_page_ranks_bind (self, s);
  g_settings_bind_with_mapping (s, "target", self->target_row, "selected", G_SETTINGS_BIND_DEFAULT, target_get,
                                target_set, NULL, NULL);
  g_autofree char *script = g_settings_get_string (s, "last-script");
  if (script && *script)
    ls_setup_page_set_script (self, script);
  ls_setup_machine_bind (self->machine, s, NULL);
  g_set_object (&self->settings, s);
  only_spawn_on_windows (self);
  ls_setup_page_update_estimate (self);
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
  ls_setup_page_dataset_dispose (self);
  ls_setup_page_script_dispose (self);
  gtk_widget_dispose_template (GTK_WIDGET (self), LS_TYPE_SETUP_PAGE);
  G_OBJECT_CLASS (ls_setup_page_parent_class)->dispose (object);
}

static void
ls_setup_page_class_init (LsSetupPageClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  G_OBJECT_CLASS (klass)->dispose = ls_setup_page_dispose;
  gtk_widget_class_set_template_from_resource (widget_class, "/org/loadscope/Loadscope/ui/ls-setup-page.ui");
  g_type_ensure (LS_TYPE_SETUP_MACHINE);
  gtk_widget_class_bind_template_child (widget_class, LsSetupPage, target_row);
  gtk_widget_class_bind_template_child (widget_class, LsSetupPage, machine);
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
  gtk_widget_class_bind_template_child (widget_class, LsSetupPage, batch_row);
  gtk_widget_class_bind_template_child (widget_class, LsSetupPage, batch_size);
  gtk_widget_class_bind_template_child (widget_class, LsSetupPage, script_batch_label);
  gtk_widget_class_bind_template_child (widget_class, LsSetupPage, pin_row);
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
  gtk_widget_class_bind_template_callback_full (widget_class, "on_choose_folder",
                                                G_CALLBACK (ls_setup_page_on_choose_folder));
  gtk_widget_class_bind_template_callback_full (widget_class, "on_choose_file", G_CALLBACK (ls_setup_page_on_choose_file));
  gtk_widget_class_bind_template_callback_full (widget_class, "on_generate_clicked",
                                                G_CALLBACK (ls_setup_page_generate_sample));
  gtk_widget_class_bind_template_callback (widget_class, on_changed);
  gtk_widget_class_bind_template_callback_full (widget_class, "on_target_changed",
                                                G_CALLBACK (ls_setup_page_on_target_changed));
  gtk_widget_class_bind_template_callback_full (widget_class, "on_choose_script",
                                                G_CALLBACK (ls_setup_page_on_choose_script));
  gtk_widget_class_bind_template_callback_full (widget_class, "on_choose_python",
                                                G_CALLBACK (ls_setup_page_on_choose_python));
  gtk_widget_class_bind_template_callback_full (widget_class, "on_python_changed",
                                                G_CALLBACK (ls_setup_page_on_python_changed));
}

static void
ls_setup_page_init (LsSetupPage *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  ls_setup_page_ranks_init (self);
  /* The knobs start from the defaults every run has (run-options.h). */
  gtk_spin_button_set_value (self->batch_size, ls_run_default.batch_size);
  gtk_spin_button_set_value (self->prefetch, ls_run_default.prefetch);
  gtk_spin_button_set_value (self->model_ms, ls_run_default.model_ms);
  gtk_spin_button_set_value (self->batches, 40);
  only_spawn_on_windows (self);
  ls_setup_page_update_estimate (self);
}
