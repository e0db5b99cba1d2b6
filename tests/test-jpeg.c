/* The JPEG layer: headers, region decoding (pixel-exact against a full
 * decode and against TurboJPEG), colour spaces (gray, CMYK and YCCK as PIL
 * converts them), bad input (empty, not a JPEG, truncated, corrupt,
 * decompression bomb) and the encoder. Every fixture is made in memory. */
#include <stdio.h> /* jpeglib.h needs FILE */
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>
#include <turbojpeg.h>

#include "loader/jpeg.h"
#include "test-util.h"

#define LIMIT_64MP ((uint64_t) 64 * 1000 * 1000)

typedef struct fixture {
  const char *name;
  uint8_t *data;
  size_t len;
  int width, height;
  int cmyk; /* 4 components (CMYK or YCCK) */
  int gray;
} fixture;

enum {
  FX_BASELINE_420,
  FX_444,
  FX_422,
  FX_440,
  FX_PROGRESSIVE_420,
  FX_PROGRESSIVE_444,
  FX_RESTART_420,
  FX_GRAY,
  FX_PROGRESSIVE_GRAY,
  FX_CMYK,
  FX_YCCK,
  FX_TINY_1X1,
  FX_TINY_3X5,
  FX_TINY_3X5_GRAY,
  FX_COUNT
};

static fixture fixtures[FX_COUNT];

/* ---- images ---- */

static uint32_t
lcg (uint32_t *s)
{
  *s = *s * 1664525u + 1013904223u;
  return *s >> 8;
}

/* Gradients, waves, noise and hard-edged patches: chroma changes at every
 * scale, so any upsampling difference at a crop edge shows. */
static uint8_t *
textured (int w, int h, int channels, uint32_t seed)
{
  uint8_t *p = g_malloc ((size_t) w * h * channels);
  uint32_t s = seed;

  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      for (int c = 0; c < channels; c++)
        {
          int v = (x * (3 + c) + y * (5 - c) + (int) seed * 61) % 256;
          v += (int) (40 * ((((x / (5 + c)) + (y / (7 - c))) & 1) ? 1 : -1));
          v += (int) (lcg (&s) % 41) - 20;
          if (((x / 13) ^ (y / 11) ^ c) & 1)
            v = 255 - v;
          p[((size_t) y * w + x) * channels + c] = (uint8_t) CLAMP (v, 0, 255);
        }
  return p;
}

/* A smooth image, for the encode round trip. */
static uint8_t *
smooth (int w, int h)
{
  uint8_t *p = g_malloc ((size_t) w * h * 3);

  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      {
        uint8_t *q = p + ((size_t) y * w + x) * 3;
        q[0] = (uint8_t) (x * 255 / (w - 1));
        q[1] = (uint8_t) (y * 255 / (h - 1));
        q[2] = (uint8_t) ((x + y) * 255 / (w + h - 2));
      }
  return p;
}

/* ---- encoders ---- */

typedef struct lj_options {
  int components;           /* 1, 3 or 4 */
  J_COLOR_SPACE in_space;   /* JCS_GRAYSCALE, JCS_RGB or JCS_CMYK */
  J_COLOR_SPACE jpeg_space; /* what the file holds */
  int quality;
  int progressive;
  int h_samp, v_samp;       /* of the first component; 0: libjpeg's default */
  int restart_rows;
} lj_options;

static void
encode_libjpeg (const uint8_t *px, int w, int h, const lj_options *o, uint8_t **out, size_t *out_len)
{
  struct jpeg_compress_struct c;
  struct jpeg_error_mgr jerr;
  unsigned char *buf = NULL;
  unsigned long size = 0;

  c.err = jpeg_std_error (&jerr);
  jpeg_create_compress (&c);
  jpeg_mem_dest (&c, &buf, &size);
  c.image_width = (JDIMENSION) w;
  c.image_height = (JDIMENSION) h;
  c.input_components = o->components;
  c.in_color_space = o->in_space;
  jpeg_set_defaults (&c);
  jpeg_set_colorspace (&c, o->jpeg_space);
  if (o->components == 4)
    c.write_Adobe_marker = TRUE;
  if (o->h_samp)
    {
      c.comp_info[0].h_samp_factor = o->h_samp;
      c.comp_info[0].v_samp_factor = o->v_samp;
    }
  c.dct_method = JDCT_ISLOW;
  jpeg_set_quality (&c, o->quality, TRUE);
  if (o->progressive)
    jpeg_simple_progression (&c);
  c.restart_in_rows = o->restart_rows;
  jpeg_start_compress (&c, TRUE);
  while (c.next_scanline < c.image_height)
    {
      JSAMPROW row = (JSAMPROW) (px + (size_t) c.next_scanline * w * o->components);
      jpeg_write_scanlines (&c, &row, 1);
    }
  jpeg_finish_compress (&c);
  jpeg_destroy_compress (&c);
  /* copy into GLib's allocator so every fixture is freed the same way */
  *out = g_memdup2 (buf, size);
  *out_len = size;
  free (buf);
}

