"""Isotonic regression: the IsotonicRegression op and tf.nn.isotonic_regression.

    %y, %segments = "tf.IsotonicRegression"(%x) <{output_dtype = f32}> : (tensor<2x6xf32>) -> (tensor<2x6xf32>, tensor<2x6xi32>)

Each row of the input gets its closest non-increasing sequence in the least-squares sense, by the
pool-adjacent-violators algorithm: values enter left to right as blocks, and a block whose mean is
strictly greater than the one before it is merged into it (blocks of equal means stay apart, as in
TensorFlow's kernel). ``segments`` numbers each row's blocks from 0. The gradient averages the upstream
gradient over each block. numpy runs the algorithm with a stack per row; XLA with a vectorised
``lax.while_loop`` over the same stack.
"""
from __future__ import annotations

import numpy as np
from xdsl.irdl import operand_def, result_def, traits_def
from xdsl.traits import Pure

import tinytf.dtypes as dtypes
from tinytf.errors import InvalidArgumentError
from tinytf.framework.attributes import attr
from tinytf.framework.op import Op, register
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.ops.base import fmt_shape
from tinytf.ops.op_functions import ops as _ops
from tinytf.ops.tensor_inputs import as_tensor, static_rank

__all__ = ["isotonic_regression"]
__namespaces__ = {"isotonic_regression": ("nn",)}

# TensorFlow's kernels: input dtype -> output dtype
OUTPUT_DTYPES = {"float32": "float32", "float16": "float16", "bfloat16": "bfloat16", "int8": "float32",
                 "int16": "float32", "float64": "float64", "int32": "float64", "int64": "float64"}


def _pav_row(x):
    """(the fitted row, its block ids) for one 1-D row."""
    sums, counts, starts = [], [], []
    for i, value in enumerate(x):
        s, c, start = value, 1, i
        while sums and sums[-1] * c < s * counts[-1]:  # the block before has the smaller mean: pool it
            s, c, start = s + sums.pop(), c + counts.pop(), starts.pop()
        sums.append(s)
        counts.append(c)
        starts.append(start)
    segments = np.zeros(len(x), np.int32)
    fitted = np.zeros(len(x), x.dtype)
    for k, (s, c, start) in enumerate(zip(sums, counts, starts, strict=True)):
        segments[start:start + c] = k
        fitted[start:start + c] = s / c
    return fitted, segments


def _jax_pav(x):
    """The same algorithm on [B, n] rows with lax loops (a stack of block sums, counts and starts per row)."""
    import jax
    import jax.numpy as jnp
    from jax import lax

    n = x.shape[1]

    def one_row(row):
        def push(i, state):
            sums, counts, starts, top = state
            s, c, start = row[i], jnp.asarray(1, row.dtype), i

            def violated(carry):
                s, c, start, top = carry
                return (top > 0) & (sums[top - 1] * c < s * counts[top - 1])  # mean before < this mean

            def pool(carry):
                s, c, start, top = carry
                return s + sums[top - 1], c + counts[top - 1], starts[top - 1], top - 1

            s, c, start, top = lax.while_loop(violated, pool, (s, c, start, top))
            return sums.at[top].set(s), counts.at[top].set(c), starts.at[top].set(start), top + 1

        init = (jnp.zeros(n, row.dtype), jnp.ones(n, row.dtype), jnp.zeros(n, jnp.int32), jnp.asarray(0))
        sums, counts, starts, top = lax.fori_loop(0, n, push, init)
        live = jnp.arange(n) < top
        segments = jnp.sum(live[None, :] & (starts[None, :] <= jnp.arange(n)[:, None]), axis=1) - 1
        return (sums / counts)[segments], segments.astype(jnp.int32)

    return jax.vmap(one_row)(x)


@register
class IsotonicRegression(Op):
    """The non-increasing least-squares fit of each row (the last dim), and each value's block."""

    name = "tf.IsotonicRegression"
    input = operand_def()
    output = result_def()
    segments = result_def()
    output_dtype = attr(dtypes.float32)
    traits = traits_def(Pure())

    @classmethod
    def infer(cls, input, *, output_dtype=dtypes.float32):
        out = dtypes.as_dtype(output_dtype)
        if OUTPUT_DTYPES.get(input.dtype.name) != out.name:
            raise InvalidArgumentError(
                f"{cls.name}: no kernel for input {input.dtype.name} with output_dtype {out.name} (TensorFlow's: "
                + ", ".join(f"{k} -> {v}" for k, v in OUTPUT_DTYPES.items()) + ")", cls.name)
        if input.shape is not None and len(input.shape) < 1:
            raise InvalidArgumentError(f"{cls.name}: input must be at least 1-D, got {fmt_shape(input.shape)}",
                                       cls.name)
        return [TensorSpec(input.shape, out), TensorSpec(input.shape, dtypes.int32)]

    @classmethod
    def compute(cls, xp, input, *, output_dtype=dtypes.float32):
        out = dtypes.as_dtype(output_dtype).np
        rows = np.asarray(input).astype(np.float64 if out == np.float64 else np.float32).reshape(-1, input.shape[-1])
        fitted, segments = np.zeros(rows.shape, rows.dtype), np.zeros(rows.shape, np.int32)
        for r, row in enumerate(rows):
            fitted[r], segments[r] = _pav_row(row)
        return fitted.astype(out).reshape(input.shape), segments.reshape(input.shape)

    @classmethod
    def lower(cls, input, *, output_dtype=dtypes.float32):
        out = dtypes.as_dtype(output_dtype).np
        wide = np.float64 if out == np.float64 else np.float32
        rows = input.astype(wide).reshape(-1, input.shape[-1])
        fitted, segments = _jax_pav(rows)
        return fitted.astype(out).reshape(input.shape), segments.reshape(input.shape)

    @staticmethod
    def grad(op, dy, unused_dsegments):  # Given upstream grad U: dx = U averaged over each block
        m = _ops
        segments = op.outputs[1]
        width = tuple(segments.shape)[-1]
        blocks = m.one_hot(segments, width, dtype=dy.dtype)                               # [..., n, blocks]
        total = m.reduce_sum(m.multiply(blocks, m.expand_dims(dy, -1)), axis=-2)         # [..., blocks]
        count = m.maximum(m.reduce_sum(blocks, axis=-2), m.ones_like(total))
        mean = m.realdiv(total, count)
        return [m.cast(m.reduce_sum(m.multiply(blocks, m.expand_dims(mean, -2)), axis=-1), op.inputs[0].dtype)]


def isotonic_regression(inputs, decreasing=True, axis=-1, name=None):
    """(the monotone fit along ``axis``, the blocks): non-increasing, or non-decreasing with decreasing=False."""
    m = _ops
    inputs = as_tensor(inputs)
    output_dtype = OUTPUT_DTYPES.get(inputs.dtype.name, "float64")
    rank = static_rank(inputs)
    if rank is None:
        raise InvalidArgumentError("isotonic_regression: the input's rank must be known", IsotonicRegression.name)
    axis = axis % rank
    perm = [i for i in range(rank) if i != axis] + [axis]
    moved = inputs if axis == rank - 1 else m.transpose(inputs, perm)
    fit, segments = IsotonicRegression.bind(moved if decreasing else m.negative(moved),
                                            output_dtype=dtypes.as_dtype(output_dtype))
    fit = fit if decreasing else m.negative(fit)
    if axis != rank - 1:
        inverse = [perm.index(i) for i in range(rank)]
        fit, segments = m.transpose(fit, inverse), m.transpose(segments, inverse)
    return fit, segments
