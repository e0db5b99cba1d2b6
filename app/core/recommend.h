/* The recommendation of a sweep: the configuration with the best
 * throughput, or, among those within 5 % of it, the one using the least
 * memory, with the reason in words and the same configuration as a
 * PyTorch DataLoader call. The one recommendation of `sweep`, `demo` and
 * the workbench. */
#pragma once

#include <json-glib/json-glib.h>
#include <stdio.h>

typedef struct ls_recommendation {
  int index;        /* into the summaries; -1: no finished run */
  char *reason;     /* newly allocated sentence */
  char *dataloader; /* "DataLoader(dataset, batch_size=64, num_workers=2, ...)", NULL when index is -1 */
} ls_recommendation;

#define LS_RECOMMEND_TOLERANCE 0.05

ls_recommendation ls_recommend (JsonArray *summaries);
void ls_recommendation_clear (ls_recommendation *r);

/* The knobs of a run summary in words: "2 workers (fork), batch 64,
 * prefetch 2, persistent workers on, pin staging"; with 0 workers neither
 * start method, prefetch nor persistence (they mean nothing there). */
char *ls_recommend_knobs_text (JsonObject *summary);

/* The run summary's knobs as a DataLoader call (what PyTorch accepts:
 * no prefetch_factor or persistent_workers with 0 workers). */
char *ls_recommend_dataloader_text (JsonObject *summary);

/* "Recommendation: <reason>\n  <DataLoader line>\n" (the second line only
 * when a run finished). */
void ls_recommend_print (FILE *to, JsonArray *summaries);
