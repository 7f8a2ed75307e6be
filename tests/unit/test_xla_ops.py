"""Every op of the library lowers to XLA and gives its graph-mode result.

Each op is traced into a one-op function with ``tt.function`` (constant operands such as axes and
shapes become ``tf.Const``, the others are arguments), run by the graph executor (numpy) and by
``tt.xla.run_module`` (JAX/XLA), and the two results compared. The differentiable ops come from
the gradient spec table (tests/unit/test_gradients_spec.py); the others are listed here. Ops that
call functions or touch variables are checked in test_xla_compile.py with whole modules.
"""
from __future__ import annotations

import numpy as np
import pytest
from test_gradients_spec import SPECS, TENSOR_LISTS, D, K, Spec, U, i32

import tinytf as tt
from tinytf import xla
from tinytf.framework.op import REGISTRY, ResourceOp, calls_functions, has_trait


class B(U):
    """Random booleans."""

    def draw(self, rng, dtype):
        return rng.random(self.shape) < 0.5


class Int(U):
    """Small int32 values in [lo, hi], none equal to any of ``away``."""

    def draw(self, rng, dtype):
        x = rng.integers(int(self.lo), int(self.hi) + 1, self.shape).astype(np.int32)
        for a in self.away:
            x = np.where(x == a, int(self.hi), x).astype(np.int32)
        return x


class Special(U):
    """Floats with NaN, +inf and -inf among them."""

    def draw(self, rng, dtype):
        x = rng.uniform(-2, 2, self.shape).astype(dtype)
        x.flat[:3] = [np.nan, np.inf, -np.inf]
        return x


S = Spec
x23 = U((2, 3))
MORE = [
    S("tf.All", [B((2, 3)), i32(1)]), S("tf.Any", [B((2, 3)), i32(0)], {"keep_dims": True}),
    S("tf.ArgMax", [D((2, 3)), K(np.int32(1))]), S("tf.ArgMin", [D((2, 3)), K(np.int32(0))]),
    S("tf.Ceil", [x23]), S("tf.Floor", [x23]), S("tf.Round", [U((2, 3), -4, 4)]),
    S("tf.ConcatOffset", [K(np.int32(1)), i32(2, 3), i32(2, 5)]),
    S("tf.Equal", [Int((2, 3), -1, 1), Int((3,), -1, 1)]), S("tf.NotEqual", [Int((2, 3), -1, 1), Int((3,), -1, 1)]),
    S("tf.Greater", [x23, U((3,))]), S("tf.GreaterEqual", [Int((2, 3), -1, 1), Int((2, 3), -1, 1)]),
    S("tf.Less", [x23, U(())]), S("tf.LessEqual", [Int((2, 3), -1, 1), Int((3,), -1, 1)]),
    S("tf.FloorDiv", [Int((2, 3), -7, 7), Int((3,), -3, 3, away=(0,))]), S("tf.FloorDiv", [x23, U((3,), 0.5, 2)],
                                                                     id="FloorDiv-float"),
    S("tf.FloorMod", [Int((2, 3), -7, 7), Int((3,), -3, 3, away=(0,))], id="FloorMod-int"),
    S("tf.InvertPermutation", [K(np.array([2, 0, 3, 1], np.int32))]),
    S("tf.IsFinite", [Special((2, 3))]), S("tf.IsNan", [Special((2, 3))]),
    S("tf.LogicalAnd", [B((2, 3)), B((3,))]), S("tf.LogicalOr", [B((2, 3)), B((2, 3))]),
    S("tf.LogicalNot", [B((2, 3))]),
    S("tf.OneHot", [Int((4,), 0, 2), K(np.int32(3)), K(lambda d: np.asarray(1.0, d)), K(lambda d: np.asarray(0.0, d))],
      {"axis": -1}),
    S("tf.OneHot", [Int((2, 2), -1, 3), K(np.int32(3)), K(lambda d: np.asarray(5.0, d)), K(lambda d: np.asarray(-1.0, d))],
      {"axis": 0}, id="OneHot-axis0-out-of-range"),
    S("tf.OnesLike", [x23]), S("tf.ZerosLike", [x23]), S("tf.StopGradient", [x23]),
    S("tf.Range", [K(np.int32(1)), K(np.int32(9)), K(np.int32(3))]),
    S("tf.Range", [K(lambda d: np.asarray(0.5, d)), K(lambda d: np.asarray(2.0, d)), K(lambda d: np.asarray(0.25, d))],
      id="Range-float"),
    S("tf.Rank", [x23]), S("tf.Shape", [U((2, 3, 1))]), S("tf.Size", [x23]), S("tf.ShapeN", [x23, U((4,))]),
    S("tf.Sum", [Int((2, 3), -5, 5), i32(1)], id="Sum-int"), S("tf.Cast", [x23], {"DstT": tt.int32}, id="Cast-int"),
    S("tf.Where", [K(np.array([[True, False, True], [False, False, True]]))]),  # a constant: its count is static
    S("tf.PlaceholderWithDefault", [x23], {"shape": (None, 3)}),
]
# tt.random's ops (tests/unit/test_random.py pins their bits to TensorFlow's); stateful ones start from their seeds
_seed, _shape = Int((2,), -9, 9), i32(2, 3)
_kca = [_shape, K(np.array([12345], np.uint64)), K(np.array([7, 9], np.uint64)), K(np.int32(1))]
MORE += [
    S("tf.StatelessRandomUniform", [_shape, _seed]), S("tf.StatelessRandomNormal", [_shape, _seed]),
    S("tf.StatelessTruncatedNormal", [_shape, _seed], {"dtype": tt.float64}),
    S("tf.StatelessRandomUniformInt", [_shape, _seed, K(np.int32(-4)), K(np.int32(9))]),
    S("tf.StatelessRandomUniformFullInt", [_shape, _seed], {"dtype": tt.int64}),
    S("tf.StatelessRandomUniformV2", _kca, {"dtype": tt.float16}), S("tf.StatelessRandomNormalV2", _kca),
    S("tf.StatelessTruncatedNormalV2", _kca), S("tf.StatelessRandomUniformFullIntV2", _kca, {"dtype": tt.uint32}),
    S("tf.StatelessRandomUniformIntV2", _kca + [K(np.int64(-3)), K(np.int64(2**40))]),
    S("tf.StatelessRandomGetKeyCounter", [_seed]), S("tf.StatelessRandomGetKeyCounterAlg", [_seed]),
    S("tf.StatelessMultinomial", [U((2, 4)), K(np.int32(5)), _seed]),
    S("tf.RandomShuffle", [U((5, 2))], {"seed": 7}), S("tf.Multinomial", [U((2, 3)), K(np.int32(4))], {"seed": 8}),
]
# Stateful ops whose one-op functions have the same text for both dtypes: XLA's cache (by module text) would
# hand the second run the first one's advanced stream; test_random.py runs them under XLA.
OWN_STREAMS = {"tf.RandomUniform", "tf.RandomStandardNormal", "tf.TruncatedNormal", "tf.RandomUniformInt"}
# Checked with whole modules in test_xla_compile.py (calls, control flow, variables, optimizer
# steps; TF1 ref-variable ops are refused, as by TensorFlow's XLA bridge) or as a function's constants.
MODULE_OPS = {n for n, c in REGISTRY.items() if calls_functions(c) or has_trait(c, ResourceOp)} | {"tf.Const"}
COMPLEX_ONLY = {"tf.Conj"}  # test_complex_only_ops_under_xla
# String parsing runs on the graph backend only; its XLA refusal is tested in test_saved_model_ops.py.
GRAPH_ONLY = {"tf.ParseExample", "tf.ParseExampleV2"}
ALL = SPECS + MORE


