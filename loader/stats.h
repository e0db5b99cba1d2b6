/* Percentile summaries of per-batch timings. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

typedef struct ls_dist {
  bool valid; /* false when there were no values */
  double p50, p95, p99, max, mean;
} ls_dist;

/* Linear interpolation between closest ranks (numpy's default), so results
 * compare directly with figures computed in Python. Sorts values in place. */
double ls_percentile_sorted (const double *sorted, size_t n, double p);

ls_dist ls_dist_of (double *values, size_t n);
