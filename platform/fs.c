#include "fs.h"

#include <stdlib.h>
#include <string.h>

static int
cmp_entries (const void *a, const void *b)
{
  return strcmp (((const ls_dir_entry *) a)->name, ((const ls_dir_entry *) b)->name);
}

/* Shared by both systems' listings: sorts what they collected. */
void ls_fs_sort_entries (ls_dir_entry *entries, size_t count);

void
ls_fs_sort_entries (ls_dir_entry *entries, size_t count)
{
  if (count > 1)
    qsort (entries, count, sizeof *entries, cmp_entries);
}

void
ls_fs_entries_free (ls_dir_entry *entries, size_t count)
{
  for (size_t i = 0; i < count; i++)
    free (entries[i].name);
  free (entries);
}

char *
ls_fs_join (const char *dir, const char *name)
{
#ifdef _WIN32
  const char sep = '\\';
#else
  const char sep = '/';
#endif
  size_t a = strlen (dir), b = strlen (name);
  int need_sep = a > 0 && dir[a - 1] != '/' && dir[a - 1] != sep;
  char *out = malloc (a + (size_t) need_sep + b + 1);
  if (!out)
    return NULL;
  memcpy (out, dir, a);
  if (need_sep)
    out[a++] = sep;
  memcpy (out + a, name, b + 1);
  return out;
}
