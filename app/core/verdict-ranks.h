/* The verdict of a run with ranks (run --target pytorch --ranks N): DDP
 * waits for the slowest rank at every step, so the node is judged by that
 * rank's wait and step (the others' steps hold their wait for it in the
 * gradient allreduce), each rank gets its share of the node's cores, and
 * the advice is per rank and per node. Pure functions of a run summary's
 * target.ranks and target.node (app/target/target-ranks.h writes them). */
#pragma once

#include <json-glib/json-glib.h>

#include "app/core/verdict.h"

/* The ranks of a run; 0 without target.ranks. */
int ls_verdict_ranks_count (JsonObject *summary);

/* In target.ranks: the rank whose loader made its step wait longest (the
 * highest median wait, wait_ms_p50: one long stall does not move it), and
 * the mean of the others' medians; -1 without two ranks that have waits. */
int ls_verdict_ranks_slowest (JsonArray *ranks, double *its_wait, double *others_wait);

/* The stage of a rank's DataLoader that took the most of its batch
 * ("__getitem__", "collate_fn", ...; "loader" when none was seen). */
const char *ls_verdict_ranks_stage (JsonObject *rank);

/* Each rank's share of the node's cores (at least 1); cores unchanged
 * without ranks. */
int ls_verdict_ranks_share (JsonObject *summary, int cores);

/* With two ranks or more, *wait and *step become the slowest rank's p50s
 * (the one that waits most for its loader); FALSE and unchanged otherwise. */
gboolean ls_verdict_ranks_view (JsonObject *summary, double *wait, double *step);

/* "rank 1's __getitem__: the other rank waits for it in its step (its
 * median batch wait 71.2 ms against 7.1 ms)", or NULL when no rank limits the
 * others (one rank, or waits within 20 % and 0.5 ms of each other). */
char *ls_verdict_ranks_limiting (JsonObject *summary);

/* "num_workers=3 per rank x 8 ranks = 24 workers + 8 ranks = 32 processes
 * on 32 cores, OMP_NUM_THREADS=1 per rank", with what it costs where the
 * processes are more than the cores. */
char *ls_verdict_ranks_budget (int ranks, int workers, int cores);

/* The limiting rank first in the headline; *workers (the findings'
 * num_workers, -1: none) kept within the rank's share of the cores, and the
 * node's budget as a finding. node_cores: the whole node's. Nothing
 * without ranks. */
void ls_verdict_ranks_findings (JsonObject *summary, int node_cores, ls_verdict *v, gint64 *workers);
