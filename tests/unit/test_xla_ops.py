"""Every op of the library lowers to XLA and gives its graph-mode result.

Each op is traced into a one-op function with ``tt.function`` (constant operands such as axes and
shapes become ``tf.Const``, the others are arguments), run by the graph executor (numpy) and by
``tt.xla.run_module`` (JAX/XLA), and the two results compared. The differentiable ops come from
the gradient spec table (tests/unit/test_gradients_spec.py); the others are listed here. Ops that
call functions or touch variables are checked in test_xla_compile.py with whole modules.
"""
from __future__ import annotations

import importlib
from unittest import mock

import numpy as np
import pytest
from test_gradients_spec import DECOMPOSITIONS, FFTS, SPECS, TENSOR_LISTS, D, Dominant, K, Spd, Spec, U, i32, s32

import tinytf as tt
from tinytf import xla
from tinytf.framework.op import REGISTRY, ResourceOp, calls_functions, has_trait
from tinytf.ops.complex_parts import complex_abs


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
    S("tf.DataFormatVecPermute", [Int((4,), -9, 9)], {"src_format": "NHWC", "dst_format": "NCHW"}),
    S("tf.DataFormatVecPermute", [Int((4, 2), -9, 9)], {"src_format": "NCHW", "dst_format": "NHWC"},
      id="DataFormatVecPermute-pairs"),
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
    # outside a replicated computation: one replica per group (test_distribute_ir.py runs it replicated)
    S("tf.XlaAllReduce", [x23, K(np.array([[0]], np.int32))], {"reduce_op": "Add"}),
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
# integer, bitwise, sorting and set ops; the decompositions whose gradients test_linalg_decompositions.py checks
_sorted = K(lambda d: np.array([[-1.0, 0.0, 0.5, 2.0], [0.0, 0.0, 1.0, 1.5]], d))
_probe = K(lambda d: np.array([[-2.0, 0.0, 0.7, 2.0, 3.0], [0.0, 1.0, 1.2, -1.0, 1.5]], d))
MORE += [
    S("tf.BitwiseAnd", [Int((2, 3), -9, 9), Int((3,), -9, 9)]), S("tf.BitwiseOr", [Int((2, 3), -9, 9), Int((2, 3), 0, 9)]),
    S("tf.BitwiseXor", [Int((2, 3), -9, 9), Int((2, 3), -9, 9)]), S("tf.Invert", [Int((2, 3), -9, 9)]),
    S("tf.LeftShift", [Int((2, 3), -9, 9), Int((2, 3), 0, 5)]), S("tf.RightShift", [Int((2, 3), -99, 99), Int((2, 3), 0, 5)]),
    S("tf.PopulationCount", [Int((2, 3), -9, 99)]),
    S("tf.TruncateDiv", [Int((2, 3), -7, 7), Int((3,), -3, 3, away=(0,))]),
    S("tf.TruncateMod", [Int((2, 3), -7, 7), Int((3,), -3, 3, away=(0,))]),
    S("tf.Rint", [K(lambda d: np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.4, 2.6], d))]), S("tf.Rint", [U((2, 3), -4, 4)], id="Rint-random"),
    S("tf.IsInf", [Special((2, 3))]), S("tf.IgammaGradA", [U((2, 3), 0.8, 3), U((2, 3), 0.5, 3)]),
    S("tf.InTopKV2", [K(np.array([[0.1, 0.9, 0.3, 0.9], [2.0, -1.0, 0.5, 1.0]], np.float32)), K(np.array([1, 3], np.int32)),
                      K(np.int32(2))]),  # (float32 only, as TensorFlow's; a tie at the k-th value counts as in)
    S("tf.LowerBound", [_sorted, _probe]), S("tf.UpperBound", [_sorted, _probe], {"out_type": tt.int64}),
    S("tf.Unique", [K(np.array([3, 1, 3, 2, 1, 1], np.int32))]),  # constants: their unique count is static
    S("tf.UniqueWithCounts", [K(np.array([3, 1, 3, 2, 1, 1], np.int32))], {"out_idx": tt.int64}),
    S("tf.Lu", [Dominant((3, 3))]), S("tf.Lu", [Dominant((2, 3, 3))], {"output_idx_type": tt.int64}, id="Lu-batch"),
    S("tf.Cholesky", [Spd((3, 3))]), S("tf.Cholesky", [Spd((2, 3, 3))], id="Cholesky-batch"),
    S("tf.SelfAdjointEigV2", [Spd((3, 3))], {"compute_v": False}),
    S("tf.Eig", [Spd((3, 3))], {"compute_v": False}),
    S("tf.Complex", [x23, U((3,))]),
    S("tf.MatrixDiagV3", [U((3,)), s32(1), s32(-1), s32(-1), K(lambda d: np.asarray(9, d))], id="MatrixDiagV3-padded"),
]
# tf.nn's gradient ops without gradients of their own, and candidate sampling (constants: their hit count is static)
_ARGMAX = K(np.array([0, 3, 12, 9, 16, 23, 26, 31], np.int64).reshape(1, 2, 2, 2))
_ARGMAX_POOL = dict(ksize=(1, 2, 2, 1), strides=(1, 2, 2, 1), padding="VALID")
_MORPHOLOGY = dict(strides=(1, 1, 1, 1), rates=(1, 1, 1, 1), padding="SAME")
MORE += [
    S("tf.LRNGrad", [U((1, 2, 2, 5)), U((1, 2, 2, 5), 0.3, 1.5), U((1, 2, 2, 5))],
      {"depth_radius": 1, "bias": 1.0, "alpha": 0.5, "beta": 0.75}),
    S("tf.Dilation2DBackpropInput", [D((1, 4, 4, 2)), U((2, 2, 2), 0.3, 0.38), U((1, 4, 4, 2))], _MORPHOLOGY),
    S("tf.Dilation2DBackpropFilter", [D((1, 4, 4, 2)), U((2, 2, 2), 0.3, 0.38), U((1, 4, 4, 2))], _MORPHOLOGY),
    S("tf.MaxPoolGradGradWithArgmax", [K(lambda d: np.zeros((1, 4, 4, 2), d)), U((1, 4, 4, 2)), _ARGMAX], _ARGMAX_POOL),
    S("tf.ComputeAccidentalHits", [K(np.array([[1, 4], [7, 2]], np.int64)), K(np.array([4, 3, 7, 4], np.int64))],
      {"num_true": 2}),
    S("tf.AllCandidateSampler", [K(np.array([[1, 4], [3, 2]], np.int64))], {"num_true": 2, "num_sampled": 5,
                                                                           "unique": True}),
]
class F32(U):
    """Uniform float32 values whatever the checked dtype (the image gradient ops take float32 gradients)."""

    def draw(self, rng, dtype):
        return rng.uniform(self.lo, self.hi, self.shape).astype(np.float32)


