"""tt.distribute: strategies with TensorFlow's semantics, compiled as one SPMD program over 8 simulated
CPU devices (a subprocess: JAX fixes its device count when it starts) and equal to one device."""
import json

import numpy as np
import pytest
from multi_device import run_on_devices  # tests/unit, beside this file

import tinytf as tt
from tinytf.errors import FailedPreconditionError, InvalidArgumentError

MLP = """
import json
import numpy as np
import tinytf as tt

rng = np.random.default_rng(0)
W1 = rng.normal(size=(16, 32)).astype(np.float32) * 0.3
B1 = np.zeros(32, np.float32)
W2 = rng.normal(size=(32, 4)).astype(np.float32) * 0.3
X = rng.normal(size=(5, 64, 16)).astype(np.float32)
Y = rng.normal(size=(5, 64, 4)).astype(np.float32)


def train(strategy, compiled=True, optimizer=lambda: tt.optimizers.SGD(0.1), steps=5):
    with strategy.scope():
        w1, b1, w2 = tt.Variable(W1), tt.Variable(B1), tt.Variable(W2)
        opt = optimizer()

    def step_fn(x, y):
        with tt.GradientTape() as tape:
            h = tt.nn.relu(x @ w1 + b1)
            per_example = tt.math.reduce_sum(tt.square(h @ w2 - y), axis=1)
            loss = tt.nn.compute_average_loss(per_example) + tt.nn.scale_regularization_loss(
                1e-3 * tt.math.reduce_sum(tt.square(w2)))
        opt.apply_gradients(zip(tape.gradient(loss, [w1, b1, w2]), [w1, b1, w2]))
        return loss

    def train_step(batch):
        return strategy.reduce(tt.distribute.ReduceOp.SUM, strategy.run(step_fn, args=batch), axis=None)

    step = tt.function(train_step, jit_compile=True) if compiled else train_step
    batches = list(strategy.experimental_distribute_dataset(zip(X[:steps], Y[:steps])))
    losses = [float(step(b)) for b in batches]
    return losses, [w1.numpy(), b1.numpy(), w2.numpy()], step, batches[0]


def diff(a, b):
    return float(max(np.abs(np.asarray(x) - np.asarray(y)).max() for x, y in zip(a, b)))
"""


@pytest.fixture(scope="module")
def eight_devices():
    return run_on_devices(MLP + """
R = {}
one = tt.distribute.OneDeviceStrategy("/cpu:0")
mirrored = tt.distribute.MirroredStrategy()
R["replicas"] = mirrored.num_replicas_in_sync
l1, v1, _, _ = train(one)
l8, v8, step, batch = train(mirrored)
R["sgd_compiled"] = [diff(v8, v1), diff(l8, l1)]
le, ve, _, _ = train(mirrored, compiled=False)
R["sgd_eager"] = [diff(ve, v1), diff(le, l1)]
adam = lambda: tt.optimizers.Adam(0.01)
la1, va1, _, _ = train(one, optimizer=adam, steps=3)
la8, va8, _, _ = train(mirrored, optimizer=adam, steps=3)
R["adam_compiled"] = [diff(va8, va1), diff(la8, la1)]

# what the compiled step moves and keeps: one all-reduce of the gradients, 1/8 of the batch per device
result = tt.xla.compile(step.get_concrete_function(batch))
R["lines"] = str(result).splitlines()
R["collectives"] = [[c.kind, c.bytes, c.group_size] for c in result.collectives()]
R["memory"] = result.memory()
R["ir"] = step.get_concrete_function(batch).mlir()

# TensorFlow's argument semantics: a plain tensor reaches every replica whole, a distributed batch
# gives each its slice, values from a function one each
s = mirrored
plain = tt.constant(np.arange(16, dtype=np.float32))
dist = next(iter(s.experimental_distribute_dataset([np.arange(32, dtype=np.float32).reshape(16, 2)])))
ids = s.experimental_distribute_values_from_function(lambda ctx: np.float32(ctx.replica_id_in_sync_group))

def per_replica(b, p, i):
    return tt.math.reduce_sum(b), tt.math.reduce_sum(p), i * 2.0, tt.nn.compute_average_loss(tt.math.reduce_sum(b, axis=1))

@tt.function(jit_compile=True)
def compiled(b, p, i):
    out = s.run(per_replica, args=(b, p, i))
    return [s.experimental_local_results(o) for o in out] + [s.reduce("SUM", out[3], axis=None),
                                                             s.reduce("MEAN", b, axis=0)]

for name, got in (("eager", s.run(per_replica, args=(dist, plain, ids))), ("compiled", compiled(dist, plain, ids))):
    if name == "eager":
        got = [s.experimental_local_results(o) for o in got] + [s.reduce("SUM", got[3], axis=None),
                                                               s.reduce("MEAN", dist, axis=0)]
    R[name] = [[float(np.asarray(v)) for v in got[k]] for k in range(4)] + [float(got[4]), np.asarray(got[5]).tolist()]
R["gather"] = np.asarray(s.gather(s.run(lambda b: b * 1.0, args=(dist,)), axis=0)).tolist()

# errors
def error(fn):
    try:
        fn()
    except Exception as err:
        return [type(err).__name__, str(err)]
    return None

R["indivisible"] = error(lambda: next(iter(s.experimental_distribute_dataset([np.zeros((10, 3), np.float32)]))))
with s.scope():
    v = tt.Variable(np.zeros(2, np.float32))

@tt.function(jit_compile=True)
def unsummed(b):
    def fn(x):
        v.assign_add(tt.math.reduce_sum(x, axis=0))  # differs per replica: not mirrored any more
        return tt.math.reduce_sum(x)
    return s.reduce("SUM", s.run(fn, args=(b,)), axis=None)

R["unsummed"] = error(lambda: unsummed(dist))
R["graph_mode"] = error(lambda: tt.function(lambda b: s.run(lambda x: x, args=(b,)))(dist))
R["mismatched"] = error(lambda: s.run(lambda x: x, args=(next(iter(tt.distribute.MirroredStrategy(
    ["/cpu:0", "/cpu:1"]).experimental_distribute_dataset([np.zeros((4, 1))]))),)))
R["in_scope"] = [s.extended.variable_created_in_scope(v), len(s.extended.worker_devices)]
print(json.dumps(R))
""")


