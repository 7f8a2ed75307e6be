"""OpKernelContext, method by method: inputs and outputs, buffer forwarding (and when it must refuse),
ref forwarding, ordered variable locking, assign / update with copy-on-write."""
from __future__ import annotations

import gc
import threading
import tracemalloc
import weakref

import numpy as np
import pytest

import tinytf as tt
from tinytf.errors import FailedPreconditionError, InvalidArgumentError, ResourceExhaustedError
from tinytf.framework.kernel import OpKernelContext, VariableLocks
from tinytf.framework.op import REGISTRY
from tinytf.framework.variables import RefVariable, RWLock, Variable
from tinytf.runtime import forwarding
from tinytf.runtime.executor import Program


def ctx_of(*inputs, num_outputs=1):
    return OpKernelContext("tf.Test", list(inputs), num_outputs)


# --- inputs and outputs ----------------------------------------------------------------------------

def test_inputs_and_dtypes():
    v = tt.Variable([1.0, 2.0])
    ctx = ctx_of(np.zeros(3, np.int32), v, np.ones((), np.float64))
    assert ctx.num_inputs == 3 and ctx.num_outputs == 1
    assert ctx.input(1) is v and ctx.input(0).dtype == np.int32
    assert ctx.input_dtype(0) is tt.int32 and ctx.input_dtype(1) is tt.resource and ctx.input_dtype(2) is tt.float64
    assert ctx.input_variable(1) is v
    with pytest.raises(InvalidArgumentError, match="tf.Test: operand 0 must be a resource or ref variable"):
        ctx.input_variable(0)


def test_allocate_and_set_output():
    ctx = ctx_of(num_outputs=1)
    out = ctx.allocate_output(0, [2, 3], tt.float32)
    assert ctx.outputs[0] is out and out.shape == (2, 3) and out.dtype == np.float32
    ctx.set_output(2, np.arange(2))  # extends the output list
    assert ctx.num_outputs == 3 and ctx.outputs[1] is None and ctx.outputs[2].tolist() == [0, 1]
    with pytest.raises(InvalidArgumentError, match="non-negative"):
        ctx.allocate_output(0, [-1], tt.float32)
    previous = tt.set_allocation_limit(1024)
    try:
        with pytest.raises(ResourceExhaustedError, match="allocation limit"):
            ctx.allocate_output(0, [1024], tt.float32)
    finally:
        tt.set_allocation_limit(previous)


# --- forwarding ------------------------------------------------------------------------------------

def test_forward_a_dying_input():
    ctx = ctx_of(np.arange(4.0))  # only the context references the array: it dies here
    assert ctx.forward_refusal(0) is None
    assert ctx.forward_input_to_output(0, 0)
    assert ctx.outputs[0] is ctx.inputs[0] and ctx.forwarded == {0: 0}
    ctx.outputs[0] *= 2  # the kernel may write the forwarded output in place
    assert ctx.outputs[0].tolist() == [0.0, 2.0, 4.0, 6.0]


def test_forward_with_the_output_shape_and_dtype():
    ctx = ctx_of(np.zeros((2, 3), np.float32))
    assert ctx.forward_input_to_output(0, 0, shape=(2, 3), dtype=tt.float32)


@pytest.mark.parametrize("case, value, shape, dtype, reason", [
    ("dtype differs", np.zeros(4, np.float32), (4,), tt.float64, "dtype differs"),
    ("shape differs", np.zeros(4), (2, 2), tt.float64, "shape differs"),
    ("a view", np.zeros(8)[::2], (4,), tt.float64, "view"),
    ("a reshaped view", np.zeros(4).reshape(2, 2), (2, 2), tt.float64, "view"),
    ("not C-contiguous", np.asfortranarray(np.zeros((2, 3))), (2, 3), tt.float64, "C-contiguous"),
    ("read-only", np.zeros(4), (4,), tt.float64, "read-only"),
])
def test_forwarding_refuses(case, value, shape, dtype, reason):
    if case == "read-only":
        value.flags.writeable = False
    ctx = ctx_of(value)
    del value  # the context holds the only reference, so only the named reason can refuse
    assert reason in ctx.forward_refusal(0, shape, dtype)
    assert not ctx.forward_input_to_output(0, 0, shape, dtype)
    assert ctx.outputs[0] is None and ctx.forwarded == {}


def test_forwarding_refuses_a_shared_buffer():
    held = np.arange(4.0)  # someone else (this test) still holds the buffer
    ctx = ctx_of(held)
    assert "shared" in ctx.forward_refusal(0)
    assert not ctx.forward_input_to_output(0, 0)
    del held
    assert ctx.forward_input_to_output(0, 0)  # once the last other holder lets go, it may forward


