"""tt.function: tracing per signature, caching, concrete functions, captured variables, graph execution."""
from __future__ import annotations

import re

import numpy as np
import pytest

import tinytf as tt
from tinytf import mlir
from tinytf.errors import InvalidArgumentError, UnimplementedError


def test_graph_mode_matches_eager():
    rng = np.random.default_rng(0)
    x = tt.constant(rng.standard_normal((4, 3)).astype(np.float32))
    w = tt.Variable(rng.standard_normal((3, 5)).astype(np.float32))
    b = tt.Variable(rng.standard_normal(5).astype(np.float32))

    def model(x):
        return tt.nn.relu(tt.nn.bias_add(x @ w, b)) * 2.0 - 1.0

    eager = model(x)
    graph = tt.function(model)(x)
    assert isinstance(graph, tt.Tensor)
    np.testing.assert_allclose(graph.numpy(), eager.numpy(), rtol=1e-6)


def test_traces_once_per_signature():
    traces = []

    @tt.function
    def f(x):
        traces.append(x.shape)
        return x * x

    a = tt.constant([1.0, 2.0])
    f(a), f(a), f(tt.constant([3.0, 4.0]))
    assert len(traces) == 1
    f(tt.constant([1.0, 2.0, 3.0]))
    f(tt.constant([1, 2]))
    assert len(traces) == 3
    np.testing.assert_array_equal(f(tt.constant([3.0, 4.0])).numpy(), [9.0, 16.0])
    np.testing.assert_array_equal(f(np.array([2.0], np.float32)).numpy(), [4.0])


def test_python_arguments_are_part_of_the_key():
    traces = []

    @tt.function
    def f(x, scale, relu=False):
        traces.append(scale)
        y = x * scale
        return tt.nn.relu(y) if relu else y

    x = tt.constant([-1.0, 2.0])
    np.testing.assert_array_equal(f(x, 2.0).numpy(), [-2.0, 4.0])
    np.testing.assert_array_equal(f(x, 3.0, relu=True).numpy(), [0.0, 6.0])
    f(x, 2.0)
    assert traces == [2.0, 3.0]


def test_input_signature_fixes_the_trace():
    traces = []

    @tt.function(input_signature=[tt.TensorSpec([None, 2], tt.float32)])
    def f(x):
        traces.append(x.shape)
        return tt.reduce_sum(x, axis=1)

    np.testing.assert_array_equal(f(tt.constant([[1.0, 2.0]])).numpy(), [3.0])
    np.testing.assert_array_equal(f(tt.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])).numpy(), [3.0, 7.0, 11.0])
    assert traces == [(None, 2)]
    with pytest.raises(InvalidArgumentError, match="signature"):
        f(tt.constant([[1.0, 2.0, 3.0]]))
    with pytest.raises(InvalidArgumentError, match="signature"):
        f(tt.constant([[1, 2]]))


def test_concrete_function_module_and_mlir_in_tensorflow_style():
    v = tt.Variable(np.ones((3, 4), np.float32), name="kernel")

    @tt.function
    def dense(x):
        return tt.matmul(x, v)

    cf = dense.get_concrete_function(tt.TensorSpec([None, 3], tt.float32, name="x"))
    assert cf.module is not None and cf.captured_variables == [v]
    text = cf.mlir()
    assert 'tf._user_specified_name = "x"' in text
    assert re.search(r"tensor<!tf_type.resource<tensor<3x4xf32>>> \{tf._user_specified_name = \"resource\"\}", text)
    assert "tf.entry_function" in text and 'inputs = "x,kernel_resource"' in text
    assert '"tf.ReadVariableOp"' in text and '"tf.MatMul"' in text and '"tf.Identity"' in text
    mlir.verify(mlir.parse(text))
    out = cf(tt.constant(np.ones((2, 3), np.float32)))
    np.testing.assert_array_equal(out.numpy(), np.full((2, 4), 3.0, np.float32))
    assert dense.get_concrete_function(tt.TensorSpec([None, 3], tt.float32)) is cf


