/* One image sample through the whole pipeline: decode (or take raw pixels),
 * random-resized-crop, flip, normalize. Shared by the JPEG-folder and HDF5
 * datasets. */
#pragma once

#include "loader/jpeg.h"
#include "loader/transform.h"

typedef struct ls_image_pipeline {
  ls_jpeg_decoder *decoder;
  ls_resampler *resampler;
  uint64_t pixel_limit;
  int out_size;
  ls_output_format format;
  uint64_t seed;
  uint8_t *rgb;      /* scratch for gray -> RGB of raw pixels */
  size_t rgb_cap;
  ls_stage_ns *stages; /* where decode, transform and write times are added (NULL: not timed) */
} ls_image_pipeline;

int ls_image_pipeline_init (ls_image_pipeline *p, uint64_t seed, int out_size, ls_output_format format,
                            uint64_t pixel_limit, ls_error *err);
void ls_image_pipeline_clear (ls_image_pipeline *p);

/* An encoded JPEG → one transformed sample in out. */
int ls_image_sample_jpeg (ls_image_pipeline *p, const uint8_t *data, size_t len, uint32_t epoch, uint64_t index,
                          void *out, ls_error *err);

/* Raw uint8 pixels, channels 1 (gray) or 3 (RGB), rows `stride` bytes
 * apart → one transformed sample in out. */
int ls_image_sample_pixels (ls_image_pipeline *p, const uint8_t *pixels, int width, int height, int channels,
                            size_t stride, uint32_t epoch, uint64_t index, void *out, ls_error *err);