def test_forwarding_refuses_an_input_used_twice_and_a_base_with_live_views():
    x = np.arange(4.0)
    ctx = ctx_of(x, x)  # x * x: both operands are one buffer
    del x
    assert "shared" in ctx.forward_refusal(0)
    base = np.arange(4.0)
    view = base[1:]
    ctx = ctx_of(base)
    del base
    assert "shared" in ctx.forward_refusal(0)  # the view references it
    assert view.tolist() == [1.0, 2.0, 3.0]


def test_forwarding_refuses_variables_and_scalars():
    ctx = ctx_of(tt.Variable([1.0]), 3.0)
    assert "not an array" in ctx.forward_refusal(0)
    assert "not an array" in ctx.forward_refusal(1)


def test_forward_input_or_allocate_output():
    held = np.ones(3)
    ctx = ctx_of(held, np.zeros(3, np.float32), np.full(3, 7.0))
    out, index = ctx.forward_input_or_allocate_output([0, 1, 2], 0, (3,), tt.float64)
    assert index == 2 and out is ctx.inputs[2]  # 0 is shared, 1 has another dtype
    out, index = ctx.forward_input_or_allocate_output([0, 1], 1, (3,), tt.float64)
    assert index == -1 and all(out is not x for x in ctx.inputs)
    assert out.shape == (3,) and out.dtype == np.float64 and ctx.outputs[1] is out


# --- ref forwarding --------------------------------------------------------------------------------

def test_forward_ref_input_to_ref_output():
    ref = RefVariable([1.0, 2.0])
    ctx = ctx_of(ref, np.ones(2, np.float32))
    ctx.forward_ref_input_to_ref_output(0, 0)
    assert ctx.outputs[0] is ref  # the same variable: later ops update it


def test_forward_ref_is_a_noop_for_resources():
    ctx = ctx_of(tt.Variable([1.0]))
    ctx.forward_ref_input_to_ref_output(0, 0)
    assert ctx.outputs == [None]
    with pytest.raises(InvalidArgumentError, match="resource or ref variable"):
        ctx_of(np.ones(1)).forward_ref_input_to_ref_output(0, 0)


# --- ordered locking -------------------------------------------------------------------------------

def _blocks(fn, timeout=0.2) -> bool:
    """Does ``fn`` (run in another thread) still wait after ``timeout`` seconds? It is let go after."""
    done = threading.Event()
    thread = threading.Thread(target=lambda: (fn(), done.set()), daemon=True)
    thread.start()
    blocked = not done.wait(timeout)
    return blocked, done, thread


def test_locks_collapse_duplicates_and_follow_the_global_order():
    a, b, c = tt.Variable(1.0), tt.Variable(2.0), tt.Variable(3.0)
    ctx = ctx_of(c, a, b, a, np.ones(()))
    with ctx.lock_variable_inputs_in_order([0, 1, 2, 3]) as locks:
        assert isinstance(locks, VariableLocks)
        assert locks.variables == (a, b, c)  # creation order, a once
        assert all(v.lock.held_exclusively() for v in (a, b, c))
    assert not any(v.lock.held_exclusively() for v in (a, b, c))
    assert locks.variables == ()


def test_lock_refuses_non_variable_inputs():
    with pytest.raises(InvalidArgumentError, match="operand 1 must be a resource or ref variable"):
        ctx_of(tt.Variable(1.0), np.ones(())).lock_variable_inputs_in_order([0, 1])


def test_exclusive_lock_blocks_readers_and_writers_until_released():
    v = tt.Variable(np.zeros(3))
    holder = ctx_of(v).lock_variable_inputs_in_order([0], do_lock=True)
    blocked, done, thread = _blocks(v.read)
    assert blocked  # a reader waits for the exclusive holder
    holder.release()
    assert done.wait(5)
    blocked, done, _ = _blocks(lambda: ctx_of(v).lock_variable_inputs_in_order([0]).release())
    assert not blocked


def test_shared_locks_coexist_and_keep_writers_out():
    v = tt.Variable(np.zeros(3))
    first = ctx_of(v).lock_variable_inputs_in_order([0], do_lock=False)
    blocked, done, _ = _blocks(lambda: ctx_of(v).lock_variable_inputs_in_order([0], do_lock=False).release())
    assert not blocked  # a second shared holder gets in
    blocked, done, _ = _blocks(lambda: v.assign_add(np.ones(3)))
    assert blocked  # an exclusive writer waits for the shared holder
    first.release()
    assert done.wait(5)
    assert v.numpy().tolist() == [1.0, 1.0, 1.0]


def test_sparse_switches_to_copy_on_read_once_locked():
    v = tt.Variable(np.zeros(3))
    assert v.read() is v.read()  # readers share the buffer
    with ctx_of(v).lock_variable_inputs_in_order([0], sparse=True):
        assert v._copy_on_read
    first, second = v.read(), v.read()
    assert first is not second and first.tolist() == second.tolist() == [0.0, 0.0, 0.0]


