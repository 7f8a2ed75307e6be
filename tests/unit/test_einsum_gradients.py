"""tf.Einsum's gradient for every family of equation TensorFlow accepts, against references that do not
use the rule under test.

The loss is L = sum(einsum(eq, *xs) * c) for fixed random c. L is linear in each operand, so
dL/dx[idx] is L with x replaced by the basis array e_idx: ``basis_grads`` evaluates that with
np.einsum, element by element (an explicit loop, exact, and blind to how the rule is derived). The
named cases also get their adjoint equations written out by hand. Tape gradients are compared with
both in eager mode, in graph mode (tt.function) and under XLA; TensorFlow's numerical checker must
agree too, and the gradients are themselves differentiable (second derivatives against references).
"""
from __future__ import annotations

import numpy as np
import pytest

import tinytf as tt
from tinytf.errors import InvalidArgumentError
from tinytf.gradcheck import compare_numerical_and_autodiff_gradients

# (equation, operand shapes); numpy's einsum computes each forward (its implicit form agrees with
# TensorFlow's for these: the ellipsis occurs once at most)
CASES = [
    ("...ij,jk->...ik", [(2, 3, 4, 5), (5, 6)]),              # the dense layer
    ("...ij,...jk->...ik", [(2, 1, 3, 4), (5, 4, 2)]),         # batch dims broadcast, a size-1 one too
    ("a...b,...b->a...", [(2, 3, 1, 4), (5, 4)]),              # the ellipsis inside a term
    ("a...c,...c->...a", [(2, 1, 4), (3, 5, 4)]),              # ... and the other side's batch longer
    ("...ij,...j->...i", [(2, 3, 4), (4,)]),                   # one side's ellipsis is empty
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 2)]),
    ("ii->i", [(3, 3)]),                                      # diagonal
    ("ii->", [(3, 3)]),                                       # trace
    ("iij,j->i", [(3, 3, 2), (2,)]),                          # diagonal of one operand, contracted
    ("iji,jk->ki", [(2, 3, 2), (3, 4)]),
    ("ij,jk->i", [(2, 3), (3, 4)]),                           # k summed away inside w
    ("ij,k->i", [(2, 3), (4,)]),                              # a label in one operand only, twice
    ("ij->ji", [(2, 3)]),
    ("ij->", [(2, 3)]),
    ("ij->j", [(2, 3)]),
    ("...ii->...i", [(2, 3, 3)]),
    ("ij,jk", [(2, 3), (3, 4)]),                              # implicit output: "ik"
    ("ii", [(3, 3)]),                                         # implicit trace
    ("ba", [(2, 3)]),                                         # implicit output "ab": a transpose
    ("...ij,jk", [(2, 2, 3), (3, 4)]),                        # implicit, the ellipsis first
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 2)]),               # three operands, contracted pairwise
]
IDS = [eq for eq, _ in CASES]


def draw(shapes, seed=0, dtype=np.float64):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(s).astype(dtype) for s in shapes]


def weights(eq, arrays, seed=1):
    return np.random.default_rng(seed).standard_normal(np.shape(np.einsum(eq, *arrays)))


def basis_grads(eq, arrays, c):
    """dL/dx for L = sum(einsum(eq, *arrays) * c), one basis array per element of each operand."""
    grads = []
    for i, a in enumerate(arrays):
        g = np.zeros_like(a)
        for idx in np.ndindex(a.shape):
            e = np.zeros_like(a)
            e[idx] = 1.0
            g[idx] = np.sum(np.einsum(eq, *(e if j == i else b for j, b in enumerate(arrays))) * c)
        grads.append(g)
    return grads


# The adjoint equations, written out by hand (c is dL/d(output)).
def _dense(x, w, c):
    return [c @ w.T, x.reshape(-1, x.shape[-1]).T @ c.reshape(-1, c.shape[-1])]


def _broadcast(x, w, c):
    dx = np.einsum("...ik,...jk->...ij", c, w)                 # (2, 5, 3, 4): sum the broadcast dim back
    dw = np.einsum("...ij,...ik->...jk", x, c)                 # (2, 5, 4, 2): sum the leading dim away
    return [dx.sum(axis=1, keepdims=True), dw.sum(axis=0)]


def _diag_contract(x, y, c):
    n = x.shape[0]
    dx = np.zeros_like(x)
    for a in range(n):
        dx[a, a, :] = c[a] * y                                   # only the diagonal of x was read
    return [dx, np.einsum("i,iij->j", c, x)]


def _summed_away(x, w, c):
    return [c[:, None] * w.sum(axis=1)[None, :], np.einsum("i,ij->j", c, x)[:, None] * np.ones(w.shape[1])]


