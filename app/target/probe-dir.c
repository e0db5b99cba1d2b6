/* The probe's per-run folder (probe-dir.h): a folder of app/core/tmp-dir. */
#include "app/target/probe-dir.h"

#include "app/core/tmp-dir.h"

gboolean
ls_probe_dir_remove (const char *dir)
{
  return ls_tmp_dir_remove (dir);
}

char *
ls_probe_dir_make (GError **error)
{
  return ls_tmp_dir_make (LS_PROBE_DIR_PREFIX, error);
}
