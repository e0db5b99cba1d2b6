/* What tune.c shares with tune-ranks.c: the search's state, one
 * measurement, the budgets. Not for other folders. */
#pragma once

#include "app/analysis/tune.h"

G_BEGIN_DECLS

typedef struct ls_tune_search {
  const ls_tune_options *o;
  ls_tune_progress_func progress;
  gpointer user_data;
  ls_tune_result *result;
  char *db;
  gint64 t0;
  GArray *workers, *prefetch;   /* guint candidates */
  GPtrArray *pins;              /* char * */
  GArray *persistent;           /* gboolean */
} ls_tune_search;

/* A progress line. */
void ls_tune_say (ls_tune_search *s, const char *format, ...) G_GNUC_PRINTF (2, 3);

/* Seconds since the search began. */
double ls_tune_elapsed (ls_tune_search *s);

/* pss (bytes; NAN: not known, never over) is over the memory budget. */
gboolean ls_tune_over_budget (const ls_tune_options *o, double pss);

/* Measures one configuration (threads 0: the script's own) through the
 * sweep engine into the search's sweep; the point, kept in the result,
 * or NULL with an error (LS_TUNE_ERROR_CANCELLED when asked to stop). */
ls_tune_point *ls_tune_measure_point (ls_tune_search *s, guint workers, guint prefetch, const char *pin,
                                      gboolean persistent, guint threads, double predicted, GError **error);

/* --ranks N of the request (one value); 0 without. */
guint ls_tune_ranks_of (const ls_sweep_request *base);

/* The node's search for N ranks (tune-ranks.c). */
gboolean ls_tune_ranks_search (ls_tune_search *s, guint ranks, GError **error);

G_END_DECLS
