/* The window's check of a script target (app/target/target-check.h) with
 * the machine's python3, torch or not: a file that is not Python is
 * refused with the compiler's reason, the interpreter is named with the
 * path it was found at, and a missing interpreter is named. */
#include <glib/gstdio.h>
#include <string.h>

#include "app/target/target-check.h"
#include "test-util.h"

static char *scratch;

static void
test_not_python (void)
{
  g_autofree char *python = g_find_program_in_path ("python3");
  if (!python)
    {
      g_test_skip ("no python3 on PATH");
      return;
    }
  g_autofree char *text = g_build_filename (scratch, "notes.txt", NULL);
  g_assert_true (g_file_set_contents (text, "These are notes, <not> a script & never were.\n", -1, NULL));
  g_autoptr (GError) error = NULL;
  g_autofree char *description = NULL;
  g_assert_false (ls_target_pytorch_check (text, "python3", &description, NULL, &error));
  g_test_message ("%s", error->message);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
  g_assert_nonnull (strstr (error->message, "notes.txt is not a Python script"));
  g_assert_nonnull (strstr (error->message, python)); /* the interpreter as found */
  g_assert_nonnull (strstr (error->message, "SyntaxError"));
}

static void
test_names_the_interpreter (void)
{
  g_autofree char *python = g_find_program_in_path ("python3");
  if (!python)
    {
      g_test_skip ("no python3 on PATH");
      return;
    }
  g_autofree char *script = g_build_filename (scratch, "train.py", NULL);
  g_assert_true (g_file_set_contents (script, "print('training')\n", -1, NULL));
  g_autoptr (GError) error = NULL;
  g_autofree char *description = NULL;
  /* With torch: the description names the path; without: the error does. */
  gboolean ok = ls_target_pytorch_check (script, "python3", &description, NULL, &error);
  const char *said = ok ? description : error->message;
  g_test_message ("%s", said);
  g_assert_nonnull (strstr (said, python));
  if (!ok)
    g_assert_nonnull (strstr (said, "cannot import torch"));
}

static void
test_missing_interpreter (void)
{
  g_autofree char *script = g_build_filename (scratch, "train.py", NULL);
  g_assert_true (g_file_set_contents (script, "print('training')\n", -1, NULL));
  g_autoptr (GError) error = NULL;
  g_assert_false (ls_target_pytorch_check (script, "no-such-python-3.99", NULL, NULL, &error));
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, "Python interpreter no-such-python-3.99"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  scratch = g_dir_make_tmp ("ls-target-check-XXXXXX", NULL);
  g_test_add_func ("/target/check/not-python", test_not_python);
  g_test_add_func ("/target/check/names-the-interpreter", test_names_the_interpreter);
  g_test_add_func ("/target/check/missing-interpreter", test_missing_interpreter);
  int rc = g_test_run ();
  ls_test_remove_tree (scratch);
  g_free (scratch);
  return rc;
}
