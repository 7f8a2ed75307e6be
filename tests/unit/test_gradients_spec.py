"""Every gradient rule of the op library, checked numerically from one spec table.

Each entry names a registered op, its operands (differentiable inputs drawn from a domain that
keeps the finite differences away from kinks, ties and poles; constant operands such as axes,
shapes and indices baked into the model) and its attributes. Each is checked

- with TensorFlow's checker (``compare_numerical_and_autodiff_gradients``) in eager and graph mode,
  float32 at TensorFlow's ``abs_error=1e-2`` and float64 at 1e-6;
- with the vectorised ``check_gradients`` in full and fast mode (which also runs every op through
  the batched evaluator's rules), and in full mode under XLA (the model lowered and vmapped).

Every output takes part: the model returns Σₖ sum(outₖ · wₖ) with fixed random weights wₖ (of
norm about 1, so float32 round-off stays below TensorFlow's abs_error), so a
rule that is wrong only for some output, or only up to a permutation, is caught. A registry walk
checks that every tf.* op has a gradient or is NotDifferentiable, and that every differentiable
op has an entry here (or is in CONTROL_FLOW, whose callees need a module).
"""
from __future__ import annotations

import numpy as np
import pytest

import tinytf as tt
from tinytf import gradcheck as gc
from tinytf.framework.op import REGISTRY, NoGradient, NotDifferentiable, calls_functions, has_trait

# --- operand kinds ------------------------------------------------------------------------------


class U:
    """A differentiable input, uniform in [lo, hi], at least ``gap`` away from each of ``away``."""

    def __init__(self, shape, lo=-2.0, hi=2.0, away=(), gap=0.15):
        self.shape, self.lo, self.hi, self.away, self.gap = tuple(shape), lo, hi, away, gap

    def draw(self, rng, dtype):
        x = rng.uniform(self.lo, self.hi, self.shape)
        away = [(a, self.gap) for a in self.away]
        if np.dtype(dtype) == np.float32 and self.lo < 0 < self.hi:
            # TensorFlow's ε = |θ|·1e-4 is tiny near 0, and float32 round-off over 2ε then
            # exceeds abs_error: keep float32 inputs at |θ| >= 0.3, as TF's own tests do
            away.append((0.0, 0.3))
        for _ in range(100):
            bad = np.zeros(x.shape, bool)
            for a, gap in away:
                bad |= np.abs(x - a) < gap
            if not bad.any():
                break
            x = np.where(bad, rng.uniform(self.lo, self.hi, self.shape), x)
        return np.asarray(x, dtype)


class D(U):
    """Distinct values at least 0.2 apart (max, min, max pooling: no ties)."""

    def draw(self, rng, dtype):
        n = int(np.prod(self.shape))
        return np.asarray(rng.permutation(np.linspace(-0.2 * n / 2, 0.2 * n / 2, n)).reshape(self.shape), dtype)


class FloorModX(U):
    """x = y·(k + f), f in [0.2, 0.8]: away from FloorMod's jumps for y drawn in [1, 2]."""

    def draw(self, rng, dtype):
        return np.asarray(rng.integers(-2, 3, self.shape) + rng.uniform(0.2, 0.8, self.shape), dtype)


class Probs(U):
    """Rows of probabilities (labels of a softmax cross entropy)."""

    def draw(self, rng, dtype):
        p = rng.uniform(0.1, 1.0, self.shape)
        return np.asarray(p / p.sum(axis=-1, keepdims=True), dtype)


class Dominant(U):
    """Diagonally dominant square matrices (well conditioned: solves and inverses stay accurate)."""

    def draw(self, rng, dtype):
        n = self.shape[-1]
        return np.asarray(rng.uniform(-1, 1, self.shape) + (n + 1) * np.eye(n), dtype)


class NearIdentity(U):
    """I plus small noise: determinants near 1, so float32 round-off stays below TensorFlow's abs_error."""

    def draw(self, rng, dtype):
        return np.asarray(rng.uniform(-0.3, 0.3, self.shape) + np.eye(self.shape[-1]), dtype)


class Spd(U):
    """Symmetric positive definite matrices (Cholesky's, SelfAdjointEigV2's inputs)."""

    def draw(self, rng, dtype):
        n = self.shape[-1]
        a = rng.uniform(-1, 1, self.shape)
        return np.asarray(a @ np.swapaxes(a, -1, -2) + n * np.eye(n), dtype)


class K:
    """A constant operand: an array (its dtype kept) or a function of the dtype."""

    def __init__(self, value):
        self.value = value

    def get(self, dtype):
        return self.value(dtype) if callable(self.value) else np.asarray(self.value)


def i32(*v):
    return K(np.asarray(v, np.int32))


def s32(v):
    return K(np.asarray(v, np.int32))      # a scalar (axis, split_dim, num_segments)


class Spec:
    def __init__(self, op, operands, attrs=None, id=None, scale=None):
        self.op, self.operands, self.attrs = op, operands, attrs or {}
        self.id = id or op.removeprefix("tf.")
        self.scale = scale   # (i, j): operand j is operand i scaled (FloorMod's x = y·(k+f))

    def attrs_for(self, dtype) -> dict:
        """The attributes; a spec may give them as a function of the checked dtype (IsotonicRegression's output_dtype)."""
        return self.attrs(dtype) if callable(self.attrs) else self.attrs


