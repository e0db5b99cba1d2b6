/* Characters that act instead of showing, in text from somewhere else (a
 * store, a script, an imported bundle). Header only: app/chart, which
 * links nothing of app/core, uses it too. */
#pragma once

#include <glib.h>
#include <string.h>

/* A bidirectional control (U+202A-202E, U+2066-2069, U+200E/F, U+061C):
 * shown, it reorders the text around it, so "txt.exe" can read as
 * "exe.txt" (Trojan Source). */
static inline gboolean
ls_text_is_bidi_control (gunichar c)
{
  return (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069) || c == 0x200e || c == 0x200f || c == 0x061c;
}

/* A C0 control other than newline and tab, DEL, a C1 control, or a
 * bidirectional control: what recorded text never keeps on output. */
static inline gboolean
ls_text_is_control (gunichar c)
{
  return (c < 0x20 && c != '\n' && c != '\t') || (c >= 0x7f && c < 0xa0) || ls_text_is_bidi_control (c);
}

/* A copy of text (valid UTF-8 made of it) with every ls_text_is_control
 * character (and with one_line, newline and tab) as U+FFFD: seen, not
 * obeyed. NULL gives NULL. */
static inline char *
ls_text_clean (const char *text, gboolean one_line)
{
  if (!text)
    return NULL;
  char *valid = g_utf8_make_valid (text, -1);
  GString *out = g_string_sized_new (strlen (valid));
  for (const char *p = valid; *p; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);
      if ((one_line && (c == '\n' || c == '\t')) || ls_text_is_control (c))
        g_string_append (out, "\xEF\xBF\xBD");
      else
        g_string_append_len (out, p, g_utf8_next_char (p) - p);
    }
  g_free (valid);
  return g_string_free (out, FALSE);
}
