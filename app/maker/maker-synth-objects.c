/* The objects of a synthesized image: ellipses, convex polygons and thin
 * bars with soft (defocused) edges, each with its own colour, shading
 * towards one light direction, a soft shadow, its own mix of the texture
 * field and sometimes stripes or a checker pattern. */
#include <string.h>

#include "app/maker/maker-synth.h"

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

void
ls_maker_object_draw_shadow (float *f, int w, int h, const object *o)
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

void
ls_maker_object_draw (float *f, const float *tex, int w, int h, const object *o, float lx, float ly)
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

void
ls_maker_object_make (object *o, ls_rng *r, int w, int h, float size, float class_hue, float lx, float ly)
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
