#include "app/core/i18n.h"

#include <locale.h>
#include <string.h>

#include "app/core/worker-path.h"

/* The first folder that exists: where the catalogues are from any prefix,
 * in the build tree, or where meson installed them. */
static char *
locale_dir (void)
{
  g_autofree char *exe = ls_self_exe_path ();
  g_autofree char *dir = g_path_get_dirname (exe);
  char *installed = g_build_filename (dir, "..", "share", "locale", NULL);
  if (g_file_test (installed, G_FILE_TEST_IS_DIR))
    return installed;
  g_free (installed);
  char *build_tree = g_build_filename (dir, "..", "po", NULL);
  if (g_file_test (build_tree, G_FILE_TEST_IS_DIR))
    return build_tree;
  g_free (build_tree);
  return g_strdup (LS_LOCALEDIR);
}

/* Per thread: the window's threads and the CLI's never share the setting. */
static _Thread_local gboolean english;

gboolean
ls_i18n_set_english (gboolean on)
{
  gboolean was = english;
  english = on;
  return was;
}

const char *
ls_i18n_gettext (const char *msgid)
{
  return english ? msgid : g_dgettext (GETTEXT_PACKAGE, msgid);
}

const char *
ls_i18n_ngettext (const char *one, const char *many, unsigned long n)
{
  if (english)
    return n == 1 ? one : many;
  return g_dngettext (GETTEXT_PACKAGE, one, many, n);
}

gboolean
ls_i18n_machine_output (int argc, char **argv)
{
  for (int i = 1; i < argc; i++)
    if (g_str_has_prefix (argv[i], "--json") || g_str_has_prefix (argv[i], "--events"))
      return TRUE;
  return FALSE;
}

void
ls_i18n_init (gboolean machine_output)
{
  g_autofree char *dir = locale_dir ();

  if (!machine_output)
    setlocale (LC_ALL, "");
  /* printf("%.3f") must print a dot for --json and CSV in every locale. */
  setlocale (LC_NUMERIC, "C");
  bindtextdomain (GETTEXT_PACKAGE, dir);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);
}

gsize
ls_i18n_display_width (const char *utf8)
{
  gsize width = 0;

  g_return_val_if_fail (utf8 != NULL, 0);
  for (const char *p = utf8; *p; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);
      if (g_unichar_iszerowidth (c))
        continue;
      width += g_unichar_iswide (c) ? 2 : 1;
    }
  return width;
}

void
ls_i18n_print_padded (FILE *to, const char *text, gsize width)
{
  g_return_if_fail (to != NULL && text != NULL);
  fputs (text, to);
  for (gsize w = ls_i18n_display_width (text); w < width; w++)
    fputc (' ', to);
}

void
ls_i18n_print_label (FILE *to, const char *indent, const char *label, gsize column)
{
  g_return_if_fail (indent != NULL);
  gsize before = strlen (indent) + 1;
  fputs (indent, to);
  ls_i18n_print_padded (to, label, column > before ? column - before : 0);
  fputc (' ', to);
}
