"""The gradient checker: TensorFlow's CalcNumericalGrad / CompareNumericalAndAutodiffGradients
semantics and documented values, the vectorised check_gradients, and `tinytf gradcheck`."""
import itertools
import re

import numpy as np
import pytest
from xdsl.irdl import operand_def, result_def, traits_def
from xdsl.traits import Pure

import tinytf as tt
from tinytf import gradcheck as gc
from tinytf.autodiff import GradientTape
from tinytf.autodiff.central_differences import (
    central_differences,
    perturbed,
    relative_steps,
    tensorflow_steps,
)
from tinytf.framework.op import REGISTRY, Op, register

MODES = [pytest.param(False, id="eager"), pytest.param(True, id="graph")]


# --- calc_numerical_grad ------------------------------------------------------------------------

def _tf_reference(f, theta):
    """TensorFlow's loop, in numpy float32: ε = |θᵢ|·1e-4 (1e-4 at 0), (f(θ+ε) - f(θ-ε)) / 2ε."""
    flat = theta.reshape(-1)
    out = np.empty_like(flat)
    for i in range(flat.size):
        eps = np.float32(1e-4) if flat[i] == 0 else np.float32(abs(np.float64(flat[i]) * 1e-4))
        plus, minus = flat.copy(), flat.copy()
        plus[i] += eps
        minus[i] -= eps
        out[i] = (f(plus.reshape(theta.shape)) - f(minus.reshape(theta.shape))) / (np.float32(2) * eps)
    return out.reshape(theta.shape)


@pytest.mark.parametrize("use_function", MODES)
def test_calc_numerical_grad_follows_tensorflows_formula(use_function):
    theta = np.array([[0.0, 1.5, -2.0], [0.25, 3.0, -0.5]], np.float32)
    other = np.array([1.0, -2.0, 0.5], np.float32)
    model = lambda x, y: x * x * x * y            # first output; the checker sums it
    got = gc.calc_numerical_grad(model, [tt.constant(theta), tt.constant(other)], 0, use_function=use_function)
    assert tuple(got.shape) == theta.shape and got.dtype == tt.float32
    expected = _tf_reference(lambda t: np.sum(t * t * t * other, dtype=np.float32), theta)
    np.testing.assert_allclose(got.numpy(), expected, rtol=1e-6, atol=1e-6)


def test_calc_numerical_grad_in_float64_is_accurate():
    theta = np.array([[0.0, 1.5, -2.0], [0.25, 3.0, -0.5]])
    got = gc.calc_numerical_grad(lambda x: x * x * x, [tt.constant(theta)], 0)
    assert got.dtype == tt.float64
    # central differences of x³ err by exactly ε²: (θ+ε)³ - (θ-ε)³ = 6θ²ε + 2ε³
    eps = np.where(theta == 0, 1e-4, np.abs(theta) * 1e-4)
    # (plus round-off of the summed output, |f|·2⁻⁵²/ε ≈ 2e-11 at θ = 0)
    np.testing.assert_allclose(got.numpy(), 3 * theta ** 2 + eps ** 2, rtol=1e-9, atol=1e-10)


def test_calc_numerical_grad_uses_only_the_first_output():
    x = tt.constant([1.0, 2.0])
    got = gc.calc_numerical_grad(lambda x: [x * 3.0, x * x * 100.0], [x], 0)
    np.testing.assert_allclose(got.numpy(), [3.0, 3.0], atol=1e-2)


def test_calc_numerical_grad_rejects_integer_inputs():
    with pytest.raises(ValueError, match="not a float"):
        gc.calc_numerical_grad(lambda x: x * 2, [tt.constant([1, 2])], 0)



# --- one central-difference core, element by element and batched --------------------------------

