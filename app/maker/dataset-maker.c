#include "app/maker/dataset-maker.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "loader/prng.h"

#ifdef LS_HAVE_JPEG
#include "loader/jpeg.h"
#endif
#ifdef LS_MAKE_HAVE_HDF5
#include <hdf5.h>
#include <zlib.h>
#endif

G_DEFINE_QUARK (loadscope-make-dataset-error, ls_make_error)

/* ---------------------------------------------------------------------------
 * Image synthesis
 *
 * A picture is built like a lit scene, in floating point:
 *   1. a sky-to-ground gradient in the class's hues, often with a wavy
 *      horizon and a differently coloured ground below it;
 *   2. a texture field of value noise summed over octaves from a third of
 *      the image down to 2.5 pixels, amplitude falling by a per-image ratio
 *      per octave (so some images are smooth, some busy, like photographs);
 *   3. 5-14 objects, largest first: ellipses, convex polygons and thin bars
 *      with soft (defocused) edges, each with its own colour, shading
 *      towards one light direction, a soft shadow, its own mix of the
 *      texture field and sometimes stripes or a checker pattern;
 *   4. a vignette, then sensor grain (luminance and colour) and rounding.
 * The fine octaves and the grain carry most of the JPEG's bits: at q90 and
 * 4:2:0 the result lands near the anchors' 4.4 bits per pixel.
 *
 * Only +, -, *, / and sqrt are used on floats (no libm transcendental), so
 * the pixels do not depend on the C library.
 * ------------------------------------------------------------------------- */

enum { STREAM_SIZE = 1, STREAM_CONTENT = 2 };

#define COARSE 4 /* the texture's coarse octaves are made at 1/COARSE of the resolution */

typedef struct {
  float r, g, b;
} rgbf;

static float
unif (ls_rng *r)
{
  return (float) ls_rng_uniform (r);
}

static float
between (ls_rng *r, float lo, float hi)
{
  return lo + (hi - lo) * unif (r);
}

static float
clampf (float v, float lo, float hi)
{
  return v < lo ? lo : v > hi ? hi : v;
}

static float
smooth (float t)
{
  return t * t * (3.0f - 2.0f * t);
}

/* Fractional part of v for |v| < 2^20. */
static float
frac (float v)
{
  float shifted = v + 1048576.0f;
  return shifted - (float) (int64_t) shifted;
}

/* A triangle wave in [-1, 1] with period 1. */
static float
tri (float phase)
{
  float f = frac (phase);
  return (f < 0.5f ? f : 1.0f - f) * 4.0f - 1.0f;
}

static float
wrap01 (float h)
{
  while (h < 0.0f)
    h += 1.0f;
  while (h >= 1.0f)
    h -= 1.0f;
  return h;
}

/* HSV in [0, 1] to RGB in [0, 255]. */
static rgbf
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

static void
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
static float
pseudo_angle (float x, float y)
{
  float p = x / (fabsf (x) + fabsf (y));
  return y >= 0.0f ? 1.0f - p : 3.0f + p;
}

/* Adds amp[c] times smooth value noise with lattice spacing `cell` pixels to
 * planes 0 .. planes - 1 of p, each w x h pixels, plane c at p + c * w * h. */
static void
add_value_noise (float *p, int w, int h, int planes, float cell, const float *amp, ls_rng *rng)
{
  float inv = 1.0f / cell;
  int gw = (int) ((float) w * inv) + 3, gh = (int) ((float) h * inv) + 3;
  size_t plane = (size_t) w * (size_t) h, lat_plane = (size_t) gw * (size_t) gh;
  float *lat = g_new (float, lat_plane * (size_t) planes);
  float *row = g_new (float, gw);
  int *seg_end = g_new (int, gw); /* columns x with lattice cell i: seg_end[i - 1] <= x < seg_end[i] */
  float *tx = g_new (float, w);
  float ox = unif (rng), oy = unif (rng);

  for (size_t i = 0; i < lat_plane * (size_t) planes; i++)
    lat[i] = between (rng, -1.0f, 1.0f);
  for (int i = 0; i < gw; i++)
    seg_end[i] = 0;
  for (int x = 0; x < w; x++)
    {
      float g = (float) x * inv + ox;
      int i = (int) g;
      tx[x] = smooth (g - (float) i);
      seg_end[i] = x + 1;
    }
  for (int i = 1; i < gw; i++)
    if (seg_end[i] < seg_end[i - 1])
      seg_end[i] = seg_end[i - 1];
  for (int c = 0; c < planes; c++)
    for (int y = 0; y < h; y++)
      {
        float g = (float) y * inv + oy;
        int iy = (int) g;
        float ty = smooth (g - (float) iy);
        const float *a = lat + (size_t) c * lat_plane + (size_t) iy * (size_t) gw, *b = a + gw;
        float *o = p + (size_t) c * plane + (size_t) y * (size_t) w;

        for (int j = 0; j < gw; j++)
          row[j] = amp[c] * (a[j] + (b[j] - a[j]) * ty);
        for (int i = 0, x = 0; i + 1 < gw && x < w; i++)
          {
            float base = row[i], slope = row[i + 1] - row[i];
            for (; x < seg_end[i]; x++)
              o[x] += base + slope * tx[x];
          }
      }
  g_free (tx);
  g_free (seg_end);
  g_free (row);
  g_free (lat);
}

/* Adds src (sw floats a row, one sample every COARSE pixels) scaled up
 * bilinearly to dst (w x h). */
static void
add_scaled_up (float *dst, int w, int h, const float *src, int sw)
{
  const float inv = 1.0f / COARSE;

  for (int y = 0; y < h; y++)
    {
      int sy = y / COARSE;
      float ty = (float) (y % COARSE) * inv;
      const float *a = src + (size_t) sy * (size_t) sw, *b = a + sw;
      float *o = dst + (size_t) y * (size_t) w;
      for (int x = 0; x < w; x++)
        {
          int sx = x / COARSE;
          float tx = (float) (x % COARSE) * inv;
          float top = a[sx] + (a[sx + 1] - a[sx]) * tx, bottom = b[sx] + (b[sx + 1] - b[sx]) * tx;
          o[x] += top + (bottom - top) * ty;
        }
    }
}

/* The texture field's planes, each w * h floats, one after the other. */
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

/* Signed distance in pixels (negative inside), first-order exact near the
 * edge, which is all the soft edge needs. */
static float
shape_distance (const shape *s, float x, float y)
{
  float dx = x - s->cx, dy = y - s->cy;

  if (s->kind == SHAPE_ELLIPSE)
    {
      float u = (dx * s->ux + dy * s->uy) / s->a, v = (dy * s->ux - dx * s->uy) / s->b;
      float q2 = u * u + v * v;
      if (q2 < 1e-12f)
        return -s->b;
      float q = sqrtf (q2);
      float gu = u / s->a, gv = v / s->b;
      float grad = sqrtf (gu * gu + gv * gv) / q;
      return (q - 1.0f) / grad;
    }
  float d = -1e30f;
  for (int i = 0; i < s->edges; i++)
    {
      float e = (x - s->px[i]) * s->nx[i] + (y - s->py[i]) * s->ny[i];
      if (e > d)
        d = e;
    }
  return d;
}

