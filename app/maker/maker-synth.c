/* Image synthesis: ls_make_image, ls_make_image_size, ls_make_classes.
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
 * the pixels do not depend on the C library. */
#include "app/maker/dataset-maker.h"

#include "app/maker/maker-synth.h"

enum { STREAM_SIZE = 1, STREAM_CONTENT = 2 };

#define COARSE 4 /* the texture's coarse octaves are made at 1/COARSE of the resolution */

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
        ls_maker_object_make (&o, &r, width, height, sizes[i], class_hue, lx, ly);
        ls_maker_object_draw_shadow (f, width, height, &o);
        ls_maker_object_draw (f, tex, width, height, &o, lx, ly);
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
