#pragma once

/* Translation of what a person reads (gettext, domain GETTEXT_PACKAGE =
 * "loadscope", set by the build):
 *
 *   _("text")          translated now
 *   N_("text")         marked only, for a static table; translate it with
 *                      _() where it is shown
 *   ngettext (one, many, n)
 *                      every count ("1 run" / "2 runs")
 *
 * Never for machine-readable output: --json, CSV headers, the store, the
 * exchange format and the DataLoader(...) line stay as they are. */
#include <glib/gi18n-lib.h>

/* Once, first thing in main(): the locale from the environment (LANG,
 * LC_ALL, LANGUAGE) for messages, text and time, LC_NUMERIC kept "C" (the
 * CLI prints machine-readable numbers with printf), and the catalogues
 * bound: <exe>/../share/locale (an installed prefix, the Windows zip), else
 * <exe>/../po (a build tree), else the prefix's locale folder. Output stays
 * UTF-8 whatever the locale's charset.
 *
 * MACHINE_OUTPUT (a command with --json or --events, as a sweep starts its
 * runner): the locale stays "C", so that no text of the system's (an OS
 * error in a run's notes) reaches JSON or the store translated. */
void ls_i18n_init (gboolean machine_output);

/* Whether ARGV asks for machine-readable output (--json, --events). */
gboolean ls_i18n_machine_output (int argc, char **argv);

/* Display columns of UTF-8 text on a terminal: 2 for each wide (CJK)
 * character, 0 for combining marks, 1 for the rest. */
gsize ls_i18n_display_width (const char *utf8);
