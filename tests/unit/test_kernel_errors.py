"""Errors tell the truth: bad input is InvalidArgumentError from the shape rule; a kernel that fails
on inputs its shape rule accepted is a bug, reported as InternalError naming the op, chained to the
original exception (its traceback kept) — in eager mode, in graph mode (general and static plans)
and under XLA."""
import numpy as np
import pytest

import tinytf as tt
from tinytf.errors import InternalError, InvalidArgumentError
from tinytf.framework.custom_op import register_op, unregister_op


def _divide_by_zero_kernel(ctx):
    ctx.set_output(0, ctx.input(0) * (1 // 0))


def _name_error_compute(xp, x):
    return x * undefined_name  # noqa: F821  (the bug under test)


def _same(x):
    if x.dtype.kind != "f":
        raise InvalidArgumentError(f"x must be a float tensor, got {x.dtype.name}")
    return x


@pytest.fixture(scope="module", autouse=True)
def broken_ops():
    """Two ops with bugs, registered only while these tests run (the fuzz test walks the registry)."""
    global broken_kernel, broken_compute
    broken_kernel = register_op("BrokenByZeroDivision", inputs=["x"], kernel=_divide_by_zero_kernel, shape_fn=_same)
    broken_compute = register_op("BrokenByNameError", inputs=["x"], compute=_name_error_compute, shape_fn=_same)
    yield
    unregister_op("BrokenByZeroDivision")
    unregister_op("BrokenByNameError")


X = np.ones((2, 2), np.float32)


def _run(fn, mode):
    if mode == "eager":
        return fn(tt.constant(X))
    return tt.function(lambda x: fn(x) * 2.0, jit_compile=mode == "xla")(tt.constant(X))


@pytest.mark.parametrize("mode", ["eager", "graph"])
def test_a_kernel_bug_is_an_internal_error_chained_to_the_original(mode):
    with pytest.raises(InternalError, match="tf.BrokenByZeroDivision") as info:
        _run(broken_kernel, mode)
    assert isinstance(info.value.__cause__, ZeroDivisionError)
    assert info.value.__cause__.__traceback__ is not None
    assert info.value.op == "tf.BrokenByZeroDivision"


@pytest.mark.parametrize("mode", ["eager", "graph", "xla"])
def test_a_compute_bug_is_an_internal_error_chained_to_the_original(mode):
    with pytest.raises(InternalError, match="tf.BrokenByNameError") as info:
        _run(broken_compute, mode)
    assert isinstance(info.value.__cause__, NameError)
    assert "undefined_name" in str(info.value)


def test_a_graph_plan_whose_shapes_are_static_reports_the_bug_too():
    f = tt.function(lambda x: broken_compute(x) + 1.0)
    for _ in range(2):  # first call traces and compiles the static plan; the second runs it again
        with pytest.raises(InternalError) as info:
            f(tt.constant(X))
        assert isinstance(info.value.__cause__, NameError)


@pytest.mark.parametrize("mode", ["eager", "graph", "xla"])
def test_bad_input_is_still_invalid_argument_naming_the_op(mode):
    with pytest.raises(InvalidArgumentError, match="float tensor, got int32"):
        fn = broken_compute
        if mode == "eager":
            fn(tt.constant(np.ones(2, np.int32)))
        else:
            tt.function(fn, jit_compile=mode == "xla")(tt.constant(np.ones(2, np.int32)))


@pytest.mark.parametrize("mode", ["eager", "graph", "xla"])
def test_validation_failures_of_library_ops_stay_invalid_argument(mode):
    a, b = tt.constant(np.ones((2, 3), np.float32)), tt.constant(np.ones((4, 5), np.float32))
    fn = tt.matmul if mode == "eager" else tt.function(tt.matmul, jit_compile=mode == "xla")
    with pytest.raises(InvalidArgumentError, match=r"MatMul.*\[2,3\].*\[4,5\]|MatMul.*2.*3.*4.*5"):
        fn(a, b)
