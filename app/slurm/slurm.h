/* Sweeps as Slurm job arrays: one array task per configuration, each task
 * a `loadscope run` into its own store file in a run folder on the shared
 * file system, merged into the local history afterwards through the
 * checked import path (app/store/import.h), idempotent by uuid.
 *
 * A run folder (RUNDIR) holds:
 *   slurm.json          the manifest: job ids, tasks, their configurations' labels, the sweep's uuid
 *   sweep.sbatch        the job-array script (plain bash; a user may edit and resubmit it)
 *   seed.sqlite         a store holding only the sweep row; each task starts from a copy of it
 *   tasks/task-N.sqlite task N's store (written node-locally, copied here when the run ends)
 *   tasks/task-N.exit   task N's exit status, written by the script
 *   logs/task-N.log     task N's output (Slurm's --output)
 *   states.tsv          the last Slurm states seen (Slurm forgets finished jobs)
 *
 * Any scheduler (a plain loop, a CI matrix) may produce the same folder:
 * run the script with SLURM_ARRAY_TASK_ID set. */
#pragma once

#include <glib.h>
#include <stdio.h>

#include "app/core/sweep-request.h"
#include "app/store/store.h"

G_BEGIN_DECLS

#define LS_SLURM_ERROR (ls_slurm_error_quark ())
GQuark ls_slurm_error_quark (void);

typedef enum {
  LS_SLURM_ERROR_USAGE,   /* a bad option */
  LS_SLURM_ERROR_COMMAND, /* sbatch, squeue, ... missing or failing */
  LS_SLURM_ERROR_RUN_DIR, /* not a run folder, or it cannot be written */
} ls_slurm_error;

/* The options of `loadscope sweep` for Slurm (ls_slurm_option_group). */
typedef struct {
  gboolean slurm;      /* --slurm */
  char *partition;     /* --partition */
  char *time;          /* --time, per task */
  int max_parallel;    /* --max-parallel K (0: Slurm's choice) */
  char **sbatch_args;  /* --sbatch-arg, repeated */
  char *nodes_list;    /* --nodes-list n1,n2: the whole grid on each node */
  gboolean dry_run;    /* print the script, submit nothing */
  char *run_dir;       /* --run-dir */
  char *collect_dir;   /* --slurm-collect RUNDIR */
  gboolean no_wait;    /* --no-wait: submit (or collect) and return */
} ls_slurm_options;

/* The options, for `loadscope sweep --help-slurm`; they fill *o. */
GOptionGroup *ls_slurm_option_group (ls_slurm_options *o);
/* Any Slurm option given (then `loadscope sweep` hands over to ls_slurm_main). */
gboolean ls_slurm_options_active (const ls_slurm_options *o);
void ls_slurm_options_clear (ls_slurm_options *o);

/* `loadscope sweep --slurm ...` (submit, follow, collect) or
 * `--slurm-collect RUNDIR`. db: the local history (NULL: the default).
 * Returns the exit status: 0 every task done and merged, 1 a task failed,
 * was cancelled or never ran (or Ctrl-C), 2 bad usage or input. */
int ls_slurm_main (const ls_sweep_request *request, const ls_slurm_options *o, const char *db);

/* ---- the pieces, for tests and for each other ---- */

/* s quoted for bash: as is when it is made of safe characters only, else
 * in single quotes ('\'' for a quote). Newly allocated. */
char *ls_slurm_quote (const char *s);

typedef struct {
  char *executable;        /* absolute */
  char *run_dir;           /* absolute */
  char *workdir;           /* absolute: where the tasks start */
  char *job_name;
  char *partition, *time;  /* NULL: not given */
  int max_parallel;
  char **sbatch_args;      /* NULL-terminated or NULL */
  guint configurations;    /* C */
  guint tasks;             /* T = C x repeat x nodes; task t runs configuration t % C */
  GPtrArray *args;         /* C entries, each a GPtrArray of char *: the knobs of `loadscope run` */
  GPtrArray *labels;       /* C labels ("workers=2 pin=off") */
  gint64 seed_sweep_id;    /* the sweep's id in seed.sqlite */
} ls_slurm_plan;

void ls_slurm_plan_clear (ls_slurm_plan *plan);

/* The job-array script for the plan. */
char *ls_slurm_script_text (const ls_slurm_plan *plan);

/* The state of one array task, as far as it is known. */
typedef enum {
  LS_TASK_UNKNOWN,   /* Slurm does not know it (any more) and it left no trace */
  LS_TASK_PENDING,
  LS_TASK_RUNNING,
  LS_TASK_DONE,      /* COMPLETED */
  LS_TASK_FAILED,    /* FAILED, NODE_FAIL, OUT_OF_MEMORY, BOOT_FAIL, ... */
  LS_TASK_CANCELLED,
  LS_TASK_TIMEOUT,
} ls_task_state;

typedef struct {
  ls_task_state state;
  char *slurm_state;  /* Slurm's word ("CANCELLED by 0", "COMPLETED"), or a description */
  char *node;         /* where it ran; NULL: not known */
  int exit_code;      /* -1: not known */
} ls_task_info;

const char *ls_task_state_word (ls_task_state state);
gboolean ls_task_state_final (ls_task_state state);

