"""Image quality measures and filters: tt.image.psnr, ssim, ssim_multiscale, total_variation,
image_gradients and sobel_edges, TensorFlow's definitions (image_ops_impl.py) built from tinytf's ops,
so they run and differentiate eagerly, in graphs and under XLA.

    tt.image.psnr(a, b, max_val=1.0)     # 20 log10(max) - 10 log10(mean squared error), per image
    tt.image.ssim(a, b, max_val=1.0)     # an 11x11 Gaussian window (sigma 1.5), k1 = .01, k2 = .03

Images are [..., height, width, channels] with height, width and channels known when tracing.
"""
from __future__ import annotations

import numpy as np

import tinytf.dtypes as dtypes
from tinytf.errors import InvalidArgumentError
from tinytf.ops.image_color import convert_image_dtype
from tinytf.ops.op_functions import ops
from tinytf.ops.tensor_inputs import as_tensor, static_dims

__all__ = ["psnr", "ssim", "ssim_multiscale", "total_variation", "image_gradients", "sobel_edges"]
__namespaces__ = {n: ("image",) for n in __all__}

# Wang, Simoncelli and Bovik (2003), "Multi-scale structural similarity for image quality assessment".
MSSSIM_WEIGHTS = (0.0448, 0.2856, 0.3001, 0.2363, 0.1333)


def _pair(what, a, b, max_val):
    """Both images and max_val as float32 in the images' [0, 1] units; their static shape."""
    a, b = as_tensor(a), as_tensor(b)
    da, db = static_dims(a), static_dims(b)
    if da is None or len(da) < 3 or any(d is None for d in da[-3:]) or a.dtype != b.dtype or da != db:
        raise InvalidArgumentError(f"tt.image.{what}: the images must have the same dtype and shape [..., height, width, "
                                   f"channels] (known), got {a.dtype.name} {da} and {b.dtype.name} {db}", "tf.Mean")
    max_val = convert_image_dtype(ops.cast(as_tensor(max_val), a.dtype), dtypes.float32)
    return convert_image_dtype(a, dtypes.float32), convert_image_dtype(b, dtypes.float32), max_val, da


def psnr(a, b, max_val, name=None):
    """Peak signal-to-noise ratio in dB, per image: 20 log10(max_val) - 10 log10(mean((a - b)^2))."""
    a, b, max_val, _ = _pair("psnr", a, b, max_val)
    mse = ops.reduce_mean(ops.squared_difference(a, b), [-3, -2, -1])
    log10 = np.float32(np.log(10.0))
    return ops.subtract(ops.divide(ops.multiply(20.0, ops.log(max_val)), log10),
                        ops.multiply(np.float32(10 / np.log(10)), ops.log(mse)))


def gaussian_window(size: int, sigma: float) -> np.ndarray:
    """The normalised size x size Gaussian, as a [size, size, 1, 1] filter (float32)."""
    coords = np.arange(size, dtype=np.float32) - np.float32(size - 1) / 2
    g = np.square(coords) * np.float32(-0.5 / np.square(np.float32(sigma)))
    g = (g[None, :] + g[:, None]).reshape(-1)
    g = np.exp(g - g.max())
    return (g / g.sum()).astype(np.float32).reshape(size, size, 1, 1)


def _windowed(x, window, dims):
    """The depthwise convolution of each channel with ``window`` (VALID), over the last three dims."""
    flat = ops.reshape(x, [-1, *dims[-3:]])
    out = ops.depthwise_conv2d(flat, np.tile(window, (1, 1, dims[-1], 1)), [1, 1, 1, 1], "VALID")
    out_dims = static_dims(out)
    return ops.reshape(out, [*(d if d is not None else -1 for d in dims[:-3]), *out_dims[1:]])


def _ssim_per_channel(a, b, max_val, dims, filter_size, filter_sigma, k1, k2):
    if dims[-3] < filter_size or dims[-2] < filter_size:
        raise InvalidArgumentError(f"tt.image.ssim: the images ({list(dims[-3:-1])}) must be at least filter_size "
                                   f"({filter_size}) high and wide", "tf.DepthwiseConv2dNative")
    window = gaussian_window(filter_size, filter_sigma)
    c1 = ops.square(ops.multiply(np.float32(k1), max_val))
    c2 = ops.square(ops.multiply(np.float32(k2), max_val))
    mean_a, mean_b = _windowed(a, window, dims), _windowed(b, window, dims)
    both = ops.multiply(ops.multiply(mean_a, mean_b), 2.0)
    squares = ops.add(ops.square(mean_a), ops.square(mean_b))
    luminance = ops.divide(ops.add(both, c1), ops.add(squares, c1))
    cross = ops.multiply(_windowed(ops.multiply(a, b), window, dims), 2.0)
    energy = _windowed(ops.add(ops.square(a), ops.square(b)), window, dims)
    contrast_structure = ops.divide(ops.add(ops.subtract(cross, both), c2),
                                    ops.add(ops.subtract(energy, squares), c2))
    return luminance, contrast_structure


