"""The tf.math families of issue 18 (trigonometry, special functions, xlogy & co., bitwise, cumulative,
segments, sorting, matrix structure): values against numpy / scipy references and TensorFlow's documented
values, in eager and graph mode. (Gradients: tests/unit/test_gradients_spec.py; XLA:
tests/unit/test_xla_ops.py.)"""
from __future__ import annotations

import numpy as np
import pytest
import scipy.special as sp

import tinytf as tt
from tinytf.errors import InvalidArgumentError

RNG = np.random.default_rng(5)
X = RNG.uniform(-0.9, 0.9, (2, 3))
P = RNG.uniform(0.5, 3.0, (2, 3))
Q = RNG.uniform(0.5, 3.0, (2, 3))
U01 = RNG.uniform(0.05, 0.95, (2, 3))
I = np.array([[-7, -3, 0, 3, 7, 9]], np.int32)
J = np.array([[2, -2, 3, 2, -3, 4]], np.int32)
m, la = tt.math, tt.linalg

CASES = {
    # trigonometry and hyperbolic functions
    "tan": (m.tan, [X], np.tan(X)), "asin": (m.asin, [X], np.arcsin(X)), "acos": (m.acos, [X], np.arccos(X)),
    "atan": (m.atan, [X], np.arctan(X)), "sinh": (m.sinh, [X], np.sinh(X)), "cosh": (m.cosh, [X], np.cosh(X)),
    "asinh": (m.asinh, [X], np.arcsinh(X)), "acosh": (m.acosh, [P + 1], np.arccosh(P + 1)),
    "atanh": (m.atanh, [X], np.arctanh(X)), "expm1": (m.expm1, [X], np.expm1(X)),
    "atan2": (m.atan2, [X, X[::-1]], np.arctan2(X, X[::-1])),          # atan2(y, x)
    # special functions
    "lgamma": (m.lgamma, [P], sp.gammaln(P)), "digamma": (m.digamma, [P], sp.digamma(P)),
    "polygamma": (m.polygamma, [np.array([[1.0, 2.0, 0.0], [3.0, 1.0, 0.5]]), P],
                  np.where([[True] * 3, [True, True, False]], sp.polygamma(np.array([[1, 2, 0], [3, 1, 0]]), P), np.nan)),
    "zeta": (m.zeta, [P + 1, Q], sp.zeta(P + 1, Q)), "erfinv": (m.erfinv, [X], sp.erfinv(X)),
    "erfcinv": (m.erfcinv, [U01 * 2], sp.erfcinv(U01 * 2)), "ndtri": (m.ndtri, [U01], sp.ndtri(U01)),
    "bessel_i0": (m.bessel_i0, [X * 3], sp.i0(X * 3)), "bessel_i1": (m.bessel_i1, [X * 3], sp.i1(X * 3)),
    "bessel_i0e": (m.bessel_i0e, [X * 3], sp.i0e(X * 3)), "bessel_i1e": (m.bessel_i1e, [X * 3], sp.i1e(X * 3)),
    "igamma": (m.igamma, [P, Q], sp.gammainc(P, Q)), "igammac": (m.igammac, [P, Q], sp.gammaincc(P, Q)),
    "betainc": (m.betainc, [P, Q, U01], sp.betainc(P, Q, U01)),
    "lbeta": (m.lbeta, [P], sp.gammaln(P).sum(-1) - sp.gammaln(P.sum(-1))),
    # binary arithmetic
    "xlogy": (m.xlogy, [np.array([0.0, 2.0, 0.0]), np.array([0.0, 3.0, 5.0])], [0.0, 2 * np.log(3.0), 0.0]),
    "xdivy": (m.xdivy, [np.array([0.0, 2.0]), np.array([0.0, 4.0])], [0.0, 0.5]),
    "xlog1py": (m.xlog1py, [np.array([0.0, 2.0]), np.array([-1.0, 3.0])], [0.0, 2 * np.log1p(3.0)]),
    "multiply_no_nan": (m.multiply_no_nan, [np.array([np.inf, np.nan, 2.0]), np.array([0.0, 0.0, 3.0])], [0.0, 0.0, 6.0]),
    "reciprocal_no_nan": (m.reciprocal_no_nan, [np.array([0.0, 4.0])], [0.0, 0.25]),
    "truncatediv": (m.truncatediv, [I, J], np.trunc(I / J).astype(np.int32)),
    "truncatemod": (m.truncatemod, [I, J], np.fmod(I, J)),
    "nextafter": (m.nextafter, [np.array([1.0, 1.0]), np.array([2.0, 0.0])], np.nextafter([1.0, 1.0], [2.0, 0.0])),
    "is_inf": (m.is_inf, [np.array([np.inf, -np.inf, np.nan, 1.0])], [True, True, False, False]),
    "rint": (m.rint, [np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.6])], [-2.0, -2.0, -0.0, 0.0, 2.0, 3.0]),  # TF's doc
    "scalar_mul": (m.scalar_mul, [2.0, X], 2 * X),
    "logical_xor": (m.logical_xor, [np.array([True, True, False]), np.array([True, False, False])], [False, True, False]),
    # bitwise (two's complement)
    "bitwise_and": (tt.bitwise.bitwise_and, [I, J], I & J), "bitwise_or": (tt.bitwise.bitwise_or, [I, J], I | J),
    "bitwise_xor": (tt.bitwise.bitwise_xor, [I, J], I ^ J), "invert": (tt.bitwise.invert, [I], ~I),
    "left_shift": (tt.bitwise.left_shift, [I, np.abs(J)], I << np.abs(J)),
    "right_shift": (tt.bitwise.right_shift, [I, np.abs(J)], I >> np.abs(J)),
    "population_count": (tt.raw_ops.PopulationCount, {"x": I},
                         np.array([[bin(int(v) & 0xFFFFFFFF).count("1") for v in I[0]]], np.uint8)),
    # cumulative
    "cumprod": (lambda x: m.cumprod(x, axis=1), [P], np.cumprod(P, 1)),
    "cumprod-exclusive-reverse": (lambda x: m.cumprod(x, axis=1, exclusive=True, reverse=True), [P],
                                  np.concatenate([np.cumprod(P[:, ::-1], 1)[:, ::-1][:, 1:], np.ones((2, 1))], 1)),
    "cumulative_logsumexp": (lambda x: m.cumulative_logsumexp(x, axis=1), [P], np.logaddexp.accumulate(P, 1)),
    # segments
    "segment_sum": (m.segment_sum, [P, np.array([0, 0])], P.sum(0, keepdims=True)),
    "segment_max": (m.segment_max, [Q.T, np.array([0, 0, 2])],
                    np.stack([Q.T[:2].max(0), np.zeros(2), Q.T[2]])),  # TensorFlow's doc: an empty segment is 0
    "segment_mean": (m.segment_mean, [Q.T, np.array([0, 1, 1])], np.stack([Q.T[0], Q.T[1:].mean(0)])),
    "segment_prod": (m.segment_prod, [Q.T, np.array([1, 1, 1])], np.stack([np.ones(2), Q.T.prod(0)])),
    "segment_min": (m.segment_min, [Q.T, np.array([0, 1, 1])], np.stack([Q.T[0], Q.T[1:].min(0)])),
    "unsorted_segment_max": (m.unsorted_segment_max, [Q.T, np.array([1, 0, 1]), 3],
                             np.stack([Q.T[1], np.maximum(Q.T[0], Q.T[2]), np.full(2, np.finfo(np.float64).min)])),
    "unsorted_segment_min": (m.unsorted_segment_min, [Q.T, np.array([1, 0, 1]), 2],
                             np.stack([Q.T[1], np.minimum(Q.T[0], Q.T[2])])),
    "unsorted_segment_prod": (m.unsorted_segment_prod, [Q.T, np.array([1, 0, 1]), 2], np.stack([Q.T[1], Q.T[0] * Q.T[2]])),
    "unsorted_segment_mean": (m.unsorted_segment_mean, [Q.T, np.array([1, 0, 1]), 2],
                              np.stack([Q.T[1], (Q.T[0] + Q.T[2]) / 2])),
    "unsorted_segment_sqrt_n": (m.unsorted_segment_sqrt_n, [Q.T, np.array([1, 0, 1]), 2],
                                np.stack([Q.T[1], (Q.T[0] + Q.T[2]) / np.sqrt(2)])),
    # sorting
    "sort": (lambda x: tt.sort(x, direction="DESCENDING"), [X], -np.sort(-X, -1)),
    "argsort": (lambda x: tt.argsort(x), [X], np.argsort(X, -1)),
    "searchsorted": (lambda s, v: tt.searchsorted(s, v, side="right"), [np.array([[0.0, 1.0, 1.0, 3.0]]),
                                                                       np.array([[1.0, -1.0, 4.0]])], [[3, 0, 4]]),
    "in_top_k": (lambda p: m.in_top_k(tt.constant([2, 0]), p, 2), [X.astype(np.float32)],
                 [2 in np.argsort(-X[0])[:2], 0 in np.argsort(-X[1])[:2]]),
    # matrix structure
    "band_part": (lambda x: la.band_part(x, 1, 0), [Q], np.tril(np.triu(Q, -1), 0)),
    "diag": (la.diag, [X], np.stack([np.diag(r) for r in X])),
    "diag_part": (la.diag_part, [Q.reshape(1, 2, 3)], [np.diag(Q)]),
    "set_diag": (la.set_diag, [Q, np.array([7.0, 8.0])], np.where(np.eye(2, 3, dtype=bool), [[7.0], [8.0]], Q)),
    "matrix_transpose": (la.matrix_transpose, [Q.reshape(1, 2, 3)], Q.T.reshape(1, 3, 2)),
    "trace": (la.trace, [Q.reshape(1, 2, 3)[:, :, :2]], [np.trace(Q[:, :2])]),
    "cross": (la.cross, [Q, P], np.cross(Q, P)),
}