def test_tensorflow_steps_are_tensorflows_delta():
    theta = np.array([[0.0, 1.5, -2.0], [0.25, 3.0, -0.5]], np.float32)
    steps = tensorflow_steps(theta)
    eps = [np.float32(1e-4) if t == 0 else np.float32(abs(np.float64(t) * 1e-4)) for t in theta.reshape(-1)]
    for i, (t, e) in enumerate(zip(theta.reshape(-1), eps)):
        assert steps.plus[i] == t + e and steps.minus[i] == t - e and steps.divisor[i] == np.float32(2) * e
    assert steps.plus.dtype == steps.minus.dtype == steps.divisor.dtype == np.float32


def test_the_core_gives_identical_numbers_element_by_element_and_batched():
    theta = np.array([[0.0, 1.5, -2.0], [0.25, 3.0, -0.5]])
    other = np.array([1.0, -2.0, 0.5])
    f = lambda t: np.sum(t * t * t * other, axis=(-2, -1))  # the model of the TF test, on stacks too
    flat, steps = theta.reshape(-1), tensorflow_steps(theta)

    def one_at_a_time(i, _stop):
        return [f(perturbed(flat, i, moved[i]).reshape(theta.shape)) for moved in (steps.plus, steps.minus)]

    def all_at_once(start, stop):
        return [f(np.stack([perturbed(flat, i, moved[i]) for i in range(start, stop)]).reshape((-1,) + theta.shape))
                for moved in (steps.plus, steps.minus)]

    looped = central_differences(steps, one_at_a_time, itertools.repeat(1), theta.dtype)
    batched = central_differences(steps, all_at_once, itertools.repeat(4), theta.dtype)
    np.testing.assert_array_equal(batched, looped)
    # TensorFlow's checker is that core, one model call per perturbation
    got = gc.calc_numerical_grad(lambda x, y: x * x * x * y, [tt.constant(theta), tt.constant(other)], 0)
    np.testing.assert_array_equal(got.numpy(), looped.reshape(theta.shape))


def test_vectorised_full_mode_is_the_core_over_batched_graphs():
    from tinytf.autodiff.sparse_batch import SparseBatch
    from tinytf.autodiff.vectorized import VectorizedModel

    inputs = _mlp_inputs(np.float64, seed=2)
    vm = VectorizedModel(_mlp, inputs, wrt=[1], trace=gc._trace, seed=4)
    batched = vm.numerical_full(1, eps=1e-6, chunk_bytes=1 << 20)        # batches of 16, then the rest
    w1 = vm.arrays[1]
    steps = relative_steps(w1, 1e-6)

    def one_perturbation(i, _stop):  # the same graph, one element's plus and minus per run
        stack = SparseBatch(w1, np.array([[i], [i]]), np.array([[steps.plus[i]], [steps.minus[i]]]))
        return vm._run_batch(1, stack)

    looped = central_differences(steps, one_perturbation, itertools.repeat(1), np.float64)
    # L's round-off (~3e-15: BLAS sums a batch of 32 items in another order than one of 2) over the
    # step 2e-6; a wrong step or quotient would be off by far more
    np.testing.assert_allclose(batched.reshape(-1), looped, rtol=0, atol=1e-8)

    x, _, b1, w2 = inputs
    u0, u1 = vm.weights[0], vm.weights[1]
    hand = lambda w: np.sum(u0 * (np.tanh(x @ w + b1) @ w2)) + u1 * np.sum(np.tanh(x @ w + b1))
    flat = w1.reshape(-1)
    by_hand = central_differences(steps, lambda i, _: [hand(perturbed(flat, i, m[i]).reshape(w1.shape))
                                                       for m in (steps.plus, steps.minus)],
                                  itertools.repeat(1), np.float64)
    # the same quotients of the model written in numpy: the same round-off bound
    np.testing.assert_allclose(looped, by_hand, rtol=0, atol=1e-8)

# --- TensorFlow's documented values -------------------------------------------------------------

