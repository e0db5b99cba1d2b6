/* What an import reads before it parses anything: the input
 * capped and streamed (`import /dev/zero` stops at the cap), JSON text
 * scanned for its nesting depth (json-glib recurses once per level and has
 * no limit of its own: 100,000 levels overflow the stack), and the
 * temporary folders of imports that died (SIGKILL, a crash) removed by the
 * next import. */
#include <gio/gio.h>
#include "app/core/i18n.h"
#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/store/import-input.h"

#include "app/core/tmp-dir.h"
#include "app/store/store.h"
#include "platform/process.h"

gboolean
ls_json_text_check (const char *text, gsize len, GError **error)
{
  guint depth = 0;
  gboolean in_string = FALSE;

  for (gsize i = 0; i < len; i++)
    {
      char c = text[i];
      if (in_string)
        {
          /* json-glib would cut "a\u0000b" to "a", silently. */
          if (c == '\\' && i + 5 < len && text[i + 1] == 'u' && memcmp (text + i + 2, "0000", 4) == 0)
            {
              g_set_error (error, LS_STORE_ERROR, LS_STORE_ERROR_INVALID,
                           _("a string holds a NUL character (\\u0000 at byte %zu): text cannot hold NUL"), i);
              return FALSE;
            }
          if (c == '\\')
            i++;
          else if (c == '"')
            in_string = FALSE;
          continue;
        }
      if (c == '"')
        in_string = TRUE;
      else if (c == '[' || c == '{')
        {
          if (++depth > LS_JSON_MAX_DEPTH)
            {
              g_set_error (error, LS_STORE_ERROR, LS_STORE_ERROR_INVALID,
                           _("JSON nested more than %d levels deep (at byte %zu)"), LS_JSON_MAX_DEPTH,
                           i);
              return FALSE;
            }
        }
      else if ((c == ']' || c == '}') && depth > 0)
        depth--;
    }
  return TRUE;
}

gsize
ls_json_text_repair_numbers (char *text, gsize len)
{
  gsize o = 0;
  gboolean in_string = FALSE, in_number = FALSE, exponent = FALSE;

  for (gsize i = 0; i < len; i++)
    {
      char c = text[i];
      if (in_string)
        {
          text[o++] = c;
          if (c == '\\' && i + 1 < len)
            text[o++] = text[++i];
          else if (c == '"')
            in_string = FALSE;
          continue;
        }
      if (c == '"')
        {
          in_string = TRUE;
          in_number = exponent = FALSE;
        }
      else if (g_ascii_isdigit (c) || c == '-' || c == '+')
        in_number = TRUE;
      else if (in_number && (c == 'e' || c == 'E'))
        exponent = TRUE;
      else if (c == '.' && exponent && i + 1 < len && text[i + 1] == '0'
               && (i + 2 >= len || !g_ascii_isdigit (text[i + 2])))
        {
          i++; /* json-glib's "1e-300.0": drop the ".0" */
          continue;
        }
      else if (c != '.')
        in_number = exponent = FALSE;
      text[o++] = c;
    }
  if (o < len)
    text[o] = '\0';
  return o;
}

ls_import_sniff
ls_import_sniff_head (const guint8 *head, gsize len)
{
  static const char sqlite_magic[16] = "SQLite format 3"; /* and its NUL */
  gsize i = 0;
  if (len >= sizeof sqlite_magic && memcmp (head, sqlite_magic, sizeof sqlite_magic) == 0)
    return LS_IMPORT_SNIFF_SQLITE;
  if (len >= 3 && head[0] == 0xef && head[1] == 0xbb && head[2] == 0xbf)
    i = 3;
  while (i < len && (head[i] == ' ' || head[i] == '\t' || head[i] == '\n' || head[i] == '\r'))
    i++;
  if (i == len)
    /* A whole block of blanks is no export either. */
    return len < LS_IMPORT_SNIFF_BYTES ? LS_IMPORT_SNIFF_EMPTY : LS_IMPORT_SNIFF_OTHER;
  return head[i] == '{' || head[i] == '[' ? LS_IMPORT_SNIFF_JSON : LS_IMPORT_SNIFF_OTHER;
}

gboolean
ls_import_read_capped (const char *path, guint64 cap, GBytes **out, GError **error)
{
  g_autoptr (GFile) file = g_file_new_for_path (path);
  g_autoptr (GError) local = NULL;
  g_autoptr (GFileInputStream) in = g_file_read (file, NULL, &local);
  /* Sized from the file's length where it has one: grown by doubling, a
   * large file would take up to twice its size while it is read. */
  GStatBuf st;
  guint64 hint = g_stat (path, &st) == 0 && st.st_size > 0 ? (guint64) st.st_size : 0;
  g_autoptr (GByteArray) buf = g_byte_array_sized_new ((guint) MIN (hint + 1, cap + 1));
  guint8 chunk[65536];

  *out = NULL;
  if (!in)
    {
      g_set_error (error, LS_STORE_ERROR, LS_STORE_ERROR_INVALID, _("cannot read it: %s"), local->message);
      return FALSE;
    }
  for (;;)
    {
      gssize got = g_input_stream_read (G_INPUT_STREAM (in), chunk, sizeof chunk, NULL, &local);
      if (got < 0)
        {
          g_set_error (error, LS_STORE_ERROR, LS_STORE_ERROR_INVALID, _("cannot read it: %s"), local->message);
          return FALSE;
        }
      if (got == 0)
        break;
      if ((guint64) buf->len + (guint64) got > cap)
        {
          g_set_error (error, LS_STORE_ERROR, LS_STORE_ERROR_INVALID,
                       _("larger than the %llu MiB an import reads; nothing was read past it"),
                       (unsigned long long) (cap >> 20));
          return FALSE;
        }
      g_byte_array_append (buf, chunk, (guint) got);
    }
  *out = g_byte_array_free_to_bytes (g_steal_pointer (&buf));
  return TRUE;
}

char *
ls_import_make_tmp_dir (GError **error)
{
  /* Folders of imports whose process is gone: a crash or SIGKILL left them. */
  return ls_tmp_dir_make (LS_IMPORT_TMP_PREFIX, error);
}
