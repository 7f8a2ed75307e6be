"""tf.nn's convolutions and pools that TensorFlow itself writes with the 2-D ops (tensorflow/python/ops/
nn_ops.py): 1-D ones as 2-D ones over a unit height, atrous (dilated) and separable convolutions, the
depthwise backprop functions, and the rank-dispatching ``convolution``, ``conv_transpose`` and ``pool``.

    tt.nn.conv1d(x, w, stride=2, padding="SAME")      # x [N, W, C], w [K, C, O]
    # = squeeze(conv2d(expand_dims(x, 1), expand_dims(w, 0), [1, 1, 2, 1], "SAME"), 1)

The 3-D ops (Conv3D, MaxPool3D, ...) are in nn_conv3d.py and nn_pool3d.py.
"""
from __future__ import annotations

import numpy as np

from tinytf.errors import InvalidArgumentError, UnimplementedError
from tinytf.ops.conv import Conv2DBackpropInput, DepthwiseConv2dNativeBackpropFilter, DepthwiseConv2dNativeBackpropInput
from tinytf.ops.op_functions import ops as _ops
from tinytf.ops.operands import static_value
from tinytf.ops.tensor_inputs import as_tensor, static_rank
from tinytf.ops.window_kernels import padding_attrs, window_attr

__all__ = ["conv1d", "conv1d_transpose", "atrous_conv2d", "atrous_conv2d_transpose", "separable_conv2d",
           "depthwise_conv2d_backprop_input", "depthwise_conv2d_backprop_filter", "convolution", "conv_transpose",
           "max_pool1d", "avg_pool1d", "pool"]
__namespaces__ = {name: ("nn",) for name in __all__}


def spatial_values(fn: str, what: str, value, n: int, channels_last: bool = True) -> list[int]:
    """TensorFlow's int-or-list window argument (1, n or n + 2 values) as its n spatial values."""
    values = [int(value)] if isinstance(value, int | np.integer) else [int(v) for v in value]
    if len(values) == 1:
        return values * n
    if len(values) == n:
        return values
    if len(values) == n + 2:
        return values[1:-1] if channels_last else values[2:]
    raise InvalidArgumentError(f"{fn}: {what} must be an int or a list of 1, {n} or {n + 2} ints, got {value!r}", fn)


def _one_d(fn, data_format):
    """(the 2-D data format, the axis a unit height is inserted at) for a 1-D data format."""
    if data_format in (None, "NWC", "NHWC"):
        return "NHWC", 1
    if data_format in ("NCW", "NCHW"):
        return "NCHW", 2
    raise InvalidArgumentError(f"{fn}: data_format must be 'NWC' or 'NCW', got {data_format!r}", fn)


def _with_unit_height(values, fmt):
    """[1, 1, w, 1] (NHWC) or [1, 1, 1, w] (NCHW) for a 1-D window value w."""
    return [1, 1, values[0], 1] if fmt == "NHWC" else [1, 1, 1, values[0]]


def _padding_1d(padding, fmt):
    """A padding string, or explicit [[before, after]] * 3 pairs with a zero pair for the unit height."""
    if isinstance(padding, str):
        return padding
    pairs = [list(p) for p in padding]
    return pairs[:1] + [[0, 0]] + pairs[1:] if fmt == "NHWC" else pairs[:2] + [[0, 0]] + pairs[2:]


def conv1d(input, filters, stride, padding, data_format="NWC", dilations=None, name=None):
    """1-D convolution of [N, W, C] (or [N, C, W]) input with a [K, C, O] filter."""
    m = _ops
    fmt, axis = _one_d("conv1d", data_format)
    strides = _with_unit_height(spatial_values("conv1d", "stride", stride, 1, fmt == "NHWC"), fmt)
    rates = _with_unit_height(spatial_values("conv1d", "dilations", 1 if dilations is None else dilations, 1,
                                             fmt == "NHWC"), fmt)
    y = m.conv2d(m.expand_dims(input, axis), m.expand_dims(filters, 0), strides, _padding_1d(padding, fmt),
                 data_format=fmt, dilations=rates)
    return m.squeeze(y, [axis])


def _known_shape(fn, output_shape) -> list[int]:
    value = static_value(output_shape)
    if value is None:
        raise UnimplementedError(f"{fn}: output_shape must be known before running (a list or a constant)", fn)
    return [int(d) for d in np.asarray(value).reshape(-1)]


