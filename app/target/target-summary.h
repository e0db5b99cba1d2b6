/* What a script's run adds to the run's summary and to its lines in the
 * terminal (app/target/target-pytorch.c and target-pytorch-events.c fill `target`). */
#pragma once

#include <json-glib/json-glib.h>
#include <stdio.h>

/* The target's lines under a run's text summary: the script, versions, the
 * script's step, knobs that did not apply. */
void ls_target_print (FILE *to, JsonObject *target);

/* What the probe cannot see is unknown in the summary, not 0: the bytes
 * of a sample and a batch (the script's tensors are not Loadscope's
 * arena) and the bytes copied to a device (the script's own .to()). The
 * copy per batch and where a batch's build time went are null already
 * (NaN in the batch records). */
void ls_target_summary_unknowns (JsonObject *summary);

/* The script's own process is neither the runner nor a worker: its CPU
 * (target.script_cpu_ms) moves from the summary's machine_busy "other" to
 * "own"; with ranks, so does the ranks' and their workers' CPU
 * (target.node.ranks_cpu_ms, workers_cpu_ms). */
void ls_target_machine_busy (JsonObject *summary, JsonObject *target);
