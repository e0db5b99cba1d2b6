/* Text from the store, made safe to show in a report. Names of datasets,
 * scripts and machines can come from an imported bundle, made anywhere by
 * anyone: they must read as text, never as markup. */
#pragma once

#include <glib.h>

/* Longest text shown in a table cell or a sentence; longer ones are cut
 * and say how long they were. */
#define LS_REPORT_TEXT_MAX 240

/* Valid UTF-8, one line: line breaks and tabs become spaces, other control
 * characters (bidirectional ones too) U+FFFD, and text longer than max_chars (0: no limit) is cut
 * with "… (N characters)". NULL reads as "-". Newly allocated. */
char *ls_report_plain_text (const char *text, gsize max_chars);

/* ls_report_plain_text, with &, <, >, " and ' as entities. */
char *ls_report_html_escape (const char *text, gsize max_chars);

/* ls_report_plain_text with a backslash before every character that
 * would be markup in a table cell, a list item or a paragraph: \ ` * _ { }
 * [ ] < > | & ~ #, a leading - or + and the . or ) of a leading number
 * (a list inside the item), and the : of "://" and the . of "www." (GitHub
 * would make a link of them). */
char *ls_report_md_escape (const char *text, gsize max_chars);