def test_mirrored_training_on_8_devices_equals_one_device(eight_devices):
    r = eight_devices
    assert r["replicas"] == 8
    for key in ("sgd_compiled", "sgd_eager", "adam_compiled"):
        weights, losses = r[key]
        assert weights < 1e-6 and losses < 1e-5, (key, weights, losses)


def test_the_compiled_step_is_one_spmd_program_with_one_gradient_all_reduce(eight_devices):
    r = eight_devices
    assert "tf_device.replicate" in r["ir"] and "n = 8 : i32" in r["ir"]
    assert '"tf.XlaSharding"' in r["ir"] and "{devices=[8,1]<=[8]}" in r["ir"]
    assert '"tf.XlaAllReduce"' in r["ir"] and 'reduce_op = "Add"' in r["ir"]
    assert "// XlaInputSharding index=0 {devices=[8,1]<=[8]}" in r["lines"]
    assert "// XlaInputSharding index=2 {replicated}" in r["lines"]   # a mirrored variable
    gradient_bytes = (16 * 32 + 32 + 32 * 4) * 4
    reduces = [c for c in r["collectives"] if c[0] == "all-reduce"]
    assert reduces and max(c[1] for c in reduces) >= gradient_bytes and all(c[2] == 8 for c in reduces)
    assert sum(c[1] for c in r["collectives"] if c[0] in ("all-gather", "all-to-all")) == 0
    # per device: an eighth of the batch, the whole (mirrored) variables; the variables' buffers are reused
    batch_bytes = (64 * 16 + 64 * 4) * 4
    assert r["memory"]["argument"] == batch_bytes // 8 + gradient_bytes + 8
    assert r["memory"]["alias"] >= gradient_bytes


def test_run_gives_plain_tensors_whole_and_distributed_values_piecewise(eight_devices):
    for mode in ("eager", "compiled"):
        sums, plains, ids, losses, total, mean = eight_devices[mode]
        batch = np.arange(32, dtype=np.float32).reshape(16, 2)
        assert sums == [float(batch[2 * i:2 * i + 2].sum()) for i in range(8)], mode
        assert plains == [120.0] * 8, mode                                   # every replica: the whole tensor
        assert ids == [2.0 * i for i in range(8)], mode
        # compute_average_loss divides by the global batch: the replicas' losses sum to the global mean
        assert losses == pytest.approx([float(batch[2 * i:2 * i + 2].sum()) / 16 for i in range(8)]), mode
        assert total == pytest.approx(batch.sum() / 16), mode
        assert mean == pytest.approx(batch.mean(axis=0).tolist()), mode
    assert eight_devices["gather"] == np.arange(32).reshape(16, 2).tolist()


def test_clear_errors(eight_devices):
    r = eight_devices
    kind, text = r["indivisible"]
    assert kind == "InvalidArgumentError" and "10 examples does not divide among 8 replicas" in text
    kind, text = r["unsummed"]
    assert kind == "InvalidArgumentError" and "differs between replicas" in text
    kind, text = r["graph_mode"]
    assert kind == "UnimplementedError" and "jit_compile=True" in text
    kind, text = r["mismatched"]
    assert kind == "InvalidArgumentError" and "distributed over 2 replicas, the strategy has 8" in text
    assert r["in_scope"] == [True, 8]


