/* torchvision's training transforms for PIL images, in C.
 *
 * The resize reproduces Pillow 9's ImagingResample for 8-bit images with
 * the BILINEAR filter: a triangle filter whose support widens with the
 * downscale factor (antialiasing), weights in 22-bit fixed point, the
 * horizontal pass first over just the rows the vertical pass needs, and
 * rounding to uint8 between the passes. Reproducing the integer steps,
 * not just the filter, is what keeps the output equal to torchvision's. */
#include "loader/transform.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PRECISION_BITS (32 - 8 - 2)

static const float imagenet_mean[3] = { 0.485f, 0.456f, 0.406f };
static const float imagenet_std[3] = { 0.229f, 0.224f, 0.225f };

ls_rng
ls_sample_rng (uint64_t seed, uint32_t epoch, uint64_t index)
{
  return ls_rng_for (seed ^ 0x5452414E53464F52ull /* "TRANSFOR" */, ((uint64_t) epoch << 1) | 1u, index);
}

/* Python's round(): half to even, which nearbyint gives in the default mode. */
static int
round_half_even (double v)
{
  return (int) nearbyint (v);
}

/* torch.randint(lo, hi + 1) for small ranges. */
static int
uniform_int (ls_rng *rng, int lo, int hi)
{
  return lo + (int) ls_rng_below (rng, (uint64_t) (hi - lo + 1));
}

ls_crop
ls_random_resized_crop (int width, int height, ls_rng *rng)
{
  const double scale_lo = 0.08, scale_hi = 1.0;
  const double ratio_lo = 3.0 / 4.0, ratio_hi = 4.0 / 3.0;
  const double log_lo = log (ratio_lo), log_hi = log (ratio_hi);
  const double area = (double) width * height;
  ls_crop c = { 0 };

  for (int attempt = 0; attempt < 10; attempt++)
    {
      double target = area * (scale_lo + ls_rng_uniform (rng) * (scale_hi - scale_lo));
      double aspect = exp (log_lo + ls_rng_uniform (rng) * (log_hi - log_lo));
      int w = round_half_even (sqrt (target * aspect));
      int h = round_half_even (sqrt (target / aspect));
      if (w > 0 && w <= width && h > 0 && h <= height)
        {
          c.y = uniform_int (rng, 0, height - h);
          c.x = uniform_int (rng, 0, width - w);
          c.width = w;
          c.height = h;
          c.flip = ls_rng_uniform (rng) < 0.5;
          return c;
        }
    }
  /* The fallback: a central crop, as wide as the ratio range allows. */
  double in_ratio = (double) width / height;
  if (in_ratio < ratio_lo)
    {
      c.width = width;
      c.height = round_half_even (width / ratio_lo);
    }
  else if (in_ratio > ratio_hi)
    {
      c.height = height;
      c.width = round_half_even (height * ratio_hi);
    }
  else
    {
      c.width = width;
      c.height = height;
    }
  c.y = (height - c.height) / 2;
  c.x = (width - c.width) / 2;
  c.flip = ls_rng_uniform (rng) < 0.5;
  return c;
}

size_t
ls_transformed_bytes (int out_size, ls_output_format format)
{
  return (size_t) out_size * (size_t) out_size * 3 * (format == LS_OUTPUT_U8_HWC ? 1 : sizeof (float));
}

/* ------------------------------------------------------------ resampling */

typedef struct {
  int ksize;
  int *bounds;   /* per output pixel: first input index, number of taps */
  int32_t *kk;   /* per output pixel: ksize fixed-point weights */
  double *prekk; /* the same in double, before normalization */
  int cap_out, cap_k;
} coeffs;

struct ls_resampler {
  coeffs horiz, vert;
  uint8_t *temp;  /* the horizontal pass's output */
  size_t temp_cap;
  uint8_t *resized; /* out x out x 3, before flip and normalization */
  size_t resized_cap;
  float lut[3][256];
};

static double
bilinear_filter (double x)
{
  if (x < 0.0)
    x = -x;
  return x < 1.0 ? 1.0 - x : 0.0;
}

