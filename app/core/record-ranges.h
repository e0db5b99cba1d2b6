/* What a recorded run may hold where Loadscope's own loader is narrower:
 * a PyTorch script chooses its own knobs (num_workers=64, batch_size=70000
 * run fine under plain python), so the store, the probe's channel
 * (app/target/probe-line.h) and import (app/store/export-format.c) take
 * the same wider ranges, and what is recorded always imports again.
 * `run`'s own options keep the loader's limits (LS_POOL_MAX_WORKERS). */
#pragma once

#define LS_RECORD_MAX_WORKERS 1024
#define LS_RECORD_MAX_BATCH_SIZE (1 << 24) /* samples in one batch */
