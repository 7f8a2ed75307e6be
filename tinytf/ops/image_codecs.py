"""Image files in and out: DecodePng, DecodeJpeg, DecodeAndCropJpeg, DecodeBmp, DecodeGif, DecodeWebP,
DecodeImage, ExtractJpegShape, EncodePng, EncodeJpeg and EncodeJpegVariableQuality, on Pillow (imported
when an op first runs); tt.image's functions on them are in image_files.py.

    %img = "tf.DecodePng"(%contents) <{channels = 3 : i64, dtype = ui8}> : (tensor<!tf_type.string>)
             -> tensor<?x?x3xui8>

PNG, BMP, GIF and lossless WebP decode to TensorFlow's pixels exactly; JPEG decoding is libjpeg's
(Pillow's), whose inverse DCT may differ from TensorFlow's by a level or two. Strings never reach XLA:
these ops run eagerly and in graphs, and raise UnimplementedError under XLA as TensorFlow's bridge.
"""
from __future__ import annotations

import io

import numpy as np
from xdsl.irdl import operand_def, result_def, traits_def
from xdsl.traits import Pure

import tinytf.dtypes as dtypes
from tinytf.errors import InvalidArgumentError, UnimplementedError
from tinytf.framework.attributes import attr
from tinytf.framework.op import NotDifferentiable, Op, register
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.ops.base import fmt_shape

__all__: list[str] = []  # raw ops; tt.image's decode_* / encode_* functions are image_files.py's

MODES = {1: "L", 2: "LA", 3: "RGB", 4: "RGBA"}


def _bytes(op_name, xp, contents) -> bytes:
    if xp is not np:
        raise UnimplementedError(f"{op_name}: image files are strings, which XLA does not take", op_name)
    value = np.asarray(contents, dtype=object)
    if value.shape != ():
        raise InvalidArgumentError(f"{op_name}: contents must be a scalar string, got shape {list(value.shape)}",
                                   op_name)
    data = value.item()
    return data.encode() if isinstance(data, str) else bytes(data)


def _open(op_name, data: bytes, formats):
    from PIL import Image, UnidentifiedImageError

    try:
        image = Image.open(io.BytesIO(data), formats=formats)
        image.load()
    except (UnidentifiedImageError, OSError, ValueError, SyntaxError) as err:
        names = "/".join(formats) if formats else "image"
        raise InvalidArgumentError(f"{op_name}: Invalid {names} data or header ({err})", op_name) from None
    return image


def pixels(op_name, image, channels: int) -> np.ndarray:
    """[h, w, c] uint8 (or uint16 for 16-bit PNGs) with ``channels`` channels, 0 keeping the file's."""
    if channels not in (0, 1, 2, 3, 4):
        raise InvalidArgumentError(f"{op_name}: channels must be 0, 1, 2, 3 or 4, got {channels}", op_name)
    if image.mode in ("I;16", "I;16B", "I") and channels in (0, 1):
        return np.asarray(image, np.uint16)[..., None]
    if channels in (1, 2) and image.mode in ("RGB", "RGBA"):
        # libpng's RGB -> gray with TensorFlow's weights .299 and .587 (blue the rest), in 1/32768ths, truncated
        rgb = np.asarray(image.convert("RGB"), np.uint32)
        gray = ((rgb @ np.uint32([9798, 19235, 3735])) >> 15).astype(np.uint8)[..., None]
        if channels == 1:
            return gray
        return np.concatenate([gray, np.asarray(image.convert("RGBA"), np.uint8)[..., 3:]], axis=-1)
    if channels == 0:
        channels = {"L": 1, "LA": 2, "RGB": 3, "RGBA": 4, "P": 4 if "transparency" in image.info else 3,
                    "1": 1}.get(image.mode, 3)
    converted = image.convert(MODES[channels])
    array = np.asarray(converted, np.uint8)
    return array[..., None] if array.ndim == 2 else array


def check_contents(op_name, contents):
    if contents.dtype != dtypes.string or (contents.shape is not None and len(contents.shape) != 0):
        raise InvalidArgumentError(f"{op_name}: contents must be a scalar string, got {contents.dtype.name} "
                                   f"{fmt_shape(contents.shape)}", op_name)