def test_release_drops_the_references():
    v = tt.Variable(np.zeros(3))
    ref = weakref.ref(v)
    holder = ctx_of(v).lock_variable_inputs_in_order([0])
    holder.release()
    holder.release()  # twice is harmless
    del v
    gc.collect()
    assert ref() is None and holder.variables == () and holder.ctx is None


def test_holder_buffers_are_written_in_place_or_copied_for_readers():
    v = tt.Variable(np.zeros(3))
    ctx = ctx_of(v)
    with ctx.lock_variable_inputs_in_order([0]) as locks:
        buffer = locks.buffer(0)
        assert buffer is v._buffer and buffer.flags.writeable  # nobody reads it: in place
        buffer += 1
    assert not v._buffer.flags.writeable and v.numpy().tolist() == [1.0, 1.0, 1.0]
    snapshot = v.read()
    with ctx.lock_variable_inputs_in_order([0]) as locks:
        buffer = locks.buffer(0)
        assert buffer is not snapshot  # a reader holds it: copy-on-write
        buffer += 1
    assert snapshot.tolist() == [1.0, 1.0, 1.0] and v.numpy().tolist() == [2.0, 2.0, 2.0]
    with ctx.lock_variable_inputs_in_order([0], do_lock=False) as locks:
        buffer = locks.buffer(0)
        assert buffer is not v._buffer  # shared: never in place, so readers see no torn value
        buffer += 1
    assert v.numpy().tolist() == [3.0, 3.0, 3.0]


def test_holder_buffer_of_an_unlocked_input_is_refused():
    a, b = tt.Variable(1.0), tt.Variable(2.0)
    ctx = ctx_of(a, b)
    with ctx.lock_variable_inputs_in_order([0]) as locks:
        with pytest.raises(InvalidArgumentError, match="not locked"):
            locks.buffer(1)


# --- assign and update -----------------------------------------------------------------------------

def test_assign_variable_adopts_a_dying_value():
    v = tt.Variable(np.zeros(3))
    ctx = ctx_of(v, np.arange(3.0))
    ctx.assign_variable(0, 1)
    assert v._buffer is ctx.inputs[1] and v.numpy().tolist() == [0.0, 1.0, 2.0]


def test_assign_variable_copies_a_value_someone_holds():
    v = tt.Variable(np.zeros(3))
    value = np.arange(3.0)
    buffer = v._buffer
    ctx_of(v, value).assign_variable(0, 1)
    assert v._buffer is not value and value.flags.writeable
    value[0] = 100.0  # the caller's array stays theirs
    assert v.numpy().tolist() == [0.0, 1.0, 2.0]
    assert buffer.tolist() == [0.0, 0.0, 0.0]  # the old buffer was held here: not overwritten
    del buffer
    own = id(v._buffer)
    ctx_of(v, value).assign_variable(0, 1)
    assert id(v._buffer) == own  # nobody reads it: written in place
    assert v.numpy().tolist() == [100.0, 1.0, 2.0]


def test_assign_variable_checks_shape_and_dtype():
    v = tt.Variable(np.zeros(3))
    with pytest.raises(InvalidArgumentError, match="shape"):
        ctx_of(v, np.zeros(4)).assign_variable(0, 1)
    with pytest.raises(InvalidArgumentError, match="float32"):
        ctx_of(v, np.zeros(3, np.float32)).assign_variable(0, 1)
    ref = RefVariable(np.zeros(3))
    ctx_of(ref, np.zeros((2, 2))).assign_variable(0, 1, validate_shape=False)  # a ref may change shape
    assert ref.shape == (2, 2)
    with pytest.raises(InvalidArgumentError, match="shape"):
        ctx_of(ref, np.zeros(3)).assign_variable(0, 1, validate_shape=True)
    fresh = Variable(None, dtype=tt.float64, shape=(None,))
    ctx_of(fresh, np.ones(5)).assign_variable(0, 1)  # a None dim takes any size
    assert fresh.shape == (5,)


def test_assign_update_variable_in_place_or_copy_on_write():
    v = tt.Variable(np.zeros(3))
    own = id(v._buffer)
    ctx_of(v, np.ones(3)).assign_update_variable(0, 1, np.add)
    assert id(v._buffer) == own and v.numpy().tolist() == [1.0, 1.0, 1.0]
    snapshot = v.read()
    ctx_of(v, np.ones(3)).assign_update_variable(0, 1, lambda buf, x: np.multiply(buf, 5.0, out=buf))
    assert snapshot.tolist() == [1.0, 1.0, 1.0]  # the reader's value never changes
    assert v.numpy().tolist() == [5.0, 5.0, 5.0]


