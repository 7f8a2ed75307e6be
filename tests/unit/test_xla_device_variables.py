"""Variables kept on the device between XLA calls: ``tt.function(jit_compile=True)`` passes (and
donates) a variable's device-resident value and takes the updated device array back; host reads
copy it to numpy lazily. Values must match numpy across jit steps interleaved with host reads,
eager updates and graph-mode steps; donation must never reach a buffer the user holds."""
from __future__ import annotations

import subprocess
import sys
import threading

import numpy as np
import pytest

import tinytf as tt
from tinytf import xla
from tinytf.xla import xla_function

LR = 0.1


def on_device(v: tt.Variable) -> bool:
    return type(v._buffer).__module__.startswith("jax")


def data(seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((8, 6)).astype(np.float32)
    y = rng.standard_normal((8, 3)).astype(np.float32)
    w1 = (rng.standard_normal((6, 5)) / 3).astype(np.float32)
    w2 = (rng.standard_normal((5, 3)) / 3).astype(np.float32)
    return x, y, w1, w2


def numpy_step(x, y, w1, w2):
    h = np.tanh(x @ w1)
    d = h @ w2 - y
    g_out = 2 * d / d.size
    g2 = h.T @ g_out
    g1 = x.T @ ((g_out @ w2.T) * (1 - h * h))
    return np.mean(d * d), w1 - LR * g1, w2 - LR * g2


def make_step(v1, v2):
    def step(x, y):
        with tt.GradientTape() as tape:
            loss = tt.reduce_mean(tt.square(tt.matmul(tt.tanh(tt.matmul(x, v1)), v2) - y))
        g1, g2 = tape.gradient(loss, [v1, v2])
        v1.assign_sub(LR * g1)
        v2.assign_sub(LR * g2)
        return loss

    return step


def close(got, want):
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_repeated_jit_steps_keep_the_weights_on_the_device_and_match_numpy():
    x, y, w1, w2 = data()
    v1, v2 = tt.Variable(w1), tt.Variable(w2)
    f = tt.function(make_step(v1, v2), jit_compile=True)
    for _ in range(5):
        loss, w1, w2 = numpy_step(x, y, w1, w2)
        close(f(tt.constant(x), tt.constant(y)).numpy(), loss)
        assert on_device(v1) and on_device(v2)  # nothing copied back to the host
    close(v1.numpy(), w1)
    close(v2.numpy(), w2)
    assert isinstance(v1.read(), np.ndarray) and not v1.read().flags.writeable
    # after the host read the variable still has a clean device copy: the next step uses it
    loss, w1, w2 = numpy_step(x, y, w1, w2)
    close(f(tt.constant(x), tt.constant(y)).numpy(), loss)
    close(v1.numpy(), w1)
    close(v2.numpy(), w2)


def test_jit_steps_interleaved_with_host_reads_eager_updates_and_graph_steps():
    x, y, w1, w2 = data(1)
    v1, v2 = tt.Variable(w1), tt.Variable(w2)
    jit = tt.function(make_step(v1, v2), jit_compile=True)
    graph = tt.function(make_step(v1, v2))
    eager = make_step(v1, v2)
    tx, ty = tt.constant(x), tt.constant(y)
    for k in range(3):
        loss, w1, w2 = numpy_step(x, y, w1, w2)
        close(jit(tx, ty).numpy(), loss)
        close(v2.numpy(), w2)                     # a host read of a device-resident value
        v1.assign_add(np.full(w1.shape, 0.01 * (k + 1), np.float32))  # eager update after the jit step
        w1 = w1 + np.float32(0.01 * (k + 1))
        loss, w1, w2 = numpy_step(x, y, w1, w2)
        close(jit(tx, ty).numpy(), loss)          # sees the eager update (no stale device copy)
        loss, w1, w2 = numpy_step(x, y, w1, w2)
        close(graph(tx, ty).numpy(), loss)        # graph mode reads the jit step's result
        loss, w1, w2 = numpy_step(x, y, w1, w2)
        close(jit(tx, ty).numpy(), loss)          # and the jit step the graph step's
        loss, w1, w2 = numpy_step(x, y, w1, w2)
        close(eager(tx, ty).numpy(), loss)        # eager tape on device-resident variables
        v2.assign(w2 * 2)                         # a whole-value assign
        w2 = w2 * 2
    close(v1.numpy(), w1)
    close(v2.numpy(), w2)


def test_donation_never_reaches_what_the_user_holds():
    x, y, w1, w2 = data(2)
    v1, v2 = tt.Variable(w1), tt.Variable(w2)
    f = tt.function(make_step(v1, v2), jit_compile=True)
    tx, ty = tt.constant(x), tt.constant(y)
    f(tx, ty)
    snapshot = v1.read()           # the host copy of the device value
    copied = v1.numpy()
    tensor = v1.value()            # an eager read, a tensor
    held = snapshot.copy()
    for _ in range(3):
        f(tx, ty)                  # donates the device copy behind ``snapshot``
    np.testing.assert_array_equal(snapshot, held)  # snapshots never change
    np.testing.assert_array_equal(copied, held)
    np.testing.assert_array_equal(tensor.numpy(), held)
    assert not np.array_equal(v1.numpy(), held)
    # the inputs (numpy values of tensors) are copied to the device, never donated
    np.testing.assert_array_equal(tx.numpy(), x)


def test_outputs_reading_an_updated_variable_stay_valid():
    v = tt.Variable(np.zeros(4, np.float32))

    @tt.function(jit_compile=True)
    def f():
        v.assign_add(tt.ones([4]))
        return v.read_value()

    outs = [f() for _ in range(3)]
    kept = outs[-1].numpy()
    for _ in range(3):
        f()
    assert [o.numpy().tolist() for o in outs] == [[1.0] * 4, [2.0] * 4, [3.0] * 4]
    np.testing.assert_array_equal(kept, [3.0] * 4)
    np.testing.assert_array_equal(v.numpy(), [6.0] * 4)


def test_a_variable_only_read_keeps_one_device_copy_until_a_host_update():
    v = tt.Variable(np.arange(4, dtype=np.float32))
    acc = tt.Variable(np.zeros(4, np.float32))

    @tt.function(jit_compile=True)
    def f(x):
        acc.assign_add(v * x)
        return tt.reduce_sum(v)

    one = tt.constant(np.float32(1))
    assert f(one).numpy() == 6 and f(one).numpy() == 6
    assert isinstance(v._buffer, np.ndarray) and v._device is not None  # read only: host stays valid
    device = v._device
    f(one)
    assert v._device is device  # reused, not copied in again
    v.assign_add(np.ones(4, np.float32))  # a host update drops the stale device copy
    assert v._device is None
    assert f(one).numpy() == 10
    np.testing.assert_array_equal(acc.numpy(), 3 * np.arange(4) + np.arange(1, 5))


def test_concurrent_jit_steps_eager_updates_and_readers_lose_nothing():
    v = tt.Variable(np.zeros(64, np.float32))

    @tt.function(jit_compile=True)
    def bump():
        v.assign_add(tt.ones([64]))
        return tt.constant(np.float32(0))

    bump()
    torn, steps, errors = [], 40, []

    def jit_worker():
        try:
            for _ in range(steps):
                bump()
        except Exception as err:  # surfaced below
            errors.append(err)

    def eager_worker():
        try:
            for _ in range(steps):
                v.assign_add(np.ones(64, np.float32))
        except Exception as err:
            errors.append(err)

    done = threading.Event()

    def reader():
        try:
            last = 0.0
            while not done.is_set():
                value = v.read()
                if not (value == value[0]).all() or value[0] < last:
                    torn.append(value.copy())
                last = value[0]
        except Exception as err:
            errors.append(err)

    threads = [threading.Thread(target=t) for t in (jit_worker, jit_worker, eager_worker)]
    readers = [threading.Thread(target=reader) for _ in range(2)]
    for t in readers + threads:
        t.start()
    for t in threads:
        t.join()
    done.set()
    for t in readers:
        t.join()
    assert not errors and not torn
    np.testing.assert_array_equal(v.numpy(), np.full(64, 1 + 3 * steps, np.float32))


def test_a_retraced_function_shares_the_compilation_but_updates_its_own_variables():
    x, y, w1, w2 = data(3)
    a1, a2, b1, b2 = tt.Variable(w1), tt.Variable(w2), tt.Variable(w1 * 2), tt.Variable(w2)
    fa = tt.function(make_step(a1, a2), jit_compile=True)
    fb = tt.function(make_step(b1, b2), jit_compile=True)
    tx, ty = tt.constant(x), tt.constant(y)
    la, lb = fa(tx, ty).numpy(), fb(tx, ty).numpy()
    ca, cb = fa.get_concrete_function(tx, ty), fb.get_concrete_function(tx, ty)
    assert ca.name != cb.name
    xa, xb = xla_function.function_for(ca.module, ca.name), xla_function.function_for(cb.module, cb.name)
    assert xa is not xb and xa.compilations is xb.compilations and len(xa.compilations) == 1
    want_a, want_b = numpy_step(x, y, w1, w2), numpy_step(x, y, w1 * 2, w2)
    close(la, want_a[0])
    close(lb, want_b[0])
    close(a1.numpy(), want_a[1])
    close(b1.numpy(), want_b[1])
    close(b2.numpy(), want_b[2])


def test_donated_argument_that_is_not_written_gives_up_a_copy():
    # an aliased (donated) resource the function only reads: the variable keeps its value
    text = """func.func @main(%v: tensor<!tf_type.resource<tensor<3xf32>>> {tf.aliasing_output = 0 : i64})
        -> tensor<3xf32> {
      %0 = "tf.ReadVariableOp"(%v) : (tensor<!tf_type.resource<tensor<3xf32>>>) -> tensor<3xf32>
      func.return %0 : tensor<3xf32>
    }"""
    from tinytf import mlir

    m = mlir.parse(text)
    v = tt.Variable(np.array([1, 2, 3], np.float32))
    for _ in range(3):
        (out,) = xla.run_module(m, "main", [v])
        np.testing.assert_array_equal(out, [1, 2, 3])
    np.testing.assert_array_equal(v.numpy(), [1, 2, 3])


def test_repr_of_a_device_resident_variable():
    v = tt.Variable(np.ones(2, np.float32))

    @tt.function(jit_compile=True)
    def f():
        v.assign_add(tt.ones([2]))
        return tt.constant(np.float32(0))

    f()
    assert on_device(v)
    assert "numpy=array([2., 2.], dtype=float32)" in repr(v) and v.shape == (2,)


def test_variables_never_import_jax():
    code = ("import sys, numpy as np, tinytf as tt\n"
            "v = tt.Variable(np.ones(3, np.float32)); v.assign_add(np.ones(3, np.float32))\n"
            "assert v.numpy().tolist() == [2.0, 2.0, 2.0]\n"
            "assert 'jax' not in sys.modules\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q"]))
