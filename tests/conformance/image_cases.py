"""The tt.image cases recorded from TensorFlow 2.21 (tests/conformance/export_image_fixtures.py) and checked
against tinytf (tests/unit/test_image_conformance.py). Plain numpy and Python: both sides import it.

A case is ``name -> (function path, args, kwargs)``: the path names the same function in TensorFlow and in
tinytf (``image.resize`` is tf.image.resize and tt.image.resize; ``raw_ops.ResizeBilinear`` the raw ops),
called with the same numpy inputs. A gradient case records d sum(out * w) / d input 0 (w fixed).
"""
from __future__ import annotations

import numpy as np


def _rng(seed):
    return np.random.default_rng(seed)


def image(shape, seed=0, dtype=np.float32, lo=0.0, hi=1.0):
    values = _rng(seed).uniform(lo, hi, shape)
    if np.dtype(dtype).kind in "iu":
        return np.round(values * np.iinfo(dtype).max).astype(dtype) if hi <= 1.0 else values.astype(dtype)
    return values.astype(dtype)


IMG = image((2, 5, 7, 3))          # a small batch, odd sizes
ONE = image((6, 4, 3), seed=1)     # a single image
BIG = image((2, 24, 20, 3), seed=2)
BIG2 = np.clip(BIG + image((2, 24, 20, 3), seed=3, lo=-0.1, hi=0.1), 0, 1).astype(np.float32)
U8 = image((2, 5, 7, 3), seed=4, dtype=np.uint8)


def _boxes(n, seed):
    rng = _rng(seed)
    y1, x1 = rng.uniform(-0.2, 0.6, n), rng.uniform(-0.2, 0.6, n)
    return np.stack([y1, x1, y1 + rng.uniform(0.1, 0.7, n), x1 + rng.uniform(0.1, 0.7, n)], 1).astype(np.float32)


_CORNERS, _SIZES = _rng(7).uniform(0, 1, (30, 2)), _rng(8).uniform(0.1, 0.4, (30, 2))
NMS_BOXES = np.concatenate([_CORNERS, _CORNERS + _SIZES], 1).astype(np.float32)  # [y1, x1, y2, x2]
NMS_SCORES = _rng(9).permutation(30).astype(np.float32) / 30 + np.float32(0.01)

CASES = {}
for method in ("bilinear", "nearest", "bicubic", "area", "lanczos3", "lanczos5", "gaussian", "mitchellcubic"):
    CASES[f"resize_{method}_up"] = ("image.resize", (IMG, [8, 11]), {"method": method})
    CASES[f"resize_{method}_down"] = ("image.resize", (BIG, [7, 6]), {"method": method})
    CASES[f"resize_{method}_down_antialias"] = ("image.resize", (BIG, [7, 6]), {"method": method, "antialias": True})
CASES["resize_single_aspect"] = ("image.resize", (ONE, [9, 9]), {"preserve_aspect_ratio": True})
CASES["resize_uint8_bilinear"] = ("image.resize", (U8, [4, 9]), {})
CASES["resize_uint8_nearest"] = ("image.resize", (U8, [4, 9]), {"method": "nearest"})
for ac, hp in ((False, False), (True, False), (False, True)):
    for op in ("ResizeBilinear", "ResizeBicubic", "ResizeNearestNeighbor"):
        CASES[f"raw_{op}_{int(ac)}{int(hp)}"] = (f"raw_ops.{op}", (), {"images": IMG, "size": np.int32([9, 4]),
                                                                        "align_corners": ac, "half_pixel_centers": hp})
CASES["raw_ResizeArea_align"] = ("raw_ops.ResizeArea", (), {"images": BIG, "size": np.int32([5, 9]), "align_corners": True})
CASES["raw_ScaleAndTranslate"] = ("raw_ops.ScaleAndTranslate", (), {
    "images": IMG, "size": np.int32([6, 9]), "scale": np.float32([1.3, 1.1]), "translation": np.float32([0.4, -0.6]),
    "kernel_type": "keyscubic", "antialias": False})