S = Spec
x23, x3, x34 = U((2, 3)), U((3,)), U((3, 4))
pos23 = U((2, 3), 0.5, 2.5)
nz23 = U((2, 3), away=(0.0,))


def _maxpool(attrs, shape):
    def orig_output(dtype):
        x = D(shape).draw(np.random.default_rng(7), dtype)
        return np.asarray(REGISTRY["tf.MaxPool"].bind(tt.constant(x), **attrs).numpy())
    return orig_output


def _maxpool3d(shape, output=False):
    """MaxPool3DGrad's orig_input (distinct values), or its orig_output (MaxPool3D of that input)."""
    def value(dtype):
        x = D(shape).draw(np.random.default_rng(7), dtype)
        return np.asarray(REGISTRY["tf.MaxPool3D"].bind(tt.constant(x), **POOL3D).numpy()) if output else x
    return value


POOL3D = dict(ksize=(1, 2, 2, 2, 1), strides=(1, 2, 2, 2, 1), padding="VALID")
POOL3D_SAME = dict(ksize=(1, 3, 2, 3, 1), strides=(1, 2, 2, 2, 1), padding="SAME")
CONV3D = dict(strides=(1, 1, 1, 1, 1), padding="VALID")
BN_MEAN, BN_VAR = K(lambda d: np.asarray([0.1, -0.2, 0.3], d)), K(lambda d: np.asarray([0.5, 1.5, 2.0], d))
BN_INFERENCE = dict(epsilon=1e-3, is_training=False)
POOL = dict(ksize=(1, 2, 2, 1), strides=(1, 2, 2, 1), padding="VALID")
POOL_SAME = dict(ksize=(1, 3, 3, 1), strides=(1, 2, 2, 1), padding="SAME")
CONV = dict(strides=(1, 1, 1, 1), padding="VALID")
CONV_SAME2 = dict(strides=(1, 2, 2, 1), padding="SAME")
# (convolutions are kept small: float32 round-off of a long sum over 2ε would exceed abs_error)

