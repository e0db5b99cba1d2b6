/* Shared by the tests that drive the window under Xvfb. */
#pragma once

#include <gtk/gtk.h>

/* Runs the main context until done () or timeout_s seconds have passed. */
void ls_test_gui_iterate_until (gboolean (*done) (void), double timeout_s);

/* A done () that never is: iterate for the whole time given. */
gboolean ls_test_gui_never (void);

/* The first widget of type at or below w (depth first), or NULL. */
gpointer ls_test_gui_find_child (GtkWidget *w, GType type);

/* The screen as a person sees it (ImageMagick's import on Xvfb), after a
 * second of drawing, as $LS_ARTIFACTS/name (or ./name); says so and goes
 * on where import is missing. */
void ls_test_gui_screenshot (const char *name);
