"""tt.signal's FFTs over the innermost 1, 2 or 3 dims, their shifts, and the raised-cosine windows.

    %y = "tf.FFT"(%x) : (tensor<4x8xcomplex<f32>>) -> tensor<4x8xcomplex<f32>>
    %y = "tf.IFFT2D"(%x) : (tensor<4x8xcomplex<f64>>) -> tensor<4x8xcomplex<f64>>

numpy's pocketfft eagerly, XLA's FFT under XLA. The gradients are TensorFlow's (fft_ops.py): the adjoint
of the transform, N·IFFT for FFT and FFT/N for IFFT, N the size of the transformed dims. The real
transforms (tf.RFFT, tf.IRFFT, ...) are in signal_real_fft.py.
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

__all__ = ["fft", "ifft", "fft2d", "ifft2d", "fft3d", "ifft3d", "fftshift", "ifftshift", "hann_window",
           "hamming_window"]
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
