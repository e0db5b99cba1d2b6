/* The workbench window: setup, run, results and history, and the sweep
 * that connects them. */
#pragma once

#include <adwaita.h>

#include "ui/ls-application.h"

G_BEGIN_DECLS

#define LS_TYPE_WINDOW (ls_window_get_type ())
G_DECLARE_FINAL_TYPE (LsWindow, ls_window, LS, WINDOW, AdwApplicationWindow)

LsWindow *ls_window_new (LsApplication *app);

/* A short message at the bottom of the window. */
void ls_window_toast (LsWindow *self, const char *message);

/* The same, with an Open button that shows the file at path (a report,
 * an export) in the application the desktop chooses for it. */
void ls_window_toast_file (LsWindow *self, const char *message, const char *path);

/* The last toast shown (for the tests), or NULL. */
AdwToast *ls_window_last_toast (LsWindow *self);

/* The store the workbench records into (the default, or $LOADSCOPE_DB). */

G_END_DECLS
