"""tt.signal.mdct and inverse_mdct: the modified discrete cosine transform of half-overlapping frames, as
TensorFlow's mdct_ops.py builds it: frame, window, fold the four quarters of each frame, DCT-IV.

    coefficients = tt.signal.mdct(audio, 256)               # [..., frames, 128]
    audio2 = tt.signal.inverse_mdct(coefficients)            # audio again, but for the first and last half frame

Written with other ops (frame, reverse, concat, dct, overlap_and_add), so the gradients follow. The
default window, vorbis_window, meets the Princen-Bradley condition, so inverse_mdct inverts mdct.
"""
from __future__ import annotations

import numpy as np

from tinytf.errors import InvalidArgumentError, UnimplementedError
from tinytf.ops.op_functions import ops
from tinytf.ops.signal_dct import dct
from tinytf.ops.signal_frames import frame, overlap_and_add
from tinytf.ops.signal_windows import vorbis_window
from tinytf.ops.tensor_inputs import as_tensor, static_dims

__all__ = ["mdct", "inverse_mdct"]
__namespaces__ = {n: ("signal",) for n in __all__}


def _reversed(x):
    return ops.reverse(x, [-1])


def _quarters(x):
    """x's innermost dim split in four equal parts."""
    return ops.split(x, 4, axis=-1)


def _check_norm(what, norm):
    if norm not in (None, "ortho"):
        raise InvalidArgumentError(f"tt.signal.{what}: norm must be None or 'ortho', got {norm!r}", "tf.RFFT")


def mdct(signals, frame_length, window_fn=vorbis_window, pad_end=False, norm=None, name=None):
    """``tt.signal.mdct``: [..., samples] -> [..., frames, frame_length // 2], frames every frame_length // 2
    samples; frame_length must be a multiple of 4. Without a window the frames are scaled by 1/sqrt(2)."""
    x = as_tensor(signals)
    _check_norm("mdct", norm)
    length = int(frame_length)
    if length % 4:
        raise InvalidArgumentError(f"tt.signal.mdct: frame_length must be a multiple of 4, got {length}", "tf.RFFT")
    if not x.dtype.is_floating:
        raise InvalidArgumentError(f"tt.signal.mdct: signals must be float, got {x.dtype.name}", "tf.RFFT")
    frames = frame(x, length, length // 2, pad_end=pad_end)
    if window_fn is not None:
        frames = ops.multiply(frames, window_fn(length, dtype=frames.dtype))
    else:
        frames = ops.multiply(frames, ops.scalar_like(frames, 1.0 / np.sqrt(2.0)))
    a, b, c, d = _quarters(frames)
    # the time-domain aliasing fold: [-c_r - d, a - b_r]
    folded = ops.concat([ops.subtract(ops.negative(_reversed(c)), d), ops.subtract(a, _reversed(b))], -1)
    return dct(folded, type=4, norm=norm)


def inverse_mdct(mdcts, window_fn=vorbis_window, norm=None, name=None):
    """``tt.signal.inverse_mdct``: [..., frames, n] -> [..., (frames + 1) · n]: the DCT-IV of each frame
    unfolded to 2n samples, windowed and overlap-added."""
    y = as_tensor(mdcts)
    _check_norm("inverse_mdct", norm)
    dims = static_dims(y)
    if dims is None or len(dims) < 2 or dims[-1] is None:
        raise UnimplementedError(f"tt.signal.inverse_mdct: the innermost dim must be static and the rank at least 2, "
                                 f"got {dims}", "tf.RFFT")
    half = dims[-1]
    if half % 2:
        raise InvalidArgumentError(f"tt.signal.inverse_mdct: the innermost dim must be even, got {half}", "tf.RFFT")
    if norm is None:
        unfolded = ops.multiply(dct(y, type=4), ops.scalar_like(y, 0.5 / half))
    else:
        unfolded = dct(y, type=4, norm="ortho")
    first, second = ops.split(unfolded, 2, axis=-1)
    frames = ops.concat([second, ops.negative(_reversed(second)), ops.negative(_reversed(first)),
                         ops.negative(first)], -1)
    if window_fn is not None:
        frames = ops.multiply(frames, window_fn(2 * half, dtype=frames.dtype))
    else:
        frames = ops.multiply(frames, ops.scalar_like(frames, 1.0 / np.sqrt(2.0)))
    return overlap_and_add(frames, half)