static void
make_shape (shape *s, ls_rng *r, int w, int h, float size)
{
  float vx, vy, kind = unif (r);

  memset (s, 0, sizeof *s);
  s->cx = between (r, -0.1f, 1.1f) * (float) w;
  s->cy = between (r, -0.1f, 1.1f) * (float) h;
  unit_vector (r, &s->ux, &s->uy);
  vx = -s->uy;
  vy = s->ux;
  s->a = size;
  s->b = size * between (r, 0.35f, 1.0f);
  if (kind < 0.4f)
    {
      s->kind = SHAPE_ELLIPSE;
      s->ext = s->a;
      return;
    }

  /* A convex polygon: points of an ellipse in angular order. */
  float dx[MAX_EDGES], dy[MAX_EDGES], key[MAX_EDGES];
  int n;
  s->kind = SHAPE_POLYGON;
  if (kind < 0.85f && unif (r) < 0.3f)
    {
      n = 4; /* a rectangle */
      for (int i = 0; i < 4; i++)
        {
          dx[i] = (i == 0 || i == 3) ? 0.70710678f : -0.70710678f;
          dy[i] = i < 2 ? 0.70710678f : -0.70710678f;
        }
    }
  else if (kind < 0.85f)
    {
      n = 3 + (int) ls_rng_below (r, 6);
      for (int i = 0; i < n; i++)
        unit_vector (r, &dx[i], &dy[i]);
    }
  else
    {
      /* a thin bar: a pole, a wire, a branch */
      n = 4;
      s->a = size * between (r, 1.0f, 2.5f);
      s->b = between (r, 1.0f, 4.0f);
      for (int i = 0; i < 4; i++)
        {
          dx[i] = (i == 0 || i == 3) ? 0.70710678f : -0.70710678f;
          dy[i] = i < 2 ? 0.70710678f : -0.70710678f;
        }
    }
  for (int i = 0; i < n; i++)
    key[i] = pseudo_angle (dx[i], dy[i]);
  for (int i = 1; i < n; i++) /* insertion sort by angle */
    for (int j = i; j > 0 && key[j - 1] > key[j]; j--)
      {
        float t = key[j]; key[j] = key[j - 1]; key[j - 1] = t;
        t = dx[j]; dx[j] = dx[j - 1]; dx[j - 1] = t;
        t = dy[j]; dy[j] = dy[j - 1]; dy[j - 1] = t;
      }

  float vxs[MAX_EDGES], vys[MAX_EDGES], mx = 0.0f, my = 0.0f;
  for (int i = 0; i < n; i++)
    {
      vxs[i] = s->cx + s->a * dx[i] * s->ux + s->b * dy[i] * vx;
      vys[i] = s->cy + s->a * dx[i] * s->uy + s->b * dy[i] * vy;
      mx += vxs[i] / (float) n;
      my += vys[i] / (float) n;
    }
  s->ext = s->a > s->b ? s->a : s->b;
  for (int i = 0; i < n; i++)
    {
      int k = (i + 1) % n;
      float ex = vxs[k] - vxs[i], ey = vys[k] - vys[i];
      float len = sqrtf (ex * ex + ey * ey);
      if (len < 1e-3f)
        continue;
      float nx = ey / len, ny = -ex / len;
      if ((mx - vxs[i]) * nx + (my - vys[i]) * ny > 0.0f)
        {
          nx = -nx;
          ny = -ny;
        }
      s->px[s->edges] = vxs[i];
      s->py[s->edges] = vys[i];
      s->nx[s->edges] = nx;
      s->ny[s->edges] = ny;
      s->edges++;
    }
  if (s->edges < 3) /* all points nearly the same: fall back to the ellipse */
    s->kind = SHAPE_ELLIPSE;
}

/* The pixel rows and columns within reach of a shape moved by (dx, dy). */
static gboolean
shape_box (const shape *s, float dx, float dy, float margin, int w, int h, int *x0, int *y0, int *x1, int *y1)
{
  float r = s->ext + margin + 2.0f;
  float fx0 = clampf (s->cx + dx - r, 0.0f, (float) w), fx1 = clampf (s->cx + dx + r, 0.0f, (float) w);
  float fy0 = clampf (s->cy + dy - r, 0.0f, (float) h), fy1 = clampf (s->cy + dy + r, 0.0f, (float) h);
  *x0 = (int) fx0;
  *x1 = (int) fx1;
  *y0 = (int) fy0;
  *y1 = (int) fy1;
  return *x1 > *x0 && *y1 > *y0;
}

/* The columns of the pixel row at height fy (a pixel centre) where a shape
 * moved by (dx, dy) can come closer than `outer` to its inside: [*x0, *x1);
 * and those surely deeper than `inner` inside it: [*i0, *i1) (polygons
 * only; empty for ellipses). A pixel outside [*x0, *x1) has a distance
 * of at least `outer`. */
static void
shape_row_span (const shape *s, float dx, float dy, float fy, float outer, float inner, int w, int *x0, int *x1,
                int *i0, int *i1)
{
  float lo = -1e30f, hi = 1e30f, ilo = -1e30f, ihi = 1e30f;
  float ry = fy - dy;

  if (s->kind == SHAPE_ELLIPSE)
    {
      /* The ellipse with both half-axes grown by k holds every point within
       * outer of the ellipse when k >= outer * a / b (a >= b); doubled for
       * the first-order distance, which is not the exact one. */
      float big = s->a > s->b ? s->a : s->b, small = s->a > s->b ? s->b : s->a;
      float k = 2.0f * outer * big / small + 2.0f;
      float A = s->a + k, B = s->b + k, yy = ry - s->cy;
      float ia = 1.0f / (A * A), ib = 1.0f / (B * B);
      float alpha = s->ux * s->ux * ia + s->uy * s->uy * ib;
      float beta = 2.0f * yy * s->ux * s->uy * (ia - ib);
      float gamma = yy * yy * (s->uy * s->uy * ia + s->ux * s->ux * ib) - 1.0f;
      float disc = beta * beta - 4.0f * alpha * gamma;
      if (disc < 0.0f)
        {
          *x0 = *x1 = *i0 = *i1 = 0;
          return;
        }
      float root = sqrtf (disc);
      lo = s->cx + (-beta - root) / (2.0f * alpha);
      hi = s->cx + (-beta + root) / (2.0f * alpha);
      ilo = 1e30f;
      ihi = -1e30f;
    }
  else
    for (int i = 0; i < s->edges; i++)
      {
        /* (x - px) nx + (ry - py) ny <= m  <=>  x nx <= m - (ry - py) ny + px nx */
        float nx = s->nx[i], rest = (ry - s->py[i]) * s->ny[i];
        if (nx > 1e-6f || nx < -1e-6f)
          {
            float edge_o = s->px[i] + (outer - rest) / nx, edge_i = s->px[i] + (inner - rest) / nx;
            if (nx > 0.0f)
              {
                hi = edge_o < hi ? edge_o : hi;
                ihi = edge_i < ihi ? edge_i : ihi;
              }
            else
              {
                lo = edge_o > lo ? edge_o : lo;
                ilo = edge_i > ilo ? edge_i : ilo;
              }
          }
        else
          {
            if (rest > outer)
              lo = 1e30f, hi = -1e30f;
            if (rest > inner)
              ilo = 1e30f, ihi = -1e30f;
          }
      }
  /* pixel x has its centre at x + 0.5; one pixel of slack for rounding */
  lo += dx;
  hi += dx;
  ilo += dx;
  ihi += dx;
  *x0 = (int) clampf (lo - 1.5f, 0.0f, (float) w);
  *x1 = (int) clampf (hi + 1.5f, 0.0f, (float) w);
  *i0 = (int) clampf (ilo + 1.5f, 0.0f, (float) w);
  *i1 = (int) clampf (ihi - 1.5f, 0.0f, (float) w);
  if (*i1 < *i0)
    *i1 = *i0;
}