class _Decode(Op):
    contents = operand_def()
    image = result_def()
    traits = traits_def(Pure(), NotDifferentiable())

    @classmethod
    def infer(cls, contents, **attrs):
        check_contents(cls.name, contents)
        channels = attrs.get("channels") or None
        return TensorSpec((None, None, channels), cls.out_dtype(attrs))

    @classmethod
    def out_dtype(cls, attrs):
        return dtypes.as_dtype(attrs.get("dtype", dtypes.uint8))


@register
class DecodePng(_Decode):
    """A PNG file's pixels, [height, width, channels], uint8 or uint16."""

    name = "tf.DecodePng"
    channels = attr(0)
    dtype = attr(dtypes.uint8, kind="type")

    @classmethod
    def compute(cls, xp, contents, **attrs):
        out = pixels(cls.name, _open(cls.name, _bytes(cls.name, xp, contents), ["PNG"]), attrs["channels"])
        return _as_dtype(cls.name, out, attrs["dtype"])


def _as_dtype(op_name, array, dtype):
    dtype = dtypes.as_dtype(dtype)
    if dtype == dtypes.uint8:
        return (array >> 8).astype(np.uint8) if array.dtype == np.uint16 else array
    if dtype == dtypes.uint16:
        return array if array.dtype == np.uint16 else array.astype(np.uint16) * np.uint16(257)
    if dtype == dtypes.float32:  # TensorFlow scales 16-bit values by 1/65535 (8-bit PNG data widened first)
        wide = array.astype(np.uint16) * np.uint16(257) if array.dtype == np.uint8 else array
        return wide.astype(np.float32) * np.float32(1.0 / 65535)
    raise InvalidArgumentError(f"{op_name}: dtype must be uint8, uint16 or float32, got {dtype.name}", op_name)


@register
class DecodeJpeg(_Decode):
    """A JPEG file's pixels (libjpeg through Pillow), [height, width, channels] uint8."""

    name = "tf.DecodeJpeg"
    channels = attr(0)
    ratio = attr(1)
    fancy_upscaling = attr(True)
    try_recover_truncated = attr(False)
    acceptable_fraction = attr(1.0)
    dct_method = attr("")

    @classmethod
    def compute(cls, xp, contents, **attrs):
        if attrs["ratio"] not in (1, 2, 4, 8):
            raise InvalidArgumentError(f"{cls.name}: ratio must be 1, 2, 4 or 8, got {attrs['ratio']}", cls.name)
        image = _open(cls.name, _bytes(cls.name, xp, contents), ["JPEG"])
        if attrs["ratio"] > 1:
            image = image.reduce(attrs["ratio"])
        return pixels(cls.name, image, attrs["channels"])


@register
class DecodeAndCropJpeg(_Decode):
    """DecodeJpeg, then the crop_window [y, x, height, width]."""

    name = "tf.DecodeAndCropJpeg"
    crop_window = operand_def()
    channels = attr(0)
    ratio = attr(1)
    fancy_upscaling = attr(True)
    try_recover_truncated = attr(False)
    acceptable_fraction = attr(1.0)
    dct_method = attr("")

    @classmethod
    def infer(cls, contents, crop_window, **attrs):
        if crop_window.dtype != dtypes.int32 or (crop_window.shape is not None and tuple(crop_window.shape) != (4,)):
            raise InvalidArgumentError(f"{cls.name}: crop_window must be int32 [4], got {crop_window.dtype.name} "
                                       f"{fmt_shape(crop_window.shape)}", cls.name)
        return super().infer(contents, **attrs)

    @classmethod
    def compute(cls, xp, contents, crop_window, **attrs):
        _bytes(cls.name, xp, contents)  # its own name in the errors (XLA's refusal among them), not DecodeJpeg's
        full = DecodeJpeg.compute(xp, contents, **attrs)
        y, x, h, w = (int(v) for v in np.asarray(crop_window).reshape(-1))
        if min(y, x) < 0 or min(h, w) <= 0 or y + h > full.shape[0] or x + w > full.shape[1]:
            raise InvalidArgumentError(f"{cls.name}: Invalid JPEG data or crop window, crop window [{y}, {x}, {h}, {w}] "
                                       f"for an image of {list(full.shape[:2])}", cls.name)
        return full[y:y + h, x:x + w]


