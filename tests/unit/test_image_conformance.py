"""tt.image against TensorFlow 2.21's recorded results (tests/conformance/image_cases.py, recorded by
tests/conformance/export_image_fixtures.py): every case eagerly, in a graph (tt.function) and under XLA
(tt.function(jit_compile=True)), and the gradients of the differentiable ones against TensorFlow's."""
from __future__ import annotations

from pathlib import Path

import conformance_modules
import numpy as np
import pytest

import tinytf as tt

ROOT = Path(__file__).resolve().parents[1]
cases = conformance_modules.load("image_cases")
RECORDED = np.load(ROOT / "fixtures" / "image" / "tf_image.npz")

# Float results: TensorFlow's kernels sum in another order (and XLA fuses): a few float32 ulps of values in [0, 1].
ATOL = {"ssim_multiscale": 2e-5, "per_image_standardization": 2e-5, "per_image_standardization_uint8": 2e-5,
        "psnr": 2e-4, "psnr_uint8": 2e-4, "yuv_to_rgb": 2e-6, "yiq_to_rgb": 2e-6}
# Integer results of a float computation rounded to an integer type: TensorFlow's float32 arithmetic
# and numpy's may land on either side of .5 for a few pixels.
INTEGER_FROM_FLOAT = {"adjust_contrast_uint8", "adjust_gamma_uint8", "rgb_to_grayscale_uint8"}


def resolve(path: str):
    fn = tt
    for part in path.split("."):
        fn = getattr(fn, part)
    return fn


def runner(path, args, kwargs, mode):
    """(the function of the case's arrays, the arrays): eager, graph or XLA."""
    fn = resolve(path)
    arg_slots = [i for i, a in enumerate(args) if isinstance(a, np.ndarray)]
    kw_slots = [k for k, v in kwargs.items() if isinstance(v, np.ndarray)]
    arrays = [args[i] for i in arg_slots] + [kwargs[k] for k in kw_slots]

    def call(*xs):
        a, kw = list(args), dict(kwargs)
        for i, x in zip(arg_slots + kw_slots, xs, strict=True):
            if isinstance(i, int):
                a[i] = x
            else:
                kw[i] = x
        return fn(*a, **kw)

    if mode == "graph":
        call = tt.function(call)
    elif mode == "xla":
        call = tt.function(call, jit_compile=True)
    return call, arrays


def outputs(result):
    return [np.asarray(r.numpy()) for r in (result if isinstance(result, tuple | list) else [result])]


def check(name, got):
    for i, value in enumerate(got):
        want = RECORDED[f"{name}/{i}"]
        assert value.shape == want.shape, f"{name}/{i}: shape {value.shape}, TensorFlow's {want.shape}"
        assert value.dtype == want.dtype, f"{name}/{i}: dtype {value.dtype}, TensorFlow's {want.dtype}"
        if want.dtype.kind == "f":
            np.testing.assert_allclose(value, want, rtol=1e-5, atol=ATOL.get(name, 1e-6), err_msg=f"{name}/{i}")
        elif name in INTEGER_FROM_FLOAT:
            assert np.abs(value.astype(np.int64) - want.astype(np.int64)).max() <= 1, name
            assert np.mean(value != want) < 0.05, name
        else:
            np.testing.assert_array_equal(value, want, err_msg=f"{name}/{i}")
    assert f"{name}/{len(got)}" not in RECORDED, f"{name}: TensorFlow has more outputs"


@pytest.mark.parametrize("mode", ["eager", "graph", "xla"])
@pytest.mark.parametrize("name", sorted(cases.CASES))
def test_matches_tensorflow(name, mode):
    path, args, kwargs = cases.CASES[name]
    call, arrays = runner(path, args, kwargs, mode)
    if mode == "xla" and name in XLA_REFUSED:
        with pytest.raises(tt.errors.UnimplementedError, match="XLA"):
            call(*[tt.constant(a) for a in arrays])
        return
    check(name, outputs(call(*[tt.constant(a) for a in arrays])))


# Non-max suppression whose output size depends on the data (and soft-NMS, and the combined op's host loop)
# does not compile to XLA: TensorFlow's bridge also takes only the padded form. Nor does the random crop's
# rejection loop (a Python loop over Philox words).
XLA_REFUSED = {"non_max_suppression", "non_max_suppression_threshold", "non_max_suppression_with_scores_soft",
               "non_max_suppression_overlaps", "combined_non_max_suppression",
               "combined_non_max_suppression_per_class_boxes",
               *(n for n in cases.CASES if n.startswith("stateless_sample_distorted_bounding_box"))}


@pytest.mark.parametrize("mode", ["eager", "graph"])
@pytest.mark.parametrize("name", cases.GRADIENT_CASES)
def test_gradients_match_tensorflow(name, mode):
    path, args, kwargs = cases.CASES[name]
    fn = resolve(path)
    x0 = args[0] if args else kwargs["images"]

    def loss(x):
        a, kw = list(args), dict(kwargs)
        if a:
            a[0] = x
        else:
            kw["images"] = x
        y = fn(*a, **kw)
        return tt.reduce_sum(y * cases.weights_for(tuple(y.shape)))

    def grad(x):
        with tt.GradientTape() as tape:
            tape.watch(x)
            value = loss(x)
        return tape.gradient(value, x)

    got = (tt.function(grad) if mode == "graph" else grad)(tt.constant(x0))
    np.testing.assert_allclose(got.numpy(), RECORDED[f"grad/{name}"], rtol=1e-5, atol=2e-5, err_msg=name)


def test_the_fixture_is_tensorflows():
    import json

    assert json.loads(str(RECORDED["__meta__"]))["tensorflow"].startswith("2.21")
