"""A user-defined op with tt.register_op: its kernel (TensorFlow's kernel API), shape rule, gradient
and XLA lowering, used eagerly, in a tt.function, under GradientTape, and compiled with XLA.

    python examples/custom_op.py

ScaledSoftsign(x; alpha) = x / (1 + alpha * |x|). Its kernel forwards a dying input's buffer to
the output when it can (``forward_input_or_allocate_output``), so inside a graph it computes in
place. ZeroOut is TensorFlow's custom-op tutorial op: keep the first element, zero the rest.
"""
from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import numpy as np  # noqa: E402

import tinytf as tt  # noqa: E402
from tinytf.errors import InvalidArgumentError  # noqa: E402
from tinytf.framework.custom_op import register_op  # noqa: E402  (tt.register_op)
from tinytf.framework.tensor_spec import TensorSpec  # noqa: E402

# --- ScaledSoftsign: a differentiable op ------------------------------------------------------

def softsign_kernel(ctx, *, alpha):
    # No local name for the input before forwarding: a local is one more reference to the buffer,
    # and a buffer with other references is never forwarded.
    shape, dtype = ctx.input(0).shape, ctx.input(0).dtype
    if dtype.kind != "f":
        raise ctx.error(f"x must be a float tensor, got {dtype}")
    denominator = (1 + alpha * np.abs(ctx.input(0))).astype(dtype, copy=False)  # before x may be overwritten
    out, _ = ctx.forward_input_or_allocate_output([0], 0, shape, dtype)
    np.divide(ctx.input(0), denominator, out=out)


def softsign_shape(x, *, alpha):
    if not x.dtype.is_floating:
        raise InvalidArgumentError(f"tf.ScaledSoftsign: x must be a float tensor, got {x.dtype.name}",
                                   "tf.ScaledSoftsign")
    return TensorSpec(x.shape, x.dtype)


def softsign_grad(op, dy):  # Given upstream grad U and y = x / (1 + a|x|): dx = U / (1 + a|x|)^2
    x, alpha = op.inputs[0], op.attrs["alpha"]
    return [dy / tt.square(1.0 + alpha * tt.math.abs(x))]


def softsign_lower(x, *, alpha):  # JAX, for XLA
    import jax.numpy as jnp

    return x / (1 + alpha * jnp.abs(x))


scaled_softsign = register_op(
    "ScaledSoftsign", inputs=["x"], outputs=["y"], attrs={"alpha": 1.0}, kernel=softsign_kernel,
    shape_fn=softsign_shape, grad=softsign_grad, lower=softsign_lower,
    doc='x / (1 + alpha |x|).  %y = "tf.ScaledSoftsign"(%x) <{alpha = 2.0 : f32}> : (tensor<3xf32>) -> tensor<3xf32>')


# --- ZeroOut: TensorFlow's tutorial op, not differentiable ------------------------------------

def zero_out_kernel(ctx):
    shape, dtype = ctx.input(0).shape, ctx.input(0).dtype
    first = ctx.input(0).reshape(-1)[:1].copy()
    out, _ = ctx.forward_input_or_allocate_output([0], 0, shape, dtype)
    out.fill(0)
    out.reshape(-1)[:1] = first


zero_out = register_op("ZeroOut", inputs=["to_zero"], outputs=["zeroed"], kernel=zero_out_kernel,
                       shape_fn=lambda to_zero: TensorSpec(to_zero.shape, to_zero.dtype),
                       doc="Keeps the first element, zeroes the rest (TensorFlow's custom-op tutorial).")


def main():
    x = tt.constant([-2.0, 0.5, 3.0])
    print("eager     ", scaled_softsign(x, alpha=2.0).numpy())

    @tt.function
    def f(v):
        return scaled_softsign(v * 1.0, alpha=2.0)

    print("graph     ", f(x).numpy())
    print(f.get_concrete_function(tt.TensorSpec([3], tt.float32)).mlir())

    with tt.GradientTape() as tape:
        tape.watch(x)
        y = tt.math.reduce_sum(scaled_softsign(x, alpha=2.0))
    print("gradient  ", tape.gradient(y, x).numpy(), "expected", 1 / (1 + 2 * np.abs(x.numpy())) ** 2)
    worst = tt.gradcheck.compare_numerical_and_autodiff_gradients(
        lambda v: scaled_softsign(v, alpha=2.0), [np.array([-2.0, 0.5, 3.0])], abs_error=1e-6)
    print("gradcheck ", worst)
    try:
        jitted = tt.function(lambda v: scaled_softsign(v, alpha=2.0), jit_compile=True)
        print("xla       ", jitted(x).numpy())
    except ImportError as err:
        print("xla       skipped:", err)
    print("zero_out  ", zero_out(tt.constant([[5, 4], [3, 2]])).numpy().tolist())
    print("raw_ops   ", tt.raw_ops.ZeroOut(to_zero=tt.constant([7, 8, 9])).numpy().tolist())


if __name__ == "__main__":
    main()
