"""tf.EnsureShape: its input, once its shape is checked against a (partial) shape.

    %y = "tf.EnsureShape"(%x) <{shape = #tf_type.shape<?x3>}> : (tensor<*xf32>) -> tensor<?x3xf32>

A dim the shape leaves unknown (``?``) matches any size; an unknown rank matches any rank. When the
input's static type already satisfies the shape, canonicalize folds the op away (``fold_rules``).
"""
from __future__ import annotations

from xdsl.irdl import operand_def, result_def, traits_def
from xdsl.traits import Pure

from tinytf.errors import InvalidArgumentError
from tinytf.framework.attributes import attr
from tinytf.framework.op import Op, register
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.ops.base import fmt_shape

__all__ = ["ensure_shape"]
__namespaces__ = {"ensure_shape": ("top",)}


def _merged(name: str, actual, wanted):
    """The more specific of two compatible shapes; InvalidArgumentError naming both when they conflict."""
    if wanted is None:
        return actual
    if actual is None:
        return tuple(wanted)
    if len(actual) != len(wanted) or any(a is not None and w is not None and a != w for a, w in zip(actual, wanted)):
        raise InvalidArgumentError(f"{name}: Shape of tensor input {fmt_shape(actual)} is not compatible with "
                                   f"expected shape {fmt_shape(wanted)}.", name)
    return tuple(a if a is not None else w for a, w in zip(actual, wanted))


@register
class EnsureShape(Op):
    """``input`` unchanged; an InvalidArgumentError when its shape does not fit ``shape``."""

    name = "tf.EnsureShape"
    input = operand_def()
    output = result_def()
    shape = attr(None, kind="shape")
    traits = traits_def(Pure())

    @classmethod
    def infer(cls, input, *, shape):
        return TensorSpec(_merged(cls.name, input.shape, shape), input.dtype)

    @classmethod
    def compute(cls, xp, input, *, shape):
        _merged(cls.name, tuple(input.shape), shape)  # (under XLA shapes are static: the same check)
        return input

    @staticmethod
    def grad(op, dy):  # Given upstream grad dy and y = x: dx = dy
        return [dy]


def ensure_shape(x, shape, name=None):
    """``x``, checked to have ``shape`` (a list with None for a dim of any size, or None for any shape)."""
    return EnsureShape.bind(x, shape=None if shape is None else tuple(None if d is None or d == -1 else int(d)
                                                                       for d in shape))
