/* What a recorded run may hold where Loadscope's own loader is narrower:
 * a PyTorch script chooses its own knobs (num_workers=64, batch_size=70000
 * run fine under plain python), so the store, the probe's channel
 * (app/target/probe-line.h) and import (app/store/export-format.c) take
 * the same wider ranges, and what is recorded always imports again.
 * `run`'s own options keep the loader's limits (LS_POOL_MAX_WORKERS). */
#pragma once

#define LS_RECORD_MAX_WORKERS 1024
#define LS_RECORD_MAX_BATCH_SIZE (1 << 24) /* samples in one batch */

/* The figures' ranges (import refuses past them; the recorder stores a
 * figure past them as unknown, NULL, and `run` refuses such options). */
#define LS_RECORD_MAX_COUNT 1099511627776.0     /* 2^40 batches or samples */
#define LS_RECORD_MAX_EPOCHS 1000000
#define LS_RECORD_MAX_BYTES 1125899906842624.0  /* 1 PiB: no process measured here is larger */
#define LS_RECORD_MAX_MS 1e10                   /* about 115 days */
#define LS_RECORD_MAX_THROUGHPUT 1e12           /* samples/s */
#define LS_RECORD_MAX_CPU_PERCENT 6553600.0     /* 65536 cores busy */
