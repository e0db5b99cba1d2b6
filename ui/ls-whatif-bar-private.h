/* What the tests drive and look at in the what-if bar. */
#pragma once

#include "ui/ls-whatif-bar.h"

G_BEGIN_DECLS

/* Moves the scale, as a person would (the lines follow once it rests and
 * the store has been read). */
void ls_whatif_bar_set_speed (LsWhatifBar *self, double speed);

/* Predicted series on the chart now. */
guint ls_whatif_bar_n_predicted (LsWhatifBar *self);

/* A read of the store (or a redraw waiting for the scale to rest) is on
 * its way. */
gboolean ls_whatif_bar_is_reading (LsWhatifBar *self);

/* TRUE where the sweep shown has no GPU consumer (a script's step on the
 * CPU): the scale is the step's time, not a GPU's speed. */
gboolean ls_whatif_bar_is_step_time (LsWhatifBar *self);

G_END_DECLS