HAND = {
    "...ij,jk->...ik": _dense,
    "...ij,...jk->...ik": _broadcast,
    "ii->i": lambda x, c: [np.diag(c)],
    "ii->": lambda x, c: [c * np.eye(x.shape[0])],
    "iij,j->i": _diag_contract,
    "ij,jk->i": _summed_away,
    "ij->ji": lambda x, c: [c.T],
    "ij->": lambda x, c: [np.full(x.shape, c)],
    "ij->j": lambda x, c: [np.broadcast_to(c, x.shape)],
    "...ii->...i": lambda x, c: [c[..., :, None] * np.eye(x.shape[-1])],
}


def tape_grads(eq, c):
    def grads(*xs):
        with tt.GradientTape() as tape:
            for x in xs:
                tape.watch(x)
            loss = tt.reduce_sum(tt.einsum(eq, *xs) * tt.constant(c))
        return tape.gradient(loss, list(xs))
    return grads


MODES = {"eager": lambda f: f, "graph": tt.function, "xla": lambda f: tt.function(f, jit_compile=True)}


@pytest.mark.parametrize("mode", list(MODES))
@pytest.mark.parametrize("eq,shapes", CASES, ids=IDS)
def test_tape_gradient_matches_basis_reference(eq, shapes, mode):
    arrays = draw(shapes)
    c = weights(eq, arrays)
    want = basis_grads(eq, arrays, c)
    got = MODES[mode](tape_grads(eq, c))(*(tt.constant(a) for a in arrays))
    assert len(got) == len(want)
    for g, w, a in zip(got, want, arrays):
        assert tuple(g.shape) == a.shape
        np.testing.assert_allclose(g.numpy(), w, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("mode", list(MODES))
@pytest.mark.parametrize("eq", list(HAND))
def test_tape_gradient_matches_hand_written_adjoint(eq, mode):
    shapes = dict(CASES)[eq]
    arrays = draw(shapes, seed=2)
    c = weights(eq, arrays, seed=3)
    want = HAND[eq](*arrays, c)
    got = MODES[mode](tape_grads(eq, c))(*(tt.constant(a) for a in arrays))
    for g, w in zip(got, want):
        np.testing.assert_allclose(g.numpy(), w, rtol=1e-10, atol=1e-12)


def test_dense_layer_float32_training_shapes():
    x, w = draw([(2, 3, 4, 5), (5, 6)], seed=5, dtype=np.float32)
    c = weights("...ij,jk->...ik", [x, w]).astype(np.float32)
    for mode in MODES.values():
        dx, dw = mode(tape_grads("...ij,jk->...ik", c))(tt.constant(x), tt.constant(w))
        assert dx.dtype == tt.float32 and dw.dtype == tt.float32
        want_dx, want_dw = _dense(x.astype(np.float64), w.astype(np.float64), c.astype(np.float64))
        np.testing.assert_allclose(dx.numpy(), want_dx, rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(dw.numpy(), want_dw, rtol=1e-5, atol=1e-5)


def test_inflating_output_forward_and_gradient():
    # "i->ii" (a label repeated in the output) is what TensorFlow's Einsum kernel fills diagonals with
    x = np.array([1.0, -2.0, 3.0])
    c = np.random.default_rng(0).standard_normal((3, 3))
    for mode in MODES.values():
        np.testing.assert_array_equal(mode(lambda t: tt.einsum("i->ii", t))(tt.constant(x)).numpy(), np.diag(x))
        (dx,) = mode(tape_grads("i->ii", c))(tt.constant(x))
        np.testing.assert_allclose(dx.numpy(), np.diag(c), rtol=1e-12)
    y = np.arange(6.0).reshape(2, 3)
    want = np.zeros((2, 3, 2, 3))
    for i in range(2):
        for j in range(3):
            want[i, j, i, j] = y[i, j]
    np.testing.assert_array_equal(tt.einsum("ij->ijij", tt.constant(y)).numpy(), want)


@pytest.mark.parametrize("use_function", [False, True], ids=["eager", "graph"])
@pytest.mark.parametrize("eq,shapes", CASES, ids=IDS)
def test_tensorflow_checker_agrees(eq, shapes, use_function):
    arrays = draw(shapes, seed=4)
    c = tt.constant(weights(eq, arrays, seed=6))
    report = compare_numerical_and_autodiff_gradients(lambda *xs: tt.reduce_sum(tt.einsum(eq, *xs) * c), arrays,
                                                      use_function=use_function, abs_error=1e-6)
    assert all(r.checked for r in report.inputs)


def second_order(eq, c, v):
    """d/dw of sum(dL/dx · v): L is bilinear in (x, w), so this is dL/dw at x = v."""
    def fn(x, w):
        with tt.GradientTape() as outer:
            outer.watch(w)
            with tt.GradientTape() as inner:
                inner.watch(x)
                loss = tt.reduce_sum(tt.einsum(eq, x, w) * tt.constant(c))
            dx = inner.gradient(loss, x)
            proj = tt.reduce_sum(dx * tt.constant(v))
        return outer.gradient(proj, w)
    return fn


@pytest.mark.parametrize("mode", list(MODES))
@pytest.mark.parametrize("eq", ["...ij,...jk->...ik", "iij,j->i", "ij,jk->i", "a...b,...b->a..."])
def test_gradients_are_differentiable(eq, mode):
    shapes = dict(CASES)[eq]
    x, w = draw(shapes, seed=7)
    c = weights(eq, [x, w], seed=8)
    v = np.random.default_rng(9).standard_normal(x.shape)
    got = MODES[mode](second_order(eq, c, v))(tt.constant(x), tt.constant(w))
    np.testing.assert_allclose(got.numpy(), basis_grads(eq, [v, w], c)[1], rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("mode", list(MODES))
def test_diagonal_hessian_vector_product(mode):
    # L = sum(diag(x)^2 · c): dL/dx = diag(2 c · diag(x)), and d/dx sum(dL/dx · v) = diag(2 c · diag(v))
    x = np.random.default_rng(10).standard_normal((3, 3))
    v = np.random.default_rng(11).standard_normal((3, 3))
    c = np.array([0.5, -1.0, 2.0])

    def fn(x):
        with tt.GradientTape() as outer:
            outer.watch(x)
            with tt.GradientTape() as inner:
                inner.watch(x)
                loss = tt.reduce_sum(tt.square(tt.einsum("ii->i", x)) * tt.constant(c))
            proj = tt.reduce_sum(inner.gradient(loss, x) * tt.constant(v))
        return outer.gradient(proj, x)

    np.testing.assert_allclose(MODES[mode](fn)(tt.constant(x)).numpy(), np.diag(2 * c * np.diag(v)), rtol=1e-12)


def test_complex_gradient_is_taken_against_the_conjugates():
    # TensorFlow differentiates a complex einsum against the conjugates, as BatchMatMulV2's U @ W^H
    rng = np.random.default_rng(12)
    x = rng.standard_normal((2, 2, 3)) + 1j * rng.standard_normal((2, 2, 3))
    w = rng.standard_normal((2, 3, 4)) + 1j * rng.standard_normal((2, 3, 4))
    u = rng.standard_normal((2, 2, 4)) + 1j * rng.standard_normal((2, 2, 4))
    got, want = [], []
    for f, out in ((lambda a, b: tt.einsum("bij,bjk->bik", a, b), got), (tt.matmul, want)):
        xt, wt = tt.constant(x), tt.constant(w)
        with tt.GradientTape() as tape:
            tape.watch([xt, wt])
            y = f(xt, wt)
        out.extend(g.numpy() for g in tape.gradient(y, [xt, wt], output_gradients=tt.constant(u)))
    np.testing.assert_allclose(got[0], u @ w.conj().swapaxes(1, 2), rtol=1e-12)
    np.testing.assert_allclose(got[1], x.conj().swapaxes(1, 2) @ u, rtol=1e-12)
    for g, m in zip(got, want):
        np.testing.assert_allclose(g, m, rtol=1e-12)


def test_implicit_output_follows_tensorflow():
    a, b = draw([(2, 2, 3), (2, 3, 4)])
    # "...ij,jk": the ellipsis occurs once, so the output is "...ik"
    np.testing.assert_allclose(tt.einsum("...ij,jk", tt.constant(a), tt.constant(b[0])).numpy(),
                               np.einsum("...ij,jk->...ik", a, b[0]), rtol=1e-12)
    # labels sort as ASCII (upper case first), and a label repeated anywhere is summed
    np.testing.assert_allclose(tt.einsum("bA,Ab", tt.constant(a[0]), tt.constant(b[0, :, :2])).numpy(),
                               np.einsum("bA,Ab->", a[0], b[0, :, :2]), rtol=1e-12)
    # TensorFlow counts "..." like a label: in both inputs it is not in the implicit output, and batch
    # dims without an output ellipsis are an error (numpy would keep them)
    with pytest.raises(InvalidArgumentError, match="broadcasting dimension"):
        tt.einsum("...ij,...jk", tt.constant(a), tt.constant(b))
    m = draw([(3, 4), (4, 5)])
    np.testing.assert_allclose(tt.einsum("...ij,...jk", *(tt.constant(t) for t in m)).numpy(), m[0] @ m[1],
                               rtol=1e-12)


def test_three_operands_match_numpy_in_every_mode():
    arrays = draw([(2, 3, 4), (4, 5), (1, 3, 5)], seed=13)
    want = np.einsum("...ij,jk,...ik->...", *arrays)
    for mode in MODES.values():
        got = mode(lambda a, b, c: tt.einsum("...ij,jk,...ik->...", a, b, c))(*(tt.constant(t) for t in arrays))
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-12)
