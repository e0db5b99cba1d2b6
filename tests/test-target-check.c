/* The window's check of a script target (app/target/target-check.h) with
 * the machine's python3, torch or not: a file that is not Python is
 * refused with the compiler's reason, the interpreter is named with the
 * path it was found at, and a missing interpreter is named. With none
 * given, stand-in interpreters on a PATH of the test's own: the first that
 * imports torch is chosen, or each one tried is listed. */
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
  g_assert_false (ls_target_pytorch_check (text, "python3", &description, NULL, NULL, NULL, &error));
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
  gboolean ok = ls_target_pytorch_check (script, "python3", &description, NULL, NULL, NULL, &error);
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
  g_assert_false (ls_target_pytorch_check (script, "no-such-python-3.99", NULL, NULL, NULL, NULL, &error));
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, "Python interpreter no-such-python-3.99"));
}

/* A stand-in interpreter in dir: it compiles anything, and imports torch
 * (printing versions) or fails as Python does without it. */
static void
write_python (const char *dir, const char *name, gboolean has_torch)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autofree char *text = g_strdup_printf ("#!/bin/sh\n"
                                           "case \"$2\" in\n"
                                           "  *'import torch'*) %s ;;\n"
                                           "  *) exit 0 ;;\n"
                                           "esac\n",
                                           has_torch ? "echo 1.13.1 3.11.2 0"
                                                     : "echo \"ModuleNotFoundError: No module named 'torch'\" >&2; exit 1");
  g_assert_true (g_file_set_contents (path, text, -1, NULL));
  g_assert_cmpint (g_chmod (path, 0755), ==, 0);
}

/* No interpreter given: the first on PATH that imports torch is used and
 * named; none that does: each one tried is listed with its reason. */
static void
test_finds_python_with_torch (void)
{
  g_autofree char *dir = g_build_filename (scratch, "bin", NULL);
  g_assert_cmpint (g_mkdir_with_parents (dir, 0700), ==, 0);
  g_autofree char *script = g_build_filename (scratch, "train.py", NULL);
  g_assert_true (g_file_set_contents (script, "print('training')\n", -1, NULL));
  g_autofree char *old_path = g_strdup (g_getenv ("PATH"));
  g_setenv ("PATH", dir, TRUE);
  g_unsetenv ("VIRTUAL_ENV");
  g_unsetenv ("CONDA_PREFIX");

  write_python (dir, "python3", FALSE);
  write_python (dir, "python3.11", TRUE);
  g_autoptr (GError) error = NULL;
  g_autofree char *description = NULL, *chosen = NULL;
  gboolean cuda = TRUE;
  g_assert_true (ls_target_pytorch_check (script, "", &description, &chosen, &cuda, NULL, &error));
  g_assert_no_error (error);
  g_autofree char *want = g_build_filename (dir, "python3.11", NULL);
  g_assert_cmpstr (chosen, ==, want);
  g_assert_nonnull (strstr (description, want));
  g_assert_nonnull (strstr (description, "torch 1.13.1, CPU only"));
  g_assert_false (cuda); /* the stand-in says 0 */
  g_assert_nonnull (strstr (description, "the first on PATH that imports torch"));

  /* One whose torch.cuda answers: said, and told to the caller. */
  g_autofree char *with_cuda = g_build_filename (dir, "python3.11", NULL);
  g_assert_true (g_file_set_contents (with_cuda, "#!/bin/sh\necho 2.1.2 3.11.2 1\n", -1, NULL));
  g_assert_cmpint (g_chmod (with_cuda, 0755), ==, 0);
  g_autofree char *said = NULL;
  g_assert_true (ls_target_pytorch_check (script, with_cuda, &said, NULL, &cuda, NULL, &error));
  g_assert_true (cuda);
  g_assert_nonnull (strstr (said, "torch 2.1.2 with CUDA"));

  write_python (dir, "python3.11", FALSE);
  g_autofree char *none = ls_target_find_python (NULL, &error);
  g_assert_null (none);
  g_assert_nonnull (error);
  g_test_message ("%s", error->message);
  g_autofree char *first = g_build_filename (dir, "python3", NULL);
  g_assert_nonnull (strstr (error->message, "no Python interpreter on PATH imports torch"));
  g_assert_nonnull (strstr (error->message, first));
  g_assert_nonnull (strstr (error->message, want));
  g_assert_nonnull (strstr (error->message, "No module named 'torch'"));
  g_setenv ("PATH", old_path, TRUE);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  scratch = g_dir_make_tmp ("ls-target-check-XXXXXX", NULL);
  g_test_add_func ("/target/check/not-python", test_not_python);
  g_test_add_func ("/target/check/names-the-interpreter", test_names_the_interpreter);
  g_test_add_func ("/target/check/missing-interpreter", test_missing_interpreter);
  g_test_add_func ("/target/check/finds-python-with-torch", test_finds_python_with_torch);
  int rc = g_test_run ();
  ls_test_remove_tree (scratch);
  g_free (scratch);
  return rc;
}
