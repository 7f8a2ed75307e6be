"""Convolution kernels: numpy and XLA (jax.lax) for Conv2D, DepthwiseConv2dNative and their backprop ops.

    %y = "tf.Conv2D"(%x, %w) <{data_format = "NHWC", dilations = [1, 1, 1, 1], explicit_paddings = [],
           padding = "SAME", strides = [1, 1, 1, 1], use_cudnn_on_gpu = true}>
           : (tensor<2x12x12x3xf32>, tensor<3x3x3x8xf32>) -> tensor<2x12x12x8xf32>

Filters are HWIO (depthwise: H, W, in channels, multiplier). The numpy kernels work in NHWC on the
strided window views of window_kernels.py; NCHW transposes around them. JAX is imported only when
XLA runs.
"""
from __future__ import annotations

import numpy as np

from tinytf.ops.window_kernels import (
    Window,
    checked_zeros,
    from_nhwc,
    has_no_elements,
    pad_spatial,
    scatter_windows,
    to_nhwc,
    widen_half,
    window_patches,
)

# --- numpy kernels -----------------------------------------------------------------------------

def _hwio(w, depthwise):
    """The filter as HWIO; a depthwise [H, W, C, M] filter is a grouped [H, W, 1, C*M] one."""
    kh, kw, a, b = w.shape
    return w.reshape(kh, kw, 1, a * b) if depthwise else w


def np_conv(x, w, win: Window, data_format, depthwise):
    dtype = x.dtype
    x, w = widen_half(to_nhwc(x, data_format)), widen_half(_hwio(w, depthwise))
    if has_no_elements(win.output_nhwc) or has_no_elements(x.shape):
        return checked_zeros(win, win.output_nhwc, dtype, data_format)
    p = window_patches(pad_spatial(x, win.pads, 0, win=win), win)
    kh, kw, fi, fo = w.shape
    g = win.groups
    if g == 1:
        out = np.tensordot(p, w, axes=([3, 4, 5], [2, 0, 1]))
    elif fi == 1:  # depthwise: one input channel per group
        out = np.einsum("nhwgij,ijgo->nhwgo", p, w.reshape(kh, kw, g, fo // g)).reshape(win.output_nhwc)
    else:
        og = fo // g
        out = np.concatenate([np.tensordot(p[:, :, :, k * fi:(k + 1) * fi], w[..., k * og:(k + 1) * og],
                                           axes=([3, 4, 5], [2, 0, 1])) for k in range(g)], axis=-1)
    return from_nhwc(out.astype(dtype, copy=False), data_format)


def np_conv_backprop_input(w, dy, win: Window, data_format, depthwise):
    dtype = dy.dtype
    dy, w = widen_half(to_nhwc(dy, data_format)), widen_half(_hwio(w, depthwise))
    if has_no_elements(win.input_nhwc) or has_no_elements(dy.shape):
        return checked_zeros(win, win.input_nhwc, dtype, data_format)
    kh, kw, fi, fo = w.shape
    n, oh, ow, _ = dy.shape
    g = win.groups
    if g == 1:
        cols = np.tensordot(dy, w, axes=([3], [3]))  # [N, OH, OW, KH, KW, C]
    else:
        cols = np.einsum("nhwgo,ijcgo->nhwijgc", dy.reshape(n, oh, ow, g, fo // g),
                         w.reshape(kh, kw, fi, g, fo // g), optimize=True).reshape(n, oh, ow, kh, kw, g * fi)
    return from_nhwc(scatter_windows(cols, win, cols.dtype).astype(dtype, copy=False), data_format)


def np_conv_backprop_filter(x, dy, win: Window, data_format, depthwise):
    dtype = x.dtype
    x, dy = widen_half(to_nhwc(x, data_format)), widen_half(to_nhwc(dy, data_format))
    kh, kw, a, b = win.filter_shape
    fi, fo = (1, a * b) if depthwise else (a, b)
    if has_no_elements(win.output_nhwc) or has_no_elements(x.shape):
        return checked_zeros(win, win.filter_shape, dtype)
    p = window_patches(pad_spatial(x, win.pads, 0, win=win), win)
    n, oh, ow, _ = dy.shape
    g = win.groups
    if g == 1:
        dw = np.tensordot(p, dy, axes=([0, 1, 2], [0, 1, 2])).transpose(1, 2, 0, 3)
    else:
        dw = np.einsum("nhwgcij,nhwgo->ijcgo", p.reshape(n, oh, ow, g, fi, kh, kw),
                       dy.reshape(n, oh, ow, g, fo // g), optimize=True).reshape(kh, kw, fi, fo)
    return dw.reshape(win.filter_shape).astype(dtype, copy=False)


# --- XLA lowerings (jax.lax), imported only when XLA runs ---------------------------------------

def jax_conv(x, w, win: Window, data_format, depthwise):
    from jax import lax

    return lax.conv_general_dilated(
        x, _hwio(w, depthwise), window_strides=win.strides, padding=list(win.pads), rhs_dilation=win.dilations,
        dimension_numbers=(data_format, "HWIO", data_format), feature_group_count=win.groups,
        precision=lax.Precision.HIGHEST)


def jax_conv_backprop_input(shape, w, dy, win: Window, data_format, depthwise):
    import jax
    import jax.numpy as jnp

    _, vjp = jax.vjp(lambda x: jax_conv(x, w, win, data_format, depthwise), jnp.zeros(shape, dy.dtype))
    return vjp(dy)[0]


def jax_conv_backprop_filter(x, shape, dy, win: Window, data_format, depthwise):
    import jax
    import jax.numpy as jnp

    _, vjp = jax.vjp(lambda w: jax_conv(x, w, win, data_format, depthwise), jnp.zeros(shape, dy.dtype))
    return vjp(dy)[0]
