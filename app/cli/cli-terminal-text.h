/* Text from the store on a terminal: a dataset path, hostname, CPU model
 * or error text may come from an imported bundle and hold terminal
 * escapes or newlines, which would rewrite the screen or forge lines. The
 * text commands print such characters escaped; --json output is JSON's
 * own escaping. */
#pragma once

#include <json-glib/json-glib.h>

/* ls_terminal_text (app/core/terminal-text.h): C0 controls (newline and
 * tab too), DEL, C1 and bidirectional controls escaped, bytes that are not
 * UTF-8 as U+FFFD. NULL gives NULL. */
char *ls_cli_terminal_text (const char *text);

/* The same for every string member of o, in place, recursively through
 * objects and arrays. */
void ls_cli_terminal_object (JsonObject *o);
void ls_cli_terminal_array (JsonArray *a);