/* Pillow's precompute_coeffs + normalize_coeffs_8bpc for in0 = 0, in1 = in_size. */
static int
precompute (coeffs *c, int in_size, int out_size)
{
  double scale = (double) in_size / out_size;
  double filterscale = scale < 1.0 ? 1.0 : scale;
  double support = 1.0 * filterscale;
  int ksize = (int) ceil (support) * 2 + 1;

  if (out_size > c->cap_out || ksize * out_size > c->cap_k)
    {
      free (c->bounds);
      free (c->kk);
      free (c->prekk);
      c->cap_out = out_size;
      c->cap_k = ksize * out_size;
      c->bounds = malloc ((size_t) out_size * 2 * sizeof *c->bounds);
      c->kk = malloc ((size_t) c->cap_k * sizeof *c->kk);
      c->prekk = malloc ((size_t) c->cap_k * sizeof *c->prekk);
      if (!c->bounds || !c->kk || !c->prekk)
        {
          c->cap_out = c->cap_k = 0;
          return -1;
        }
    }
  c->ksize = ksize;
  for (int xx = 0; xx < out_size; xx++)
    {
      double center = (xx + 0.5) * scale;
      double ww = 0.0, ss = 1.0 / filterscale;
      int xmin = (int) (center - support + 0.5);
      if (xmin < 0)
        xmin = 0;
      int xmax = (int) (center + support + 0.5);
      if (xmax > in_size)
        xmax = in_size;
      xmax -= xmin;
      double *k = &c->prekk[xx * ksize];
      int x = 0;
      for (; x < xmax; x++)
        {
          double w = bilinear_filter ((x + xmin - center + 0.5) * ss);
          k[x] = w;
          ww += w;
        }
      for (x = 0; x < xmax; x++)
        if (ww != 0.0)
          k[x] /= ww;
      for (; x < ksize; x++)
        k[x] = 0;
      c->bounds[xx * 2] = xmin;
      c->bounds[xx * 2 + 1] = xmax;
    }
  for (int i = 0; i < out_size * ksize; i++)
    c->kk[i] = c->prekk[i] < 0 ? (int32_t) (-0.5 + c->prekk[i] * (1 << PRECISION_BITS))
                               : (int32_t) (0.5 + c->prekk[i] * (1 << PRECISION_BITS));
  return 0;
}

static inline uint8_t
clip8 (int32_t v)
{
  v >>= PRECISION_BITS;
  return (uint8_t) (v < 0 ? 0 : v > 255 ? 255 : v);
}

/* Rows [first, first + rows) of the source, resized horizontally. */
static void
resample_horizontal (uint8_t *out, int out_w, const uint8_t *in, size_t stride, int first, int rows, const coeffs *c)
{
  for (int y = 0; y < rows; y++)
    {
      const uint8_t *src = in + (size_t) (y + first) * stride;
      uint8_t *dst = out + (size_t) y * out_w * 3;
      for (int xx = 0; xx < out_w; xx++)
        {
          int xmin = c->bounds[xx * 2], xmax = c->bounds[xx * 2 + 1];
          const int32_t *k = &c->kk[xx * c->ksize];
          int32_t s0 = 1 << (PRECISION_BITS - 1), s1 = s0, s2 = s0;
          const uint8_t *p = src + (size_t) xmin * 3;
          for (int x = 0; x < xmax; x++, p += 3)
            {
              s0 += p[0] * k[x];
              s1 += p[1] * k[x];
              s2 += p[2] * k[x];
            }
          dst[xx * 3] = clip8 (s0);
          dst[xx * 3 + 1] = clip8 (s1);
          dst[xx * 3 + 2] = clip8 (s2);
        }
    }
}

/* bounds are relative to the first row of in. */
static void
resample_vertical (uint8_t *out, int out_h, const uint8_t *in, size_t stride, int width, const coeffs *c, int shift)
{
  for (int yy = 0; yy < out_h; yy++)
    {
      int ymin = c->bounds[yy * 2] - shift, ymax = c->bounds[yy * 2 + 1];
      const int32_t *k = &c->kk[yy * c->ksize];
      uint8_t *dst = out + (size_t) yy * width * 3;
      for (int x = 0; x < width * 3; x++)
        {
          int32_t s = 1 << (PRECISION_BITS - 1);
          const uint8_t *p = in + (size_t) ymin * stride + x;
          for (int y = 0; y < ymax; y++, p += stride)
            s += *p * k[y];
          dst[x] = clip8 (s);
        }
    }
}

