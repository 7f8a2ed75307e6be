"""Shared pieces of the op library: elementwise base classes and the checks every shape rule uses.

Shape rules work on TensorSpecs: a shape is a tuple (``None`` dims unknown) or ``None`` (unknown
rank). They raise InvalidArgumentError naming the op and the offending shapes or dtypes.
"""
from __future__ import annotations

from xdsl.irdl import operand_def, result_def, traits_def
from xdsl.traits import Pure

from tinytf.errors import InvalidArgumentError
from tinytf.framework.op import Elementwise, Op
from tinytf.framework.tensor_spec import TensorSpec


def fmt_shape(shape) -> str:
    return "<unknown>" if shape is None else "[" + ",".join("?" if d is None else str(d) for d in shape) + "]"


def same_dtype(op_name: str, *specs: TensorSpec):
    """The common dtype; TensorFlow never promotes between tensors of different dtypes."""
    first = specs[0].dtype
    for spec in specs[1:]:
        if spec.dtype is not first:
            raise InvalidArgumentError(
                f"{op_name}: operands must have the same dtype, got {first.name} and {spec.dtype.name}", op_name)
    return first


def check_dtype(op_name: str, spec: TensorSpec, allowed: str, what: str = "input"):
    """``allowed`` is a string of dtype kinds: f float, c complex, i int, u uint, b bool."""
    if spec.dtype.kind not in allowed:
        raise InvalidArgumentError(f"{op_name}: {what} of dtype {spec.dtype.name} is not supported", op_name)
    return spec.dtype


def broadcast_shapes(op_name: str, a, b):
    """NumPy/TensorFlow broadcasting of two shapes (either may be unknown)."""
    if a is None or b is None:
        return None
    out = []
    for i in range(1, max(len(a), len(b)) + 1):
        x = a[-i] if i <= len(a) else 1
        y = b[-i] if i <= len(b) else 1
        if x == 1:
            out.append(y)
        elif y == 1 or x == y:
            out.append(x)
        elif x is None or y is None:
            out.append(x if y is None else y)
        else:
            raise InvalidArgumentError(
                f"{op_name}: incompatible shapes {fmt_shape(a)} and {fmt_shape(b)}", op_name)
    return tuple(reversed(out))


def normalize_axis(op_name: str, axis: int, rank: int | None) -> int:
    if rank is None:
        return axis
    if not -rank <= axis < max(rank, 1):
        raise InvalidArgumentError(f"{op_name}: axis {axis} is out of range for rank {rank}", op_name)
    return axis % rank if rank else 0


class UnaryElementwise(Op):
    """``y = f(x)`` elementwise; the dtype kinds an op accepts are in its ``kinds()``."""

    x = operand_def()
    y = result_def()
    traits = traits_def(Pure(), Elementwise())

    @staticmethod
    def kinds() -> str:
        return "fciu"

    @classmethod
    def infer(cls, x, **attrs):
        check_dtype(cls.name, x, cls.kinds())
        return x


class BinaryElementwise(Op):
    """``z = f(x, y)`` elementwise with broadcasting; both operands share one dtype."""

    x = operand_def()
    y = operand_def()
    z = result_def()
    traits = traits_def(Pure(), Elementwise())

    @staticmethod
    def kinds() -> str:
        return "fciu"

    @classmethod
    def infer(cls, x, y, **attrs):
        dtype = check_dtype(cls.name, TensorSpec(None, same_dtype(cls.name, x, y)), cls.kinds())
        return TensorSpec(broadcast_shapes(cls.name, x.shape, y.shape), dtype)
