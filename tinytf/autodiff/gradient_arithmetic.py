"""The arithmetic of gradients on the tape: seeds, zeros, sums, and un-broadcasting.

    dy = ones_like(y)                 # the seed of d y / d y
    dx = add_all([dx1, dx2])          # x used twice: its gradients add
    db = reduce_to(dz, b)             # z = x + b with b broadcast: dz summed back to b's shape

Static shapes make constants (no op to run or trace); an unknown dim falls back to the op
(``tf.OnesLike``, ``tf.ZerosLike``). Everything else is the public ops, so it runs through
whatever context is on top: eagerly, traced, or recorded by an outer tape.
"""
from __future__ import annotations

import numpy as np

import tinytf.dtypes as dtypes
from tinytf.autodiff.tensor_protocol import static_shape
from tinytf.ops.op_functions import ops


def constant(value, dtype):
    return ops.constant(np.asarray(value, dtype=dtypes.as_dtype(dtype).np), dtype=dtype)


def ones_like(x):
    shape = static_shape(x)
    if shape is not None and None not in shape:
        return constant(np.ones(shape), x.dtype)
    return ops.ones_like(x)


def zeros_like(x):
    """Zeros shaped like ``x``, a tensor or a variable (a source's ``unconnected_gradients="zero"``)."""
    shape = static_shape(x)
    if shape is not None and None not in shape:
        return constant(np.zeros(shape), x.dtype)
    return ops.zeros_like(x)


def add_all(parts: list):
    total = parts[0]
    for p in parts[1:]:
        total = ops.add(total, p)
    return total


def reduce_to(dx, x):
    """``dx`` summed over the axes along which ``x`` was broadcast, in ``x``'s shape.

    Static shapes decide (tinytf traces with concrete shapes unless an input signature has None
    dims): the leading axes ``x`` lacks, and the axes where ``x`` has size 1. An axis where x's
    size is unknown is taken as not broadcast; the final reshape then reads x's shape at run time.
    """
    if getattr(x, "dtype", None) is dtypes.resource:
        return dx  # a resource handle: ReadVariableOp's rule gives the value-shaped gradient
    xs, gs = static_shape(x), static_shape(dx)
    if xs == gs and (xs is None or None not in xs):
        return dx
    if xs is None or gs is None:
        return dx  # unknown rank: nothing to go on (the rules return x-shaped gradients then)
    if len(gs) < len(xs):  # a rule returned a broadcastable gradient: widen it to x's shape
        return ops.add(dx, zeros_like(x))
    lead = len(gs) - len(xs)
    axes = list(range(lead)) + [lead + i for i, d in enumerate(xs) if d == 1 and gs[lead + i] != 1]
    if axes:
        dx = ops.reduce_sum(dx, axis=axes)
    if static_shape(dx) != xs:
        dx = ops.reshape(dx, list(xs) if None not in xs else ops.shape(x))
    return dx
