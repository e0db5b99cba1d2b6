#include "fuzz-import.h"

#include <stdio.h>
#include <stdlib.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "app/store/export.h"
#include "app/store/import-input.h"
#include "app/store/import.h"
#include "fuzz-util.h"

static GBytes *empty_store; /* a fresh store's bytes, made once: copying is faster than creating */

static void
fail (const char *what, const GError *error)
{
  fprintf (stderr, "fuzz: %s: %s\n", what, error ? error->message : "(no message)");
  abort ();
}

static void
remove_store (const char *path)
{
  g_autofree char *wal = g_strconcat (path, "-wal", NULL);
  g_autofree char *shm = g_strconcat (path, "-shm", NULL);
  g_remove (path);
  g_remove (wal);
  g_remove (shm);
}

/* A fresh store at "<tmp>/<name>". */
static ls_store *
fresh_store (const char *name)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *path = g_build_filename (fuzz_tmp_dir (), name, NULL);
  remove_store (path);
  if (!empty_store)
    {
      ls_store *s = ls_store_open (path, &error);
      if (!s)
        fail ("creating the template store", error);
      ls_store_close (s);
      char *bytes = NULL;
      gsize n = 0;
      if (!g_file_get_contents (path, &bytes, &n, &error))
        fail ("reading the template store", error);
      empty_store = g_bytes_new_take (bytes, n);
      remove_store (path);
    }
  gsize n = 0;
  const char *bytes = g_bytes_get_data (empty_store, &n);
  if (!g_file_set_contents (path, bytes, (gssize) n, &error))
    fail ("copying the template store", error);
  ls_store *store = ls_store_open (path, &error);
  if (!store)
    fail ("opening a fresh store", error);
  return store;
}

static void
close_store (ls_store *store)
{
  g_autofree char *path = g_strdup (ls_store_path (store));
  ls_store_close (store);
  remove_store (path);
}

/* Whatever import accepted, export writes and import takes back. */
static void
round_trip (ls_store *store, GArray *runs)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GArray) ids = g_array_new (FALSE, FALSE, sizeof (gint64));
  ls_import_counts counts;

  for (guint i = 0; i < runs->len; i++)
    g_array_append_val (ids, g_array_index (runs, ls_import_run, i).local_id);

  g_autoptr (JsonNode) root = ls_export_json (store, ids, &error);
  if (!root)
    fail ("export --format json of an accepted import", error);
  g_autoptr (JsonGenerator) gen = json_generator_new ();
  g_autoptr (GString) text = g_string_new (NULL);
  json_generator_set_root (gen, root);
  json_generator_to_gstring (gen, text);
  g_string_truncate (text, ls_json_text_repair_numbers (text->str, text->len));
  const char *json_path = fuzz_write_input ("again.json", (const uint8_t *) text->str, text->len);
  ls_store *again = fresh_store ("again.db");
  if (!ls_import_file (again, json_path, &counts, &error))
    fail ("import of the JSON export of an accepted import", error);
  close_store (again);

  g_autofree char *bundle = g_build_filename (fuzz_tmp_dir (), "again.sqlite", NULL);
  g_remove (bundle);
  if (!ls_export_sqlite (store, ids, bundle, &error))
    fail ("export --format sqlite of an accepted import", error);
  again = fresh_store ("again.db");
  if (!ls_import_file (again, bundle, &counts, &error))
    fail ("import of the sqlite export of an accepted import", error);
  close_store (again);
  g_remove (bundle);
}

void
fuzz_import (const char *name, const uint8_t *data, size_t len)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GArray) runs = NULL;
  ls_import_counts counts;
  const char *path = fuzz_write_input (name, data, len);
  ls_store *store = fresh_store ("store.db");

  if (ls_import_file_runs (store, path, &counts, &runs, &error))
    round_trip (store, runs);
  else
    fuzz_require_message ("ls_import_file", error ? error->message : NULL);
  close_store (store);
}
