"""What an XLA call does with the values it takes and gives. A ``tt.constant`` holds a read-only copy
of its value, so ``tt.function(jit_compile=True)`` keeps that tensor's device copy from its second
call on (as TensorFlow keeps an eager tensor on its device); writable arrays and donated arguments are
copied in on every call. A function that only reads a variable takes its value as a reader does,
without locking it for the whole call. Outputs stay on the device until used on the host."""
from __future__ import annotations

import gc
import threading
import time

import numpy as np
import pytest

import tinytf as tt
from tinytf import mlir, xla
from tinytf.xla import xla_function


def kept(array):
    """The kept entry's device copy for ``array``: None when seen once, absent when never kept."""
    entry = xla_function._KEPT.get(id(array))
    if entry is None or entry[0]() is not array:
        return "absent"
    return entry[1]


def test_constant_holds_a_read_only_copy_of_an_array():
    a = np.arange(4, dtype=np.float32)
    t = tt.constant(a)
    a[0] = 100  # the caller's array stays theirs
    np.testing.assert_array_equal(t.numpy(), [0, 1, 2, 3])
    with pytest.raises(ValueError, match="read-only"):
        t.numpy()[1] = 7
    assert (t + 1).numpy().flags.writeable  # results of ops are new buffers
    s = tt.constant(np.float32(2.5))
    assert s.numpy().shape == () and not s.numpy().flags.writeable and float(s) == 2.5


def test_a_constant_passed_again_passes_its_kept_device_copy():
    f = tt.function(lambda x: x * 2 + 1, jit_compile=True)
    t = tt.constant(np.arange(6, dtype=np.float32).reshape(2, 3))
    value = t.numpy()
    np.testing.assert_array_equal(f(t).numpy(), value * 2 + 1)
    assert kept(value) is None  # seen once: not put on the device twice
    np.testing.assert_array_equal(f(t).numpy(), value * 2 + 1)
    device = kept(value)
    assert type(device).__module__.startswith("jax")
    np.testing.assert_array_equal(np.asarray(device), value)
    f(t)
    assert kept(value) is device  # reused, not copied in again


def test_kept_copies_are_dropped_with_their_arrays():
    # JAX may keep a read-only array's own buffer as the device array (it did for most of these),
    # which would then keep the array alive: the kept copy must not hold it
    keys = []
    for n in range(1, 201):
        value = np.arange(n, dtype=np.float32)
        value.flags.writeable = False
        assert xla_function._kept_copy(value) is value  # seen once
        np.testing.assert_array_equal(np.asarray(xla_function._kept_copy(value)), value)
        keys.append(id(value))
        del value
    gc.collect()
    assert not set(keys) & set(xla_function._KEPT)


def test_writable_arrays_are_copied_in_on_every_call():
    m = mlir.parse("""func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
      %0 = "tf.Neg"(%x) : (tensor<3xf32>) -> tensor<3xf32>
      func.return %0 : tensor<3xf32>
    }""")
    a = np.array([1, 2, 3], np.float32)
    for k in range(3):
        a[0] = k  # the caller writes between calls: every call sees the new value
        (out,) = xla.run_module(m, "main", [a])
        np.testing.assert_array_equal(out, [-k, -2, -3])
    assert kept(a) == "absent"


def test_a_donated_argument_never_takes_the_kept_copy():
    m = mlir.parse("""func.func @main(%x: tensor<3xf32> {tf.aliasing_output = 0 : i64}) -> tensor<3xf32> {
      %0 = "tf.Neg"(%x) : (tensor<3xf32>) -> tensor<3xf32>
      func.return %0 : tensor<3xf32>
    }""")
    t = tt.constant(np.array([1, 2, 3], np.float32))
    for _ in range(3):  # a kept copy passed here would be consumed, and the next call would fail
        (out,) = xla.run_module(m, "main", [t.numpy()])
        np.testing.assert_array_equal(out, [-1, -2, -3])
    assert kept(t.numpy()) == "absent"
    np.testing.assert_array_equal(t.numpy(), [1, 2, 3])