UNARY = {"Exp": "exp", "Sqrt": "sqrt", "Neg": "negative", "Log1p": "math.log1p"}
BINARY = {"AddV2": "add", "Sub": "subtract", "Mul": "multiply", "DivNoNan": "math.div_no_nan"}


def public(path):
    """``tt.<path>``, looked up when the test runs."""
    obj = tt
    for part in path.split("."):
        obj = getattr(obj, part)
    return obj

EXPECTED_AT_2 = {"Exp": [np.exp(2.0)], "Sqrt": [0.5 / np.sqrt(2.0)], "Neg": [-1.0], "Log1p": [1 / 3.0],
                 "AddV2": [1.0, 1.0], "Sub": [1.0, -1.0], "Mul": [2.0, 2.0], "DivNoNan": [0.5, -0.5]}


@pytest.mark.parametrize("use_function", MODES)
@pytest.mark.parametrize("name", list(UNARY) + list(BINARY))
def test_scalar_ops_at_two_agree_numerically_and_by_autodiff(name, use_function):
    fn = public(UNARY.get(name) or BINARY[name])
    inputs = [tt.constant(2.0) for _ in range(1 if name in UNARY else 2)]
    report = gc.compare_numerical_and_autodiff_gradients(fn, inputs, use_function=use_function)
    assert [r.checked for r in report.inputs] == [1] * len(inputs)
    grads = gc.autodiff_gradients(fn, inputs, use_function=use_function)
    np.testing.assert_allclose([float(g) for g in grads], EXPECTED_AT_2[name], rtol=1e-6)


@pytest.mark.parametrize("use_function", MODES)
def test_matmul_gradient_value(use_function):
    a = tt.constant([[1.0, 2.0], [3.0, 4.0]])
    b = tt.constant([[0.5, -1.0], [1.0, 1.0]])
    da, db = gc.autodiff_gradients(tt.matmul, [a, b], use_function=use_function)
    np.testing.assert_allclose(da, [[-0.5, 2.0], [-0.5, 2.0]])
    gc.compare_numerical_and_autodiff_gradients(tt.matmul, [a, b], use_function=use_function)


@pytest.mark.parametrize("use_function", MODES)
def test_mul_gradient_value(use_function):
    dx, dy = gc.autodiff_gradients(tt.multiply, [tt.constant(2.0), tt.constant(7.0)], use_function=use_function)
    assert float(dx) == 7.0 and float(dy) == 2.0


@pytest.mark.parametrize("use_function", MODES)
def test_div_no_nan_gradient_at_zero_divisor_is_zero(use_function):
    dx, dy = gc.autodiff_gradients(public("math.div_no_nan"), [tt.constant(2.0), tt.constant(0.0)],
                                   use_function=use_function)
    assert float(dx) == 0.0 and float(dy) == 0.0


@pytest.mark.parametrize("use_function", MODES)
def test_relu_gradient_at_zero_is_zero(use_function):
    (g,) = gc.autodiff_gradients(tt.nn.relu, [tt.constant([-1.0, 0.0, 2.0])], use_function=use_function)
    np.testing.assert_array_equal(g, [0.0, 0.0, 1.0])
    gc.compare_numerical_and_autodiff_gradients(tt.nn.relu, [tt.constant([-1.5, 0.7, 2.0])],
                                                use_function=use_function)


@pytest.mark.parametrize("use_function", MODES)
def test_sparse_softmax_cross_entropy_loss_gradient(use_function):
    logits = tt.constant([[1.0, 2.0, 0.5, -1.0], [0.1, -0.3, 0.8, 0.2], [2.0, 1.0, 0.0, -2.0]])
    labels = tt.constant([1, 2, 0])

    def loss(features, labels):
        return tt.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=features)

    report = gc.compare_numerical_and_autodiff_gradients(loss, [logits, labels], use_function=use_function)
    assert report.inputs[0].checked == 12
    assert report.inputs[1].skipped == "no gradient"       # integer labels
    x = logits.numpy().astype(np.float64)
    softmax = np.exp(x) / np.exp(x).sum(axis=1, keepdims=True)
    np.testing.assert_allclose(report.inputs[0].autodiff, softmax - np.eye(4)[[1, 2, 0]], atol=1e-6)


