"""AddN: the sum of a list of tensors of one shape (how TensorFlow's gradients add up contributions).

    %s = "tf.AddN"(%a, %b, %c) : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
"""
from __future__ import annotations

from typing import ClassVar

from xdsl.irdl import result_def, traits_def, var_operand_def
from xdsl.traits import Pure

from tinytf.errors import InvalidArgumentError
from tinytf.framework.attributes import derived
from tinytf.framework.op import Op, register
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.ops.base import check_dtype, fmt_shape, same_dtype


@register
class AddN(Op):
    """inputs[0] + inputs[1] + ... (no broadcasting: every input has the same shape).

    %s = "tf.AddN"(%a, %b) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    """

    name = "tf.AddN"
    BATCHING: ClassVar[str] = "elementwise"
    inputs = var_operand_def()
    sum = result_def()
    N = derived("int", lambda op: len(op.operands), default=None)
    traits = traits_def(Pure())

    @classmethod
    def infer(cls, *inputs, **_):
        if not inputs:
            raise InvalidArgumentError(f"{cls.name}: needs at least one input", cls.name)
        dtype = check_dtype(cls.name, TensorSpec(None, same_dtype(cls.name, *inputs)), "fciu")
        shape = inputs[0].shape
        for x in inputs[1:]:
            if shape is None:
                shape = x.shape
            elif x.shape is not None:
                if len(x.shape) != len(shape) or any(a is not None and b is not None and a != b
                                                     for a, b in zip(shape, x.shape)):
                    raise InvalidArgumentError(f"{cls.name}: Inputs must be of same size and shape, got "
                                               f"{fmt_shape(shape)} and {fmt_shape(x.shape)}", cls.name)
                shape = tuple(a if a is not None else b for a, b in zip(shape, x.shape))
        return TensorSpec(shape, dtype)

    @staticmethod
    def compute(xp, *inputs, **_):
        total = inputs[0]
        for x in inputs[1:]:
            total = total + x
        return xp.asarray(total)

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and y = x0 + x1 + ...: each dxi = U
        return [dy] * len(op.inputs)


def add_n(inputs, name=None):
    """``tt.math.add_n([a, b, c])``: tf.math.add_n."""
    if not isinstance(inputs, list | tuple) or not inputs:
        raise InvalidArgumentError("add_n: inputs must be a non-empty list of tensors")
    return AddN.bind(*inputs)


def accumulate_n(inputs, shape=None, tensor_dtype=None, name=None):
    """``tt.math.accumulate_n``: the sum of ``inputs`` (TensorFlow 2's accumulate_n is add_n after checking
    that the tensors share a shape and a dtype, and ``shape`` / ``tensor_dtype`` when given)."""
    if not isinstance(inputs, list | tuple) or not inputs:
        raise InvalidArgumentError("accumulate_n: inputs must be a non-empty list of tensors", "tf.AddN")
    from tinytf.ops.tensor_inputs import as_tensor

    tensors = [as_tensor(t) for t in inputs]
    for t in tensors:
        if tuple(t.shape) != tuple(tensors[0].shape) or t.dtype != tensors[0].dtype:
            raise InvalidArgumentError(f"accumulate_n: inputs must have the same shape and dtype, got "
                                       f"{tensors[0].dtype.name}{list(tensors[0].shape)} and {t.dtype.name}"
                                       f"{list(t.shape)}", "tf.AddN")
    if shape is not None and tuple(shape) != tuple(tensors[0].shape):
        raise InvalidArgumentError(f"accumulate_n: shape {list(shape)} does not match the inputs' "
                                   f"{list(tensors[0].shape)}", "tf.AddN")
    if tensor_dtype is not None and tensors[0].dtype != tensor_dtype:
        raise InvalidArgumentError(f"accumulate_n: tensor_dtype {tensor_dtype} does not match the inputs' "
                                   f"{tensors[0].dtype.name}", "tf.AddN")
    return tensors[0] if len(tensors) == 1 else AddN.bind(*tensors)


# The op functions (tinytf.runtime.namespaces puts them in tt.*; the rest are helpers).
__all__ = ["add_n", "accumulate_n"]
__namespaces__ = {"add_n": ("math", "top"), "accumulate_n": ("math",)}
