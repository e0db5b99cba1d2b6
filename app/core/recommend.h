/* The recommendation of a sweep: the configuration with the best
 * throughput, or, among those within 5 % of it or within the spread of its
 * repeats, the cheapest (fewer workers, then no pinning, then noticeably
 * less memory), with the reason in words and
 * the same configuration as a PyTorch DataLoader call. Repeated runs of a
 * configuration count as one, by their mean; "best" is claimed only when
 * the difference is larger than the spread of the repeats. The one
 * recommendation of `sweep`, `tune`, `demo`, `report` and the workbench, part of their
 * verdict (app/core/verdict.h). */
#pragma once

#include <json-glib/json-glib.h>

typedef struct ls_recommendation {
  int index;        /* into the summaries (the configuration's median run); -1: no finished run */
  char *reason;     /* newly allocated sentence */
  char *dataloader; /* "DataLoader(dataset, batch_size=64, num_workers=2, ...)", NULL when index is -1 */
} ls_recommendation;

#define LS_RECOMMEND_TOLERANCE 0.05

/* The runs of one configuration (same knobs; repeats of a sweep). */
typedef struct ls_config_group {
  GArray *runs;       /* guint: indices into the summaries, in order */
  guint done;         /* finished runs with a throughput */
  double mean, min, max; /* their throughput, samples/s; -1 when none */
  double memory;      /* their mean peak memory (PSS, or private bytes), bytes; -1 when none */
  int representative; /* the finished run with the median throughput; -1 when none */
  char *label;        /* the knobs that differ between the groups ("workers=2 pin=staging"); "" for one group */
} ls_config_group;

/* The configurations of the summaries, in order of first appearance
 * (GPtrArray of ls_config_group, freed with it). Runs are one
 * configuration when workers, start, batch, prefetch, persistence, pin,
 * non-blocking, model step, sink, dataset and sample bytes agree (a
 * summary holds no other knob). */
GPtrArray *ls_config_groups (JsonArray *summaries);

/* TRUE when both ran more than once and their throughput ranges overlap:
 * the difference between them is within the spread of the repeats. */
gboolean ls_config_groups_overlap (const ls_config_group *a, const ls_config_group *b);

/* g is close to best: within 5 % of its mean, or within the spread of
 * their repeats (both finished). */
gboolean ls_config_group_close (const ls_config_group *g, const ls_config_group *best);

/* "1234 samples/s", or "1234 samples/s (mean of 3, 1200–1260)". */
char *ls_config_group_throughput_text (const ls_config_group *g);

ls_recommendation ls_recommend (JsonArray *summaries);
void ls_recommendation_clear (ls_recommendation *r);

/* The knobs of a run summary in words: "2 workers (fork), batch 64,
 * prefetch 2, persistent workers on, pin staging"; with 0 workers neither
 * start method, prefetch nor persistence (they mean nothing there). */
char *ls_recommend_knobs_text (JsonObject *summary);

/* The run summary's knobs as a DataLoader call (what PyTorch accepts:
 * no prefetch_factor or persistent_workers with 0 workers). */
char *ls_recommend_dataloader_text (JsonObject *summary);