static void
encode_turbo (const uint8_t *px, int w, int h, int components, int quality, int s444, uint8_t **out, size_t *len)
{
  ls_error err = { 0 };
  uint8_t *buf = NULL;
  size_t n = 0;

  g_assert_cmpint (ls_jpeg_encode (px, w, h, components, quality, s444, &buf, &n, &err), ==, LS_OK);
  g_assert_cmpuint (n, >, 100);
  *out = g_memdup2 (buf, n);
  *len = n;
  free (buf);
}

static void
add_fixture (int id, const char *name, int w, int h, int cmyk, int gray)
{
  fixtures[id].name = name;
  fixtures[id].width = w;
  fixtures[id].height = h;
  fixtures[id].cmyk = cmyk;
  fixtures[id].gray = gray;
}

static void
make_fixtures (void)
{
  const int w = 203, h = 157; /* not multiples of any MCU size */
  uint8_t *rgb = textured (w, h, 3, 1);
  uint8_t *gray = textured (w, h, 1, 2);
  uint8_t *cmyk = textured (w, h, 4, 3);
  uint8_t *big = textured (333, 250, 3, 4);
  uint8_t *tiny = textured (3, 5, 3, 5);
  uint8_t *tiny_gray = textured (3, 5, 1, 6);
  lj_options o;

  add_fixture (FX_BASELINE_420, "baseline-420", 333, 250, 0, 0);
  encode_turbo (big, 333, 250, 3, 90, 0, &fixtures[FX_BASELINE_420].data, &fixtures[FX_BASELINE_420].len);
  add_fixture (FX_444, "baseline-444", w, h, 0, 0);
  encode_turbo (rgb, w, h, 3, 90, 1, &fixtures[FX_444].data, &fixtures[FX_444].len);
  add_fixture (FX_GRAY, "gray", w, h, 0, 1);
  encode_turbo (gray, w, h, 1, 90, 0, &fixtures[FX_GRAY].data, &fixtures[FX_GRAY].len);
  add_fixture (FX_TINY_1X1, "tiny-1x1", 1, 1, 0, 0);
  encode_turbo (tiny, 1, 1, 3, 90, 0, &fixtures[FX_TINY_1X1].data, &fixtures[FX_TINY_1X1].len);
  add_fixture (FX_TINY_3X5, "tiny-3x5", 3, 5, 0, 0);
  encode_turbo (tiny, 3, 5, 3, 90, 0, &fixtures[FX_TINY_3X5].data, &fixtures[FX_TINY_3X5].len);
  add_fixture (FX_TINY_3X5_GRAY, "tiny-3x5-gray", 3, 5, 0, 1);
  encode_turbo (tiny_gray, 3, 5, 1, 90, 0, &fixtures[FX_TINY_3X5_GRAY].data, &fixtures[FX_TINY_3X5_GRAY].len);

  o = (lj_options) { 3, JCS_RGB, JCS_YCbCr, 90, 0, 2, 1, 0 };
  add_fixture (FX_422, "baseline-422", w, h, 0, 0);
  encode_libjpeg (rgb, w, h, &o, &fixtures[FX_422].data, &fixtures[FX_422].len);
  o = (lj_options) { 3, JCS_RGB, JCS_YCbCr, 90, 0, 1, 2, 0 };
  add_fixture (FX_440, "baseline-440", w, h, 0, 0);
  encode_libjpeg (rgb, w, h, &o, &fixtures[FX_440].data, &fixtures[FX_440].len);
  o = (lj_options) { 3, JCS_RGB, JCS_YCbCr, 90, 1, 2, 2, 0 };
  add_fixture (FX_PROGRESSIVE_420, "progressive-420", w, h, 0, 0);
  encode_libjpeg (rgb, w, h, &o, &fixtures[FX_PROGRESSIVE_420].data, &fixtures[FX_PROGRESSIVE_420].len);
  o = (lj_options) { 3, JCS_RGB, JCS_YCbCr, 85, 1, 1, 1, 0 };
  add_fixture (FX_PROGRESSIVE_444, "progressive-444", w, h, 0, 0);
  encode_libjpeg (rgb, w, h, &o, &fixtures[FX_PROGRESSIVE_444].data, &fixtures[FX_PROGRESSIVE_444].len);
  o = (lj_options) { 3, JCS_RGB, JCS_YCbCr, 90, 0, 2, 2, 1 };
  add_fixture (FX_RESTART_420, "restart-420", w, h, 0, 0);
  encode_libjpeg (rgb, w, h, &o, &fixtures[FX_RESTART_420].data, &fixtures[FX_RESTART_420].len);
  o = (lj_options) { 1, JCS_GRAYSCALE, JCS_GRAYSCALE, 90, 1, 0, 0, 0 };
  add_fixture (FX_PROGRESSIVE_GRAY, "progressive-gray", w, h, 0, 1);
  encode_libjpeg (gray, w, h, &o, &fixtures[FX_PROGRESSIVE_GRAY].data, &fixtures[FX_PROGRESSIVE_GRAY].len);
  o = (lj_options) { 4, JCS_CMYK, JCS_CMYK, 90, 0, 0, 0, 0 };
  add_fixture (FX_CMYK, "cmyk", w, h, 1, 0);
  encode_libjpeg (cmyk, w, h, &o, &fixtures[FX_CMYK].data, &fixtures[FX_CMYK].len);
  o = (lj_options) { 4, JCS_CMYK, JCS_YCCK, 90, 0, 0, 0, 0 }; /* Y and K 2x2, Cb Cr 1x1 */
  add_fixture (FX_YCCK, "ycck", w, h, 1, 0);
  encode_libjpeg (cmyk, w, h, &o, &fixtures[FX_YCCK].data, &fixtures[FX_YCCK].len);

  g_free (rgb);
  g_free (gray);
  g_free (cmyk);
  g_free (big);
  g_free (tiny);
  g_free (tiny_gray);
}

