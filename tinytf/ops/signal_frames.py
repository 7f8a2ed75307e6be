"""tt.signal's framing: frame, overlap_and_add, and the short-time Fourier transform built on them.

    frames = tt.signal.frame(audio, 512, 128)                      # [..., num_frames, 512]
    spec = tt.signal.stft(audio, 512, 128)                         # [..., num_frames, 257] complex
    audio2 = tt.signal.inverse_stft(spec, 512, 128, window_fn=tt.signal.inverse_stft_window_fn(128))

Written as TensorFlow's Python writes them, with other ops (a gather by a frame-index matrix, an
unsorted segment sum, the real FFTs), so their gradients follow; the shapes they depend on must be static.
"""
from __future__ import annotations

import numpy as np

from tinytf.errors import InvalidArgumentError, UnimplementedError
from tinytf.ops.op_functions import ops
from tinytf.ops.operands import static_value
from tinytf.ops.signal_fft import hann_window
from tinytf.ops.signal_real_fft import irfft, rfft
from tinytf.ops.tensor_inputs import as_tensor, static_dims

__all__ = ["frame", "overlap_and_add", "stft", "inverse_stft", "inverse_stft_window_fn"]
__namespaces__ = {n: ("signal",) for n in __all__}


def _int(what, name, value):
    v = static_value(value)
    if v is None or np.ndim(v) != 0:
        raise UnimplementedError(f"tt.signal.{what}: {name} must be a scalar known before running", "tf.GatherV2")
    return int(v)


def _dims(what, x):
    dims = static_dims(x)
    if dims is None or None in dims:
        raise UnimplementedError(f"tt.signal.{what}: the input's shape must be static, got {dims}", "tf.GatherV2")
    return list(dims)


def frame(signal, frame_length, frame_step, pad_end=False, pad_value=0, axis=-1, name=None):
    """Frames of ``frame_length`` samples every ``frame_step`` along ``axis``: that axis becomes
    [num_frames, frame_length]; num_frames = 1 + (n - frame_length) // frame_step, or ceil(n / frame_step)
    with ``pad_end`` (the end padded with ``pad_value``)."""
    x = as_tensor(signal)
    length, step = _int("frame", "frame_length", frame_length), _int("frame", "frame_step", frame_step)
    if length <= 0 or step <= 0:
        raise InvalidArgumentError(f"tt.signal.frame: frame_length and frame_step must be positive, got {length}, "
                                   f"{step}", "tf.GatherV2")
    dims = _dims("frame", x)
    if not -len(dims) <= axis < len(dims):
        raise InvalidArgumentError(f"tt.signal.frame: axis {axis} is out of range for rank {len(dims)}", "tf.GatherV2")
    axis %= len(dims)
    n = dims[axis]
    if pad_end:
        count = -(-n // step)
        padded = max(0, (count - 1) * step + length - n)
        if padded:
            pads = np.zeros((len(dims), 2), np.int32)
            pads[axis, 1] = padded
            x = ops.pad(x, pads, constant_values=ops.constant(np.asarray(pad_value, x.dtype.np)))
    else:
        count = max(0, 1 + (n - length) // step)
    index = (np.arange(count, dtype=np.int32)[:, None] * step + np.arange(length, dtype=np.int32)[None, :])
    return ops.gather(x, index, axis=axis)


def overlap_and_add(signal, frame_step, name=None):
    """The frames of ``signal`` [..., frames, frame_length], each ``frame_step`` after the one before, summed:
    [..., (frames - 1) * frame_step + frame_length]."""
    x = as_tensor(signal)
    step = _int("overlap_and_add", "frame_step", frame_step)
    dims = _dims("overlap_and_add", x)
    if len(dims) < 2:
        raise InvalidArgumentError(f"tt.signal.overlap_and_add: signal must have rank at least 2, got {dims}",
                                   "tf.UnsortedSegmentSum")
    if step <= 0:
        raise InvalidArgumentError(f"tt.signal.overlap_and_add: frame_step must be positive, got {step}",
                                   "tf.UnsortedSegmentSum")
    frames, length = dims[-2:]
    batch = dims[:-2]
    out = (frames - 1) * step + length if frames else 0
    # [frames, length, *batch] flattened on its first two axes, summed into [out, *batch], moved back
    r = len(dims)
    front = ops.transpose(x, [r - 2, r - 1] + list(range(r - 2)))
    flat = ops.reshape(front, [frames * length] + batch)
    ids = (np.arange(frames, dtype=np.int32)[:, None] * step + np.arange(length, dtype=np.int32)[None, :]).reshape(-1)
    summed = ops.unsorted_segment_sum(flat, ids, np.int32(out))
    return ops.transpose(summed, list(range(1, r - 1)) + [0])


def _fft_length(frame_length, fft_length):
    return int(2 ** np.ceil(np.log2(frame_length))) if fft_length is None else _int("stft", "fft_length", fft_length)


def stft(signals, frame_length, frame_step, fft_length=None, window_fn=hann_window, pad_end=False, name=None):
    """``tt.signal.stft``: rfft of the windowed frames, [..., frames, fft_length // 2 + 1] (fft_length
    defaults to the power of 2 at least frame_length; window_fn(frame_length, dtype=...) or None)."""
    x = as_tensor(signals)
    length = _int("stft", "frame_length", frame_length)
    n = _fft_length(length, fft_length)
    frames = frame(x, length, frame_step, pad_end=pad_end)
    if window_fn is not None:
        frames = ops.multiply(frames, window_fn(length, dtype=x.dtype))
    return rfft(frames, [n])


def inverse_stft(stfts, frame_length, frame_step, fft_length=None, window_fn=hann_window, name=None):
    """``tt.signal.inverse_stft``: irfft of each frame, cut (or padded) to frame_length, windowed, overlapped
    and added; with ``inverse_stft_window_fn(frame_step)`` as the window it inverts ``stft``."""
    y = as_tensor(stfts)
    length = _int("inverse_stft", "frame_length", frame_length)
    n = _fft_length(length, fft_length)
    frames = irfft(y, [n])
    have = n
    if have > length:
        frames = ops.gather(frames, np.arange(length, dtype=np.int32), axis=len(_dims("inverse_stft", frames)) - 1)
    elif have < length:
        rank = len(_dims("inverse_stft", frames))
        pads = np.zeros((rank, 2), np.int32)
        pads[-1, 1] = length - have
        frames = ops.pad(frames, pads)
    if window_fn is not None:
        frames = ops.multiply(frames, window_fn(length, dtype=frames.dtype))
    return overlap_and_add(frames, frame_step)


def inverse_stft_window_fn(frame_step, forward_window_fn=hann_window, name=None):
    """The window that makes ``inverse_stft`` invert ``stft`` with ``forward_window_fn``: the forward window
    divided by the overlapped sum of its squares (TensorFlow's rule)."""
    step = _int("inverse_stft_window_fn", "frame_step", frame_step)

    def window(frame_length, dtype):
        length = int(frame_length)
        forward = static_value(forward_window_fn(length, dtype=dtype))
        if forward is None:
            raise UnimplementedError("tt.signal.inverse_stft_window_fn: the forward window must be a constant",
                                     "tf.Const")
        forward = np.asarray(forward, np.float64)
        squared = forward ** 2
        count = -(-length // step)
        padded = np.pad(squared, (0, count * step - length)).reshape(count, step)
        denom = np.tile(padded.sum(0), count)[:length]
        return ops.constant((forward / denom).astype(np.dtype(dtype.np)))

    return window
