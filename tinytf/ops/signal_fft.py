"""tt.signal's FFTs over the innermost 1, 2 or 3 dims, their shifts, and the raised-cosine windows.

    %y = "tf.FFT"(%x) : (tensor<4x8xcomplex<f32>>) -> tensor<4x8xcomplex<f32>>
    %y = "tf.IFFT2D"(%x) : (tensor<4x8xcomplex<f64>>) -> tensor<4x8xcomplex<f64>>

numpy's pocketfft eagerly, XLA's FFT under XLA. The gradients are TensorFlow's (fft_ops.py): the adjoint
of the transform, N·IFFT for FFT and FFT/N for IFFT, N the size of the transformed dims. The real
transforms (rfft, irfft and their 2-D and 3-D forms) are written with the complex ones, as
numpy's are (the raw ops tf.RFFT / tf.IRFFT are not registered yet): their gradients follow.
"""
from __future__ import annotations

from typing import ClassVar

import numpy as np
from xdsl.irdl import operand_def, result_def, traits_def
from xdsl.traits import Pure

import tinytf.dtypes as dtypes
from tinytf.errors import InvalidArgumentError, UnimplementedError
from tinytf.framework.op import Op, register
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.ops.base import fmt_shape
from tinytf.ops.op_functions import ops
from tinytf.ops.operands import static_value
from tinytf.ops.tensor_inputs import as_tensor, static_dims
from tinytf.ops.type_lists import COMPLEX, check_types

__all__ = ["fft", "ifft", "fft2d", "ifft2d", "fft3d", "ifft3d", "rfft", "irfft", "rfft2d", "irfft2d", "rfft3d",
           "irfft3d", "fftshift", "ifftshift", "hann_window", "hamming_window"]
__namespaces__ = {n: ("signal",) for n in __all__}


class _Fft(Op):
    """The DFT (or its inverse, normalised by 1/N) of the innermost ``RANK`` dims of a complex tensor."""

    RANK: ClassVar[int] = 1
    INVERSE: ClassVar[bool] = False
    BATCHING: ClassVar[str] = "leading_axes"
    input = operand_def()
    output = result_def()
    traits = traits_def(Pure())

    @classmethod
    def infer(cls, input):
        check_types(cls.name, input, COMPLEX)
        if input.shape is not None and len(input.shape) < cls.RANK:
            raise InvalidArgumentError(f"{cls.name}: input must have rank at least {cls.RANK} but got: "
                                       f"{fmt_shape(input.shape)}", cls.name)
        return TensorSpec(input.shape, input.dtype)

    @classmethod
    def compute(cls, xp, input):
        axes = tuple(range(-cls.RANK, 0))
        fn = xp.fft.ifftn if cls.INVERSE else xp.fft.fftn
        if input.size == 0:
            return xp.zeros(input.shape, input.dtype)
        return fn(input, axes=axes).astype(input.dtype)


def _size(op_name, x, rank):
    """N, the number of elements of x's innermost ``rank`` dims (static: TensorFlow's gradient needs it too)."""
    dims = static_dims(x)
    if dims is None or None in dims[len(dims) - rank:]:
        raise UnimplementedError(f"{op_name}'s gradient needs the static size of the transformed dims, got "
                                 f"{dims}", op_name)
    return int(np.prod(dims[len(dims) - rank:]))


def _adjoint(op, dy, transform, scale_up):
    # Given upstream grad U and y = F x: dx = F^H U, which is N·IFFT(U) for the DFT and FFT(U)/N for its inverse
    n = _size(transform.name, op.inputs[0], transform.RANK)
    out = transform.bind(dy)
    return [ops.multiply(out, ops.scalar_like(out, n if scale_up else 1.0 / max(n, 1)))]


@register
class FFT(_Fft):
    """%y = "tf.FFT"(%x) : (tensor<8xcomplex<f32>>) -> tensor<8xcomplex<f32>>"""

    name = "tf.FFT"

    @staticmethod
    def grad(op, dy):
        return _adjoint(op, dy, IFFT, True)


@register
class IFFT(_Fft):
    """%y = "tf.IFFT"(%x) : (tensor<8xcomplex<f32>>) -> tensor<8xcomplex<f32>>"""

    name = "tf.IFFT"
    INVERSE: ClassVar[bool] = True

    @staticmethod
    def grad(op, dy):
        return _adjoint(op, dy, FFT, False)


@register
class FFT2D(_Fft):
    """%y = "tf.FFT2D"(%x) : (tensor<4x8xcomplex<f32>>) -> tensor<4x8xcomplex<f32>>"""

    name = "tf.FFT2D"
    RANK: ClassVar[int] = 2

    @staticmethod
    def grad(op, dy):
        return _adjoint(op, dy, IFFT2D, True)