def test_a_function_that_only_reads_a_variable_does_not_lock_it_for_the_call():
    v = tt.Variable(np.ones(3, np.float32))
    f = tt.function(lambda: tt.reduce_sum(v * 2), jit_compile=True)
    assert float(f()) == 6
    v.lock.acquire(False)  # held shared by this thread: an exclusive lock would raise RuntimeError
    try:
        assert float(f()) == 6
    finally:
        v.lock.release()
    g = tt.function(lambda: v.assign_add(tt.ones(3)), jit_compile=True)
    v.lock.acquire(False)
    try:
        with pytest.raises(RuntimeError, match="exclusively while holding it shared"):
            g()  # a writer still locks every variable exclusively
    finally:
        v.lock.release()


def test_readers_see_whole_values_while_another_thread_assigns():
    n = 4096
    v = tt.Variable(np.zeros(n, np.float32))
    total = tt.function(lambda: tt.reduce_sum(v), jit_compile=True)
    total()
    zeros, ones = np.zeros(n, np.float32), np.ones(n, np.float32)
    done = threading.Event()

    def writer():
        for k in range(400):
            v.assign(ones if k % 2 else zeros)
            time.sleep(0.0002)
        done.set()

    thread = threading.Thread(target=writer)
    thread.start()
    seen = set()
    while not done.is_set():
        seen.add(float(total()))
    thread.join()
    assert seen <= {0.0, float(n)} and len(seen) == 2  # both values, never a mixture


def test_outputs_stay_on_the_device_until_used_on_the_host():
    f = tt.function(lambda x: (x * 2, tt.reduce_sum(x)), jit_compile=True)
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    doubled, total = f(tt.constant(x))
    assert isinstance(doubled, tt.Tensor) and type(doubled.device_array).__module__.startswith("jax")
    assert doubled.shape == (2, 3) and doubled.dtype == tt.float32 and doubled._host is None  # no copy yet
    np.testing.assert_array_equal(doubled.numpy(), x * 2)
    assert float(total) == 15
    np.testing.assert_array_equal((doubled + 1).numpy(), x * 2 + 1)  # eager ops take it
    g = tt.function(lambda y: y - 1)
    np.testing.assert_array_equal(g(doubled).numpy(), x * 2 - 1)  # graph mode too
    np.testing.assert_array_equal(f(doubled)[0].numpy(), x * 4)  # and XLA again
    assert "numpy=array([[ 0.,  2.,  4.]" in repr(doubled)


def general_calls(monkeypatch) -> list:
    """Record the calls that take XlaFunction's general path (a bound call does not)."""
    calls, general = [], xla_function.XlaFunction.call_device
    monkeypatch.setattr(xla_function.XlaFunction, "call_device",
                        lambda self, *args: calls.append(len(args)) or general(self, *args))
    return calls


def test_a_call_that_only_reads_is_bound_to_its_computation(monkeypatch):
    calls = general_calls(monkeypatch)
    v = tt.Variable(np.ones(3, np.float32))
    f = tt.function(lambda x: (x * v, tt.reduce_sum(x)), jit_compile=True)
    for k in range(4):
        v.assign(np.full(3, k, np.float32))  # a host update between calls: the next call sees it
        x = np.arange(3, dtype=np.float32) + k
        product, total = f(tt.constant(x))  # a new constant every time, then the same one
        np.testing.assert_array_equal(product.numpy(), x * k)
        assert float(total) == x.sum() and float(f(tt.constant(x))[1]) == x.sum()
    assert len(calls) == 1  # the first call; every later one went through the bound call
    with pytest.raises(tt.errors.InvalidArgumentError):
        f(tt.constant(np.ones(3, np.int32)))  # another signature takes the general path and its checks


@pytest.mark.parametrize("case", ["writes", "declared [None]"])
def test_calls_that_cannot_be_bound_take_the_general_path(monkeypatch, case):
    calls = general_calls(monkeypatch)
    if case == "writes":
        v = tt.Variable(np.zeros(2, np.float32))
        f = tt.function(lambda x: v.assign_add(x), jit_compile=True)
    else:
        v = tt.Variable(np.zeros(2, np.float32), shape=[None])
        f = tt.function(lambda x: v + x, jit_compile=True)
    for k in range(1, 4):
        v.assign(np.full(2, k, np.float32))
        np.testing.assert_array_equal(f(tt.constant(np.ones(2, np.float32))).numpy(), [k + 1, k + 1])
    assert len(calls) == 3
