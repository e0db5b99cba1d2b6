/* libFuzzer: any bytes as the HDF5 dataset of a run (ls_dataset_open of
 * kind hdf5, then the first rows read). The open is tried by the product
 * in a child process first, so a crash inside libhdf5 must come back as
 * an error naming the file. Rows are read in a forked child, as a worker
 * reads them. Inputs that crashed or hung a child (libhdf5's, ended as the
 * product's errors) are kept in $LS_FUZZ_CHILD_CRASHES (when set) for
 * scripts/fuzz.sh to list. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "fuzz-util.h"
#include "loader/dataset.h"
#include "platform/process.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

#define READ_DEADLINE_MS 2000

/* The first rows, as a worker reads them; 0 when each was a sample or an
 * error with a message. */
static int
read_rows (void *arg)
{
  static float out[3 * 16 * 16];
  ls_dataset *ds = arg;
  uint64_t n = ls_dataset_length (ds);
  for (uint64_t i = 0; i < n && i < 4; i++)
    {
      int32_t label;
      ls_error err = { 0 };
      if (ls_dataset_read (ds, i, 0, out, &label, &err) != LS_OK)
        fuzz_require_message ("ls_dataset_read", err.message);
    }
  return 0;
}

static void
keep_child_crash (const char *what, const uint8_t *data, size_t size)
{
  const char *dir = getenv ("LS_FUZZ_CHILD_CRASHES");
  if (!dir)
    return;
  g_autofree char *sum = g_compute_checksum_for_data (G_CHECKSUM_SHA1, data, size);
  g_autofree char *path = g_strdup_printf ("%s/%s-%s.h5", dir, what, sum);
  g_file_set_contents (path, (const char *) data, (gssize) size, NULL);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  ls_dataset_spec spec = { 0 };
  ls_dataset *ds = NULL;
  ls_error err = { 0 };
  const char *path = fuzz_write_input ("input.h5", data, size);

  snprintf (spec.kind, sizeof spec.kind, "hdf5");
  snprintf (spec.path, sizeof spec.path, "%s", path);
  spec.width = spec.height = 16;
  spec.pixel_limit = 1000 * 1000;
  spec.seed = 1;
  spec.output = LS_OUTPUT_F32_CHW;

  if (ls_dataset_open (&spec, &ds, &err) != LS_OK)
    {
      fuzz_require_message ("ls_dataset_open", err.message);
      if (!strstr (err.message, path))
        {
          fprintf (stderr, "fuzz: the error does not name the file: %s\n", err.message);
          abort ();
        }
      if (strstr (err.message, "crashed libhdf5"))
        keep_child_crash ("open-crash", data, size);
      return 0;
    }
  /* Rows are read in workers, each a process of its own whose crash or
   * hang the pool reports ("timed out after 60 s waiting for batch 0,
   * which worker 0 was building"): so here, in a forked child. */
  ls_process *child = NULL;
  ls_exit_status status = { 0 };
  if (ls_process_fork (read_rows, ds, &child, &err) != LS_OK)
    abort ();
  if (ls_process_wait (child, READ_DEADLINE_MS, &status, &err) == LS_ERR_TIMEOUT)
    keep_child_crash ("child-hang", data, size);
  else if (!(status.kind == LS_EXIT_CODE && status.code == 0))
    keep_child_crash ("child-crash", data, size);
  ls_process_free (child);
  ls_dataset_close (ds);
  return 0;
}