def test_assign_update_variable_errors():
    v = tt.Variable(np.zeros(3))
    with pytest.raises(InvalidArgumentError, match="shapes must be equal"):
        ctx_of(v, np.ones(2)).assign_update_variable(0, 1, np.add)
    with pytest.raises(InvalidArgumentError, match="dtype"):
        ctx_of(v, np.ones(3, np.int32)).assign_update_variable(0, 1, np.add)
    assert v.numpy().tolist() == [0.0, 0.0, 0.0]
    empty = Variable(None, dtype=tt.float64, shape=(3,))
    with pytest.raises(FailedPreconditionError, match="uninitialized"):
        ctx_of(empty, np.ones(3)).assign_update_variable(0, 1, np.add)
    with pytest.raises(FailedPreconditionError, match="uninitialized"):
        empty.read()


# --- the reader-writer lock ------------------------------------------------------------------------

def test_rwlock_reentry_and_misuse():
    lock = RWLock()
    with lock:
        with lock:  # the exclusive holder re-enters
            lock.acquire(exclusive=False)  # and may take it shared too
            lock.release()
        assert lock.held_exclusively()
    assert not lock.held_exclusively()
    lock.acquire(exclusive=False)
    with pytest.raises(RuntimeError, match="exclusively while holding it shared"):
        lock.acquire(exclusive=True)
    lock.release()
    with pytest.raises(RuntimeError, match="does not hold it"):
        lock.release()


# --- forwarding in the graph executor (tinytf/runtime/forwarding.py) -------------------------------

FORWARDING_OPS = sorted(n for n, c in REGISTRY.items() if forwarding.writer(c) is not None)


def test_the_ops_with_forwarding_writers_are_declared_by_their_classes():
    assert {"tf.AddV2", "tf.Mul", "tf.Tanh", "tf.Square", "tf.Relu", "tf.TanhGrad"} <= set(FORWARDING_OPS)
    assert all(getattr(REGISTRY[n], "compute_into", None) or getattr(REGISTRY[n], "UFUNC", None) for n in FORWARDING_OPS)


@pytest.mark.parametrize("name", FORWARDING_OPS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_forwarding_kernels_are_bit_identical_to_compute(name, dtype):
    cls = REGISTRY[name]
    arity = len(cls.get_irdl_definition().operands)
    special = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0, 1.5, -2.25, 1e-30], dtype)
    arrays = [np.concatenate([special, np.random.default_rng(k).normal(size=56).astype(dtype) * 3])
              for k in range(arity)]
    arrays = [arrays[0]] + [np.roll(a, 3) for a in arrays[1:]]  # pair the specials with other values
    with np.errstate(all="ignore"):
        want = cls.compute(np, *arrays)
        out = np.empty_like(arrays[0])
        forwarding.writer(cls)([a.copy() for a in arrays], out)
    np.testing.assert_array_equal(out, want)
    assert out.dtype == want.dtype


def _chain_module(n_ops):
    def f(x):
        for i in range(n_ops):
            x = tt.math.tanh(x) if i % 2 else x * 0.5
        return x
    cf = tt.function(f).get_concrete_function(tt.TensorSpec([250_000], tt.float64))
    return cf.module, cf.name


def test_forwarding_program_reuses_dying_buffers(monkeypatch):
    module, name = _chain_module(10)
    x = np.random.default_rng(0).normal(size=250_000)
    keep = x.copy()
    peaks = {}
    outs = {}
    for label in ("liveness only", "forwarding"):
        if label == "liveness only":  # the same executor without forwarding kernels
            monkeypatch.setattr(forwarding, "ENABLED", False)
        else:
            monkeypatch.undo()
        program = Program(module)
        program.run(name, [x])  # compile first
        tracemalloc.start()
        outs[label] = program.run(name, [x])[0]
        peaks[label] = tracemalloc.get_traced_memory()[1] / x.nbytes
        tracemalloc.stop()
    np.testing.assert_array_equal(outs["liveness only"], outs["forwarding"])
    np.testing.assert_array_equal(x, keep)  # the caller's argument is never overwritten
    assert peaks["liveness only"] >= 1.9  # input and output of a step live together
    assert peaks["forwarding"] <= 1.1  # one buffer (beyond the caller's argument) down the chain


def test_forwarding_never_clobbers_values_read_again_or_constants():
    @tt.function
    def f(x):
        y = tt.math.exp(x)
        a = tt.math.negative(y)          # y is read again below: must not be forwarded here
        b = tt.math.abs(y) * 2.0
        return a + b + tt.math.square(y)

    cf = f.get_concrete_function(tt.TensorSpec([4], tt.float64))
    x = np.array([0.0, 1.0, -1.0, 2.0])
    y = np.exp(x)
    program = Program(cf.module)
    for _ in range(2):  # a second run sees the same constants
        np.testing.assert_allclose(program.run(cf.name, [x])[0], -y + np.abs(y) * 2.0 + y * y, rtol=1e-15)