ls_resampler *
ls_resampler_new (void)
{
  ls_resampler *r = calloc (1, sizeof *r);
  if (!r)
    return NULL;
  /* to_tensor then normalize, in float32 as torch computes them. */
  for (int c = 0; c < 3; c++)
    for (int v = 0; v < 256; v++)
      r->lut[c][v] = ((float) v / 255.0f - imagenet_mean[c]) / imagenet_std[c];
  return r;
}

void
ls_resampler_free (ls_resampler *r)
{
  if (!r)
    return;
  free (r->horiz.bounds);
  free (r->horiz.kk);
  free (r->horiz.prekk);
  free (r->vert.bounds);
  free (r->vert.kk);
  free (r->vert.prekk);
  free (r->temp);
  free (r->resized);
  free (r);
}

static int
ensure (uint8_t **buf, size_t *cap, size_t need)
{
  if (need <= *cap)
    return 0;
  uint8_t *grown = realloc (*buf, need);
  if (!grown)
    return -1;
  *buf = grown;
  *cap = need;
  return 0;
}

int
ls_resize_crop_rgb (ls_resampler *r, const uint8_t *pixels, int crop_width, int crop_height, size_t stride, bool flip,
                    int out_size, ls_output_format format, void *out, ls_error *err)
{
  if (crop_width <= 0 || crop_height <= 0 || out_size <= 0)
    return ls_error_set (err, LS_ERR_INVALID, "resize: empty crop %dx%d or output %d", crop_width, crop_height,
                         out_size);
  if (precompute (&r->vert, crop_height, out_size) != 0 || precompute (&r->horiz, crop_width, out_size) != 0
      || ensure (&r->resized, &r->resized_cap, (size_t) out_size * out_size * 3) != 0)
    return ls_error_set (err, LS_ERR_NOMEM, "resize: out of memory");

  bool need_h = out_size != crop_width, need_v = out_size != crop_height;
  const uint8_t *src = pixels;
  size_t src_stride = stride;
  int shift = 0;

  if (need_h)
    {
      int first = r->vert.bounds[0];
      int last = r->vert.bounds[out_size * 2 - 2] + r->vert.bounds[out_size * 2 - 1];
      if (!need_v)
        {
          first = 0;
          last = crop_height;
        }
      uint8_t *dst = need_v ? NULL : r->resized;
      if (need_v)
        {
          if (ensure (&r->temp, &r->temp_cap, (size_t) out_size * 3 * (size_t) (last - first)) != 0)
            return ls_error_set (err, LS_ERR_NOMEM, "resize: out of memory");
          dst = r->temp;
        }
      resample_horizontal (dst, out_size, pixels, stride, first, last - first, &r->horiz);
      src = dst;
      src_stride = (size_t) out_size * 3;
      shift = first;
    }
  if (need_v)
    resample_vertical (r->resized, out_size, src, src_stride, out_size, &r->vert, shift);
  else if (!need_h)
    for (int y = 0; y < out_size; y++)
      memcpy (r->resized + (size_t) y * out_size * 3, pixels + (size_t) y * stride, (size_t) out_size * 3);

  const uint8_t *res = r->resized;
  const size_t plane = (size_t) out_size * out_size;
  if (format == LS_OUTPUT_U8_HWC)
    {
      uint8_t *o = out;
      for (int y = 0; y < out_size; y++)
        {
          const uint8_t *row = res + (size_t) y * out_size * 3;
          uint8_t *orow = o + (size_t) y * out_size * 3;
          if (!flip)
            memcpy (orow, row, (size_t) out_size * 3);
          else
            for (int x = 0; x < out_size; x++)
              memcpy (orow + x * 3, row + (out_size - 1 - x) * 3, 3);
        }
    }
  else
    {
      float *o = out;
      for (int y = 0; y < out_size; y++)
        {
          const uint8_t *row = res + (size_t) y * out_size * 3;
          float *r0 = o + (size_t) y * out_size, *r1 = r0 + plane, *r2 = r1 + plane;
          for (int x = 0; x < out_size; x++)
            {
              const uint8_t *p = row + (size_t) (flip ? out_size - 1 - x : x) * 3;
              r0[x] = r->lut[0][p[0]];
              r1[x] = r->lut[1][p[1]];
              r2[x] = r->lut[2][p[2]];
            }
        }
    }
  return LS_OK;
}
