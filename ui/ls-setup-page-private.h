/* What the Setup page's files share (ls-setup-page.c: the page, its knobs
 * and settings; ls-setup-dataset.c; ls-setup-script.c), and what the tests
 * read of it. */
#pragma once

#include "ui/ls-setup-machine.h"
#include "ui/ls-setup-page.h"

G_BEGIN_DECLS

struct _LsSetupPage {
  GtkBox parent_instance;
  AdwComboRow *target_row;  /* LsSetupTarget */
  LsSetupMachine *machine;  /* where the runs execute (ls-setup-machine.c) */
  GtkSwitch *script_own_knobs; /* a script keeps its batch size, prefetch, persistence */
  AdwPreferencesGroup *dataset_group;
  AdwPreferencesGroup *script_group;
  AdwActionRow *script_row;
  AdwEntryRow *script_args;
  AdwEntryRow *python;
  GtkSpinButton *loader_index;
  GtkLabel *script_problem_label;
  AdwPreferencesGroup *ranks_group; /* ls-setup-ranks.c: made in code, shown with the script's */
  GtkSpinButton *ranks;
  AdwEntryRow *threads;
  AdwActionRow *model_row;   /* the script's own step replaces it */
  AdwActionRow *dataset_row;
  GtkLabel *dataset_problem_label; /* what the check found wrong, in full */
  GtkProgressBar *generate_progress;
  GtkButton *generate_button;
  AdwEntryRow *workers;
  AdwActionRow *batch_row;
  GtkSpinButton *batch_size;
  GtkLabel *script_batch_label; /* the script's own batch size, in the spin button's place */
  GtkSpinButton *prefetch;
  GtkSwitch *persistent;
  AdwActionRow *pin_row;    /* hidden for a script whose torch has no CUDA */
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
  gboolean python_found;    /* the row is being set to the interpreter a check found */
  gboolean script_on_cpu;   /* the check found torch without CUDA: pinning does not apply */
  gint64 script_batch;      /* the script's own batch size, from its last run; 0: not known */
};

/* ls-setup-page.c: a chosen path's row: its subtitle is the path and what
 * the check found (or `bad`, the short word for a problem, which is then
 * shown in full in problem_label below the row, where it wraps) */
void ls_setup_page_show_check (AdwActionRow *row, GtkLabel *problem_label, const char *path, const char *finding,
                               const char *bad);

/* ls-setup-page.c: the knobs */
gboolean ls_setup_page_script_keeps_knobs (LsSetupPage *self);
void ls_setup_page_knob_rows_sensitive (LsSetupPage *self);
void ls_setup_page_update_estimate (LsSetupPage *self);
gboolean ls_setup_page_pins_apply (LsSetupPage *self);

/* ls-setup-dataset.c: the template's callbacks and the page's dispose */
void ls_setup_page_on_choose_folder (LsSetupPage *self);
void ls_setup_page_on_choose_file (LsSetupPage *self);
void ls_setup_page_dataset_dispose (LsSetupPage *self);

/* ls-setup-script.c: the template's callbacks and the page's dispose */
void ls_setup_page_on_target_changed (LsSetupPage *self);
void ls_setup_page_on_choose_script (LsSetupPage *self);
void ls_setup_page_on_choose_python (LsSetupPage *self);
void ls_setup_page_on_python_changed (LsSetupPage *self);
void ls_setup_page_script_dispose (LsSetupPage *self);

/* ls-setup-ranks.c: the script's ranks and threads per rank (their group,
 * settings, and what they add to a request: nothing for 1 rank and the
 * script's own threads). check refuses an empty value in the threads list. */
void ls_setup_page_ranks_init (LsSetupPage *self);
void ls_setup_page_ranks_bind (LsSetupPage *self, GSettings *settings);
void ls_setup_page_ranks_add (LsSetupPage *self, ls_sweep_request *request);
gboolean ls_setup_page_ranks_check (LsSetupPage *self, ls_sweep_request *request, GError **error);
/* " × 2 thread counts", or NULL: what the threads add to the estimate's product. */
char *ls_setup_page_ranks_factor (LsSetupPage *self, ls_sweep_request *request);
/* For the tests, as a user types them. */
void ls_setup_page_set_ranks (LsSetupPage *self, int ranks);
void ls_setup_page_set_threads (LsSetupPage *self, const char *threads);

/* For the tests: a check still on its way, and what it found wrong (NULL:
 * fine or unchecked). */
gboolean ls_setup_page_is_checking_dataset (LsSetupPage *self);
const char *ls_setup_page_get_dataset_problem (LsSetupPage *self);
gboolean ls_setup_page_is_checking_script (LsSetupPage *self);
const char *ls_setup_page_get_script_problem (LsSetupPage *self);

G_END_DECLS