CASES["resize_with_pad"] = ("image.resize_with_pad", (IMG, 9, 9), {})
CASES["resize_with_pad_single"] = ("image.resize_with_pad", (ONE, 5, 12), {"method": "bicubic"})
CASES["resize_with_crop_or_pad"] = ("image.resize_with_crop_or_pad", (IMG, 4, 10), {})
CASES["resize_with_crop_or_pad_single"] = ("image.resize_with_crop_or_pad", (ONE, 9, 3), {})
CASES["crop_to_bounding_box"] = ("image.crop_to_bounding_box", (IMG, 1, 2, 3, 4), {})
CASES["pad_to_bounding_box"] = ("image.pad_to_bounding_box", (ONE, 2, 1, 9, 7), {})
CASES["central_crop"] = ("image.central_crop", (BIG, 0.4), {})
CASES["central_crop_single"] = ("image.central_crop", (ONE, 0.7), {})
for name in ("flip_left_right", "flip_up_down", "transpose"):
    CASES[name] = (f"image.{name}", (IMG,), {})
for k in range(4):
    CASES[f"rot90_{k}"] = ("image.rot90", (ONE,), {"k": k})
CASES["stateless_random_flip_left_right"] = ("image.stateless_random_flip_left_right", (image((6, 3, 4, 2)),),
                                             {"seed": (3, 7)})
CASES["stateless_random_flip_up_down"] = ("image.stateless_random_flip_up_down", (ONE,), {"seed": (1, 2)})
CASES["stateless_random_crop"] = ("image.stateless_random_crop", (BIG,), {"size": [1, 9, 8, 3], "seed": (5, 6)})
for name in ("rgb_to_grayscale", "rgb_to_hsv", "rgb_to_yuv", "rgb_to_yiq", "per_image_standardization"):
    CASES[name] = (f"image.{name}", (IMG,), {})
for name in ("hsv_to_rgb", "yuv_to_rgb", "yiq_to_rgb"):
    CASES[name] = (f"image.{name}", (image((2, 4, 5, 3), seed=11, lo=0.0, hi=0.5),), {})
CASES["grayscale_to_rgb"] = ("image.grayscale_to_rgb", (image((2, 3, 4, 1)),), {})
CASES["rgb_to_grayscale_uint8"] = ("image.rgb_to_grayscale", (U8,), {})
CASES["per_image_standardization_uint8"] = ("image.per_image_standardization", (U8,), {})
CASES["adjust_brightness"] = ("image.adjust_brightness", (IMG, 0.2), {})
CASES["adjust_brightness_uint8"] = ("image.adjust_brightness", (U8, 0.3), {})
CASES["adjust_contrast"] = ("image.adjust_contrast", (IMG, 1.7), {})
CASES["adjust_contrast_uint8"] = ("image.adjust_contrast", (U8, 2.5), {})
CASES["adjust_gamma"] = ("image.adjust_gamma", (IMG, 0.6, 1.2), {})
CASES["adjust_gamma_uint8"] = ("image.adjust_gamma", (U8, 2.0), {})
CASES["adjust_hue"] = ("image.adjust_hue", (IMG, 0.3), {})
CASES["adjust_hue_negative"] = ("image.adjust_hue", (IMG, -0.45), {})
CASES["adjust_saturation"] = ("image.adjust_saturation", (IMG, 1.8), {})
CASES["adjust_saturation_low"] = ("image.adjust_saturation", (IMG, 0.3), {})
CASES["stateless_random_brightness"] = ("image.stateless_random_brightness", (IMG, 0.3), {"seed": (1, 2)})
CASES["stateless_random_contrast"] = ("image.stateless_random_contrast", (IMG, 0.5, 1.5), {"seed": (3, 4)})
CASES["stateless_random_hue"] = ("image.stateless_random_hue", (IMG, 0.4), {"seed": (5, 6)})
CASES["stateless_random_saturation"] = ("image.stateless_random_saturation", (IMG, 0.2, 1.9), {"seed": (7, 8)})
for src, dst, sat in (("uint8", "float32", False), ("float32", "uint8", False), ("float32", "uint8", True),
                      ("uint8", "int32", False), ("int32", "uint8", False), ("float32", "int16", True),
                      ("uint8", "float16", False)):
    # out-of-range floats only where saturating: casting them is undefined in C++
    values = {"uint8": U8, "float32": np.concatenate([IMG, IMG * 1.5 - 0.2]) if sat else IMG,
              "int32": image((2, 3), 5, np.int32, 0, 2**31 - 1)}
    CASES[f"convert_image_dtype_{src}_{dst}_{int(sat)}"] = ("image.convert_image_dtype", (values[src], dst),
                                                            {"saturate": sat})