@register
class IFFT2D(_Fft):
    """%y = "tf.IFFT2D"(%x) : (tensor<4x8xcomplex<f32>>) -> tensor<4x8xcomplex<f32>>"""

    name = "tf.IFFT2D"
    RANK: ClassVar[int] = 2
    INVERSE: ClassVar[bool] = True

    @staticmethod
    def grad(op, dy):
        return _adjoint(op, dy, FFT2D, False)


@register
class FFT3D(_Fft):
    """%y = "tf.FFT3D"(%x) : (tensor<2x4x8xcomplex<f32>>) -> tensor<2x4x8xcomplex<f32>>"""

    name = "tf.FFT3D"
    RANK: ClassVar[int] = 3

    @staticmethod
    def grad(op, dy):
        return _adjoint(op, dy, IFFT3D, True)


@register
class IFFT3D(_Fft):
    """%y = "tf.IFFT3D"(%x) : (tensor<2x4x8xcomplex<f32>>) -> tensor<2x4x8xcomplex<f32>>"""

    name = "tf.IFFT3D"
    RANK: ClassVar[int] = 3
    INVERSE: ClassVar[bool] = True

    @staticmethod
    def grad(op, dy):
        return _adjoint(op, dy, FFT3D, False)


def fft(input, name=None):
    """``tt.signal.fft``: the DFT over the innermost dim of a complex tensor."""
    return FFT.bind(as_tensor(input))


def ifft(input, name=None):
    return IFFT.bind(as_tensor(input))


def fft2d(input, name=None):
    return FFT2D.bind(as_tensor(input))


def ifft2d(input, name=None):
    return IFFT2D.bind(as_tensor(input))


def fft3d(input, name=None):
    return FFT3D.bind(as_tensor(input))


def ifft3d(input, name=None):
    return IFFT3D.bind(as_tensor(input))


# --- shifts: a gather by the rolled indices along each axis ---------------------------------------

