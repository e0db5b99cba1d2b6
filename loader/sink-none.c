/* The none sink: the consumer takes each batch and hands it straight back,
 * so a run measures the loader alone. */
#include <stdlib.h>
#include <string.h>

#include "loader/sink-private.h"

static int
none_submit (ls_sink *s, const ls_batch *b, uint32_t *release, size_t *n_release, ls_error *err)
{
  (void) err;
  s->next_seq++;
  release[(*n_release)++] = b->slot;
  return LS_OK;
}

static int
none_drain (ls_sink *s, uint32_t *release, size_t *n_release, ls_error *err)
{
  (void) s;
  (void) release;
  (void) n_release;
  (void) err;
  return LS_OK;
}

static void
none_close (ls_sink *s)
{
  free (s);
}

static const ls_sink_ops none_ops = { none_submit, none_drain, none_close };

int
ls_sink_none_open (const ls_sink_config *config, ls_sink **out, ls_error *err)
{
  ls_sink *s = calloc (1, sizeof *s);
  if (!s)
    return ls_error_set (err, LS_ERR_NOMEM, "out of memory");
  s->ops = &none_ops;
  s->kind = LS_SINK_NONE;
  s->config = *config;
  strcpy (s->device_name, "none");
  *out = s;
  return LS_OK;
}