SPECS = [
    # elementwise, one operand
    S("tf.Abs", [nz23]), S("tf.Neg", [x23]), S("tf.Exp", [U((2, 3), -2, 1)]),
    S("tf.Log", [pos23]), S("tf.Log1p", [U((2, 3), -0.5, 2)]), S("tf.Sqrt", [pos23]), S("tf.Rsqrt", [pos23]),
    S("tf.Square", [x23]), S("tf.Sin", [x23]), S("tf.Cos", [x23]), S("tf.Tanh", [x23]), S("tf.Sigmoid", [x23]),
    S("tf.Erf", [x23]), S("tf.Erfc", [x23]), S("tf.Reciprocal", [U((2, 3), 0.5, 2)]),
    S("tf.Reciprocal", [U((2, 3), -2, -0.5)], id="Reciprocal-negative"), S("tf.Sign", [nz23]),
    S("tf.Relu", [nz23]), S("tf.Relu6", [U((2, 3), -2, 8, away=(0.0, 6.0))]), S("tf.Elu", [nz23]),
    S("tf.Selu", [nz23]), S("tf.Softplus", [x23]), S("tf.LeakyRelu", [nz23], {"alpha": 0.3}),
    S("tf.Identity", [x23]), S("tf.Cast", [x23], {"DstT": tt.float64}),
    S("tf.EnsureShape", [x23], {"shape": (2, None)}),
    # gradient ops (their own gradients give second derivatives)
    S("tf.TanhGrad", [U((2, 3), -0.9, 0.9), x23]), S("tf.SigmoidGrad", [U((2, 3), 0.1, 0.9), x23]),
    S("tf.SqrtGrad", [pos23, x23]), S("tf.RsqrtGrad", [pos23, x23]), S("tf.ReciprocalGrad", [pos23, x23]),
    S("tf.ReluGrad", [x23, nz23]), S("tf.Relu6Grad", [x23, U((2, 3), -2, 8, away=(0.0, 6.0))]),
    S("tf.EluGrad", [x23, U((2, 3), -0.9, 2, away=(0.0,))]), S("tf.SeluGrad", [x23, U((2, 3), -1.5, 2, away=(0.0,))]),
    S("tf.SoftplusGrad", [x23, x23]), S("tf.LeakyReluGrad", [x23, nz23], {"alpha": 0.3}),
    # elementwise, two operands, with broadcasting
    S("tf.Add", [x23, x3]), S("tf.AddV2", [x23, x3]), S("tf.AddV2", [U((2, 1)), U((1, 3))], id="AddV2-outer"),
    S("tf.Sub", [x23, U(())]), S("tf.Mul", [U((2, 1)), x23]), S("tf.Div", [x23, U((3,), 0.5, 2)]),
    S("tf.RealDiv", [x23, U((2, 3), -2, 2, away=(0.0,), gap=0.5)]), S("tf.DivNoNan", [x23, U((3,), 0.5, 2)]),
    S("tf.Maximum", [U((2, 3), 0, 1), U((2, 3), 1.2, 2)]), S("tf.Maximum", [U((2, 3), 1.2, 2), U((3,), 0, 1)],
                                                             id="Maximum-broadcast"),
    S("tf.Minimum", [U((2, 3), 0, 1), U((2, 3), 1.2, 2)]), S("tf.Pow", [U((2, 3), 0.5, 2), x3]),
    S("tf.SquaredDifference", [x23, x3]), S("tf.FloorMod", [FloorModX((2, 3)), U((2, 3), 1, 2)], scale=(1, 0)),
    S("tf.ClipByValue", [U((2, 3), away=(-1.0, 1.0)), K(lambda d: np.asarray(-1.0, d)), U((), 0.95, 1.05)]),
    S("tf.Select", [K(np.array([[True, False, True], [False, False, True]])), x23, x23]),
    S("tf.SelectV2", [K(np.array([True, False, True])), x23, U((1, 3))]),
    # linear algebra
    S("tf.MatMul", [U((2, 3)), U((3, 4))]), S("tf.MatMul", [U((3, 2)), U((3, 4))], {"transpose_a": True}, id="MatMul-ta"),
    S("tf.MatMul", [U((2, 3)), U((4, 3))], {"transpose_b": True}, id="MatMul-tb"),
    S("tf.MatMul", [U((3, 2)), U((4, 3))], {"transpose_a": True, "transpose_b": True}, id="MatMul-ta-tb"),
    S("tf.BatchMatMulV2", [U((2, 2, 3)), U((3, 4))]),
    S("tf.BatchMatMulV2", [U((2, 3, 2)), U((1, 4, 3))], {"adj_x": True, "adj_y": True}, id="BatchMatMulV2-adj"),
    S("tf.BatchMatMul", [U((2, 3, 2)), U((2, 4, 3))], {"adj_x": True, "adj_y": True}),
    S("tf.DynamicStitch", [K(np.array([[0, 3], [4, 1]], np.int32)), K(np.int32(2)), U((2, 2, 3)), U((3,))]),
    S("tf.Einsum", [U((2, 3)), U((3, 4))], {"equation": "ij,jk->ik"}),
    S("tf.Einsum", [U((2, 2, 3)), U((2, 3))], {"equation": "bij,bj->bi"}, id="Einsum-batch"),
    S("tf.Einsum", [U((2, 2, 2, 3)), U((3, 2))], {"equation": "...ij,jk->...ik"}, id="Einsum-ellipsis-dense"),
    S("tf.Einsum", [U((2, 1, 2, 3)), U((3, 3, 2))], {"equation": "...ij,...jk->...ik"},
      id="Einsum-ellipsis-broadcast"),
    S("tf.Einsum", [U((3, 3))], {"equation": "ii->i"}, id="Einsum-diagonal"),
    S("tf.Einsum", [U((3, 3))], {"equation": "ii->"}, id="Einsum-trace"),
    S("tf.Einsum", [U((2, 2, 3)), U((3,))], {"equation": "iij,j->i"}, id="Einsum-diagonal-contract"),
    S("tf.Einsum", [U((2, 3)), U((3, 2))], {"equation": "ij,jk->i"}, id="Einsum-summed-away"),
    S("tf.Einsum", [U((2, 3))], {"equation": "ij->ji"}, id="Einsum-transpose"),
    S("tf.Einsum", [U((2, 3))], {"equation": "ij->"}, id="Einsum-sum-all"),
    S("tf.Einsum", [U((2, 3))], {"equation": "ij->j"}, id="Einsum-sum-axis"),
    S("tf.Einsum", [U((2, 3, 3))], {"equation": "...ii->...i"}, id="Einsum-batch-diagonal"),
    S("tf.Einsum", [U((3,))], {"equation": "i->ii"}, id="Einsum-inflate"),
    S("tf.BiasAdd", [x23, x3]), S("tf.BiasAdd", [U((2, 3, 2, 2)), x3], {"data_format": "NCHW"}, id="BiasAdd-NCHW"),
    S("tf.BiasAddGrad", [U((2, 2, 3))]),
    # reductions and scans
    S("tf.Sum", [x23, i32(1)]), S("tf.Sum", [U((2, 3, 2)), i32(0, -1)], {"keep_dims": True}, id="Sum-keepdims"),
    S("tf.Mean", [x23, i32(0)]), S("tf.Prod", [U((2, 3), 0.5, 1.5), i32(1)]),
    S("tf.Prod", [U((2, 3), away=(0.0,), gap=0.3), i32(0, 1)], id="Prod-all"),
    S("tf.Max", [D((2, 3)), i32(1)]), S("tf.Min", [D((2, 3)), i32(0)], {"keep_dims": True}),
    S("tf.Cumsum", [x23, s32(1)]), S("tf.Cumsum", [x23, s32(0)], {"exclusive": True, "reverse": True},
                                     id="Cumsum-exclusive-reverse"),
    # shapes and data movement
    S("tf.Reshape", [x23, i32(3, 2)]), S("tf.Transpose", [U((2, 3, 2)), i32(2, 0, 1)]),
    S("tf.ConjugateTranspose", [U((2, 3, 2)), i32(1, 2, 0)]),  # (real: the checker's dtypes)
    S("tf.ExpandDims", [x23, i32(1)]), S("tf.Squeeze", [U((2, 1, 3))], {"squeeze_dims": (1,)}),
    S("tf.BroadcastTo", [U((1, 3)), i32(2, 3)]), S("tf.Tile", [x23, i32(2, 1)]),
    S("tf.Fill", [i32(2, 3), U(())]), S("tf.IdentityN", [x23, x3]), S("tf.AddN", [x23, x23, U((2, 3))]),
    S("tf.ReverseV2", [U((2, 3, 2)), i32(0, -1)]),
    S("tf.Pack", [x23, x23], {"axis": 1}), S("tf.Unpack", [U((2, 3))], {"num": 2, "axis": 0}),
    S("tf.ConcatV2", [x23, U((2, 2)), s32(1)]), S("tf.ConcatV2", [x23, U((1, 3)), s32(-2)], id="ConcatV2-neg"),
    S("tf.Concat", [s32(0), x23, U((1, 3))]),
    S("tf.Split", [s32(1), U((2, 4))], {"num_split": 2}), S("tf.SplitV", [U((2, 5)), i32(2, 3), s32(1)],
                                                            {"num_split": 2}),
    # the SPMD path's ops (tinytf/ops/xla_spmd.py): on one device an identity, and a split / concat into pieces
    S("tf.XlaSharding", [x23], {"sharding": "{devices=[1,1]0}"}),
    S("tf.XlaSplitND", [U((4, 6))], {"num_splits": (2, 3), "N": 6}),
    S("tf.XlaSplitND", [U((3, 4))], {"num_splits": (2, 1), "paddings": (1, 0), "N": 2}, id="XlaSplitND-padded"),
    S("tf.XlaConcatND", [x23, x23, x23, x23], {"num_concats": (2, 2)}),
    S("tf.XlaConcatND", [x23, x23], {"num_concats": (2, 1), "paddings": (1, 0)}, id="XlaConcatND-padded"),
    S("tf.Slice", [x34, i32(1, 0), i32(2, 3)]), S("tf.Pad", [x23, K(np.array([[1, 0], [0, 2]], np.int32))]),
    S("tf.PadV2", [x23, K(np.array([[1, 0], [0, 2]], np.int32)), U(())]),
    S("tf.MirrorPad", [U((3, 4)), K(np.array([[2, 1], [0, 3]], np.int32))], {"mode": "REFLECT"}),
    S("tf.MirrorPad", [U((3, 4)), K(np.array([[1, 3], [2, 0]], np.int32))], {"mode": "SYMMETRIC"},
      id="MirrorPad-symmetric"),
    S("tf.MirrorPadGrad", [U((6, 7)), K(np.array([[2, 1], [0, 3]], np.int32))], {"mode": "REFLECT"}),
    S("tf.StridedSlice", [x34, i32(0, 1), i32(3, 4), i32(2, 1)]),
    S("tf.StridedSlice", [x34, i32(1, 0), i32(2, 4), i32(1, -1)], {"shrink_axis_mask": 1, "end_mask": 2},
      id="StridedSlice-shrink-reverse"),
    S("tf.StridedSliceGrad", [i32(3, 4), i32(0, 1), i32(3, 4), i32(2, 1), U((2, 3))]),
    S("tf.GatherV2", [x34, i32(2, 0, 2), s32(0)]), S("tf.GatherV2", [x34, i32(3, 1), s32(1)], id="GatherV2-axis1"),
    S("tf.GatherV2", [U((2, 3, 2)), K(np.array([[2, 0], [1, 1]], np.int32)), s32(1)], {"batch_dims": 1},
      id="GatherV2-batch-dims"),
    S("tf.UnsortedSegmentSum", [U((4, 3)), i32(0, 2, 0, 1), s32(3)]),
    S("tf.TensorScatterUpdate", [x34, K(np.array([[2], [0]], np.int32)), U((2, 4))]),
    S("tf.TensorScatterUpdate", [U((3, 2, 2)), K(np.array([[2, 1], [0, 0]], np.int32)), U((2, 2))],
      id="TensorScatterUpdate-depth2"),
    # neural networks
    S("tf.Softmax", [U((2, 4))]), S("tf.LogSoftmax", [U((2, 4))]),
    S("tf.SoftmaxCrossEntropyWithLogits", [U((3, 4)), Probs((3, 4))]),
    S("tf.SparseSoftmaxCrossEntropyWithLogits", [U((3, 4)), i32(1, 3, 0)]),
    S("tf.Conv2D", [U((1, 3, 3, 2)), U((2, 2, 2, 3))], CONV),
    S("tf.Conv2D", [U((1, 5, 5, 2)), U((2, 2, 2, 2))], CONV_SAME2, id="Conv2D-same-stride2"),
    S("tf.Conv2DBackpropInput", [i32(1, 3, 3, 2), U((2, 2, 2, 3)), U((1, 2, 2, 3))], CONV),
    S("tf.Conv2DBackpropFilter", [U((1, 3, 3, 2)), i32(2, 2, 2, 3), U((1, 2, 2, 3))], CONV),
    S("tf.DepthwiseConv2dNative", [U((1, 3, 3, 2)), U((2, 2, 2, 2))], CONV),
    S("tf.DepthwiseConv2dNativeBackpropInput", [i32(1, 3, 3, 2), U((2, 2, 2, 2)), U((1, 2, 2, 4))], CONV),
    S("tf.DepthwiseConv2dNativeBackpropFilter", [U((1, 3, 3, 2)), i32(2, 2, 2, 2), U((1, 2, 2, 4))], CONV),
    S("tf.MaxPool", [D((1, 4, 4, 2))], POOL), S("tf.MaxPool", [D((1, 5, 5, 1))], POOL_SAME, id="MaxPool-same"),
    S("tf.MaxPoolGrad", [K(lambda d: D((1, 4, 4, 2)).draw(np.random.default_rng(7), d)),
                         K(_maxpool(POOL, (1, 4, 4, 2))), U((1, 2, 2, 2))], POOL),
    S("tf.MaxPoolGradGrad", [K(lambda d: D((1, 4, 4, 2)).draw(np.random.default_rng(7), d)),
                             K(_maxpool(POOL, (1, 4, 4, 2))), U((1, 4, 4, 2))], POOL),
    S("tf.AvgPool", [U((1, 4, 4, 2))], POOL), S("tf.AvgPool", [U((1, 5, 5, 1))], POOL_SAME, id="AvgPool-same"),
    S("tf.AvgPoolGrad", [i32(1, 4, 4, 2), U((1, 2, 2, 2))], POOL),
    # trigonometry and hyperbolic functions
    S("tf.Tan", [U((2, 3), -1.2, 1.2)]), S("tf.Asin", [U((2, 3), -0.9, 0.9)]), S("tf.Acos", [U((2, 3), -0.9, 0.9)]),
    S("tf.Atan", [x23]), S("tf.Atan2", [x23, U((2, 3), away=(0.0,))]), S("tf.Sinh", [x23]), S("tf.Cosh", [x23]),
    S("tf.Asinh", [x23]), S("tf.Acosh", [U((2, 3), 1.2, 3)]), S("tf.Atanh", [U((2, 3), -0.9, 0.9)]),
    S("tf.Expm1", [U((2, 3), -2, 1)]),
    # special functions (scipy's values; TensorFlow's gradients: none in Betainc's a and b, Zeta's x, Polygamma's n)
    S("tf.Lgamma", [U((2, 3), 0.5, 4)]), S("tf.Digamma", [U((2, 3), 0.5, 4)]), S("tf.Erfinv", [U((2, 3), -0.8, 0.8)]),
    S("tf.Ndtri", [U((2, 3), 0.1, 0.9)]), S("tf.BesselI0", [x23]), S("tf.BesselI0e", [nz23]), S("tf.BesselI1", [x23]),
    S("tf.BesselI1e", [nz23]), S("tf.Igamma", [U((2, 3), 0.8, 3), U((2, 3), 0.5, 3)]),
    S("tf.Igammac", [U((2, 3), 0.8, 3), U((2, 3), 0.5, 3)]),
    S("tf.Betainc", [U((2, 3), 0.8, 2), U((2, 3), 0.8, 2), U((2, 3), 0.2, 0.8)]),
    S("tf.Polygamma", [K(lambda d: np.asarray([[1.0, 2.0, 1.0], [0.0, 1.0, 3.0]], d)), U((2, 3), 0.8, 3)]),
    S("tf.Zeta", [K(lambda d: np.asarray([[2.0, 3.0, 2.5], [4.0, 2.0, 3.0]], d)), U((2, 3), 0.8, 3)]),
    # binary arithmetic
    S("tf.Xlogy", [x23, U((2, 3), 0.5, 2)]), S("tf.Xlog1py", [x23, U((2, 3), -0.5, 2)]),
    S("tf.Xdivy", [x23, U((3,), 0.5, 2)]), S("tf.MulNoNan", [x23, U((3,))]), S("tf.NextAfter", [x23, U((2, 3))]),
    # cumulative
    S("tf.Cumprod", [U((2, 3), 0.5, 1.5), s32(1)]),
    S("tf.Cumprod", [U((2, 3), 0.5, 1.5), s32(0)], {"exclusive": True, "reverse": True}, id="Cumprod-exclusive-reverse"),
    S("tf.CumulativeLogsumexp", [x23, s32(1)]),
    S("tf.CumulativeLogsumexp", [x23, s32(1)], {"reverse": True}, id="CumulativeLogsumexp-reverse"),
    # segments (distinct values: no ties in max / min)
    S("tf.SegmentSum", [U((4, 3)), i32(0, 0, 1, 2)]), S("tf.SegmentMean", [U((4, 3)), i32(0, 0, 1, 1)]),
    S("tf.SegmentProd", [U((4, 3), 0.5, 1.5), i32(0, 1, 1, 1)]), S("tf.SegmentMax", [D((4, 3)), i32(0, 0, 1, 2)]),
    S("tf.SegmentMin", [D((4, 3)), i32(0, 1, 1, 2)]),
    S("tf.UnsortedSegmentMax", [D((4, 3)), i32(1, 0, 1, 2), s32(3)]),
    S("tf.UnsortedSegmentMin", [D((4, 3)), i32(2, 0, 1, 0), s32(3)]),
    S("tf.UnsortedSegmentProd", [U((4, 3), 0.5, 1.5), i32(1, 0, 1, 2), s32(3)]),
    # sorting
    S("tf.TopKV2", [D((2, 5)), s32(3)]),
    # matrix structure
    S("tf.Cross", [U((2, 3)), U((2, 3))]),
    S("tf.MatrixBandPart", [U((3, 4)), K(np.int64(1)), K(np.int64(0))]),
    S("tf.MatrixDiagPartV3", [U((3, 4)), s32(0), K(lambda d: np.asarray(0, d))]),
    S("tf.MatrixDiagPartV3", [U((2, 3, 4)), i32(-1, 1), K(lambda d: np.asarray(0, d))], {"align": "LEFT_RIGHT"},
      id="MatrixDiagPartV3-band"),
    S("tf.MatrixDiagV3", [U((3,)), s32(0), s32(-1), s32(-1), K(lambda d: np.asarray(0, d))]),
    S("tf.MatrixDiagV3", [U((2, 3)), i32(-1, 0), s32(-1), s32(-1), K(lambda d: np.asarray(0, d))],
      id="MatrixDiagV3-band"),
    S("tf.MatrixSetDiagV3", [U((3, 4)), U((3,)), s32(0)]),
    # decompositions (Cholesky, SelfAdjointEigV2 and Eig: symmetric or complex, test_linalg_decompositions.py)
    S("tf.Qr", [U((4, 3))]), S("tf.Qr", [U((3, 3))], {"full_matrices": True}, id="Qr-full"),
    S("tf.Svd", [U((3, 2))]), S("tf.Svd", [U((3, 3))], {"compute_uv": False}, id="Svd-values"),
    # solves
    S("tf.MatrixSolve", [Dominant((3, 3)), U((3, 2))]),
    S("tf.MatrixSolve", [Dominant((2, 3, 3)), U((2, 3, 1))], {"adjoint": True}, id="MatrixSolve-adjoint-batch"),
    S("tf.MatrixInverse", [Dominant((3, 3))]),
    S("tf.MatrixInverse", [Dominant((2, 2, 2))], {"adjoint": True}, id="MatrixInverse-adjoint-batch"),
    S("tf.MatrixDeterminant", [NearIdentity((3, 3))]),
    S("tf.MatrixDeterminant", [NearIdentity((2, 2, 2))], id="MatrixDeterminant-batch"),
    S("tf.LogMatrixDeterminant", [NearIdentity((3, 3))]),
    S("tf.LogMatrixDeterminant", [NearIdentity((2, 3, 3))], id="LogMatrixDeterminant-batch"),
    # debugging
    S("tf.CheckNumerics", [x23], {"message": "x"}),
    # tt.math.special (special_bessel.py)
    *[S(f"tf.{n}", [U((2, 3), 0.3, 2.0)]) for n in ("BesselJ0", "BesselJ1", "BesselY0", "BesselY1", "BesselK0",
                                                    "BesselK0e", "BesselK1", "BesselK1e", "Dawsn", "Expint",
                                                    "FresnelCos", "FresnelSin", "Spence")],
    # statistics reductions (reduction_statistics.py)
    S("tf.EuclideanNorm", [x23, i32(1)]),
    S("tf.EuclideanNorm", [U((2, 3, 2)), i32(0, -1)], {"keep_dims": True}, id="EuclideanNorm-keepdims"),
    # matrix functions and least squares (linalg_matrix_functions.py)
    S("tf.MatrixExponential", [U((3, 3), -0.6, 0.6)]), S("tf.MatrixSquareRoot", [NearIdentity((2, 3, 3))]),
    S("tf.MatrixSolveLs", [U((4, 2)), U((4, 3)), K(np.float64(0.25))]),
    S("tf.MatrixSolveLs", [U((2, 4)), U((2, 3)), K(np.float64(0.0))], id="MatrixSolveLs-wide"),
    # tf.nn (nn_activations.py, nn_losses.py, nn_normalization.py, nn_space.py, nn_depth_space.py)
    S("tf.Softsign", [nz23]), S("tf.SoftsignGrad", [x23, nz23]), S("tf.L2Loss", [x23]),
    S("tf.LRN", [U((1, 2, 2, 5), 0.3, 1.5)], {"depth_radius": 1, "bias": 1.0, "alpha": 0.5, "beta": 0.75}),
    S("tf.SpaceToBatchND", [U((1, 4, 4, 2)), i32(2, 3), K(np.array([[0, 0], [1, 1]], np.int32))]),
    S("tf.BatchToSpaceND", [U((6, 2, 3, 2)), i32(2, 3), K(np.array([[1, 0], [0, 2]], np.int32))]),
    S("tf.SpaceToBatch", [U((1, 3, 4, 2)), K(np.array([[1, 0], [0, 0]], np.int32))], {"block_size": 2}),
    S("tf.BatchToSpace", [U((4, 2, 2, 1)), K(np.array([[0, 1], [1, 0]], np.int32))], {"block_size": 2}),
    S("tf.SpaceToDepth", [U((1, 4, 2, 2))], {"block_size": 2}), S("tf.DepthToSpace", [U((1, 2, 1, 8))], {"block_size": 2}),
    S("tf.Conv3D", [U((1, 3, 4, 3, 2)), U((2, 2, 2, 2, 2))], CONV3D),
    S("tf.Conv3D", [U((1, 3, 2, 3, 1)), U((2, 1, 2, 1, 2))], dict(strides=(1, 2, 1, 2, 1), padding="SAME"),
      id="Conv3D-same-strided"),
    S("tf.Conv3DBackpropInputV2", [i32(1, 3, 4, 3, 2), U((2, 2, 2, 2, 2)), U((1, 2, 3, 2, 2))], CONV3D),
    S("tf.Conv3DBackpropFilterV2", [U((1, 3, 4, 3, 2)), i32(2, 2, 2, 2, 2), U((1, 2, 3, 2, 2))], CONV3D),
    S("tf.MaxPool3D", [D((1, 4, 4, 2, 1))], POOL3D), S("tf.AvgPool3D", [U((1, 3, 4, 3, 2))], POOL3D_SAME),
    S("tf.AvgPool3DGrad", [i32(1, 3, 4, 3, 2), U((1, 2, 2, 2, 2))], POOL3D_SAME),
    S("tf.MaxPool3DGrad", [K(_maxpool3d((1, 4, 4, 2, 1))), K(_maxpool3d((1, 4, 4, 2, 1), True)), U((1, 2, 2, 1, 1))],
      POOL3D),
    S("tf.MaxPool3DGradGrad", [K(_maxpool3d((1, 4, 4, 2, 1))), K(_maxpool3d((1, 4, 4, 2, 1), True)),
                               U((1, 4, 4, 2, 1))], POOL3D),
    # fused batch norm in inference (training mode's statistics outputs have no gradient in TensorFlow:
    # tests/unit/test_ops_nn_fused_batch_norm.py checks training through y alone)
    *[S(f"tf.FusedBatchNorm{v}", [U((2, 2, 2, 3)), U((3,), 0.5, 1.5), U((3,)), BN_MEAN, BN_VAR], BN_INFERENCE)
      for v in ("", "V2", "V3")],
    *[S(f"tf.FusedBatchNormGrad{v}", [U((2, 2, 2, 3)), U((2, 2, 2, 3)), U((3,), 0.5, 1.5), BN_MEAN, BN_VAR]
        + ([K(lambda d: np.zeros(0, d))] if v == "V3" else []), BN_INFERENCE) for v in ("", "V2", "V3")],
    S("tf.MaxPoolWithArgmax", [D((2, 4, 4, 2))], dict(ksize=(1, 2, 2, 1), strides=(1, 2, 2, 1), padding="VALID")),
    S("tf.MaxPoolGradWithArgmax", [K(lambda d: np.zeros((1, 4, 4, 2), d)), U((1, 2, 2, 2)),
                                   K(np.array([0, 3, 12, 9, 16, 23, 26, 31], np.int64).reshape(1, 2, 2, 2))],
      dict(ksize=(1, 2, 2, 1), strides=(1, 2, 2, 1), padding="VALID")),
    S("tf.Dilation2D", [D((1, 4, 4, 1)), U((2, 2, 1), 0.3, 0.38)], dict(strides=(1, 1, 1, 1), rates=(1, 1, 1, 1),
                                                                    padding="SAME")),
    S("tf.Dilation2D", [D((1, 5, 4, 2)), U((2, 2, 2), 0.3, 0.38)], dict(strides=(1, 2, 1, 1), rates=(1, 2, 1, 1),
                                                                    padding="VALID"), id="Dilation2D-strided-rates"),
    S("tf.IsotonicRegression", [U((2, 5))], lambda dtype: {"output_dtype": tt.as_dtype(dtype)}),  # (kernels: T -> T)
]

