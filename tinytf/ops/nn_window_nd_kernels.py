"""Kernels of the N-d window ops (Conv3D and its backprops, MaxPool3D, AvgPool3D and their gradients),
channels last: numpy loops over the window offsets, and XLA lowerings through jax.lax.

    geometry = nd_window("tf.Conv3D", (2, 8, 8, 8, 3), (3, 3, 3), strides, dilations, "SAME")

numpy: the forward convolution adds, for each filter offset, one strided slice of the padded input times
that offset's [C, O] matrix (one BLAS call per offset); the input backprop scatters the same products
back; the filter backprop is one contraction per offset. Pools take the max or sum over the offsets'
slices. JAX is imported only when XLA runs.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from tinytf.errors import InvalidArgumentError
from tinytf.framework.kernel import check_allocation
from tinytf.ops.base import fmt_shape
from tinytf.ops.window_kernels import _out_size

__all__: list[str] = []  # kernels only


@dataclass(frozen=True)
class NdWindow:
    """One window op's geometry over n spatial dims, channels last; None where a shape is unknown."""

    input_shape: tuple       # [N, *spatial, C]
    output_shape: tuple      # [N, *out_spatial, C_out]
    kernel: tuple
    strides: tuple
    dilations: tuple
    pads: tuple              # ((before, after), ...) per spatial dim
    op: str = ""


def nd_window(op, input_shape, kernel, strides, dilations, padding, out_channels=None) -> NdWindow:
    """The geometry of a window op with TensorFlow's SAME / VALID rule per spatial dim."""
    n = len(kernel)
    if input_shape is None:
        input_shape = (None,) * (n + 2)
    if len(input_shape) != n + 2:
        raise InvalidArgumentError(f"{op}: input must be {n + 2}-dimensional, got {fmt_shape(input_shape)}", op)
    if padding not in ("SAME", "VALID"):
        raise InvalidArgumentError(f"{op}: padding must be 'SAME' or 'VALID', got {padding!r}", op)
    outs, pads = [], []
    for size, k, s, d in zip(input_shape[1:-1], kernel, strides, dilations, strict=True):
        if (k is not None and k < 1) or s < 1 or d < 1:
            raise InvalidArgumentError(f"{op}: window sizes, strides and dilations must be positive, got kernel "
                                       f"{list(kernel)}, strides {list(strides)}, dilations {list(dilations)}", op)
        if size is not None and k is not None and padding == "VALID" and size < (k - 1) * d + 1:
            raise InvalidArgumentError(
                f"{op}: the window ({k}, dilation {d}) is larger than the input dim {size} (input "
                f"{fmt_shape(input_shape)}, VALID padding)", op)
        out, pair = _out_size(op, size, k, s, d, padding, None)
        outs.append(out)
        pads.append(pair)
    channels = input_shape[-1] if out_channels is None else out_channels
    output = (input_shape[0], *outs, channels)
    return NdWindow(tuple(input_shape), output, tuple(kernel), tuple(strides), tuple(dilations), tuple(pads), op)


def _offsets(win: NdWindow):
    return itertools.product(*(range(k) for k in win.kernel))


def _slices(win: NdWindow, offset):
    """The strided slice of the padded input that filter offset ``offset`` meets at every output position."""
    out = win.output_shape[1:-1]
    return (slice(None),) + tuple(slice(o * d, o * d + (n - 1) * s + 1, s) for o, d, s, n in
                                  zip(offset, win.dilations, win.strides, out, strict=True)) + (slice(None),)


def _padded(x, win: NdWindow, value=0.0):
    return np.pad(x, [(0, 0)] + [tuple(p) for p in win.pads] + [(0, 0)], constant_values=value)


def _padded_shape(win: NdWindow):
    spatial = tuple(s + a + b for s, (a, b) in zip(win.input_shape[1:-1], win.pads, strict=True))
    return (win.input_shape[0],) + spatial + (win.input_shape[-1],)


def _wide(x):
    return x.astype(np.float32) if x.dtype.kind == "f" and x.dtype.itemsize < 4 else x


def np_conv(x, w, win: NdWindow):
    """x [N, *S, C] with w [*K, C, O]."""
    check_allocation(win.op, win.output_shape, x.dtype)
    xp, w = _padded(_wide(x), win), _wide(w)
    out = np.zeros(win.output_shape, xp.dtype)
    for offset in _offsets(win):
        out += xp[_slices(win, offset)] @ w[offset]
    return out.astype(x.dtype, copy=False)


def np_conv_backprop_input(w, dy, win: NdWindow):
    check_allocation(win.op, win.input_shape, dy.dtype)
    w, g = _wide(w), _wide(dy)
    dxp = np.zeros(_padded_shape(win), g.dtype)
    for offset in _offsets(win):
        dxp[_slices(win, offset)] += g @ np.swapaxes(w[offset], -1, -2)
    return _crop(dxp, win).astype(dy.dtype, copy=False)


def np_conv_backprop_filter(x, dy, win: NdWindow, filter_shape):
    xp, g = _padded(_wide(x), win), _wide(dy)
    dw = np.zeros(filter_shape, g.dtype)
    n = len(win.kernel)
    axes = list(range(n + 1))
    for offset in _offsets(win):
        dw[offset] = np.tensordot(xp[_slices(win, offset)], g, axes=(axes, axes))
    return dw.astype(x.dtype, copy=False)


