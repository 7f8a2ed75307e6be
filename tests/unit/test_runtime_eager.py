"""EagerContext: the fast path, the checked path, error conversion, wrapper contexts, check_allocation."""
from __future__ import annotations

import numpy as np
import pytest
from xdsl.irdl import irdl_op_definition, operand_def, result_def

import tinytf as tt
from tinytf.errors import InternalError, InvalidArgumentError, ResourceExhaustedError, UnimplementedError
from tinytf.framework import context
from tinytf.framework.kernel import OpKernelContext, check_allocation, set_allocation_limit
from tinytf.framework.op import Op
from tinytf.ops.math import AddV2, MatMul
from tinytf.runtime import dispatch
from tinytf.runtime.eager import EagerContext


def _test_op(name, compute=None):
    """An unregistered op class (keeps the registry clean) with an identity shape rule."""
    body = {"name": name, "x": operand_def(), "y": result_def(), "infer": staticmethod(lambda x: x)}
    if compute is not None:
        body["compute"] = staticmethod(compute)
    cls = irdl_op_definition(type(name.replace(".", "_"), (Op,), body))
    cls.__tf_attrs__ = {}
    return cls


def test_default_context_is_eager():
    assert isinstance(context.current(), EagerContext)


def test_fast_path_gives_the_same_values_and_dtypes():
    a = np.arange(4, dtype=np.float32).reshape(2, 2)
    x = tt.constant(a)
    first = x + x  # checked path; teaches the fast path float32
    assert np.dtype(np.float32) in dispatch.op_info(AddV2).ok_dtypes
    second = x + x
    np.testing.assert_array_equal(first.numpy(), a + a)
    np.testing.assert_array_equal(second.numpy(), a + a)
    assert second.dtype is tt.float32 and type(second) is tt.Tensor


def test_fast_path_still_reports_bad_shapes():
    x = tt.constant(np.ones((2, 2), np.float32))
    x + x
    with pytest.raises(InvalidArgumentError) as err:
        x + tt.constant(np.ones(3, np.float32))
    assert "AddV2" in str(err.value) and "[2,2]" in str(err.value) and "[3]" in str(err.value)


def test_fast_path_never_mixes_dtypes():
    f, d = tt.constant([1.0]), tt.constant([1.0], dtype=tt.float64)
    f + f, d + d
    with pytest.raises(InvalidArgumentError, match="float32.*float64|float64.*float32"):
        f + d


def test_unary_fast_path():
    x = tt.constant([-1.0, 2.0])
    for _ in range(2):
        np.testing.assert_array_equal(tt.nn.relu(x).numpy(), [0.0, 2.0])


def test_an_unexpected_kernel_exception_is_internal_naming_op_and_shapes():
    def compute(xp, x):
        raise ValueError("boom")

    Bad = _test_op("test.Bad", compute)
    with pytest.raises(InternalError) as err:
        Bad.bind(tt.constant([1.0, 2.0]))
    assert "test.Bad" in str(err.value) and "boom" in str(err.value) and "[2]" in str(err.value)
    assert isinstance(err.value.__cause__, ValueError)


def test_op_without_kernel_is_unimplemented():
    NoKernel = _test_op("test.NoKernel")
    with pytest.raises(UnimplementedError, match="test.NoKernel"):
        NoKernel.bind(tt.constant([1.0]))


def test_attrs_are_completed_and_cached():
    a = tt.constant([[1.0, 2.0]])
    b = tt.constant([[3.0], [4.0]])
    for _ in range(2):
        np.testing.assert_array_equal(tt.matmul(a, b).numpy(), [[11.0]])
        np.testing.assert_array_equal(tt.matmul(a, a, transpose_b=True).numpy(), [[5.0]])
    info = dispatch.op_info(MatMul)
    assert all(set(done) >= {"transpose_a", "transpose_b", "grad_a", "grad_b"} for done in info.attrs_cache.values())


def test_unknown_attribute_is_refused():
    with pytest.raises(InvalidArgumentError, match="unknown attribute"):
        MatMul.bind(tt.constant([[1.0]]), tt.constant([[1.0]]), transpose_c=True)
    with pytest.raises(InvalidArgumentError, match="unknown argument"):
        tt.raw_ops.MatMul(a=tt.constant([[1.0]]), b=tt.constant([[1.0]]), transpose_c=True)