# tt.image's gradient ops, the fake-quantization family (TensorFlow's values: test_image_conformance.py,
# test_ops_fake_quant.py), bit and shape ops, bincount, and the random samplers with rejection loops
_RESIZE = {"align_corners": False, "half_pixel_centers": True}
_CROP_BOXES = K(np.array([[0.1, -0.2, 0.8, 0.7], [0.3, 0.2, 0.6, 1.1], [0.0, 0.0, 1.0, 1.0]], np.float32))
_CROP_IND = K(np.array([1, 0, 1], np.int32))
_LOHI = [K(np.float32(-1.5)), K(np.float32(1.25))]
_LOHI_C = [K(np.array([-1.5, -0.5, -2.0], np.float32)), K(np.array([1.25, 0.5, 2.0], np.float32))]
_FQ = {"num_bits": 6, "narrow_range": True}
_key, _counter, _alg = K(np.array([12345], np.uint64)), K(np.array([7, 9], np.uint64)), K(np.int32(1))
MORE += [
    S("tf.ResizeBilinearGrad", [F32((2, 3, 4, 2)), F32((2, 5, 7, 2))], _RESIZE),
    S("tf.ResizeBicubicGrad", [F32((2, 3, 4, 2)), F32((2, 5, 7, 2))], _RESIZE),
    S("tf.ResizeNearestNeighborGrad", [F32((2, 8, 9, 2)), i32(5, 7)], _RESIZE),
    S("tf.ScaleAndTranslateGrad", [F32((2, 6, 9, 2)), F32((2, 5, 7, 2)), K(np.array([1.3, 1.1], np.float32)),
                                   K(np.array([0.4, -0.6], np.float32))], {"kernel_type": "lanczos3", "antialias": True}),
    S("tf.CropAndResizeGradImage", [F32((3, 4, 6, 2)), _CROP_BOXES, _CROP_IND, i32(2, 5, 7, 2)], {"T": tt.float32}),
    S("tf.CropAndResizeGradBoxes", [F32((3, 4, 6, 2)), F32((2, 5, 7, 2)), _CROP_BOXES, _CROP_IND]),
    S("tf.DrawBoundingBoxes", [F32((2, 6, 7, 3), 0, 1), K(np.array([[[0.1, 0.2, 0.7, 0.9]], [[-0.3, 0.5, 0.4, 1.4]]],
                                                                np.float32))]),
    S("tf.FakeQuantWithMinMaxArgs", [F32((2, 3))], {"min": -1.5, "max": 1.25, **_FQ}),
    S("tf.FakeQuantWithMinMaxArgsGradient", [F32((2, 3)), F32((2, 3))], {"min": -1.5, "max": 1.25, **_FQ}),
    S("tf.FakeQuantWithMinMaxVars", [F32((2, 3)), *_LOHI], _FQ),
    S("tf.FakeQuantWithMinMaxVarsGradient", [F32((2, 3)), F32((2, 3)), *_LOHI], _FQ),
    S("tf.FakeQuantWithMinMaxVarsPerChannel", [F32((2, 3)), *_LOHI_C], _FQ),
    S("tf.FakeQuantWithMinMaxVarsPerChannelGradient", [F32((2, 3)), F32((2, 3)), *_LOHI_C], _FQ),
    S("tf.Bitcast", [x23], {"type": tt.uint8}),
    S("tf.BroadcastArgs", [Int((3,), 1, 4), K(np.array([1, 1], np.int32))]),
    S("tf.BroadcastGradientArgs", [K(np.array([2, 1, 3], np.int32)), K(np.array([4, 1], np.int32))]),  # (as below)
    S("tf.ToBool", [x23]), S("tf.ToBool", [U(())], id="ToBool-scalar"),
    S("tf.DenseBincount", [Int((2, 5), 0, 4), K(np.int32(6)), U((2, 5), 0, 1)],
      {"binary_output": False}),
    S("tf.StatelessRandomGammaV3", [i32(4, 2), _key, _counter, _alg, U((2,), 0.3, 3)]),
    S("tf.StatelessRandomPoisson", [i32(4, 2), _seed, U((2,), 0.5, 30)], {"dtype": tt.int32}),
    S("tf.StatelessRandomBinomial", [i32(4, 2), _seed, K(lambda d: np.array([5.0, 40.0], d)), U((2,), 0.1, 0.9)]),
    S("tf.RandomGamma", [i32(3), U((2,), 0.3, 3)], {"seed": 5, "seed2": 6}),
    S("tf.RandomPoissonV2", [i32(3), U((2,), 0.5, 30)], {"seed": 5, "seed2": 6}),
]
# Stateful ops whose one-op functions have the same text for both dtypes: XLA's cache (by module text) would
# hand the second run the first one's advanced stream; test_random.py runs them under XLA.
OWN_STREAMS = {"tf.RandomUniform", "tf.RandomStandardNormal", "tf.TruncatedNormal", "tf.RandomUniformInt"}
# Checked with whole modules in test_xla_compile.py (calls, control flow, variables, optimizer
# steps; TF1 ref-variable ops are refused, as by TensorFlow's XLA bridge) or as a function's constants.
MODULE_OPS = {n for n, c in REGISTRY.items() if calls_functions(c) or has_trait(c, ResourceOp)} | {"tf.Const"}
# test_complex_only_ops_under_xla, test_complex_parts_under_xla; the FFTs: test_signal_fft.py (XLA against numpy)
COMPLEX_ONLY = {"tf.Conj", "tf.Real", "tf.Imag", "tf.ComplexAbs", "tf.Angle"} | FFTS
# tf.Assert has no results (a one-op function returns nothing): test_debugging.py runs it under XLA (a no-op there).
NO_RESULTS = {"tf.Assert"}
# String parsing runs on the graph backend only; its XLA refusal is tested in test_saved_model_ops.py.
GRAPH_ONLY = {"tf.ParseExample", "tf.ParseExampleV2"}
ALL = SPECS + MORE
# Ops XLA refuses with UnimplementedError, as TensorFlow's bridge: strings (image files among them), and the
# stateful random crop's rejection loop (test_refused_by_xla). (op: its function, its arguments)
_PNG, _PIXELS = np.array(b"\x89PNG\r\n\x1a\n", object), np.zeros((2, 3, 3), np.uint8)
REFUSED = {
    "tf.DecodeAndCropJpeg": (lambda c: tt.image.decode_and_crop_jpeg(c, [0, 0, 1, 1]), _PNG),
    "tf.DecodeBmp": (tt.image.decode_bmp, _PNG), "tf.DecodeGif": (tt.image.decode_gif, _PNG),
    "tf.DecodeImage": (tt.image.decode_image, _PNG), "tf.DecodeJpeg": (tt.image.decode_jpeg, _PNG),
    "tf.DecodePng": (tt.image.decode_png, _PNG), "tf.DecodeWebP": (tt.image.decode_webp, _PNG),
    "tf.ExtractJpegShape": (tt.image.extract_jpeg_shape, _PNG),
    "tf.EncodeJpeg": (tt.image.encode_jpeg, _PIXELS), "tf.EncodePng": (tt.image.encode_png, _PIXELS),
    "tf.EncodeJpegVariableQuality": (lambda x: tt.raw_ops.EncodeJpegVariableQuality(image=x, quality=50), _PIXELS),
    "tf.Substr": (lambda s: tt.raw_ops.Substr(input=s, pos=np.int32(1), len=np.int32(2)), np.array([b"hello"], object)),
    "tf.SampleDistortedBoundingBoxV2": (lambda boxes: tt.image.sample_distorted_bounding_box(
        [40, 30, 3], boxes, seed=5), np.array([[[0.1, 0.1, 0.9, 0.9]]], np.float32)),
}
# BroadcastGradientArgs' results are as long as its operands' values make them: XLA takes it with constant
# operands only (as tf.BroadcastTo's shape); TensorFlow's text of it, with its values.
BROADCAST_GRADIENT_ARGS = """func.func @main() -> (tensor<?xi32>, tensor<?xi32>) {
  %a = "tf.Const"() <{value = dense<[2, 1, 3]> : tensor<3xi32>}> : () -> tensor<3xi32>
  %b = "tf.Const"() <{value = dense<[4, 1]> : tensor<2xi32>}> : () -> tensor<2xi32>
  %r0, %r1 = "tf.BroadcastGradientArgs"(%a, %b) : (tensor<3xi32>, tensor<2xi32>) -> (tensor<?xi32>, tensor<?xi32>)
  return %r0, %r1 : tensor<?xi32>, tensor<?xi32>
}
"""