# Differentiable ops whose operands are functions of a module: checked through their own tests.
CONTROL_FLOW = {name for name, cls in REGISTRY.items() if calls_functions(cls) is not None}
# Reads a variable: its gradient is the tape's variable path (tests/unit/test_tape.py).
VARIABLE_READS = {"tf.ReadVariableOp"}
# Complex-only ops (the checker's dtypes are real): test_tape.py checks tf.Conj in complex matmul gradients,
# test_ops_complex_parts.py the complex parts' gradients, test_signal_fft.py the FFTs' (against their adjoints).
FFTS = {"tf.FFT", "tf.IFFT", "tf.FFT2D", "tf.IFFT2D", "tf.FFT3D", "tf.IFFT3D", "tf.RFFT", "tf.IRFFT", "tf.RFFT2D",
        "tf.IRFFT2D", "tf.RFFT3D", "tf.IRFFT3D", "tf.FFTND", "tf.IFFTND", "tf.RFFTND", "tf.IRFFTND"}
COMPLEX_ONLY = {"tf.Conj", "tf.Complex", "tf.Real", "tf.Imag", "tf.ComplexAbs", "tf.Angle", "tf.MatrixLogarithm"} | FFTS
# Decompositions of a symmetric matrix (the checker would perturb one triangle) or with complex outputs:
# tests/unit/test_linalg_decompositions.py checks their gradients through TensorFlow's checker.
DECOMPOSITIONS = {"tf.Cholesky", "tf.SelfAdjointEigV2", "tf.Eig"}
# tf.StatelessRandomGammaV3's and tf.RandomGamma's gradient in alpha is the implicit reparameterisation (not the derivative of the
# sampler's own transform, which a finite difference would see): test_random.py checks it against TensorFlow's.
RANDOM_REPARAMETERISED = {"tf.StatelessRandomGammaV3", "tf.RandomGamma"}
# TensorList ops: their values are variants, which the checker cannot perturb; test_tensor_list.py checks
# their values in graph mode and under XLA, and each gradient rule.
TENSOR_LISTS = {name for name in REGISTRY if name.startswith("tf.TensorList") or name == "tf.EmptyTensorList"}
# Fake quantization's gradients are TensorFlow's straight-through estimate, not the derivative of the step
# function the checker would measure: tests/unit/test_ops_fake_quant.py compares them with TensorFlow's.
STRAIGHT_THROUGH = {"tf.FakeQuantWithMinMaxArgs", "tf.FakeQuantWithMinMaxVars", "tf.FakeQuantWithMinMaxVarsPerChannel"}


