/* Small deterministic random numbers: everything random in the loader is a
 * pure function of (seed, epoch, index), so results never depend on which
 * worker did the work or in what order. */
#pragma once

#include <stdint.h>

/* splitmix64: a good 64-bit mix, also a generator when x advances by the
 * golden-ratio step. */
static inline uint64_t
ls_mix64 (uint64_t x)
{
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

typedef struct {
  uint64_t state;
} ls_rng;

static inline ls_rng
ls_rng_for (uint64_t seed, uint64_t a, uint64_t b)
{
  ls_rng r = { ls_mix64 (seed ^ ls_mix64 (a ^ ls_mix64 (b))) };
  return r;
}

static inline uint64_t
ls_rng_next (ls_rng *r)
{
  r->state += 0x9E3779B97F4A7C15ull;
  uint64_t x = r->state;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

/* Uniform in [0, 1). */
static inline double
ls_rng_uniform (ls_rng *r)
{
  return (double) (ls_rng_next (r) >> 11) * (1.0 / 9007199254740992.0);
}

/* Uniform integer in [0, n), without modulo bias worth speaking of for
 * n far below 2^64. */
static inline uint64_t
ls_rng_below (ls_rng *r, uint64_t n)
{
  return (uint64_t) (ls_rng_uniform (r) * (double) n);
}