# --- a deliberately wrong gradient --------------------------------------------------------------

@register
class _WrongSquare(Op):
    """x*x with the gradient 3x instead of 2x: the checker must catch it."""

    name = "tinytf_test.WrongSquare"
    x = operand_def()
    y = result_def()
    traits = traits_def(Pure())

    @staticmethod
    def infer(x):
        return x

    @staticmethod
    def compute(xp, x):
        return x * x

    @staticmethod
    def grad(op, dy):  # Given upstream grad dy and y = x^2: dx = 3 x dy (deliberately wrong)
        return [dy * op.inputs[0] * 3.0]


REGISTRY.pop(_WrongSquare.name)


@pytest.fixture
def wrong_square():
    REGISTRY[_WrongSquare.name] = _WrongSquare   # registered only while a test uses it
    yield lambda x, y: _WrongSquare.bind(x) * y
    REGISTRY.pop(_WrongSquare.name)


@pytest.mark.parametrize("use_function", MODES)
def test_wrong_gradient_fails_loudly_naming_the_element(wrong_square, use_function):
    x = tt.constant(np.array([[0.0, 1.0], [2.0, -3.0]]))       # float64: the numbers print exactly
    y = tt.constant(np.ones((2, 2)))
    with pytest.raises(AssertionError) as err:
        gc.compare_numerical_and_autodiff_gradients(wrong_square, [x, y], use_function=use_function)
    text = str(err.value)
    # element 0 (x = 0) agrees: 0 = 0; the others are off by x
    assert "3 element(s) differ beyond abs_error 0.01" in text
    for element, index, numerical, autodiff, difference in [(1, "(0, 1)", 2, 3, 1), (2, "(1, 0)", 4, 6, 2),
                                                             (3, "(1, 1)", -6, -9, 3)]:
        pattern = (rf"input 0, element {element} \(index \{index[:-1]}\)\): numerical {numerical}(\.0+\d*)?, "
                   rf"autodiff {autodiff}, difference {difference}(\.0+\d*)?\n")
        assert re.search(pattern, text + "\n"), (pattern, text)
    assert "element 0 (" not in text


@pytest.mark.parametrize("mode", ["full", "fast"])
def test_check_gradients_catches_the_wrong_rule(wrong_square, mode):
    x = np.array([[0.5, 1.0], [2.0, -3.0]], np.float32)
    y = np.ones((2, 2), np.float32)
    with pytest.raises(AssertionError, match="input 0, element"):
        gc.check_gradients(wrong_square, [x, y], mode=mode)
    report = gc.check_gradients(wrong_square, [x, y], mode=mode, raise_exception=False)
    assert not report.ok and report.inputs[1].ok
    if mode == "full":
        assert [m.index for m in report.inputs[0].mismatches] == [(0, 0), (0, 1), (1, 0), (1, 1)]


# --- check_gradients ----------------------------------------------------------------------------

def _mlp(x, w1, b1, w2):
    h = tt.tanh(tt.matmul(x, w1) + b1)
    return [tt.matmul(h, w2), tt.reduce_sum(h)]


def _mlp_inputs(dtype=np.float32, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(s).astype(dtype) * 0.5 for s in [(4, 6), (6, 5), (5,), (5, 3)]]


def _mlp_expected(x, w1, b1, w2, u0, u1):
    """d/dθ of ⟨u0, h@w2⟩ + u1·sum(h), h = tanh(x@w1 + b1), by hand in float64."""
    x, w1, b1, w2 = (np.asarray(a, np.float64) for a in (x, w1, b1, w2))
    h = np.tanh(x @ w1 + b1)
    dh = u0 @ w2.T + u1
    dz = dh * (1 - h * h)
    return [dz @ w1.T, x.T @ dz, dz.sum(axis=0), h.T @ u0]


