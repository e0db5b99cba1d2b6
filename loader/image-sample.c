#include "loader/image-sample.h"

#include <stdlib.h>
#include <string.h>

#include "platform/clock.h"

int
ls_image_pipeline_init (ls_image_pipeline *p, uint64_t seed, int out_size, ls_output_format format,
                        uint64_t pixel_limit, ls_error *err)
{
  memset (p, 0, sizeof *p);
  if (out_size < 1 || out_size > 4096)
    return ls_error_set (err, LS_ERR_INVALID, "crop size %d is out of range (1 to 4096)", out_size);
  p->decoder = ls_jpeg_decoder_new ();
  p->resampler = ls_resampler_new ();
  if (!p->decoder || !p->resampler)
    {
      ls_image_pipeline_clear (p);
      return ls_error_set (err, LS_ERR_NOMEM, "out of memory");
    }
  p->seed = seed;
  p->out_size = out_size;
  p->format = format;
  p->pixel_limit = pixel_limit;
  return LS_OK;
}

void
ls_image_pipeline_clear (ls_image_pipeline *p)
{
  ls_jpeg_decoder_free (p->decoder);
  ls_resampler_free (p->resampler);
  free (p->rgb);
  memset (p, 0, sizeof *p);
}

/* decode: t0 → t1; transform and write: t1 → now, the write pass apart. */
static void
add_times (ls_image_pipeline *p, uint64_t t0, uint64_t t1)
{
  uint64_t t2 = ls_clock_ns ();
  uint64_t write = ls_resampler_last_write_ns (p->resampler);
  uint64_t resize = t2 - t1;

  p->stages->decode += t1 - t0;
  p->stages->write += write < resize ? write : resize;
  p->stages->transform += write < resize ? resize - write : 0;
}

int
ls_image_sample_jpeg (ls_image_pipeline *p, const uint8_t *data, size_t len, uint32_t epoch, uint64_t index, void *out,
                      ls_error *err)
{
  int width, height;
  const uint8_t *pixels;
  size_t stride;
  uint64_t t0 = p->stages ? ls_clock_ns () : 0;

  if (ls_jpeg_read_header (p->decoder, data, len, p->pixel_limit, &width, &height, err) != LS_OK)
    return err ? err->code : LS_ERR_INVALID;
  ls_rng rng = ls_sample_rng (p->seed, epoch, index);
  ls_crop crop = ls_random_resized_crop (width, height, &rng);
  /* Only the crop is decoded: rows outside it are skipped. */
  if (ls_jpeg_decode_region (p->decoder, data, len, p->pixel_limit, crop.x, crop.y, crop.width, crop.height, &pixels,
                             &stride, err)
      != LS_OK)
    return err ? err->code : LS_ERR_INVALID;
  uint64_t t1 = p->stages ? ls_clock_ns () : 0;
  int rc = ls_resize_crop_rgb (p->resampler, pixels, crop.width, crop.height, stride, crop.flip, p->out_size, p->format,
                               out, err);
  if (p->stages)
    add_times (p, t0, t1);
  return rc;
}

int
ls_image_sample_pixels (ls_image_pipeline *p, const uint8_t *pixels, int width, int height, int channels,
                        size_t stride, uint32_t epoch, uint64_t index, void *out, ls_error *err)
{
  if (channels != 1 && channels != 3)
    return ls_error_set (err, LS_ERR_INVALID, "%d channels (expected 1 or 3)", channels);
  if ((uint64_t) width * (uint64_t) height > p->pixel_limit)
    return ls_error_set (err, LS_ERR_INVALID, "%dx%d is %.1f MP, over the %.1f MP limit", width, height,
                         (double) width * height / 1e6, p->pixel_limit / 1e6);
  uint64_t t0 = p->stages ? ls_clock_ns () : 0;
  ls_rng rng = ls_sample_rng (p->seed, epoch, index);
  ls_crop crop = ls_random_resized_crop (width, height, &rng);
  const uint8_t *first = pixels + (size_t) crop.y * stride + (size_t) crop.x * (size_t) channels;
  int rc;

  if (channels == 3)
    {
      rc = ls_resize_crop_rgb (p->resampler, first, crop.width, crop.height, stride, crop.flip, p->out_size, p->format,
                               out, err);
      if (p->stages)
        add_times (p, t0, t0);
      return rc;
    }

  /* Gray: only the crop becomes RGB (as PIL's convert("RGB") would make it). */
  size_t need = (size_t) crop.width * crop.height * 3;
  if (need > p->rgb_cap)
    {
      uint8_t *grown = realloc (p->rgb, need);
      if (!grown)
        return ls_error_set (err, LS_ERR_NOMEM, "out of memory");
      p->rgb = grown;
      p->rgb_cap = need;
    }
  for (int y = 0; y < crop.height; y++)
    {
      const uint8_t *src = first + (size_t) y * stride;
      uint8_t *dst = p->rgb + (size_t) y * crop.width * 3;
      for (int x = 0; x < crop.width; x++)
        dst[x * 3] = dst[x * 3 + 1] = dst[x * 3 + 2] = src[x];
    }
  uint64_t t1 = p->stages ? ls_clock_ns () : 0;
  rc = ls_resize_crop_rgb (p->resampler, p->rgb, crop.width, crop.height, (size_t) crop.width * 3, crop.flip,
                           p->out_size, p->format, out, err);
  if (p->stages)
    add_times (p, t0, t1);
  return rc;
}
