#pragma once

#include <gio/gio.h>

/* The workbench's settings (schema org.loadscope.Loadscope), found and kept
 * without any environment set by hand:
 *
 * - the schema comes from the system's schema folders when installed there,
 *   else from beside the executable: <exe>/../data (a build tree) or
 *   <exe>/../share/loadscope/schemas (an installed prefix, any prefix);
 * - values go to the desktop's backend (dconf) when a D-Bus session answers,
 *   else to a keyfile, $XDG_CONFIG_HOME/loadscope/settings.ini, so an edit
 *   made over SSH or under Xvfb is kept. $GSETTINGS_BACKEND, when set, wins.
 *
 * Returns NULL with error set (naming every folder looked in) when the
 * schema is nowhere. */
GSettings *ls_settings_new (GError **error);

/* Where ls_settings_new keeps values when no session bus answers. */
char *ls_settings_keyfile_path (void);

#define LS_SETTINGS_SCHEMA_ID "org.loadscope.Loadscope"
