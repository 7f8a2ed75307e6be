"""tt.signal's N-dimensional FFTs over chosen axes: the raw ops FFTND, IFFTND, RFFTND, IRFFTND and
tt.signal.fftnd / ifftnd / rfftnd / irfftnd (TensorFlow's fft_ops.py wrappers: default axes all dims,
default fft_length the input's shape, the norm "backward", "forward" or "ortho").

    %y = "tf.FFTND"(%x, %n, %axes) : (tensor<3x4x5xcomplex<f32>>, tensor<2xi32>, tensor<2xi32>) -> tensor<2x4x7xcomplex<f32>>

Along each of ``axes`` the input is cropped or zero-padded to its ``fft_length`` (the inverse real
transform reads fft_length // 2 + 1 entries of the last one), as numpy's fftn / rfftn / irfftn with
``s``. TensorFlow 2.21 has these kernels on GPU only; tinytf runs them on numpy and under XLA. The
gradients are the adjoints, as for the 1-3 D transforms (signal_fft.py, signal_real_fft.py).
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

__all__ = ["fftnd", "ifftnd", "rfftnd", "irfftnd"]
__namespaces__ = {n: ("signal",) for n in __all__}

_COMPLEX_OF = {"float32": dtypes.complex64, "float64": dtypes.complex128}
_REAL_OF = {"complex64": dtypes.float32, "complex128": dtypes.float64}


def _axes_of(op_name, rank, axes):
    out = [int(a) for a in np.reshape(axes, -1)]
    if any(not -rank <= a < rank for a in out) or len({a % rank for a in out}) != len(out):
        raise InvalidArgumentError(f"{op_name}: axes {out} must be distinct axes of a rank-{rank} input", op_name)
    return [a % rank for a in out]


class _FftNd(Op):
    """A DFT (KIND: complex, inverse, real or inverse real) over ``axes``, each of length ``fft_length``."""

    KIND: ClassVar[str] = "complex"
    input = operand_def()
    fft_length = operand_def()
    axes = operand_def()
    output = result_def()
    traits = traits_def(Pure())

    @classmethod
    def infer(cls, input, fft_length, axes, **_derived):
        kinds = {"real": _COMPLEX_OF, "inverse_real": _REAL_OF}.get(cls.KIND, {k: dtypes.as_dtype(k) for k in _REAL_OF})
        if input.dtype.name not in kinds:
            raise InvalidArgumentError(f"{cls.name}: input must be {' or '.join(kinds)}, got {input.dtype.name}",
                                       cls.name)
        check_index(cls.name, fft_length, "fft_length", rank=1)
        check_index(cls.name, axes, "axes", rank=1)
        if fft_length.shape is not None and axes.shape is not None and None not in (fft_length.shape[0],
                                                                                     axes.shape[0]):
            if fft_length.shape[0] != axes.shape[0]:
                raise InvalidArgumentError(f"{cls.name}: fft_length and axes must have the same length, got "
                                           f"{fmt_shape(fft_length.shape)} and {fmt_shape(axes.shape)}", cls.name)
        lengths, axis_values = const_value(fft_length), const_value(axes)
        if input.shape is None or lengths is None or axis_values is None:
            return TensorSpec(None if input.shape is None else (None,) * len(input.shape), kinds[input.dtype.name])
        shape = list(input.shape)
        picked = _axes_of(cls.name, len(shape), axis_values)
        lengths = [int(n) for n in lengths.reshape(-1)]
        if any(n < 0 for n in lengths):
            raise InvalidArgumentError(f"{cls.name}: fft_length must be non-negative, got {lengths}", cls.name)
        for axis, n in zip(picked, lengths):
            shape[axis] = n
        if cls.KIND == "real" and picked:
            shape[picked[-1]] = lengths[-1] // 2 + 1
        return TensorSpec(tuple(shape), kinds[input.dtype.name])

    @classmethod
    def compute(cls, xp, input, fft_length, axes, **_derived):
        lengths = [int(n) for n in np.reshape(fft_length, -1)]
        picked = _axes_of(cls.name, input.ndim, axes)
        fn = {"complex": xp.fft.fftn, "inverse": xp.fft.ifftn, "real": xp.fft.rfftn, "inverse_real": xp.fft.irfftn}
        if cls.KIND == "inverse_real":
            dtype = np.float32 if input.dtype == np.complex64 else np.float64
        elif cls.KIND == "real":
            dtype = np.complex64 if input.dtype == np.float32 else np.complex128
        else:
            dtype = input.dtype
        shape = list(input.shape)
        for axis, n in zip(picked, lengths):
            shape[axis] = n
        if cls.KIND == "real" and picked:
            shape[picked[-1]] = lengths[-1] // 2 + 1
        if not picked:
            return input.astype(dtype)
        if 0 in shape or 0 in lengths or input.size == 0:
            return xp.zeros(tuple(shape), dtype)
        return fn[cls.KIND](input, s=lengths, axes=picked).astype(dtype)


def _grad(op, dy, cls, scale_up, weights):
    """The adjoint: the other transform of dy (times N, or over N), cropped or padded back to the input."""
    x, lengths, axes = op.inputs
    lengths, axes, dims = static_value(lengths), static_value(axes), static_dims(x)
    if lengths is None or axes is None or dims is None or None in dims:
        raise InvalidArgumentError(f"the gradient of {cls.name}'s inverse needs static fft_length, axes and input "
                                   "shape", cls.name)
    lengths, picked = [int(n) for n in lengths.reshape(-1)], _axes_of(cls.name, len(dims), axes)
    n = float(np.prod(lengths)) if lengths else 1.0
    if weights == "divide":   # RFFTND's: N · IRFFTND(U / c), c the half spectrum's multiplicities
        dy = ops.divide(dy, ops.cast(_multiplicities(lengths[-1], len(dims), picked[-1], dy.dtype), dy.dtype))
    out = cls.bind(dy, np.asarray(lengths, np.int32), np.asarray(picked, np.int32))
    if weights == "multiply":   # IRFFTND's: RFFTND(U) · c / N
        out = ops.multiply(out, ops.cast(_multiplicities(lengths[-1], len(dims), picked[-1], out.dtype), out.dtype))
    out = ops.multiply(out, ops.scalar_like(out, n if scale_up else 1.0 / max(n, 1.0)))
    return [_fit(out, dims), None, None]


def _multiplicities(n, rank, axis, dtype):
    c = np.full(n // 2 + 1, 2.0)
    c[0] = 1.0
    if n % 2 == 0:
        c[-1] = 1.0
    shape = [1] * rank
    shape[axis] = c.size
    real = _REAL_OF.get(dtype.name, dtype)
    return ops.constant(c.reshape(shape).astype(real.np))


def _fit(x, dims):
    have = list(static_dims(x))
    keep = [min(a, b) for a, b in zip(have, dims)]
    if keep != have:
        x = ops.slice(x, [0] * len(dims), keep)
    pads = np.asarray([[0, d - k] for d, k in zip(dims, keep)], np.int32)
    return ops.pad(x, pads) if pads.any() else x


@register
class FFTND(_FftNd):
    """%y = "tf.FFTND"(%x, %n, %axes) : (tensor<4x8xcomplex<f32>>, tensor<2xi32>, tensor<2xi32>) -> tensor<4x8xcomplex<f32>>"""

    name = "tf.FFTND"
    Tcomplex = derived("type", lambda op: tf_types.dtype_of(op.results[0].type), default=None)

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and y = F x: dx = N · IFFTND(U)
        return _grad(op, dy, IFFTND, True, None)


@register
class IFFTND(_FftNd):
    """%y = "tf.IFFTND"(%x, %n, %axes) : (tensor<4x8xcomplex<f32>>, tensor<2xi32>, tensor<2xi32>) -> tensor<4x8xcomplex<f32>>"""

    name = "tf.IFFTND"
    KIND: ClassVar[str] = "inverse"
    Tcomplex = derived("type", lambda op: tf_types.dtype_of(op.results[0].type), default=None)

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and y = F^-1 x: dx = FFTND(U) / N
        return _grad(op, dy, FFTND, False, None)


@register
class RFFTND(_FftNd):
    """%y = "tf.RFFTND"(%x, %n, %axes) : (tensor<4x8xf32>, tensor<2xi32>, tensor<2xi32>) -> tensor<4x5xcomplex<f32>>"""

    name = "tf.RFFTND"
    KIND: ClassVar[str] = "real"
    Treal = derived("type", lambda op: tf_types.dtype_of(op.operands[0].type), default=None)
    Tcomplex = derived("type", lambda op: tf_types.dtype_of(op.results[0].type), default=None)

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and y = RFFTND(x): dx = N · IRFFTND(U / c)
        return _grad(op, dy, IRFFTND, True, "divide")


@register
class IRFFTND(_FftNd):
    """%x = "tf.IRFFTND"(%y, %n, %axes) : (tensor<4x5xcomplex<f32>>, tensor<2xi32>, tensor<2xi32>) -> tensor<4x8xf32>"""

    name = "tf.IRFFTND"
    KIND: ClassVar[str] = "inverse_real"
    Treal = derived("type", lambda op: tf_types.dtype_of(op.results[0].type), default=None)
    Tcomplex = derived("type", lambda op: tf_types.dtype_of(op.operands[0].type), default=None)

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and x = IRFFTND(y): dy = RFFTND(U) · c / N
        return _grad(op, dy, RFFTND, False, "multiply")


def _wrap(cls, what, input_tensor, fft_length, axes, norm):
    """TensorFlow's wrapper: default axes every dim, default fft_length the whole input shape (IRFFT: its last
    entry 2 (m - 1)), the input's last dims zero-padded up to fft_length, then the norm's scaling."""
    x = as_tensor(input_tensor)
    dims = static_dims(x)
    if dims is None or None in dims:
        raise InvalidArgumentError(f"tt.signal.{what}: the input's shape must be static, got {dims}", cls.name)
    axes = list(range(len(dims))) if axes is None else [int(a) for a in np.reshape(static_value(axes), -1)]
    if fft_length is None:
        lengths = list(dims)
        if cls.KIND == "inverse_real":
            lengths[-1] = max(0, 2 * (lengths[-1] - 1))
    else:
        lengths = [int(n) for n in np.reshape(static_value(fft_length), -1)]
    want = list(lengths)
    if cls.KIND == "inverse_real" and want:
        want[-1] = want[-1] // 2 + 1
    rank, k = len(dims), len(want)
    pads = [[0, 0]] * max(rank - k, 0) + [[0, max(w - d, 0)] for w, d in zip(want, dims[max(rank - k, 0):])]
    if 0 not in dims and any(p for _, p in pads):
        x = ops.pad(x, np.asarray(pads, np.int32))
    norm = "backward" if norm is None else norm
    if norm not in ("backward", "forward", "ortho"):
        raise InvalidArgumentError(f"tt.signal.{what}: norm must be 'backward', 'forward' or 'ortho', got {norm!r}",
                                   cls.name)
    n = float(np.prod(lengths)) if norm != "backward" else 1.0
    scale = {"forward": n, "ortho": np.sqrt(n)}.get(norm)
    if scale is not None:
        inverse = cls.KIND in ("inverse", "inverse_real")
        x = ops.multiply(x, ops.scalar_like(x, scale if inverse else 1.0 / scale))
    return cls.bind(x, np.asarray(lengths, np.int32), np.asarray(axes, np.int32))


def fftnd(input_tensor, fft_length=None, axes=None, norm=None, name=None):
    """``tt.signal.fftnd``: the DFT over ``axes`` (default: every dim)."""
    return _wrap(FFTND, "fftnd", input_tensor, fft_length, axes, norm)


def ifftnd(input_tensor, fft_length=None, axes=None, norm=None, name=None):
    return _wrap(IFFTND, "ifftnd", input_tensor, fft_length, axes, norm)


def rfftnd(input_tensor, fft_length=None, axes=None, norm=None, name=None):
    return _wrap(RFFTND, "rfftnd", input_tensor, fft_length, axes, norm)


def irfftnd(input_tensor, fft_length=None, axes=None, norm=None, name=None):
    return _wrap(IRFFTND, "irfftnd", input_tensor, fft_length, axes, norm)