static void
free_fixtures (void)
{
  for (int i = 0; i < FX_COUNT; i++)
    g_free (fixtures[i].data);
}

/* ---- references, independent of loader/jpeg.c ---- */

/* PIL 9.4's cmyk2rgb (Convert.c), after its "CMYK;I" inversion. */
static uint8_t
pil_channel (int inverted_c, int inverted_k)
{
  int nk = 255 - inverted_k, tmp = inverted_c * nk + 128;
  int v = nk - (((tmp >> 8) + tmp) >> 8);
  return (uint8_t) CLAMP (v, 0, 255);
}

static void
pil_cmyk_to_rgb (const uint8_t raw[4], uint8_t rgb[3])
{
  for (int c = 0; c < 3; c++)
    rgb[c] = pil_channel (255 - raw[c], 255 - raw[3]);
}

/* The whole image as RGB: TurboJPEG for RGB and gray files, libjpeg's CMYK
 * output plus PIL's formula for 4-component ones. */
static uint8_t *
reference_rgb (const fixture *f)
{
  size_t n = (size_t) f->width * f->height;
  uint8_t *out = g_malloc (n * 3);

  if (!f->cmyk)
    {
      tjhandle tj = tjInitDecompress ();
      g_assert_nonnull (tj);
      g_assert_cmpint (tjDecompress2 (tj, f->data, f->len, out, f->width, 0, f->height, TJPF_RGB, 0), ==, 0);
      tjDestroy (tj);
    }
  else
    {
      struct jpeg_decompress_struct c;
      struct jpeg_error_mgr jerr;
      uint8_t *raw = g_malloc (n * 4);

      c.err = jpeg_std_error (&jerr);
      jpeg_create_decompress (&c);
      jpeg_mem_src (&c, f->data, f->len);
      jpeg_read_header (&c, TRUE);
      c.out_color_space = JCS_CMYK;
      c.dct_method = JDCT_ISLOW;
      jpeg_start_decompress (&c);
      while (c.output_scanline < c.output_height)
        {
          JSAMPROW row = raw + (size_t) c.output_scanline * f->width * 4;
          jpeg_read_scanlines (&c, &row, 1);
        }
      jpeg_finish_decompress (&c);
      g_assert_cmpuint (jerr.num_warnings, ==, 0);
      jpeg_destroy_decompress (&c);
      for (size_t i = 0; i < n; i++)
        pil_cmyk_to_rgb (raw + 4 * i, out + 3 * i);
      g_free (raw);
    }
  return out;
}

/* ---- helpers ---- */

