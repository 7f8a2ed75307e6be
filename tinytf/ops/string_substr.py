"""Substr: the ``len`` bytes (or UTF-8 characters) of each string from ``pos`` (negative: from the end), as
TensorFlow's substr_op.cc; tt.image.is_jpeg compares the first three bytes of a file with JPEG's signature.

    %s = "tf.Substr"(%input, %pos, %len) <{unit = "BYTE"}> : (tensor<4x!tf_type.string>, tensor<i32>,
           tensor<i32>) -> tensor<4x!tf_type.string>

Strings do not reach XLA (as TensorFlow's bridge): the op runs eagerly and in graphs.
"""
from __future__ import annotations

import numpy as np
from xdsl.irdl import operand_def, result_def, traits_def
from xdsl.traits import Pure

import tinytf.dtypes as dtypes
from tinytf.errors import InvalidArgumentError, UnimplementedError
from tinytf.framework.attributes import attr
from tinytf.framework.op import NotDifferentiable, Op, register
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.ops.base import broadcast_shapes, fmt_shape

__all__: list[str] = []  # a raw op (tt.raw_ops.Substr); tt.strings is not built


def _piece(op_name, value, pos: int, length: int, unit: str, index) -> bytes:
    data = value.encode() if isinstance(value, str) else bytes(value)
    if unit == "UTF8_CHAR":
        try:
            chars = data.decode("utf-8")
        except UnicodeDecodeError:
            raise InvalidArgumentError(f"{op_name}: invalid UTF-8 in the string at index {index}", op_name) from None
        size, text = len(chars), chars
    else:
        size, text = len(data), data
    start = pos + size if pos < 0 else pos
    if not 0 <= start <= size:
        raise InvalidArgumentError(f"{op_name}: pos {pos} out of range for string at index {index}", op_name)
    piece = text[start:start + max(length, 0)]
    return piece.encode() if isinstance(piece, str) else piece


@register
class Substr(Op):
    """Each string's substring [pos, pos + len), pos and len broadcast against the strings."""

    name = "tf.Substr"
    input = operand_def()
    pos = operand_def()
    len = operand_def()
    output = result_def()
    unit = attr("BYTE")
    traits = traits_def(Pure(), NotDifferentiable())

    @classmethod
    def infer(cls, input, pos, len, **attrs):  # noqa: A002 (TensorFlow's operand names)
        if input.dtype != dtypes.string:
            raise InvalidArgumentError(f"{cls.name}: input must be strings, got {input.dtype.name}", cls.name)
        if pos.dtype not in (dtypes.int32, dtypes.int64) or len.dtype != pos.dtype:
            raise InvalidArgumentError(f"{cls.name}: pos and len must be int32 or int64 alike, got {pos.dtype.name} "
                                       f"and {len.dtype.name}", cls.name)
        if attrs["unit"] not in ("BYTE", "UTF8_CHAR"):
            raise InvalidArgumentError(f"{cls.name}: unit must be BYTE or UTF8_CHAR, got {attrs['unit']!r}", cls.name)
        if pos.shape is not None and len.shape is not None and tuple(pos.shape) != tuple(len.shape):
            raise InvalidArgumentError(f"{cls.name}: pos and len should have the same shape, got "
                                       f"{fmt_shape(pos.shape)} and {fmt_shape(len.shape)}", cls.name)
        return TensorSpec(broadcast_shapes(cls.name, input.shape, pos.shape), dtypes.string)

    @classmethod
    def compute(cls, xp, input, pos, len, **attrs):  # noqa: A002
        if xp is not np:
            raise UnimplementedError(f"{cls.name}: strings do not compile to XLA", cls.name)
        strings = np.asarray(input, dtype=object)
        pos, length = np.asarray(pos), np.asarray(len)
        if pos.shape != length.shape:
            raise InvalidArgumentError(f"{cls.name}: pos and len should have the same shape, got {list(pos.shape)} "
                                       f"and {list(length.shape)}", cls.name)
        shape = broadcast_shapes(cls.name, strings.shape, pos.shape)
        strings, pos, length = (np.broadcast_to(a, shape) for a in (strings, pos, length))
        out = np.empty(shape, dtype=object)
        for index in np.ndindex(*shape):
            out[index] = _piece(cls.name, strings[index], int(pos[index]), int(length[index]), attrs["unit"], index)
        return out