static void
draw_shadow (float *f, int w, int h, const object *o)
{
  int x0, y0, x1, y1, i0, i1;
  float half = 0.5f * o->shadow_soft;

  if (!shape_box (&o->s, o->shadow_dx, o->shadow_dy, o->shadow_soft, w, h, &x0, &y0, &x1, &y1))
    return;
  for (int y = y0; y < y1; y++)
    {
      float fy = (float) y + 0.5f;
      shape_row_span (&o->s, o->shadow_dx, o->shadow_dy, fy, half, -half, w, &x0, &x1, &i0, &i1);
      for (int x = x0; x < x1; x++)
        {
          float cov = 1.0f;
          if (x < i0 || x >= i1)
            {
              float d = shape_distance (&o->s, (float) x + 0.5f - o->shadow_dx, fy - o->shadow_dy);
              cov = 0.5f - d / o->shadow_soft;
              if (cov <= 0.0f)
                continue;
              if (cov > 1.0f)
                cov = 1.0f;
            }
          float k = 1.0f - o->shadow_strength * cov;
          float *px = f + ((size_t) y * (size_t) w + (size_t) x) * 3;
          px[0] *= k;
          px[1] *= k;
          px[2] *= k;
        }
    }
}

static void
draw_object (float *f, const float *tex, int w, int h, const object *o, float lx, float ly)
{
  int x0, y0, x1, y1, i0, i1;
  float inv_ext = 1.0f / o->s.ext, half = 0.5f * o->soft;
  size_t n = (size_t) w * (size_t) h;

  if (!shape_box (&o->s, 0.0f, 0.0f, o->soft, w, h, &x0, &y0, &x1, &y1))
    return;
  for (int y = y0; y < y1; y++)
    {
      float fy = (float) y + 0.5f;
      shape_row_span (&o->s, 0.0f, 0.0f, fy, half, -half, w, &x0, &x1, &i0, &i1);
      for (int x = x0; x < x1; x++)
        {
          float fx = (float) x + 0.5f, cov = 1.0f;
          if (x < i0 || x >= i1)
            {
              cov = 0.5f - shape_distance (&o->s, fx, fy) / o->soft;
              if (cov <= 0.0f)
                continue;
              if (cov > 1.0f)
                cov = 1.0f;
            }
          size_t i = (size_t) y * (size_t) w + (size_t) x;
          const float *t = tex + i; /* planes n apart */
          float shade = clampf (1.0f + o->shade * ((fx - o->s.cx) * lx + (fy - o->s.cy) * ly) * inv_ext, 0.3f, 1.7f);
          float detail = o->tex_lum * t[TEX_LUM * n] + o->tex_chroma * t[TEX_C1 * n]
                         + o->tex_detail * (0.3f + 0.7f * t[TEX_MASK * n]) * t[TEX_DETAIL * n];
          if (o->pattern == PATTERN_STRIPES)
            detail += o->pamp * tri (fx * o->pdx + fy * o->pdy + o->pphase);
          else if (o->pattern == PATTERN_CHECKER)
            detail += o->pamp * tri (fx * o->pdx + fy * o->pdy + o->pphase) * tri (fy * o->pdx - fx * o->pdy);
          float *px = f + i * 3;
          px[0] += (o->color.r * shade + detail + 0.3f * o->tex_chroma * t[TEX_C2 * n] - px[0]) * cov;
          px[1] += (o->color.g * shade + detail - px[1]) * cov;
          px[2] += (o->color.b * shade + detail - 0.3f * o->tex_chroma * t[TEX_C2 * n] - px[2]) * cov;
        }
    }
}

static void
make_object (object *o, ls_rng *r, int w, int h, float size, float class_hue, float lx, float ly)
{
  make_shape (&o->s, r, w, h, size);
  o->soft = between (r, 0.6f, 2.0f);
  if (unif (r) < 0.15f)
    o->soft += between (r, 2.0f, 10.0f); /* out of focus */
  float hue = unif (r) < 0.6f ? class_hue + between (r, -0.12f, 0.12f) : unif (r);
  o->color = hsv (hue, between (r, 0.15f, 0.9f), between (r, 0.15f, 1.0f));
  o->shade = between (r, 0.1f, 0.6f);
  o->tex_lum = between (r, -35.0f, 35.0f);
  o->tex_chroma = between (r, -25.0f, 25.0f);
  o->tex_detail = unif (r) < 0.4f ? between (r, 0.0f, 15.0f) : between (r, 15.0f, 70.0f);
  float p = unif (r);
  o->pattern = p < 0.6f ? PATTERN_NONE : p < 0.85f ? PATTERN_STRIPES : PATTERN_CHECKER;
  if (o->pattern != PATTERN_NONE)
    {
      float period = between (r, 3.0f, 30.0f);
      unit_vector (r, &o->pdx, &o->pdy);
      o->pdx /= period;
      o->pdy /= period;
      o->pphase = unif (r);
      o->pamp = between (r, 8.0f, 40.0f);
    }
  float off = o->s.ext * between (r, 0.02f, 0.12f);
  o->shadow_dx = -lx * off;
  o->shadow_dy = -ly * off;
  o->shadow_soft = 1.0f + o->s.ext * between (r, 0.03f, 0.15f);
  o->shadow_strength = between (r, 0.15f, 0.5f);
}

/* Four bytes of x summed: roughly normal (Irwin-Hall), mean 0, sd 1. */
static float
gauss4 (uint32_t x)
{
  int s = (int) (x & 255u) + (int) ((x >> 8) & 255u) + (int) ((x >> 16) & 255u) + (int) (x >> 24);
  return (float) (s - 510) * (1.0f / 147.8f);
}

int
ls_make_classes (uint64_t count)
{
  return count < LS_MAKE_MAX_CLASSES ? (int) count : LS_MAKE_MAX_CLASSES;
}

