"""tt.image's image-file functions on the ops of image_codecs.py: decode_png / jpeg / bmp / gif / webp /
image, decode_and_crop_jpeg, extract_jpeg_shape, encode_png / jpeg, is_jpeg, and the JPEG-quality
augmentations (adjust_jpeg_quality, random_jpeg_quality, stateless_random_jpeg_quality).

    image = tt.image.decode_png(png_bytes)                   # [height, width, channels] uint8
    tt.image.adjust_jpeg_quality(image, 30)                   # JPEG artefacts, as TensorFlow's augmentation
"""
from __future__ import annotations

import numpy as np

import tinytf.dtypes as dtypes
from tinytf.errors import InvalidArgumentError
from tinytf.ops.image_codecs import (
    DecodeAndCropJpeg,
    DecodeBmp,
    DecodeGif,
    DecodeImage,
    DecodeJpeg,
    DecodePng,
    DecodeWebP,
    EncodeJpeg,
    EncodeJpegVariableQuality,
    EncodePng,
    ExtractJpegShape,
)

__all__ = ["decode_png", "decode_jpeg", "decode_and_crop_jpeg", "decode_bmp", "decode_gif", "decode_webp",
           "decode_image", "extract_jpeg_shape", "encode_png", "encode_jpeg", "is_jpeg", "adjust_jpeg_quality",
           "random_jpeg_quality", "stateless_random_jpeg_quality"]
__namespaces__ = {n: ("image",) for n in __all__}


def _contents(contents):
    from tinytf.ops.tensor_inputs import as_tensor

    return as_tensor(np.asarray(contents, dtype=object) if isinstance(contents, bytes | str) else contents)


def decode_png(contents, channels=0, dtype=dtypes.uint8, name=None):
    return DecodePng.bind(_contents(contents), channels=channels, dtype=dtype)


def decode_jpeg(contents, channels=0, ratio=1, fancy_upscaling=True, try_recover_truncated=False,
                acceptable_fraction=1, dct_method="", name=None):
    return DecodeJpeg.bind(_contents(contents), channels=channels, ratio=ratio, fancy_upscaling=fancy_upscaling,
                           try_recover_truncated=try_recover_truncated, acceptable_fraction=float(acceptable_fraction),
                           dct_method=dct_method)


def decode_and_crop_jpeg(contents, crop_window, channels=0, ratio=1, fancy_upscaling=True, try_recover_truncated=False,
                         acceptable_fraction=1, dct_method="", name=None):
    return DecodeAndCropJpeg.bind(_contents(contents), np.asarray(crop_window, np.int32), channels=channels,
                                  ratio=ratio)


def decode_bmp(contents, channels=0, name=None):
    return DecodeBmp.bind(_contents(contents), channels=channels)


def decode_gif(contents, name=None):
    return DecodeGif.bind(_contents(contents))


def decode_webp(contents, channels=0, dtype=dtypes.uint8, name=None):
    return DecodeWebP.bind(_contents(contents), channels=channels, dtype=dtype)


def decode_image(contents, channels=None, dtype=dtypes.uint8, name=None, expand_animations=True):
    return DecodeImage.bind(_contents(contents), channels=channels or 0, dtype=dtype,
                            expand_animations=expand_animations)


def extract_jpeg_shape(contents, output_type=dtypes.int32, name=None):
    return ExtractJpegShape.bind(_contents(contents), output_type=output_type)


def encode_png(image, compression=-1, name=None):
    from tinytf.ops.tensor_inputs import as_tensor

    return EncodePng.bind(as_tensor(image), compression=compression)


def encode_jpeg(image, format="", quality=95, progressive=False, optimize_size=False,  # noqa: A002
                chroma_downsampling=True, density_unit="in", x_density=300, y_density=300, xmp_metadata="", name=None):
    from tinytf.ops.tensor_inputs import as_tensor

    return EncodeJpeg.bind(as_tensor(image), format=format, quality=quality, progressive=progressive,
                           optimize_size=optimize_size, chroma_downsampling=chroma_downsampling)


def is_jpeg(contents, name=None):
    """Whether the file starts with JPEG's signature FF D8 FF (as TensorFlow: tf.Substr and tf.Equal)."""
    from tinytf.ops.op_functions import ops
    from tinytf.ops.string_substr import Substr

    start = Substr.bind(_contents(contents), np.int32(0), np.int32(3))
    return ops.equal(start, np.asarray(b"\xff\xd8\xff", dtype=object))


def adjust_jpeg_quality(image, jpeg_quality, dct_method="", name=None):
    """The image JPEG-encoded at ``jpeg_quality`` and decoded again, in its dtype."""
    from tinytf.ops.image_color import convert_image_dtype
    from tinytf.ops.tensor_inputs import as_tensor, static_dims

    image = as_tensor(image)
    channels = static_dims(image)[-1]
    encoded = EncodeJpegVariableQuality.bind(convert_image_dtype(image, dtypes.uint8, saturate=True),
                                             as_tensor(np.int32(jpeg_quality)) if isinstance(jpeg_quality, int)
                                             else jpeg_quality)
    return convert_image_dtype(DecodeJpeg.bind(encoded, channels=channels, dct_method=dct_method), image.dtype,
                               saturate=True)


def _check_quality_range(low, high):
    if not (0 <= low <= 100 and 0 <= high <= 100):
        raise InvalidArgumentError("jpeg encoding range must be between 0 and 100.", "tf.EncodeJpegVariableQuality")
    if low >= high:
        raise InvalidArgumentError("`min_jpeg_quality` must be less than `max_jpeg_quality`.",
                                   "tf.EncodeJpegVariableQuality")


def random_jpeg_quality(image, min_jpeg_quality, max_jpeg_quality, seed=None):
    from tinytf.ops.random_uniform import uniform

    _check_quality_range(min_jpeg_quality, max_jpeg_quality)
    return adjust_jpeg_quality(image, uniform([], min_jpeg_quality, max_jpeg_quality, dtype=dtypes.int32, seed=seed))


def stateless_random_jpeg_quality(image, min_jpeg_quality, max_jpeg_quality, seed):
    from tinytf.ops.random_uniform import stateless_uniform

    _check_quality_range(min_jpeg_quality, max_jpeg_quality)
    return adjust_jpeg_quality(image, stateless_uniform([], seed, min_jpeg_quality, max_jpeg_quality,
                                                        dtype=dtypes.int32))