def _shift(x, axes, sign, what):
    x = as_tensor(x)
    dims = static_dims(x)
    if dims is None:
        raise UnimplementedError(f"tt.signal.{what}: the input's rank must be static", "tf.GatherV2")
    rank = len(dims)
    axes = range(rank) if axes is None else ([axes] if isinstance(axes, int) else list(axes))
    for axis in axes:
        if not -rank <= axis < rank:
            raise InvalidArgumentError(f"tt.signal.{what}: axis {axis} is out of range for rank {rank}", "tf.GatherV2")
        n = dims[axis]
        if n is None:
            raise UnimplementedError(f"tt.signal.{what}: dim {axis} of {dims} must be static", "tf.GatherV2")
        # np.fft.fftshift's rule: roll by n // 2 (ifftshift: by -(n // 2))
        x = ops.gather(x, np.roll(np.arange(n, dtype=np.int32), sign * (n // 2)), axis=axis % rank)
    return x


def fftshift(x, axes=None, name=None):
    """``tt.signal.fftshift``: the zero frequency moved to the centre (every axis, or ``axes``)."""
    return _shift(x, axes, 1, "fftshift")


def ifftshift(x, axes=None, name=None):
    """``tt.signal.ifftshift``: fftshift's inverse."""
    return _shift(x, axes, -1, "ifftshift")


# --- windows ---------------------------------------------------------------------------------------

def _raised_cosine(what, window_length, periodic, dtype, a, b):
    """a - b cos(2πn / N), N = length - 1 (symmetric) or length (periodic, for even lengths), as TensorFlow."""
    length = static_value(window_length)
    if length is None or np.ndim(length) != 0:
        raise UnimplementedError(f"tt.signal.{what}: window_length must be a scalar known before running", "tf.Const")
    length, dtype = int(np.asarray(length)), dtypes.as_dtype(dtype)
    if not dtype.is_floating:
        raise InvalidArgumentError(f"tt.signal.{what}: dtype must be a floating point type, got {dtype.name}", "tf.Const")
    if length < 0:
        raise InvalidArgumentError(f"tt.signal.{what}: window_length must be >= 0, got {length}", "tf.Const")
    if length == 1:
        return ops.constant(np.ones(1, dtype.np))
    even = 1 - length % 2
    n = length + int(bool(periodic)) * even - 1
    count = np.arange(length, dtype=np.float64)
    return ops.constant((a - b * np.cos(2 * np.pi * count / max(n, 1))).astype(dtype.np))


def hann_window(window_length, periodic=True, dtype=dtypes.float32, name=None):
    """``tt.signal.hann_window``: 0.5 - 0.5 cos(2πn / N)."""
    return _raised_cosine("hann_window", window_length, periodic, dtype, 0.5, 0.5)


def hamming_window(window_length, periodic=True, dtype=dtypes.float32, name=None):
    """``tt.signal.hamming_window``: 0.54 - 0.46 cos(2πn / N)."""
    return _raised_cosine("hamming_window", window_length, periodic, dtype, 0.54, 0.46)


# --- real transforms, written with the complex ones ----------------------------------------------

_COMPLEX_OF = {"float32": dtypes.complex64, "float64": dtypes.complex128}
_COMPLEX = {1: FFT, 2: FFT2D, 3: FFT3D}
_INVERSE = {1: IFFT, 2: IFFT2D, 3: IFFT3D}


def _lengths(what, x, rank, fft_length, default):
    """The static transformed dims of x and the fft_length (``default(dims)`` when not given)."""
    dims = static_dims(x)
    if dims is None or len(dims) < rank or None in dims[len(dims) - rank:]:
        raise UnimplementedError(f"tt.signal.{what}: the innermost {rank} dims must be static, got {dims}", "tf.FFT")
    inner = list(dims[len(dims) - rank:])
    if fft_length is None:
        return inner, default(inner)
    lengths = static_value(fft_length)
    if lengths is None or np.shape(lengths) != (rank,):
        raise InvalidArgumentError(f"tt.signal.{what}: fft_length must be {rank} static values, got {fft_length!r}",
                                   "tf.FFT")
    return inner, [int(n) for n in np.asarray(lengths).reshape(-1)]


def _fit(x, axis_from_end, n, have):
    """x's dim ``-axis_from_end`` cropped or zero-padded to n (TensorFlow's fft_length rule)."""
    rank = len(static_dims(x))
    axis = rank - axis_from_end
    if have > n:
        return ops.gather(x, np.arange(n, dtype=np.int32), axis=axis)
    if have < n:
        pads = np.zeros((rank, 2), np.int32)
        pads[axis, 1] = n - have
        return ops.pad(x, pads)
    return x


def _rfft(what, rank, input_tensor, fft_length):
    x = as_tensor(input_tensor)
    if x.dtype.name not in _COMPLEX_OF:
        raise InvalidArgumentError(f"tt.signal.{what}: input must be float32 or float64, got {x.dtype.name}", "tf.FFT")
    inner, lengths = _lengths(what, x, rank, fft_length, lambda dims: dims)
    for k, (have, n) in enumerate(zip(inner, lengths)):
        x = _fit(x, rank - k, n, have)
    from tinytf.ops.complex_parts import complex as make_complex

    spectrum = _COMPLEX[rank].bind(make_complex(x, ops.zeros_like(x)))
    n = lengths[-1]
    return ops.gather(spectrum, np.arange(n // 2 + 1, dtype=np.int32), axis=len(static_dims(x)) - 1)


def _move_last(x, rank, back=False):
    """x with its last axis moved in front of the ``rank - 1`` before it (or back)."""
    r = len(static_dims(x))
    head, inner = list(range(r - rank)), list(range(r - rank, r))
    perm = head + (inner[1:] + inner[:1] if back else inner[-1:] + inner[:-1])
    return ops.transpose(x, perm)


def _irfft(what, rank, input_tensor, fft_length):
    y = as_tensor(input_tensor)
    if not y.dtype.is_complex:
        raise InvalidArgumentError(f"tt.signal.{what}: input must be complex64 or complex128, got {y.dtype.name}",
                                   "tf.IFFT")
    inner, lengths = _lengths(what, y, rank, fft_length, lambda dims: dims[:-1] + [2 * (dims[-1] - 1)])
    n = lengths[-1]
    for k, (have, want) in enumerate(zip(inner, lengths[:-1] + [n // 2 + 1])):
        y = _fit(y, rank - k, want, have)
    if rank > 1:  # the inverse over the other axes first (numpy's irfftn), then the real one over the last
        y = _move_last(_INVERSE[rank - 1].bind(_move_last(y, rank)), rank, back=True)
    # the Hermitian extension of the last axis: X[k] = conj(Y[n - k]) for k > n/2
    last = len(static_dims(y)) - 1
    mirror = ops.conj(ops.gather(y, np.arange(n - n // 2 - 1, 0, -1, dtype=np.int32), axis=last)) \
        if n - n // 2 - 1 > 0 else None
    full = y if mirror is None else ops.concat([y, mirror], last)
    from tinytf.ops.complex_parts import real

    return real(IFFT.bind(full))


def rfft(input_tensor, fft_length=None, name=None):
    """``tt.signal.rfft``: the DFT of a real signal's innermost dim, its n // 2 + 1 non-negative frequencies."""
    return _rfft("rfft", 1, input_tensor, fft_length)


def irfft(input_tensor, fft_length=None, name=None):
    """``tt.signal.irfft``: the real signal of length fft_length (default 2 (m - 1)) with that half spectrum."""
    return _irfft("irfft", 1, input_tensor, fft_length)


def rfft2d(input_tensor, fft_length=None, name=None):
    return _rfft("rfft2d", 2, input_tensor, fft_length)


def irfft2d(input_tensor, fft_length=None, name=None):
    return _irfft("irfft2d", 2, input_tensor, fft_length)


def rfft3d(input_tensor, fft_length=None, name=None):
    return _rfft("rfft3d", 3, input_tensor, fft_length)


def irfft3d(input_tensor, fft_length=None, name=None):
    return _irfft("irfft3d", 3, input_tensor, fft_length)
