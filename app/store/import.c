/* The whole import (import.h): the file's kind from its first bytes, the
 * file opened by its reader (import-json.c, import-bundle.c) before
 * anything is written, then its records merged (import-merge.c) in one
 * transaction, and errors named after the file or the store. */
#include "app/store/import.h"
#include "app/core/i18n.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "app/file/test-hold.h"
#include "app/store/import-input.h"
#include "app/store/import-private.h"
#include "app/store/json-spans.h"

gboolean
ls_import_file (ls_store *store, const char *path, ls_import_counts *counts, GError **error)
{
  return ls_import_file_runs (store, path, counts, NULL, error);
}

static gboolean import_file (ls_store *store, const char *path, gboolean in_sweep_only, const char *in_sweep,
                             ls_import_counts *counts, GArray **runs, GError **error);

gboolean
ls_import_file_runs (ls_store *store, const char *path, ls_import_counts *counts, GArray **runs, GError **error)
{
  return import_file (store, path, FALSE, NULL, counts, runs, error);
}

gboolean
ls_import_file_in_sweep (ls_store *store, const char *path, const char *sweep_uuid, ls_import_counts *counts,
                         GError **error)
{
  return import_file (store, path, TRUE, sweep_uuid, counts, NULL, error);
}

static gboolean
import_file (ls_store *store, const char *path, gboolean in_sweep_only, const char *in_sweep,
             ls_import_counts *counts, GArray **runs, GError **error)
{
  g_autoptr (GBytes) json_text = NULL;
  char *json_data = NULL;
  gsize json_len = 0;
  g_autoptr (GError) local = NULL;
  bundle b;
  importer imp;
  guint8 head[LS_IMPORT_SNIFF_BYTES] = { 0 };
  gboolean ok = FALSE, in_transaction = FALSE;

  memset (counts, 0, sizeof *counts);
  ls_bundle_init (&b);
  if (runs)
    *runs = NULL;
  FILE *f = fopen (path, "rb");
  if (!f)
    {
      g_set_error (error, LS_STORE_ERROR, LS_STORE_ERROR_INVALID, _("%s: cannot read it: %s"), path, g_strerror (errno));
      return FALSE;
    }
  size_t got = fread (head, 1, sizeof head, f);
  fclose (f);
  ls_import_sniff kind = ls_import_sniff_head (head, got);
  gboolean is_sqlite = kind == LS_IMPORT_SNIFF_SQLITE;
  gboolean csv = g_str_has_suffix (path, ".csv") || g_str_has_suffix (path, ".CSV")
                 || (got >= 7 && memcmp (head, "run_id,", 7) == 0);

  /* Neither SQLite nor JSON from its first bytes: refused before the rest
   * is read (a 1 GiB file of zeros, /dev/zero). */
  if (kind == LS_IMPORT_SNIFF_OTHER)
    {
      if (csv)
        ls_store_invalid (&local, "a CSV file: " LS_IMPORT_FORMATS_TEXT);
      else
        ls_store_invalid (&local, "not a Loadscope export: neither an SQLite bundle nor JSON (it starts with byte 0x%02x); "
                 LS_IMPORT_FORMATS_TEXT, head[0]);
      goto out;
    }
  if (kind == LS_IMPORT_SNIFF_EMPTY)
    {
      ls_store_invalid (&local, "not a Loadscope export: an empty file");
      goto out;
    }

  /* The file first: nothing is written until it has been opened. */
  if (is_sqlite)
    {
      if (!ls_bundle_open (&b, path, &local))
        goto out;
    }
  else
    {
      /* The text is held once; its records are parsed one at a time. */
      if (!ls_import_read_capped (path, LS_IMPORT_MAX_BYTES, &json_text, &local))
        goto out;
      json_data = g_bytes_unref_to_data (g_steal_pointer (&json_text), &json_len);
      json_text = g_bytes_new_take (json_data, json_len); /* owns it; repaired in place */
      json_len = ls_json_text_repair_numbers (json_data, json_len);
      if (!ls_json_text_check (json_data ? json_data : "", json_len, &local))
        goto out;
    }

  if (!ls_importer_init (&imp, store, &local))
    goto clear;
  imp.in_sweep_only = in_sweep_only;
  imp.in_sweep = in_sweep;
  /* IMMEDIATE: wait for (or fail on) another writer now, not halfway. */
  if (!ls_store_exec (store, "BEGIN IMMEDIATE", &local))
    {
      if (g_error_matches (local, LS_STORE_ERROR, LS_STORE_ERROR_BUSY))
        {
          g_clear_error (&local);
          g_set_error (&local, LS_STORE_ERROR, LS_STORE_ERROR_BUSY,
                       _("%s: the store is locked by another program (a run or an import?; waited %.1f s for it)"),
                       ls_store_path (store), ls_store_busy_ms (store) / 1000.0);
        }
      goto clear;
    }
  in_transaction = TRUE;
  if (is_sqlite)
    ls_test_hold ("import", b.copy);
  ok = is_sqlite ? ls_importer_bundle (&imp, &b, &local)
                 : ls_importer_json (&imp, json_data ? json_data : "", json_len, &local);
  if (ok && !ls_store_exec (store, "COMMIT", &local))
    ok = FALSE;
  if (ok)
    {
      *counts = imp.counts;
      if (runs)
        *runs = g_steal_pointer (&imp.imported);
    }

clear:
  if (!ok && in_transaction)
    sqlite3_exec (ls_store_db (store), "ROLLBACK", NULL, NULL, NULL);
  ls_importer_clear (&imp);
out:
  ls_bundle_clear (&b);
  if (!ok)
    {
      /* Problems of the file name it; those of the store name the store. */
      if (local->domain == LS_STORE_ERROR
          && (local->code == LS_STORE_ERROR_INVALID || local->code == LS_STORE_ERROR_VERSION))
        g_prefix_error (&local, "%s: ", path);
      else if (local->domain != LS_STORE_ERROR)
        {
          g_autofree char *why = g_strdup (local->message);
          g_clear_error (&local);
          g_set_error (&local, LS_STORE_ERROR, LS_STORE_ERROR_OPEN, "%s: %s", path, why);
        }
      g_propagate_error (error, g_steal_pointer (&local));
    }
  return ok;
}
