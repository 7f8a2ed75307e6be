"""TracingContext: ops become xDSL ops in a func.func with types from the shape rules."""
from __future__ import annotations

import numpy as np
import pytest

import tinytf as tt
from tinytf import mlir
from tinytf.errors import InvalidArgumentError
from tinytf.framework import context, tf_types
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.runtime.tracing import SymbolicTensor, TracingContext


def trace(fn, *specs):
    ctx = TracingContext("f", list(specs))
    with context.pushed(ctx):
        out = fn(*ctx.inputs)
        outs = out if isinstance(out, list | tuple) else [out]
        func = ctx.finish(list(outs))
    return ctx, func


def op_names(func):
    return [op.name for op in func.body.blocks[0].ops]


def test_ops_are_recorded_with_inferred_types():
    ctx, func = trace(lambda x, w: tt.nn.relu(x @ w), TensorSpec([None, 3]), TensorSpec([3, 4]))
    assert op_names(func) == ["tf.MatMul", "tf.Relu", "tf.Identity", "func.return"]
    matmul = func.body.blocks[0].first_op
    assert tf_types.shape_of(matmul.results[0].type) == (None, 4)
    mlir.verify(func)


def test_symbolic_tensors_have_specs_and_operators():
    ctx = TracingContext("f", [TensorSpec([2, 3], tt.float32)])
    with context.pushed(ctx):
        x = ctx.inputs[0]
        y = (x + 1.0) * x - x / 2.0
        assert isinstance(y, SymbolicTensor)
        assert y.shape == (2, 3) and y.dtype is tt.float32
        assert len(x) == 2
        assert {y: 1}[y] == 1
        with pytest.raises(TypeError):
            bool(x > 0.0)
        with pytest.raises(TypeError):
            x.numpy()


def test_python_scalars_become_consts_of_the_operand_dtype():
    ctx, func = trace(lambda x: x * 2.0, TensorSpec([2], tt.float64))
    const = func.body.blocks[0].first_op
    assert const.name == "tf.Const"
    assert tf_types.dtype_of(const.results[0].type) is tt.float64
    np.testing.assert_array_equal(const.attr_values()["value"], np.float64(2.0))


def test_numpy_arrays_and_eager_tensors_become_consts():
    w = tt.constant([[1.0], [2.0]])
    ctx, func = trace(lambda x: x @ w + np.ones((1,), np.float32), TensorSpec([3, 2]))
    assert op_names(func).count("tf.Const") == 2


def test_constant_operand_values_reach_shape_rules():
    ctx, func = trace(lambda x: tt.reshape(x, [3, -1]), TensorSpec([2, 3]))
    reshape = [op for op in func.body.blocks[0].ops if op.name == "tf.Reshape"][0]
    assert tf_types.shape_of(reshape.results[0].type) == (3, 2)


def test_dtype_mismatch_raises_while_tracing():
    with pytest.raises(InvalidArgumentError, match="AddV2"):
        trace(lambda x, y: x + y, TensorSpec([2], tt.float32), TensorSpec([2], tt.int32))


def test_variables_become_trailing_resource_arguments():
    v = tt.Variable(np.ones((3, 4), np.float32), name="w")
    ctx, func = trace(lambda x: x @ v, TensorSpec([2, 3]))
    args = func.body.blocks[0].args
    assert len(args) == 2
    assert tf_types.is_resource(args[1].type)
    assert str(args[1].type) == "tensor<!tf_type.resource<tensor<3x4xf32>>>"
    assert "tf.ReadVariableOp" in op_names(func)
    assert ctx.captured_variables == [v]
    text = mlir.print(func)
    assert 'tf._user_specified_name = "resource"' in text


def test_assign_inside_a_trace_records_resource_ops():
    v = tt.Variable(np.zeros(2, np.float32))

    def step(x):
        v.assign_add(x)
        v.assign_sub(x * 0.5)
        v.assign(x)
        return v.value()

    ctx, func = trace(step, TensorSpec([2]))
    names = op_names(func)
    for name in ("tf.AssignAddVariableOp", "tf.AssignSubVariableOp", "tf.AssignVariableOp", "tf.ReadVariableOp"):
        assert name in names
    assert len(func.body.blocks[0].args) == 2  # one capture, used four times


def test_symbolic_tensor_of_another_trace_is_refused():
    outer = TracingContext("outer", [TensorSpec([2])])
    inner = TracingContext("inner", [TensorSpec([2])])
    with context.pushed(inner), pytest.raises(InvalidArgumentError, match="another"):
        inner.inputs[0] + outer.inputs[0]


def test_wrapper_context_over_tracing():
    class Recorder:
        def __init__(self):
            self.below = context.current()
            self.log = []

        def execute(self, op_cls, inputs, attrs):
            outs = self.below.execute(op_cls, inputs, attrs)
            self.log.append((op_cls.name, outs))
            return outs

    ctx = TracingContext("f", [TensorSpec([2])])
    with context.pushed(ctx):
        rec = Recorder()
        with context.pushed(rec):
            y = tt.exp(ctx.inputs[0]) * 3.0
        func = ctx.finish([y])
    assert [n for n, _ in rec.log] == ["tf.Exp", "tf.Mul"]
    assert isinstance(rec.log[1][1], SymbolicTensor) and rec.log[1][1] is y
    assert "tf.Mul" in op_names(func)


def test_multi_result_ops_trace_to_lists():
    def f(x, y):
        a, b = tt.identity_n([x, y])
        return a, b

    ctx, func = trace(f, TensorSpec([2]), TensorSpec([3], tt.int32))
    ident = [op for op in func.body.blocks[0].ops if op.name == "tf.IdentityN"][0]
    assert len(ident.results) == 2


def test_traced_text_parses_back():
    ctx, func = trace(lambda x: tt.reduce_sum(tt.tanh(x) * 2.0, axis=1), TensorSpec([4, 5]))
    from xdsl.dialects.builtin import ModuleOp

    text = mlir.print(ModuleOp([func]))
    again = mlir.print(mlir.parse(text))
    assert text == again


def test_scalar_constants_stay_scalars():
    ctx, func = trace(lambda x: x * 2.0 + np.float32(1.0), TensorSpec([3]))
    consts = [op for op in func.body.blocks[0].ops if op.name == "tf.Const"]
    assert [tf_types.shape_of(c.results[0].type) for c in consts] == [(), ()]
    ctx, func = trace(lambda x: tt.reduce_sum(x, axis=0), TensorSpec([3, 2]))
    const = func.body.blocks[0].first_op
    assert tf_types.shape_of(const.results[0].type) == ()