@pytest.mark.parametrize("use_function", [False, True], ids=["eager", "graph"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_values_match_the_references(name, use_function):
    fn, args, want = CASES[name]
    if isinstance(args, dict):
        got = fn(**{k: tt.constant(v) for k, v in args.items()})
    else:
        tensors = [tt.constant(a) if isinstance(a, np.ndarray) else a for a in args]
        if use_function:
            arrays = [i for i, a in enumerate(tensors) if hasattr(a, "numpy")]

            def traced(*xs):
                full = list(tensors)
                for i, x in zip(arrays, xs):
                    full[i] = x
                return fn(*full)
            got = tt.function(traced)(*[tensors[i] for i in arrays])
        else:
            got = fn(*tensors)
    got = np.asarray(got.numpy())
    want = np.asarray(want)
    if want.dtype.kind in "fc":
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)
    else:
        np.testing.assert_array_equal(got, want)


def test_float32_close_to_float64():
    for name in ("lgamma", "digamma", "erfinv", "ndtri", "igamma", "betainc", "bessel_i1e", "zeta"):
        fn, args, want = CASES[name]
        got = fn(*[tt.constant(np.asarray(a, np.float32)) for a in args])
        assert got.dtype == tt.float32
        np.testing.assert_allclose(got.numpy(), want, rtol=2e-5, atol=1e-6, err_msg=name)


def test_top_k_unique_and_errors():
    v, i = m.top_k(tt.constant([[1.0, 5.0, 3.0, 4.0]]), 2)
    np.testing.assert_array_equal(v.numpy(), [[5.0, 4.0]])
    np.testing.assert_array_equal(i.numpy(), [[1, 3]])
    y, idx = tt.unique(tt.constant([1, 1, 2, 4, 4, 4, 7, 8, 8]))     # TensorFlow's documented example
    np.testing.assert_array_equal(y.numpy(), [1, 2, 4, 7, 8])
    np.testing.assert_array_equal(idx.numpy(), [0, 0, 1, 2, 2, 2, 3, 4, 4])
    y, idx, count = tt.unique_with_counts(tt.constant([1, 1, 2, 4, 4, 4, 7, 8, 8]))
    np.testing.assert_array_equal(count.numpy(), [2, 1, 3, 1, 2])
    with pytest.raises(InvalidArgumentError):
        m.top_k(tt.constant([1.0, 2.0]), 3)
    with pytest.raises(InvalidArgumentError):
        m.segment_sum(tt.constant([1.0, 2.0]), tt.constant([1, 0]))   # segment ids must be sorted
    with pytest.raises(InvalidArgumentError):
        la.cross(tt.constant([1.0, 2.0]), tt.constant([1.0, 2.0]))


def test_raw_ops_take_tensorflows_operand_names():
    r = tt.raw_ops
    one, two = tt.constant([1.0]), tt.constant([2.0])
    np.testing.assert_allclose(r.Atan2(y=one, x=two).numpy(), np.arctan2(1.0, 2.0))        # Atan2(y, x)
    np.testing.assert_allclose(r.Igamma(a=two, x=one).numpy(), sp.gammainc(2.0, 1.0))
    np.testing.assert_allclose(r.Igammac(a=two, x=one).numpy(), sp.gammaincc(2.0, 1.0))
    np.testing.assert_allclose(r.Polygamma(a=one, x=two).numpy(), sp.polygamma(1, 2.0))
    np.testing.assert_allclose(r.Zeta(x=two, q=one).numpy(), sp.zeta(2.0, 1.0))
    np.testing.assert_array_equal(r.NextAfter(x1=one, x2=two).numpy(), np.nextafter(np.float32(1), np.float32(2)))
    np.testing.assert_allclose(r.Betainc(a=two, b=two, x=tt.constant([0.5])).numpy(), 0.5)
    np.testing.assert_allclose(r.MatrixSolve(matrix=tt.constant([[2.0]]), rhs=tt.constant([[4.0]]), adjoint=False).numpy(),
                               [[2.0]])
