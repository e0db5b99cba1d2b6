/* Parts of the run loop that are not its interface: for run.c and the
 * tests. */
#pragma once

#include <stdint.h>

#include "loader/run.h"

/* The hash ls_run combines per batch (config->checksum). */
uint64_t ls_batch_hash (const ls_batch *batch);