static void
expect_region_equals (ls_jpeg_decoder *d, const fixture *f, const uint8_t *full, int x, int y, int w, int h)
{
  ls_error err = { 0 };
  const uint8_t *px = NULL;
  size_t stride = 0;

  if (ls_jpeg_decode_region (d, f->data, f->len, LIMIT_64MP, x, y, w, h, &px, &stride, &err) != LS_OK)
    g_error ("%s: region %dx%d at %d,%d: %s", f->name, w, h, x, y, err.message);
  g_assert_cmpuint (stride, >=, (size_t) w * 3);
  for (int r = 0; r < h; r++)
    {
      const uint8_t *got = px + (size_t) r * stride;
      const uint8_t *want = full + ((size_t) (y + r) * f->width + x) * 3;
      if (memcmp (got, want, (size_t) w * 3) != 0)
        {
          int col = 0;
          while (memcmp (got + 3 * col, want + 3 * col, 3) == 0)
            col++;
          g_error ("%s: region %dx%d at %d,%d differs from the full decode at pixel %d,%d: %d %d %d, expected %d %d %d",
                   f->name, w, h, x, y, x + col, y + r, got[3 * col], got[3 * col + 1], got[3 * col + 2],
                   want[3 * col], want[3 * col + 1], want[3 * col + 2]);
        }
    }
}

static uint8_t *
decode_full (ls_jpeg_decoder *d, const fixture *f)
{
  ls_error err = { 0 };
  const uint8_t *px = NULL;
  size_t stride = 0;
  uint8_t *copy = g_malloc ((size_t) f->width * f->height * 3);

  if (ls_jpeg_decode_region (d, f->data, f->len, LIMIT_64MP, 0, 0, f->width, f->height, &px, &stride, &err) != LS_OK)
    g_error ("%s: full decode: %s", f->name, err.message);
  for (int r = 0; r < f->height; r++)
    memcpy (copy + (size_t) r * f->width * 3, px + (size_t) r * stride, (size_t) f->width * 3);
  return copy;
}

static void
expect_failure (ls_jpeg_decoder *d, const uint8_t *data, size_t len, int x, int y, int w, int h, const char *needle)
{
  ls_error err = { 0 };
  const uint8_t *px = NULL;
  size_t stride = 0;

  g_assert_cmpint (ls_jpeg_decode_region (d, data, len, LIMIT_64MP, x, y, w, h, &px, &stride, &err), ==,
                   LS_ERR_INVALID);
  if (!strstr (err.message, needle))
    g_error ("expected an error with \"%s\", got \"%s\"", needle, err.message);
}

/* ---- tests ---- */

static void
test_header_sizes (void)
{
  ls_jpeg_decoder *d = ls_jpeg_decoder_new ();

  for (int i = 0; i < FX_COUNT; i++)
    {
      ls_error err = { 0 };
      int w = -1, h = -1;
      if (ls_jpeg_read_header (d, fixtures[i].data, fixtures[i].len, LIMIT_64MP, &w, &h, &err) != LS_OK)
        g_error ("%s: %s", fixtures[i].name, err.message);
      g_assert_cmpint (w, ==, fixtures[i].width);
      g_assert_cmpint (h, ==, fixtures[i].height);
    }
  ls_jpeg_decoder_free (d);
}

/* The full decode is TurboJPEG's (PIL's libjpeg-turbo settings: ISLOW IDCT,
 * fancy upsampling) or, for CMYK, libjpeg's plus PIL's formula. */
static void
test_full_decode_matches_reference (void)
{
  ls_jpeg_decoder *d = ls_jpeg_decoder_new ();

  for (int i = 0; i < FX_COUNT; i++)
    {
      const fixture *f = &fixtures[i];
      uint8_t *ref = reference_rgb (f);
      expect_region_equals (d, f, ref, 0, 0, f->width, f->height);
      g_free (ref);
    }
  ls_jpeg_decoder_free (d);
}

