#include "app/report/report-escape.h"

#include <string.h>

#include "app/core/terminal-text.h"

char *
ls_report_plain_text (const char *text, gsize max_chars)
{
  if (!text)
    return g_strdup ("-");
  g_autofree char *valid = g_utf8_make_valid (text, -1);
  glong n = g_utf8_strlen (valid, -1);
  GString *out = g_string_sized_new (MIN (strlen (valid), max_chars ? max_chars * 4 + 32 : strlen (valid)) + 1);
  glong i = 0;
  for (const char *p = valid; *p && (max_chars == 0 || i < (glong) max_chars); p = g_utf8_next_char (p), i++)
    {
      gunichar c = g_utf8_get_char (p);
      if (c == '\n' || c == '\r' || c == '\t')
        g_string_append_c (out, ' ');
      else if (c < 0x20 || (c >= 0x7f && c < 0xa0) || c == 0x2028 || c == 0x2029 || ls_text_is_bidi_control (c))
        g_string_append (out, "\xEF\xBF\xBD"); /* U+FFFD: seen, not obeyed */
      else
        g_string_append_len (out, p, g_utf8_next_char (p) - p);
    }
  if (max_chars > 0 && n > (glong) max_chars)
    g_string_append_printf (out, "… (%ld characters)", n);
  return g_string_free (out, FALSE);
}

char *
ls_report_html_escape (const char *text, gsize max_chars)
{
  g_autofree char *plain = ls_report_plain_text (text, max_chars);
  GString *out = g_string_sized_new (strlen (plain) + 16);
  for (const char *p = plain; *p; p++)
    switch (*p)
      {
      case '&':
        g_string_append (out, "&amp;");
        break;
      case '<':
        g_string_append (out, "&lt;");
        break;
      case '>':
        g_string_append (out, "&gt;");
        break;
      case '"':
        g_string_append (out, "&quot;");
        break;
      case '\'':
        g_string_append (out, "&#39;");
        break;
      default:
        g_string_append_c (out, *p);
      }
  return g_string_free (out, FALSE);
}

char *
ls_report_md_escape (const char *text, gsize max_chars)
{
  g_autofree char *plain = ls_report_plain_text (text, max_chars);
  GString *out = g_string_sized_new (strlen (plain) + 16);
  const char *digits_end = plain + strspn (plain, "0123456789");
  for (const char *p = plain; *p; p++)
    {
      gboolean escape = strchr ("\\`*_{}[]<>|&~#", *p) != NULL
                        /* what would start a list item in a list item: "- x", "+ x", "1. x" */
                        || (p == plain && (*p == '-' || *p == '+'))
                        || (p == digits_end && p > plain && (*p == '.' || *p == ')'))
                        /* what GitHub would make a link of: "https://", "www." */
                        || (*p == ':' && p[1] == '/' && p[2] == '/')
                        || (*p == '.' && p - plain >= 3 && g_ascii_strncasecmp (p - 3, "www", 3) == 0);
      if (escape)
        g_string_append_c (out, '\\');
      g_string_append_c (out, *p);
    }
  return g_string_free (out, FALSE);
}
