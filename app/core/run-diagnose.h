/* `run --diagnose`: DS-Analyzer's differential check. The same knobs run
 * three times: (a) with the data already prepared (the consumer fed from
 * a filled arena, no loading: the GPU's own ingestion ceiling), (b) with
 * the dataset's files in the page cache (after a warm pass), (c) with them
 * evicted from it (posix_fadvise DONTNEED per file). The differences
 * separate the GPU's time, the preparation stall (CPU: decode, transform)
 * and the fetch stall (storage). */
#pragma once

#include <json-glib/json-glib.h>
#include <stdio.h>

#include "loader/run.h"

typedef struct ls_diagnose_part {
  gboolean ran;
  ls_run_status status;
  char error[LS_ERROR_MESSAGE_MAX];
  guint64 measured_batches;
  double batch_ms;       /* wall time per measured batch (measured window / batches); < 0: none */
  double throughput_sps; /* < 0: none */
  double wait_mean_ms;   /* < 0: none */
  double gpu_util_exact; /* < 0: none */
  double read_ms;        /* stage means per batch (summed over samples); < 0: none */
  double decode_ms, transform_ms, write_ms;
} ls_diagnose_part;

typedef struct ls_diagnose_result {
  ls_diagnose_part prepared, warm, cold;
  guint files;           /* the dataset's files (0: synthetic) */
  guint evicted;         /* of them, dropped from the page cache before (c) */
  char evict_note[LS_ERROR_MESSAGE_MAX]; /* why not all were, or empty */
  char files_note[LS_ERROR_MESSAGE_MAX]; /* where the files came from, or empty */
  gboolean script;       /* a script's run: (a) replays batches its DataLoader built */
  guint files_seen;      /* a script's: the files its DataLoader opened in (a) */
  /* Per batch, ms; < 0 where a part did not run. */
  double gpu_ms;         /* (a) */
  double prep_stall_ms;  /* (b) - (a), at least 0 */
  double fetch_stall_ms; /* (c) - (b), at least 0 */
} ls_diagnose_result;

/* Runs the three parts one after another with config's knobs (not
 * recorded). FALSE with error when a part could not be set up. */
gboolean ls_run_diagnose (const ls_run_config *config, ls_diagnose_result *out, GError **error);

/* What is diagnosed: Loadscope's loader (ls_run_diagnose) or a script
 * (app/target/target-diagnose.h). */
typedef struct ls_diagnose_target {
  /* One part's run; prepared: (a), the batches already built. FALSE with
   * error when it could not start. */
  gboolean (*run) (void *user, const ls_run_config *config, gboolean prepared, ls_run_result *r, GError **error);
  /* The dataset's files, asked after (a) ran; note (may stay empty): where
   * they came from, or why there are none. */
  GPtrArray *(*files) (void *user, char *note, size_t note_len);
  void *user;
} ls_diagnose_target;

gboolean ls_run_diagnose_target (const ls_run_config *config, const ls_diagnose_target *target,
                                 ls_diagnose_result *out, GError **error);

/* The "diagnose" object of `run --diagnose --json`. */
JsonNode *ls_diagnose_to_json (const ls_diagnose_result *d);

/* The three figures and what they mean, for a terminal. */
void ls_diagnose_print (FILE *to, const ls_run_config *config, const ls_diagnose_result *d);