@pytest.mark.parametrize("mode", ["full", "fast"])
def test_check_gradients_passes_on_a_correct_model(mode):
    inputs = _mlp_inputs()
    report = gc.check_gradients(_mlp, inputs, mode=mode)
    assert report.ok and report.eval_dtype == "float64" and len(report.inputs) == 4
    if mode == "full":
        assert [r.checked for r in report.inputs] == [24, 30, 5, 15]
        assert max(r.max_abs_error for r in report.inputs) < 1e-7


def test_check_gradients_full_values_match_the_hand_derivative():
    inputs = _mlp_inputs(np.float64, seed=3)
    report = gc.check_gradients(_mlp, inputs, mode="full", seed=11)
    rng = np.random.default_rng(11)
    u0, u1 = rng.standard_normal((4, 3)), rng.standard_normal(())
    for r, expected in zip(report.inputs, _mlp_expected(*inputs, u0, u1)):
        np.testing.assert_allclose(r.autodiff, expected, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(r.numerical, expected, rtol=1e-5, atol=1e-7)


def test_chunk_size_does_not_change_the_result():
    inputs = _mlp_inputs(np.float64)
    big = gc.check_gradients(_mlp, inputs, mode="full", chunk_bytes=1 << 24)
    tiny = gc.check_gradients(_mlp, inputs, mode="full", chunk_bytes=1)
    for a, b in zip(big.inputs, tiny.inputs):
        np.testing.assert_allclose(a.numerical, b.numerical, rtol=1e-9, atol=1e-12)


def test_vectorised_evaluation_equals_the_dense_path(monkeypatch):
    from tinytf.autodiff import batching

    inputs = _mlp_inputs(np.float64)
    sparse = gc.check_gradients(_mlp, inputs, mode="full")
    monkeypatch.setattr(batching, "_sparse_rule", lambda *a, **k: None)
    monkeypatch.setattr(batching, "_changed_only", lambda *a, **k: None)
    dense = gc.check_gradients(_mlp, inputs, mode="full")
    for a, b in zip(sparse.inputs, dense.inputs):
        np.testing.assert_allclose(a.numerical, b.numerical, rtol=1e-6, atol=1e-9)


def test_check_gradients_wrt_and_integer_inputs():
    def model(x, labels):
        return tt.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=x)

    x = np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32)
    report = gc.check_gradients(model, [x, np.array([0, 3, 1], np.int32)])
    assert [r.index for r in report.inputs] == [0]      # labels are not a float input
    report = gc.check_gradients(_mlp, _mlp_inputs(), wrt=[2])
    assert [r.index for r in report.inputs] == [2]


def test_check_gradients_reports_inputs_without_gradient():
    report = gc.check_gradients(lambda x, y: x * 2.0, [np.ones(3, np.float32), np.ones(3, np.float32)])
    assert report.inputs[0].ok and report.inputs[1].skipped == "no gradient"


def test_check_gradients_with_a_captured_variable():
    v = tt.Variable(np.array([0.5, -1.0, 2.0], np.float32))
    report = gc.check_gradients(lambda x: tt.exp(x * v), [np.array([0.1, 0.2, 0.3], np.float32)])
    np.testing.assert_allclose(report.inputs[0].numerical / report.inputs[0].autodiff, 1.0, rtol=1e-6)


def test_check_gradients_progress_reaches_the_total():
    seen = []
    gc.check_gradients(_mlp, _mlp_inputs(), chunk_bytes=1, progress=lambda done, total: seen.append((done, total)))
    assert seen[-1] == (74, 74) and all(a[0] <= b[0] for a, b in zip(seen, seen[1:]))


