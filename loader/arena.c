#include "loader/arena.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "platform/clock.h"
#include "platform/sysinfo.h"

#define PAGE 4096u

typedef struct {
  uint64_t magic;
  uint32_t slot_count;
  uint32_t batch_size;
  uint64_t sample_bytes;
} arena_header;

static size_t
round_page (size_t n)
{
  return (n + PAGE - 1) / PAGE * PAGE;
}

static size_t
meta_bytes_for (uint32_t batch_size)
{
  return round_page (sizeof (ls_slot_meta) + (size_t) batch_size * (sizeof (uint64_t) + sizeof (int32_t)));
}

static size_t
stride_for (uint32_t batch_size, size_t sample_bytes)
{
  return meta_bytes_for (batch_size) + round_page ((size_t) batch_size * sample_bytes);
}

size_t
ls_arena_bytes_for (uint32_t slot_count, uint32_t batch_size, size_t sample_bytes)
{
  /* The first page holds the arena header. */
  return PAGE + (size_t) slot_count * stride_for (batch_size, sample_bytes);
}

static void
set_layout (ls_arena *arena, uint32_t slot_count, uint32_t batch_size, size_t sample_bytes)
{
  arena->base = ls_shm_data (arena->shm);
  arena->slot_count = slot_count;
  arena->batch_size = batch_size;
  arena->sample_bytes = sample_bytes;
  arena->meta_bytes = meta_bytes_for (batch_size);
  arena->slot_stride = stride_for (batch_size, sample_bytes);
}

/* Shared memory is handed out lazily: an arena far larger than the
 * machine maps fine and exhausts it only once the first epoch fills its
 * slots (--batch-size 65536: 75-150 GiB). An arena may take at
 * most this share of physical memory; the rest is the processes' own. */
#define ARENA_RAM_SHARE 0.75

static int
check_fits_memory (uint32_t slot_count, uint32_t batch_size, size_t sample_bytes, ls_error *err)
{
  ls_sysinfo info;
  if (ls_sysinfo_read (&info, NULL) != LS_OK || info.total_ram_bytes == 0)
    return LS_OK; /* cannot tell: the OS decides */
  double limit = (double) info.total_ram_bytes * ARENA_RAM_SHARE;
  double bytes = (double) ls_arena_bytes_for (slot_count, batch_size, sample_bytes);
  if (bytes <= limit)
    return LS_OK;
  /* The largest batch size whose arena fits, the slots as they are. */
  uint32_t lo = 0, hi = batch_size;
  while (lo < hi)
    {
      uint32_t mid = lo + (hi - lo + 1) / 2;
      if ((double) ls_arena_bytes_for (slot_count, mid, sample_bytes) <= limit)
        lo = mid;
      else
        hi = mid - 1;
    }
  char hint[160];
  if (lo > 0)
    snprintf (hint, sizeof hint, "--batch-size %u or less would fit (or fewer slots: fewer --workers or a lower --prefetch)",
              lo);
  else
    snprintf (hint, sizeof hint, "not even one sample per slot fits: use smaller samples or fewer slots");
  return ls_error_set (err, LS_ERR_INVALID,
                       "the shared arena would take %.1f GiB (%u batch slots of %u samples x %zu bytes), more than "
                       "%.0f %% of this machine's %.1f GiB of memory; %s",
                       bytes / (1024.0 * 1024 * 1024), slot_count, batch_size, sample_bytes, ARENA_RAM_SHARE * 100,
                       (double) info.total_ram_bytes / (1024.0 * 1024 * 1024), hint);
}

typedef enum { ARENA_SHARED, ARENA_FORKED, ARENA_LOCAL } arena_kind;

