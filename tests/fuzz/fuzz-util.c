#include "fuzz-util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>
#include <glib/gstdio.h>

static char *tmp_dir;
static char *path;

static void
remove_tmp_dir (void)
{
  GDir *dir = g_dir_open (tmp_dir, 0, NULL);
  const char *name;
  while (dir && (name = g_dir_read_name (dir)))
    {
      g_autofree char *p = g_build_filename (tmp_dir, name, NULL);
      g_remove (p);
    }
  if (dir)
    g_dir_close (dir);
  g_rmdir (tmp_dir);
}

const char *
fuzz_tmp_dir (void)
{
  if (!tmp_dir)
    {
      g_autoptr (GError) error = NULL;
      tmp_dir = g_dir_make_tmp ("loadscope-fuzz-XXXXXX", &error);
      if (!tmp_dir)
        {
          fprintf (stderr, "fuzz: cannot make a temporary folder: %s\n", error->message);
          abort ();
        }
      atexit (remove_tmp_dir);
    }
  return tmp_dir;
}

const char *
fuzz_write_input (const char *name, const uint8_t *data, size_t len)
{
  g_autoptr (GError) error = NULL;
  g_free (path);
  path = g_build_filename (fuzz_tmp_dir (), name, NULL);
  if (!g_file_set_contents (path, (const char *) data, (gssize) len, &error))
    {
      fprintf (stderr, "fuzz: cannot write %s: %s\n", path, error->message);
      abort ();
    }
  return path;
}

void
fuzz_require_message (const char *what, const char *message)
{
  if (!message || !*message)
    {
      fprintf (stderr, "fuzz: %s failed without saying why\n", what);
      abort ();
    }
}
