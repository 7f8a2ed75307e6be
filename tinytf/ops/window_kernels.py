"""Sliding windows for the conv and pool ops: TensorFlow's window geometry and numpy strided-window views.

    %p = "tf.MaxPool"(%x) <{data_format = "NHWC", explicit_paddings = [], ksize = [1, 2, 2, 1],
           padding = "SAME", strides = [1, 2, 2, 1]}> : (tensor<1x5x5x1xf32>) -> tensor<1x3x3x1xf32>

``conv_window`` / ``pool_window`` check an op's attributes and shapes and give its ``Window`` (output
size and padding, TensorFlow's GetWindowedOutputSize); the numpy helpers below work in NHWC on
strided views (``as_strided``): im2col without a loop over pixels. Shared by
conv_kernels.py and pool_kernels.py (the kernels) and conv.py and pooling.py (the op classes).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.lib.stride_tricks import as_strided, sliding_window_view

from tinytf.errors import InvalidArgumentError, UnimplementedError
from tinytf.framework.kernel import check_allocation
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.ops.base import fmt_shape

# --- window geometry (TensorFlow's GetWindowedOutputSize) --------------------------------------

@dataclass(frozen=True)
class Window:
    """One 2-D window op's geometry in NHWC terms; dims are None where a shape is unknown."""

    input_nhwc: tuple
    output_nhwc: tuple
    kernel: tuple            # (kh, kw)
    strides: tuple           # (sh, sw)
    dilations: tuple         # (dh, dw)
    pads: tuple              # ((top, bottom), (left, right))
    groups: int | None = 1   # input channels / filter input channels (C for depthwise)
    filter_shape: tuple | None = None
    op: str = ""             # the op's name, for errors raised while computing


def shape_in_format(shape_nhwc, data_format: str):
    """An NHWC shape (or any 4 per-dim values) in data_format's order."""
    if shape_nhwc is None or data_format == "NHWC":
        return shape_nhwc
    n, h, w, c = shape_nhwc
    return (n, c, h, w)


def _from_format(shape, data_format: str):
    if shape is None:
        return (None,) * 4
    return tuple(shape) if data_format == "NHWC" else (shape[0], shape[2], shape[3], shape[1])


def _check_format(name, data_format):
    if data_format not in ("NHWC", "NCHW"):
        raise InvalidArgumentError(f"{name}: invalid data format '{data_format}' (expected NHWC or NCHW)", name)


def _four(name, what, values, data_format, positive=True):
    """A 4-element attribute (strides, dilations, ksize) as its (h, w) pair; batch and depth must be 1."""
    values = tuple(values)
    if len(values) != 4:
        raise InvalidArgumentError(f"{name}: sliding window {what} field must specify 4 dimensions, got "
                                   f"{list(values)}", name)
    if positive and min(values) < 1:
        raise InvalidArgumentError(f"{name}: {what} must be positive, got {list(values)}", name)
    n, h, w, c = _from_format(values, data_format)
    if n != 1 or c != 1:
        raise InvalidArgumentError(f"{name}: {what} {list(values)} in the batch and depth dimensions must be 1 "
                                   f"({data_format})", name)
    return h, w


def _paddings(name, padding, explicit, data_format, allowed):
    """The explicit (top, bottom), (left, right) pairs, or None for SAME and VALID."""
    if padding not in allowed:
        raise InvalidArgumentError(f"{name}: invalid padding '{padding}' (expected one of {', '.join(allowed)})", name)
    explicit = tuple(explicit)
    if padding != "EXPLICIT":
        if explicit:
            raise InvalidArgumentError(f"{name}: explicit_paddings must be empty if padding is not EXPLICIT, got "
                                       f"{list(explicit)}", name)
        return None
    if len(explicit) != 8 or min(explicit) < 0:
        raise InvalidArgumentError(f"{name}: explicit_paddings must hold 8 non-negative values, got "
                                   f"{list(explicit)}", name)
    pairs = _from_format([explicit[i:i + 2] for i in range(0, 8, 2)], data_format)
    if any(pairs[0]) or any(pairs[3]):
        raise InvalidArgumentError(f"{name}: explicit_paddings {list(explicit)} must be 0 in the batch and depth "
                                   f"dimensions ({data_format})", name)
    return tuple(pairs[1]), tuple(pairs[2])


