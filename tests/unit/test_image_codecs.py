"""tt.image's decoders against TensorFlow 2.21's decodings of the same files (TF's PNG and JPEG encodings,
GIF / BMP / WebP files written with Pillow; tests/conformance/export_image_fixtures.py), eagerly and in a
graph; the encoders by round trip; the refusals (bad data, XLA)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import tinytf as tt
from tinytf.errors import InvalidArgumentError, UnimplementedError

RECORDED = np.load(Path(__file__).resolve().parents[1] / "fixtures" / "image" / "tf_image.npz")
im = tt.image


def data(name) -> bytes:
    return RECORDED[f"codec/{name}/bytes"].tobytes()


EXACT = {
    "png_rgb/decoded": lambda: im.decode_png(data("png_rgb")),
    "png_rgb/gray": lambda: im.decode_png(data("png_rgb"), channels=1),
    "png_rgb/rgba": lambda: im.decode_png(data("png_rgb"), channels=4),
    "png_gray16/decoded": lambda: im.decode_png(data("png_gray16"), dtype=tt.uint16),
    "png_gray16/as_uint8": lambda: im.decode_png(data("png_gray16")),
    "jpeg/shape": lambda: im.extract_jpeg_shape(data("jpeg")),
    "gif/decoded": lambda: im.decode_gif(data("gif")),
    "bmp/decoded": lambda: im.decode_bmp(data("bmp")),
    "webp/decoded": lambda: im.decode_webp(data("webp")),
    "image/png_float": lambda: im.decode_image(data("png_rgb"), dtype=tt.float32),
    "image/gif": lambda: im.decode_image(data("gif")),
    "image/gif_first": lambda: im.decode_image(data("gif"), expand_animations=False),
}
# libjpeg's inverse DCT in Pillow (islow) and TensorFlow's (ifast by default) round differently: a few levels.
JPEG = {
    "jpeg/decoded": lambda: im.decode_jpeg(data("jpeg")),
    "jpeg/gray": lambda: im.decode_jpeg(data("jpeg"), channels=1),
    "jpeg/crop": lambda: im.decode_and_crop_jpeg(data("jpeg"), [2, 3, 8, 10]),
    "jpeg/quality_20": lambda: im.adjust_jpeg_quality(RECORDED["codec/inputs/smooth"], 20),
}
JPEG_LEVELS = 4


@pytest.mark.parametrize("graph", [False, True], ids=["eager", "graph"])
@pytest.mark.parametrize("name", sorted(EXACT))
def test_decoders_equal_tensorflows(name, graph):
    got = (tt.function(EXACT[name]) if graph else EXACT[name])().numpy()
    want = RECORDED[f"codec/{name}"]
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want) if want.dtype.kind in "iu" else np.testing.assert_allclose(got, want)


@pytest.mark.parametrize("name", sorted(JPEG))
def test_jpeg_decodes_like_tensorflows(name):
    got, want = JPEG[name]().numpy(), RECORDED[f"codec/{name}"]
    assert got.dtype == want.dtype and got.shape == want.shape
    assert np.abs(got.astype(int) - want.astype(int)).max() <= JPEG_LEVELS


def test_encoders_round_trip():
    rgb, gray16 = RECORDED["codec/inputs/rgb"], RECORDED["codec/inputs/gray16"]
    np.testing.assert_array_equal(im.decode_png(im.encode_png(rgb)).numpy(), rgb)
    np.testing.assert_array_equal(im.decode_png(im.encode_png(gray16, compression=9), dtype=tt.uint16).numpy(), gray16)
    smooth = RECORDED["codec/inputs/smooth"]
    encoded = im.encode_jpeg(smooth, quality=95)
    assert encoded.dtype == tt.string and np.asarray(encoded.numpy(), dtype=object).item()[:3] == b"\xff\xd8\xff"
    assert np.abs(im.decode_jpeg(encoded).numpy().astype(int) - smooth).mean() < 2
    assert im.extract_jpeg_shape(encoded).numpy().tolist() == [16, 24, 3]


def test_random_jpeg_quality_stays_an_image():
    smooth = RECORDED["codec/inputs/smooth"].astype(np.float32) / 255
    for out in (im.random_jpeg_quality(smooth, 50, 90, seed=3), im.stateless_random_jpeg_quality(smooth, 50, 90, [1, 2])):
        assert out.dtype == tt.float32 and out.shape == smooth.shape
        assert np.abs(out.numpy() - smooth).mean() < 0.02
    with pytest.raises(InvalidArgumentError, match="less than"):
        im.random_jpeg_quality(smooth, 90, 50)


def test_refusals():
    with pytest.raises(InvalidArgumentError, match="Invalid PNG"):
        im.decode_png(b"not a png")
    with pytest.raises(InvalidArgumentError, match="Invalid JPEG"):
        im.decode_jpeg(data("png_rgb"))
    with pytest.raises(InvalidArgumentError, match="channels"):
        im.decode_png(data("png_rgb"), channels=5)
    with pytest.raises(InvalidArgumentError, match="crop window"):
        im.decode_and_crop_jpeg(data("jpeg"), [10, 3, 8, 10])
    with pytest.raises(UnimplementedError, match="XLA"):
        tt.function(lambda c: im.decode_png(c), jit_compile=True)(tt.constant(data("png_rgb")))


@pytest.mark.parametrize("graph", [False, True], ids=["eager", "graph"])
def test_is_jpeg_and_substr_equal_tensorflows(graph):
    run = (lambda f: tt.function(f)()) if graph else (lambda f: f())
    for name in ("jpeg", "png_rgb"):
        assert bool(run(lambda name=name: im.is_jpeg(data(name))).numpy()) == bool(RECORDED[f"codec/{name}/is_jpeg"])
    got = run(lambda: tt.raw_ops.Substr(input=tt.constant([b"hello", b"world", b"ab"]), pos=np.int32([1, -3, 0]),
                                        len=np.int32([2, 5, 9])))
    assert got.numpy().tolist() == RECORDED["codec/substr/bytes"].tolist()
    text = ["h\u00e9llo w\u00f6rld".encode(), "\u00fc".encode()]
    got = run(lambda: tt.raw_ops.Substr(input=tt.constant(text), pos=np.int32(1), len=np.int32(4), unit="UTF8_CHAR"))
    assert got.numpy().tolist() == RECORDED["codec/substr/utf8"].tolist()
    with pytest.raises(InvalidArgumentError, match="out of range"):
        tt.raw_ops.Substr(input=tt.constant([b"ab"]), pos=np.int32(3), len=np.int32(1))
