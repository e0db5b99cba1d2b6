/* What the GLib test programs share: leak checks around a whole program
 * (a test that leaves a Loadscope segment in /dev/shm, or an open
 * descriptor, fails), the helper child's path, scratch-space cleanup. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib/gstdio.h>

#include "test-util.h"

#ifdef G_OS_WIN32
#include <windows.h>
#endif

const char *
ls_test_helper_path (void)
{
  const char *p = g_getenv ("LS_HELPER_CHILD");
  if (!p)
    g_error ("LS_HELPER_CHILD is not set: run the tests with `meson test`");
  return p;
}

static GPtrArray *
shm_entries (void)
{
  GPtrArray *names = g_ptr_array_new_with_free_func (g_free);
  DIR *d = opendir ("/dev/shm");
  struct dirent *e;

  if (!d)
    return names;
  while ((e = readdir (d)) != NULL)
    if (strstr (e->d_name, "loadscope"))
      g_ptr_array_add (names, g_strdup (e->d_name));
  closedir (d);
  return names;
}

static int
count_fds (void)
{
  int n = 0;
  DIR *d = opendir ("/proc/self/fd");
  struct dirent *e;

  if (!d)
    return -1;
  while ((e = readdir (d)) != NULL)
    if (e->d_name[0] != '.')
      n++;
  closedir (d);
  return n - 1; /* the directory's own descriptor */
}

#ifdef G_OS_WIN32
/* Under Wine, Pango's win32 font map warns (CRITICAL) about each font Wine's
 * DirectWrite cannot describe (pangowin32-fontmap.c then skips the font);
 * g_test_init makes that fatal. It is Wine's, not Loadscope's. */
static gboolean
is_wine_font_warning (const char *domain, const char *message)
{
  return g_strcmp0 (domain, "Pango") == 0 && message && strstr (message, "desc != NULL");
}

static gboolean
wine_font_warning_is_not_fatal (const char *domain, GLogLevelFlags level, const char *message, gpointer data)
{
  return !is_wine_font_warning (domain, message);
}

/* GLib's default handler aborts on a fatal message before the fatal
 * handler is asked, so Pango's criticals get a handler of their own. */
static void
log_pango_critical (const char *domain, GLogLevelFlags level, const char *message, gpointer data)
{
  printf ("# %s%s: %s\n", domain, is_wine_font_warning (domain, message) ? " (Wine's fonts, not fatal)" : "",
          message);
}

static gboolean
under_wine (void)
{
  HMODULE ntdll = GetModuleHandleA ("ntdll.dll");
  return ntdll && GetProcAddress (ntdll, "wine_get_version") != NULL;
}
#endif

void
ls_test_allow_wine_font_warnings (void)
{
#ifdef G_OS_WIN32
  static gboolean handled;
  if (!under_wine ())
    return;
  if (!handled)
    {
      setvbuf (stdout, NULL, _IONBF, 0); /* nothing lost to an abort */
      g_log_set_handler ("Pango", G_LOG_LEVEL_CRITICAL | G_LOG_FLAG_FATAL, log_pango_critical, NULL);
      handled = TRUE;
    }
  /* g_test_run resets this at the start of each test case */
  g_test_log_set_fatal_handler (wine_font_warning_is_not_fatal, NULL);
#endif
}

static int
run_checked (gboolean check_fds)
{
  g_autoptr (GPtrArray) before = shm_entries ();
  int fds_before = count_fds ();
  int rc = g_test_run ();
  g_autoptr (GPtrArray) after = shm_entries ();
  int fds_after = count_fds ();

  for (guint i = 0; i < after->len; i++)
    {
      gboolean known = FALSE;
      for (guint k = 0; k < before->len && !known; k++)
        known = strcmp (after->pdata[i], before->pdata[k]) == 0;
      if (!known)
        {
          printf ("# LEAK: /dev/shm/%s was left behind\n", (char *) after->pdata[i]);
          rc = 1;
        }
    }
  if (check_fds && fds_after > fds_before)
    {
      printf ("# LEAK: %d file descriptors open at the end, %d at the start\n", fds_after, fds_before);
      rc = 1;
    }
  return rc;
}

int
ls_test_run_checked (void)
{
  return run_checked (TRUE);
}

int
ls_test_run_checked_shm_only (void)
{
  return run_checked (FALSE);
}

void
ls_test_remove_tree (const char *path)
{
  GDir *d = g_dir_open (path, 0, NULL);
  if (!d)
    {
      g_unlink (path);
      return;
    }
  for (const char *name; (name = g_dir_read_name (d)) != NULL;)
    {
      g_autofree char *child = g_build_filename (path, name, NULL);
      ls_test_remove_tree (child);
    }
  g_dir_close (d);
  g_rmdir (path);
}

const char *
ls_test_host_name (void)
{
#ifdef G_OS_WIN32
  static char name[256];
  DWORD size = sizeof name;
  if (!name[0] && !GetComputerNameExA (ComputerNameDnsHostname, name, &size))
    name[0] = '\0';
  if (name[0])
    return name;
#endif
  return g_get_host_name ();
}

static char *scratch;

const char *
ls_test_tmp_dir_make (const char *pattern)
{
  g_autoptr (GError) error = NULL;
  g_assert_null (scratch);
  scratch = g_dir_make_tmp (pattern, &error);
  g_assert_no_error (error);
  return scratch;
}

char *
ls_test_tmp_path (const char *name)
{
  g_assert_nonnull (scratch);
  return g_build_filename (scratch, name, NULL);
}

void
ls_test_tmp_dir_remove (void)
{
  if (scratch)
    ls_test_remove_tree (scratch);
  g_clear_pointer (&scratch, g_free);
}
