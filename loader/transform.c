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

#include "platform/clock.h"

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
  int32_t *acc;     /* one output row of sums */
  int acc_cap;
  float lut[3][256];
  uint64_t write_ns; /* the last call's output pass (flip, normalize, store) */
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
resample_horizontal_portable (uint8_t *restrict out, int out_w, const uint8_t *restrict in, size_t stride, int first,
                              int rows, int in_w, const coeffs *c)
{
  (void) in_w;
  for (int y = 0; y < rows; y++)
    {
      const uint8_t *src = in + (size_t) (y + first) * stride;
      uint8_t *dst = out + (size_t) y * out_w * 3;
      for (int xx = 0; xx < out_w; xx++)
        {
          int xmin = c->bounds[xx * 2], xmax = c->bounds[xx * 2 + 1];
          const int32_t *k = &c->kk[xx * c->ksize];
          const uint8_t *p = src + (size_t) xmin * 3;
          int32_t s0 = 1 << (PRECISION_BITS - 1), s1 = s0, s2 = s0;
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

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

/* The same sums with SSE4.1: the three channels of a pixel in one register
 * (one 4-byte load widened to 32-bit lanes), one multiply-add per tap. The
 * lanes' integer sums are the portable version's, bit for bit. */
__attribute__ ((target ("sse4.1"))) static void
resample_horizontal_sse41 (uint8_t *restrict out, int out_w, const uint8_t *restrict in, size_t stride, int first,
                           int rows, int in_w, const coeffs *c)
{
  const __m128i half = _mm_set1_epi32 (1 << (PRECISION_BITS - 1));
  for (int y = 0; y < rows; y++)
    {
      const uint8_t *src = in + (size_t) (y + first) * stride;
      uint8_t *dst = out + (size_t) y * out_w * 3;
      for (int xx = 0; xx < out_w; xx++)
        {
          int xmin = c->bounds[xx * 2], xmax = c->bounds[xx * 2 + 1];
          const int32_t *k = &c->kk[xx * c->ksize];
          const uint8_t *p = src + (size_t) xmin * 3;
          /* A 4-byte load of the row's last pixel would read past it. */
          int wide = xmin + xmax < in_w ? xmax : xmax - 1;
          __m128i s = half;
          int x = 0;
          for (; x < wide; x++, p += 3)
            {
              uint32_t v;
              memcpy (&v, p, 4);
              __m128i px = _mm_cvtepu8_epi32 (_mm_cvtsi32_si128 ((int) v));
              s = _mm_add_epi32 (s, _mm_mullo_epi32 (px, _mm_set1_epi32 (k[x])));
            }
          for (; x < xmax; x++, p += 3)
            {
              __m128i px = _mm_setr_epi32 (p[0], p[1], p[2], 0);
              s = _mm_add_epi32 (s, _mm_mullo_epi32 (px, _mm_set1_epi32 (k[x])));
            }
          s = _mm_srai_epi32 (s, PRECISION_BITS);
          s = _mm_packus_epi16 (_mm_packs_epi32 (s, s), s);
          uint32_t packed = (uint32_t) _mm_cvtsi128_si32 (s);
          memcpy (dst + xx * 3, &packed, 2);
          dst[xx * 3 + 2] = (uint8_t) (packed >> 16);
        }
    }
}
#endif

/* -1: not decided yet; 0: portable code only (tests compare both). */
static int simd_allowed = -1;

void
ls_transform_use_simd (bool allowed)
{
  simd_allowed = allowed;
}

static bool
cpu_has (int feature)
{
#if defined(__x86_64__) && defined(__GNUC__)
  static int sse41 = -1, avx2 = -1;
  if (simd_allowed == 0)
    return false;
  if (sse41 < 0)
    {
      sse41 = __builtin_cpu_supports ("sse4.1") ? 1 : 0;
      avx2 = __builtin_cpu_supports ("avx2") ? 1 : 0;
    }
  return feature == 41 ? sse41 : avx2;
#else
  (void) feature;
  return false;
#endif
}

static void
resample_horizontal (uint8_t *restrict out, int out_w, const uint8_t *restrict in, size_t stride, int first, int rows,
                     int in_w, const coeffs *c)
{
#if defined(__x86_64__) && defined(__GNUC__)
  if (cpu_has (41))
    {
      resample_horizontal_sse41 (out, out_w, in, stride, first, rows, in_w, c);
      return;
    }
#endif
  resample_horizontal_portable (out, out_w, in, stride, first, rows, in_w, c);
}

/* bounds are relative to the first row of in. Rows are accumulated whole,
 * in order, so the loop is sequential and vectorizes; integer sums do not
 * depend on the order, so the result is Pillow's. The body is compiled for
 * the baseline and again for AVX2 (which has the 32-bit multiply the
 * baseline lacks), and picked at run time. */
#define RESAMPLE_VERTICAL_BODY                                                                                      \
  const int n = width * 3;                                                                                         \
  for (int yy = 0; yy < out_h; yy++)                                                                               \
    {                                                                                                              \
      int ymin = c->bounds[yy * 2] - shift, ymax = c->bounds[yy * 2 + 1];                                        \
      const int32_t *k = &c->kk[yy * c->ksize];                                                                    \
      uint8_t *dst = out + (size_t) yy * n;                                                                        \
      for (int x = 0; x < n; x++)                                                                                  \
        acc[x] = 1 << (PRECISION_BITS - 1);                                                                        \
      for (int y = 0; y < ymax; y++)                                                                               \
        {                                                                                                          \
          const uint8_t *restrict row = in + (size_t) (ymin + y) * stride;                                        \
          const int32_t w = k[y];                                                                                  \
          for (int x = 0; x < n; x++)                                                                              \
            acc[x] += row[x] * w;                                                                                  \
        }                                                                                                          \
      for (int x = 0; x < n; x++)                                                                                  \
        {                                                                                                          \
          int32_t v = acc[x] >> PRECISION_BITS;                                                                    \
          v = v < 0 ? 0 : v;                                                                                       \
          dst[x] = (uint8_t) (v > 255 ? 255 : v);                                                                  \
        }                                                                                                          \
    }

static void
resample_vertical_portable (uint8_t *restrict out, int out_h, const uint8_t *restrict in, size_t stride, int width,
                            const coeffs *c, int shift, int32_t *restrict acc)
{
  RESAMPLE_VERTICAL_BODY
}

#if defined(__x86_64__) && defined(__GNUC__)
__attribute__ ((target ("avx2"))) static void
resample_vertical_avx2 (uint8_t *restrict out, int out_h, const uint8_t *restrict in, size_t stride, int width,
                        const coeffs *c, int shift, int32_t *restrict acc)
{
  RESAMPLE_VERTICAL_BODY
}
#endif

static void
resample_vertical (uint8_t *restrict out, int out_h, const uint8_t *restrict in, size_t stride, int width,
                   const coeffs *c, int shift, int32_t *restrict acc)
{
#if defined(__x86_64__) && defined(__GNUC__)
  if (cpu_has (2))
    {
      resample_vertical_avx2 (out, out_h, in, stride, width, c, shift, acc);
      return;
    }
#endif
  resample_vertical_portable (out, out_h, in, stride, width, c, shift, acc);
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
  free (r->acc);
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
  r->write_ns = 0;
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
      resample_horizontal (dst, out_size, pixels, stride, first, last - first, crop_width, &r->horiz);
      src = dst;
      src_stride = (size_t) out_size * 3;
      shift = first;
    }
  if (need_v)
    {
      if (r->acc_cap < out_size * 3)
        {
          int32_t *grown = realloc (r->acc, (size_t) out_size * 3 * sizeof *grown);
          if (!grown)
            return ls_error_set (err, LS_ERR_NOMEM, "resize: out of memory");
          r->acc = grown;
          r->acc_cap = out_size * 3;
        }
      resample_vertical (r->resized, out_size, src, src_stride, out_size, &r->vert, shift, r->acc);
    }
  else if (!need_h)
    for (int y = 0; y < out_size; y++)
      memcpy (r->resized + (size_t) y * out_size * 3, pixels + (size_t) y * stride, (size_t) out_size * 3);

  const uint8_t *res = r->resized;
  const size_t plane = (size_t) out_size * out_size;
  uint64_t write_start = ls_clock_ns ();
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
  r->write_ns = ls_clock_ns () - write_start;
  return LS_OK;
}

uint64_t
ls_resampler_last_write_ns (const ls_resampler *r)
{
  return r->write_ns;
}
