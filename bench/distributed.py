"""Data parallel and sharded training steps on 1/2/4/8 devices, tinytf beside the same step written
by hand in JAX (``jax.jit`` with the same NamedShardings) and TensorFlow's MirroredStrategy: what
XLA's partitioner moves between devices (beside the analytic minimum), what each device keeps, and
the step time.

    python bench/distributed.py [--quick] [--devices 1 2 4 8]
    .venv-bench/bin/python bench/distributed.py          # with TensorFlow

For each device count (a child process per library and count: JAX and TensorFlow fix their device
count when they start; CPU devices are simulated with XLA_FLAGS=--xla_force_host_platform_device_count=N,
TensorFlow's with logical CPU devices) and each layout of one MLP training step (SGD; batch 256,
128 -> 512 -> 128, the mean over the batch of the squared error summed over the outputs):

- ``mirrored``: tt.distribute.MirroredStrategy (tf_device.replicate, gradients summed by tf.XlaAllReduce);
  TensorFlow: tf.distribute.MirroredStrategy, each replica's gradients by a jit_compile'd function,
  summed by the strategy's all_reduce;
- ``dtensor-dp``: DTensor data parallel (batch-sharded inputs, replicated DVariables);
- ``fsdp``: weights sharded along the batch axis too (XLA all-gathers them, reduce-scatters gradients);
- ``megatron``: a (2, N/2) mesh, the first layer's columns and the second's rows split over 'model'.
JAX's step for ``mirrored`` and ``dtensor-dp`` is the same data-parallel jax.jit; each JAX step has the
layout's shardings, weights donated. The first step's loss of every peer is checked against tinytf's.

Collectives: ``buffer`` is the sum, per device, of the result buffers of the optimized program's
collectives; ``traffic`` what a ring (bandwidth-optimal) implementation sends per device for them
(2(G-1)/G of an all-reduce's bytes in groups of G, (G-1)/G of an all-gather's, ...). The minimum for
data parallel is a ring all-reduce of the gradients: 2(N-1)/N of their bytes per device. Memory is
XLA's memory analysis per device (arguments, temporaries). On one 2-core machine the simulated
devices share two cores, so the step time cannot show a speed-up: it shows the partitioned program's
overhead (more, smaller ops and the collectives' copies) beside JAX's and TensorFlow's. On a machine
with N real devices the same script measures the scaling.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [p for p in (ROOT,) if p not in sys.path]

BATCH, D_IN, D_HIDDEN, D_OUT = 256, 128, 512, 128
LR = 0.01
LAYOUTS = ("mirrored", "dtensor-dp", "fsdp", "megatron")
JAX_LAYOUT = {"mirrored": "dp", "dtensor-dp": "dp", "fsdp": "fsdp", "megatron": "megatron"}
DATA_PARALLEL = ("mirrored", "dtensor-dp")


def data():
    import numpy as np

    rng = np.random.default_rng(0)
    w1 = rng.normal(size=(D_IN, D_HIDDEN)).astype(np.float32) * 0.05
    w2 = rng.normal(size=(D_HIDDEN, D_OUT)).astype(np.float32) * 0.05
    x = rng.normal(size=(BATCH, D_IN)).astype(np.float32)
    y = rng.normal(size=(BATCH, D_OUT)).astype(np.float32)
    return w1, w2, x, y


def timed(call, steps: int) -> float:
    """Median ms of ``steps`` calls (after one untimed call)."""
    call()
    times = []
    for _ in range(steps):
        t = time.perf_counter()
        call()
        times.append(time.perf_counter() - t)
    return 1e3 * sorted(times)[len(times) // 2]


def summary(collectives, memory) -> dict:
    kinds: dict = {}
    for c in collectives:
        kinds[c.kind] = kinds.get(c.kind, 0) + c.bytes
    return dict(collectives=kinds, buffer=sum(c.bytes for c in collectives),
                traffic=sum(c.traffic for c in collectives), argument=memory["argument"], temp=memory["temp"])


# --- tinytf ---------------------------------------------------------------------------------------

def tinytf_child(n: int, steps: int) -> dict:
    import tinytf as tt
    from tinytf.experimental import dtensor

    w1, w2, x, y = data()
    out = {}

    def loss_of(a, b, v1, v2):
        return tt.math.reduce_sum(tt.square(tt.nn.relu(a @ v1) @ v2 - b), axis=1)

    def measure(name, step, args, vars_):
        loss0 = float(step(*args))  # compiles
        ms = timed(lambda: float(step(*args)), steps)
        result = tt.xla.compile(step.get_concrete_function(*args),
                                in_shardings=[getattr(getattr(a, "_value", None), "sharding", None) for a in
                                              _leaves(args)] + [getattr(v, "sharding", None) for v in vars_] + [None])
        out[name] = dict(ms=ms, loss0=loss0, **summary(result.collectives(), result.memory()))

    strategy = tt.distribute.MirroredStrategy()
    with strategy.scope():
        v1, v2 = tt.Variable(w1), tt.Variable(w2)
        opt = tt.optimizers.SGD(LR)

    def step_fn(a, b):
        with tt.GradientTape() as tape:
            loss = tt.nn.compute_average_loss(loss_of(a, b, v1, v2))
        opt.apply_gradients(zip(tape.gradient(loss, [v1, v2]), [v1, v2]))
        return loss

    mirrored = tt.function(lambda batch: strategy.reduce("SUM", strategy.run(step_fn, args=batch), axis=None),
                           jit_compile=True)
    batch = next(iter(strategy.experimental_distribute_dataset([(x, y)])))
    measure("mirrored", mirrored, (batch,), [v1, v2])

    def dtensor_case(name, mesh, l1, l2, batch_dim):
        d1, d2 = dtensor.DVariable(w1, layout=dtensor.Layout(l1, mesh)), dtensor.DVariable(w2, layout=dtensor.Layout(l2, mesh))
        sgd = tt.optimizers.SGD(LR)

        @tt.function(jit_compile=True)
        def step(a, b):
            with tt.GradientTape() as tape:
                loss = tt.math.reduce_mean(loss_of(a, b, d1, d2))
            sgd.apply_gradients(zip(tape.gradient(loss, [d1, d2]), [d1, d2]))
            return loss

        place = dtensor.Layout.batch_sharded(mesh, batch_dim, 2)
        measure(name, step, (dtensor.copy_to_mesh(x, place), dtensor.copy_to_mesh(y, place)), [d1, d2])

    u = dtensor.UNSHARDED
    mesh = dtensor.create_mesh([("batch", n)])
    dtensor_case("dtensor-dp", mesh, [u, u], [u, u], "batch")
    dtensor_case("fsdp", mesh, ["batch", u], ["batch", u], "batch")
    if n >= 2:
        mesh2 = dtensor.create_mesh([("batch", 2), ("model", n // 2)])
        dtensor_case("megatron", mesh2, [u, "model"], ["model", u], "batch")
    out["gradient_bytes"] = (w1.size + w2.size) * 4
    return out


def _leaves(args):
    from tinytf.autodiff.structures import flatten

    return flatten(list(args))


# --- JAX, written by hand ---------------------------------------------------------------------------

def jax_child(n: int, steps: int) -> dict:
    import jax
    import jax.numpy as jnp
    from jax.sharding import AxisType, NamedSharding
    from jax.sharding import PartitionSpec as P

    from tinytf.xla.spmd import collectives, memory

    w1, w2, x, y = data()

    def loss_fn(a, b, xs, ys):
        d = jnp.maximum(xs @ a, 0.0) @ b - ys
        return jnp.mean(jnp.sum(d * d, axis=1))

    def step(a, b, xs, ys):
        loss, (g1, g2) = jax.value_and_grad(loss_fn, argnums=(0, 1))(a, b, xs, ys)
        return loss, a - LR * g1, b - LR * g2

    layouts = {"dp": ((n,), ("batch",), P(), P()), "fsdp": ((n,), ("batch",), P("batch", None), P("batch", None))}
    if n >= 2:
        layouts["megatron"] = ((2, n // 2), ("batch", "model"), P(None, "model"), P("model", None))
    out = {}
    for name, (shape, names, s1, s2) in layouts.items():
        mesh = jax.make_mesh(shape, names, axis_types=(AxisType.Auto,) * len(shape))
        sb, n1, n2 = NamedSharding(mesh, P("batch")), NamedSharding(mesh, s1), NamedSharding(mesh, s2)
        jitted = jax.jit(step, in_shardings=(n1, n2, sb, sb), out_shardings=(NamedSharding(mesh, P()), n1, n2),
                         donate_argnums=(0, 1))
        state = [jax.device_put(w1, n1), jax.device_put(w2, n2)]
        xd, yd = jax.device_put(x, sb), jax.device_put(y, sb)
        compiled = jitted.lower(state[0], state[1], xd, yd).compile()

        def call(compiled=compiled, state=state, xd=xd, yd=yd):
            loss, state[0], state[1] = compiled(state[0], state[1], xd, yd)
            return float(loss)

        loss0 = call()
        out[name] = dict(ms=timed(call, steps), loss0=loss0,
                         **summary(collectives(compiled.as_text(), n), memory(compiled)))
    return out


# --- TensorFlow's MirroredStrategy -------------------------------------------------------------------

def tf_child(n: int, steps: int) -> dict:
    import tensorflow as tf

    cpus = tf.config.list_physical_devices("CPU")
    tf.config.set_logical_device_configuration(cpus[0], [tf.config.LogicalDeviceConfiguration() for _ in range(n)])
    w1, w2, x, y = data()
    strategy = tf.distribute.MirroredStrategy([f"/cpu:{i}" for i in range(n)])
    with strategy.scope():  # each replica applies the same summed gradients: the first one's update serves
        v1 = tf.Variable(w1, aggregation=tf.VariableAggregation.ONLY_FIRST_REPLICA)
        v2 = tf.Variable(w2, aggregation=tf.VariableAggregation.ONLY_FIRST_REPLICA)

    @tf.function(jit_compile=True)
    def grads(a, b):
        with tf.GradientTape() as tape:
            d = tf.nn.relu(a @ v1) @ v2 - b
            loss = tf.nn.compute_average_loss(tf.reduce_sum(d * d, axis=1), global_batch_size=BATCH)
        return loss, tape.gradient(loss, [v1, v2])

    def replica_fn(a, b):
        loss, gs = grads(a, b)
        gs = tf.distribute.get_replica_context().all_reduce("SUM", gs)
        v1.assign_sub(LR * gs[0])
        v2.assign_sub(LR * gs[1])
        return loss

    @tf.function
    def train_step(batch):
        return strategy.reduce("SUM", strategy.run(replica_fn, args=batch), axis=None)

    dist = strategy.experimental_distribute_dataset(tf.data.Dataset.from_tensors((x, y)))
    batch = next(iter(dist))
    loss0 = float(train_step(batch))
    return {"mirrored": dict(ms=timed(lambda: float(train_step(batch)), steps), loss0=loss0)}


CHILDREN = {"tinytf": tinytf_child, "jax": jax_child, "tensorflow": tf_child}


def run_child(library: str, n: int, quick: bool):
    env = dict(os.environ, XLA_FLAGS=f"--xla_force_host_platform_device_count={n}", JAX_PLATFORMS="cpu")
    env.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    done = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", library, str(n)] +
                          (["--quick"] if quick else []), capture_output=True, text=True, env=env, cwd=ROOT)
    if done.returncode != 0:
        print(f"{library}, N={n}: failed\n{done.stderr[-2000:]}")
        return None
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer timed steps")
    parser.add_argument("--devices", type=int, nargs="*", default=[1, 2, 4, 8])
    parser.add_argument("--child", nargs=2, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    steps = 3 if args.quick else 10
    if args.child is not None:
        library, n = args.child
        print(json.dumps(CHILDREN[library](int(n), steps)))
        return 0
    from bench.common import MISSING, Row

    with_tf = importlib.util.find_spec("tensorflow") is not None
    rows = []
    print(f"{'layout':<11} {'N':>2} {'tinytf ms':>9} {'jax ms':>7} {'tf ms':>7} {'x jax':>6}  {'traffic B/dev':>13} "
          f"{'jax':>9} {'minimum':>9}  {'args B/dev':>10} {'jax':>8}  {'temp B/dev':>10} {'jax':>8}  collectives "
          "(buffer bytes per device)")
    for n in args.devices:
        ours, jax_r = run_child("tinytf", n, args.quick), run_child("jax", n, args.quick)
        tf_r = run_child("tensorflow", n, args.quick) if with_tf else None
        if ours is None:
            continue
        minimum = 2 * (n - 1) / n * ours["gradient_bytes"]
        for name in LAYOUTS:
            if name not in ours:
                continue
            r = ours[name]
            j = (jax_r or {}).get(JAX_LAYOUT[name])
            t = (tf_r or {}).get(name) if with_tf else None
            for peer, value in (("jax", j), ("tensorflow", t)):  # the same step: the same first loss
                if value is not None and abs(value["loss0"] - r["loss0"]) > 1e-4 * abs(r["loss0"]):
                    raise SystemExit(f"{name}, N={n}: {peer}'s first loss {value['loss0']} != tinytf's {r['loss0']}")
            tf_ms = (t["ms"] if t else None) if with_tf else MISSING
            best = minimum if name in DATA_PARALLEL else None
            kinds = ", ".join(f"{k} {v}" for k, v in sorted(r["collectives"].items())) or "none"

            def cell(v, width, fmt="{:.2f}"):
                return f"{'-' if v is None or v == MISSING else fmt.format(v):>{width}}"

            print(f"{name:<11} {n:>2} {r['ms']:9.2f} {cell(j and j['ms'], 7)} "
                  f"{cell(tf_ms if name == 'mirrored' else None, 7)} {cell(j and r['ms'] / j['ms'], 6)}  "
                  f"{r['traffic']:13.0f} {cell(j and j['traffic'], 9, '{:.0f}')} {cell(best, 9, '{:.0f}')}  "
                  f"{r['argument']:10d} {cell(j and j['argument'], 8, '{:d}')}  {r['temp']:10d} "
                  f"{cell(j and j['temp'], 8, '{:d}')}  {kinds}")
            note = f"{n} simulated CPU devices on this machine's cores: no speed-up expected"
            peers = {"jax": j["ms"] if j else None}
            if name == "mirrored":
                peers["tensorflow"] = tf_ms
            rows.append(Row("distributed", f"{name}, {n} devices: step", "ms", r["ms"], peers=peers,
                            reference="jax", note=note))
            others = {"ring all-reduce minimum": minimum} if best is not None and n > 1 else {}
            rows.append(Row("distributed", f"{name}, {n} devices: collective traffic per device (ring)", "bytes",
                            float(r["traffic"]), peers={"jax": j["traffic"] if j else None}, others=others,
                            reference="ring all-reduce minimum" if others else "jax",
                            note=f"collective result buffers: {r['buffer']} bytes per device ({kinds})"))
            rows.append(Row("distributed", f"{name}, {n} devices: argument + temp bytes per device", "bytes",
                            float(r["argument"] + r["temp"]),
                            peers={"jax": j["argument"] + j["temp"] if j else None}, reference="jax"))
    return rows


if __name__ == "__main__":
    main()
