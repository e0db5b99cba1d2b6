/* ~/.ssh/config's Host names, read as untrusted input (remote-ssh-config.h). */
#include "app/remote/remote-ssh-config.h"
#include "app/core/i18n.h"

#include <stdio.h>
#include <string.h>

#include <glib/gstdio.h>

#define LINE_MAX_BYTES 4096 /* a longer line is not one ssh's own parser takes either (1024) */

typedef struct {
  char *base;        /* the folder relative Include paths start from */
  GPtrArray *hosts;  /* char * */
  GHashTable *seen;  /* the hosts, once each */
  guint files;       /* files read so far */
} reading;

char *
ls_ssh_config_default_path (void)
{
  return g_build_filename (g_get_home_dir (), ".ssh", "config", NULL);
}

gboolean
ls_ssh_config_host_ok (const char *name)
{
  if (!name || !*name || name[0] == '-' || strlen (name) > LS_SSH_CONFIG_HOST_MAX || !g_utf8_validate (name, -1, NULL))
    return FALSE;
  for (const char *p = name; *p; p++)
    if ((unsigned char) *p <= ' ' || *p == 0x7f || strchr ("*?!\"'\\", *p))
      return FALSE;
  return TRUE;
}

/* The file's bytes, at most LS_SSH_CONFIG_FILE_MAX; NULL and *missing
 * when it is not there. */
static char *
read_capped (const char *path, gsize *len, gboolean *missing, GError **error)
{
  *missing = FALSE;
  if (!g_file_test (path, G_FILE_TEST_EXISTS))
    {
      *missing = TRUE;
      return NULL;
    }
  if (!g_file_test (path, G_FILE_TEST_IS_REGULAR))
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, _("%s: not a regular file"), path);
      return NULL;
    }
  FILE *f = g_fopen (path, "rb");
  if (!f)
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_ACCES, _("%s: cannot be read"), path);
      return NULL;
    }
  char *bytes = g_malloc (LS_SSH_CONFIG_FILE_MAX + 2);
  size_t n = fread (bytes, 1, LS_SSH_CONFIG_FILE_MAX + 1, f);
  gboolean failed = ferror (f) != 0;
  fclose (f);
  if (failed || n > LS_SSH_CONFIG_FILE_MAX)
    {
      g_set_error (error, G_FILE_ERROR, failed ? G_FILE_ERROR_IO : G_FILE_ERROR_FAILED,
                   failed ? _("%s: cannot be read") : _("%s: larger than %d bytes, not read"), path, LS_SSH_CONFIG_FILE_MAX);
      g_free (bytes);
      return NULL;
    }
  bytes[n] = '\0';
  *len = n;
  return bytes;
}

/* The words after a keyword, split as ssh does: spaces, double quotes. */
static GPtrArray *
split_words (const char *s)
{
  GPtrArray *words = g_ptr_array_new_with_free_func (g_free);
  while (*s)
    {
      while (*s == ' ' || *s == '\t')
        s++;
      if (!*s)
        break;
      GString *w = g_string_new (NULL);
      if (*s == '"')
        {
          for (s++; *s && *s != '"'; s++)
            g_string_append_c (w, *s);
          if (*s == '"')
            s++;
        }
      else
        for (; *s && *s != ' ' && *s != '\t'; s++)
          g_string_append_c (w, *s);
      g_ptr_array_add (words, g_string_free (w, FALSE));
    }
  return words;
}

static int
by_name (gconstpointer a, gconstpointer b)
{
  return strcmp (*(char *const *) a, *(char *const *) b);
}

static gboolean read_file (reading *r, const char *path, guint depth, GError **error);

/* An Include word: a path (~/ and relative to base), its last part
 * possibly a pattern. */
static gboolean
include (reading *r, const char *word, guint depth, GError **error)
{
  g_autofree char *path = NULL;
  if (g_str_has_prefix (word, "~/"))
    path = g_build_filename (g_get_home_dir (), word + 2, NULL);
  else if (g_path_is_absolute (word))
    path = g_strdup (word);
  else
    path = g_build_filename (r->base, word, NULL);
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *last = g_path_get_basename (path);
  if (strpbrk (dir, "*?"))
    return TRUE; /* a pattern in a folder's name: not followed */
  if (!strpbrk (last, "*?"))
    return read_file (r, path, depth, error);
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  if (!d)
    return TRUE;
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  const char *name;
  while ((name = g_dir_read_name (d)) && names->len < LS_SSH_CONFIG_FILES_MAX)
    if (g_pattern_match_simple (last, name))
      g_ptr_array_add (names, g_build_filename (dir, name, NULL));
  /* ssh reads a pattern's files in the order glob(3) gives: sorted. */
  g_ptr_array_sort (names, by_name);
  for (guint i = 0; i < names->len; i++)
    if (!read_file (r, names->pdata[i], depth, error))
      return FALSE;
  return TRUE;
}

static void
take_host (reading *r, const char *name)
{
  if (r->hosts->len >= LS_SSH_CONFIG_HOSTS_MAX || !ls_ssh_config_host_ok (name)
      || g_hash_table_contains (r->seen, name))
    return;
  char *copy = g_strdup (name);
  g_ptr_array_add (r->hosts, copy);
  g_hash_table_add (r->seen, copy);
}

static gboolean
read_file (reading *r, const char *path, guint depth, GError **error)
{
  if (depth > LS_SSH_CONFIG_DEPTH_MAX || r->files >= LS_SSH_CONFIG_FILES_MAX)
    return TRUE; /* the rest is not read: the hosts so far are offered */
  gsize len = 0;
  gboolean missing = FALSE;
  g_autofree char *text = read_capped (path, &len, &missing, error);
  if (!text)
    return missing; /* a file that is not there names no host */
  r->files++;
  /* A NUL inside ends its line, not the file. */
  for (gsize i = 0; i < len; i++)
    if (text[i] == '\0')
      text[i] = '\n';
  g_auto (GStrv) lines = g_strsplit_set (text, "\r\n", -1);
  for (guint i = 0; lines[i]; i++)
    {
      const char *s = lines[i];
      if (strlen (s) > LINE_MAX_BYTES || !g_utf8_validate (s, -1, NULL))
        continue;
      while (*s == ' ' || *s == '\t')
        s++;
      if (!*s || *s == '#')
        continue;
      const char *end = s + strcspn (s, " \t=");
      g_autofree char *keyword = g_strndup (s, (gsize) (end - s));
      s = end;
      while (*s == ' ' || *s == '\t')
        s++;
      if (*s == '=')
        s++;
      g_autoptr (GPtrArray) words = split_words (s);
      if (g_ascii_strcasecmp (keyword, "Host") == 0)
        for (guint w = 0; w < words->len; w++)
          take_host (r, words->pdata[w]);
      else if (g_ascii_strcasecmp (keyword, "Include") == 0)
        for (guint w = 0; w < words->len; w++)
          if (!include (r, words->pdata[w], depth + 1, error))
            return FALSE;
    }
  return TRUE;
}

GPtrArray *
ls_ssh_config_hosts (const char *path, GError **error)
{
  g_return_val_if_fail (path != NULL, NULL);
  reading r = { .base = g_path_get_dirname (path),
                .hosts = g_ptr_array_new_with_free_func (g_free),
                .seen = g_hash_table_new (g_str_hash, g_str_equal) };
  gboolean ok = read_file (&r, path, 0, error);
  g_free (r.base);
  g_hash_table_unref (r.seen);
  if (!ok)
    {
      g_ptr_array_unref (r.hosts);
      return NULL;
    }
  return r.hosts;
}