CASES["psnr"] = ("image.psnr", (BIG, BIG2, 1.0), {})
CASES["psnr_uint8"] = ("image.psnr", (U8, image((2, 5, 7, 3), seed=12, dtype=np.uint8), 255), {})
CASES["ssim"] = ("image.ssim", (BIG, BIG2, 1.0), {})
CASES["ssim_small_window_map"] = ("image.ssim", (BIG, BIG2, 1.0), {"filter_size": 5, "filter_sigma": 1.0,
                                                                   "return_index_map": True})
CASES["ssim_multiscale"] = ("image.ssim_multiscale", (image((1, 50, 45, 2), 13), image((1, 50, 45, 2), 14), 1.0),
                            {"filter_size": 3, "power_factors": (0.2, 0.3, 0.5)})
CASES["total_variation"] = ("image.total_variation", (IMG,), {})
CASES["total_variation_single"] = ("image.total_variation", (ONE,), {})
CASES["image_gradients"] = ("image.image_gradients", (IMG,), {})
CASES["sobel_edges"] = ("image.sobel_edges", (IMG,), {})
BOXES = _boxes(5, 15)
BOX_IND = np.int32([0, 1, 1, 0, 1])
for method in ("bilinear", "nearest"):
    CASES[f"crop_and_resize_{method}"] = ("image.crop_and_resize", (BIG, BOXES, BOX_IND, [4, 6]),
                                          {"method": method, "extrapolation_value": -1.0})
CASES["crop_and_resize_one_pixel"] = ("image.crop_and_resize", (IMG, BOXES[:2], BOX_IND[:2], [1, 1]), {})
for rate in (1, 2):
    CASES[f"extract_patches_valid_{rate}"] = ("image.extract_patches", (BIG,), {
        "sizes": [1, 3, 2, 1], "strides": [1, 2, 3, 1], "rates": [1, rate, 1, 1], "padding": "VALID"})
    CASES[f"extract_patches_same_{rate}"] = ("image.extract_patches", (BIG,), {
        "sizes": [1, 3, 4, 1], "strides": [1, 4, 3, 1], "rates": [1, 1, rate, 1], "padding": "SAME"})
CASES["non_max_suppression"] = ("image.non_max_suppression", (NMS_BOXES, NMS_SCORES, 8, 0.3), {})
CASES["non_max_suppression_threshold"] = ("image.non_max_suppression", (NMS_BOXES, NMS_SCORES, 20, 0.5, 0.4), {})
CASES["non_max_suppression_with_scores_soft"] = ("image.non_max_suppression_with_scores",
                                                 (NMS_BOXES, NMS_SCORES, 12, 0.6, 0.05, 0.5), {})
CASES["non_max_suppression_padded"] = ("image.non_max_suppression_padded", (NMS_BOXES, NMS_SCORES, 12, 0.4, 0.2),
                                       {"pad_to_max_output_size": True})
CASES["non_max_suppression_padded_batched"] = ("image.non_max_suppression_padded", (
    np.stack([NMS_BOXES, NMS_BOXES[::-1], NMS_BOXES * 0.8]).reshape(3, 1, 30, 4),
    np.stack([NMS_SCORES, NMS_SCORES, NMS_SCORES[::-1]]).reshape(3, 1, 30), 7, 0.45, 0.1),
    {"pad_to_max_output_size": True})
_OVERLAPS = _rng(16).uniform(0, 1, (12, 12)).astype(np.float32)
CASES["non_max_suppression_overlaps"] = ("image.non_max_suppression_overlaps",
                                         ((_OVERLAPS + _OVERLAPS.T) / 2, NMS_SCORES[:12], 6, 0.6, 0.1), {})
