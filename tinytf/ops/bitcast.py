"""Bitcast: the same bytes read as another dtype (``tf.bitcast``).

    %y = "tf.Bitcast"(%x) : (tensor<3x2xi16>) -> tensor<3xi32>      // two i16 make one i32: the last dim goes
    %y = "tf.Bitcast"(%x) : (tensor<3xi32>) -> tensor<3x2xi16>      // one i32 makes two i16: a dim of 2 comes
    %y = "tf.Bitcast"(%x) : (tensor<3x2xi32>) -> tensor<3x2xf32>    // same width: same shape
"""
from __future__ import annotations

import numpy as np
from xdsl.irdl import operand_def, result_def, traits_def
from xdsl.traits import Pure

import tinytf.dtypes as dtypes
from tinytf.errors import InvalidArgumentError, UnimplementedError
from tinytf.framework import tf_types
from tinytf.framework.attributes import derived
from tinytf.framework.op import NotDifferentiable, Op, register
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.ops import verifiers as v
from tinytf.ops.base import fmt_shape


def _bits(element) -> int | None:
    """The bit width of an int or float element type, else None (TensorFlow's verifier checks only those)."""
    width = getattr(element, "bitwidth", None)
    if width is None:
        width = getattr(getattr(element, "width", None), "data", None)
    return width if isinstance(width, int) else None


def _check_shapes(s_in: tuple, s_out: tuple, ratio: int, input_is_narrow: bool) -> None:
    """The narrower side has one more dim, of size ``ratio``, after the wider side's dims (TensorFlow's
    messages name the input's rank first either way)."""
    narrow, wide = ("input", "output") if input_is_narrow else ("output", "input")
    s_narrow, s_wide = (s_in, s_out) if narrow == "input" else (s_out, s_in)
    if len(s_narrow) != len(s_wide) + 1:
        expected = len(s_in) - 1 if narrow == "input" else len(s_in) + 1
        v.fail(f"rank of input tensor is {len(s_in)}. rank of output tensor is expected to be {expected}, instead "
               f"of {len(s_out)}.")
    if s_narrow[-1] != ratio:
        v.fail(f"{narrow} rightmost dimension size is not equal to the divisor. the last dimension of {narrow} is "
               f"expected to be {ratio}")
    for i, (a, b) in enumerate(zip(s_wide, s_narrow)):
        if a != b:
            v.fail(f"the {i}th dim of {wide} tensor is {a}. It is not equal to the one in {narrow} tensor, "
                   f"which is {b}")


def bitcast_shape(op_name: str, shape, in_bytes: int, out_bytes: int):
    """The result shape of reading ``shape`` elements of ``in_bytes`` bytes as elements of ``out_bytes``."""
    if in_bytes == out_bytes or shape is None:
        return shape if in_bytes == out_bytes else None
    if in_bytes > out_bytes:
        return (*shape, in_bytes // out_bytes)
    if not shape or shape[-1] not in (None, out_bytes // in_bytes):
        raise InvalidArgumentError(f"{op_name}: cannot bitcast a tensor of shape {fmt_shape(shape)} with "
                                   f"{in_bytes}-byte elements to {out_bytes}-byte elements: the last dim must be "
                                   f"{out_bytes // in_bytes}", op_name)
    return shape[:-1]


def _result_dtype(op):
    """The result's dtype, or None for an element type tinytf does not model (TensorFlow's quantized
    types parse and verify; running such a Bitcast is UnimplementedError)."""
    try:
        return tf_types.dtype_of(op.results[0].type)
    except Exception:  # noqa: BLE001  (a type tinytf has no dtype for)
        return None


@register
class Bitcast(Op):
    """The bytes of ``input`` as elements of ``type``; a narrower ``type`` adds a last dim, a wider one
    consumes the last dim (its size must be the width ratio).

    %y = "tf.Bitcast"(%x) : (tensor<3x2xi16>) -> tensor<3xi32>
    """

    name = "tf.Bitcast"
    input = operand_def()
    output = result_def()
    type = derived("type", lambda op: _result_dtype(op))
    traits = traits_def(Pure(), NotDifferentiable())

    def verify_ir(self):
        s_in, s_out = v.shape(self.input.type), v.shape(self.output.type)
        b_in, b_out = _bits(v.element(self.input)), _bits(v.element(self.output))
        if s_in is None or s_out is None or None in s_in or None in s_out or b_in is None or b_out is None:
            return  # (TensorFlow checks static shapes of int and float elements only)
        if b_in == b_out:
            if s_in != s_out:
                v.fail("output tensor shape shall be equal to input tensor shape")
        elif b_in < b_out:
            if b_out % b_in:
                v.fail("output element bitwidth is not multiple of input element bitwidth")
            _check_shapes(s_in, s_out, b_out // b_in, input_is_narrow=True)
        else:
            if b_in % b_out:
                v.fail("input element bitwidth is not multiple of output element bitwidth")
            _check_shapes(s_in, s_out, b_in // b_out, input_is_narrow=False)

    @classmethod
    def infer(cls, input, *, type):
        if type is None:
            raise UnimplementedError(f"{cls.name}: the result's element type is not supported", cls.name)
        out = dtypes.as_dtype(type)
        for d in (input.dtype, out):
            if d.kind not in "fciu":  # (TensorFlow's Bitcast takes numbers, not bools)
                raise InvalidArgumentError(f"{cls.name}: cannot bitcast {input.dtype.name} to {out.name}", cls.name)
        a, b = input.dtype.np.itemsize, out.np.itemsize
        if max(a, b) % min(a, b):
            raise InvalidArgumentError(f"{cls.name}: cannot bitcast {input.dtype.name} to {out.name}: widths "
                                       f"{a} and {b} bytes", cls.name)
        return TensorSpec(bitcast_shape(cls.name, input.shape, a, b), out)

    @classmethod
    def compute(cls, xp, input, *, type):
        out = dtypes.as_dtype(type).np
        shape = bitcast_shape(cls.name, input.shape, input.dtype.itemsize, out.itemsize)
        return np.ascontiguousarray(input).reshape(-1).view(out).reshape(shape)

    @staticmethod
    def lower(input, *, type):
        import jax

        return jax.lax.bitcast_convert_type(input, dtypes.as_dtype(type).np)


def bitcast(input, type, name=None):
    return Bitcast.bind(input, type=dtypes.as_dtype(type))


__all__: list[str] = []  # reached through tt.raw_ops.Bitcast (tt.bitcast needs an api-coverage probe first)
