#!/usr/bin/python3
"""Makes the torchvision parity fixture of tests/test-transform.c, once.

Writes into tests/data/parity/:
  *.jpg          small JPEGs saved by PIL (RGB 4:2:0, RGB 4:4:4 progressive,
                 grayscale, CMYK), textured, so resampling differences show;
  cases.txt      one line per case: file x y w h flip out_size offset
  resized.u8     for each case, torchvision's F.resized_crop(img, y, x, h, w,
                 [out, out], BILINEAR) then hflip if flip, as uint8 HWC
                 (the PIL image before to_tensor), concatenated;
  normalize.f32  torchvision's to_tensor + normalize(ImageNet) of the values
                 0..255 for channels R, G, B (3 x 256 float32).

Needs Debian's python3-torch and python3-torchvision (bench/setup-pytorch.sh).
Run: /usr/bin/python3 tests/data/make-parity-fixture.py
"""
import os

import numpy as np
import torch
import torchvision
from PIL import Image
from torchvision.transforms import InterpolationMode
from torchvision.transforms import functional as F

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "parity")
MEAN, STD = [0.485, 0.456, 0.406], [0.229, 0.224, 0.225]


def textured(w, h, seed):
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:h, 0:w].astype(np.float32)
    img = np.zeros((h, w, 3), np.float32)
    for c in range(3):
        fx, fy = rng.uniform(0.02, 0.15, 2)
        img[..., c] = 128 + 60 * np.sin(x * fx + c) * np.cos(y * fy - c)
    img += rng.normal(0, 18, img.shape)           # grain
    for _ in range(12):                            # hard edges
        x0, y0 = rng.integers(0, w - 10), rng.integers(0, h - 10)
        img[y0:y0 + rng.integers(5, h // 3), x0:x0 + rng.integers(5, w // 3)] = rng.uniform(0, 255, 3)
    return Image.fromarray(np.clip(img, 0, 255).astype(np.uint8), "RGB")


def main():
    os.makedirs(HERE, exist_ok=True)
    rgb = textured(320, 240, 1)
    rgb.save(os.path.join(HERE, "rgb420.jpg"), quality=90, subsampling=2)
    textured(203, 157, 2).save(os.path.join(HERE, "rgb444-progressive.jpg"), quality=92, subsampling=0,
                               progressive=True)
    textured(180, 130, 3).convert("L").save(os.path.join(HERE, "gray.jpg"), quality=90)
    textured(120, 96, 4).convert("CMYK").save(os.path.join(HERE, "cmyk.jpg"), quality=90)

    cases = [  # file, x, y, w, h, flip, out
        ("rgb420.jpg", 0, 0, 320, 240, 0, 112),       # whole image, downscale
        ("rgb420.jpg", 37, 20, 150, 170, 1, 112),     # interior crop, flip
        ("rgb420.jpg", 250, 180, 70, 60, 0, 112),     # corner, upscale
        ("rgb420.jpg", 101, 33, 199, 207, 1, 224),    # near-1:1 at the real size
        ("rgb444-progressive.jpg", 3, 5, 190, 140, 0, 112),
        ("gray.jpg", 10, 7, 160, 100, 1, 112),
        ("cmyk.jpg", 4, 6, 90, 80, 0, 112),
        ("rgb420.jpg", 200, 100, 3, 2, 0, 112),       # tiny crop, large upscale
    ]
    offset = 0
    with open(os.path.join(HERE, "cases.txt"), "w") as index, open(os.path.join(HERE, "resized.u8"), "wb") as out:
        index.write(f"# torch {torch.__version__} torchvision {torchvision.__version__} "
                    f"PIL {Image.__version__}: file x y w h flip out offset\n")
        for fn, x, y, w, h, flip, size in cases:
            im = Image.open(os.path.join(HERE, fn)).convert("RGB")
            t = F.resized_crop(im, y, x, h, w, [size, size], InterpolationMode.BILINEAR)
            if flip:
                t = F.hflip(t)
            a = np.asarray(t, np.uint8)
            assert a.shape == (size, size, 3)
            out.write(a.tobytes())
            index.write(f"{fn} {x} {y} {w} {h} {flip} {size} {offset}\n")
            offset += a.nbytes
    values = torch.arange(256, dtype=torch.uint8).reshape(1, 1, 256).expand(3, 1, 256).contiguous()
    pic = Image.fromarray(values.permute(1, 2, 0).numpy(), "RGB")
    norm = F.normalize(F.to_tensor(pic), MEAN, STD)
    norm.numpy().astype("<f4").tofile(os.path.join(HERE, "normalize.f32"))
    print(f"wrote {len(cases)} cases, {offset} bytes of reference pixels")


if __name__ == "__main__":
    main()
