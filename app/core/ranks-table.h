/* A run's ranks as a table (run --target pytorch --ranks N, or ranks the
 * script spawned itself): one row per rank from its summary's target.ranks,
 * the slowest one marked as the verdict picks it (the highest median batch
 * wait: verdict-ranks.h), and a row of the node's totals from target.node.
 * Typed, so that the window's Results and the report read no summary keys
 * (docs/ranks.md lists them). A pure function of a summary. */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* Absent figures: NAN for measures, -1 for counts. */
typedef struct {
  int rank;              /* 0 … N-1; -1 in the node's row */
  double throughput_sps; /* its measured samples / its window; node: the ranks' sum */
  double wait_ms_p50;    /* its median next() wait; node: NAN */
  double step_ms_p50;    /* its median step (with its wait for the others); node: NAN */
  gint64 workers;        /* its DataLoader's num_workers; node: every rank's */
  gint64 threads;        /* torch.get_num_threads(); node: the ranks' plus one per worker */
  double cpu_ms;         /* its own process's CPU (not its workers'); node: the ranks' sum */
  gboolean slowest;      /* the rank whose loader made its step wait longest */
} ls_rank_row;

typedef struct {
  gint64 run_id;         /* the summary's run_id; 0: none */
  GArray *rows;          /* ls_rank_row, one per rank, in rank order */
  ls_rank_row node;      /* the node's totals */
  int slowest;           /* index into rows; -1: fewer than two ranks with waits */
  double slowest_wait_ms, others_wait_ms; /* its median wait, the others' mean median; NAN without slowest */
  char *slowest_stage;   /* "__getitem__", "collate_fn", …; NULL without slowest */
  gint64 processes;      /* ranks × (1 + workers); -1: unknown */
  gint64 cores;          /* the machine's logical cores when run; -1: unknown */
} ls_ranks_table;

/* The table of summary's ranks, or NULL when it has none (a run of one
 * process, the loader's, or a summary without target.ranks). */
ls_ranks_table *ls_ranks_table_new (JsonObject *summary);
void ls_ranks_table_free (ls_ranks_table *table);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (ls_ranks_table, ls_ranks_table_free)

/* Row i (borrowed). */
const ls_rank_row *ls_ranks_table_row (const ls_ranks_table *table, guint i);
guint ls_ranks_table_n_rows (const ls_ranks_table *table);

G_END_DECLS