def test_exported_text_runs_with_load_mlir():
    v = tt.Variable(np.arange(3, dtype=np.float32))

    @tt.function
    def f(x):
        return tt.exp(x) + v

    cf = f.get_concrete_function(tt.TensorSpec([3]))
    m = tt.load_mlir(cf.mlir())
    x = np.array([0.0, 1.0, 2.0], np.float32)
    (out,) = m.run(x, v.numpy())
    np.testing.assert_allclose(out, np.exp(x) + v.numpy(), rtol=1e-6)


def test_variables_updated_by_the_function():
    v = tt.Variable(np.zeros(2, np.float32))

    @tt.function
    def step(x):
        v.assign_add(x)
        return v.value() * 2.0

    np.testing.assert_array_equal(step(tt.constant([1.0, 2.0])).numpy(), [2.0, 4.0])
    np.testing.assert_array_equal(step(tt.constant([1.0, 2.0])).numpy(), [4.0, 8.0])
    np.testing.assert_array_equal(v.numpy(), [2.0, 4.0])
    v.assign([10.0, 10.0])  # the function reads the variable's current value, not a traced copy
    np.testing.assert_array_equal(step(tt.constant([0.0, 0.0])).numpy(), [20.0, 20.0])


def test_output_structures():
    @tt.function
    def f(x):
        return {"double": x * 2.0, "pair": (x, x + 1.0), "none": None}

    out = f(tt.constant([1.0]))
    assert out["none"] is None
    np.testing.assert_array_equal(out["double"].numpy(), [2.0])
    assert isinstance(out["pair"], tuple) and out["pair"][1].numpy().tolist() == [2.0]


def test_nested_functions_are_inlined():
    inner = tt.function(lambda x: x * 3.0)

    @tt.function
    def outer(x):
        return inner(x) + 1.0

    cf = outer.get_concrete_function(tt.TensorSpec([2]))
    assert '"tf.Mul"' in cf.mlir()
    np.testing.assert_array_equal(outer(tt.constant([1.0, 2.0])).numpy(), [4.0, 7.0])


def test_multiple_inputs_and_keyword_arguments():
    @tt.function
    def f(a, b):
        return a - b

    np.testing.assert_array_equal(f(b=tt.constant([1.0]), a=tt.constant([5.0])).numpy(), [4.0])


def test_wrong_argument_to_concrete_function():
    cf = tt.function(lambda x: x + 1.0).get_concrete_function(tt.TensorSpec([2], tt.float32))
    with pytest.raises(InvalidArgumentError):
        cf(tt.constant([1.0, 2.0, 3.0]))
    with pytest.raises(InvalidArgumentError):
        cf(tt.constant([1, 2]))


def test_python_control_flow_on_symbolic_values_is_refused():
    @tt.function
    def f(x):
        if x > 0.0:
            return x
        return -x

    with pytest.raises(TypeError):
        f(tt.constant(1.0))


def test_jit_compile_without_xla_backend():
    try:
        import tinytf.xla as xla

        available = hasattr(xla, "run_module")
    except ImportError:
        available = False
    if available:
        f = tt.function(lambda x: x + 1.0, jit_compile=True)
        np.testing.assert_array_equal(f(tt.constant([1.0])).numpy(), [2.0])
    else:
        with pytest.raises(UnimplementedError, match="XLA"):
            tt.function(lambda x: x + 1.0, jit_compile=True)


def test_function_as_a_method():
    traces = []

    class Model:
        def __init__(self):
            self.w = tt.Variable([2.0])

        @tt.function
        def __call__(self, x):
            traces.append(1)
            return x * self.w

    m = Model()
    np.testing.assert_array_equal(m(tt.constant([3.0])).numpy(), [6.0])
    np.testing.assert_array_equal(m(tt.constant([4.0])).numpy(), [8.0])
    assert len(traces) == 1
    np.testing.assert_array_equal(Model()(tt.constant([1.0])).numpy(), [2.0])
    assert len(traces) == 2
