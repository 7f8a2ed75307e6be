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

from tinytf.framework.kernel import check_allocation
from tinytf.ops.window_kernels import (
    Window,
    checked_zeros,
    from_nhwc,
    has_no_elements,
    im2col,
    pad_spatial,
    padded,
    scatter_windows,
    shifted,
    to_nhwc,
    widen_half,
    window_patches,
)

# --- numpy kernels -----------------------------------------------------------------------------
# The forward kernels copy each window offset's strided slice once (im2col, KH * KW slice copies)
# and make one BLAS call against the filter in its own HWIO layout (no copy of the filter); a 1x1
# convolution is the matmul itself; a depthwise one is one einsum over the windows' view, or KH * KW
# shifted multiply-adds where those are faster.

def _hwio(w, depthwise):
    """The filter as HWIO; a depthwise [H, W, C, M] filter is a grouped [H, W, 1, C*M] one."""
    kh, kw, a, b = w.shape
    return w.reshape(kh, kw, 1, a * b) if depthwise else w


def _gemm_conv(xp, w, win: Window):
    """An ungrouped convolution: im2col @ the [KH * KW * C, O] filter, one BLAS call."""
    kh, kw, c, o = w.shape
    cols = im2col(xp, win)
    w2 = w.reshape(kh * kw * c, o)  # HWIO is already the im2col order: a view
    return (cols.reshape(-1, kh * kw * c) @ w2).reshape(win.output_nhwc[:3] + (o,))


def _depthwise_conv(xp, w, win: Window):
    """Depthwise ([KH, KW, C, M] filter): the sum over window offsets of the shifted input times that
    offset's filter taps, multiply-added into one buffer."""
    kh, kw, c, m = w.shape
    n, oh, ow, _ = win.output_nhwc
    shape = (n, oh, ow, c) if m == 1 else (n, oh, ow, c, m)
    check_allocation(win.op, shape, xp.dtype)
    size = n * oh * ow * c
    if 1 < kh * kw and size * kh * kw <= 1 << 24 and (c >= 64 or kh * kw > 9 or size <= 8192):
        # one pass over the windows' view, not KH * KW passes of a numpy call each: faster unless many
        # pixels of few channels meet a 3x3 filter (measured on NASNet's and MobileNet's shapes)
        spec = "nhwcij,ijc->nhwc" if m == 1 else "nhwcij,ijcm->nhwcm"
        out = np.einsum(spec, window_patches(xp, win), w[:, :, :, 0] if m == 1 else w)
        return out.reshape(n, oh, ow, c * m)
    out = np.empty(shape, xp.dtype)
    tmp = np.empty(shape, xp.dtype) if kh * kw > 1 else None
    for i in range(kh):
        for j in range(kw):
            x_ij = shifted(xp, win, i, j)
            w_ij = w[i, j, :, 0] if m == 1 else w[i, j]
            if m > 1:
                x_ij = x_ij[..., None]
            if i == 0 and j == 0:
                np.multiply(x_ij, w_ij, out=out)
            else:
                np.multiply(x_ij, w_ij, out=tmp)
                np.add(out, tmp, out=out)
    return out.reshape(n, oh, ow, c * m)


def _grouped_conv(xp, w, win: Window):
    """G groups of FI input channels each: one batched matmul over the groups."""
    kh, kw, fi, fo = w.shape
    g = win.groups
    og = fo // g
    cols = im2col(xp, win)
    m = cols.shape[0] * cols.shape[1] * cols.shape[2]
    a = cols.reshape(m, kh * kw, g, fi).transpose(2, 0, 1, 3).reshape(g, m, kh * kw * fi)
    b = w.reshape(kh * kw, fi, g, og).transpose(2, 0, 1, 3).reshape(g, kh * kw * fi, og)
    return np.matmul(a, b).transpose(1, 0, 2).reshape(win.output_nhwc[:3] + (fo,))