static void
test_regions_equal_full_decode (void)
{
  ls_jpeg_decoder *d = ls_jpeg_decoder_new ();
  GRand *rand = g_rand_new_with_seed (20261130);

  for (int i = 0; i < FX_COUNT; i++)
    {
      const fixture *f = &fixtures[i];
      const int W = f->width, H = f->height;
      uint8_t *full = decode_full (d, f);

      /* Single pixels at the corners and around MCU edges. */
      const int xs[] = { 0, 1, 7, 8, 9, 15, 16, 17, 31, 32, 33, W / 2, W - 17, W - 16, W - 9, W - 2, W - 1 };
      const int ys[] = { 0, 1, 7, 8, 9, 15, 16, 17, 31, 32, 33, H / 2, H - 17, H - 16, H - 9, H - 2, H - 1 };
      for (size_t a = 0; a < G_N_ELEMENTS (xs); a++)
        for (size_t b = 0; b < G_N_ELEMENTS (ys); b++)
          if (xs[a] >= 0 && xs[a] < W && ys[b] >= 0 && ys[b] < H)
            {
              expect_region_equals (d, f, full, xs[a], ys[b], 1, 1);
              if (a == b || a + b == G_N_ELEMENTS (xs) - 1)
                {
                  /* to the far corner, and from the near one */
                  expect_region_equals (d, f, full, xs[a], ys[b], W - xs[a], H - ys[b]);
                  expect_region_equals (d, f, full, 0, 0, xs[a] + 1, ys[b] + 1);
                  /* 2 and 3 pixels wide or high: the upsampler's narrowest cases */
                  expect_region_equals (d, f, full, xs[a], ys[b], MIN (2, W - xs[a]), MIN (3, H - ys[b]));
                  expect_region_equals (d, f, full, xs[a], ys[b], MIN (3, W - xs[a]), MIN (2, H - ys[b]));
                }
            }
      /* Full-width bands and full-height columns. */
      for (int k = 0; k < 20; k++)
        {
          int y = g_rand_int_range (rand, 0, H), h = g_rand_int_range (rand, 1, H - y + 1);
          int x = g_rand_int_range (rand, 0, W), w = g_rand_int_range (rand, 1, W - x + 1);
          expect_region_equals (d, f, full, 0, y, W, h);
          expect_region_equals (d, f, full, x, 0, w, H);
        }
      /* Random regions, odd offsets and sizes included. */
      for (int k = 0; k < 200; k++)
        {
          int w = g_rand_int_range (rand, 1, W + 1), h = g_rand_int_range (rand, 1, H + 1);
          int x = g_rand_int_range (rand, 0, W - w + 1), y = g_rand_int_range (rand, 0, H - h + 1);
          expect_region_equals (d, f, full, x, y, w, h);
        }
      g_free (full);
    }
  g_rand_free (rand);
  ls_jpeg_decoder_free (d);
}

static void
test_gray_is_replicated (void)
{
  ls_jpeg_decoder *d = ls_jpeg_decoder_new ();
  const int ids[] = { FX_GRAY, FX_PROGRESSIVE_GRAY, FX_TINY_3X5_GRAY };

  for (size_t i = 0; i < G_N_ELEMENTS (ids); i++)
    {
      const fixture *f = &fixtures[ids[i]];
      uint8_t *full = decode_full (d, f);
      int distinct = 0;
      for (size_t p = 0; p < (size_t) f->width * f->height; p++)
        {
          g_assert_cmpuint (full[3 * p], ==, full[3 * p + 1]);
          g_assert_cmpuint (full[3 * p], ==, full[3 * p + 2]);
          distinct += full[3 * p] != full[0];
        }
      if (distinct == 0)
        g_error ("%s: all pixels are %d", f->name, full[0]);
      g_free (full);
    }
  ls_jpeg_decoder_free (d);
}

/* Flat 16x16 patches of known CMYK bytes, quality 100 without a colour
 * transform: each block decodes to exactly its bytes, so the RGB must be
 * PIL's numbers, computed here by hand. */
static void
test_cmyk_known_values (void)
{
  static const struct {
    uint8_t raw[4];
    uint8_t rgb[3];
  } cases[] = {
    { { 255, 255, 255, 255 }, { 255, 255, 255 } }, /* inverted: no ink -> white */
    { { 0, 0, 0, 0 }, { 0, 0, 0 } },               /* full ink everywhere */
    { { 0, 255, 255, 255 }, { 0, 255, 255 } },     /* cyan */
    { { 255, 0, 255, 255 }, { 255, 0, 255 } },     /* magenta */
    { { 255, 255, 0, 255 }, { 255, 255, 0 } },     /* yellow */
    { { 255, 255, 255, 0 }, { 0, 0, 0 } },         /* black */
    { { 200, 100, 50, 230 }, { 180, 90, 45 } },    /* nk=230: 230-MULDIV255(55,230)=180, 155->90, 205->45 */
    { { 128, 64, 32, 128 }, { 64, 32, 16 } },      /* nk=128: 128-MULDIV255(127,128)=64, 191->32, 223->16 */
  };
  const int n = G_N_ELEMENTS (cases), w = 16 * n, h = 16;
  uint8_t *px = g_malloc ((size_t) w * h * 4);
  lj_options o = { 4, JCS_CMYK, JCS_CMYK, 100, 0, 0, 0, 0 };
  fixture f = { "cmyk-known", NULL, 0, w, h, 1, 0 };
  ls_jpeg_decoder *d = ls_jpeg_decoder_new ();
  uint8_t *full;

  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      memcpy (px + ((size_t) y * w + x) * 4, cases[x / 16].raw, 4);
  encode_libjpeg (px, w, h, &o, &f.data, &f.len);
  full = decode_full (d, &f);
  for (int i = 0; i < n; i++)
    {
      uint8_t check[3];
      pil_cmyk_to_rgb (cases[i].raw, check);
      g_assert_cmpmem (check, 3, cases[i].rgb, 3); /* the hand-computed table agrees with the formula */
      for (int y = 0; y < h; y++)
        for (int x = 16 * i; x < 16 * i + 16; x++)
          g_assert_cmpmem (full + ((size_t) y * w + x) * 3, 3, cases[i].rgb, 3);
    }
  g_free (full);
  g_free (f.data);

  /* The same through YCCK: the colour transform rounds, so within 2. */
  o.jpeg_space = JCS_YCCK;
  encode_libjpeg (px, w, h, &o, &f.data, &f.len);
  full = decode_full (d, &f);
  for (int i = 0; i < n; i++)
    for (int c = 0; c < 3; c++)
      {
        int got = full[((size_t) 8 * w + 16 * i + 8) * 3 + c];
        g_assert_cmpint (ABS (got - cases[i].rgb[c]), <=, 2);
      }
  g_free (full);
  g_free (f.data);
  g_free (px);
  ls_jpeg_decoder_free (d);
}