/* Parses `scontrol -o show job` / `squeue -h -r -o '%i|%T|%N'` /
 * `sacct -n -P -X -o JobID,State,ExitCode,NodeList` output into
 * infos[0..n_tasks) (tasks named <job>_<task>, or ranges "<job>_[3-5%2]").
 * Only tasks of job `job_id` are touched. */
void ls_slurm_parse_scontrol (const char *text, const char *job_id, ls_task_info *infos, guint n_tasks);
void ls_slurm_parse_squeue (const char *text, const char *job_id, ls_task_info *infos, guint n_tasks);
void ls_slurm_parse_sacct (const char *text, const char *job_id, ls_task_info *infos, guint n_tasks);
ls_task_state ls_slurm_state_from_word (const char *word);

/* A run folder's manifest and what Slurm says about its tasks. */
typedef struct ls_slurm_run ls_slurm_run;

ls_slurm_run *ls_slurm_run_load (const char *run_dir, GError **error);
void ls_slurm_run_free (ls_slurm_run *run);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (ls_slurm_run, ls_slurm_run_free)
guint ls_slurm_run_n_tasks (const ls_slurm_run *run);
const char *ls_slurm_run_dir (const ls_slurm_run *run);
/* The sweep's uuid (NULL in a manifest without one). */
const char *ls_slurm_run_sweep_uuid (const ls_slurm_run *run);
/* The job ids, space separated ("123 124"). */
char *ls_slurm_run_job_ids (const ls_slurm_run *run);
/* Each job and the task numbers it holds: "123:0-3 124:4-7". */
char *ls_slurm_run_jobs_text (const ls_slurm_run *run);
/* The configurations' labels (their knobs), one a line. */
char *ls_slurm_run_labels_text (const ls_slurm_run *run);
guint ls_slurm_run_n_configurations (const ls_slurm_run *run);

/* The manifest is untrusted (slurm-trust.c). Records what this side
 * submitted for the run's sweep in the store at db (NULL: the default). */
gboolean ls_slurm_record_submission (const ls_slurm_run *run, const char *db, GError **error);
/* Before collect merges anything: a manifest naming a sweep this store
 * recorded a submission of must match it (job ids and their tasks, the
 * configurations' labels, the counts); one naming a sweep of this store
 * with no submission (a sweep run here, or imported) is refused; a sweep
 * this store does not know is recorded as submitted elsewhere (the first
 * collect). FALSE with LS_SLURM_ERROR_RUN_DIR naming slurm.json and why. */
gboolean ls_slurm_check_manifest (ls_store *store, const ls_slurm_run *run, GError **error);

/* Asks Slurm (sacct, else scontrol, else squeue) and the folder (exit
 * files) about every task; remembers what it learnt in states.tsv. */
void ls_slurm_run_refresh (ls_slurm_run *run);
const ls_task_info *ls_slurm_run_task (const ls_slurm_run *run, guint t);
const char *ls_slurm_run_label (const ls_slurm_run *run, guint t);
/* Counts of pending, running, done, failed (failed, cancelled, timed out,
 * unknown): "6 tasks: 1 pending, 2 running, 3 done, 0 failed". */
char *ls_slurm_run_progress_text (const ls_slurm_run *run, guint *n_active);
/* scancel every job of the run. */
gboolean ls_slurm_run_cancel (ls_slurm_run *run, GError **error);

/* Merges the tasks' stores into the store at db (NULL: the default) and
 * writes the report to out: runs imported and already present, then each
 * task that did not end well with its state, node and the tail of its log.
 * The sweep is ended (done, or interrupted when a task was cancelled, timed
 * out or never ran) once no task is pending or running. Returns the exit
 * status (0 all done, 1 a task did not end well or a store could not be
 * merged, 2 the manifest was refused by ls_slurm_check_manifest: nothing is
 * merged). Every store of the folder is imported as the manifest's sweep's
 * alone (ls_import_file_in_sweep). */
int ls_slurm_collect (ls_slurm_run *run, const char *db, FILE *out);

/* Caps on what a run folder may hold (slurm-run.c, slurm-collect.c). */
#define LS_SLURM_MAX_TASKS 100000
#define LS_SLURM_MANIFEST_MAX_BYTES ((gsize) 16 << 20)
#define LS_SLURM_LOG_TAIL_BYTES ((gsize) 64 << 10)
#define LS_SLURM_EXIT_MAX_BYTES 16

/* A file of the run folder read as untrusted input (slurm-folder.c): a
 * regular file only, not through a symbolic link, never blocking, at most
 * max bytes (with tail: its last max bytes; else a longer file is
 * refused). NUL-terminated; NULL with the error naming the file and why,
 * *missing (may be NULL) TRUE when nothing is there. */
char *ls_slurm_folder_read (const char *path, gsize max, gboolean tail, gsize *len, gboolean *missing, GError **error);
/* A regular file is at path itself (not a link, a FIFO, a device). */
gboolean ls_slurm_folder_has_file (const char *path);

/* The text of a task's exit file (`echo $?`: 0 to 255, then a line end)
 * into *code; FALSE for anything else (99999999999999999999, -1, 3x). */
gboolean ls_slurm_exit_status_parse (const char *text, int *code);

/* Runs argv (NULL-terminated), returns its stdout; NULL with the error
 * (naming the command and its stderr) when it cannot start or fails. */
char *ls_slurm_command (const char *const *argv, GError **error);

G_END_DECLS
