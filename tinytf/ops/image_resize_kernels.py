"""The sampling geometry of TensorFlow's resize kernels, as numpy: for each resize op and axis, the
(out_size, in_size) weight matrix whose product with the image's rows (or columns) is the resize,
or, for nearest neighbour, the input index of each output pixel.

Resizing is separable, so an op is ``einsum("oh,bhwc,pw->bopc", rows, image, cols)`` with these
matrices, and its gradient the same product with them transposed. The arithmetic that places samples
is TensorFlow's, in float32 as its kernels do it (resize_bilinear_op.cc, resize_bicubic_op.cc,
resize_area_op.cc, resize_nearest_neighbor_op.cc, scale_and_translate_op.cc, sampling_kernels.h).

    bilinear_weights(4, 2, align_corners=False, half_pixel_centers=True)   # 2x4: [[.75 .25 0 0] ...]
"""
from __future__ import annotations

import numpy as np

__all__: list[str] = []  # numpy helpers, no op functions

F32 = np.float32
FLT_MIN = np.finfo(np.float32).tiny


def resize_scale(in_size: int, out_size: int, align_corners: bool) -> np.float32:
    """TensorFlow's CalculateResizeScale: input pixels per output pixel."""
    if align_corners and out_size > 1:
        return F32(in_size - 1) / F32(out_size - 1)
    return F32(in_size) / F32(out_size)


def _sample_positions(in_size, out_size, align_corners, half_pixel_centers):
    scale = resize_scale(in_size, out_size, align_corners)
    x = np.arange(out_size, dtype=F32)
    return (x + F32(0.5)) * scale - F32(0.5) if half_pixel_centers else x * scale


def bilinear_weights(in_size: int, out_size: int, align_corners: bool, half_pixel_centers: bool) -> np.ndarray:
    """ResizeBilinear's lerp between floor and ceil of each sample (clamped to the image)."""
    pos = _sample_positions(in_size, out_size, align_corners, half_pixel_centers)
    floor = np.floor(pos)
    lower = np.maximum(floor, 0).astype(np.int64)
    upper = np.minimum(np.ceil(pos), in_size - 1).astype(np.int64)
    lerp = (pos - floor).astype(F32)
    w = np.zeros((out_size, in_size), F32)
    rows = np.arange(out_size)
    np.add.at(w, (rows, lower), F32(1) - lerp)
    np.add.at(w, (rows, upper), lerp)
    return w


def nearest_indices(in_size: int, out_size: int, align_corners: bool, half_pixel_centers: bool) -> np.ndarray:
    """ResizeNearestNeighbor's source index of each output pixel (roundf with align_corners, else floorf)."""
    scale = resize_scale(in_size, out_size, align_corners)
    x = np.arange(out_size, dtype=F32)
    pos = (x + F32(0.5)) * scale if half_pixel_centers else x * scale  # (HalfPixelScalerForNN: no -0.5)
    index = np.floor(pos + F32(0.5)) if align_corners else np.floor(pos)  # roundf: pos >= 0 here
    index = np.minimum(index.astype(np.int64), in_size - 1)
    return np.maximum(index, 0) if half_pixel_centers else index


def nearest_weights(in_size: int, out_size: int, align_corners: bool, half_pixel_centers: bool) -> np.ndarray:
    w = np.zeros((out_size, in_size), F32)
    w[np.arange(out_size), nearest_indices(in_size, out_size, align_corners, half_pixel_centers)] = 1
    return w


_TABLE_SIZE = 1024


def _cubic_table(a: float) -> np.ndarray:
    """resize_bicubic_op.cc's table of Keys' cubic coefficients at 1025 fractional offsets, float32."""
    x = np.arange(_TABLE_SIZE + 1, dtype=F32) / F32(_TABLE_SIZE)
    a = F32(a)
    near = ((a + 2) * x - (a + 3)) * x * x + 1
    far_x = x + F32(1)
    far = ((a * far_x - 5 * a) * far_x + 8 * a) * far_x - 4 * a
    return np.stack([near, far], axis=1).astype(F32)  # [offset, 0] near, [offset, 1] far


def bicubic_weights(in_size: int, out_size: int, align_corners: bool, half_pixel_centers: bool) -> np.ndarray:
    """ResizeBicubic: four taps from the coefficient table (Keys a = -0.5 with half-pixel centres, where
    taps outside the image are dropped and the rest renormalised; a = -0.75 and clamped taps otherwise)."""
    table = _cubic_table(-0.5 if half_pixel_centers else -0.75)
    pos = _sample_positions(in_size, out_size, align_corners, half_pixel_centers)
    base = np.floor(pos).astype(np.int64)
    offset = np.rint((pos - np.floor(pos)) * F32(_TABLE_SIZE)).astype(np.int64)
    taps = np.stack([table[offset, 1], table[offset, 0], table[_TABLE_SIZE - offset, 0],
                     table[_TABLE_SIZE - offset, 1]], axis=1)
    index = base[:, None] + np.arange(-1, 3)[None, :]
    clamped = np.clip(index, 0, in_size - 1)
    if half_pixel_centers:
        taps = np.where(index == clamped, taps, F32(0))
        total = taps.sum(axis=1, keepdims=True, dtype=F32)
        taps = np.where(np.abs(total) >= 1000 * FLT_MIN, taps * (F32(1) / np.where(total == 0, 1, total)), taps)
    w = np.zeros((out_size, in_size), F32)
    np.add.at(w, (np.repeat(np.arange(out_size), 4), clamped.reshape(-1)), taps.reshape(-1).astype(F32))
    return w


