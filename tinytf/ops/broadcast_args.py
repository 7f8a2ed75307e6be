"""Broadcasting computed on shape vectors: BroadcastArgs (the broadcast shape) and BroadcastGradientArgs
(the axes each side's gradient sums over), as TensorFlow's gradient code uses them.

    %s = "tf.BroadcastArgs"(%a, %b) : (tensor<2xi32>, tensor<1xi32>) -> tensor<2xi32>          // [4, 1], [3] -> [4, 3]
    %r0, %r1 = "tf.BroadcastGradientArgs"(%a, %b) : (tensor<2xi32>, tensor<2xi32>) -> (tensor<1xi32>, tensor<0xi32>)
"""
from __future__ import annotations

import numpy as np
from xdsl.irdl import operand_def, result_def, traits_def
from xdsl.traits import Pure

from tinytf.errors import InvalidArgumentError
from tinytf.framework.op import NotDifferentiable, Op, register
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.ops import verifiers as v
from tinytf.ops.base import fmt_shape, same_dtype


def _shape_vector(op_name: str, spec: TensorSpec, what: str) -> int | None:
    """The length of a shape operand (a vector of int32 or int64), or None when unknown."""
    if spec.dtype.name not in ("int32", "int64"):
        raise InvalidArgumentError(f"{op_name}: {what} must be int32 or int64, got {spec.dtype.name}", op_name)
    if spec.shape is not None and len(spec.shape) != 1:
        raise InvalidArgumentError(f"{op_name}: {what} must be a vector, got shape {fmt_shape(spec.shape)}", op_name)
    return None if spec.shape is None else spec.shape[0]


def _as_shape(op_name: str, value) -> tuple[int, ...]:
    array = np.asarray(value)
    if array.ndim != 1:
        raise InvalidArgumentError(f"{op_name}: a shape must be a vector, got shape {fmt_shape(array.shape)}", op_name)
    if (array < 0).any():
        raise InvalidArgumentError(f"{op_name}: a shape must not hold negative dims, got {array.tolist()}", op_name)
    return tuple(int(d) for d in array)


def broadcast(op_name: str, s0: tuple, s1: tuple) -> tuple:
    """TensorFlow's broadcast of two known shapes (a dim of 1 stretches)."""
    shape = np.broadcast_shapes(s0, s1) if _compatible(s0, s1) else None
    if shape is None:
        raise InvalidArgumentError(f"{op_name}: Incompatible shapes: {fmt_shape(s0)} vs. {fmt_shape(s1)}", op_name)
    return tuple(int(d) for d in shape)


def _compatible(s0, s1) -> bool:
    return all(a == b or a == 1 or b == 1 for a, b in zip(reversed(s0), reversed(s1)))


def gradient_axes(s0: tuple, s1: tuple) -> tuple[list[int], list[int]]:
    """The axes of the broadcast result the gradients of the ``s0`` and ``s1`` sides sum over: where that
    side has (or is padded with) a 1; both sides where both have 1; none when the shapes are equal."""
    if s0 == s1:
        return [], []
    n = max(len(s0), len(s1))
    x, y = (1,) * (n - len(s0)) + tuple(s0), (1,) * (n - len(s1)) + tuple(s1)
    return [i for i in range(n) if x[i] == 1], [i for i in range(n) if y[i] == 1]


@register
class BroadcastArgs(Op):
    """The shape ``s0`` and ``s1`` broadcast to.  %s = "tf.BroadcastArgs"(%a, %b) : (tensor<2xi32>, tensor<1xi32>) -> tensor<2xi32>"""

    name = "tf.BroadcastArgs"
    s0 = operand_def()
    s1 = operand_def()
    r0 = result_def()
    traits = traits_def(Pure(), NotDifferentiable())

    def verify_ir(self):
        v.check_types(self, operands={"s0": v.INDEX, "s1": v.INDEX}, results={"r0": v.INDEX})
        for i, value in enumerate(self.operands):
            if not v.has_rank(value, 1):
                v.fail(f"failed to verify that operand {i} is 1-D")

    @classmethod
    def infer(cls, s0, s1):
        dtype = same_dtype(cls.name, s0, s1)
        n0, n1 = _shape_vector(cls.name, s0, "s0"), _shape_vector(cls.name, s1, "s1")
        return TensorSpec((None if None in (n0, n1) else max(n0, n1),), dtype)

    @classmethod
    def compute(cls, xp, s0, s1):
        shape = broadcast(cls.name, _as_shape(cls.name, s0), _as_shape(cls.name, s1))
        return np.asarray(shape, np.asarray(s0).dtype)


@register
class BroadcastGradientArgs(Op):
    """The reduction axes of the gradients of a broadcasting binary op's two sides.

    %r0, %r1 = "tf.BroadcastGradientArgs"(%a, %b) : (tensor<2xi32>, tensor<2xi32>) -> (tensor<1xi32>, tensor<0xi32>)
    """

    name = "tf.BroadcastGradientArgs"
    s0 = operand_def()
    s1 = operand_def()
    r0 = result_def()
    r1 = result_def()
    traits = traits_def(Pure(), NotDifferentiable())

    def verify_ir(self):
        v.check_types(self, operands={"s0": v.INDEX, "s1": v.INDEX}, results={"r0": v.INDEX, "r1": v.INDEX})
        types = [x.type for x in (*self.operands, *self.results)]
        if len({str(v.element(t)) for t in types}) > 1:
            v.fail("requires the same element type for all operands and results")
        for kind, values in (("operand", self.operands), ("result", self.results)):
            for i, value in enumerate(values):
                if not v.has_rank(value, 1):
                    v.fail(f"failed to verify that {kind} {i} is 1-D")
        s0, s1 = v.const_ints(self.s0), v.const_ints(self.s1)
        if s0 is None or s1 is None:
            return
        if not _compatible(s0, s1):
            v.fail(f"requires broadcast compatible shape tensors for 's0' and 's1', but got {v.dense_str(self.s0)} "
                   f"and {v.dense_str(self.s1)}")
        for name, axes, result in zip(("r0", "r1"), gradient_axes(tuple(s0), tuple(s1)), self.results):
            got = v.shape(result.type)
            if got is not None and got[0] is not None and got[0] != len(axes):
                v.fail(f"requires dimension 0 size of '{name}' to be {len(axes)} but got {got[0]}")

    @classmethod
    def infer(cls, s0, s1):
        dtype = same_dtype(cls.name, s0, s1)
        for spec, what in ((s0, "s0"), (s1, "s1")):
            _shape_vector(cls.name, spec, what)
        return [TensorSpec((None,), dtype), TensorSpec((None,), dtype)]

    @classmethod
    def compute(cls, xp, s0, s1):
        a, b = _as_shape(cls.name, s0), _as_shape(cls.name, s1)
        broadcast(cls.name, a, b)
        dtype = np.asarray(s0).dtype
        return [np.asarray(axes, dtype) for axes in gradient_axes(a, b)]


def broadcast_dynamic_shape(shape_x, shape_y):
    return BroadcastArgs.bind(shape_x, shape_y)


__all__: list[str] = []  # reached through tt.raw_ops (tt.broadcast_dynamic_shape needs an api-coverage probe first)
