/* Text for a terminal from somewhere else: a store, a script, a run
 * folder's task log. Such text may hold terminal escapes (ESC]0;...BEL
 * retitles the window, ESC[2J clears it) or newlines that forge lines;
 * every text command prints it through here. */
#pragma once

#include <glib.h>

#include "app/core/text-controls.h"


/* A copy of text with C0 controls (newline and tab too), DEL and C1
 * controls written as \xNN (\u0085 for C1), bidirectional controls as
 * \u202e, and bytes that are not UTF-8 as U+FFFD. NULL gives NULL. */
char *ls_terminal_text (const char *text);

/* Generated JSON for a terminal: DEL, C1 and bidirectional controls
 * (which JSON may hold raw) written as \u escapes, which read back as the
 * same characters. The JSON must be valid UTF-8 (json-glib writes it so). */
char *ls_terminal_json (const char *json);
