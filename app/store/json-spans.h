/* A JSON text walked without a tree: the byte span of each member of an
 * object and each element of an array, so that an import parses one record
 * at a time (json-glib on the span) and holds the text once, never the
 * whole document as nodes (about 9x the text). The spans are found by
 * brackets and strings alone: a span's own syntax is json-glib's to check
 * when it is parsed. Errors (LS_STORE_ERROR_INVALID) say what was expected
 * and at which byte. */
#pragma once

#include <glib.h>

typedef struct {
  const char *text;
  gsize len;
  gsize pos;   /* the next byte to read */
  gboolean first;
} ls_json_cursor;

/* Opens the object (open '{') or array ('[') whose text is text[0..len),
 * blanks around it allowed. FALSE with the error when it is not one. */
gboolean ls_json_cursor_open (ls_json_cursor *c, const char *text, gsize len, char open, GError **error);

/* The next member of an object: its name's raw text (between the quotes,
 * escapes as written) and its value's span. 1: a member, 0: the end, -1:
 * the error. */
int ls_json_cursor_member (ls_json_cursor *c, const char **name, gsize *name_len, const char **value,
                           gsize *value_len, GError **error);

/* The next element of an array: 1, 0 at the end, -1 with the error. */
int ls_json_cursor_element (ls_json_cursor *c, const char **value, gsize *value_len, GError **error);
