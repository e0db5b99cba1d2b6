/* Setup: what to measure (Loadscope's loader over a dataset, or the user's
 * PyTorch script with its arguments and interpreter) and the knobs of a
 * sweep, as ranges and toggles, with the sweep's estimated duration. */
#pragma once

#include <adwaita.h>
#include <json-glib/json-glib.h>

#include "app/core/sweep-request.h"
#include "ui/ls-setup-machine.h"

G_BEGIN_DECLS

#define LS_TYPE_SETUP_PAGE (ls_setup_page_get_type ())
G_DECLARE_FINAL_TYPE (LsSetupPage, ls_setup_page, LS, SETUP_PAGE, GtkBox)

/* The target choice, in the order the page lists it. */
typedef enum {
  LS_SETUP_TARGET_LOADSCOPE, /* Loadscope's loader over the dataset */
  LS_SETUP_TARGET_PYTORCH,   /* the user's script through the probe (--target pytorch) */
} LsSetupTarget;

/* Keeps the knobs, the target and the script's fields in these settings
 * (the workbench's); the last dataset and script are checked again. */
void ls_setup_page_bind (LsSetupPage *self, GSettings *settings);

/* The sweep the page describes: the dataset and the knobs (the store and
 * the runner are the caller's to fill in), or NULL with an error a user can
 * act on. */
ls_sweep_request *ls_setup_page_get_request (LsSetupPage *self, GError **error);

/* Generates the sample dataset (in a thread) and selects it. */
void ls_setup_page_generate_sample (LsSetupPage *self);

const char *ls_setup_page_get_dataset (LsSetupPage *self);
/* Chooses a dataset and checks it at once, in a thread, as `loadscope run`
 * would: what is wrong shows on the page, and the sweep is refused. */
void ls_setup_page_set_dataset (LsSetupPage *self, const char *path);

LsSetupTarget ls_setup_page_get_target (LsSetupPage *self);
void ls_setup_page_set_target (LsSetupPage *self, LsSetupTarget target);

/* Chooses the script and checks it at once, in a thread, with the
 * interpreter on the page (app/target/target-check.h): a missing file or an
 * interpreter without torch shows on the page, and the sweep is refused. */
void ls_setup_page_set_script (LsSetupPage *self, const char *path);
const char *ls_setup_page_get_script (LsSetupPage *self);
void ls_setup_page_set_script_args (LsSetupPage *self, const char *args);
/* Sets the interpreter and checks the script with it again. */
void ls_setup_page_set_python (LsSetupPage *self, const char *python);

/* A run of the sweep ended with this summary: a script's own batch size
 * (its "batch_size") is shown in the batch size row from then on. */
void ls_setup_page_note_run (LsSetupPage *self, JsonObject *summary);
/* The script's batch size as the last run told it; 0: not known. */
gint64 ls_setup_page_get_script_batch (LsSetupPage *self);

/* The Machine choice (ls-setup-machine.h): where the sweep runs. */
LsSetupMachine *ls_setup_page_get_machine (LsSetupPage *self);

G_END_DECLS
