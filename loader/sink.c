#include "loader/sink-private.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void
ls_sink_config_init (ls_sink_config *c)
{
  memset (c, 0, sizeof *c);
  c->kind = LS_SINK_AUTO;
  c->pin = LS_PIN_OFF;
  c->non_blocking = false;
  c->model_ms = 10.0;
}

const char *
ls_pin_mode_name (ls_pin_mode pin)
{
  switch (pin)
    {
    case LS_PIN_OFF: return "off";
    case LS_PIN_STAGING: return "staging";
    case LS_PIN_ARENA: return "arena";
    default: return "?";
    }
}

int
ls_sink_cuda_open (const ls_sink_config *config, const ls_arena *arena, ls_sink **out, ls_error *err)
{
#ifdef LS_HAVE_CUDA_RUNTIME
  /* The device check runs both at the same knobs (tests/device/check.sh). */
  const char *api = getenv ("LOADSCOPE_CUDA_API");
  if (api && strcmp (api, "runtime") == 0)
    return ls_sink_cuda_runtime_open (config, arena, out, err);
#endif
#ifdef LS_HAVE_CUDA
  return ls_sink_cuda_driver_open (config, arena, out, err);
#else
  (void) config;
  (void) arena;
  *out = NULL;
  return ls_error_set (err, LS_ERR_UNSUPPORTED, "this build has no CUDA sink (it was built with -Dcuda=disabled)");
#endif
}

int
ls_sink_open (const ls_sink_config *config, const ls_arena *arena, ls_sink **out, char *note, size_t note_len,
              ls_error *err)
{
  ls_error cuda_err = { 0 };

  *out = NULL;
  if (note && note_len)
    note[0] = '\0';
  if (config->model_ms < 0 || config->model_ms > 60000)
    return ls_error_set (err, LS_ERR_INVALID, "--model-ms %g: must be between 0 and 60000", config->model_ms);
  switch (config->kind)
    {
    case LS_SINK_NONE:
      return ls_sink_none_open (config, out, err);
    case LS_SINK_SIM:
      return ls_sink_sim_open (config, arena, out, err);
    case LS_SINK_CUDA:
      return ls_sink_cuda_open (config, arena, out, err);
    case LS_SINK_AUTO:
      if (ls_sink_cuda_open (config, arena, out, &cuda_err) == LS_OK)
        return LS_OK;
      if (note && note_len)
        snprintf (note, note_len, "%s; using the simulated GPU sink", cuda_err.message);
      return ls_sink_sim_open (config, arena, out, err);
    default:
      return ls_error_set (err, LS_ERR_INVALID, "unknown sink kind %d", (int) config->kind);
    }
}

int
ls_sink_submit (ls_sink *s, const ls_batch *b, uint32_t *release, size_t *n_release, ls_error *err)
{
  *n_release = 0;
  return s->ops->submit (s, b, release, n_release, err);
}

int
ls_sink_drain (ls_sink *s, uint32_t *release, size_t *n_release, ls_error *err)
{
  *n_release = 0;
  return s->ops->drain (s, release, n_release, err);
}

void
ls_sink_add_timing (ls_sink *s, const ls_sink_timing *t)
{
  if (s->n_timings == s->cap_timings)
    {
      size_t cap = s->cap_timings ? s->cap_timings * 2 : 64;
      ls_sink_timing *grown = realloc (s->timings, cap * sizeof *grown);
      if (!grown)
        return; /* a lost timing shows as a batch without copy/compute figures */
      s->timings = grown;
      s->cap_timings = cap;
    }
  s->timings[s->n_timings++] = *t;
}

size_t
ls_sink_take_timings (ls_sink *s, ls_sink_timing *out, size_t cap)
{
  size_t n = s->n_timings < cap ? s->n_timings : cap;
  if (n == 0)
    return 0;
  memcpy (out, s->timings, n * sizeof *out);
  memmove (s->timings, s->timings + n, (s->n_timings - n) * sizeof *out);
  s->n_timings -= n;
  return n;
}

const char *
ls_sink_name (const ls_sink *s)
{
  return s->kind == LS_SINK_CUDA ? "cuda" : s->kind == LS_SINK_SIM ? "sim" : "none";
}

bool
ls_sink_simulated (const ls_sink *s)
{
  return s->kind == LS_SINK_SIM;
}

ls_sink_kind
ls_sink_kind_of (const ls_sink *s)
{
  return s->kind;
}

uint64_t
ls_sink_host_bytes_copied (const ls_sink *s)
{
  return s->host_bytes_copied;
}

const char *
ls_sink_device_name (const ls_sink *s)
{
  return s->device_name;
}

const char *
ls_sink_pci_bus_id (const ls_sink *s)
{
  return s->pci_bus_id;
}

int
ls_sink_cuda_driver_version (const ls_sink *s)
{
  return s->driver_version;
}

const char *
ls_sink_cuda_driver_library (const ls_sink *s)
{
  return s->driver_library;
}

void
ls_sink_close (ls_sink *s)
{
  if (!s)
    return;
  free (s->timings);
  s->timings = NULL;
  s->ops->close (s);
}
