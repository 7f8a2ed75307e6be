"""The summaries: ``scalar``, ``histogram``, ``image``, ``text`` and ``write``, in TensorFlow 2's form.

    with writer.as_default():
        scalar("loss", 0.25, step=3)                    # True: written
        histogram("weights", w, step=3, buckets=30)
        image("samples", batch_nhwc, step=3, max_outputs=3)
        text("notes", "hello", step=3)

Each is one ``Summary.Value`` with a ``tensor`` and ``metadata.plugin_data.plugin_name``, exactly as
``tf.summary`` in TensorFlow 2 writes it (checked against TensorFlow 2.21's files):

- ``scalars``: a float32 scalar (``tensor_content``);
- ``histograms``: a float64 ``[k, 3]`` tensor of (left edge, right edge, count), TensorBoard's
  bucketing (``k`` buckets of equal width over [min, max], the last one closed; one value: all
  edges equal it and the last bucket counts everything; no data: zeros);
- ``images``: a string tensor ``[width, height, png, png, ...]`` of at most ``max_outputs`` images
  (float pixels scaled by 255.5 and saturated to uint8, as ``tf.image.convert_image_dtype``);
- ``text``: a string tensor of any shape.

Tags are prefixed with the current ``tt.name_scope``. Without a default writer nothing is written and
the functions return False. Summaries are written eagerly; inside a ``tt.function`` trace they are
an UnimplementedError.
"""
from __future__ import annotations

import numpy as np

from tinytf.errors import InvalidArgumentError, UnimplementedError
from tinytf.framework import name_scope
from tinytf.summary import writer as writers
from tinytf.summary.png import encode_png

DEFAULT_BUCKET_COUNT = 30


def _protos():
    from tinytf.formats import protos

    return protos


def _numpy(value, what: str) -> np.ndarray:
    if type(value).__name__ == "SymbolicTensor":
        raise UnimplementedError(f"tt.summary.{what} inside a tt.function trace: tinytf writes summaries eagerly; "
                                 "return the value and write it outside the function")
    if hasattr(value, "numpy"):
        value = value.numpy()
    return np.asarray(value)


def metadata(plugin_name: str, description: str | None = None, content: bytes = b""):
    """A SummaryMetadata for ``plugin_name`` (the plugins' version-0 data serializes to empty bytes)."""
    meta = _protos().summary_pb2.SummaryMetadata()
    meta.plugin_data.plugin_name = plugin_name
    if content:
        meta.plugin_data.content = content
    if description:
        meta.summary_description = description
    return meta


def tensor_proto(array: np.ndarray):
    """A TensorProto as TensorFlow's summary writer makes it: raw ``tensor_content``, or ``string_val``."""
    from tinytf.formats.tensor_proto import enum_of

    tensor = _protos().tensor_pb2.TensorProto()
    tensor.tensor_shape.SetInParent()
    for d in array.shape:
        tensor.tensor_shape.dim.add(size=int(d))
    if array.dtype.kind in "OSU":
        tensor.dtype = _protos().types_pb2.DT_STRING
        tensor.string_val.extend(x.encode("utf-8") if isinstance(x, str) else bytes(x) for x in array.reshape(-1))
    else:
        array = np.ascontiguousarray(array, dtype=array.dtype.newbyteorder("<"))
        tensor.dtype = enum_of(array.dtype)
        tensor.tensor_content = array.tobytes()
    return tensor


def write(tag: str, tensor, step=None, metadata=None, name=None) -> bool:
    """Write ``tensor`` under ``tag`` (not name-scoped, as TensorFlow's ``tf.summary.write``)."""
    writer = writers.get_default_writer()
    if writer is None:
        return False
    array = tensor if isinstance(tensor, np.ndarray) else _numpy(tensor, "write")
    summary = _protos().summary_pb2.Summary()
    value = summary.value.add(tag=tag, tensor=tensor_proto(array))
    if metadata is not None:
        value.metadata.CopyFrom(metadata)
    writer.write_summary(summary, writers.resolve_step(step))
    return True


def _scoped(name: str) -> str:
    if not isinstance(name, str) or not name:
        raise InvalidArgumentError(f"a summary needs a non-empty string name, got {name!r}")
    return name_scope.prefixed(name)


