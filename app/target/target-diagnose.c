/* run --diagnose for a script (target-diagnose.h). */
#include "app/target/target-diagnose.h"

#include <string.h>

#include "app/core/tmp-dir.h"
#include "platform/fs.h"

#define MAX_LISTED 100000    /* paths read from the probe's list */
#define MAX_PATH_BYTES 4096
#define MAX_DEPTH 16         /* folders below the common one */
#define DATASET_MAX_FILES 200000

typedef struct {
  const ls_target_pytorch *t;
  char *files_log;
  guint seen;
} script_diag;

static gboolean
script_run (void *user, const ls_run_config *config, gboolean prepared, ls_run_result *r, GError **error)
{
  script_diag *d = user;
  ls_target_pytorch t = *d->t;
  /* (a) keeps the warm-up's batches and replays them; it also lists the
   * files the fetches open. */
  t.replay = prepared ? MAX (config->warmup, 1u) : 0;
  t.files_log = prepared ? d->files_log : NULL;
  ls_run_config c = *config;
  g_autoptr (JsonObject) target = json_object_new ();
  return ls_target_pytorch_run (&t, &c, r, target, error);
}

static GPtrArray *
script_files (void *user, char *note, size_t note_len)
{
  script_diag *d = user;
  return ls_target_dataset_files (d->files_log, DATASET_MAX_FILES, &d->seen, note, note_len);
}

/* The regular files under dir (depth-first, sorted), at most max; FALSE
 * when there were more. */
static gboolean
walk (const char *dir, int depth, GPtrArray *out, guint max)
{
  ls_dir_entry *entries = NULL;
  size_t n = 0;
  gboolean all = TRUE;
  if (depth > MAX_DEPTH || ls_fs_list_dir (dir, &entries, &n, NULL) != LS_OK)
    return TRUE;
  for (size_t i = 0; i < n && all; i++)
    {
      g_autofree char *path = g_build_filename (dir, entries[i].name, NULL);
      /* What is there itself: a link is not followed out of the folder. */
      ls_fs_kind kind = ls_fs_kind_of_link (path, NULL);
      if (kind == LS_FS_DIR)
        all = walk (path, depth + 1, out, max);
      else if (kind == LS_FS_FILE)
        {
          if (out->len >= max)
            all = FALSE;
          else
            g_ptr_array_add (out, g_steal_pointer (&path));
        }
    }
  ls_fs_entries_free (entries, n);
  return all;
}

/* The deepest folder holding both (a prefix ending at a separator). */
static void
narrow (char *common, const char *dir)
{
  size_t i = 0, last = 0;
  while (common[i] && common[i] == dir[i])
    {
      if (common[i] == G_DIR_SEPARATOR)
        last = i;
      i++;
    }
  if (common[i] == '\0' && (dir[i] == '\0' || dir[i] == G_DIR_SEPARATOR))
    return;
  if (dir[i] == '\0' && common[i] == G_DIR_SEPARATOR)
    {
      common[i] = '\0';
      return;
    }
  common[last ? last : 1] = '\0';
}

GPtrArray *
ls_target_dataset_files (const char *files_log, guint max_files, guint *seen_files, char *note, size_t note_len)
{
  GPtrArray *files = g_ptr_array_new_with_free_func (g_free);
  note[0] = '\0';
  *seen_files = 0;
  char *text = NULL;
  size_t len = 0;
  ls_error err = { 0 };
  if (!files_log
      || ls_fs_read_regular (files_log, LS_FS_READ_NOFOLLOW, (size_t) MAX_LISTED * (MAX_PATH_BYTES + 1), &text, &len,
                             NULL, &err)
             != LS_OK)
    {
      /* untranslated: a note in a fixed-size buffer, which a translation could cut mid-character */
      g_snprintf (note, note_len, "the probe's list of files opened could not be read%s%s", err.message[0] ? ": " : "",
                  err.message);
      return files;
    }
  g_autoptr (GPtrArray) seen = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *common = NULL;
  char *save = NULL;
  for (char *line = strtok_r (text, "\n", &save); line && seen->len < MAX_LISTED; line = strtok_r (NULL, "\n", &save))
    {
      if (strlen (line) > MAX_PATH_BYTES || !g_path_is_absolute (line) || ls_fs_kind_of (line, NULL) != LS_FS_FILE)
        continue;
      g_autofree char *dir = g_path_get_dirname (line);
      if (!common)
        common = g_strdup (dir);
      else
        narrow (common, dir);
      g_ptr_array_add (seen, g_strdup (line));
    }
  free (text);
  *seen_files = seen->len;
  if (seen->len == 0)
    {
      /* untranslated: a note in a fixed-size buffer, which a translation could cut mid-character */
      g_snprintf (note, note_len, "the script's DataLoader opened no file while building its first batches");
      return files;
    }
  /* The folder holding every file seen is the dataset's, unless it is the
   * root or too large to read through: then only the files seen. */
  gboolean whole = strcmp (common, "/") != 0 && g_path_skip_root (common) && *g_path_skip_root (common)
                   && walk (common, 0, files, max_files);
  if (whole && files->len >= seen->len)
    {
      /* untranslated: a note in a fixed-size buffer, which a translation could cut mid-character */
      g_snprintf (note, note_len, "%u files under %s (the folder holding the %u files the script's DataLoader opened "
                  "while building its first batches)", files->len, common, seen->len);
      return files;
    }
  g_ptr_array_set_size (files, 0);
  for (guint i = 0; i < seen->len; i++)
    g_ptr_array_add (files, g_strdup (seen->pdata[i]));
  /* untranslated: a note in a fixed-size buffer, which a translation could cut mid-character */
  g_snprintf (note, note_len, "the %u files the script's DataLoader opened while building its first batches (the "
              "folder holding them all, %s, is %s)", files->len, common,
              /* untranslated: a note in a fixed-size buffer, which a translation could cut mid-character */
              whole ? "smaller than that" : "the root or holds more than the files to read through");
  return files;
}

gboolean
ls_target_pytorch_diagnose (const ls_target_pytorch *t, const ls_run_config *config, ls_diagnose_result *out,
                            GError **error)
{
  g_autofree char *dir = ls_tmp_dir_make ("loadscope-diagnose-", error);
  if (!dir)
    return FALSE;
  script_diag d = { t, g_build_filename (dir, "files-opened", NULL), 0 };
  gboolean ok = g_file_set_contents (d.files_log, "", 0, error);
  if (ok)
    {
      ls_diagnose_target target = { script_run, script_files, &d };
      ok = ls_run_diagnose_target (config, &target, out, error);
      out->script = TRUE;
      out->files_seen = d.seen;
    }
  ls_tmp_dir_remove (dir);
  g_free (d.files_log);
  return ok;
}
