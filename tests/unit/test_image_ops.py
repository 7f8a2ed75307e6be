"""tt.image's op rules beyond the recorded values (tests/unit/test_image_conformance.py): gradients through
TensorFlow's checker in eager and graph mode, crop_and_resize's box gradients against TensorFlow's, the
weight matrices against their definitions, and the refusals of bad input."""
from __future__ import annotations

from pathlib import Path

import conformance_modules
import numpy as np
import pytest

import tinytf as tt
from tinytf.errors import InvalidArgumentError, UnimplementedError
from tinytf.gradcheck import compare_numerical_and_autodiff_gradients
from tinytf.ops.image_nms import greedy_select, iou_matrix
from tinytf.ops.image_resize_kernels import area_weights, bilinear_weights, scale_and_translate_weights

ROOT = Path(__file__).resolve().parents[1]
cases = conformance_modules.load("image_cases")
RECORDED = np.load(ROOT / "fixtures" / "image" / "tf_image.npz")
RNG = np.random.default_rng(5)
IMAGE = RNG.uniform(0, 1, (2, 5, 6, 2))
raw = tt.raw_ops

# The float64 compositions: TensorFlow's checker needs float64 to resolve gradients. The resize, crop and
# colour ops compute in float32 whatever the input (as TensorFlow's kernels): their gradients are checked
# against TensorFlow's own (test_image_conformance.py's gradient cases, and the box gradients below).
MODELS = {
    "extract_patches": lambda x: tt.image.extract_patches(x, [1, 2, 3, 1], [1, 2, 1, 1], [1, 2, 1, 1], "SAME"),
    "extract_patches_valid": lambda x: tt.image.extract_patches(x, [1, 3, 2, 1], [1, 1, 3, 1], [1, 1, 1, 1], "VALID"),
    "total_variation": lambda x: tt.image.total_variation(x),
    "sobel_edges": lambda x: tt.image.sobel_edges(x),
    "image_gradients": lambda x: tt.add_n(list(tt.image.image_gradients(x))),
    "rot90": lambda x: tt.image.rot90(x, 3),
    "resize_with_crop_or_pad": lambda x: tt.image.resize_with_crop_or_pad(x, 7, 3),
    "rgb_to_yiq": lambda x: tt.image.rgb_to_yiq(tt.concat([x, x[..., :1]], -1)),
}


@pytest.mark.parametrize("use_function", [False, True], ids=["eager", "graph"])
@pytest.mark.parametrize("name", sorted(MODELS))
def test_gradients_match_tensorflows_checker(name, use_function):
    report = compare_numerical_and_autodiff_gradients(MODELS[name], [tt.constant(IMAGE)], use_function=use_function,
                                                      abs_error=1e-6)
    assert all(r.checked for r in report.inputs)


@pytest.mark.parametrize("name", cases.BOX_GRADIENT_CASES)
def test_crop_and_resize_box_gradients_equal_tensorflows(name):
    _, (image, boxes, *rest), kwargs = cases.CASES[name]
    b = tt.constant(boxes)
    with tt.GradientTape() as tape:
        tape.watch(b)
        y = tt.image.crop_and_resize(tt.constant(image), b, *rest, **kwargs)
        loss = tt.reduce_sum(y * cases.weights_for(tuple(y.shape)))
    np.testing.assert_allclose(tape.gradient(loss, b).numpy(), RECORDED[f"grad_boxes/{name}"], rtol=1e-4, atol=1e-4)


def test_resize_weights_are_their_definitions():
    # upsampling by 2 with half-pixel centres: each output pixel mixes its two nearest inputs 3:1 (ends clamp)
    np.testing.assert_allclose(bilinear_weights(2, 4, False, True), [[1, 0], [0.75, 0.25], [0.25, 0.75], [0, 1]])
    # area: halving averages pairs; every row of every resampling matrix sums to 1
    np.testing.assert_allclose(area_weights(4, 2, False), [[0.5, 0.5, 0, 0], [0, 0, 0.5, 0.5]])
    for kind in ("lanczos3", "gaussian", "mitchellcubic", "box", "triangle", "keyscubic"):
        w = scale_and_translate_weights(9, 4, 4 / 9, 0.0, kind, True)
        np.testing.assert_allclose(w.sum(axis=1), 1, rtol=1e-6)


def test_greedy_selection_is_textbook_nms():
    boxes = np.float32([[0, 0, 1, 1], [0, 0.1, 1, 1.1], [0, 2, 1, 3], [0, 0.5, 1, 1.5]])
    iou = iou_matrix(np, boxes)
    np.testing.assert_allclose(iou[0, 1], 0.9 / 1.1, rtol=1e-6)  # overlap 0.9 over union 1.1
    picked, scores = greedy_select(iou, np.float32([0.9, 0.8, 0.7, 0.6]), 10, 0.5, -np.inf)
    assert picked.tolist() == [0, 2, 3] and scores.tolist() == pytest.approx([0.9, 0.7, 0.6])
    picked, _ = greedy_select(iou, np.float32([0.9, 0.8, 0.7, 0.6]), 10, 0.5, 0.65)
    assert picked.tolist() == [0, 2]  # scores at or below score_threshold never compete