@register
class DecodeBmp(_Decode):
    """A BMP file's pixels, [height, width, channels] uint8."""

    name = "tf.DecodeBmp"
    channels = attr(0)

    @classmethod
    def compute(cls, xp, contents, **attrs):
        return pixels(cls.name, _open(cls.name, _bytes(cls.name, xp, contents), ["BMP"]), attrs["channels"])


@register
class DecodeGif(_Decode):
    """Every frame of a GIF, [frames, height, width, 3] uint8 (each frame drawn over the previous)."""

    name = "tf.DecodeGif"

    @classmethod
    def infer(cls, contents, **attrs):
        return TensorSpec((None, None, None, 3), super().infer(contents).dtype)

    @classmethod
    def compute(cls, xp, contents):
        from PIL import ImageSequence

        image = _open(cls.name, _bytes(cls.name, xp, contents), ["GIF"])
        return np.stack([np.asarray(frame.convert("RGB"), np.uint8) for frame in ImageSequence.Iterator(image)])


@register
class DecodeWebP(_Decode):
    """A WebP file's frames, [frames, height, width, channels]."""

    name = "tf.DecodeWebP"
    channels = attr(0)
    dtype = attr(dtypes.uint8, kind="type")

    @classmethod
    def compute(cls, xp, contents, **attrs):
        from PIL import ImageSequence

        image = _open(cls.name, _bytes(cls.name, xp, contents), ["WEBP"])
        channels = attrs["channels"] or (4 if image.mode == "RGBA" else 3)
        frames = [pixels(cls.name, frame, channels) for frame in ImageSequence.Iterator(image)]
        return _as_dtype(cls.name, np.stack(frames), attrs["dtype"])


@register
class DecodeImage(_Decode):
    """Any of PNG, JPEG, BMP, GIF and WebP by its signature; GIFs [frames, h, w, 3] with expand_animations."""

    name = "tf.DecodeImage"
    channels = attr(0)
    dtype = attr(dtypes.uint8, kind="type")
    expand_animations = attr(True)

    @classmethod
    def infer(cls, contents, **attrs):
        super().infer(contents, **attrs)
        return TensorSpec(None, cls.out_dtype(attrs))

    @classmethod
    def compute(cls, xp, contents, **attrs):
        data = _bytes(cls.name, xp, contents)
        if data[:3] == b"GIF":
            frames = DecodeGif.compute(xp, contents)
            if attrs["channels"] not in (0, 3):
                raise InvalidArgumentError(f"{cls.name}: channels must be 0 or 3 for GIF, got {attrs['channels']}",
                                           cls.name)
            out = frames if attrs["expand_animations"] else frames[0]
        else:
            out = pixels(cls.name, _open(cls.name, data, ["PNG", "JPEG", "BMP", "WEBP"]), attrs["channels"])
        return _as_dtype(cls.name, out, attrs["dtype"])


@register
class ExtractJpegShape(Op):
    """A JPEG's [height, width, components] from its header."""

    name = "tf.ExtractJpegShape"
    contents = operand_def()
    image_shape = result_def()
    output_type = attr(dtypes.int32, kind="type")
    traits = traits_def(Pure(), NotDifferentiable())

    @classmethod
    def infer(cls, contents, **attrs):
        check_contents(cls.name, contents)
        return TensorSpec((3,), dtypes.as_dtype(attrs["output_type"]))

    @classmethod
    def compute(cls, xp, contents, **attrs):
        image = _open(cls.name, _bytes(cls.name, xp, contents), ["JPEG"])
        out_dtype = dtypes.as_dtype(attrs["output_type"])
        if out_dtype not in (dtypes.int32, dtypes.int64):
            raise InvalidArgumentError(f"{cls.name}: output_type must be int32 or int64, got {out_dtype.name}", cls.name)
        return np.asarray([image.height, image.width, len(image.getbands())], out_dtype.np)


