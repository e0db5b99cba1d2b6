/* The shared arena of one loader: slot_count batch slots in one shared
 * memory block. The consumer writes a batch's sample indices into a slot's
 * header, a worker writes the samples straight into the slot's data, and
 * only the slot number travels through the channel. A slot's data starts
 * on a page boundary, so the whole arena can be pinned for DMA. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "platform/error.h"
#include "platform/shm.h"

#define LS_ARENA_MAGIC 0x314E4552414C534Cull /* "LSARENA1" */

typedef struct ls_slot_meta {
  uint32_t epoch;
  uint32_t count;    /* samples in this batch (the last one may be short) */
  uint64_t batch;    /* batch number within its epoch */
  uint32_t skipped;  /* samples replaced under --on-error skip */
  uint32_t reserved;
} ls_slot_meta;

typedef struct ls_arena {
  ls_shm *shm;
  uint8_t *base;
  uint32_t slot_count;
  uint32_t batch_size;
  size_t sample_bytes;
  size_t meta_bytes;  /* header + indices + labels, rounded up to a page */
  size_t slot_stride; /* meta_bytes + data rounded up to a page */
  /* Where it was made (0 when attached): its pages were populated then,
   * taking populate_ms, and are page_bytes each (ls_shm_page_bytes). */
  double populate_ms;
  size_t page_bytes;
} ls_arena;

/* Creates an arena (and its shared memory) for slot_count slots, and
 * populates its pages at once, so no batch pays for them. */
int ls_arena_create (ls_arena *arena, uint32_t slot_count, uint32_t batch_size, size_t sample_bytes, ls_error *err);

/* The same, shared only with workers forked after it (ls_shm_create_inherited:
 * may get huge pages where memory files do not); a spawned worker cannot
 * map it. */
int ls_arena_create_forked (ls_arena *arena, uint32_t slot_count, uint32_t batch_size, size_t sample_bytes,
                            ls_error *err);

/* The same layout in memory of this process alone (ls_shm_create_private),
 * for loading without workers: its first touch costs fewer page faults. */
int ls_arena_create_local (ls_arena *arena, uint32_t slot_count, uint32_t batch_size, size_t sample_bytes,
                           ls_error *err);

/* Attaches to an arena another process created; takes ownership of shm.
 * The layout is read from the arena's own header and checked. */
int ls_arena_attach (ls_arena *arena, ls_shm *shm, ls_error *err);

/* Bytes the arena needs for this layout (for spawn arguments and reports). */
size_t ls_arena_bytes_for (uint32_t slot_count, uint32_t batch_size, size_t sample_bytes);

static inline size_t
ls_arena_bytes (const ls_arena *arena)
{
  return ls_shm_size (arena->shm);
}

ls_slot_meta *ls_arena_meta (const ls_arena *arena, uint32_t slot);
uint64_t *ls_arena_indices (const ls_arena *arena, uint32_t slot);
int32_t *ls_arena_labels (const ls_arena *arena, uint32_t slot);
uint8_t *ls_arena_data (const ls_arena *arena, uint32_t slot);

/* Populates this process's page-table entries for slots [first, end) (and
 * the header page with slot 0), so writing them takes no page faults. */
int ls_arena_populate_slots (const ls_arena *arena, uint32_t first, uint32_t end, ls_error *err);

void ls_arena_close (ls_arena *arena);
