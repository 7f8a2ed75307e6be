"""The model of the checkpoint interop checks, written once for TensorFlow and for tinytf.

    net, opt = build(tf)        # tf.Module subclasses + tf.compat.v1.train.AdamOptimizer (with an `iter`)
    net, opt = build(tt)        # tt.Module subclasses + tt.optimizers.Adam
    step(tf, net, opt)          # one Adam step on a fixed batch

Nested modules, a list and a dict of modules, a non-trainable variable, and Adam's slots (m, v),
``beta1_power`` / ``beta2_power`` and an ``iter`` counter: TensorFlow 1's AdamOptimizer has no step
counter, so ``build(tf)`` tracks one under ``iter``, the name Keras' optimizers (and tinytf's) give it.
Imported by ``interop_checkpoints.py``, ``export_checkpoint_fixture.py`` and the unit tests; it
imports neither library itself.
"""
from __future__ import annotations

import numpy as np

LEARNING_RATE, BETA_1, BETA_2, EPSILON = 0.01, 0.9, 0.999, 1e-7


def initial_values() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(16)
    f32 = lambda *shape: rng.standard_normal(shape).astype(np.float32)  # noqa: E731
    return {"encoder/w": f32(3, 4), "encoder/b": f32(4), "heads/0/w": f32(4, 4), "heads/0/b": f32(4),
            "heads/1/out/w": f32(4, 2), "heads/1/out/b": f32(2)}


def batch() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(21)
    return rng.standard_normal((5, 3)).astype(np.float32), rng.standard_normal((5, 2)).astype(np.float32)


def _is_tensorflow(lib) -> bool:
    return lib.__name__.startswith("tensorflow")


def build(lib, values: dict | None = None):
    """The network and its optimizer in ``lib`` (``tensorflow`` or ``tinytf``)."""
    values = values or initial_values()

    class Dense(lib.Module):
        def __init__(self, prefix, name=None):
            super().__init__(name=name)
            self.w = lib.Variable(values[prefix + "/w"], name="w")
            self.b = lib.Variable(values[prefix + "/b"], name="b")

        def __call__(self, x):
            return lib.nn.relu(lib.matmul(x, self.w) + self.b)

    class Net(lib.Module):
        def __init__(self):
            super().__init__(name="net")
            self.encoder = Dense("encoder")
            self.heads = [Dense("heads/0"), {"out": Dense("heads/1/out")}]
            self.scale = lib.Variable(np.float32(0.5), trainable=False, name="scale")

        def __call__(self, x):
            return self.heads[1]["out"](self.heads[0](self.encoder(x))) * self.scale

    net = Net()
    if _is_tensorflow(lib):
        opt = lib.compat.v1.train.AdamOptimizer(LEARNING_RATE, BETA_1, BETA_2, EPSILON)
        opt._track_trackable(lib.Variable(np.int64(0), trainable=False, name="iter"), name="iter")
    else:
        opt = lib.optimizers.Adam(LEARNING_RATE, BETA_1, BETA_2, EPSILON)
    return net, opt


def step(lib, net, opt) -> None:
    """One Adam step on the fixed batch."""
    x, y = batch()
    variables = list(net.trainable_variables)
    with lib.GradientTape() as tape:
        loss = lib.math.reduce_sum(lib.math.square(net(lib.constant(x)) - lib.constant(y)))
    opt.apply_gradients(list(zip(tape.gradient(loss, variables), variables)))
    if _is_tensorflow(lib):
        opt._lookup_dependency("iter").assign_add(1)


def checkpoint_values(lib, net, opt) -> dict[str, np.ndarray]:
    """Every checkpointed value by its TensorFlow checkpoint key, read from the live objects."""
    out = {}
    paths = {"encoder": net.encoder, "heads/0": net.heads[0], "heads/1/out": net.heads[1]["out"]}
    for path, dense in paths.items():
        for name in ("w", "b"):
            var = getattr(dense, name)
            out[f"model/{path}/{name}/.ATTRIBUTES/VARIABLE_VALUE"] = np.array(var.numpy())
            for slot in ("m", "v"):
                slot_var = opt.get_slot(var, slot)
                if slot_var is not None:
                    out[f"model/{path}/{name}/.OPTIMIZER_SLOT/optimizer/{slot}/.ATTRIBUTES/VARIABLE_VALUE"] = \
                        np.array(slot_var.numpy())
    out["model/scale/.ATTRIBUTES/VARIABLE_VALUE"] = np.array(net.scale.numpy())
    if _is_tensorflow(lib):
        beta1, beta2 = opt._get_beta_accumulators()
        iterations = opt._lookup_dependency("iter")
    else:
        beta1, beta2 = opt._beta_powers(lib.float32)
        iterations = opt.iterations
    if beta1 is not None:  # TensorFlow creates them on the first step (a restore before it waits for them)
        out["optimizer/beta1_power/.ATTRIBUTES/VARIABLE_VALUE"] = np.array(beta1.numpy())
        out["optimizer/beta2_power/.ATTRIBUTES/VARIABLE_VALUE"] = np.array(beta2.numpy())
    out["optimizer/iter/.ATTRIBUTES/VARIABLE_VALUE"] = np.array(iterations.numpy())
    return out
