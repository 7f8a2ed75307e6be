"""Shapes of several tensors at once, and of a variable: ShapeN, VariableShape (gradient code uses both).

    %s:2 = "tf.ShapeN"(%x, %y) : (tensor<2x3xf32>, tensor<4xf32>) -> (tensor<2xi32>, tensor<1xi32>)
    %v = "tf.VariableShape"(%w) : (tensor<!tf_type.resource<tensor<3x4xf32>>>) -> tensor<2xi32>
"""
from __future__ import annotations

from typing import ClassVar

import numpy as np
from xdsl.irdl import operand_def, result_def, traits_def, var_operand_def, var_result_def
from xdsl.traits import Pure

import tinytf.dtypes as dtypes
from tinytf.errors import InvalidArgumentError
from tinytf.framework import tf_types
from tinytf.framework.attributes import derived
from tinytf.framework.op import NoConstantFold, NotDifferentiable, Op, ResourceOp, register
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.framework.variables import AbstractVariable
from tinytf.ops import verifiers as v
from tinytf.ops.shape import Shape


def _out_type(op_name: str, out_type):
    out_type = dtypes.as_dtype(out_type)
    if out_type not in (dtypes.int32, dtypes.int64):
        raise InvalidArgumentError(f"{op_name}: out_type must be int32 or int64, got {out_type.name}", op_name)
    return out_type


def _result_type(op):
    return tf_types.dtype_of(op.results[0].type) if op.results else dtypes.int32


@register
class ShapeN(Op):
    """The shape of each input, as Shape gives it.

    %s:2 = "tf.ShapeN"(%x, %y) : (tensor<2x3xf32>, tensor<4xf32>) -> (tensor<2xi32>, tensor<1xi32>)
    """

    name = "tf.ShapeN"
    BATCHING: ClassVar[str] = "same_for_every_item"
    input = var_operand_def()
    output = var_result_def()
    out_type = derived("type", _result_type, default=dtypes.int32)
    traits = traits_def(Pure(), NotDifferentiable())

    def verify_ir(self):
        v.check_types(self, results={"output": v.INDEX})
        n = len(self.input)
        if len(self.output) != n:
            v.fail(f"requires {n} result(s), got {len(self.output)} result(s)")
        for i, (x, y) in enumerate(zip(self.input, self.output)):
            v.check_shape_result(x.type, y.type, i, op=self)

    @classmethod
    def infer(cls, *input, out_type):
        _out_type(cls.name, out_type)
        if not input:
            raise InvalidArgumentError(f"{cls.name}: needs at least one input", cls.name)
        return [Shape.infer(x, out_type=out_type) for x in input]

    @staticmethod
    def compute(xp, *input, out_type):
        return [Shape.compute(xp, x, out_type=out_type) for x in input]


def shape_n(input, out_type=dtypes.int32, name=None):
    return ShapeN.bind(*input, out_type=dtypes.as_dtype(out_type))


@register
class VariableShape(Op):
    """The shape of a variable's value.  %v = "tf.VariableShape"(%w) : (tensor<*x!tf_type.resource>) -> tensor<2xi32>"""

    name = "tf.VariableShape"
    input = operand_def()
    output = result_def()
    out_type = derived("type", _result_type, default=dtypes.int32)
    traits = traits_def(NoConstantFold(), ResourceOp(), NotDifferentiable())

    def verify_ir(self):
        v.check_types(self, results={"output": v.INDEX})
        n = v.num_elements(v.shape(self.input.type))
        if n is not None and n != 1:
            v.fail("requires input to have one resource")
        subtypes = getattr(v.element(self.input), "subtypes", None)
        subtypes = subtypes.data if subtypes is not None else ()
        if len(subtypes) > 1:
            v.fail("requires resource input type to have at most 1 subtype")
        v.check_shape_result(subtypes[0] if subtypes else None, self.output.type, op=self)

    @classmethod
    def infer(cls, input, *, out_type):
        out_type = _out_type(cls.name, out_type)
        if input.dtype is not dtypes.resource:
            raise InvalidArgumentError(f"{cls.name}: expected a resource operand, got {input.dtype.name}", cls.name)
        var = input.value
        shape = getattr(var, "shape", None) if isinstance(var, AbstractVariable) else None
        if shape is None:
            return TensorSpec((None,), out_type)
        return TensorSpec((len(shape),), out_type)

    @classmethod
    def compute(cls, xp, input, *, out_type):
        if not isinstance(input, AbstractVariable):
            raise InvalidArgumentError(f"{cls.name}: operand 0 must be a resource (a variable), got "
                                       f"{type(input).__name__}", cls.name)
        return np.asarray(np.shape(input.read()), dtypes.as_dtype(out_type).np)


def variable_shape(input, out_type=dtypes.int32, name=None):
    return VariableShape.bind(input, out_type=dtypes.as_dtype(out_type))


__namespaces__ = {"shape_n": ("top",)}


# The op functions (tinytf.runtime.namespaces puts them in tt.*; the rest are helpers).
__all__ = ["shape_n"]
