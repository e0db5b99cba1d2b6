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
 * exchange format and the DataLoader(...) line stay as they are.
 *
 * A sentence is one format, whole, through the catalogue; a part put into
 * it is a figure, a knob as typed, or a phrase marked on its own that
 * reads right wherever it goes (a translation may reorder with %1$s).
 * In a file of po/POTFILES.in, a sentence given to printf and its kin
 * without _() fails tests/check-translations.py unless a comment on its
 * line or the line above says "untranslated". */
#include <glib/gi18n-lib.h>
#include <stdio.h>

/* _() and ngettext as above, through the two functions below: the same
 * catalogue lookup, except on a thread that has asked for English. */
#undef _
#define _(String) ((char *) ls_i18n_gettext (String))
#undef ngettext
#define ngettext(One, Many, N) ((char *) ls_i18n_ngettext (One, Many, N))

const char *ls_i18n_gettext (const char *msgid) G_GNUC_FORMAT (1);
const char *ls_i18n_ngettext (const char *one, const char *many, unsigned long n) G_GNUC_FORMAT (1) G_GNUC_FORMAT (2);

/* A text that is both kept and shown (`loadscope run` prints the verdict
 * it also writes into the store): built once with ENGLISH TRUE for what is
 * kept, once again for what is shown. While set, _() and ngettext on this
 * thread return their English text whatever the locale. Returns the
 * previous setting, to put back. */
gboolean ls_i18n_set_english (gboolean english);

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

/* TEXT to TO, then spaces up to WIDTH display columns (none where it is
 * as wide or wider): printf's "%-Ns" for a label that may be translated,
 * so that the columns after it stay aligned with wide characters. */
void ls_i18n_print_padded (FILE *to, const char *text, gsize width);

/* "INDENT LABEL   " before a figure: INDENT, LABEL padded in display
 * columns, and at least one space, so that the figure begins at COLUMN
 * (or one space after a wider label). */
void ls_i18n_print_label (FILE *to, const char *indent, const char *label, gsize column);