def np_pool(x, win: NdWindow, kind: str):
    """Max (padding is -inf) or average (divided by the in-bounds count, as TensorFlow) pooling."""
    check_allocation(win.op, win.output_shape, x.dtype)
    if kind == "max":
        xp = _padded(x, win, -np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).min)
        out = None
        for offset in _offsets(win):
            out = xp[_slices(win, offset)] if out is None else np.maximum(out, xp[_slices(win, offset)])
        return out
    xp = _padded(_wide(x), win)
    ones = _padded(np.ones((1,) + x.shape[1:-1] + (1,), xp.dtype), win)
    total, count = 0, 0
    for offset in _offsets(win):
        total = total + xp[_slices(win, offset)]
        count = count + ones[_slices(win, offset)]
    return (total / count).astype(x.dtype, copy=False)


def np_avg_pool_grad(dy, win: NdWindow):
    """Each output's gradient shared equally by the in-bounds inputs of its window."""
    g = _wide(dy)
    ones = _padded(np.ones((1,) + win.input_shape[1:-1] + (1,), g.dtype), win)
    count = 0
    for offset in _offsets(win):
        count = count + ones[_slices(win, offset)]
    share = g / count
    dxp = np.zeros(_padded_shape(win), g.dtype)
    for offset in _offsets(win):
        dxp[_slices(win, offset)] += share
    return _crop(dxp, win).astype(dy.dtype, copy=False)


def np_max_pool_grad(x, y, dy, win: NdWindow):
    """Each output's gradient to the first input of its window (in window order) equal to the maximum."""
    xp = _padded(x, win, -np.inf)
    dxp = np.zeros(xp.shape, _wide(dy).dtype)
    taken = np.zeros(y.shape, bool)
    for offset in _offsets(win):
        hit = (xp[_slices(win, offset)] == y) & ~taken
        taken |= hit
        dxp[_slices(win, offset)] += np.where(hit, dy, 0)
    return _crop(dxp, win).astype(dy.dtype, copy=False)


def np_max_pool_grad_grad(x, y, g, win: NdWindow):
    """The gradient of MaxPoolGrad with respect to its gradient: g gathered at each window's maximum."""
    xp, gp = _padded(x, win, -np.inf), _padded(g, win)
    out = np.zeros(y.shape, g.dtype)
    taken = np.zeros(y.shape, bool)
    for offset in _offsets(win):
        hit = (xp[_slices(win, offset)] == y) & ~taken
        taken |= hit
        out = np.where(hit, gp[_slices(win, offset)], out)
    return out


def _crop(xp, win: NdWindow):
    return xp[(slice(None),) + tuple(slice(a, a + s) for s, (a, _) in zip(win.input_shape[1:-1], win.pads,
                                                                           strict=True)) + (slice(None),)]


# --- XLA (jax.lax) ---------------------------------------------------------------------------------

def _dims(n):
    spatial = "DHW"[-n:] if n <= 3 else None
    return ("N" + spatial + "C", spatial + "IO", "N" + spatial + "C")


def jax_conv(x, w, win: NdWindow):
    from jax import lax

    return lax.conv_general_dilated(x, w, window_strides=win.strides, padding=list(win.pads),
                                    rhs_dilation=win.dilations, dimension_numbers=_dims(len(win.kernel)),
                                    precision=lax.Precision.HIGHEST)


def jax_conv_backprop_input(w, dy, win: NdWindow):
    import jax
    import jax.numpy as jnp

    _, vjp = jax.vjp(lambda x: jax_conv(x, w, win), jnp.zeros(win.input_shape, dy.dtype))
    return vjp(dy)[0]


def jax_conv_backprop_filter(x, dy, win: NdWindow, filter_shape):
    import jax
    import jax.numpy as jnp

    _, vjp = jax.vjp(lambda w: jax_conv(x, w, win), jnp.zeros(filter_shape, dy.dtype))
    return vjp(dy)[0]


def jax_pool(x, win: NdWindow, kind: str):
    from jax import lax

    dims = (1,) + win.kernel + (1,)
    strides = (1,) + win.strides + (1,)
    pads = [(0, 0)] + list(win.pads) + [(0, 0)]
    # numpy init values: JAX then picks its differentiable max / sum windows
    if kind == "max":
        return lax.reduce_window(x, np.asarray(-np.inf, x.dtype), lax.max, dims, strides, pads)
    total = lax.reduce_window(x, np.asarray(0, x.dtype), lax.add, dims, strides, pads)
    ones = np.ones((1,) + tuple(x.shape[1:-1]) + (1,), x.dtype)
    count = lax.reduce_window(ones, np.asarray(0, x.dtype), lax.add, dims, strides, pads)
    return total / count


def jax_max_pool_grad_grad(x, g, win: NdWindow):
    """MaxPool3DGrad is linear in its gradient, and its transpose is the max pool's tangent map."""
    import jax

    return jax.jvp(lambda v: jax_pool(v, win, "max"), (x,), (g,))[1]


def jax_pool_grad(x, dy, win: NdWindow, kind: str):
    import jax

    _, vjp = jax.vjp(lambda v: jax_pool(v, win, kind), x)
    return vjp(dy)[0]