def conv1d_transpose(input, filters, output_shape, strides, padding="SAME", data_format="NWC", dilations=None,
                     name=None):
    """The transpose of conv1d: ``filters`` [K, O, C] maps [N, W, C] input to ``output_shape`` [N, W', O]."""
    m = _ops
    fmt, axis = _one_d("conv1d_transpose", data_format)
    shape = _known_shape("conv1d_transpose", output_shape)
    shape = shape[:axis] + [1] + shape[axis:]
    last = fmt == "NHWC"
    y = m.conv2d_transpose(m.expand_dims(input, axis), m.expand_dims(filters, 0), shape,
                           _with_unit_height(spatial_values("conv1d_transpose", "strides", strides, 1, last), fmt),
                           _padding_1d(padding, fmt), data_format=fmt,
                           dilations=_with_unit_height(spatial_values(
                               "conv1d_transpose", "dilations", 1 if dilations is None else dilations, 1, last), fmt))
    return m.squeeze(y, [axis])


def atrous_conv2d(value, filters, rate, padding, name=None):
    """conv2d with the filter dilated by ``rate`` (holes between its taps), stride 1."""
    return _ops.conv2d(value, filters, 1, padding, dilations=[1, int(rate), int(rate), 1])


def atrous_conv2d_transpose(value, filters, output_shape, rate, padding, name=None):
    """The transpose of atrous_conv2d: Conv2DBackpropInput with the filter dilated by ``rate``."""
    pad, explicit = padding_attrs(padding)
    if pad not in ("SAME", "VALID"):
        raise InvalidArgumentError(f"atrous_conv2d_transpose: padding must be 'SAME' or 'VALID', got {padding!r}",
                                   "atrous_conv2d_transpose")
    if int(rate) < 1:
        raise InvalidArgumentError(f"atrous_conv2d_transpose: rate {rate} must be >= 1", "atrous_conv2d_transpose")
    if isinstance(output_shape, list | tuple | np.ndarray):
        output_shape = np.asarray(output_shape, np.int32)
    return Conv2DBackpropInput.bind(as_tensor(output_shape), filters, value, strides=[1, 1, 1, 1], padding=pad,
                                    explicit_paddings=explicit, data_format="NHWC",
                                    dilations=[1, int(rate), int(rate), 1], use_cudnn_on_gpu=True)


def separable_conv2d(input, depthwise_filter, pointwise_filter, strides, padding, data_format=None, dilations=None,
                     name=None):
    """A depthwise convolution ([H, W, C, M] filter) then a 1x1 convolution ([1, 1, C * M, O] filter)."""
    m = _ops
    fmt = data_format or "NHWC"
    depthwise = m.depthwise_conv2d(input, depthwise_filter, strides, padding, data_format=fmt,
                                   dilations=None if dilations is None else
                                   spatial_values("separable_conv2d", "dilations", dilations, 2))
    return m.conv2d(depthwise, pointwise_filter, 1, "VALID", data_format=fmt)


def _depthwise_attrs(op, strides, padding, data_format, dilations):
    fmt = data_format or "NHWC"
    pad, explicit = padding_attrs(padding)
    return dict(strides=window_attr(op, "strides", strides, fmt), padding=pad, explicit_paddings=explicit,
                data_format=fmt, dilations=window_attr(op, "dilations", dilations, fmt))


def depthwise_conv2d_backprop_input(input_sizes, filter, out_backprop, strides, padding, data_format="NHWC",
                                    dilations=None, name=None):
    cls = DepthwiseConv2dNativeBackpropInput
    sizes = np.asarray(input_sizes, np.int32) if isinstance(input_sizes, list | tuple) else input_sizes
    return cls.bind(as_tensor(sizes), filter, out_backprop,
                    **_depthwise_attrs(cls.name, strides, padding, data_format, dilations))


def depthwise_conv2d_backprop_filter(input, filter_sizes, out_backprop, strides, padding, data_format="NHWC",
                                     dilations=None, name=None):
    cls = DepthwiseConv2dNativeBackpropFilter
    sizes = np.asarray(filter_sizes, np.int32) if isinstance(filter_sizes, list | tuple) else filter_sizes
    return cls.bind(input, as_tensor(sizes), out_backprop,
                    **_depthwise_attrs(cls.name, strides, padding, data_format, dilations))


