/* Option parsing shared by every command. */
#pragma once

#include <glib.h>

/* g_option_context_parse in strv mode: ARGV's strings are taken as UTF-8 on
 * every platform (on Windows main() gets them from the wide command line, so
 * non-ASCII paths survive; plain parsing would read them in the ANSI code
 * page). On return *ARGV points at the arguments left over, kept for the
 * life of the process. */
gboolean ls_cli_parse_args (GOptionContext *context, int *argc, char ***argv, GError **error);

/* The process's arguments as UTF-8: on Windows from the wide command line
 * (kept for the life of the process), elsewhere ARGV itself. */
char **ls_cli_utf8_argv (int *argc, char **argv);

/* An option's value that must be a number in a range: the whole of text
 * (C locale; "nan", "inf", "12x" are not), min <= v <= max (min < v with
 * above_min). FALSE (G_OPTION_ERROR_BAD_VALUE) with "OPTION TEXT: not a
 * number" or "OPTION TEXT: must be between MIN and MAX" (+ hint). */
gboolean ls_cli_double_in (const char *option, const char *text, double min, gboolean above_min, double max,
                           const char *hint, double *out, GError **error);
gboolean ls_cli_int_in (const char *option, const char *text, gint64 min, gint64 max, gint64 *out, GError **error);

/* Prints "loadscope COMMAND: <message>" to stderr; returns 2, bad usage. */
int ls_cli_usage_error (const char *command, const char *format, ...) G_GNUC_PRINTF (2, 3);
