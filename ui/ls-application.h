/* The workbench application: actions, shortcuts, settings. */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

#define LS_TYPE_APPLICATION (ls_application_get_type ())
G_DECLARE_FINAL_TYPE (LsApplication, ls_application, LS, APPLICATION, AdwApplication)

/* The application over settings (from ls_settings_new). */
LsApplication *ls_application_new (GSettings *settings);

/* The settings of the workbench (window size, last knobs). */
GSettings *ls_application_get_settings (LsApplication *self);

G_END_DECLS

/* Runs the workbench; the process's exit status. */
int ls_ui_main (int argc, char **argv);
