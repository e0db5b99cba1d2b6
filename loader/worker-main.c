/* loadscope-worker: a worker started by spawn (the only way on Windows, and
 * --start spawn on Linux). It reopens the dataset from its description,
 * maps the arena from an inherited handle and serves the pool's tasks.
 *
 *   loadscope-worker --index I --channel H --arena H --arena-bytes N
 *                    --parent PID --on-error fail|skip --dataset SPEC
 *
 * It is started by the pool, not by people; its arguments are an internal
 * protocol between the two. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loader/arena.h"
#include "loader/dataset.h"
#include "loader/protocol.h"
#include "loader/worker.h"
#include "platform/channel.h"
#include "platform/process.h"
#include "platform/shm.h"

#ifdef _WIN32
#include <windows.h>
#endif

static const char *
arg_value (int argc, char **argv, const char *name)
{
  for (int i = 1; i + 1 < argc; i++)
    if (strcmp (argv[i], name) == 0)
      return argv[i + 1];
  return NULL;
}

/* Before READY, a failure goes to the pool as FAILED for slot UINT32_MAX,
 * so the run reports why the worker could not start. */
static int
report_start_failure (ls_channel *ch, const ls_error *err)
{
  if (ch)
    {
      ls_msg m = { .type = LS_MSG_FAILED, .slot = UINT32_MAX };
      snprintf (m.text, sizeof m.text, "%s", err->message);
      ls_channel_send (ch, &m, ls_msg_size (&m), NULL);
    }
  fprintf (stderr, "loadscope-worker: %s\n", err->message);
  return 2;
}

int
main (int argc, char **argv)
{
  ls_error err = { 0 };
  ls_handle ch_handle, arena_handle;
  ls_channel *ch = NULL;
  ls_shm *shm = NULL;
  ls_arena arena;
  ls_dataset_spec spec;
  ls_dataset *dataset = NULL;

#ifdef _WIN32
  /* A crashing worker must end, not wait on an error dialog: the pool
   * reports the crash. */
  SetErrorMode (SEM_FAILCRITICALERRORS | SEM_NOGPFAULTERRORBOX | SEM_NOOPENFILEERRORBOX);
#endif
  argv = ls_process_utf8_argv (argc, argv);
  /* Ctrl-C reaches the whole process group: the runner decides. */
  signal (SIGINT, SIG_IGN);
  const char *index = arg_value (argc, argv, "--index");
  const char *channel = arg_value (argc, argv, "--channel");
  const char *arena_text = arg_value (argc, argv, "--arena");
  const char *bytes = arg_value (argc, argv, "--arena-bytes");
  const char *parent = arg_value (argc, argv, "--parent");
  const char *on_error = arg_value (argc, argv, "--on-error");
  const char *spec_text = arg_value (argc, argv, "--dataset");

  if (!index || !channel || !arena_text || !bytes || !parent || !on_error || !spec_text
      || ls_handle_parse (channel, &ch_handle) != 0 || ls_handle_parse (arena_text, &arena_handle) != 0)
    {
      fprintf (stderr, "loadscope-worker: started with bad arguments; it is started by loadscope, not by hand\n");
      return 2;
    }
  if (ls_process_die_with_parent ((ls_pid) strtoul (parent, NULL, 10), &err) != LS_OK)
    return report_start_failure (NULL, &err);
  if (ls_channel_from_handle (ch_handle, &ch, &err) != LS_OK)
    return report_start_failure (NULL, &err);
  if (ls_shm_open_handle (arena_handle, (size_t) strtoull (bytes, NULL, 10), &shm, &err) != LS_OK
      || ls_arena_attach (&arena, shm, &err) != LS_OK)
    return report_start_failure (ch, &err);
  if (ls_dataset_spec_parse (spec_text, &spec, &err) != LS_OK || ls_dataset_open (&spec, &dataset, &err) != LS_OK)
    return report_start_failure (ch, &err);
  if (ls_dataset_sample_bytes (dataset) != arena.sample_bytes)
    {
      ls_error_set (&err, LS_ERR_INVALID, "the dataset's samples are %zu bytes but the arena's slots hold %zu",
                    ls_dataset_sample_bytes (dataset), arena.sample_bytes);
      return report_start_failure (ch, &err);
    }

  ls_worker w = { .index = (uint32_t) atoi (index), .dataset = dataset, .arena = &arena, .channel = ch,
                  .skip_bad_samples = strcmp (on_error, "skip") == 0 };
  int rc = ls_worker_serve (&w);

  ls_dataset_close (dataset);
  ls_arena_close (&arena);
  ls_channel_close (ch);
  return rc;
}
