/* JPEG decode benchmark, full image against region, side by side in one run:
 * N textured 500x375 quality-90 4:2:0 JPEGs are made in memory with
 * ls_jpeg_encode, then decoded whole and as a random crop of 224..375 pixels
 * a side (what a random-resized-crop needs), on this thread. TurboJPEG's
 * own full decode (tjDecompress2, same settings) is timed as a reference.
 *
 *   bench-jpeg [IMAGES=200] [PASSES=5]
 *
 * Prints images/s (best and median pass) of each and region/full. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <turbojpeg.h>

#include "loader/jpeg.h"
#include "platform/clock.h"

#define W 500
#define H 375
#define LIMIT ((uint64_t) 64 * 1000 * 1000)

typedef struct blob {
  uint8_t *data;
  size_t len;
} blob;

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t
next64 (void)
{
  uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

static int
rand_range (int lo, int hi) /* inclusive */
{
  return lo + (int) (next64 () % (uint64_t) (hi - lo + 1));
}

static void
texture (uint8_t *p, int seed)
{
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++)
      for (int c = 0; c < 3; c++)
        {
          int v = (x * (2 + c + seed % 3) + y * (4 - c)) % 256;
          v += (int) (next64 () % 31) - 15;
          if (((x / (9 + seed % 7)) ^ (y / 13) ^ c) & 1)
            v = 255 - v;
          p[((size_t) y * W + x) * 3 + c] = (uint8_t) (v < 0 ? 0 : v > 255 ? 255 : v);
        }
}

static double
now_s (void)
{
  return (double) ls_clock_ns () / 1e9;
}

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

int
main (int argc, char **argv)
{
  int n = argc > 1 ? atoi (argv[1]) : 200;
  int passes = argc > 2 ? atoi (argv[2]) : 5;
  uint8_t *pixels = malloc ((size_t) W * H * 3);
  blob *imgs = calloc ((size_t) (n > 0 ? n : 1), sizeof *imgs);
  ls_jpeg_decoder *d = ls_jpeg_decoder_new ();
  double full_best = 1e30, region_best = 1e30, *times;
  static const char *const names[3] = { "full", "region", "tj-full" };
  uint8_t *tj_out = malloc ((size_t) W * H * 3);
  tjhandle tj = tjInitDecompress ();
  size_t bytes = 0;
  uint64_t checksum = 0, region_px = 0;
  ls_error err = { 0 };

  if (n <= 0 || passes <= 0 || !pixels || !imgs || !d || !tj_out || !tj)
    {
      fprintf (stderr, "usage: bench-jpeg [IMAGES>0] [PASSES>0]\n");
      return 2;
    }
  for (int i = 0; i < n; i++)
    {
      texture (pixels, i);
      if (ls_jpeg_encode (pixels, W, H, 3, 90, 0, &imgs[i].data, &imgs[i].len, &err) != LS_OK)
        {
          fprintf (stderr, "encode: %s\n", err.message);
          return 1;
        }
      bytes += imgs[i].len;
    }
  printf ("bench-jpeg: %d images %dx%d q90 4:2:0, mean %.1f kB, %d passes, one thread\n", n, W, H,
          bytes / 1e3 / n, passes);

  times = calloc ((size_t) passes, sizeof *times);
  for (int mode = 0; mode < 3; mode++)
    {
      for (int p = 0; p < passes; p++)
        {
          double t0;
          rng_state = 1000 + (uint64_t) p;
          region_px = 0;
          t0 = now_s ();
          for (int i = 0; i < n; i++)
            {
              const uint8_t *px;
              size_t stride;
              int x = 0, y = 0, w = W, h = H;
              if (mode == 2)
                {
                  if (tjDecompress2 (tj, imgs[i].data, imgs[i].len, tj_out, W, 0, H, TJPF_RGB, 0) != 0)
                    {
                      fprintf (stderr, "tjDecompress2: %s\n", tjGetErrorStr2 (tj));
                      return 1;
                    }
                  checksum += tj_out[(size_t) (H / 2) * W * 3 + (W / 2) * 3];
                  region_px += (uint64_t) W * H;
                  continue;
                }
              if (mode == 1)
                {
                  w = rand_range (224, 375);
                  h = rand_range (224, H);
                  x = rand_range (0, W - w);
                  y = rand_range (0, H - h);
                }
              if (ls_jpeg_decode_region (d, imgs[i].data, imgs[i].len, LIMIT, x, y, w, h, &px, &stride, &err) != LS_OK)
                {
                  fprintf (stderr, "decode: %s\n", err.message);
                  return 1;
                }
              checksum += px[(size_t) (h / 2) * stride + (size_t) (w / 2) * 3];
              region_px += (uint64_t) w * h;
            }
          times[p] = now_s () - t0;
        }
      qsort (times, (size_t) passes, sizeof *times, cmp_double);
      if (mode == 0)
        full_best = times[0];
      else if (mode == 1)
        region_best = times[0];
      printf ("%-7s %8.1f img/s best, %8.1f median  (%.3f ms/img, %.3f MP/img requested)\n",
              names[mode], n / times[0], n / times[passes / 2], times[0] * 1e3 / n,
              (double) region_px / n / 1e6);
    }
  printf ("region/full: %.2fx  (checksum %llu)\n", full_best / region_best, (unsigned long long) checksum);

  for (int i = 0; i < n; i++)
    free (imgs[i].data);
  free (imgs);
  free (times);
  free (pixels);
  free (tj_out);
  tjDestroy (tj);
  ls_jpeg_decoder_free (d);
  return 0;
}
