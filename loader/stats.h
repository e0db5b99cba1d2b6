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

/* A qsort (and GCompareFunc) comparator of doubles, ascending. */
int ls_cmp_double (const void *a, const void *b);

/* The median of values (sorted in place): ls_percentile_sorted at 50, so the
 * mean of the two middle values when n is even; NAN when n is 0. */
double ls_median (double *values, size_t n);
