/* Transforms: torchvision parity on fixed crops (reference made once by
 * tests/data/make-parity-fixture.py), RandomResizedCrop's parameters, and
 * the per-sample randomness. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "loader/image-sample.h"
#include "loader/jpeg.h"
#include "loader/transform.h"
#include "platform/fs.h"
#include "test-util.h"

static char *
fixture_path (const char *name)
{
  const char *dir = g_getenv ("LS_TEST_DATA");
  if (!dir)
    g_error ("LS_TEST_DATA is not set: run the tests with `meson test`");
  return g_build_filename (dir, "parity", name, NULL);
}

static guint8 *
read_fixture (const char *name, gsize *len)
{
  g_autofree char *path = fixture_path (name);
  g_autoptr (GError) error = NULL;
  char *data = NULL;
  g_assert_true (g_file_get_contents (path, &data, len, &error));
  return (guint8 *) data;
}

static void
check_torchvision_parity (void)
{
  gsize index_len, ref_len, norm_len;
  g_autofree char *index = (char *) read_fixture ("cases.txt", &index_len);
  g_autofree guint8 *ref = read_fixture ("resized.u8", &ref_len);
  g_autofree guint8 *norm_bytes = read_fixture ("normalize.f32", &norm_len);
  g_auto (GStrv) lines = g_strsplit (index, "\n", -1);
  ls_jpeg_decoder *dec = ls_jpeg_decoder_new ();
  ls_resampler *rs = ls_resampler_new ();
  ls_error err = { 0 };
  float norm[3][256];
  int cases = 0;

  g_assert_cmpuint (norm_len, ==, sizeof norm);
  memcpy (norm, norm_bytes, sizeof norm);

  for (char **l = lines; *l; l++)
    {
      char file[64];
      int x, y, w, h, flip, size, width, height;
      long offset;
      if (**l == '#' || **l == '\0')
        continue;
      g_assert_cmpint (sscanf (*l, "%63s %d %d %d %d %d %d %ld", file, &x, &y, &w, &h, &flip, &size, &offset), ==, 8);
      gsize jpeg_len;
      g_autofree guint8 *jpeg = read_fixture (file, &jpeg_len);
      const uint8_t *pixels;
      size_t stride;
      g_assert_cmpint (ls_jpeg_read_header (dec, jpeg, jpeg_len, LS_DEFAULT_PIXEL_LIMIT, &width, &height, &err), ==,
                       LS_OK);
      g_assert_cmpint (ls_jpeg_decode_region (dec, jpeg, jpeg_len, LS_DEFAULT_PIXEL_LIMIT, x, y, w, h, &pixels, &stride,
                                              &err),
                       ==, LS_OK);

      size_t n = (size_t) size * size * 3;
      g_assert_cmpuint ((gsize) offset + n, <=, ref_len);
      g_autofree guint8 *u8 = g_malloc (n);
      g_autofree float *f32 = g_malloc (n * sizeof (float));
      g_assert_cmpint (ls_resize_crop_rgb (rs, pixels, w, h, stride, flip, size, LS_OUTPUT_U8_HWC, u8, &err), ==, LS_OK);
      g_assert_cmpint (ls_resize_crop_rgb (rs, pixels, w, h, stride, flip, size, LS_OUTPUT_F32_CHW, f32, &err), ==,
                       LS_OK);

      const guint8 *want = ref + offset;
      int worst = 0;
      size_t differ = 0;
      double worst_f = 0;
      for (size_t i = 0; i < n; i++)
        {
          int d = abs ((int) u8[i] - (int) want[i]);
          worst = MAX (worst, d);
          differ += d != 0;
          /* The float output is torchvision's to_tensor + normalize of the same pixel. */
          size_t px = i / 3, c = i % 3;
          double df = fabs ((double) f32[c * (size_t) size * size + px] - (double) norm[c][want[i]]);
          worst_f = MAX (worst_f, df);
        }
      g_test_message ("%s crop (%d,%d %dx%d) flip %d -> %d: max |diff| %d levels, %zu of %zu values differ; "
                      "float max |diff| %.5f",
                      file, x, y, w, h, flip, size, worst, differ, n, worst_f);
      g_assert_cmpint (worst, <=, 1);
      g_assert_cmpfloat (worst_f, <=, 1.0 / 255 / 0.224 + 1e-6); /* one 8-bit level */
      cases++;
    }
  g_assert_cmpint (cases, ==, 8);
  ls_jpeg_decoder_free (dec);
  ls_resampler_free (rs);
}

static void
test_torchvision_parity (void)
{
  ls_transform_use_simd (true);
  check_torchvision_parity ();
}

static void
test_torchvision_parity_portable_code (void)
{
  ls_transform_use_simd (false);
  check_torchvision_parity ();
  ls_transform_use_simd (true);
}

static gboolean
same_crop (const ls_crop *a, const ls_crop *b)
{
  return a->x == b->x && a->y == b->y && a->width == b->width && a->height == b->height && a->flip == b->flip;
}

