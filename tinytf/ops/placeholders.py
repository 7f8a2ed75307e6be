"""Graph inputs that have a value when nobody feeds them: tf.PlaceholderWithDefault.

    %x = "tf.PlaceholderWithDefault"(%default) <{shape = #tf_type.shape<?x1>}> : (tensor<1x1xf32>) -> tensor<?x1xf32>

A ``tf.Placeholder`` itself never reaches the IR: the GraphDef importer makes it a function argument.
"""
from __future__ import annotations

from xdsl.irdl import operand_def, result_def, traits_def

from tinytf.errors import InvalidArgumentError
from tinytf.framework import tf_types
from tinytf.framework.attributes import attr, derived
from tinytf.framework.op import NoConstantFold, NotDifferentiable, Op, register
from tinytf.framework.tensor_spec import TensorSpec

__all__ = []  # tf.raw_ops only (tf.compat.v1's API): no tt.* op functions


@register
class PlaceholderWithDefault(Op):
    """``input`` unless the graph's caller feeds this tensor (feeding replaces the op); ``shape`` may be
    less specific than ``input``'s, so a default of shape [1, 1] can stand for a [?, 1] input."""

    name = "tf.PlaceholderWithDefault"
    input = operand_def()
    output = result_def()
    shape = attr(None, kind="shape")
    dtype = derived("type", lambda op: tf_types.dtype_of(op.results[0].type), default=None)
    traits = traits_def(NoConstantFold(), NotDifferentiable())

    @classmethod
    def infer(cls, input, *, shape, dtype=None):
        if dtype is not None and input.dtype is not dtype:
            raise InvalidArgumentError(f"{cls.name}: the default has dtype {input.dtype.name}, the placeholder "
                                       f"{dtype.name}", cls.name)
        spec = TensorSpec(shape, input.dtype)
        if not spec.is_compatible_with(input.shape):
            raise InvalidArgumentError(f"{cls.name}: the default has shape {input.shape}, the placeholder "
                                       f"{list(shape)}", cls.name)
        return TensorSpec(input.shape if shape is None else shape, input.dtype)

    @staticmethod
    def compute(xp, input, **_):
        return input


def placeholder_with_default(input, shape, name=None):
    return PlaceholderWithDefault.bind(input, shape=None if shape is None else tuple(shape))