def _ops_of(concrete) -> set[str]:
    return {op.name for op in concrete.module.walk()}


def checked_elsewhere() -> set[str]:
    """The ops other test files run under XLA (or see XLA refuse), from the functions those tests compile."""
    import test_fused_bias_activation as fused
    import test_image_conformance as image
    import test_linalg_eigen_extras as eigen
    import test_print as printing

    ops = set()
    for path, args, kwargs in image.cases.CASES.values():  # test_image_conformance.py, mode "xla"
        call, arrays = image.runner(path, args, kwargs, "xla")
        ops |= _ops_of(call.get_concrete_function(*[tt.TensorSpec(a.shape, tt.as_dtype(a.dtype)) for a in arrays]))
    for inputs, kwargs in printing.CASES.CASES.values():  # test_print.py's test_text_is_tensorflows, mode "xla"
        run = tt.function(lambda i=inputs, k=kwargs: tt.print(*[printing.to_tinytf(v) for v in i], **k), jit_compile=True)
        ops |= _ops_of(run.get_concrete_function())
    a = eigen.V["near_identity"]  # test_linalg_eigen_extras.py's test_logm_is_tensorflows_and_scipys_in_every_mode
    ops |= _ops_of(eigen.modes(eigen.la.logm)[2].get_concrete_function(tt.TensorSpec(a.shape, tt.as_dtype(a.dtype))))
    ops |= {cls.name for cls, _, _ in fused.CASES}  # test_fused_bias_activation.py's test_fused_equals_chain_eager_and_xla
    return ops