void
ls_make_image_size (uint64_t seed, uint64_t index, int *width, int *height)
{
  ls_rng r = ls_rng_for (seed, index, STREAM_SIZE);
  float u = unif (&r), w, h;

  if (u < 0.65f)
    w = 500.0f, h = 375.0f;
  else if (u < 0.85f)
    w = 375.0f, h = 500.0f;
  else if (u < 0.92f)
    w = 500.0f, h = 333.0f;
  else if (u < 0.97f)
    w = 400.0f, h = 400.0f;
  else
    w = 640.0f, h = 480.0f;
  *width = (int) (w * between (&r, 0.92f, 1.08f) + 0.5f);
  *height = (int) (h * between (&r, 0.92f, 1.08f) + 0.5f);
}

void
ls_make_image (uint64_t seed, uint64_t index, int classes, int width, int height, uint8_t *rgb)
{
  ls_rng r = ls_rng_for (seed, index, STREAM_CONTENT);
  size_t n = (size_t) width * (size_t) height;
  float *f = g_new (float, n * 3);
  float *tex = g_new0 (float, n * TEX_PLANES);
  float fw = (float) width, fh = (float) height;
  float minside = fw < fh ? fw : fh, maxside = fw > fh ? fw : fh;
  float class_hue = classes > 0 ? (float) (index % (uint64_t) classes) / (float) classes : 0.0f;
  float lx, ly;

  /* The texture field. Octaves of 8 pixels and more are summed at a
   * quarter of the resolution and scaled up once. */
  {
    int cw = width / COARSE + 2, ch = height / COARSE + 2;
    size_t cn = (size_t) cw * (size_t) ch;
    float *low = g_new0 (float, cn * 4); /* TEX_LUM, TEX_C1, TEX_C2, TEX_MASK */
    float ratio = between (&r, 0.7f, 0.9f);
    float amp[3] = { 1.0f, between (&r, 0.2f, 0.8f), between (&r, 0.2f, 0.8f) };
    for (float cell = maxside / 3.0f; cell >= 2.4f; cell *= 0.5f)
      {
        /* colour varies only coarsely */
        if (cell >= 8.0f)
          add_value_noise (low, cw, ch, cell >= 12.0f ? 3 : 1, cell / COARSE, amp, &r);
        else
          add_value_noise (tex, width, height, 1, cell, amp, &r);
        for (int c = 0; c < 3; c++)
          amp[c] *= ratio;
      }
    /* Where fine detail is (foliage, gravel, fabric), and the detail itself. */
    float one[1] = { 1.0f }, half[1] = { 0.5f }, most[1] = { 0.8f };
    add_value_noise (low + TEX_MASK * cn, cw, ch, 1, maxside / 4.0f / COARSE, one, &r);
    add_value_noise (low + TEX_MASK * cn, cw, ch, 1, maxside / 8.0f / COARSE, half, &r);
    for (int c = 0; c < 4; c++)
      add_scaled_up (tex + (size_t) c * n, width, height, low + (size_t) c * cn, cw);
    g_free (low);
    add_value_noise (tex + TEX_DETAIL * n, width, height, 1, 6.0f, half, &r);
    add_value_noise (tex + TEX_DETAIL * n, width, height, 1, 3.0f, most, &r);
    add_value_noise (tex + TEX_DETAIL * n, width, height, 1, 1.6f, one, &r);
    for (size_t i = 0; i < n; i++)
      tex[TEX_MASK * n + i] = clampf (0.5f + 1.2f * tex[TEX_MASK * n + i], 0.0f, 1.0f);
  }

  /* The background: sky to ground, maybe a horizon. */
  {
    rgbf top = hsv (class_hue + between (&r, -0.08f, 0.08f), between (&r, 0.1f, 0.6f), between (&r, 0.45f, 0.95f));
    rgbf bottom = hsv (class_hue + between (&r, -0.15f, 0.15f), between (&r, 0.1f, 0.7f), between (&r, 0.2f, 0.7f));
    rgbf ground = hsv (class_hue + between (&r, -0.3f, 0.3f), between (&r, 0.2f, 0.8f), between (&r, 0.15f, 0.7f));
    float gx, gy;
    unit_vector (&r, &gx, &gy);
    gy = fabsf (gy) + 0.5f; /* mostly top to bottom */
    float span = fabsf (gx) * fw + gy * fh;
    float bg_lum = between (&r, 10.0f, 40.0f), bg_chroma = between (&r, 5.0f, 25.0f);
    float bg_detail = between (&r, 20.0f, 70.0f), ground_detail = between (&r, 1.0f, 2.0f);
    gboolean horizon = unif (&r) < 0.6f;
    float *hy = g_new0 (float, width);
    float hsoft = between (&r, 0.8f, 3.0f);
    if (horizon)
      {
        float amp1[1] = { fh * between (&r, 0.02f, 0.12f) }, amp2[1] = { fh * 0.02f };
        float base = fh * between (&r, 0.35f, 0.75f);
        add_value_noise (hy, width, 1, 1, fw * between (&r, 0.15f, 0.5f), amp1, &r);
        add_value_noise (hy, width, 1, 1, fw * 0.04f + 2.0f, amp2, &r);
        for (int x = 0; x < width; x++)
          hy[x] += base;
      }
    for (int y = 0; y < height; y++)
      for (int x = 0; x < width; x++)
        {
          float fx = (float) x + 0.5f, fy = (float) y + 0.5f;
          float t = clampf (((fx - 0.5f * fw) * gx + (fy - 0.5f * fh) * gy) / span + 0.5f, 0.0f, 1.0f);
          rgbf c = { top.r + (bottom.r - top.r) * t, top.g + (bottom.g - top.g) * t, top.b + (bottom.b - top.b) * t };
          float cov = 0.0f;
          if (horizon)
            {
              cov = clampf ((fy - hy[x]) / hsoft + 0.5f, 0.0f, 1.0f);
              float depth = 0.75f + 0.5f * clampf ((fy - hy[x]) / fh, 0.0f, 1.0f);
              c.r += (ground.r * depth - c.r) * cov;
              c.g += (ground.g * depth - c.g) * cov;
              c.b += (ground.b * depth - c.b) * cov;
            }
          size_t i = (size_t) y * (size_t) width + (size_t) x;
          float lum = tex[TEX_LUM * n + i], c1 = tex[TEX_C1 * n + i], c2 = tex[TEX_C2 * n + i];
          float detail = bg_detail * (1.0f + (ground_detail - 1.0f) * cov) * tex[TEX_MASK * n + i];
          float l = bg_lum * lum + detail * tex[TEX_DETAIL * n + i];
          f[i * 3 + 0] = c.r + l + bg_chroma * c1;
          f[i * 3 + 1] = c.g + l + bg_chroma * (c2 - 0.5f * c1);
          f[i * 3 + 2] = c.b + l - bg_chroma * (0.5f * c1 + c2);
        }
    g_free (hy);
  }

  /* The objects, largest first, lit from one side. */
  {
    int count = 5 + (int) ls_rng_below (&r, 10);
    float sizes[16];
    unit_vector (&r, &lx, &ly);
    for (int i = 0; i < count; i++)
      {
        float u = unif (&r);
        sizes[i] = minside * (0.04f + 0.42f * u * u) + 1.0f;
      }
    for (int i = 1; i < count; i++)
      for (int j = i; j > 0 && sizes[j - 1] < sizes[j]; j--)
        {
          float t = sizes[j];
          sizes[j] = sizes[j - 1];
          sizes[j - 1] = t;
        }
    for (int i = 0; i < count; i++)
      {
        object o;
        make_object (&o, &r, width, height, sizes[i], class_hue, lx, ly);
        draw_shadow (f, width, height, &o);
        draw_object (f, tex, width, height, &o, lx, ly);
      }
  }

  /* Vignette, sensor grain, rounding. */
  {
    float vignette = between (&r, 0.0f, 0.35f);
    float grain_lum = between (&r, 13.0f, 21.0f), grain_color = between (&r, 5.0f, 10.0f);
    float ix = 2.0f / fw, iy = 2.0f / fh;
    ls_rng g = ls_rng_for (seed, index, ls_rng_next (&r));
    for (int y = 0; y < height; y++)
      {
        float vy = ((float) y + 0.5f) * iy - 1.0f;
        for (int x = 0; x < width; x++)
          {
            float vx = ((float) x + 0.5f) * ix - 1.0f;
            float m = 1.0f - vignette * 0.5f * (vx * vx + vy * vy);
            uint64_t a = ls_rng_next (&g), b = ls_rng_next (&g);
            float l = grain_lum * gauss4 ((uint32_t) a);
            float z[3] = { gauss4 ((uint32_t) (a >> 32)), gauss4 ((uint32_t) b), gauss4 ((uint32_t) (b >> 32)) };
            size_t i = ((size_t) y * (size_t) width + (size_t) x) * 3;
            for (int c = 0; c < 3; c++)
              {
                float v = clampf (f[i + c] * m + l + grain_color * z[c], 0.0f, 255.0f);
                rgb[i + c] = (uint8_t) (v + 0.5f);
              }
          }
      }
  }
  g_free (tex);
  g_free (f);
}

