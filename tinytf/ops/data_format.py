"""Layout bookkeeping between data formats: DataFormatVecPermute reorders per-dimension values (a shape, the
strides, the paddings) from one format's dimension order to another's.

    %y = "tf.DataFormatVecPermute"(%x) <{dst_format = "NCHW", src_format = "NHWC"}> : (tensor<4xi32>) -> tensor<4xi32>
    # x = [n, h, w, c] -> y = [n, c, h, w]
"""
from __future__ import annotations

from typing import ClassVar

import numpy as np
from xdsl.irdl import operand_def, result_def, traits_def
from xdsl.traits import Pure

from tinytf.errors import InvalidArgumentError
from tinytf.framework.attributes import attr
from tinytf.framework.op import NotDifferentiable, Op, register
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.ops import verifiers as v
from tinytf.ops.base import fmt_shape

__all__: list[str] = []  # tf.raw_ops only, as in TensorFlow


def _spatial(fmt: str) -> str:
    return "".join(d for d in fmt if d in ("HWD" if len(fmt) == 5 else "HW"))


def permutation(op_name: str, src_format: str, dst_format: str, rows: int) -> list[int]:
    """Indices into the input's first dim: y[j] = x[perm[j]]. A ``rows`` of two fewer than the format's
    length permutes only the spatial dims (TensorFlow's rule for [h, w] vectors)."""
    for what, fmt in (("Source", src_format), ("Destination", dst_format)):
        if len(fmt) not in (4, 5):
            name = "src_format" if what == "Source" else "dst_format"
            raise InvalidArgumentError(f"{op_name}: {what} format must be of length 4 or 5, received {name} = {fmt}",
                                       op_name)
    if sorted(src_format) != sorted(dst_format) or len(set(src_format)) != len(src_format):
        raise InvalidArgumentError(f"{op_name}: Destination and source format must determine a permutation, got "
                                   f"{src_format} and {dst_format}", op_name)
    if rows == len(src_format) - 2:
        src_format, dst_format = _spatial(src_format), _spatial(dst_format)
        if len(src_format) != rows or len(dst_format) != rows:
            letters = "D, H and W" if rows == 3 else "H and W"
            raise InvalidArgumentError(f"{op_name}: Format specifier must contain {letters} for 2D case", op_name)
    return [src_format.index(d) for d in dst_format]


@register
class DataFormatVecPermute(Op):
    """y[j] = x[src_format.index(dst_format[j])] along the first dim: a vector of 4 (or 5) values, or of the 2
    (or 3) spatial ones, or a [4, 2] matrix of pairs (paddings)."""

    name = "tf.DataFormatVecPermute"
    x = operand_def()
    y = result_def()
    src_format = attr("NHWC")
    dst_format = attr("NCHW")
    traits = traits_def(Pure(), NotDifferentiable())
    TYPES: ClassVar = {"int32", "int64"}

    def verify_ir(self):
        v.check_types(self, operands={"x": v.INDEX}, results={"y": v.INDEX})
        v.same_types(self)
        s = v.shape(self.x)
        if s is None:
            return
        if len(s) not in (1, 2):
            v.fail("requires input of rank 1 or 2")
        if len(s) == 1 and s[0] not in (None, 2, 4):
            v.fail("requires 1D input of size 4 or size 2")
        if len(s) == 2 and s[0] not in (None, 4):
            v.fail("requires first dimensions of 2D input to be of size 4")
        if len(s) == 2 and s[1] not in (None, 2):
            v.fail("requires second dimensions of 2D input to be of size 2")

    @classmethod
    def infer(cls, x, *, src_format, dst_format, **_):
        if x.dtype.name not in cls.TYPES:
            raise InvalidArgumentError(f"{cls.name}: x must be int32 or int64, got {x.dtype.name}", cls.name)
        n = len(src_format)
        if x.shape is not None and len(x.shape) not in (1, 2):
            raise InvalidArgumentError(f"{cls.name}: input must be a vector or 2D tensor, but got shape "
                                       f"{fmt_shape(x.shape)}", cls.name)
        rows = None if x.shape is None else x.shape[0]
        if rows is not None and rows not in (n - 2, n):
            which = "1D input" if len(x.shape) == 1 else "First dimension of 2D input"
            raise InvalidArgumentError(f"{cls.name}: {which} must be of size {n - 2} or {n}, but got shape "
                                       f"{fmt_shape(x.shape)}", cls.name)
        if x.shape is not None and len(x.shape) == 2 and x.shape[1] not in (None, 2):
            raise InvalidArgumentError(f"{cls.name}: Second dimension of 2D input must be of size 2, but got shape "
                                       f"{fmt_shape(x.shape)}", cls.name)
        permutation(cls.name, src_format, dst_format, n if rows is None else rows)
        return TensorSpec(x.shape, x.dtype)

    @classmethod
    def compute(cls, xp, x, *, src_format, dst_format, **_):
        perm = permutation(cls.name, src_format, dst_format, x.shape[0])
        return xp.take(x, np.asarray(perm, np.int32), axis=0)
