/* Internals of the image synthesis, shared by maker-synth.c (the scene:
 * texture, background, vignette, grain) and maker-synth-objects.c (the
 * objects: shapes with soft edges, shading, patterns, shadows). Only +, -,
 * *, / and sqrt are used on floats (no libm transcendental), so the pixels
 * do not depend on the C library. */
#pragma once

#include <glib.h>
#include <math.h>
#include <stdint.h>

#include "loader/prng.h"

typedef struct {
  float r, g, b;
} rgbf;

static inline float
unif (ls_rng *r)
{
  return (float) ls_rng_uniform (r);
}

static inline float
between (ls_rng *r, float lo, float hi)
{
  return lo + (hi - lo) * unif (r);
}

static inline float
clampf (float v, float lo, float hi)
{
  return v < lo ? lo : v > hi ? hi : v;
}

static inline float
smooth (float t)
{
  return t * t * (3.0f - 2.0f * t);
}

/* Fractional part of v for |v| < 2^20. */
static inline float
frac (float v)
{
  float shifted = v + 1048576.0f;
  return shifted - (float) (int64_t) shifted;
}

/* A triangle wave in [-1, 1] with period 1. */
static inline float
tri (float phase)
{
  float f = frac (phase);
  return (f < 0.5f ? f : 1.0f - f) * 4.0f - 1.0f;
}

static inline float
wrap01 (float h)
{
  while (h < 0.0f)
    h += 1.0f;
  while (h >= 1.0f)
    h -= 1.0f;
  return h;
}

/* HSV in [0, 1] to RGB in [0, 255]. */
static inline rgbf
hsv (float h, float s, float v)
{
  float h6 = wrap01 (h) * 6.0f;
  int i = (int) h6;
  float f = h6 - (float) i;
  float p = v * (1.0f - s), q = v * (1.0f - s * f), t = v * (1.0f - s * (1.0f - f));
  rgbf c;

  switch (i)
    {
    case 0: c = (rgbf) { v, t, p }; break;
    case 1: c = (rgbf) { q, v, p }; break;
    case 2: c = (rgbf) { p, v, t }; break;
    case 3: c = (rgbf) { p, q, v }; break;
    case 4: c = (rgbf) { t, p, v }; break;
    default: c = (rgbf) { v, p, q }; break;
    }
  c.r *= 255.0f;
  c.g *= 255.0f;
  c.b *= 255.0f;
  return c;
}

static inline void
unit_vector (ls_rng *r, float *x, float *y)
{
  float a, b, n;
  do
    {
      a = between (r, -1.0f, 1.0f);
      b = between (r, -1.0f, 1.0f);
      n = a * a + b * b;
    }
  while (n < 0.01f || n > 1.0f);
  n = sqrtf (n);
  *x = a / n;
  *y = b / n;
}

/* A monotonic stand-in for atan2 (y, x), in [0, 4). */
static inline float
pseudo_angle (float x, float y)
{
  float p = x / (fabsf (x) + fabsf (y));
  return y >= 0.0f ? 1.0f - p : 3.0f + p;
}

enum { TEX_LUM, TEX_C1, TEX_C2, TEX_MASK, TEX_DETAIL, TEX_PLANES };

enum { SHAPE_ELLIPSE, SHAPE_POLYGON };
enum { PATTERN_NONE, PATTERN_STRIPES, PATTERN_CHECKER };

#define MAX_EDGES 8

typedef struct {
  int kind;
  float cx, cy;         /* centre */
  float ux, uy;         /* direction of the first axis */
  float a, b;           /* half-axes */
  float ext;            /* no point of the shape is farther than this from the centre */
  int edges;
  float px[MAX_EDGES], py[MAX_EDGES], nx[MAX_EDGES], ny[MAX_EDGES]; /* a point and the outward normal of each edge */
} shape;

typedef struct {
  shape s;
  float soft;           /* edge width in pixels */
  rgbf color;
  float shade;          /* brightness change from the dark side to the lit side */
  float tex_lum, tex_chroma, tex_detail; /* gains of the texture field's planes */
  int pattern;
  float pdx, pdy, pphase, pamp; /* pattern direction / period, phase, amplitude */
  float shadow_dx, shadow_dy, shadow_soft, shadow_strength;
} object;

/* maker-synth-objects.c. f is the scene, w x h RGB floats; tex the texture
 * field, TEX_PLANES planes of w * h floats; (lx, ly) the light direction. */

/* A random object of about `size` pixels, in the class's hues. */
void ls_maker_object_make (object *o, ls_rng *r, int w, int h, float size, float class_hue, float lx, float ly);
/* Darkens the scene under o's soft shadow. */
void ls_maker_object_draw_shadow (float *f, int w, int h, const object *o);
/* Paints o, shaded, textured and patterned, with its soft edge. */
void ls_maker_object_draw (float *f, const float *tex, int w, int h, const object *o, float lx, float ly);
