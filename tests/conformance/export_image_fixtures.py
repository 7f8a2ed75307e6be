"""Record TensorFlow's results for the tt.image cases (tests/conformance/image_cases.py).

Run by hand with TensorFlow installed, never in CI (tinytf is not imported):

    .venv-bench/bin/python tests/conformance/export_image_fixtures.py [--out tests/fixtures/image/tf_image.npz]

Writes one npz: ``CASE/i`` = output i of CASE (eagerly), ``grad/CASE`` = d sum(out * w) / d input 0 for the
gradient cases, ``grad_boxes/CASE`` the same for crop_and_resize's boxes, and ``__meta__`` = TensorFlow's version.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
DEFAULT_OUT = HERE.parent / "fixtures" / "image" / "tf_image.npz"


def load_cases():
    spec = importlib.util.spec_from_file_location("image_cases", HERE / "image_cases.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def resolve(root, path: str):
    for part in path.split("."):
        root = getattr(root, part)
    return root


def codec_cases(tf, cases) -> dict:
    """Image files (TensorFlow's PNG and JPEG encodings; GIF, BMP and WebP written with Pillow) and
    TensorFlow's decodings of them: ``codec/NAME/bytes`` (uint8) and ``codec/NAME/...`` arrays."""
    import io

    from PIL import Image

    rgb = cases.image((6, 9, 3), seed=21, dtype=np.uint8)
    gray16 = (cases.image((5, 4, 1), seed=22) * 65535).astype(np.uint16)
    smooth = np.clip(np.add.outer(np.arange(16) * 12, np.arange(24) * 7)[..., None] + np.array([0, 40, 80]), 0,
                     255).astype(np.uint8)

    def pillow(frames, fmt, **options):
        out = io.BytesIO()
        pictures = [Image.fromarray(f) for f in frames]
        pictures[0].save(out, format=fmt, save_all=len(pictures) > 1, append_images=pictures[1:], **options)
        return out.getvalue()

    files = {
        "png_rgb": tf.io.encode_png(rgb).numpy(), "png_gray16": tf.io.encode_png(gray16).numpy(),
        "jpeg": tf.io.encode_jpeg(smooth, quality=90).numpy(),
        "gif": pillow([rgb, rgb[::-1]], "GIF"), "bmp": pillow([rgb], "BMP"),
        "webp": pillow([rgb], "WEBP", lossless=True),
    }
    out = {f"codec/{k}/bytes": np.frombuffer(v, np.uint8) for k, v in files.items()}
    out["codec/png_rgb/decoded"] = tf.io.decode_png(files["png_rgb"]).numpy()
    out["codec/png_rgb/gray"] = tf.io.decode_png(files["png_rgb"], channels=1).numpy()
    out["codec/png_rgb/rgba"] = tf.io.decode_png(files["png_rgb"], channels=4).numpy()
    out["codec/png_gray16/decoded"] = tf.io.decode_png(files["png_gray16"], dtype=tf.uint16).numpy()
    out["codec/png_gray16/as_uint8"] = tf.io.decode_png(files["png_gray16"]).numpy()
    out["codec/jpeg/decoded"] = tf.io.decode_jpeg(files["jpeg"]).numpy()
    out["codec/jpeg/gray"] = tf.io.decode_jpeg(files["jpeg"], channels=1).numpy()
    out["codec/jpeg/shape"] = tf.image.extract_jpeg_shape(files["jpeg"]).numpy()
    out["codec/jpeg/crop"] = tf.image.decode_and_crop_jpeg(files["jpeg"], [2, 3, 8, 10]).numpy()
    out["codec/jpeg/quality_20"] = tf.image.adjust_jpeg_quality(smooth, 20).numpy()
    out["codec/gif/decoded"] = tf.io.decode_gif(files["gif"]).numpy()
    out["codec/bmp/decoded"] = tf.io.decode_bmp(files["bmp"]).numpy()
    out["codec/webp/decoded"] = tf.io.decode_webp(files["webp"]).numpy()
    out["codec/image/png_float"] = tf.io.decode_image(files["png_rgb"], dtype=tf.float32).numpy()
    out["codec/image/gif"] = tf.io.decode_image(files["gif"]).numpy()
    out["codec/image/gif_first"] = tf.io.decode_image(files["gif"], expand_animations=False).numpy()
    out["codec/jpeg/is_jpeg"] = tf.image.is_jpeg(files["jpeg"]).numpy()
    out["codec/png_rgb/is_jpeg"] = tf.image.is_jpeg(files["png_rgb"]).numpy()
    out["codec/substr/bytes"] = tf.strings.substr(["hello", "world", "ab"], [1, -3, 0], [2, 5, 9]).numpy().astype("S")
    out["codec/substr/utf8"] = tf.strings.substr(["h\u00e9llo w\u00f6rld", "\u00fc"], 1, 4, unit="UTF8_CHAR").numpy().astype("S")
    out["codec/inputs/rgb"], out["codec/inputs/gray16"], out["codec/inputs/smooth"] = rgb, gray16, smooth
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(DEFAULT_OUT))
    args = parser.parse_args()
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    import tensorflow as tf

    def tensors(values):  # TensorFlow's image functions want tensors, not arrays
        return [tf.constant(v) if isinstance(v, np.ndarray) else v for v in values]

    cases = load_cases()
    out = {}
    for name, (path, call_args, kwargs) in cases.CASES.items():
        result = resolve(tf, path)(*tensors(call_args), **dict(zip(kwargs, tensors(kwargs.values()), strict=True)))
        results = result if isinstance(result, tuple | list) else [result]
        for i, value in enumerate(results):
            out[f"{name}/{i}"] = np.asarray(value)
    for name in cases.GRADIENT_CASES:
        path, call_args, kwargs = cases.CASES[name]
        call_args, kwargs = list(call_args), dict(kwargs)
        x = tf.constant(call_args[0] if call_args else kwargs["images"])
        with tf.GradientTape() as tape:
            tape.watch(x)
            if call_args:
                call_args[0] = x
            else:
                kwargs["images"] = x
            y = resolve(tf, path)(*call_args, **kwargs)
            loss = tf.reduce_sum(y * cases.weights_for(y.shape))
        out[f"grad/{name}"] = tape.gradient(loss, x).numpy()
    for name in cases.BOX_GRADIENT_CASES:  # crop_and_resize's gradient with respect to the boxes
        path, (image, boxes, *rest), kwargs = cases.CASES[name]
        b = tf.constant(boxes)
        with tf.GradientTape() as tape:
            tape.watch(b)
            y = resolve(tf, path)(tf.constant(image), b, *rest, **kwargs)
            loss = tf.reduce_sum(y * cases.weights_for(y.shape))
        out[f"grad_boxes/{name}"] = tape.gradient(loss, b).numpy()
    out.update(codec_cases(tf, cases))
    tf.random.set_seed(3)  # the stateful random crop: two calls of one op, its stream continuing
    for call in range(2):
        crop = tf.image.sample_distorted_bounding_box([480, 640, 3], cases.SDBB_BOXES, seed=7, min_object_covered=0.2)
        for i, value in enumerate(crop):
            out[f"sample_distorted_bounding_box/{call}/{i}"] = value.numpy()
    out["__meta__"] = np.asarray(json.dumps({"tensorflow": tf.__version__}))
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(args.out, **out)
    print(f"wrote {len(out)} arrays to {args.out}")


if __name__ == "__main__":
    main()