def build(spec: Spec, dtype, seed: int = 0):
    """(model, input tensors) for one spec: constant operands closed over, outputs weighted."""
    rng = np.random.default_rng(seed)
    cls = REGISTRY[spec.op]
    slots, inputs = [], []
    for operand in spec.operands:
        if isinstance(operand, K):
            slots.append(("const", operand.get(dtype)))
        else:
            slots.append(("input", len(inputs)))
            inputs.append(operand.draw(rng, dtype))
    if spec.scale is not None:      # FloorMod: x = y·(k+f) keeps x/y away from integers
        i, j = spec.scale
        inputs[slots[j][1]] = np.asarray(inputs[slots[j][1]] * inputs[slots[i][1]], dtype)

    def model(*xs):
        args = [xs[v] if kind == "input" else v for kind, v in slots]
        outs = cls.bind(*args, **spec.attrs_for(dtype))
        outs = outs if isinstance(outs, (list, tuple)) else [outs]
        total = None
        for k, out in enumerate(outs):
            if not out.dtype.is_floating:
                continue
            # weights of norm ~1, so the summed output stays O(1) and float32 round-off small
            size = max(1, int(np.prod(tuple(out.shape))))
            w = (np.random.default_rng(100 + k).standard_normal(tuple(out.shape)) / np.sqrt(size)).astype(out.dtype.np)
            term = tt.reduce_sum(out * w)
            total = term if total is None else total + term
        return total

    return model, [tt.constant(x) for x in inputs]