def _rank_of(fn, x, n_from=None):
    rank = static_rank(x) if n_from is None else len(n_from)
    if rank not in (3, 4, 5):
        raise InvalidArgumentError(f"{fn}: input must be of rank 3, 4 or 5, got rank {rank}", fn)
    return rank


def convolution(input, filters, strides=None, padding="VALID", data_format=None, dilations=None, name=None):
    """conv1d, conv2d or conv3d by the input's rank (3, 4 or 5)."""
    m = _ops
    rank = _rank_of("convolution", input)
    n = rank - 2
    last = data_format is None or not data_format.startswith("NC")
    strides = spatial_values("convolution", "strides", 1 if strides is None else strides, n, last)
    rates = spatial_values("convolution", "dilations", 1 if dilations is None else dilations, n, last)
    if rank == 3:
        return conv1d(input, filters, strides, padding, data_format or "NWC", rates)
    if rank == 4:
        return m.conv2d(input, filters, strides, padding, data_format=data_format or "NHWC", dilations=rates)
    return m.conv3d(input, filters, [1] + strides + [1] if last else [1, 1] + strides, padding,
                    data_format=data_format or "NDHWC",
                    dilations=[1] + rates + [1] if last else [1, 1] + rates)


def conv_transpose(input, filters, output_shape, strides, padding="SAME", data_format=None, dilations=None,
                   name=None):
    """conv1d_transpose, conv2d_transpose or conv3d_transpose by the length of ``output_shape``."""
    m = _ops
    shape = _known_shape("conv_transpose", output_shape)
    rank = _rank_of("conv_transpose", input, shape)
    fn = {3: conv1d_transpose, 4: m.conv2d_transpose, 5: m.conv3d_transpose}[rank]
    default_format = {3: "NWC", 4: "NHWC", 5: "NDHWC"}[rank]
    return fn(input, filters, shape, strides, padding=padding, data_format=data_format or default_format,
              dilations=dilations)


def _pool1d(fn, pool2d, input, ksize, strides, padding, data_format):
    m = _ops
    fmt, axis = _one_d(fn, data_format)
    last = fmt == "NHWC"
    y = pool2d(m.expand_dims(input, axis), _with_unit_height(spatial_values(fn, "ksize", ksize, 1, last), fmt),
               _with_unit_height(spatial_values(fn, "strides", strides, 1, last), fmt), _padding_1d(padding, fmt),
               data_format=fmt)
    return m.squeeze(y, [axis])


def max_pool1d(input, ksize, strides, padding, data_format="NWC", name=None):
    return _pool1d("max_pool1d", _ops.max_pool2d, input, ksize, strides, padding, data_format)


def avg_pool1d(input, ksize, strides, padding, data_format="NWC", name=None):
    return _pool1d("avg_pool1d", _ops.avg_pool2d, input, ksize, strides, padding, data_format)


def pool(input, window_shape, pooling_type, strides=None, padding="VALID", data_format=None, dilations=None,
         name=None):
    """max or average pooling over 1, 2 or 3 spatial dims (len(window_shape)); dilations must be 1."""
    m = _ops
    n = len(window_shape)
    if pooling_type not in ("MAX", "AVG"):
        raise InvalidArgumentError(f"pool: pooling_type must be 'MAX' or 'AVG', got {pooling_type!r}", "pool")
    if n not in (1, 2, 3):
        raise InvalidArgumentError(f"pool: window_shape must have 1, 2 or 3 dims, got {list(window_shape)}", "pool")
    if dilations is not None and any(d != 1 for d in spatial_values("pool", "dilations", dilations, n)):
        raise UnimplementedError("pool: dilations other than 1 are not implemented", "pool")
    strides = spatial_values("pool", "strides", 1 if strides is None else strides, n)
    fns = {1: (max_pool1d, avg_pool1d), 2: (m.max_pool2d, m.avg_pool2d), 3: (m.max_pool3d, m.avg_pool3d)}[n]
    fn = fns[0] if pooling_type == "MAX" else fns[1]
    default_format = {1: "NWC", 2: "NHWC", 3: "NDHWC"}[n]
    return fn(input, list(window_shape), strides, padding, data_format=data_format or default_format)
