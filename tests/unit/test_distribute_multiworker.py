"""MultiWorkerMirroredStrategy: two processes on 127.0.0.1 (Gloo collectives, 2 CPU devices each, free
ports, bounded time) train as one device does; a worker that cannot reach the coordinator says where."""
import json
import os
import socket
import subprocess
import sys
import textwrap

import numpy as np

import tinytf as tt

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

WORKER = """
import json, sys
import numpy as np
import tinytf as tt

strategy = tt.distribute.MultiWorkerMirroredStrategy(initialization_timeout=60)
rng = np.random.default_rng(0)
W1 = rng.normal(size=(16, 32)).astype(np.float32) * 0.3
B1 = np.zeros(32, np.float32)
W2 = rng.normal(size=(32, 4)).astype(np.float32) * 0.3
X = rng.normal(size=(5, 64, 16)).astype(np.float32)
Y = rng.normal(size=(5, 64, 4)).astype(np.float32)
with strategy.scope():
    w1, b1, w2 = tt.Variable(W1), tt.Variable(B1), tt.Variable(W2)
    opt = tt.optimizers.SGD(0.1)

def step_fn(x, y):
    with tt.GradientTape() as tape:
        h = tt.nn.relu(x @ w1 + b1)
        loss = tt.nn.compute_average_loss(tt.math.reduce_sum(tt.square(h @ w2 - y), axis=1))
    opt.apply_gradients(zip(tape.gradient(loss, [w1, b1, w2]), [w1, b1, w2]))
    return loss

@tt.function(jit_compile=True)
def train_step(batch):
    return strategy.reduce(tt.distribute.ReduceOp.SUM, strategy.run(step_fn, args=batch), axis=None)

losses = [float(train_step(b)) for b in strategy.experimental_distribute_dataset(zip(X, Y))]
print(json.dumps(dict(losses=losses, weights=[w.numpy().tolist() for w in (w1, b1, w2)],
                      replicas=strategy.num_replicas_in_sync, workers=strategy.num_workers,
                      devices=list(strategy.extended.worker_devices))))
"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _one_device():
    rng = np.random.default_rng(0)
    w1 = tt.Variable(rng.normal(size=(16, 32)).astype(np.float32) * 0.3)
    b1 = tt.Variable(np.zeros(32, np.float32))
    w2 = tt.Variable(rng.normal(size=(32, 4)).astype(np.float32) * 0.3)
    xs = rng.normal(size=(5, 64, 16)).astype(np.float32)
    ys = rng.normal(size=(5, 64, 4)).astype(np.float32)
    opt = tt.optimizers.SGD(0.1)
    losses = []
    for x, y in zip(xs, ys):
        with tt.GradientTape() as tape:
            h = tt.nn.relu(tt.constant(x) @ w1 + b1)
            loss = tt.math.reduce_mean(tt.math.reduce_sum(tt.square(h @ w2 - y), axis=1))
        opt.apply_gradients(zip(tape.gradient(loss, [w1, b1, w2]), [w1, b1, w2]))
        losses.append(float(loss))
    return losses, [w1.numpy(), b1.numpy(), w2.numpy()]


def test_two_processes_with_gloo_equal_one_device():
    ports = [_free_port(), _free_port()]
    cluster = {"worker": [f"127.0.0.1:{p}" for p in ports]}
    procs = []
    for i in range(2):
        env = dict(os.environ, XLA_FLAGS="--xla_force_host_platform_device_count=2", JAX_PLATFORMS="cpu",
                   TF_CONFIG=json.dumps({"cluster": cluster, "task": {"type": "worker", "index": i}}))
        procs.append(subprocess.Popen([sys.executable, "-c", textwrap.dedent(WORKER)], env=env, cwd=ROOT,
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
    results = []
    try:
        for p in procs:
            out, err = p.communicate(timeout=240)
            assert p.returncode == 0, err[-4000:]
            results.append(json.loads(out.strip().splitlines()[-1]))
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
    losses, weights = _one_device()
    for r in results:
        assert r["replicas"] == 4 and r["workers"] == 2
        assert r["devices"][2] == "/job:worker/replica:0/task:1/device:CPU:0"
        assert max(abs(a - b) for a, b in zip(r["losses"], losses)) < 1e-5
        assert max(float(np.abs(np.asarray(a) - b).max()) for a, b in zip(r["weights"], weights)) < 1e-6
    assert results[0]["weights"] == results[1]["weights"]  # mirrored: the same on every worker


def test_a_worker_that_cannot_reach_the_coordinator_names_it():
    port = _free_port()  # nobody listens there
    env = dict(os.environ, JAX_PLATFORMS="cpu", TF_CONFIG=json.dumps(
        {"cluster": {"worker": [f"127.0.0.1:{port}", f"127.0.0.1:{_free_port()}"]}, "task": {"type": "worker",
                                                                                           "index": 1}}))
    script = ("import tinytf as tt\ntry:\n    tt.distribute.MultiWorkerMirroredStrategy(initialization_timeout=2)\n"
              "except tt.errors.UnavailableError as err:\n    print(err)\n")
    done = subprocess.run([sys.executable, "-c", script], env=env, cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
    assert f"could not reach the coordinator at 127.0.0.1:{port} within 2 s" in done.stdout