IDS = [s.id for s in SPECS]


@pytest.mark.parametrize("use_function", [False, True], ids=["eager", "graph"])
@pytest.mark.parametrize("spec", SPECS, ids=IDS)
def test_tensorflow_checker_float32(spec, use_function):
    model, inputs = build(spec, np.float32)
    report = gc.compare_numerical_and_autodiff_gradients(model, inputs, use_function=use_function, abs_error=1e-2)
    assert any(r.checked for r in report.inputs), "no input had a gradient"


@pytest.mark.parametrize("use_function", [False, True], ids=["eager", "graph"])
@pytest.mark.parametrize("spec", SPECS, ids=IDS)
def test_tensorflow_checker_float64(spec, use_function):
    model, inputs = build(spec, np.float64)
    report = gc.compare_numerical_and_autodiff_gradients(model, inputs, use_function=use_function, abs_error=1e-6)
    assert any(r.checked for r in report.inputs), "no input had a gradient"


@pytest.mark.parametrize("mode", ["full", "fast", "full-xla"])
@pytest.mark.parametrize("spec", SPECS, ids=IDS)
def test_vectorised_checker(spec, mode):
    model, inputs = build(spec, np.float32)
    mode, _, backend = mode.partition("-")
    report = gc.check_gradients(model, [x.numpy() for x in inputs], mode=mode, backend=backend or "numpy")
    assert any(not r.skipped for r in report.inputs), "no input had a gradient"