def test_every_op_is_covered():
    covered = {s.op for s in ALL} | MODULE_OPS | COMPLEX_ONLY | OWN_STREAMS | GRAPH_ONLY | TENSOR_LISTS
    missing = sorted(set(REGISTRY) - covered)
    assert not missing, f"ops without an XLA check: {missing}"


def _run(spec: Spec, dtype, seed: int = 0):
    rng = np.random.default_rng(seed)
    cls = REGISTRY[spec.op]
    slots, inputs = [], []
    for operand in spec.operands:
        if isinstance(operand, K):
            slots.append(("const", operand.get(dtype)))
        else:
            slots.append(("input", len(inputs)))
            inputs.append(np.asarray(operand.draw(rng, dtype)))
    if spec.scale is not None:
        i, j = spec.scale
        inputs[slots[j][1]] = np.asarray(inputs[slots[j][1]] * inputs[slots[i][1]], inputs[slots[j][1]].dtype)

    def fn(*xs):
        return cls.bind(*[xs[v] if kind == "input" else tt.constant(v) for kind, v in slots], **spec.attrs)

    cf = tt.function(fn).get_concrete_function(*[tt.TensorSpec(x.shape, tt.as_dtype(x.dtype)) for x in inputs])
    graph = [np.asarray(t.numpy()) for t in cf.call_flat([tt.constant(x) for x in inputs])]
    got = xla.run_module(cf.module, cf.name, inputs)
    return graph, got


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("spec", ALL, ids=[s.id for s in ALL])
def test_op_under_xla_matches_graph_mode(spec, dtype):
    graph, got = _run(spec, dtype)
    assert len(got) == len(graph)
    for k, (g, w) in enumerate(zip(got, graph)):
        assert g.dtype == w.dtype, f"output {k}: dtype {g.dtype} != {w.dtype}"
        assert g.shape == w.shape, f"output {k}: shape {g.shape} != {w.shape}"
        if w.dtype.kind in "fc":
            # a few ulps: XLA's exp, tanh, erf differ from numpy's/scipy's in the last bits
            rtol = 2e-6 if w.dtype == np.float32 else 1e-13
            np.testing.assert_allclose(g, w, rtol=rtol, atol=rtol, err_msg=f"output {k}")
        else:
            np.testing.assert_array_equal(g, w, err_msg=f"output {k}")


def test_complex_only_ops_under_xla():
    x = np.array([1 + 2j, -3j, 0.5], np.complex64)
    f = tt.function(lambda v: tt.math.conj(v) * 2.0, jit_compile=True)
    np.testing.assert_array_equal(f(tt.constant(x)).numpy(), np.conj(x) * 2)
    assert "tf.Conj" in f.get_concrete_function(tt.TensorSpec([3], tt.complex64)).mlir()