CASES["combined_non_max_suppression"] = ("image.combined_non_max_suppression", (
    np.stack([NMS_BOXES[:, None, :], NMS_BOXES[::-1, None, :]]), np.stack([
        np.stack([NMS_SCORES, NMS_SCORES[::-1] * 0.9, NMS_SCORES ** 2], 1),
        np.stack([NMS_SCORES ** 0.5, NMS_SCORES * 0.7, NMS_SCORES[::-1]], 1)]).astype(np.float32), 4, 9), {
    "iou_threshold": 0.4, "score_threshold": 0.1})
CASES["combined_non_max_suppression_per_class_boxes"] = ("image.combined_non_max_suppression", (
    np.stack([NMS_BOXES.reshape(15, 2, 4), NMS_BOXES[::-1].reshape(15, 2, 4)]) * 1.3 - 0.1,
    np.stack([np.stack([NMS_SCORES[:15], NMS_SCORES[15:]], 1), np.stack([NMS_SCORES[15:], NMS_SCORES[:15]], 1)]),
    3, 5), {"iou_threshold": 0.5, "pad_per_class": True, "clip_boxes": False})

_DRAW = np.float32([[[0.1, 0.2, 0.7, 0.9], [-0.3, 0.5, 0.4, 1.4], [0.8, 0.1, 0.2, 0.5], [1.2, 0.0, 1.5, 1.0]],
                    [[0.0, 0.0, 1.0, 1.0], [0.35, 0.35, 0.55, 0.6], [0.2, -0.5, 0.6, -0.1], [0.5, 0.5, 0.5, 0.5]]])
CASES["draw_bounding_boxes"] = ("image.draw_bounding_boxes", (image((2, 9, 11, 3), 17), _DRAW,
                                                              np.float32([[0.2, 0.4, 0.6], [1, 0, 0.5]])), {})
CASES["draw_bounding_boxes_default_colors"] = ("image.draw_bounding_boxes", (image((2, 9, 11, 4), 18), _DRAW, None), {})
_OFFSETS = np.float32([[0.1, -0.3], [-0.9, 0.6]])
for centered in (True, False):
    for normalized in (True, False):
        offsets = _OFFSETS if normalized else _OFFSETS * np.float32([6, 8]) + np.float32([1, 2])
        CASES[f"extract_glimpse_{int(centered)}{int(normalized)}"] = ("image.extract_glimpse", (IMG, [3, 4], offsets), {
            "centered": centered, "normalized": normalized, "noise": "zero"})
SDBB_BOXES = np.float32([[[0.1, 0.2, 0.5, 0.7], [0.3, 0.05, 0.9, 0.4]]])
for k, (size, cover, aspect, area) in enumerate([([480, 640, 3], 0.1, None, None), ([300, 200, 3], 0.5, None, None),
                                                 ([57, 91, 1], 0.3, (0.5, 2.0), (0.1, 0.8)),
                                                 ([1000, 1000, 3], 0.9, (0.9, 1.1), (0.5, 1.0))]):
    for seed in ((1, 2), (7, 11), (-3, 123456789)):
        CASES[f"stateless_sample_distorted_bounding_box_{k}_{seed[0]}"] = (
            "image.stateless_sample_distorted_bounding_box", (np.int32(size), SDBB_BOXES, np.int64(seed)),
            {"min_object_covered": cover, "aspect_ratio_range": aspect, "area_range": area})
CASES["stateless_sample_distorted_bounding_box_whole_image"] = (
    "image.stateless_sample_distorted_bounding_box", (np.int32([64, 48, 3]), np.zeros((1, 0, 4), np.float32),
                                                     np.int64([5, 6])),
    {"use_image_if_no_bounding_boxes": True, "max_attempts": 20})
# gradients: d sum(f(x) * w) / dx, w drawn to the output's shape (seed 99)
GRADIENT_CASES = ("resize_bilinear_up", "resize_bicubic_down", "resize_nearest_up", "resize_lanczos3_down_antialias",
                  "raw_ResizeBilinear_10", "ssim", "total_variation", "sobel_edges", "adjust_gamma",
                  "per_image_standardization", "rgb_to_yiq", "rgb_to_hsv", "crop_and_resize_bilinear", "extract_patches_same_2")

BOX_GRADIENT_CASES = ("crop_and_resize_bilinear", "crop_and_resize_nearest", "crop_and_resize_one_pixel")


def weights_for(shape) -> np.ndarray:
    return _rng(99).uniform(-1, 1, shape).astype(np.float32)
