#include "app/core/terminal-text.h"

#include <string.h>

char *
ls_terminal_json (const char *json)
{
  if (!json)
    return NULL;
  GString *out = g_string_sized_new (strlen (json));
  for (const char *p = json; *p; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);
      /* C0 controls cannot stand raw in JSON; the others only inside a
       * string, where \uXXXX is the same character. */
      if (c == 0x7f || (c >= 0x80 && c < 0xa0) || ls_text_is_bidi_control (c))
        g_string_append_printf (out, "\\u%04x", c);
      else
        g_string_append_len (out, p, g_utf8_next_char (p) - p);
    }
  return g_string_free (out, FALSE);
}

char *
ls_terminal_text (const char *text)
{
  if (!text)
    return NULL;
  g_autofree char *valid = g_utf8_make_valid (text, -1);
  GString *out = g_string_sized_new (strlen (valid));
  for (const char *p = valid; *p; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);
      if (c < 0x20 || c == 0x7f)
        g_string_append_printf (out, "\\x%02x", c);
      else if ((c >= 0x80 && c < 0xa0) || ls_text_is_bidi_control (c))
        g_string_append_printf (out, "\\u%04x", c);
      else
        g_string_append_len (out, p, g_utf8_next_char (p) - p);
    }
  return g_string_free (out, FALSE);
}