static void
test_truncated_fails (void)
{
  ls_jpeg_decoder *d = ls_jpeg_decoder_new ();
  const int ids[] = { FX_BASELINE_420, FX_PROGRESSIVE_420, FX_GRAY, FX_YCCK, FX_RESTART_420 };

  for (size_t i = 0; i < G_N_ELEMENTS (ids); i++)
    {
      const fixture *f = &fixtures[ids[i]];
      size_t cut = f->len * 6 / 10;
      ls_error err = { 0 };
      int w = 0, h = 0;

      /* the header is whole */
      g_assert_cmpint (ls_jpeg_read_header (d, f->data, cut, LIMIT_64MP, &w, &h, &err), ==, LS_OK);
      g_assert_cmpint (w, ==, f->width);
      /* a full decode, and a region whose rows are all in the first part */
      expect_failure (d, f->data, cut, 0, 0, f->width, f->height, "truncated (premature end of data)");
      expect_failure (d, f->data, cut, 0, 0, 8, 8, "truncated (premature end of data)");
      expect_failure (d, f->data, cut, f->width / 2, 1, 3, 2, "truncated (premature end of data)");
      /* missing only the end-of-image marker */
      expect_failure (d, f->data, f->len - 2, 0, 0, f->width, f->height, "truncated");
      /* cut inside the header */
      g_assert_cmpint (ls_jpeg_read_header (d, f->data, 40, LIMIT_64MP, &w, &h, &err), ==, LS_ERR_INVALID);
      g_assert_cmpstr (err.message, ==, "truncated (premature end of data)");
      expect_failure (d, f->data, 40, 0, 0, 1, 1, "truncated (premature end of data)");
    }
  ls_jpeg_decoder_free (d);
}

/* Cut at 60 % but ended with an EOI marker: libjpeg's "Corrupt JPEG data"
 * warning must fail the decode, never give grey rows. */
static void
test_corrupt_fails (void)
{
  ls_jpeg_decoder *d = ls_jpeg_decoder_new ();
  const int ids[] = { FX_BASELINE_420, FX_PROGRESSIVE_420, FX_CMYK };

  for (size_t i = 0; i < G_N_ELEMENTS (ids); i++)
    {
      const fixture *f = &fixtures[ids[i]];
      size_t cut = f->len * 6 / 10;
      uint8_t *bad = g_malloc (cut + 2);

      memcpy (bad, f->data, cut);
      bad[cut] = 0xFF;
      bad[cut + 1] = 0xD9;
      expect_failure (d, bad, cut + 2, 0, 0, f->width, f->height, "corrupt data: Corrupt JPEG data");
      g_free (bad);
    }
  ls_jpeg_decoder_free (d);
}

static void
test_empty_and_not_jpeg (void)
{
  static const uint8_t png[] = { 0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13 };
  static const uint8_t gif[] = { 'G', 'I' };
  ls_jpeg_decoder *d = ls_jpeg_decoder_new ();
  ls_error err = { 0 };
  int w, h;

  g_assert_cmpint (ls_jpeg_read_header (d, png, 0, LIMIT_64MP, &w, &h, &err), ==, LS_ERR_INVALID);
  g_assert_cmpstr (err.message, ==, "empty input");
  g_assert_cmpint (ls_jpeg_read_header (d, NULL, 0, LIMIT_64MP, &w, &h, &err), ==, LS_ERR_INVALID);
  g_assert_cmpstr (err.message, ==, "empty input");
  expect_failure (d, png, 0, 0, 0, 1, 1, "empty input");

  g_assert_cmpint (ls_jpeg_read_header (d, png, sizeof png, LIMIT_64MP, &w, &h, &err), ==, LS_ERR_INVALID);
  g_assert_cmpstr (err.message, ==, "not a JPEG (starts with 89 50 4E 47)");
  expect_failure (d, png, sizeof png, 0, 0, 1, 1, "not a JPEG (starts with 89 50 4E 47)");
  g_assert_cmpint (ls_jpeg_read_header (d, gif, sizeof gif, LIMIT_64MP, &w, &h, &err), ==, LS_ERR_INVALID);
  g_assert_cmpstr (err.message, ==, "not a JPEG (starts with 47 49)");
  ls_jpeg_decoder_free (d);
}

