/* The verdict of a run or a sweep, in words, from its measured figures:
 * the limiting stage (the GPU waits for data, for the copy, or is itself
 * the limit; memory; epoch boundaries), the knob to turn, what this
 * machine allows (cores, memory), why the figures may mislead (too few
 * batches, a busy machine, no spread known), and the answer as PyTorch
 * code. Pure functions of run summaries (the JSON of
 * app/core/run-summary.c, with "machine_busy" and, when present,
 * "stages_ms"); `run`, `sweep`, `demo` and the window's Results page all
 * end with it. For a sweep it includes the recommendation
 * (app/core/recommend.h). Thresholds: docs/measurement.md, "The verdict". */
#pragma once

#include <json-glib/json-glib.h>
#include <stdio.h>

G_BEGIN_DECLS

typedef enum {
  LS_LIMIT_UNKNOWN = 0,   /* cannot tell: no finished run, too few measured batches, no stage stands out */
  LS_LIMIT_LOADING,       /* the consumer waits for batches: workers (CPU, storage) */
  LS_LIMIT_COPY,          /* the host-to-device copy */
  LS_LIMIT_GPU,           /* the model step: the GPU is busy, the loader keeps up */
  LS_LIMIT_MEMORY,        /* the memory the loader would need does not fit */
  LS_LIMIT_EPOCH_BOUNDARY, /* restarting the workers at every epoch */
  LS_LIMIT_STEP            /* a script's own training step: the loader keeps up (--target pytorch) */
} ls_limit;

/* Fewer measured batches (after the warm-up) than this: too few to tell. */
#define LS_VERDICT_MIN_BATCHES 8
/* GPU busy at least this fraction: GPU-bound. */
#define LS_VERDICT_GPU_BOUND 0.90
/* CPU at least this fraction of every core: the cores are all busy. */
#define LS_VERDICT_CPU_SATURATED 0.85
/* Peak memory at least this fraction of RAM: memory-bound. */
#define LS_VERDICT_MEMORY_BOUND 0.80

typedef struct ls_verdict {
  ls_limit limit;
  int index;            /* the summary the verdict is about (a sweep: the recommended run); -1: none */
  char *headline;       /* "GPU idle 83 %: loading-bound (wait 84 ms ≫ copy 1.6 ms)" */
  GPtrArray *findings;  /* char *: further sentences, each with its knob */
  GPtrArray *warnings;  /* char *: why the figures may mislead */
  char *recommendation; /* a sweep: ls_recommend's reason; NULL for one run */
  char *dataloader;     /* the measured (recommended) configuration as PyTorch code; NULL: none */
  char *suggested;      /* the same with the knobs the findings name; NULL when they name none */
  char *gain;           /* a script run: the most a DataLoader knob can give, in words; NULL otherwise */
} ls_verdict;

/* The verdict of one run. cores: the machine's, used when the summary
 * does not say (machine_busy.cores); 0: this machine's. */
void ls_verdict_for_run (JsonObject *summary, int cores, ls_verdict *out);

/* The verdict of a sweep: the recommendation, the verdict of the
 * recommended configuration's run, and what the sweep as a whole shows
 * (memory per worker, the spread of repeats, busy runs). */
void ls_verdict_for_sweep (JsonArray *summaries, int cores, ls_verdict *out);

void ls_verdict_clear (ls_verdict *v);

/* "loading", "copy", "gpu", "memory", "epoch-boundary", "step", "unknown". */
const char *ls_limit_name (ls_limit limit);

/* {"limit", "headline", "findings": [...], "warnings": [...],
 * "recommendation", "pytorch", "pytorch_suggested"} (null where absent). */
JsonNode *ls_verdict_to_json (const ls_verdict *v);

/* For a terminal: "Recommendation: ...\n  DataLoader(...)\n" (a sweep),
 * then "Verdict: <headline>\n", "  - finding", "  ! warning", and the
 * PyTorch lines. */
void ls_verdict_print (FILE *to, const ls_verdict *v);

/* The same as one text for a label (newly allocated). */
char *ls_verdict_text (const ls_verdict *v);

G_END_DECLS
