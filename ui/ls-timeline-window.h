/* A run's timeline in a window of its own (opened from History): the
 * lanes of LsTimelineView, read from the store in a thread, with zoom
 * buttons (+, -, 0 on the keyboard) and a line under the lanes that gives
 * the exact figures of the span under the pointer. */
#pragma once

#include <adwaita.h>

#include "ui/ls-timeline-view.h"

G_BEGIN_DECLS

#define LS_TYPE_TIMELINE_WINDOW (ls_timeline_window_get_type ())
G_DECLARE_FINAL_TYPE (LsTimelineWindow, ls_timeline_window, LS, TIMELINE_WINDOW, AdwWindow)

/* Starts reading run_id's lanes from the store at db (NULL: the default). */
LsTimelineWindow *ls_timeline_window_new (GtkWindow *parent, const char *db, gint64 run_id);

LsTimelineView *ls_timeline_window_get_view (LsTimelineWindow *self);
/* TRUE once the lanes are shown or the read failed (the reason in error). */
gboolean ls_timeline_window_is_loaded (LsTimelineWindow *self, const char **error);

G_END_DECLS
