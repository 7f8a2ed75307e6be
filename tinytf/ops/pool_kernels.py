"""Pooling kernels: numpy and XLA (jax.lax.reduce_window) for MaxPool, AvgPool and their gradient ops.

    %p = "tf.AvgPool"(%x) <{data_format = "NHWC", ksize = [1, 2, 2, 1], padding = "VALID",
           strides = [1, 2, 2, 1]}> : (tensor<2x12x12x8xf32>) -> tensor<2x6x6x8xf32>

The numpy kernels work in NHWC on the strided window views of window_kernels.py; NCHW transposes
around them. JAX is imported only when XLA runs.
"""
from __future__ import annotations

import numpy as np

from tinytf.framework.kernel import check_allocation
from tinytf.ops.window_kernels import (
    Window,
    checked_zeros,
    from_nhwc,
    has_no_elements,
    pad_spatial,
    padded,
    scatter_windows,
    shape_in_format,
    shifted,
    to_nhwc,
    widen_half,
    window_patches,
)

# --- numpy kernels -----------------------------------------------------------------------------

def _lowest(dtype):
    return -np.inf if dtype.kind == "f" else np.iinfo(dtype).min


def _window_reduce(xp, win: Window, ufunc, dtype):
    """``ufunc`` (np.maximum, np.add) over the window offsets of every output pixel: KH * KW
    shifted slices of the padded input folded into one buffer, no loop over pixels."""
    kh, kw = win.kernel
    check_allocation(win.op, win.output_nhwc, dtype)
    out = np.empty(win.output_nhwc, dtype)
    out[...] = shifted(xp, win, 0, 0)
    for i in range(kh):
        for j in range(kw):
            if i or j:
                ufunc(out, shifted(xp, win, i, j), out=out)
    return out


def np_max_pool(x, win: Window, data_format):
    x = to_nhwc(x, data_format)
    if has_no_elements(win.output_nhwc):
        return checked_zeros(win, win.output_nhwc, x.dtype, data_format)
    xp = padded(x, win, _lowest(x.dtype))
    return from_nhwc(_window_reduce(xp, win, np.maximum, x.dtype), data_format)


def _argmax(x, win: Window):
    """[N, OH, OW, C]: the flat (kh, kw) offset of each window's first maximum."""
    p = window_patches(pad_spatial(x, win.pads, _lowest(x.dtype), win=win), win)
    return p.reshape(p.shape[:4] + (-1,)).argmax(axis=-1)


def np_max_pool_grad(x, g, win: Window, data_format):
    x, g = to_nhwc(x, data_format), to_nhwc(g, data_format)
    if has_no_elements(win.output_nhwc) or has_no_elements(x.shape):
        return checked_zeros(win, win.input_nhwc, g.dtype, data_format)
    arg = _argmax(x, win)
    kh, kw = win.kernel
    zero = np.zeros((), g.dtype)
    cols = np.stack([np.where(arg == k, g, zero) for k in range(kh * kw)], axis=3)
    return from_nhwc(scatter_windows(cols.reshape(arg.shape[:3] + (kh, kw, -1)), win, g.dtype), data_format)


def np_max_pool_grad_grad(x, gg, win: Window, data_format):
    x, gg = to_nhwc(x, data_format), to_nhwc(gg, data_format)
    if has_no_elements(win.output_nhwc):
        return checked_zeros(win, win.output_nhwc, gg.dtype, data_format)
    p = window_patches(pad_spatial(gg, win.pads, 0, win=win), win)
    picked = np.take_along_axis(p.reshape(p.shape[:4] + (-1,)), _argmax(x, win)[..., None], axis=-1)
    return from_nhwc(picked[..., 0], data_format)


def _counts(win: Window):
    """[1, OH, OW, 1]: how many real (unpadded) elements each pooling window covers."""
    per_dim = []
    for size, k, s, (before, _), out in zip(win.input_nhwc[1:3], win.kernel, win.strides, win.pads,
                                            win.output_nhwc[1:3]):
        start = np.arange(out) * s - before
        per_dim.append(np.minimum(start + k, size) - np.maximum(start, 0))
    return np.multiply.outer(per_dim[0], per_dim[1])[None, :, :, None]


def np_avg_pool(x, win: Window, data_format):
    dtype = x.dtype
    x = widen_half(to_nhwc(x, data_format))
    if has_no_elements(win.output_nhwc):
        return checked_zeros(win, win.output_nhwc, dtype, data_format)
    total = _window_reduce(padded(x, win), win, np.add, x.dtype)
    return from_nhwc((total / _counts(win).astype(x.dtype)).astype(dtype, copy=False), data_format)


def np_avg_pool_grad(g, win: Window, data_format):
    dtype = g.dtype
    g = widen_half(to_nhwc(g, data_format))
    if has_no_elements(win.output_nhwc) or has_no_elements(win.input_nhwc):
        return checked_zeros(win, win.input_nhwc, dtype, data_format)
    share = g / _counts(win).astype(g.dtype)
    kh, kw = win.kernel
    cols = np.broadcast_to(share[:, :, :, None, None, :], share.shape[:3] + (kh, kw, share.shape[3]))
    return from_nhwc(scatter_windows(cols, win, g.dtype).astype(dtype, copy=False), data_format)


# --- XLA lowerings (jax.lax), imported only when XLA runs ---------------------------------------

def _spatial_pairs(win: Window, data_format):
    pairs = [(0, 0), win.pads[0], win.pads[1], (0, 0)]
    return shape_in_format(tuple(pairs), data_format)


def jax_max_pool(x, win: Window, data_format):
    from jax import lax

    dims = shape_in_format((1,) + win.kernel + (1,), data_format)
    strides = shape_in_format((1,) + win.strides + (1,), data_format)
    init = np.asarray(_lowest(np.dtype(x.dtype)), x.dtype)
    return lax.reduce_window(x, init, lax.max, dims, strides, _spatial_pairs(win, data_format))


def jax_max_pool_grad(x, g, win: Window, data_format):
    import jax

    _, vjp = jax.vjp(lambda v: jax_max_pool(v, win, data_format), x)
    return vjp(g)[0]


def jax_max_pool_grad_grad(x, gg, win: Window, data_format):
    import jax

    return jax.jvp(lambda v: jax_max_pool(v, win, data_format), (x,), (gg,))[1]


def jax_avg_pool(x, win: Window, data_format):
    from jax import lax

    dims = shape_in_format((1,) + win.kernel + (1,), data_format)
    strides = shape_in_format((1,) + win.strides + (1,), data_format)
    total = lax.reduce_window(x, np.asarray(0, x.dtype), lax.add, dims, strides, _spatial_pairs(win, data_format))
    return total / from_nhwc(_counts(win), data_format).astype(x.dtype)


def jax_avg_pool_grad(shape, g, win: Window, data_format):
    import jax
    import jax.numpy as jnp

    _, vjp = jax.vjp(lambda v: jax_avg_pool(v, win, data_format), jnp.zeros(shape, g.dtype))
    return vjp(g)[0]