def test_shape_rule_cache_still_checks_new_shapes():
    a = tt.constant(np.ones((2, 3), np.float32))
    tt.matmul(a, tt.constant(np.ones((3, 2), np.float32)))
    with pytest.raises(InvalidArgumentError, match="MatMul"):
        tt.matmul(a, tt.constant(np.ones((2, 2), np.float32)))


def test_wrapper_context_sees_every_op_and_forwards():
    """What the tape does: push itself, record, forward to the context below."""

    class Recorder:
        def __init__(self):
            self.below = context.current()
            self.log = []

        def execute(self, op_cls, inputs, attrs):
            outs = self.below.execute(op_cls, inputs, attrs)
            self.log.append((op_cls.name, inputs, outs))
            return outs

    x = tt.constant([1.0, 2.0])
    rec = Recorder()
    with context.pushed(rec):
        y = x * x + 1.0
    assert [name for name, _, _ in rec.log] == ["tf.Mul", "tf.AddV2"]
    assert rec.log[1][2] is y
    assert {rec.log[0][2]: "product"}[rec.log[1][1][0]] == "product"  # tensors are usable as keys
    np.testing.assert_array_equal(y.numpy(), [2.0, 5.0])
    assert isinstance(context.current(), EagerContext)


def test_symbolic_tensor_used_eagerly_is_refused():
    leaked = []

    @tt.function
    def f(x):
        leaked.append(x)
        return x

    f(tt.constant([1.0]))
    with pytest.raises(InvalidArgumentError, match="symbolic"):
        leaked[0] + tt.constant([1.0])


def test_check_allocation():
    check_allocation("tf.Fill", [10, 10], tt.float32)
    with pytest.raises(InvalidArgumentError, match="tf.Fill.*non-negative"):
        check_allocation("tf.Fill", [-1, 2], tt.float32)
    with pytest.raises(ResourceExhaustedError, match="tf.Fill"):
        check_allocation("tf.Fill", [1 << 40, 1 << 10], np.float32)
    previous = set_allocation_limit(1000)
    try:
        check_allocation("tf.Range", [250], "float32")
        with pytest.raises(ResourceExhaustedError, match="tf.Range"):
            check_allocation("tf.Range", [251], "float32")
        with pytest.raises(ResourceExhaustedError):
            tt.zeros([300], tt.float32)
    finally:
        set_allocation_limit(previous)


def test_kernel_context_basics():
    ctx = OpKernelContext("tf.Test", [np.ones(2, np.float32), np.zeros(3, np.int32)])
    assert ctx.num_inputs == 2 and ctx.input_dtype(1) is tt.int32
    out = ctx.allocate_output(0, (2, 2), tt.float64)
    assert out.shape == (2, 2) and ctx.outputs[0] is out
    ctx.set_output(2, np.ones(1))
    assert ctx.num_outputs == 3


def test_multi_result_op_returns_a_list():
    outs = tt.raw_ops.IdentityN(input=[tt.constant([1.0]), tt.constant([2])])
    assert isinstance(outs, list) and [o.numpy().tolist() for o in outs] == [[1.0], [2]]


def test_integer_results_keep_tensorflow_dtypes():
    x = tt.constant([1, 2], dtype=tt.int8)
    assert (x + x).dtype is tt.int8
    assert (x * x).dtype is tt.int8


def test_fast_path_with_python_numbers():
    x = tt.constant([1.0, 2.0])
    for _ in range(3):
        y = x * 0.5
        z = 3 - x
        assert y.dtype is tt.float32 and z.dtype is tt.float32
        np.testing.assert_array_equal(y.numpy(), [0.5, 1.0])
        np.testing.assert_array_equal(z.numpy(), [2.0, 1.0])
    d = tt.constant([1.0], dtype=tt.float64)
    assert (d + 1).dtype is tt.float64 and (2.0 * d).dtype is tt.float64
    i = tt.constant([1, 2])
    assert (i * 2).dtype is tt.int32
    with pytest.raises(InvalidArgumentError):
        i * 0.5
    with pytest.raises(InvalidArgumentError):
        x * 1e39  # does not fit float32
    assert (tt.constant([2]) // 2).numpy().tolist() == [1]
