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

/* The store the workbench records into (the default, or $LOADSCOPE_DB). */

G_END_DECLS
