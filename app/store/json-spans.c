#include "app/store/json-spans.h"
#include "app/core/i18n.h"

#include "app/store/store.h"

static gboolean
bad (GError **error, const ls_json_cursor *c, const char *what)
{
  g_set_error (error, LS_STORE_ERROR, LS_STORE_ERROR_INVALID, _("not valid JSON: %s at byte %zu"), what,
               c->pos);
  return FALSE;
}

static void
skip_blanks (ls_json_cursor *c)
{
  while (c->pos < c->len)
    {
      char ch = c->text[c->pos];
      if (ch != ' ' && ch != '\t' && ch != '\n' && ch != '\r')
        break;
      c->pos++;
    }
}

/* Past the string starting at c->pos (a '"'); FALSE when it does not end. */
static gboolean
skip_string (ls_json_cursor *c)
{
  for (c->pos++; c->pos < c->len; c->pos++)
    {
      char ch = c->text[c->pos];
      if (ch == '\\')
        c->pos++;
      else if (ch == '"')
        {
          c->pos++;
          return TRUE;
        }
    }
  return FALSE;
}

/* Past the value starting at c->pos: brackets counted (strings skipped),
 * a scalar up to the next ',', '}', ']' or blank. */
static gboolean
skip_value (ls_json_cursor *c, GError **error)
{
  if (c->pos >= c->len)
    return bad (error, c, "a value expected, the text ended");
  char ch = c->text[c->pos];
  if (ch == '"')
    return skip_string (c) ? TRUE : bad (error, c, "a string that does not end");
  if (ch == '{' || ch == '[')
    {
      guint depth = 0;
      while (c->pos < c->len)
        {
          ch = c->text[c->pos];
          if (ch == '"')
            {
              if (!skip_string (c))
                return bad (error, c, "a string that does not end");
              continue;
            }
          if (ch == '{' || ch == '[')
            depth++;
          else if (ch == '}' || ch == ']')
            {
              if (--depth == 0)
                {
                  c->pos++;
                  return TRUE;
                }
            }
          c->pos++;
        }
      return bad (error, c, "an object or array that does not end");
    }
  gsize start = c->pos;
  while (c->pos < c->len)
    {
      ch = c->text[c->pos];
      if (ch == ',' || ch == '}' || ch == ']' || ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == ':'
          || ch == '{' || ch == '[' || ch == '"')
        break;
      c->pos++;
    }
  return c->pos > start ? TRUE : bad (error, c, "a value expected");
}

gboolean
ls_json_cursor_open (ls_json_cursor *c, const char *text, gsize len, char open, GError **error)
{
  *c = (ls_json_cursor){ text, len, 0, TRUE };
  skip_blanks (c);
  if (c->pos + 3 <= len && (guchar) text[c->pos] == 0xef && (guchar) text[c->pos + 1] == 0xbb
      && (guchar) text[c->pos + 2] == 0xbf)
    {
      c->pos += 3; /* a UTF-8 byte order mark */
      skip_blanks (c);
    }
  if (c->pos >= len || text[c->pos] != open)
    return bad (error, c, open == '{' ? "an object expected" : "an array expected");
  c->pos++;
  return TRUE;
}

/* Before the next item: the end (0), a ',' after the first item, or -1. */
static int
next_item (ls_json_cursor *c, char close, GError **error)
{
  skip_blanks (c);
  if (c->pos < c->len && c->text[c->pos] == close)
    {
      c->pos++;
      return 0;
    }
  if (!c->first)
    {
      if (c->pos >= c->len || c->text[c->pos] != ',')
        return bad (error, c, close == '}' ? "',' or '}' expected" : "',' or ']' expected"), -1;
      c->pos++;
      skip_blanks (c);
    }
  c->first = FALSE;
  return 1;
}

int
ls_json_cursor_member (ls_json_cursor *c, const char **name, gsize *name_len, const char **value, gsize *value_len,
                       GError **error)
{
  int more = next_item (c, '}', error);
  if (more <= 0)
    return more;
  if (c->pos >= c->len || c->text[c->pos] != '"')
    return bad (error, c, "a member's name expected"), -1;
  gsize start = c->pos;
  if (!skip_string (c))
    return bad (error, c, "a name that does not end"), -1;
  *name = c->text + start + 1;
  *name_len = c->pos - start - 2;
  skip_blanks (c);
  if (c->pos >= c->len || c->text[c->pos] != ':')
    return bad (error, c, "':' expected"), -1;
  c->pos++;
  skip_blanks (c);
  start = c->pos;
  if (!skip_value (c, error))
    return -1;
  *value = c->text + start;
  *value_len = c->pos - start;
  return 1;
}

int
ls_json_cursor_element (ls_json_cursor *c, const char **value, gsize *value_len, GError **error)
{
  int more = next_item (c, ']', error);
  if (more <= 0)
    return more;
  gsize start = c->pos;
  if (!skip_value (c, error))
    return -1;
  *value = c->text + start;
  *value_len = c->pos - start;
  return 1;
}
