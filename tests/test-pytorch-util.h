/* Shared by the tests that run PyTorch scripts (--target pytorch). */
#pragma once

#include <glib.h>

/* An interpreter that imports torch and torchvision: $LS_TEST_PYTHON,
 * Debian's, or the first python3 on PATH; NULL when none does. */
char *ls_test_find_torch_python (void);

/* tests/pytorch/NAME (newly allocated). */
char *ls_test_pytorch_script (const char *name);