def test_refusals():
    img = tt.constant(IMAGE.astype(np.float32))
    with pytest.raises(InvalidArgumentError, match="align_corners must be False"):
        raw.ResizeBilinear(images=img, size=[2, 2], align_corners=True, half_pixel_centers=True)
    with pytest.raises(InvalidArgumentError, match="4-dimensional"):
        raw.ResizeBilinear(images=img[0], size=[2, 2])
    with pytest.raises(InvalidArgumentError, match="positive"):
        raw.ResizeBicubic(images=img, size=[0, 2])
    with pytest.raises(InvalidArgumentError, match="two elements"):
        raw.ResizeArea(images=img, size=[2, 2, 2])
    with pytest.raises(InvalidArgumentError, match="kernel type"):
        raw.ScaleAndTranslate(images=img, size=[2, 2], scale=np.float32([1, 1]), translation=np.float32([0, 0]),
                              kernel_type="sinc")
    with pytest.raises(InvalidArgumentError, match="not supported"):
        tt.image.resize(img, [3, 3], method="cubic")
    with pytest.raises(InvalidArgumentError, match="does not fit"):
        tt.image.crop_to_bounding_box(img, 2, 2, 4, 4)
    with pytest.raises(InvalidArgumentError, match="central_fraction"):
        tt.image.central_crop(img, 1.5)
    with pytest.raises(InvalidArgumentError, match="3 channels"):
        tt.image.adjust_hue(tt.constant(IMAGE[..., :1].astype(np.float32)), 0.1)
    with pytest.raises(InvalidArgumentError, match="box_index has values outside"):
        tt.image.crop_and_resize(img, [[0, 0, 1, 1]], [2], [2, 2])
    with pytest.raises(InvalidArgumentError, match="iou_threshold must be in"):
        tt.image.non_max_suppression(cases.NMS_BOXES, cases.NMS_SCORES, 3, iou_threshold=1.5)
    with pytest.raises(InvalidArgumentError, match="ksizes"):
        tt.image.extract_patches(img, [1, 0, 2, 1], [1, 1, 1, 1], [1, 1, 1, 1], "VALID")
    with pytest.raises(UnimplementedError, match="XLA"):
        tt.function(lambda b, s: tt.image.non_max_suppression(b, s, 3), jit_compile=True)(
            tt.constant(cases.NMS_BOXES), tt.constant(cases.NMS_SCORES))


def test_no_gradient_where_tensorflow_has_none():
    x = tt.constant(IMAGE.astype(np.float32)[..., :2].repeat(2, axis=-1)[..., :3])
    with tt.GradientTape() as tape:
        tape.watch(x)
        y = raw.ResizeArea(images=x, size=[3, 3])
    with pytest.raises(LookupError, match="ResizeArea"):
        tape.gradient(y, x)


@pytest.mark.parametrize("noise", ["uniform", "gaussian"])
def test_glimpse_noise_fills_only_outside_within_the_images_range(noise):
    _, (images, size, offsets), kwargs = cases.CASES["extract_glimpse_11"]
    want = RECORDED["extract_glimpse_11/0"]  # TensorFlow's, with zeros outside the image
    got = tt.image.extract_glimpse(images, size, offsets, noise=noise).numpy()
    outside = tt.image.extract_glimpse(np.ones_like(images), size, offsets, noise="zero").numpy() == 0
    np.testing.assert_array_equal(got[~outside], want[~outside])
    assert outside.any()
    for b in range(images.shape[0]):
        if not outside[b].any():
            continue
        lo = images[b].min() if noise == "uniform" else images[b].min(axis=(0, 1))
        hi = images[b].max() if noise == "uniform" else images[b].max(axis=(0, 1))
        filled = np.where(outside[b], got[b], np.nan)
        assert np.nanmin(filled - lo) >= 0 and np.nanmax(filled - hi) <= 0
    with pytest.raises(UnimplementedError, match="XLA"):
        tt.function(lambda x: tt.image.extract_glimpse(x, size, offsets, noise=noise), jit_compile=True)(
            tt.constant(images))


def test_stateful_random_crop_follows_tensorflows_stream():
    tt.random.set_seed(3)  # as TensorFlow: the op seed 7 under global seed 3, the stream going on between calls
    for call in range(2):
        crop = tt.image.sample_distorted_bounding_box([480, 640, 3], cases.SDBB_BOXES, seed=7, min_object_covered=0.2)
        for i, value in enumerate(crop):
            np.testing.assert_array_equal(value.numpy(), RECORDED[f"sample_distorted_bounding_box/{call}/{i}"])