static int
arena_create (ls_arena *arena, uint32_t slot_count, uint32_t batch_size, size_t sample_bytes, arena_kind kind,
              ls_error *err)
{
  memset (arena, 0, sizeof *arena);
  if (slot_count == 0 || batch_size == 0 || sample_bytes == 0)
    return ls_error_set (err, LS_ERR_INVALID, "arena: %u slots of %u samples of %zu bytes is empty", slot_count,
                         batch_size, sample_bytes);
  /* Refuse sizes whose product overflows before asking the OS. */
  if (sample_bytes > SIZE_MAX / batch_size / slot_count / 2)
    return ls_error_set (err, LS_ERR_INVALID, "arena: %u slots x %u samples x %zu bytes is too large", slot_count,
                         batch_size, sample_bytes);
  if (check_fits_memory (slot_count, batch_size, sample_bytes, err) != LS_OK)
    return err ? err->code : LS_ERR_INVALID;
  size_t bytes = ls_arena_bytes_for (slot_count, batch_size, sample_bytes);
  int rc = kind == ARENA_LOCAL    ? ls_shm_create_private (bytes, &arena->shm, err)
           : kind == ARENA_FORKED ? ls_shm_create_inherited (bytes, &arena->shm, err)
                                  : ls_shm_create (bytes, &arena->shm, err);
  if (rc != LS_OK)
    {
      ls_error_prefix (err, "arena of %zu MiB (%u batch slots)", bytes >> 20, slot_count);
      return err ? err->code : LS_ERR_OS;
    }
  set_layout (arena, slot_count, batch_size, sample_bytes);
  arena_header *h = (arena_header *) arena->base;
  h->magic = LS_ARENA_MAGIC;
  h->slot_count = slot_count;
  h->batch_size = batch_size;
  h->sample_bytes = sample_bytes;
  /* Every page now, once, rather than a fault per page in the first
   * batches (the memory is taken anyway as the slots fill). */
  uint64_t t0 = ls_clock_ns ();
  ls_shm_populate (arena->shm, NULL);
  arena->populate_ms = (double) (ls_clock_ns () - t0) / 1e6;
  arena->page_bytes = ls_shm_page_bytes (arena->shm);
  return LS_OK;
}

int
ls_arena_create (ls_arena *arena, uint32_t slot_count, uint32_t batch_size, size_t sample_bytes, ls_error *err)
{
  return arena_create (arena, slot_count, batch_size, sample_bytes, ARENA_SHARED, err);
}

int
ls_arena_create_forked (ls_arena *arena, uint32_t slot_count, uint32_t batch_size, size_t sample_bytes,
                        ls_error *err)
{
  return arena_create (arena, slot_count, batch_size, sample_bytes, ARENA_FORKED, err);
}

int
ls_arena_create_local (ls_arena *arena, uint32_t slot_count, uint32_t batch_size, size_t sample_bytes,
                       ls_error *err)
{
  return arena_create (arena, slot_count, batch_size, sample_bytes, ARENA_LOCAL, err);
}

int
ls_arena_attach (ls_arena *arena, ls_shm *shm, ls_error *err)
{
  const arena_header *h = ls_shm_data (shm);

  memset (arena, 0, sizeof *arena);
  if (ls_shm_size (shm) < PAGE || h->magic != LS_ARENA_MAGIC)
    {
      ls_shm_close (shm);
      return ls_error_set (err, LS_ERR_INVALID, "arena: the shared memory holds no Loadscope arena");
    }
  if (ls_arena_bytes_for (h->slot_count, h->batch_size, h->sample_bytes) > ls_shm_size (shm))
    {
      ls_shm_close (shm);
      return ls_error_set (err, LS_ERR_INVALID, "arena: its header describes more than its %zu bytes", ls_shm_size (shm));
    }
  arena->shm = shm;
  set_layout (arena, h->slot_count, h->batch_size, h->sample_bytes);
  return LS_OK;
}

ls_slot_meta *
ls_arena_meta (const ls_arena *arena, uint32_t slot)
{
  return (ls_slot_meta *) (arena->base + PAGE + (size_t) slot * arena->slot_stride);
}

uint64_t *
ls_arena_indices (const ls_arena *arena, uint32_t slot)
{
  return (uint64_t *) (ls_arena_meta (arena, slot) + 1);
}

int32_t *
ls_arena_labels (const ls_arena *arena, uint32_t slot)
{
  return (int32_t *) (ls_arena_indices (arena, slot) + arena->batch_size);
}

uint8_t *
ls_arena_data (const ls_arena *arena, uint32_t slot)
{
  return (uint8_t *) ls_arena_meta (arena, slot) + arena->meta_bytes;
}

int
ls_arena_populate_slots (const ls_arena *arena, uint32_t first, uint32_t end, ls_error *err)
{
  if (end > arena->slot_count)
    end = arena->slot_count;
  if (first >= end)
    return LS_OK;
  size_t from = first == 0 ? 0 : PAGE + (size_t) first * arena->slot_stride;
  size_t to = PAGE + (size_t) end * arena->slot_stride;
  return ls_shm_populate_range (arena->shm, from, to - from, err);
}

void
ls_arena_close (ls_arena *arena)
{
  ls_shm_close (arena->shm);
  memset (arena, 0, sizeof *arena);
}
