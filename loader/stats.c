#include "loader/stats.h"

#include <math.h>
#include <stdlib.h>

int
ls_cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

double
ls_percentile_sorted (const double *sorted, size_t n, double p)
{
  if (n == 0)
    return 0;
  double rank = p / 100.0 * (double) (n - 1);
  size_t lo = (size_t) rank;
  if (lo + 1 >= n)
    return sorted[n - 1];
  double frac = rank - (double) lo;
  return sorted[lo] + (sorted[lo + 1] - sorted[lo]) * frac;
}

ls_dist
ls_dist_of (double *values, size_t n)
{
  ls_dist d = { 0 };
  double sum = 0;

  if (n == 0)
    return d;
  qsort (values, n, sizeof *values, ls_cmp_double);
  for (size_t i = 0; i < n; i++)
    sum += values[i];
  d.valid = true;
  d.p50 = ls_percentile_sorted (values, n, 50);
  d.p95 = ls_percentile_sorted (values, n, 95);
  d.p99 = ls_percentile_sorted (values, n, 99);
  d.max = values[n - 1];
  d.mean = sum / (double) n;
  return d;
}

double
ls_median (double *values, size_t n)
{
  if (n == 0)
    return NAN;
  qsort (values, n, sizeof *values, ls_cmp_double);
  return ls_percentile_sorted (values, n, 50);
}