def _out_size(name, size, k, stride, dilation, padding, pair):
    """(output size, (pad_before, pad_after)) of one spatial dim."""
    if size is None or k is None:
        return None, (None, None) if pair is None else pair
    eff = (k - 1) * dilation + 1
    if padding == "SAME":
        out = -(-size // stride)
        need = max(0, (out - 1) * stride + eff - size)
        pair = (need // 2, need - need // 2)
    else:
        pair = pair or (0, 0)
        num = size + pair[0] + pair[1] - eff + stride
        out = num // stride if num >= 0 else -(-num // stride)  # C++ division truncates toward zero
    if out < 0:
        raise InvalidArgumentError(f"{name}: Computed output size would be negative: {out} [input_size: {size}, "
                                   f"effective_filter_size: {eff}, stride: {stride}]", name)
    return out, pair


def _rank4(name, what, shape):
    if shape is not None and len(shape) != 4:
        raise InvalidArgumentError(f"{name}: {what} must be 4-dimensional, got shape {fmt_shape(shape)}", name)


_WINDOWS: dict = {}  # the geometry of the windows seen, by op, shapes and attributes (kernels ask per call)


def _cached(key, make):
    """``make()``, remembered under ``key`` (a key that is not hashable: computed every time)."""
    try:
        win = _WINDOWS.get(key)
    except TypeError:
        return make()
    if win is None:
        win = make()
        if len(_WINDOWS) >= 4096:
            _WINDOWS.clear()
        _WINDOWS[key] = win
    return win


def conv_window(name, input_shape, filter_shape, depthwise: bool, attrs) -> Window:
    key = (name, input_shape, filter_shape, attrs["data_format"], attrs["padding"], tuple(attrs["strides"]),
           tuple(attrs["dilations"]), tuple(attrs["explicit_paddings"]))
    return _cached(key, lambda: _conv_window(name, input_shape, filter_shape, depthwise, attrs))


def pool_window(name, input_shape, attrs, allow_explicit: bool) -> Window:
    key = (name, input_shape, attrs["data_format"], attrs["padding"], tuple(attrs["ksize"]), tuple(attrs["strides"]),
           tuple(attrs.get("explicit_paddings", ())), allow_explicit)
    return _cached(key, lambda: _pool_window(name, input_shape, attrs, allow_explicit))


def _conv_window(name, input_shape, filter_shape, depthwise: bool, attrs) -> Window:
    fmt = attrs["data_format"]
    _check_format(name, fmt)
    strides = _four(name, "strides", attrs["strides"], fmt)
    dilations = _four(name, "dilations", attrs["dilations"], fmt)
    explicit = _paddings(name, attrs["padding"], attrs["explicit_paddings"], fmt, ("SAME", "VALID", "EXPLICIT"))
    _rank4(name, "input", input_shape)
    _rank4(name, "filter", filter_shape)
    n, h, w, c = _from_format(input_shape, fmt)
    kh, kw, fi, fo = filter_shape if filter_shape is not None else (None,) * 4
    if filter_shape is not None and None not in filter_shape and 0 in filter_shape:
        raise InvalidArgumentError(f"{name}: filter must not have zero elements (i.e. all dimensions must be "
                                   f"non-zero), got {fmt_shape(filter_shape)}", name)
    groups, out_c = None, None
    if depthwise:
        if c is not None and fi is not None and c != fi:
            raise InvalidArgumentError(f"{name}: input and filter must have the same depth: {c} vs {fi} (input "
                                       f"{fmt_shape(input_shape)}, filter {fmt_shape(filter_shape)})", name)
        groups = c if c is not None else fi
        out_c = None if fi is None or fo is None else fi * fo
    else:
        if c is not None and fi is not None:
            if c % fi or c == 0:
                raise InvalidArgumentError(f"{name}: input depth must be evenly divisible by filter depth: {c} vs "
                                           f"{fi} (input {fmt_shape(input_shape)}, filter {fmt_shape(filter_shape)})",
                                           name)
            groups = c // fi
            if fo is not None and fo % groups:
                raise InvalidArgumentError(f"{name}: output depth {fo} must be divisible by the number of groups "
                                           f"{groups} (filter {fmt_shape(filter_shape)})", name)
        out_c = fo
    oh, ph = _out_size(name, h, kh, strides[0], dilations[0], attrs["padding"], explicit and explicit[0])
    ow, pw = _out_size(name, w, kw, strides[1], dilations[1], attrs["padding"], explicit and explicit[1])
    return Window((n, h, w, c), (n, oh, ow, out_c), (kh, kw), strides, dilations, (ph, pw), groups,
                  None if filter_shape is None else tuple(filter_shape), name)


def _pool_window(name, input_shape, attrs, allow_explicit: bool) -> Window:
    fmt = attrs["data_format"]
    _check_format(name, fmt)
    ksize = tuple(attrs["ksize"])
    if len(ksize) == 4 and min(ksize) >= 1 and _from_format(ksize, fmt)[3] != 1 and _from_format(ksize, fmt)[0] == 1:
        raise UnimplementedError(f"{name}: pooling over the depth dimension (ksize {list(ksize)}) is not supported",
                                 name)
    kernel = _four(name, "ksize", ksize, fmt)
    strides = _four(name, "strides", attrs["strides"], fmt)
    allowed = ("SAME", "VALID", "EXPLICIT") if allow_explicit else ("SAME", "VALID")
    explicit = _paddings(name, attrs["padding"], attrs.get("explicit_paddings", ()), fmt, allowed)
    for k, pair, sides in zip(kernel, explicit or (), (("Top", "Bottom"), ("Left", "Right"))):
        for side, pad in zip(sides, pair):
            if pad >= k:  # a window of padding only would have no maximum
                raise InvalidArgumentError(f"{name}: {side} padding {pad} needs to be smaller than the window size {k}",
                                           name)
    _rank4(name, "input", input_shape)
    n, h, w, c = _from_format(input_shape, fmt)
    oh, ph = _out_size(name, h, kernel[0], strides[0], 1, attrs["padding"], explicit and explicit[0])
    ow, pw = _out_size(name, w, kernel[1], strides[1], 1, attrs["padding"], explicit and explicit[1])
    return Window((n, h, w, c), (n, oh, ow, c), kernel, strides, (1, 1), (ph, pw), op=name)


def sizes_operand(name, what, spec) -> tuple | None:
    """The shape held by a 1-D int sizes operand (input_sizes, filter_sizes): its value when known."""
    if spec.value is None:
        if spec.shape is not None and spec.shape not in ((4,), (None,)):
            raise InvalidArgumentError(f"{name}: {what} must be 1-D with 4 elements, got shape "
                                       f"{fmt_shape(spec.shape)}", name)
        return (None,) * 4
    value = np.asarray(spec.value)
    if value.dtype.kind not in "iu" or value.shape != (4,) or (value < 0).any():
        raise InvalidArgumentError(f"{name}: {what} must be 1-D with 4 non-negative integers, got "
                                   f"{value.tolist()!r} of shape {fmt_shape(value.shape)}", name)
    return tuple(int(v) for v in value)


def static_sizes(name, value) -> tuple:
    """A sizes operand under XLA: it must be a compile-time constant."""
    try:
        return sizes_operand(name, "sizes", TensorSpec((4,), value=np.asarray(value)))
    except InvalidArgumentError:
        raise
    except Exception:  # a traced value: XLA needs static shapes
        raise InvalidArgumentError(f"{name}: the sizes operand must be a constant under XLA", name) from None


# --- the public functions' window attributes (tf.nn.conv2d, tf.nn.max_pool2d, ...) ------------------

def window_attr(name, what, value, data_format, default=1):
    """TensorFlow's int-or-list window attribute (1, 2 or 4 values) as the 4-element list."""
    if value is None:
        value = default
    values = [int(value)] if isinstance(value, int | np.integer) else [int(v) for v in value]
    if len(values) == 1:
        values = values * 2
    if len(values) == 2:
        return list(shape_in_format((1, values[0], values[1], 1), data_format or "NHWC"))
    if len(values) == 4:
        return values
    raise InvalidArgumentError(f"{name}: {what} must be an int or a list of 1, 2 or 4 ints, got {value!r}", name)


def padding_attrs(padding):
    """A padding string, or explicit [[before, after]] * 4 pairs as (EXPLICIT, flat list)."""
    if isinstance(padding, str):
        return padding.upper(), []
    return "EXPLICIT", [int(v) for pair in padding for v in pair]


# --- numpy strided windows (NHWC inside) ------------------------------------------------------

def to_nhwc(x, data_format):
    """An NHWC or NCHW array as NHWC (a transposed view)."""
    return x if data_format == "NHWC" else x.transpose(0, 2, 3, 1)


def from_nhwc(y, data_format):
    """An NHWC array back in data_format's layout."""
    return y if data_format == "NHWC" else y.transpose(0, 3, 1, 2)


def widen_half(x):
    """Half-precision inputs accumulate in float32, as TensorFlow's CPU kernels do."""
    return x.astype(np.float32) if x.dtype.kind == "f" and x.dtype.itemsize < 4 else x


def _guard(win: Window, shape, dtype):
    """ResourceExhaustedError before allocating a buffer over tinytf's allocation limit."""
    check_allocation(win.op, shape, dtype)


def pad_spatial(x, pads, value=0, win: Window | None = None):
    (t, b), (lft, r) = pads
    if not (t or b or lft or r):
        return x
    if win is not None:
        _guard(win, (x.shape[0], x.shape[1] + t + b, x.shape[2] + lft + r, x.shape[3]), x.dtype)
    return np.pad(x, ((0, 0), (t, b), (lft, r), (0, 0)), constant_values=value)


def window_patches(x_padded, win: Window):
    """[N, OH, OW, C, KH, KW]: every window of the padded NHWC input, as a view (no copy)."""
    (kh, kw), (sh, sw), (dh, dw) = win.kernel, win.strides, win.dilations
    _, oh, ow, _ = win.output_nhwc
    n, c = x_padded.shape[0], x_padded.shape[3]
    _guard(win, (n, oh, ow, c, kh, kw), x_padded.dtype)  # an im2col copy's size
    if min(n, oh, ow, c) == 0 or (oh - 1) * sh + (kh - 1) * dh >= x_padded.shape[1] or \
            (ow - 1) * sw + (kw - 1) * dw >= x_padded.shape[2]:  # (no window to view, or not all of them)
        view = sliding_window_view(x_padded, ((kh - 1) * dh + 1, (kw - 1) * dw + 1), axis=(1, 2))
        return view[:, ::sh, ::sw, :, ::dh, ::dw][:, :oh, :ow]
    s0, s1, s2, s3 = x_padded.strides  # (sliding_window_view's checks cost more than a small op itself)
    return as_strided(x_padded, (n, oh, ow, c, kh, kw), (s0, s1 * sh, s2 * sw, s3, s1 * dh, s2 * dw), writeable=False)


def padded(x, win: Window, value=0):
    """The NHWC input with the window's padding (itself when there is none)."""
    (t, b), (lft, r) = win.pads
    if not (t or b or lft or r):
        return x
    n, h, w, c = x.shape
    shape = (n, h + t + b, w + lft + r, c)
    check_allocation(win.op, shape, x.dtype)
    out = np.full(shape, value, x.dtype) if value else np.zeros(shape, x.dtype)
    out[:, t:t + h, lft:lft + w] = x
    return out


def shifted(xp, win: Window, i: int, j: int):
    """[N, OH, OW, C]: the padded input under window offset (i, j) of every output pixel (a view)."""
    (sh, sw), (dh, dw) = win.strides, win.dilations
    _, oh, ow, _ = win.output_nhwc
    return xp[:, i * dh:i * dh + (oh - 1) * sh + 1:sh, j * dw:j * dw + (ow - 1) * sw + 1:sw]


def im2col(xp, win: Window):
    """[N, OH, OW, KH, KW, C] (C-contiguous): every window of the padded input, one slice copy per offset."""
    kh, kw = win.kernel
    n, oh, ow, _ = win.output_nhwc
    c = xp.shape[3]
    if kh == kw == 1:
        view = shifted(xp, win, 0, 0)
        return (view if view.flags.c_contiguous else np.ascontiguousarray(view)).reshape(n, oh, ow, 1, 1, c)
    check_allocation(win.op, (n, oh, ow, kh, kw, c), xp.dtype)
    cols = np.empty((n, oh, ow, kh, kw, c), xp.dtype)
    for i in range(kh):
        for j in range(kw):
            cols[:, :, :, i, j] = shifted(xp, win, i, j)
    return cols


def has_no_elements(shape):
    return 0 in shape


def checked_zeros(win: Window, shape, dtype, data_format=None):
    """Zeros of an NHWC shape (within the allocation limit), in data_format's layout when given."""
    _guard(win, shape, dtype)
    out = np.zeros(shape, dtype)
    return out if data_format is None else from_nhwc(out, data_format)


def scatter_windows(cols, win: Window, dtype):
    """The adjoint of ``window_patches``: add cols [N, OH, OW, KH, KW, C] back into the (cropped) input."""
    n, h, w, c = win.input_nhwc
    (t, b), (lft, r) = win.pads
    (kh, kw), (sh, sw), (dh, dw) = win.kernel, win.strides, win.dilations
    _, oh, ow, _ = win.output_nhwc
    _guard(win, (n, h + t + b, w + lft + r, c), dtype)
    out = np.zeros((n, h + t + b, w + lft + r, c), dtype)
    for i in range(kh):  # a loop over the window's offsets, not over pixels
        for j in range(kw):
            out[:, i * dh:i * dh + (oh - 1) * sh + 1:sh, j * dw:j * dw + (ow - 1) * sw + 1:sw, :] += cols[:, :, :, i, j]
    return out[:, t:t + h, lft:lft + w, :]