/* A 20000x20000 header on a small file: refused from the header alone. */
static void
test_pixel_limit (void)
{
  const fixture *f = &fixtures[FX_BASELINE_420];
  uint8_t *bomb = g_memdup2 (f->data, f->len);
  ls_jpeg_decoder *d = ls_jpeg_decoder_new ();
  ls_error err = { 0 };
  const uint8_t *px = NULL;
  size_t stride = 0, sof = 0;
  int w = 0, h = 0;

  for (size_t i = 2; i + 9 < f->len; i++)
    if (bomb[i] == 0xFF && bomb[i + 1] == 0xC0)
      {
        sof = i;
        break;
      }
  g_assert_cmpuint (sof, >, 0);
  bomb[sof + 5] = 20000 >> 8; /* height */
  bomb[sof + 6] = 20000 & 0xFF;
  bomb[sof + 7] = 20000 >> 8; /* width */
  bomb[sof + 8] = 20000 & 0xFF;

  /* The header check's own words: refused before any image-sized
   * allocation (1.2 GB) or decoding (not timed: load stretches timings). */
  g_assert_cmpint (ls_jpeg_read_header (d, bomb, f->len, LIMIT_64MP, &w, &h, &err), ==, LS_ERR_INVALID);
  g_assert_cmpstr (err.message, ==, "20000x20000 is 400.0 MP, over the 64.0 MP limit");
  g_assert_cmpint (ls_jpeg_decode_region (d, bomb, f->len, LIMIT_64MP, 0, 0, 224, 224, &px, &stride, &err), ==,
                   LS_ERR_INVALID);
  g_assert_cmpstr (err.message, ==, "20000x20000 is 400.0 MP, over the 64.0 MP limit");

  /* the limit's own example, from a header that says 12000x9000 */
  bomb[sof + 5] = 9000 >> 8;
  bomb[sof + 6] = 9000 & 0xFF;
  bomb[sof + 7] = 12000 >> 8;
  bomb[sof + 8] = 12000 & 0xFF;
  g_assert_cmpint (ls_jpeg_read_header (d, bomb, f->len, LIMIT_64MP, &w, &h, &err), ==, LS_ERR_INVALID);
  g_assert_cmpstr (err.message, ==, "12000x9000 is 108.0 MP, over the 64.0 MP limit");

  /* exactly at the limit is allowed */
  g_assert_cmpint (ls_jpeg_read_header (d, f->data, f->len, (uint64_t) f->width * f->height, &w, &h, &err), ==,
                   LS_OK);
  g_assert_cmpint (ls_jpeg_read_header (d, f->data, f->len, (uint64_t) f->width * f->height - 1, &w, &h, &err), ==,
                   LS_ERR_INVALID);
  g_free (bomb);
  ls_jpeg_decoder_free (d);
}

static void
test_region_outside_image (void)
{
  const fixture *f = &fixtures[FX_444];
  ls_jpeg_decoder *d = ls_jpeg_decoder_new ();

  expect_failure (d, f->data, f->len, -1, 0, 10, 10, "not inside");
  expect_failure (d, f->data, f->len, 0, 0, f->width + 1, 10, "not inside");
  expect_failure (d, f->data, f->len, 0, f->height - 5, 10, 6, "not inside");
  expect_failure (d, f->data, f->len, 5, 5, 0, 10, "not inside");
  ls_jpeg_decoder_free (d);
}

/* After every kind of failure the same decoder still decodes exactly. */
static void
test_decoder_recovers_after_errors (void)
{
  const fixture *f = &fixtures[FX_BASELINE_420];
  ls_jpeg_decoder *d = ls_jpeg_decoder_new ();
  uint8_t *ref = reference_rgb (f);
  uint8_t *bad = g_memdup2 (f->data, f->len);

  bad[f->len / 2] ^= 0xFF; /* may or may not be noticed; must not break the decoder */
  for (int round = 0; round < 3; round++)
    {
      const uint8_t *px;
      size_t stride;
      ls_error err = { 0 };
      expect_failure (d, f->data, f->len / 3, 0, 0, f->width, f->height, "truncated");
      expect_region_equals (d, f, ref, 10, 20, 100, 50);
      (void) ls_jpeg_decode_region (d, bad, f->len, LIMIT_64MP, 0, 0, f->width, f->height, &px, &stride, &err);
      expect_region_equals (d, f, ref, 0, 0, f->width, f->height);
      expect_failure (d, f->data, 40, 0, 0, 1, 1, "truncated");
      expect_region_equals (d, f, ref, 200, 100, 133, 150);
    }
  g_free (bad);
  g_free (ref);
  ls_jpeg_decoder_free (d);
}