def test_every_op_is_covered():
    covered = {s.op for s in ALL} | MODULE_OPS | COMPLEX_ONLY | OWN_STREAMS | GRAPH_ONLY | TENSOR_LISTS | NO_RESULTS
    covered |= set(REFUSED) | checked_elsewhere()
    assert DECOMPOSITIONS <= {s.op for s in ALL}
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
        return cls.bind(*[xs[v] if kind == "input" else tt.constant(v) for kind, v in slots], **spec.attrs_for(dtype))

    # not optimized: canonicalization folds an op of constants (Range, Unique, ...) away, and XLA would never see it
    with mock.patch.object(importlib.import_module("tinytf.function"), "optimize", lambda module: None):
        cf = tt.function(fn).get_concrete_function(*[tt.TensorSpec(x.shape, tt.as_dtype(x.dtype)) for x in inputs])
    assert spec.op in _ops_of(cf), f"{spec.op} is not in the function XLA compiles"
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
            rtol = 2e-6 if w.dtype in (np.float32, np.complex64) else 1e-13
            np.testing.assert_allclose(g, w, rtol=rtol, atol=rtol, err_msg=f"output {k}")
        else:
            np.testing.assert_array_equal(g, w, err_msg=f"output {k}")


def test_complex_only_ops_under_xla():
    x = np.array([1 + 2j, -3j, 0.5], np.complex64)
    f = tt.function(lambda v: tt.math.conj(v) * 2.0, jit_compile=True)
    np.testing.assert_array_equal(f(tt.constant(x)).numpy(), np.conj(x) * 2)
    assert "tf.Conj" in f.get_concrete_function(tt.TensorSpec([3], tt.complex64)).mlir()


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_complex_parts_under_xla(dtype):
    x = np.array([[1 + 2j, -3j, 0.5], [-1.5 + 0.25j, 2 - 1j, -0.75 - 2j]], dtype)
    real = np.float32 if dtype == np.complex64 else np.float64
    tol = 2e-6 if dtype == np.complex64 else 1e-13
    for fn, want in ((tt.math.real, x.real), (tt.math.imag, x.imag), (complex_abs, np.abs(x)), (tt.math.angle, np.angle(x))):
        f = tt.function(fn, jit_compile=True)
        got = np.asarray(f(tt.constant(x)).numpy())
        assert got.dtype == real
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol)
    cf = tt.function(lambda v: (tt.math.real(v), tt.math.imag(v), complex_abs(v), tt.math.angle(v))).get_concrete_function(
        tt.TensorSpec([2, 3], tt.as_dtype(dtype)))
    assert all(f"tf.{n}" in cf.mlir() for n in ("Real", "Imag", "ComplexAbs", "Angle"))


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_refused_by_xla(name):
    fn, arg = REFUSED[name]
    f = tt.function(fn, jit_compile=True)
    assert name in _ops_of(f.get_concrete_function(tt.TensorSpec(arg.shape, tt.string if arg.dtype == object
                                                                 else tt.as_dtype(arg.dtype))))
    with pytest.raises(tt.errors.UnimplementedError, match=name):
        f(tt.constant(arg))


