/* What the tests drive and read in the Tune window. */
#pragma once

#include "ui/ls-tune-dialog.h"

G_BEGIN_DECLS

/* Starts tune as if the button was pressed. */
void ls_tune_dialog_start (LsTuneDialog *self);
gboolean ls_tune_dialog_is_running (LsTuneDialog *self);
/* Cancels tune as if Cancel was pressed. */
void ls_tune_dialog_cancel (LsTuneDialog *self);
/* The progress line shown. */
const char *ls_tune_dialog_get_progress (LsTuneDialog *self);
/* The result text shown (NULL before the end). */
const char *ls_tune_dialog_get_result (LsTuneDialog *self);

G_END_DECLS