def scalar(name: str, data, step=None, description: str | None = None) -> bool:
    """A scalar (cast to float32) for TensorBoard's Scalars dashboard."""
    if writers.get_default_writer() is None:
        return False
    array = _numpy(data, "scalar")
    if array.shape != ():
        raise InvalidArgumentError(f"tt.summary.scalar '{name}': expected a scalar, got shape {list(array.shape)}")
    if array.dtype.kind not in "biuf":
        raise InvalidArgumentError(f"tt.summary.scalar '{name}': cannot cast {array.dtype} to float")
    return write(_scoped(name), array.astype(np.float32), step, metadata("scalars", description))


def histogram_buckets(data, bucket_count: int = DEFAULT_BUCKET_COUNT) -> np.ndarray:
    """``[bucket_count, 3]`` float64 (left edge, right edge, count), TensorBoard's v3 bucketing."""
    data = np.asarray(data, np.float64).reshape(-1)
    bucket_count = max(int(bucket_count), 0)
    if data.size == 0 or bucket_count == 0:
        return np.zeros((bucket_count, 3), np.float64)
    low, high = data.min(), data.max()
    if high - low == 0:
        counts = np.zeros(bucket_count, np.float64)
        counts[-1] = data.size
        edges = np.full(bucket_count, high)
        return np.stack([edges, edges, counts], axis=1)
    width = (high - low) / bucket_count
    indices = np.minimum(np.floor((data - low) / width).astype(np.int64), bucket_count - 1)
    counts = np.bincount(indices, minlength=bucket_count).astype(np.float64)
    edges = np.linspace(low, high, bucket_count + 1)
    edges[-1] = high
    return np.stack([edges[:-1], edges[1:], counts], axis=1)


def histogram(name: str, data, step=None, buckets: int | None = None, description: str | None = None) -> bool:
    """A histogram of every element of ``data`` for the Histograms and Distributions dashboards."""
    if writers.get_default_writer() is None:
        return False
    array = _numpy(data, "histogram")
    if array.dtype.kind not in "biuf":
        raise InvalidArgumentError(f"tt.summary.histogram '{name}': cannot cast {array.dtype} to float64")
    return write(_scoped(name), histogram_buckets(array, DEFAULT_BUCKET_COUNT if buckets is None else buckets),
                 step, metadata("histograms", description))


def _to_uint8(images: np.ndarray) -> np.ndarray:
    if images.dtype == np.uint8:
        return images
    if images.dtype.kind == "f":
        return np.clip(images.astype(np.float64) * 255.5, 0, 255).astype(np.uint8)
    if images.dtype.kind in "iu":  # tf.image.convert_image_dtype: keep the most significant 8 bits
        bits = images.dtype.itemsize * 8 - (1 if images.dtype.kind == "i" else 0)
        return (np.maximum(images.astype(np.int64), 0) >> max(bits - 8, 0)).astype(np.uint8)
    if images.dtype == bool:
        return images.astype(np.uint8) * 255
    raise InvalidArgumentError(f"tt.summary.image: cannot convert {images.dtype} pixels to uint8")


def image(name: str, data, step=None, max_outputs: int = 3, description: str | None = None) -> bool:
    """Up to ``max_outputs`` images of a ``[k, height, width, channels]`` batch (1, 2, 3 or 4 channels)."""
    if writers.get_default_writer() is None:
        return False
    images = _numpy(data, "image")
    if images.ndim != 4 or images.shape[3] not in (1, 2, 3, 4):
        raise InvalidArgumentError(f"tt.summary.image '{name}': expected [k, height, width, 1|2|3|4], got shape "
                                   f"{list(images.shape)}")
    pixels = _to_uint8(images[:max(int(max_outputs), 0)])
    height, width = images.shape[1], images.shape[2]
    value = np.array([str(width).encode(), str(height).encode(), *[encode_png(p) for p in pixels]], dtype=object)
    return write(_scoped(name), value, step, metadata("images", description))


def text(name: str, data, step=None, description: str | None = None) -> bool:
    """A string tensor (any shape; markdown) for TensorBoard's Text dashboard."""
    if writers.get_default_writer() is None:
        return False
    array = np.asarray(data.numpy() if hasattr(data, "numpy") else data, dtype=object)
    if not all(isinstance(x, str | bytes) for x in array.reshape(-1)):
        raise InvalidArgumentError(f"tt.summary.text '{name}': expected strings")
    return write(_scoped(name), array, step, metadata("text", description))