/* ---------------------------------------------------------------------------
 * Options
 * ------------------------------------------------------------------------- */

static const char *const format_names[] = { "jpeg-dir", "hdf5", "hdf5-jpeg" };

gboolean
ls_make_format_parse (const char *name, ls_make_format *out)
{
  for (size_t i = 0; i < G_N_ELEMENTS (format_names); i++)
    if (name && strcmp (name, format_names[i]) == 0)
      {
        *out = (ls_make_format) i;
        return TRUE;
      }
  return FALSE;
}

const char *
ls_make_format_name (ls_make_format format)
{
  return (size_t) format < G_N_ELEMENTS (format_names) ? format_names[format] : "?";
}

void
ls_make_options_init (ls_make_options *o)
{
  memset (o, 0, sizeof *o);
  o->format = LS_MAKE_JPEG_DIR;
  o->quality = -1;
}

static gboolean
usage_error (GError **error, const char *fmt, ...) G_GNUC_PRINTF (2, 3);

static gboolean
usage_error (GError **error, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  char *msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  g_set_error_literal (error, LS_MAKE_ERROR, LS_MAKE_ERROR_USAGE, msg);
  g_free (msg);
  return FALSE;
}

static gboolean
check_options (const ls_make_options *o, GError **error)
{
  gboolean jpeg = o->format != LS_MAKE_HDF5;

  if ((size_t) o->format >= G_N_ELEMENTS (format_names))
    return usage_error (error, "unknown format %d", (int) o->format);
#ifndef LS_HAVE_JPEG
  if (jpeg)
    return usage_error (error, "--format %s: this build has no JPEG support (libjpeg-turbo was not found)",
                        ls_make_format_name (o->format));
#endif
#ifndef LS_MAKE_HAVE_HDF5
  if (o->format != LS_MAKE_JPEG_DIR)
    return usage_error (error, "--format %s: this build has no HDF5 support (libhdf5 was not found)",
                        ls_make_format_name (o->format));
#endif
  if (o->count == 0 || o->count > LS_MAKE_MAX_COUNT)
    return usage_error (error, "--count %" G_GUINT64_FORMAT ": must be between 1 and %u", o->count,
                        LS_MAKE_MAX_COUNT);
  if ((o->width == 0) != (o->height == 0) || o->width < 0 || o->height < 0)
    return usage_error (error, "--size %dx%d: give both sides, each at least 1", o->width, o->height);
  if (o->width && (uint64_t) o->width * (uint64_t) o->height > LS_MAKE_MAX_PIXELS)
    return usage_error (error, "--size %dx%d: at most %.0f MP per image", o->width, o->height,
                        LS_MAKE_MAX_PIXELS / 1e6);
  if (jpeg && (o->width > 65500 || o->height > 65500))
    return usage_error (error, "--size %dx%d: a JPEG side is at most 65500 pixels", o->width, o->height);
  if (o->quality != -1 && !jpeg)
    return usage_error (error, "--quality applies to jpeg-dir and hdf5-jpeg; hdf5 stores raw pixels");
  if (o->quality != -1 && (o->quality < 1 || o->quality > 100))
    return usage_error (error, "--quality %d: must be between 1 and 100", o->quality);
  if (o->threads < 0 || o->threads > 256)
    return usage_error (error, "--threads %d: must be between 0 (one per core) and 256", o->threads);
  return TRUE;
}

/* ---------------------------------------------------------------------------
 * Images made on worker threads, written in index order by the caller
 * ------------------------------------------------------------------------- */

typedef struct {
  uint64_t index;
  uint8_t *data;        /* the encoded JPEG, the compressed chunk, or raw pixels */
  size_t len;
  uint32_t filter_mask; /* hdf5: 1 if the chunk is stored uncompressed */
  char *error;
  gboolean ready;
} job;

typedef struct {
  ls_make_format format;
  uint64_t seed;
  int classes, quality;
  int width, height;    /* 0: each image's own size */
  GMutex lock;
  GCond done;
} maker;

