/* What an import reads before parsing: capped input, JSON depth, its
 * temporary folder (import-input.c). */
#pragma once

#include <glib.h>

/* The largest file an import reads (JSON or bundle). */
#define LS_IMPORT_MAX_BYTES ((guint64) 1 << 30)
/* The deepest JSON an import (or a bundle's summary/grid text) parses; an
 * export is 5 levels deep, a summary a few more. */
#define LS_JSON_MAX_DEPTH 64
#define LS_IMPORT_TMP_PREFIX "loadscope-import-"

/* FALSE (LS_STORE_ERROR_INVALID) when text nests arrays/objects deeper
 * than LS_JSON_MAX_DEPTH, or when a string holds NUL (\u0000, which
 * json-glib would cut the string at). The rest is json-glib's. */
gboolean ls_json_text_check (const char *text, gsize len, GError **error);

/* The file read whole through a stream, refused once it passes cap bytes
 * (a pipe or /dev/zero too), the message saying the cap. */
gboolean ls_import_read_capped (const char *path, guint64 cap, GBytes **out, GError **error);

/* A new temporary folder "loadscope-import-<pid>-XXXXXX", after removing
 * those whose import process is gone. */
char *ls_import_make_tmp_dir (GError **error);

/* json-glib (1.6) writes a double whose shortest form has an exponent and
 * no point as "1e-300.0", which no JSON parser (json-glib included) reads.
 * Drops that ".0" outside strings, in place; returns the new length (text
 * NUL-terminated when it shrank). */
gsize ls_json_text_repair_numbers (char *text, gsize len);

/* What the first bytes of an import say it is. JSON: the first byte that
 * is not blank (after a UTF-8 BOM) opens an object or an array, as every
 * export does. Anything else is refused before more of it is read
 * (`import /dev/zero` reads one block). */
typedef enum {
  LS_IMPORT_SNIFF_SQLITE,
  LS_IMPORT_SNIFF_JSON,
  LS_IMPORT_SNIFF_EMPTY, /* nothing, or blanks only */
  LS_IMPORT_SNIFF_OTHER,
} ls_import_sniff;

/* head: the file's first len bytes (len < LS_IMPORT_SNIFF_BYTES only when
 * the file is that short). */
#define LS_IMPORT_SNIFF_BYTES 4096
ls_import_sniff ls_import_sniff_head (const guint8 *head, gsize len);