def np_conv(x, w, win: Window, data_format, depthwise):
    dtype = x.dtype
    x, w = widen_half(to_nhwc(x, data_format)), widen_half(w)
    if has_no_elements(win.output_nhwc) or has_no_elements(x.shape):
        return checked_zeros(win, win.output_nhwc, dtype, data_format)
    xp = padded(x, win)
    if depthwise:
        out = _depthwise_conv(xp, w, win)
    elif win.groups == 1:
        out = _gemm_conv(xp, w, win)
    elif w.shape[2] == 1:  # as many groups as input channels: a depthwise convolution, multiplier O / C
        kh, kw, _, fo = w.shape
        out = _depthwise_conv(xp, w.reshape(kh, kw, win.groups, fo // win.groups), win)
    else:
        out = _grouped_conv(xp, w, win)
    return from_nhwc(out.astype(dtype, copy=False), data_format)


def np_conv_backprop_input(w, dy, win: Window, data_format, depthwise):
    dtype = dy.dtype
    dy, w = widen_half(to_nhwc(dy, data_format)), widen_half(_hwio(w, depthwise))
    if has_no_elements(win.input_nhwc) or has_no_elements(dy.shape):
        return checked_zeros(win, win.input_nhwc, dtype, data_format)
    kh, kw, fi, fo = w.shape
    n, oh, ow, _ = dy.shape
    g = win.groups
    if g == 1:  # [N * OH * OW, O] @ [O, KH * KW * C]: the filter transposed by BLAS, not copied
        cols = (dy.reshape(-1, fo) @ w.reshape(kh * kw * fi, fo).T).reshape(n, oh, ow, kh, kw, fi)
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
    n, oh, ow, _ = dy.shape
    g = win.groups
    if g == 1:  # im2col^T @ dy: [KH * KW * C, O], already HWIO
        cols = im2col(padded(x, win), win)
        dw = (cols.reshape(-1, kh * kw * fi).T @ dy.reshape(-1, fo)).reshape(kh, kw, fi, fo)
    else:
        p = window_patches(pad_spatial(x, win.pads, 0, win=win), win)
        dw = np.einsum("nhwgcij,nhwgo->ijcgo", p.reshape(n, oh, ow, g, fi, kh, kw),
                       dy.reshape(n, oh, ow, g, fo // g), optimize=True).reshape(kh, kw, fi, fo)
    return dw.reshape(win.filter_shape).astype(dtype, copy=False)


# im2col elements up to which one gather beats KH * KW strided slice copies (a copy's inner run is C elements:
# the fewer channels, the slower the copies)
SMALL_GATHER, FEW_CHANNELS_GATHER, FEW_CHANNELS = 1 << 15, 1 << 18, 8


def small_conv_kernel(win: Window, dtype):
    """``(run(x, w), bytes it allocates)`` for an ungrouped NHWC convolution of static shapes small enough
    for im2col as one gather (a precomputed index into the flat input, one past its end for a padding
    zero) instead of KH * KW strided copies: the same columns, the same BLAS call, bit for bit ``np_conv``.
    None for larger, empty, grouped or half-precision convolutions and 1x1 filters."""
    n, h, w, c = win.input_nhwc
    kh, kw, fi, o = win.filter_shape
    _, oh, ow, _ = win.output_nhwc
    count = n * oh * ow * kh * kw * c
    limit = FEW_CHANNELS_GATHER if c <= FEW_CHANNELS else SMALL_GATHER
    if win.groups != 1 or kh * kw == 1 or not 0 < count <= limit or o == 0 or dtype.kind != "f" or dtype.itemsize < 4:
        return None
    size = n * h * w * c
    (t, b), (lft, r) = win.pads
    where = np.full((n, h + t + b, w + lft + r, c), size, np.intp)  # the padding reads the zero at ``size``
    where[:, t:t + h, lft:lft + w] = np.arange(size).reshape(n, h, w, c)
    index = im2col(where, win).reshape(n * oh * ow, kh * kw * c)
    out_shape, k = (n, oh, ow, o), kh * kw * c
    empty = np.empty

    def run(x, filter_):
        flat = empty(size + 1, dtype)
        flat[size] = 0
        flat[:size] = x.reshape(-1)
        return (flat.take(index) @ filter_.reshape(k, o)).reshape(out_shape)

    return run, (count + size + 1 + n * oh * ow * o) * dtype.itemsize


# --- XLA lowerings (jax.lax), imported only when XLA runs ---------------------------------------

def jax_conv(x, w, win: Window, data_format, depthwise):
    from jax import lax

    w = _hwio(w, depthwise)
    if win.groups > 1 and w.shape[2] == 1:  # one group per input channel: a depthwise convolution
        return _jax_depthwise_conv(x, w, win, data_format)
    pads = list(win.pads)
    if win.groups == 1 and _operands_may_swap(x.shape, win, data_format):
        # XLA's conv-operand-swapper turns such a convolution (a 3x3 filter over VGG's or ResNet's last
        # 2x2 or 1x1 maps) into one of the filter by the input, in a layout XLA:CPU runs as plain loops:
        # 10-200x slower. Padded beforehand, behind a barrier XLA does not fold into the convolution, the
        # input is at least as large as the filter and the convolution stays a fast one.
        if any(low or high for low, high in pads):
            spatial = [data_format.index(d) for d in data_format if d not in "NC"]
            widths = [(0, 0, 0)] * x.ndim
            for axis, (low, high) in zip(spatial, pads, strict=True):
                widths[axis] = (low, high, 0)
            x = lax.pad(x, np.zeros((), x.dtype), widths)
            pads = [(0, 0)] * len(pads)
        x = lax.optimization_barrier(x)
    return lax.conv_general_dilated(
        x, w, window_strides=win.strides, padding=pads, rhs_dilation=win.dilations,
        dimension_numbers=(data_format, "HWIO", data_format), feature_group_count=win.groups,
        precision=lax.Precision.HIGHEST)


def _jax_depthwise_conv(x, w, win: Window, data_format):
    """A depthwise convolution as KH * KW shifted multiply-adds, which XLA fuses into one loop over the
    output, as the numpy kernel computes it: XLA:CPU runs a grouped convolution 20-40x slower (an
    EfficientNet 3x3 one over 2x16x16x96: 1.3 ms against 0.05 ms). ``w`` is [H, W, 1, C * M]."""
    import jax.numpy as jnp
    from jax import lax

    dtype = x.dtype
    if jnp.issubdtype(dtype, jnp.floating) and dtype.itemsize < 4:  # (accumulate halves in float32)
        x, w = x.astype(jnp.float32), w.astype(jnp.float32)
    if data_format == "NCHW":
        x = jnp.transpose(x, (0, 2, 3, 1))
    kh, kw, _, channels = w.shape
    if channels != x.shape[3]:  # a channel multiplier M: output channel c * M + m reads input channel c
        x = jnp.repeat(x, channels // x.shape[3], axis=3)
    (top, bottom), (left, right) = win.pads
    x = lax.pad(x, np.zeros((), x.dtype), [(0, 0, 0), (top, bottom, 0), (left, right, 0), (0, 0, 0)])
    (sh, sw), (dh, dw) = win.strides, win.dilations
    oh, ow = (x.shape[1] - (kh - 1) * dh - 1) // sh + 1, (x.shape[2] - (kw - 1) * dw - 1) // sw + 1
    out = None
    for i in range(kh):
        for j in range(kw):
            window = lax.slice(x, (0, i * dh, j * dw, 0), (x.shape[0], i * dh + (oh - 1) * sh + 1,
                                                          j * dw + (ow - 1) * sw + 1, channels), (1, sh, sw, 1))
            term = window * w[i, j, 0]
            out = term if out is None else out + term
    if data_format == "NCHW":
        out = jnp.transpose(out, (0, 3, 1, 2))
    return out.astype(dtype)


def _operands_may_swap(shape, win: Window, data_format) -> bool:
    """Whether XLA may swap the convolution's operands: the filter's window holds more elements than
    the input's spatial plane, once the zero padding XLA folds into the convolution is left out: the
    window's own, or for an unpadded window a tf.Pad's before it (ResNetV2's ZeroPadding2D), taken as
    the filter's size less one."""
    spatial = [shape[data_format.index(d)] for d in data_format if d not in "NC"]
    if not any(low or high for low, high in win.pads):
        spatial = [max(size - (k - 1) * d, 1) for size, k, d in zip(spatial, win.kernel, win.dilations, strict=True)]
    return np.prod(win.kernel) > np.prod(spatial)


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