def area_weights(in_size: int, out_size: int, align_corners: bool) -> np.ndarray:
    """ResizeArea: each output pixel averages the input pixels its footprint covers, by coverage."""
    scale = resize_scale(in_size, out_size, align_corners)
    w = np.zeros((out_size, in_size), F32)
    for y in range(out_size):
        start, end = F32(y) * scale, F32(y + 1) * scale
        for i in range(int(np.floor(start)), int(np.ceil(end))):
            if i < start:
                cover = scale if i + 1 > end else F32(i + 1) - start
            else:
                cover = end - F32(i) if i + 1 > end else F32(1)
            w[y, min(i, in_size - 1)] += F32(cover) / scale
    return w


# --- ScaleAndTranslate's kernels (sampling_kernels.h) -------------------------------------------------

def _lanczos(radius):
    def kernel(x):
        x = np.abs(x)
        with np.errstate(all="ignore"):
            value = radius * np.sin(np.pi * x) * np.sin(np.pi * x / radius) / (np.pi * np.pi * x * x)
        return np.where(x > radius, 0.0, np.where(x <= 1e-3, 1.0, value))
    return kernel, float(radius)


def _gaussian(x, radius=1.5, sigma=0.5):
    x = np.abs(x)
    return np.where(x >= radius, 0.0, np.exp(-x * x / (2.0 * sigma * sigma)))


def _box(x):
    x = np.abs(x)
    return np.where(x < 0.5, 1.0, np.where(x == 0.5, 0.5, 0.0))


def _triangle(x):
    x = np.abs(x)
    return np.where(x < 1.0, 1.0 - x, 0.0)


def _keys_cubic(x):
    x = np.abs(x)
    return np.where(x >= 2.0, 0.0, np.where(x >= 1.0, ((-0.5 * x + 2.5) * x - 4.0) * x + 2.0,
                                             ((1.5 * x - 2.5) * x) * x + 1.0))


def _mitchell_cubic(x):
    x = np.abs(x)
    return np.where(x >= 2.0, 0.0, np.where(x >= 1.0, (((-7.0 / 18.0) * x + 2.0) * x - 10.0 / 3.0) * x + 16.0 / 9.0,
                                             (((7.0 / 6.0) * x - 2.0) * x) * x + 8.0 / 9.0))


SAMPLING_KERNELS = {
    "lanczos1": _lanczos(1), "lanczos3": _lanczos(3), "lanczos5": _lanczos(5), "gaussian": (_gaussian, 1.5),
    "box": (_box, 0.5), "triangle": (_triangle, 1.0), "keyscubic": (_keys_cubic, 2.0),
    "mitchellcubic": (_mitchell_cubic, 2.0),
}


def scale_and_translate_weights(in_size: int, out_size: int, scale: float, translate: float, kernel_type: str,
                                antialias: bool) -> np.ndarray:
    """ScaleAndTranslate's span weights: output pixel x samples the input at (x + 0.5 - translate) / scale,
    with the kernel widened by 1/scale when antialiasing a downscale; each span renormalised to sum 1."""
    kernel, radius = SAMPLING_KERNELS[kernel_type]
    radius, half = F32(radius), F32(0.5)
    inv_scale = F32(1) / F32(scale)  # float32 throughout, as the kernel: 1.5 / 0.3 must land on 5.0
    kernel_scale = max(inv_scale, F32(1)) if antialias else F32(1)
    sample = (np.arange(out_size, dtype=F32) + half) * inv_scale - inv_scale * F32(translate)
    start = np.clip(np.ceil(sample - radius * kernel_scale - half), 0, in_size - 1).astype(np.int64)
    end = np.clip(np.floor(sample + radius * kernel_scale - half), 0, in_size - 1).astype(np.int64) + 1
    source = np.arange(in_size, dtype=F32)[None, :]
    inside = (source >= start[:, None]) & (source < end[:, None])
    w = np.where(inside, kernel(np.abs((source + half - sample[:, None]) * (F32(1) / kernel_scale))), F32(0))
    total = w.sum(axis=1, keepdims=True)
    w = np.where(np.abs(total) >= 1000 * FLT_MIN, w * (F32(1) / np.where(total == 0, F32(1), total)), F32(0))
    outside = (sample < 0) | (sample > in_size)
    w[outside] = 0.0
    return w.astype(F32)