# --- one process, one device (JAX may already run here) -------------------------------------------

def test_default_context_has_one_replica():
    ctx = tt.distribute.get_replica_context()
    assert ctx.num_replicas_in_sync == 1 and not tt.distribute.has_strategy()
    assert not tt.distribute.in_cross_replica_context()
    assert tt.distribute.ReduceOp.from_variable_aggregation("sum") is tt.distribute.ReduceOp.SUM


def test_compute_average_loss_and_regularization_scaling():
    per_example = tt.constant([1.0, 2.0, 3.0, 6.0])
    assert float(tt.nn.compute_average_loss(per_example)) == 3.0
    assert float(tt.nn.compute_average_loss(per_example, global_batch_size=8)) == 1.5
    weights = tt.constant([1.0, 0.0, 1.0, 0.5])
    assert float(tt.nn.compute_average_loss(per_example, sample_weight=weights)) == pytest.approx(7.0 / 4)
    assert float(tt.nn.scale_regularization_loss(tt.constant([2.0, 4.0]))) == 6.0
    with pytest.raises(InvalidArgumentError, match="at least rank 1"):
        tt.nn.compute_average_loss(tt.constant(1.0))
    strategy = tt.distribute.OneDeviceStrategy("/cpu:0")
    with strategy.scope():
        assert tt.distribute.in_cross_replica_context() and tt.distribute.get_strategy() is strategy
        with pytest.raises(FailedPreconditionError, match="cross replica context"):
            tt.nn.compute_average_loss(per_example)
        with pytest.raises(FailedPreconditionError, match="cross replica context"):
            tt.nn.scale_regularization_loss(per_example)


def test_one_device_strategy_runs_eagerly_in_graphs_and_under_xla():
    strategy = tt.distribute.OneDeviceStrategy("/cpu:0")
    with strategy.scope():
        w = tt.Variable(np.array([1.0, 2.0], np.float32))
        opt = tt.optimizers.SGD(0.5)

    def step_fn(x):
        with tt.GradientTape() as tape:
            loss = tt.nn.compute_average_loss(tt.math.reduce_sum(x * w, axis=1))
        opt.apply_gradients(zip(tape.gradient(loss, [w]), [w]))
        return loss

    def step(batch):
        return strategy.reduce("SUM", strategy.run(step_fn, args=(batch,)), axis=None)

    x = np.array([[1.0, 0.0], [0.0, 3.0]], np.float32)
    batch = next(iter(strategy.experimental_distribute_dataset([x])))
    got = []
    for run in (step, tt.function(step), tt.function(step, jit_compile=True)):
        w.assign(np.array([1.0, 2.0], np.float32))
        got.append((float(run(batch)), w.numpy().tolist()))
    assert got[0] == got[1] == got[2] == (3.5, [0.75, 1.25])
    assert strategy.num_replicas_in_sync == 1 and strategy.experimental_local_results(batch)[0].shape == (2, 2)


def test_reduce_of_a_plain_value_follows_tensorflow():
    strategy = tt.distribute.OneDeviceStrategy("/cpu:0")
    assert float(strategy.reduce("SUM", tt.constant(2.0), axis=None)) == 2.0  # one replica: itself
    assert float(strategy.reduce("MEAN", tt.constant([1.0, 3.0]), axis=0)) == 2.0


def test_tf_config_cluster_resolver():
    config = {"cluster": {"chief": ["127.0.0.1:5000"], "worker": ["127.0.0.1:5001", "127.0.0.1:5002"]},
              "task": {"type": "worker", "index": 1}}
    r = tt.distribute.TFConfigClusterResolver(json.dumps(config))
    assert (r.num_processes, r.process_id, r.coordinator_address) == (3, 2, "127.0.0.1:5000")
    assert r.cluster_spec()["worker"] == config["cluster"]["worker"]
    assert tt.distribute.TFConfigClusterResolver({}).num_processes == 1
    with pytest.raises(InvalidArgumentError, match="not JSON"):
        tt.distribute.TFConfigClusterResolver("{bad")
    with pytest.raises(InvalidArgumentError, match="task type 'ps'"):
        tt.distribute.TFConfigClusterResolver({"cluster": {"worker": ["a:1"]}, "task": {"type": "ps", "index": 0}})
    with pytest.raises(InvalidArgumentError, match="out of range"):
        tt.distribute.TFConfigClusterResolver({"cluster": {"worker": ["a:1"]}, "task": {"type": "worker", "index": 3}})
    assert tt.distribute.InputContext(1, 0, 4).get_per_replica_batch_size(16) == 4