static void
make_one (gpointer data, gpointer user_data)
{
  job *j = data;
  maker *m = user_data;
  int w = m->width, h = m->height;
  uint8_t *pixels;
  size_t n;

  if (!w)
    ls_make_image_size (m->seed, j->index, &w, &h);
  n = (size_t) w * (size_t) h * 3;
  pixels = g_malloc (n);
  ls_make_image (m->seed, j->index, m->classes, w, h, pixels);

  if (m->format == LS_MAKE_HDF5)
    {
#ifdef LS_MAKE_HAVE_HDF5
      /* What HDF5's deflate filter would store: zlib's compress2 output. */
      uLongf zlen = compressBound ((uLong) n);
      uint8_t *z = g_malloc (zlen);
      if (compress2 (z, &zlen, pixels, (uLong) n, 4) == Z_OK && zlen < n)
        {
          g_free (pixels);
          j->data = z;
          j->len = zlen;
        }
      else
        {
          g_free (z);
          j->data = pixels;
          j->len = n;
          j->filter_mask = 1;
        }
#endif
    }
  else
    {
#ifdef LS_HAVE_JPEG
      ls_error err = { 0 };
      uint8_t *out = NULL;
      size_t len = 0;
      if (ls_jpeg_encode (pixels, w, h, 3, m->quality, 0, &out, &len, &err) == LS_OK)
        {
          j->data = out; /* malloc'ed: g_free is free since GLib 2.46 */
          j->len = len;
        }
      else
        {
          j->error = g_strdup_printf ("encoding image %" G_GUINT64_FORMAT " (%dx%d): %s", j->index, w, h,
                                      err.message);
          free (out);
        }
#endif
      g_free (pixels);
    }

  g_mutex_lock (&m->lock);
  j->ready = TRUE;
  g_cond_broadcast (&m->done);
  g_mutex_unlock (&m->lock);
}

/* ---------------------------------------------------------------------------
 * Writers
 * ------------------------------------------------------------------------- */

typedef struct {
  ls_make_format format;
  const char *path;     /* the temporary path being written */
  int classes;
  int name_digits;
  uint64_t count;
  uint64_t bytes;
  int64_t *labels;
#ifdef LS_MAKE_HAVE_HDF5
  hid_t file, data, vtype, space;
#endif
} writer;

static gboolean
failed (GError **error, const char *fmt, ...) G_GNUC_PRINTF (2, 3);

static gboolean
failed (GError **error, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  char *msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  g_set_error_literal (error, LS_MAKE_ERROR, LS_MAKE_ERROR_FAILED, msg);
  g_free (msg);
  return FALSE;
}

static char *
class_dir (const char *root, int k)
{
  return g_strdup_printf ("%s" G_DIR_SEPARATOR_S "class_%d", root, k);
}

#ifdef LS_MAKE_HAVE_HDF5
/* Object headers without creation times, so two runs give the same bytes. */
static hid_t
untimed (hid_t plist)
{
  H5Pset_obj_track_times (plist, 0);
  return plist;
}

