/* The recommendation of a sweep: the configuration with the best
 * throughput, or, among those within 5 % of it, the one using the least
 * memory, with the reason in words. Shared by the demo and the workbench. */
#pragma once

#include <json-glib/json-glib.h>

typedef struct ls_recommendation {
  int index;      /* into the summaries; -1: no finished run */
  char *reason;   /* newly allocated sentence */
} ls_recommendation;

#define LS_RECOMMEND_TOLERANCE 0.05

ls_recommendation ls_recommend (JsonArray *summaries);
void ls_recommendation_clear (ls_recommendation *r);
