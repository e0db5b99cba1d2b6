/* A runner on a target ends its run when its input ends: the transport
 * (ssh, docker exec -i) closes it when the connection drops or the local
 * side ends, and nothing else would tell the runner, whose output may
 * still be open for a while. */
#include "app/remote/remote.h"

#include "platform/pipe.h"
#include "platform/process.h"

static gpointer
watch (gpointer data)
{
  char buf[256];
  ls_error err = { 0 };
  ls_handle in = ls_pipe_stdin ();
  int64_t n;
  /* Read with the platform's pipe read, never stdio (see ls_pipe_stdin). */
  do
    n = in == LS_HANDLE_INVALID ? 0 : ls_pipe_read (in, buf, sizeof buf, 1000, &err);
  while (n > 0 || n == LS_ERR_TIMEOUT);
  /* As Ctrl-C: the run ends as interrupted, recorded with its figures. */
  ls_process_interrupt (ls_process_self_pid (), &err);
  return NULL;
}

void
ls_remote_stop_on_stdin_eof (void)
{
  g_thread_unref (g_thread_new ("stdin-eof", watch, NULL));
}