def test_a_string_folded_from_constants_is_refused_by_xla():
    # encode_png of a constant folds while compiling; the string it makes cannot leave an XLA computation
    pixels = np.arange(12, dtype=np.uint8).reshape(2, 2, 3)
    f = tt.function(lambda: tt.image.encode_png(tt.constant(pixels)), jit_compile=True)
    with pytest.raises(tt.errors.UnimplementedError, match="string tensor"):
        f()
    assert tt.image.decode_png(tt.function(lambda: tt.image.encode_png(tt.constant(pixels)))()).numpy().tolist() \
        == pixels.tolist()


def test_broadcast_gradient_args_of_constants_under_xla():
    from tinytf import mlir

    module = mlir.parse(BROADCAST_GRADIENT_ARGS)
    # [2, 1, 3] and [1, 4, 1] broadcast to [2, 4, 3]: the first is summed over axis 1, the second over 0 and 2
    for r0, r1 in (tt.load_mlir(BROADCAST_GRADIENT_ARGS).run(backend="graph"), xla.run_module(module, "main", [])):
        np.testing.assert_array_equal(np.asarray(r0), np.array([1], np.int32))
        np.testing.assert_array_equal(np.asarray(r1), np.array([0, 2], np.int32))
        assert np.asarray(r0).dtype == np.int32 and np.asarray(r1).dtype == np.int32