# --- the registry walk --------------------------------------------------------------------------

def _tf_ops():
    return {name: cls for name, cls in REGISTRY.items() if name.startswith("tf.")}


def ops_without_gradient() -> list[str]:
    return sorted(name for name, cls in _tf_ops().items() if getattr(cls, "grad", None) is None
                  and not has_trait(cls, NotDifferentiable) and not has_trait(cls, NoGradient))


def gradients_checked_against_tensorflow() -> set[str]:
    """The float32-only image ops (the numerical checker needs float64) whose gradients
    test_image_conformance.py compares with TensorFlow's recorded ones: the ops its gradient cases trace."""
    import test_image_conformance as image

    ops = set()
    for name in image.cases.GRADIENT_CASES + image.cases.BOX_GRADIENT_CASES:
        call, arrays = image.runner(*image.cases.CASES[name], "graph")
        concrete = call.get_concrete_function(*[tt.TensorSpec(a.shape, tt.as_dtype(a.dtype)) for a in arrays])
        ops |= {op.name for op in concrete.module.walk()}
    return ops


def test_every_tf_op_has_a_gradient_or_is_not_differentiable():
    # Calls (tf.PartitionedCall, tf.StatefulPartitionedCall, tf.LegacyCall): a tape around a tt.function
    # call records its ops inline, so a call op is only met in parsed MLIR; TensorFlow differentiates
    # calls by differentiating the callee, which needs the module, not a per-op rule.
    missing = [name for name in ops_without_gradient()
               if getattr(calls_functions(REGISTRY[name]), "kind", None) != "call"]
    assert not missing, f"ops with neither a grad rule nor the NotDifferentiable trait: {missing}"


def test_every_differentiable_op_has_a_spec():
    differentiable = {name for name, cls in _tf_ops().items() if getattr(cls, "grad", None) is not None}
    covered = ({s.op for s in SPECS} | CONTROL_FLOW | VARIABLE_READS | COMPLEX_ONLY | TENSOR_LISTS | DECOMPOSITIONS
               | RANDOM_REPARAMETERISED | STRAIGHT_THROUGH | gradients_checked_against_tensorflow())
    assert not differentiable - covered, f"differentiable ops without a spec: {sorted(differentiable - covered)}"
    assert not {s.op for s in SPECS} - set(REGISTRY), "specs of ops that are not registered"


def test_not_differentiable_ops_give_no_gradient():
    from tinytf.autodiff import GradientTape

    x = tt.constant([[1.0, -2.0, 3.0]])
    with GradientTape(persistent=True) as tape:
        tape.watch(x)
        outs = [tt.argmax(x, axis=1), tt.shape(x), tt.math.greater(x, 0.0), tt.stop_gradient(x), tt.floor(x),
                tt.zeros_like(x)]
    for out in outs:
        assert tape.gradient(out, x) is None, out