static gboolean
hdf5_open (writer *wr, int width, int height, GError **error)
{
  hid_t fcpl = untimed (H5Pcreate (H5P_FILE_CREATE));
  hid_t dcpl = untimed (H5Pcreate (H5P_DATASET_CREATE));
  gboolean ok = TRUE;

  H5Eset_auto2 (H5E_DEFAULT, NULL, NULL);
  wr->file = H5Fcreate (wr->path, H5F_ACC_TRUNC, fcpl, H5P_DEFAULT);
  if (wr->file < 0)
    ok = failed (error, "%s: cannot create the HDF5 file", wr->path);
  else if (wr->format == LS_MAKE_HDF5)
    {
      hsize_t dims[4] = { wr->count, (hsize_t) height, (hsize_t) width, 3 };
      hsize_t chunk[4] = { 1, (hsize_t) height, (hsize_t) width, 3 };
      wr->space = H5Screate_simple (4, dims, NULL);
      H5Pset_chunk (dcpl, 4, chunk);
      H5Pset_deflate (dcpl, 4);
      H5Pset_fill_time (dcpl, H5D_FILL_TIME_NEVER);
      wr->data = H5Dcreate2 (wr->file, "images", H5T_STD_U8LE, wr->space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
      if (wr->data < 0)
        ok = failed (error, "%s: cannot create dataset 'images' of %" G_GUINT64_FORMAT "x%dx%dx3", wr->path,
                     wr->count, height, width);
    }
  else
    {
      hsize_t dims[1] = { wr->count };
      hsize_t chunk[1] = { MIN (wr->count, 1024) };
      hid_t ftype = H5Tvlen_create (H5T_STD_U8LE);
      wr->vtype = H5Tvlen_create (H5T_NATIVE_UINT8);
      wr->space = H5Screate_simple (1, dims, NULL);
      H5Pset_chunk (dcpl, 1, chunk);
      wr->data = H5Dcreate2 (wr->file, "jpeg", ftype, wr->space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
      H5Tclose (ftype);
      if (wr->data < 0)
        ok = failed (error, "%s: cannot create dataset 'jpeg' of %" G_GUINT64_FORMAT " rows", wr->path, wr->count);
    }
  H5Pclose (dcpl);
  H5Pclose (fcpl);
  return ok;
}

static gboolean
hdf5_put (writer *wr, const job *j, GError **error)
{
  if (wr->format == LS_MAKE_HDF5)
    {
      hsize_t offset[4] = { j->index, 0, 0, 0 };
      if (H5Dwrite_chunk (wr->data, H5P_DEFAULT, j->filter_mask, offset, j->len, j->data) < 0)
        return failed (error, "%s: writing image %" G_GUINT64_FORMAT " failed", wr->path, j->index);
      return TRUE;
    }
  hsize_t start[1] = { j->index }, one[1] = { 1 };
  hid_t mem = H5Screate_simple (1, one, NULL);
  hvl_t row = { j->len, j->data };
  herr_t rc = H5Sselect_hyperslab (wr->space, H5S_SELECT_SET, start, NULL, one, NULL);
  if (rc >= 0)
    rc = H5Dwrite (wr->data, wr->vtype, mem, wr->space, H5P_DEFAULT, &row);
  H5Sclose (mem);
  if (rc < 0)
    return failed (error, "%s: writing row %" G_GUINT64_FORMAT " of 'jpeg' failed", wr->path, j->index);
  return TRUE;
}

static gboolean
hdf5_close (writer *wr, gboolean finish, GError **error)
{
  gboolean ok = TRUE;

  if (finish)
    {
      hsize_t dims[1] = { wr->count }, chunk[1] = { MIN (wr->count, 65536) };
      hid_t space = H5Screate_simple (1, dims, NULL);
      hid_t dcpl = untimed (H5Pcreate (H5P_DATASET_CREATE));
      H5Pset_chunk (dcpl, 1, chunk);
      H5Pset_deflate (dcpl, 4);
      hid_t d = H5Dcreate2 (wr->file, "labels", H5T_STD_I64LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
      if (d < 0 || H5Dwrite (d, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, wr->labels) < 0)
        ok = failed (error, "%s: writing dataset 'labels' failed", wr->path);
      if (d >= 0)
        H5Dclose (d);
      H5Pclose (dcpl);
      H5Sclose (space);
    }
  if (wr->vtype >= 0)
    H5Tclose (wr->vtype);
  if (wr->space >= 0)
    H5Sclose (wr->space);
  if (wr->data >= 0 && H5Dclose (wr->data) < 0)
    ok = ok && failed (error, "%s: closing the image dataset failed", wr->path);
  if (wr->file >= 0 && H5Fclose (wr->file) < 0)
    ok = ok && failed (error, "%s: closing the file failed (disk full?)", wr->path);
  wr->vtype = wr->space = wr->data = wr->file = H5I_INVALID_HID;
  return ok;
}
#endif

static gboolean
writer_open (writer *wr, int width, int height, GError **error)
{
#ifdef LS_MAKE_HAVE_HDF5
  wr->file = wr->data = wr->vtype = wr->space = H5I_INVALID_HID;
#endif
  wr->labels = g_new (int64_t, wr->count);
  if (wr->format == LS_MAKE_JPEG_DIR)
    {
      uint64_t last = wr->count - 1;
      wr->name_digits = 5;
      for (uint64_t limit = 100000; last >= limit; limit *= 10)
        wr->name_digits++;
      if (g_mkdir (wr->path, 0777) != 0)
        return failed (error, "%s: cannot create the folder: %s", wr->path, g_strerror (errno));
      for (int k = 0; k < wr->classes; k++)
        {
          g_autofree char *dir = class_dir (wr->path, k);
          if (g_mkdir (dir, 0777) != 0)
            return failed (error, "%s: cannot create the folder: %s", dir, g_strerror (errno));
        }
      return TRUE;
    }
#ifdef LS_MAKE_HAVE_HDF5
  return hdf5_open (wr, width, height, error);
#else
  return failed (error, "no HDF5 support in this build");
#endif
}

static gboolean
writer_put (writer *wr, const job *j, GError **error)
{
  int label = (int) (j->index % (uint64_t) wr->classes);

  wr->labels[j->index] = label;
  wr->bytes += j->len;
  if (wr->format == LS_MAKE_JPEG_DIR)
    {
      g_autofree char *path = g_strdup_printf ("%s" G_DIR_SEPARATOR_S "class_%d" G_DIR_SEPARATOR_S
                                               "img_%0*" G_GUINT64_FORMAT ".jpg",
                                               wr->path, label, wr->name_digits, j->index);
      FILE *fp = g_fopen (path, "wb");
      if (!fp)
        return failed (error, "%s: cannot create: %s", path, g_strerror (errno));
      size_t put = fwrite (j->data, 1, j->len, fp);
      int saved = errno;
      if (fclose (fp) != 0 || put != j->len)
        return failed (error, "%s: writing failed: %s", path, g_strerror (put != j->len ? saved : errno));
      return TRUE;
    }
#ifdef LS_MAKE_HAVE_HDF5
  return hdf5_put (wr, j, error);
#else
  return failed (error, "no HDF5 support in this build");
#endif
}

/* Closes the writer; with finish, completes the dataset (labels). */
static gboolean
writer_close (writer *wr, gboolean finish, GError **error)
{
  gboolean ok = TRUE;
#ifdef LS_MAKE_HAVE_HDF5
  if (wr->format != LS_MAKE_JPEG_DIR)
    ok = hdf5_close (wr, finish, error);
#endif
  g_clear_pointer (&wr->labels, g_free);
  return ok;
}

/* ---------------------------------------------------------------------------
 * Paths: never replace what is not ours
 * ------------------------------------------------------------------------- */

static gboolean
is_dir (const char *path)
{
  return g_file_test (path, G_FILE_TEST_IS_DIR) && !g_file_test (path, G_FILE_TEST_IS_SYMLINK);
}

static gboolean
dir_is_empty (const char *path)
{
  GDir *d = g_dir_open (path, 0, NULL);
  gboolean empty = d && g_dir_read_name (d) == NULL;
  if (d)
    g_dir_close (d);
  return empty;
}

/* Whether a folder holds a generated jpeg-dir dataset and nothing else:
 * only class_* folders of *.jpg files. */
static gboolean
looks_generated (const char *root)
{
  GDir *d = g_dir_open (root, 0, NULL);
  const char *name;
  gboolean ok = d != NULL;

  while (ok && (name = g_dir_read_name (d)))
    {
      g_autofree char *sub = g_build_filename (root, name, NULL);
      GDir *cd;
      const char *file;
      if (!g_str_has_prefix (name, "class_") || !is_dir (sub) || !(cd = g_dir_open (sub, 0, NULL)))
        {
          ok = FALSE;
          break;
        }
      while (ok && (file = g_dir_read_name (cd)))
        {
          g_autofree char *p = g_build_filename (sub, file, NULL);
          ok = g_str_has_suffix (file, ".jpg") && g_file_test (p, G_FILE_TEST_IS_REGULAR)
               && !g_file_test (p, G_FILE_TEST_IS_SYMLINK);
        }
      g_dir_close (cd);
    }
  if (d)
    g_dir_close (d);
  return ok;
}

/* Removes a folder that looks_generated() accepted, or one being written. */
static void
remove_generated (const char *root)
{
  GDir *d = g_dir_open (root, 0, NULL);
  const char *name;

  while (d && (name = g_dir_read_name (d)))
    {
      g_autofree char *sub = g_build_filename (root, name, NULL);
      GDir *cd = g_str_has_prefix (name, "class_") && is_dir (sub) ? g_dir_open (sub, 0, NULL) : NULL;
      const char *file;
      while (cd && (file = g_dir_read_name (cd)))
        if (g_str_has_suffix (file, ".jpg"))
          {
            g_autofree char *p = g_build_filename (sub, file, NULL);
            g_unlink (p);
          }
      if (cd)
        {
          g_dir_close (cd);
          g_rmdir (sub);
        }
    }
  if (d)
    g_dir_close (d);
  g_rmdir (root);
}

static void
remove_partial (ls_make_format format, const char *partial)
{
  if (format == LS_MAKE_JPEG_DIR)
    remove_generated (partial);
  else
    g_unlink (partial);
}

/* Checks OUT, its folder and OUT.partial before any work. */
static gboolean
check_paths (const ls_make_options *o, const char *out, const char *partial, GError **error)
{
  g_autofree char *parent = g_path_get_dirname (out);
  gboolean dir_format = o->format == LS_MAKE_JPEG_DIR;

  if (!g_file_test (parent, G_FILE_TEST_EXISTS))
    return usage_error (error, "%s: the folder %s does not exist (make-dataset does not create it)", out, parent);
  if (!g_file_test (parent, G_FILE_TEST_IS_DIR))
    return usage_error (error, "%s: %s is not a folder", out, parent);

  if (g_file_test (out, G_FILE_TEST_IS_SYMLINK))
    return usage_error (error, "%s is a symbolic link; give the path itself", out);
  if (dir_format && g_file_test (out, G_FILE_TEST_EXISTS))
    {
      if (!is_dir (out))
        return usage_error (error, "%s exists and is not a folder (jpeg-dir writes a folder)", out);
      if (!dir_is_empty (out))
        {
          if (!o->force)
            return usage_error (error, "%s is a folder that is not empty (--force replaces a generated dataset)", out);
          if (!looks_generated (out))
            return usage_error (error,
                                "%s holds files that are not a generated dataset (only class_*/*.jpg); "
                                "not replacing it, even with --force",
                                out);
        }
    }
  else if (!dir_format && g_file_test (out, G_FILE_TEST_EXISTS))
    {
      if (g_file_test (out, G_FILE_TEST_IS_DIR))
        return usage_error (error, "%s is a folder (%s writes one file, such as data.h5)", out,
                            ls_make_format_name (o->format));
      if (!g_file_test (out, G_FILE_TEST_IS_REGULAR))
        return usage_error (error, "%s exists and is not a regular file", out);
      if (!o->force)
        return usage_error (error, "%s exists (--force replaces it)", out);
    }

  /* A leftover of an interrupted generation is ours to remove. */
  if (g_file_test (partial, G_FILE_TEST_EXISTS) || g_file_test (partial, G_FILE_TEST_IS_SYMLINK))
    {
      gboolean ours = dir_format ? is_dir (partial) && looks_generated (partial)
                                 : g_file_test (partial, G_FILE_TEST_IS_REGULAR)
                                     && !g_file_test (partial, G_FILE_TEST_IS_SYMLINK);
      if (!ours)
        return usage_error (error, "%s is in the way (the temporary name of the dataset); remove it", partial);
      remove_partial (o->format, partial);
      if (g_file_test (partial, G_FILE_TEST_EXISTS))
        return usage_error (error, "%s is in the way (the temporary name of the dataset) and cannot be removed",
                            partial);
    }
  return TRUE;
}

/* partial -> out, replacing what check_paths allowed to replace. */
static gboolean
install (ls_make_format format, const char *partial, const char *out, GError **error)
{
  g_autofree char *old = NULL;

  if (format == LS_MAKE_JPEG_DIR && is_dir (out) && !dir_is_empty (out))
    {
      old = g_strdup_printf ("%s.old-%d", out, (int) getpid ());
      if (g_rename (out, old) != 0)
        return failed (error, "%s: cannot move the old dataset aside: %s", out, g_strerror (errno));
    }
  if (g_rename (partial, out) != 0)
    {
      int saved = errno;
      if (old)
        g_rename (old, out);
      return failed (error, "renaming %s to %s failed: %s", partial, out, g_strerror (saved));
    }
  if (old)
    remove_generated (old);
  return TRUE;
}

static uint64_t
file_size (const char *path)
{
  GStatBuf st;
  return g_stat (path, &st) == 0 ? (uint64_t) st.st_size : 0;
}

/* ---------------------------------------------------------------------------
 * The whole generation
 * ------------------------------------------------------------------------- */

gboolean
ls_make_dataset (const ls_make_options *o, const char *out_arg, ls_make_result *result, GError **error)
{
  gint64 t0 = g_get_monotonic_time ();
  g_autofree char *out = NULL;
  g_autofree char *partial = NULL;
  maker m = { 0 };
  writer wr = { 0 };
  job *jobs = NULL;
  GThreadPool *pool = NULL;
  int threads, window;
  uint64_t submitted = 0, done = 0;
  gboolean ok = TRUE;

  memset (result, 0, sizeof *result);
  if (!check_options (o, error))
    return FALSE;
  if (!out_arg || !*out_arg)
    return usage_error (error, "no output path given");

  /* "/tmp/d/" is "/tmp/d": the temporary name goes beside it, not inside. */
  out = g_strdup (out_arg);
  for (size_t len = strlen (out); len > 1 && G_IS_DIR_SEPARATOR (out[len - 1]); len--)
    out[len - 1] = '\0';
  partial = g_strconcat (out, ".partial", NULL);
  if (!check_paths (o, out, partial, error))
    return FALSE;

  m.format = o->format;
  m.seed = o->seed;
  m.classes = ls_make_classes (o->count);
  m.quality = o->quality == -1 ? LS_MAKE_DEFAULT_QUALITY : o->quality;
  m.width = o->width;
  m.height = o->height;
  if (o->format == LS_MAKE_HDF5 && !m.width)
    m.width = m.height = LS_MAKE_DEFAULT_HDF5_SIDE;
  g_mutex_init (&m.lock);
  g_cond_init (&m.done);

  wr.format = o->format;
  wr.path = partial;
  wr.classes = m.classes;
  wr.count = o->count;
  threads = o->threads > 0 ? o->threads : (int) MIN (g_get_num_processors (), 64u);
  {
    /* A thread holds about 40 bytes a pixel while it works: stay near 2 GB. */
    double pixels = m.width ? (double) m.width * m.height : 640 * 1.08 * 480 * 1.08;
    int fit = (int) MAX (1.0, 2e9 / (pixels * 40.0));
    threads = MIN (threads, fit);
  }
  if (!writer_open (&wr, m.width, m.height, error)
      || !(pool = g_thread_pool_new (make_one, &m, threads, TRUE, error)))
    {
      writer_close (&wr, FALSE, NULL);
      remove_partial (o->format, partial);
      ok = FALSE;
      goto out;
    }
  window = threads * 2 + 2;
  jobs = g_new0 (job, window);

  while (ok && done < o->count)
    {
      while (submitted < o->count && submitted - done < (uint64_t) window)
        {
          job *j = &jobs[submitted % (uint64_t) window];
          memset (j, 0, sizeof *j);
          j->index = submitted++;
          g_thread_pool_push (pool, j, NULL);
        }
      job *j = &jobs[done % (uint64_t) window];
      g_mutex_lock (&m.lock);
      while (!j->ready)
        g_cond_wait (&m.done, &m.lock);
      g_mutex_unlock (&m.lock);

      if (j->error)
        ok = failed (error, "%s", j->error);
      else
        ok = writer_put (&wr, j, error);
      g_clear_pointer (&j->data, g_free);
      g_clear_pointer (&j->error, g_free);
      done++;
      if (ok && o->progress)
        o->progress (done, o->count, wr.bytes, o->progress_data);
      if (ok && o->interrupt && *o->interrupt)
        {
          g_set_error (error, LS_MAKE_ERROR, LS_MAKE_ERROR_INTERRUPTED,
                       "interrupted after %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT " images; %s removed", done,
                       o->count, partial);
          ok = FALSE;
        }
    }

  /* Queued images are dropped; running ones finish before the pool goes. */
  g_thread_pool_free (pool, TRUE, TRUE);
  for (int i = 0; i < window; i++)
    {
      g_free (jobs[i].data);
      g_free (jobs[i].error);
    }
  g_free (jobs);

  if (!writer_close (&wr, ok, ok ? error : NULL))
    ok = FALSE;
  if (ok)
    ok = install (o->format, partial, out, error);
  if (!ok)
    {
      remove_partial (o->format, partial);
      goto out;
    }

  result->images = o->count;
  result->classes = m.classes;
  result->bytes = o->format == LS_MAKE_JPEG_DIR ? wr.bytes : file_size (out);
  result->seconds = (double) (g_get_monotonic_time () - t0) / 1e6;

out:
  g_mutex_clear (&m.lock);
  g_cond_clear (&m.done);
  return ok;
}