def test_check_gradients_report_text():
    report = gc.check_gradients(_mlp, _mlp_inputs(), mode="fast")
    text = str(report)
    assert text.startswith("gradient check (fast, float64): passed")
    assert "uᵀJv" in text and "max abs err" in text


def test_check_gradients_without_promotion_evaluates_in_float32():
    report = gc.check_gradients(_mlp, _mlp_inputs(), promote=False)
    assert report.eval_dtype == "float32" and report.ok


def test_check_gradients_bad_arguments():
    with pytest.raises(ValueError, match="mode"):
        gc.check_gradients(_mlp, _mlp_inputs(), mode="slow")
    with pytest.raises(ValueError, match="backend"):
        gc.check_gradients(_mlp, _mlp_inputs(), backend="tpu")


@pytest.mark.parametrize("mode", ["full", "fast"])
def test_xla_backend_agrees_with_numpy(mode):
    inputs = _mlp_inputs(np.float64, seed=3)
    on_numpy = gc.check_gradients(_mlp, inputs, mode=mode, seed=5)
    on_xla = gc.check_gradients(_mlp, inputs, mode=mode, seed=5, backend="xla")
    assert on_xla.ok and on_xla.backend == "xla"
    for a, b in zip(on_numpy.inputs, on_xla.inputs):
        np.testing.assert_allclose(b.autodiff, a.autodiff, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(b.numerical, a.numerical, rtol=1e-6, atol=1e-8)


def test_xla_backend_catches_the_wrong_rule(wrong_square):
    x = np.array([[0.5, 1.0], [2.0, -3.0]], np.float32)
    with pytest.raises(AssertionError, match=r"input 0, element 3 \(index \(1, 1\)\)"):
        gc.check_gradients(wrong_square, [x, np.ones((2, 2), np.float32)], backend="xla")


def test_autodiff_gradients_match_a_tape():
    x, w = tt.constant([[1.0, 2.0]]), tt.constant([[3.0], [4.0]])
    with GradientTape() as tape:
        tape.watch([x, w])
        y = tt.matmul(x, w)
    expected = tape.gradient(y, [x, w])
    for got, want in zip(gc.autodiff_gradients(tt.matmul, [x, w]), expected):
        np.testing.assert_array_equal(got, want.numpy())


# --- the command line ---------------------------------------------------------------------------

MODEL_FILE = """
import tinytf as tt

def loss(x, w):
    return tt.reduce_sum(tt.tanh(x @ w))

def wrong(x):
    return tt.nn.relu(x) * 0.0 + tt.stop_gradient(x) * 2.0
"""


def test_cli_gradcheck_prints_a_table(tmp_path, capsys):
    from tinytf.cli.gradcheck import main

    path = tmp_path / "model.py"
    path.write_text(MODEL_FILE)
    assert main([f"{path}:loss", "--input-shapes", "4,6:6,3"]) == 0
    out = capsys.readouterr().out
    assert "gradient check (full, float64): passed" in out and "gradient check (fast, float64): passed" in out
    assert "(4, 6)" in out and "18" in out and "ok" in out


def test_cli_gradcheck_exit_status_on_mismatch_and_bad_input(tmp_path, capsys):
    from tinytf.cli.gradcheck import main

    path = tmp_path / "model.py"
    path.write_text(MODEL_FILE)
    assert main([f"{path}:wrong", "--input-shapes", "5", "--mode", "full"]) == 1
    assert "FAILED" in capsys.readouterr().out
    assert main([f"{path}:missing", "--input-shapes", "5"]) == 1
    assert "no function 'missing'" in capsys.readouterr().err
    assert main([f"{path}:loss", "--input-shapes", "4,x"]) == 1
    assert "--input-shapes" in capsys.readouterr().err


def test_cli_parse_shapes():
    from tinytf.cli.gradcheck import parse_shapes

    assert parse_shapes("8,64:64,64") == [(8, 64), (64, 64)]
    assert parse_shapes("scalar:3") == [(), (3,)]
