#include "test-pytorch-util.h"

char *
ls_test_find_torch_python (void)
{
  const char *candidates[] = { g_getenv ("LS_TEST_PYTHON"), "/usr/bin/python3", "python3" };
  for (guint i = 0; i < G_N_ELEMENTS (candidates); i++)
    {
      if (!candidates[i])
        continue;
      const char *argv[] = { candidates[i], "-c", "import torch, torchvision", NULL };
      int status = -1;
      if (g_spawn_sync (NULL, (char **) argv, NULL,
                        G_SPAWN_SEARCH_PATH | G_SPAWN_STDOUT_TO_DEV_NULL | G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL,
                        NULL, NULL, &status, NULL)
          && g_spawn_check_wait_status (status, NULL))
        return g_strdup (candidates[i]);
    }
  return NULL;
}

char *
ls_test_pytorch_script (const char *name)
{
  return g_build_filename (g_getenv ("LS_TEST_DATA"), "..", "pytorch", name, NULL);
}