static void
test_random_resized_crop_parameters (void)
{
  int flips = 0, fallbacks = 0;

  for (uint64_t i = 0; i < 4000; i++)
    {
      int w = 50 + (int) (i % 700), h = 40 + (int) ((i * 7) % 500);
      ls_rng rng = ls_sample_rng (11, 0, i);
      ls_crop c = ls_random_resized_crop (w, h, &rng);
      g_assert_cmpint (c.x, >=, 0);
      g_assert_cmpint (c.y, >=, 0);
      g_assert_cmpint (c.width, >, 0);
      g_assert_cmpint (c.height, >, 0);
      g_assert_cmpint (c.x + c.width, <=, w);
      g_assert_cmpint (c.y + c.height, <=, h);
      double frac = (double) c.width * c.height / ((double) w * h);
      double ratio = (double) c.width / c.height;
      /* Rounding to whole pixels moves both a little. */
      g_assert_cmpfloat (frac, >=, 0.08 * 0.85);
      g_assert_cmpfloat (frac, <=, 1.0);
      if (ratio < 0.70 || ratio > 1.40)
        fallbacks++;
      flips += c.flip;

      /* A pure function of (seed, epoch, index). */
      ls_rng again = ls_sample_rng (11, 0, i);
      ls_crop c2 = ls_random_resized_crop (w, h, &again);
      g_assert_true (same_crop (&c, &c2));
    }
  g_assert_cmpint (flips, >, 1800);
  g_assert_cmpint (flips, <, 2200);
  g_assert_cmpint (fallbacks, <, 40);

  /* Another epoch, another crop (nearly always). */
  int same = 0;
  for (uint64_t i = 0; i < 200; i++)
    {
      ls_rng a = ls_sample_rng (11, 0, i), b = ls_sample_rng (11, 1, i);
      ls_crop ca = ls_random_resized_crop (500, 375, &a), cb = ls_random_resized_crop (500, 375, &b);
      same += same_crop (&ca, &cb);
    }
  g_assert_cmpint (same, <, 3);
}

static void
test_fallback_is_central_crop (void)
{
  /* 1000 x 10: no crop in the ratio range fits, so the central one is used. */
  ls_rng rng = ls_sample_rng (1, 0, 0);
  ls_crop c = ls_random_resized_crop (1000, 10, &rng);
  g_assert_cmpint (c.height, ==, 10);
  g_assert_cmpint (c.width, ==, 13); /* round(10 * 4/3) */
  g_assert_cmpint (c.x, ==, (1000 - 13) / 2);
  g_assert_cmpint (c.y, ==, 0);
}

static void
test_tiny_and_gray_images (void)
{
  ls_image_pipeline p;
  ls_error err = { 0 };
  uint8_t one[3] = { 10, 200, 77 };
  g_autofree uint8_t *out = g_malloc (224 * 224 * 3);

  g_assert_cmpint (ls_image_pipeline_init (&p, 5, 224, LS_OUTPUT_U8_HWC, LS_DEFAULT_PIXEL_LIMIT, &err), ==, LS_OK);
  /* A 1x1 image is upscaled to a flat 224x224. */
  g_assert_cmpint (ls_image_sample_pixels (&p, one, 1, 1, 3, 3, 0, 0, out, &err), ==, LS_OK);
  for (size_t i = 0; i < 224 * 224; i++)
    g_assert_true (out[i * 3] == 10 && out[i * 3 + 1] == 200 && out[i * 3 + 2] == 77);

  /* Gray pixels give the same sample as their RGB replication. */
  enum { W = 61, H = 47 };
  uint8_t gray[W * H], rgb[W * H * 3];
  for (int i = 0; i < W * H; i++)
    {
      gray[i] = (uint8_t) ((i * 37) ^ (i >> 3));
      rgb[i * 3] = rgb[i * 3 + 1] = rgb[i * 3 + 2] = gray[i];
    }
  g_autofree uint8_t *from_rgb = g_malloc (224 * 224 * 3);
  for (uint64_t idx = 0; idx < 5; idx++)
    {
      g_assert_cmpint (ls_image_sample_pixels (&p, gray, W, H, 1, W, 3, idx, out, &err), ==, LS_OK);
      g_assert_cmpint (ls_image_sample_pixels (&p, rgb, W, H, 3, W * 3, 3, idx, from_rgb, &err), ==, LS_OK);
      g_assert_cmpmem (out, 224 * 224 * 3, from_rgb, 224 * 224 * 3);
    }

  /* Over the pixel limit: refused by size alone. */
  g_assert_cmpint (ls_image_sample_pixels (&p, gray, 100000, 100000, 1, 100000, 0, 0, out, &err), ==, LS_ERR_INVALID);
  g_assert_nonnull (strstr (err.message, "over the 64.0 MP limit"));
  ls_image_pipeline_clear (&p);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/loader/transform/torchvision-parity", test_torchvision_parity);
  g_test_add_func ("/loader/transform/torchvision-parity-portable-code", test_torchvision_parity_portable_code);
  g_test_add_func ("/loader/transform/random-resized-crop-parameters", test_random_resized_crop_parameters);
  g_test_add_func ("/loader/transform/fallback-is-central-crop", test_fallback_is_central_crop);
  g_test_add_func ("/loader/transform/tiny-and-gray-images", test_tiny_and_gray_images);
  return ls_test_run_checked ();
}
