/* The Slurm sweeps a store submitted (table slurm_submission, schema 10):
 * what the submitting side knows of each, to check a run folder's manifest
 * (untrusted: it sits on a shared file system) before collect merges it. */
#pragma once

#include <glib.h>

#include "app/store/store.h"

typedef struct {
  char *run_dir;
  char *jobs;   /* "123:0-3 124:4-7": each job id and the task numbers it holds */
  char *labels; /* the configurations' labels (their knobs), one a line */
  gint64 configurations, tasks;
} ls_slurm_submission;

void ls_slurm_submission_clear (ls_slurm_submission *s);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (ls_slurm_submission, ls_slurm_submission_clear)

/* Records the sweep's submission; a sweep already recorded keeps its first
 * row (TRUE). */
gboolean ls_store_slurm_submission_put (ls_store *store, const char *sweep_uuid, const ls_slurm_submission *s,
                                        GError **error);

/* 1 and *out filled when the sweep's submission is recorded, 0 when not,
 * -1 with the error. */
int ls_store_slurm_submission_get (ls_store *store, const char *sweep_uuid, ls_slurm_submission *out,
                                   GError **error);