class _Encode(Op):
    image = operand_def()
    contents = result_def()
    traits = traits_def(Pure(), NotDifferentiable())

    @classmethod
    def check(cls, image, allowed=(dtypes.uint8,)):
        if image.dtype not in allowed or (image.shape is not None and len(image.shape) != 3):
            raise InvalidArgumentError(f"{cls.name}: image must be 3-D {'/'.join(d.name for d in allowed)}, got "
                                       f"{image.dtype.name} {fmt_shape(image.shape)}", cls.name)
        return TensorSpec((), dtypes.string)

    @classmethod
    def picture(cls, xp, image, channels=(1, 2, 3, 4)):
        from PIL import Image

        if xp is not np:
            raise UnimplementedError(f"{cls.name}: image files are strings, which XLA does not make", cls.name)
        if image.ndim != 3 or image.shape[2] not in channels or 0 in image.shape[:2]:
            raise InvalidArgumentError(f"{cls.name}: image must be [height, width, {' or '.join(map(str, channels))}] "
                                       f"and not empty, got {list(image.shape)}", cls.name)
        if image.dtype == np.uint16:
            return Image.fromarray(np.ascontiguousarray(image[..., 0]))  # (Pillow's mode I;16)
        return Image.fromarray(np.ascontiguousarray(image if image.shape[2] > 1 else image[..., 0]),
                               mode=MODES[image.shape[2]])

    @staticmethod
    def saved(picture, fmt, **options) -> np.ndarray:
        out = io.BytesIO()
        picture.save(out, format=fmt, **options)
        return np.asarray(out.getvalue(), dtype=object)


@register
class EncodePng(_Encode):
    """A PNG file of an [height, width, channels] uint8 or uint16 image (zlib level ``compression``)."""

    name = "tf.EncodePng"
    compression = attr(-1)

    @classmethod
    def infer(cls, image, **attrs):
        return cls.check(image, (dtypes.uint8, dtypes.uint16))

    @classmethod
    def compute(cls, xp, image, **attrs):
        if image.dtype == np.uint16 and image.shape[-1] != 1:
            raise UnimplementedError(f"{cls.name}: 16-bit images of more than one channel are not built yet", cls.name)
        level = attrs["compression"]
        return cls.saved(cls.picture(xp, image), "PNG", compress_level=6 if level < 0 else min(level, 9))


def _jpeg(cls, xp, image, quality, attrs):
    if not 0 <= quality <= 100:
        raise InvalidArgumentError(f"{cls.name}: quality must be in [0,100], got {quality}", cls.name)
    picture = cls.picture(xp, image, channels=(1, 3))
    return cls.saved(picture, "JPEG", quality=int(quality), progressive=bool(attrs.get("progressive")),
                     optimize=bool(attrs.get("optimize_size")),
                     subsampling=2 if attrs.get("chroma_downsampling", True) else 0)


@register
class EncodeJpeg(_Encode):
    """A JPEG file of an [height, width, 1 or 3] uint8 image at ``quality``."""

    name = "tf.EncodeJpeg"
    format = attr("")
    quality = attr(95)
    progressive = attr(False)
    optimize_size = attr(False)
    chroma_downsampling = attr(True)
    density_unit = attr("in")
    x_density = attr(300)
    y_density = attr(300)
    xmp_metadata = attr("")

    @classmethod
    def infer(cls, image, **attrs):
        return cls.check(image)

    @classmethod
    def compute(cls, xp, image, **attrs):
        return _jpeg(cls, xp, image, attrs["quality"], attrs)


@register
class EncodeJpegVariableQuality(_Encode):
    """EncodeJpeg with the quality an int32 scalar operand."""

    name = "tf.EncodeJpegVariableQuality"
    image = operand_def()  # (again: the image first, then the quality, as TensorFlow's operands)
    quality = operand_def()

    @classmethod
    def infer(cls, image, quality):
        return cls.check(image)

    @classmethod
    def compute(cls, xp, image, quality):
        return _jpeg(cls, xp, image, int(np.asarray(quality)), {})
