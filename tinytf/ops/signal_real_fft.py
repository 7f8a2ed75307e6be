"""tt.signal's real FFTs: the raw ops RFFT, IRFFT and their 2-D and 3-D forms, over the innermost dims.

    %y = "tf.RFFT"(%x, %n) : (tensor<2x256xf32>, tensor<1xi32>) -> tensor<2x129xcomplex<f32>>
    %x = "tf.IRFFT2D"(%y, %n) : (tensor<4x5xcomplex<f64>>, tensor<2xi32>) -> tensor<4x8xf64>

``fft_length`` (int32, one length per transformed dim) crops or zero-pads the input first, as
TensorFlow's kernels do: RFFT keeps the n // 2 + 1 non-negative frequencies of the last dim; IRFFT
reads that many of its input's last dim (the imaginary parts of the zero and, for even n, the n / 2
frequency are ignored). numpy's pocketfft eagerly, XLA's FFT under XLA.

The gradients are the transforms' adjoints, the values TensorFlow's fft_ops.py gives: with
N = prod(fft_length) and c = [1, 2, ..., 2, 1 (n even)] the weights of the half spectrum,
RFFT's is N · IRFFT(U / c) and IRFFT's is RFFT(U) · c / N, each cropped or padded back to the
input's dims.
"""
from __future__ import annotations

from typing import ClassVar

import numpy as np
from xdsl.irdl import operand_def, result_def, traits_def
from xdsl.traits import Pure

import tinytf.dtypes as dtypes
from tinytf.errors import InvalidArgumentError
from tinytf.framework import tf_types
from tinytf.framework.attributes import derived
from tinytf.framework.op import Op, register
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.ops.base import fmt_shape
from tinytf.ops.op_functions import ops
from tinytf.ops.operands import check_index, const_value, static_value
from tinytf.ops.tensor_inputs import as_tensor, static_dims

__all__ = ["rfft", "irfft", "rfft2d", "irfft2d", "rfft3d", "irfft3d"]
__namespaces__ = {n: ("signal",) for n in __all__}

_COMPLEX_OF = {"float32": dtypes.complex64, "float64": dtypes.complex128}
_REAL_OF = {"complex64": dtypes.float32, "complex128": dtypes.float64}


def _lengths(op_name, fft_length, rank):
    """fft_length's values (None when not known before running), after TensorFlow's checks."""
    check_index(op_name, fft_length, "fft_length")
    if fft_length.shape is not None and tuple(fft_length.shape) != (rank,):
        raise InvalidArgumentError(f"{op_name}: fft_length must be a vector of {rank} lengths, got shape "
                                   f"{fmt_shape(fft_length.shape)}", op_name)
    value = const_value(fft_length)
    if value is None:
        return None
    lengths = [int(n) for n in value.reshape(-1)]
    if any(n < 0 for n in lengths):
        raise InvalidArgumentError(f"{op_name}: fft_length must be non-negative, got {lengths}", op_name)
    return lengths


