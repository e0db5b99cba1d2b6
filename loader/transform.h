/* The image transforms of torchvision's ImageNet training recipe, in C:
 * RandomResizedCrop(size, scale 0.08-1, ratio 3/4-4/3) -> RandomHorizontalFlip
 * -> to_tensor -> Normalize(ImageNet mean/std), output float32 CHW, or the
 * resized crop as uint8 HWC.
 *
 * The randomness of a sample is a pure function of (seed, epoch, index), so
 * a sample comes out the same whichever worker builds it. The resize is
 * PIL's antialiased bilinear (what torchvision uses on PIL images), so the
 * output matches torchvision's to within about one 8-bit level. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "loader/dataset.h"
#include "loader/prng.h"
#include "platform/error.h"

#define LS_DEFAULT_CROP 224
#define LS_DEFAULT_PIXEL_LIMIT (64u * 1000u * 1000u) /* 64 MP */

typedef struct ls_crop {
  int x, y;          /* top-left, in source pixels */
  int width, height; /* of the crop, in source pixels */
  bool flip;         /* mirror horizontally after resizing */
} ls_crop;

/* The generator of sample `index` in `epoch`. */
ls_rng ls_sample_rng (uint64_t seed, uint32_t epoch, uint64_t index);

/* torchvision's RandomResizedCrop.get_params (10 tries, then the central
 * crop clamped to the ratio range) followed by a fair coin for the flip,
 * drawn from rng. */
ls_crop ls_random_resized_crop (int width, int height, ls_rng *rng);

/* Scratch memory and filter weights of one worker; not shared between threads. */
typedef struct ls_resampler ls_resampler;

ls_resampler *ls_resampler_new (void);
void ls_resampler_free (ls_resampler *r);

/* Resizes a crop of packed RGB8 pixels (first pixel at `pixels`, rows
 * `stride` bytes apart, crop_width x crop_height) to out_size x out_size with
 * PIL's antialiased bilinear filter, mirrors it if flip, and writes
 *   LS_OUTPUT_F32_CHW: float32 [3][out][out], (v/255 - mean) / std, ImageNet;
 *   LS_OUTPUT_U8_HWC:  uint8 [out][out][3].
 * Upscales as well (tiny images). */
int ls_resize_crop_rgb (ls_resampler *r, const uint8_t *pixels, int crop_width, int crop_height, size_t stride,
                        bool flip, int out_size, ls_output_format format, void *out, ls_error *err);

/* Wall time of the last ls_resize_crop_rgb's output pass (flip, to_tensor
 * and normalize, fused with the store into `out`), in ns; 0 if it failed
 * before it. */
uint64_t ls_resampler_last_write_ns (const ls_resampler *r);

/* Allows (default) or forbids the x86 SIMD versions of the resize loops;
 * both give the same bytes, which the tests check. */
void ls_transform_use_simd (bool allowed);

/* Bytes one transformed sample takes. */
size_t ls_transformed_bytes (int out_size, ls_output_format format);
