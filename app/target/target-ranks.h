/* run --target pytorch --ranks N: the script's ranks, started by the probe's
 * launcher as `torchrun --standalone --nproc-per-node N` starts them
 * (data/probe/loadscope_probe/ranks.py), each measured by the probe. Rank
 * 0's batches are the run's timeline; every rank's figures come in one
 * "ranks" event (probe-line.h checks it) and become the summary's
 * target.ranks (one flat object per rank: knobs, waits, step, stages in its
 * DataLoader, threads, CPU) and target.node (the node's throughput, the
 * slowest rank and by how much, processes and threads against cores). */
#pragma once

#include <json-glib/json-glib.h>
#include <stdio.h>

#include "loader/run.h"

/* The probe's configuration for --ranks and --threads (0: not given), and
 * the warm-up its launcher leaves out of each rank's figures (also for
 * ranks the script spawns itself: loadscope_probe/spawned.py). */
void ls_target_ranks_config (JsonBuilder *b, int ranks, int threads, unsigned warmup);

/* --launcher torchrun in the probe's configuration (NULL or "probe": nothing). */
void ls_target_ranks_launcher (JsonBuilder *b, const char *launcher);

/* target.ranks_started and target.threads, when given. */
void ls_target_ranks_describe (JsonObject *target, int ranks, int threads);

/* Keeps a checked "ranks" event in target (ranks, world_size, master_port). */
void ls_target_ranks_take (JsonObject *target, JsonObject *event);

/* target.node from target.ranks, with this machine's logical cores; the
 * run's throughput becomes the node's (the sum of the ranks'). Nothing
 * without target.ranks. */
void ls_target_ranks_node (JsonObject *target, ls_run_result *result);

/* The per-rank and node lines under a run's text summary. */
void ls_target_ranks_print (FILE *to, JsonObject *target);