class _RealFft(Op):
    """A real <-> complex DFT of the innermost ``RANK`` dims, their sizes given by ``fft_length``."""

    RANK: ClassVar[int] = 1
    INVERSE: ClassVar[bool] = False
    BATCHING: ClassVar[str] = "leading_axes"
    input = operand_def()
    fft_length = operand_def()
    output = result_def()
    traits = traits_def(Pure())

    @classmethod
    def infer(cls, input, fft_length, **_derived):
        kinds = _REAL_OF if cls.INVERSE else _COMPLEX_OF
        if input.dtype.name not in kinds:
            raise InvalidArgumentError(f"{cls.name}: input must be {' or '.join(kinds)}, got {input.dtype.name}",
                                       cls.name)
        if input.shape is not None and len(input.shape) < cls.RANK:
            raise InvalidArgumentError(f"{cls.name}: input must have rank at least {cls.RANK} but got: "
                                       f"{fmt_shape(input.shape)}", cls.name)
        lengths = _lengths(cls.name, fft_length, cls.RANK)
        if input.shape is None:
            return TensorSpec(None, kinds[input.dtype.name])
        head = tuple(input.shape[:len(input.shape) - cls.RANK])
        if lengths is None:
            return TensorSpec(head + (None,) * cls.RANK, kinds[input.dtype.name])
        inner = lengths if cls.INVERSE else lengths[:-1] + [lengths[-1] // 2 + 1]
        return TensorSpec(head + tuple(inner), kinds[input.dtype.name])

    @classmethod
    def compute(cls, xp, input, fft_length, **_derived):
        lengths = [int(n) for n in np.reshape(fft_length, -1)]
        axes = tuple(range(-cls.RANK, 0))
        if cls.INVERSE:
            dtype = np.float32 if input.dtype == np.complex64 else np.float64
            shape = input.shape[:input.ndim - cls.RANK] + tuple(lengths)
            if 0 in shape:
                return xp.zeros(shape, dtype)
            return xp.fft.irfftn(input, s=lengths, axes=axes).astype(dtype)
        dtype = np.complex64 if input.dtype == np.float32 else np.complex128
        shape = input.shape[:input.ndim - cls.RANK] + tuple(lengths[:-1]) + (lengths[-1] // 2 + 1,)
        if 0 in shape or 0 in lengths:
            return xp.zeros(shape, dtype)
        return xp.fft.rfftn(input, s=lengths, axes=axes).astype(dtype)


def _static_lengths(op, cls):
    """fft_length's values and the input's transformed dims, which the gradients need before running."""
    x = op.inputs[0]
    lengths = static_value(op.inputs[1])
    dims = static_dims(x)
    if lengths is None or dims is None or None in dims[len(dims) - cls.RANK:]:
        raise InvalidArgumentError(f"the gradients of {cls.name} and its inverse need fft_length and the transformed dims "
                                   f"before running, got {dims}", cls.name)
    return [int(n) for n in np.reshape(lengths, -1)], list(dims[len(dims) - cls.RANK:])


def _fit(x, sizes):
    """x's innermost dims cropped or zero-padded to ``sizes`` (the inverse of a kernel's crop / pad)."""
    dims = list(static_dims(x))
    rank, k = len(dims), len(sizes)
    if dims[rank - k:] == list(sizes):
        return x
    keep = [min(have, want) for have, want in zip(dims[rank - k:], sizes)]
    x = ops.slice(x, [0] * rank, dims[:rank - k] + keep)
    pads = np.zeros((rank, 2), np.int32)
    pads[rank - k:, 1] = [want - have for have, want in zip(keep, sizes)]
    return ops.pad(x, pads) if pads.any() else x


def _half_weights(n, dtype):
    """c: how often each of the n // 2 + 1 kept frequencies stands in the full spectrum."""
    c = np.full(n // 2 + 1, 2.0)
    c[0] = 1.0
    if n % 2 == 0:
        c[-1] = 1.0
    return ops.constant(c.astype(dtype.np))


def _rfft_grad(op, dy, inverse):
    # Given upstream grad U and y = RFFT(x): dx = N · IRFFT(U / c)
    lengths, inner = _static_lengths(op, inverse)
    weights = ops.cast(_half_weights(lengths[-1], _REAL_OF[dy.dtype.name]), dy.dtype)
    dx = inverse.bind(ops.divide(dy, weights), np.asarray(lengths, np.int32))
    return [_fit(ops.multiply(dx, ops.scalar_like(dx, float(np.prod(lengths)))), inner), None]


def _irfft_grad(op, dy, forward):
    # Given upstream grad U and x = IRFFT(y): dy = RFFT(U) · c / N
    lengths, inner = _static_lengths(op, forward)
    spectrum = forward.bind(dy, np.asarray(lengths, np.int32))
    scale = ops.cast(ops.multiply(_half_weights(lengths[-1], dy.dtype), 1.0 / max(1, int(np.prod(lengths)))),
                     spectrum.dtype)
    return [_fit(ops.multiply(spectrum, scale), inner), None]


_DERIVED = dict(Treal=derived("type", lambda op: tf_types.dtype_of(op.operands[0].type), default=None),
                Tcomplex=derived("type", lambda op: tf_types.dtype_of(op.results[0].type), default=None))


@register
class RFFT(_RealFft):
    """%y = "tf.RFFT"(%x, %n) : (tensor<8xf32>, tensor<1xi32>) -> tensor<5xcomplex<f32>>"""

    name = "tf.RFFT"
    Treal, Tcomplex = _DERIVED["Treal"], _DERIVED["Tcomplex"]

    @staticmethod
    def grad(op, dy):
        return _rfft_grad(op, dy, IRFFT)


@register
class IRFFT(_RealFft):
    """%x = "tf.IRFFT"(%y, %n) : (tensor<5xcomplex<f32>>, tensor<1xi32>) -> tensor<8xf32>"""

    name = "tf.IRFFT"
    INVERSE: ClassVar[bool] = True
    Treal = derived("type", lambda op: tf_types.dtype_of(op.results[0].type), default=None)
    Tcomplex = derived("type", lambda op: tf_types.dtype_of(op.operands[0].type), default=None)

    @staticmethod
    def grad(op, dy):
        return _irfft_grad(op, dy, RFFT)


@register
class RFFT2D(_RealFft):
    """%y = "tf.RFFT2D"(%x, %n) : (tensor<4x8xf32>, tensor<2xi32>) -> tensor<4x5xcomplex<f32>>"""

    name = "tf.RFFT2D"
    RANK: ClassVar[int] = 2
    Treal, Tcomplex = _DERIVED["Treal"], _DERIVED["Tcomplex"]

    @staticmethod
    def grad(op, dy):
        return _rfft_grad(op, dy, IRFFT2D)


@register
class IRFFT2D(_RealFft):
    """%x = "tf.IRFFT2D"(%y, %n) : (tensor<4x5xcomplex<f32>>, tensor<2xi32>) -> tensor<4x8xf32>"""

    name = "tf.IRFFT2D"
    RANK: ClassVar[int] = 2
    INVERSE: ClassVar[bool] = True
    Treal = derived("type", lambda op: tf_types.dtype_of(op.results[0].type), default=None)
    Tcomplex = derived("type", lambda op: tf_types.dtype_of(op.operands[0].type), default=None)

    @staticmethod
    def grad(op, dy):
        return _irfft_grad(op, dy, RFFT2D)


@register
class RFFT3D(_RealFft):
    """%y = "tf.RFFT3D"(%x, %n) : (tensor<2x4x8xf32>, tensor<3xi32>) -> tensor<2x4x5xcomplex<f32>>"""

    name = "tf.RFFT3D"
    RANK: ClassVar[int] = 3
    Treal, Tcomplex = _DERIVED["Treal"], _DERIVED["Tcomplex"]

    @staticmethod
    def grad(op, dy):
        return _rfft_grad(op, dy, IRFFT3D)


@register
class IRFFT3D(_RealFft):
    """%x = "tf.IRFFT3D"(%y, %n) : (tensor<2x4x5xcomplex<f32>>, tensor<3xi32>) -> tensor<2x4x8xf32>"""

    name = "tf.IRFFT3D"
    RANK: ClassVar[int] = 3
    INVERSE: ClassVar[bool] = True
    Treal = derived("type", lambda op: tf_types.dtype_of(op.results[0].type), default=None)
    Tcomplex = derived("type", lambda op: tf_types.dtype_of(op.operands[0].type), default=None)

    @staticmethod
    def grad(op, dy):
        return _irfft_grad(op, dy, RFFT3D)


def _fft_length(what, x, rank, fft_length, inverse):
    """fft_length as an int32 vector: given, or TensorFlow's default from the static input dims."""
    if fft_length is not None:
        value = static_value(fft_length)
        if value is None:  # known only when running: the kernels take it then (XLA needs it before)
            return ops.cast(as_tensor(fft_length), dtypes.int32)
        if value.shape != (rank,):
            raise InvalidArgumentError(f"tt.signal.{what}: fft_length must be {rank} lengths, got {value.tolist()}",
                                       f"tf.{what.upper()}")
        return value.astype(np.int32)
    dims = static_dims(x)
    if dims is None or len(dims) < rank or None in dims[len(dims) - rank:]:
        raise InvalidArgumentError(f"tt.signal.{what}: without fft_length the innermost {rank} dims must be static, "
                                   f"got {dims}", f"tf.{what.upper()}")
    inner = list(dims[len(dims) - rank:])
    if inverse:
        inner[-1] = 2 * (inner[-1] - 1)
    return np.asarray(inner, np.int32)


def _bind(cls, what, input_tensor, fft_length):
    x = as_tensor(input_tensor)
    return cls.bind(x, _fft_length(what, x, cls.RANK, fft_length, cls.INVERSE))


def rfft(input_tensor, fft_length=None, name=None):
    """``tt.signal.rfft``: the DFT of a real signal's innermost dim, its n // 2 + 1 non-negative frequencies."""
    return _bind(RFFT, "rfft", input_tensor, fft_length)


def irfft(input_tensor, fft_length=None, name=None):
    """``tt.signal.irfft``: the real signal of length fft_length (default 2 (m - 1)) with that half spectrum."""
    return _bind(IRFFT, "irfft", input_tensor, fft_length)


def rfft2d(input_tensor, fft_length=None, name=None):
    return _bind(RFFT2D, "rfft2d", input_tensor, fft_length)


def irfft2d(input_tensor, fft_length=None, name=None):
    return _bind(IRFFT2D, "irfft2d", input_tensor, fft_length)


def rfft3d(input_tensor, fft_length=None, name=None):
    return _bind(RFFT3D, "rfft3d", input_tensor, fft_length)


def irfft3d(input_tensor, fft_length=None, name=None):
    return _bind(IRFFT3D, "irfft3d", input_tensor, fft_length)