static void
test_encode_round_trip (void)
{
  const int w = 160, h = 120;
  uint8_t *src = smooth (w, h);
  ls_jpeg_decoder *d = ls_jpeg_decoder_new ();

  for (int s444 = 0; s444 <= 1; s444++)
    {
      fixture f = { "round-trip", NULL, 0, w, h, 0, 0 };
      uint8_t *out;
      int maxdiff = 0;
      double sum = 0;

      encode_turbo (src, w, h, 3, 95, s444, &f.data, &f.len);
      out = decode_full (d, &f);
      for (size_t i = 0; i < (size_t) w * h * 3; i++)
        {
          int diff = ABS ((int) out[i] - (int) src[i]);
          maxdiff = MAX (maxdiff, diff);
          sum += diff;
        }
      g_test_message ("q95 %s: max |diff| %d, mean %.3f", s444 ? "4:4:4" : "4:2:0", maxdiff, sum / (w * h * 3));
      g_assert_cmpint (maxdiff, <=, 6);
      g_assert_cmpfloat (sum / (w * h * 3), <, 1.0);
      g_free (out);
      g_free (f.data);
    }

  /* gray: one component in, R = G = B out */
  {
    uint8_t *g = g_malloc ((size_t) w * h);
    fixture f = { "round-trip-gray", NULL, 0, w, h, 0, 1 };
    uint8_t *out;
    int maxdiff = 0;
    for (size_t i = 0; i < (size_t) w * h; i++)
      g[i] = src[3 * i];
    encode_turbo (g, w, h, 1, 95, 0, &f.data, &f.len);
    out = decode_full (d, &f);
    for (size_t i = 0; i < (size_t) w * h; i++)
      {
        g_assert_cmpuint (out[3 * i], ==, out[3 * i + 1]);
        g_assert_cmpuint (out[3 * i], ==, out[3 * i + 2]);
        maxdiff = MAX (maxdiff, ABS ((int) out[3 * i] - (int) g[i]));
      }
    g_assert_cmpint (maxdiff, <=, 4);
    g_free (out);
    g_free (f.data);
    g_free (g);
  }

  /* bad arguments */
  {
    ls_error err = { 0 };
    uint8_t *buf = NULL;
    size_t n = 0;
    g_assert_cmpint (ls_jpeg_encode (src, w, h, 2, 95, 0, &buf, &n, &err), ==, LS_ERR_INVALID);
    g_assert_cmpint (ls_jpeg_encode (src, 0, h, 3, 95, 0, &buf, &n, &err), ==, LS_ERR_INVALID);
    g_assert_cmpint (ls_jpeg_encode (src, w, h, 3, 0, 0, &buf, &n, &err), ==, LS_ERR_INVALID);
    g_assert_null (buf);
  }
  g_free (src);
  ls_jpeg_decoder_free (d);
}

int
main (int argc, char **argv)
{
  int rc;

  g_test_init (&argc, &argv, NULL);
  make_fixtures ();
  g_test_add_func ("/loader/jpeg/header-sizes", test_header_sizes);
  g_test_add_func ("/loader/jpeg/full-decode-matches-reference", test_full_decode_matches_reference);
  g_test_add_func ("/loader/jpeg/regions-equal-full-decode", test_regions_equal_full_decode);
  g_test_add_func ("/loader/jpeg/gray-is-replicated", test_gray_is_replicated);
  g_test_add_func ("/loader/jpeg/cmyk-known-values", test_cmyk_known_values);
  g_test_add_func ("/loader/jpeg/truncated-fails", test_truncated_fails);
  g_test_add_func ("/loader/jpeg/corrupt-fails", test_corrupt_fails);
  g_test_add_func ("/loader/jpeg/empty-and-not-jpeg", test_empty_and_not_jpeg);
  g_test_add_func ("/loader/jpeg/pixel-limit", test_pixel_limit);
  g_test_add_func ("/loader/jpeg/region-outside-image", test_region_outside_image);
  g_test_add_func ("/loader/jpeg/decoder-recovers-after-errors", test_decoder_recovers_after_errors);
  g_test_add_func ("/loader/jpeg/encode-round-trip", test_encode_round_trip);
  rc = ls_test_run_checked ();
  free_fixtures ();
  return rc;
}