def ssim(img1, img2, max_val, filter_size=11, filter_sigma=1.5, k1=0.01, k2=0.03, return_index_map=False):
    """Structural similarity per image (the mean over the window positions and channels); with
    ``return_index_map`` the map over window positions (averaged over channels)."""
    a, b, max_val, dims = _pair("ssim", img1, img2, max_val)
    luminance, cs = _ssim_per_channel(a, b, max_val, dims, int(filter_size), float(filter_sigma), k1, k2)
    value = ops.multiply(luminance, cs)
    if not return_index_map:
        value = ops.reduce_mean(value, [-3, -2])
    return ops.reduce_mean(value, [-1])


def ssim_multiscale(img1, img2, max_val, power_factors=MSSSIM_WEIGHTS, filter_size=11, filter_sigma=1.5, k1=0.01,
                    k2=0.03):
    """Multi-scale SSIM: contrast-structure at each of len(power_factors) scales (2x2 average pooling between,
    odd sizes padded symmetrically first) and the full SSIM at the last, raised to the factors and multiplied."""
    a, b, max_val, dims = _pair("ssim_multiscale", img1, img2, max_val)
    factors = np.asarray(power_factors, np.float32)
    head, tail = list(dims[:-3]), list(dims[-3:])
    terms = []
    for k in range(len(factors)):
        if k:
            pads = [[0, 0], [0, tail[0] % 2], [0, tail[1] % 2], [0, 0]]
            pooled = []
            for x in (a, b):
                flat = ops.reshape(x, [-1, *tail])
                if pads[1][1] or pads[2][1]:
                    flat = ops.pad(flat, pads, mode="SYMMETRIC")
                pooled.append(ops.avg_pool(flat, [1, 2, 2, 1], [1, 2, 2, 1], "VALID"))
            tail = list(static_dims(pooled[0])[1:])
            a, b = (ops.reshape(x, [*(d if d is not None else -1 for d in head), *tail]) for x in pooled)
        luminance, cs = _ssim_per_channel(a, b, max_val, (*head, *tail), int(filter_size), float(filter_sigma), k1, k2)
        if k < len(factors) - 1:
            terms.append(ops.relu(ops.reduce_mean(cs, [-3, -2])))
        else:
            terms.append(ops.relu(ops.reduce_mean(ops.multiply(luminance, cs), [-3, -2])))
    stacked = ops.stack(terms, axis=-1)
    return ops.reduce_mean(ops.reduce_prod(ops.pow(stacked, factors), [-1]), [-1])


def _rank(what, images, ranks):
    images = as_tensor(images)
    dims = static_dims(images)
    if dims is None or len(dims) not in ranks:
        raise InvalidArgumentError(f"tt.image.{what}: 'images' must be {' or '.join(map(str, ranks))}-dimensional, got "
                                   f"{None if dims is None else list(dims)}", "tf.Sub")
    return images, len(dims)


def _diff(x, axis, rank):
    """x[..., 1:, ...] - x[..., :-1, ...] along ``axis``."""
    begin, end = [0] * rank, [0] * rank
    begin[axis], end[axis] = 1, -1
    mask = sum(1 << i for i in range(rank) if i != axis)
    later = ops.strided_slice(x, begin, [0] * rank, begin_mask=mask, end_mask=mask | (1 << axis))
    earlier = ops.strided_slice(x, [0] * rank, end, begin_mask=mask | (1 << axis), end_mask=mask)
    return ops.subtract(later, earlier)


def total_variation(images, name=None):
    """The sum of absolute differences between neighbouring pixels: a scalar for one image, one per image."""
    images, rank = _rank("total_variation", images, (3, 4))
    h = rank - 3
    axes = None if rank == 3 else [1, 2, 3]
    return ops.add(ops.reduce_sum(ops.abs(_diff(images, h, rank)), axes),
                   ops.reduce_sum(ops.abs(_diff(images, h + 1, rank)), axes))


def image_gradients(image):
    """(dy, dx): forward differences along height and width, zero in the last row / column."""
    image, _ = _rank("image_gradients", image, (4,))
    dy = ops.pad(_diff(image, 1, 4), [[0, 0], [0, 1], [0, 0], [0, 0]])
    dx = ops.pad(_diff(image, 2, 4), [[0, 0], [0, 0], [0, 1], [0, 0]])
    return dy, dx


SOBEL = np.array([[[-1, -2, -1], [0, 0, 0], [1, 2, 1]], [[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]]])  # d/dy, d/dx


def sobel_edges(image):
    """[batch, h, w, d] -> [batch, h, w, d, 2]: the Sobel responses along y and x (reflect-padded)."""
    image, _ = _rank("sobel_edges", image, (4,))
    dims = static_dims(image)
    if dims[-1] is None or image.dtype.kind != "f":
        raise InvalidArgumentError(f"tt.image.sobel_edges: needs a floating point image with known channels, got "
                                   f"{image.dtype.name} {list(dims)}", "tf.DepthwiseConv2dNative")
    kernels = np.tile(np.transpose(SOBEL, (1, 2, 0))[:, :, None, :], (1, 1, dims[-1], 1)).astype(image.dtype.np)
    padded = ops.pad(image, [[0, 0], [1, 1], [1, 1], [0, 0]], mode="REFLECT")
    out = ops.depthwise_conv2d(padded, kernels, [1, 1, 1, 1], "VALID")
    return ops.reshape(out, [*(d if d is not None else -1 for d in dims), 2])
