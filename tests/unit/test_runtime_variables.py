"""tt.Variable and the resource ops' kernels (VarHandleOp, ReadVariableOp, Assign*VariableOp)."""
from __future__ import annotations

import threading

import numpy as np
import pytest

import tinytf as tt
from tinytf.errors import FailedPreconditionError, InvalidArgumentError
from tinytf.ops.resource import AssignVariableOp, ReadVariableOp, VarHandleOp


def test_variable_basics():
    v = tt.Variable([1.0, 2.0], name="v")
    assert v.dtype is tt.float32 and v.shape == (2,) and v.trainable and v.name == "v:0"
    assert isinstance(v.value(), tt.Tensor)
    np.testing.assert_array_equal(v.read_value().numpy(), [1.0, 2.0])
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0])
    assert not tt.Variable(1, trainable=False).trainable
    assert tt.Variable(np.zeros((2, 3))).dtype is tt.float64
    assert tt.Variable([1, 2], dtype=tt.int64).dtype is tt.int64
    assert tt.Variable(lambda: [5.0]).numpy().tolist() == [5.0]
    assert tt.Variable(tt.constant([1, 2])).dtype is tt.int32


def test_names_are_tensorflows():
    # TensorFlow 2.21 eager: the name scope, the name ("Variable" by default, never made unique), ":0"
    assert tt.Variable(1.0, name="v").name == "v:0" and tt.Variable(1.0).name == "Variable:0"
    assert tt.Variable(1.0, name="v").name == "v:0"  # eager names repeat
    with tt.name_scope("outer"):
        assert tt.Variable(1.0, name="v").name == "outer/v:0"
        assert tt.Variable(1.0).name == "outer/Variable:0"
        with tt.name_scope("inner"):
            assert tt.Variable(1.0, name="v").name == "outer/inner/v:0"
        with tt.name_scope("abs/"):
            assert tt.Variable(1.0, name="v").name == "abs/v:0"
        assert tt.Variable(1.0, name="a/").name == "a:0" and tt.Variable(1.0, name="").name == ":0"
    assert tt.Variable(1.0, name="a/b").name == "a/b:0" and tt.Variable(1.0, name="v:0").name == "v:0:0"
    with tt.name_scope("outer"):
        v = tt.Variable(1.0, name="v")
    assert v.shared_name == "outer/v"  # what checkpoints and SavedModels record
    with pytest.raises(AttributeError):
        v.name = "other"  # read-only, as in TensorFlow


def test_repr_is_tensorflows():
    assert repr(tt.Variable(1.0, name="v")) == "<tt.Variable 'v:0' shape=() dtype=float32, numpy=1.0>"
    assert repr(tt.Variable([1.0, 2.0], name="v")) == \
        "<tt.Variable 'v:0' shape=(2,) dtype=float32, numpy=array([1., 2.], dtype=float32)>"
    assert repr(tt.Variable(3)) == "<tt.Variable 'Variable:0' shape=() dtype=int32, numpy=3>"
    assert repr(tt.Variable(True)) == "<tt.Variable 'Variable:0' shape=() dtype=bool, numpy=True>"
    assert repr(tt.Variable([[1.0, 2.0]])) == \
        "<tt.Variable 'Variable:0' shape=(1, 2) dtype=float32, numpy=array([[1., 2.]], dtype=float32)>"


def test_assign_add_sub():
    v = tt.Variable([1.0, 2.0])
    assert v.assign([5.0, 6.0]) is v
    np.testing.assert_array_equal(v.numpy(), [5.0, 6.0])
    v.assign_add([1.0, 1.0])
    v.assign_sub(tt.constant([0.5, 0.5]))
    np.testing.assert_array_equal(v.numpy(), [5.5, 6.5])


def test_reads_are_snapshots():
    v = tt.Variable([1.0, 2.0])
    before = v.value()
    v.assign_add([1.0, 1.0])
    np.testing.assert_array_equal(before.numpy(), [1.0, 2.0])
    np.testing.assert_array_equal(v.numpy(), [2.0, 3.0])


def test_initial_value_is_copied():
    a = np.array([1.0, 2.0], np.float32)
    v = tt.Variable(a)
    a[0] = 100.0
    assert v.numpy()[0] == 1.0
    v.numpy()[1] = 100.0  # numpy() is a copy too
    assert v.numpy()[1] == 2.0


def test_assign_different_shape_or_dtype_is_refused():
    v = tt.Variable([1.0, 2.0])
    with pytest.raises(InvalidArgumentError, match="shape"):
        v.assign([1.0, 2.0, 3.0])
    with pytest.raises(InvalidArgumentError, match="shape"):
        v.assign_add([1.0])
    with pytest.raises(InvalidArgumentError, match="float32|int32"):
        v.assign(tt.constant([1, 2]))
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0])  # nothing changed


def test_variable_operators_read_it():
    v = tt.Variable([1.0, 2.0])
    np.testing.assert_array_equal((v + 1).numpy(), [2.0, 3.0])
    np.testing.assert_array_equal((2 * v).numpy(), [2.0, 4.0])
    np.testing.assert_array_equal((-v).numpy(), [-1.0, -2.0])
    np.testing.assert_array_equal(tt.add(v, v).numpy(), [2.0, 4.0])
    np.testing.assert_array_equal(np.asarray(v), [1.0, 2.0])
    np.testing.assert_array_equal(v[1].numpy(), 2.0)
    assert {v: 1}[v] == 1


def test_uninitialised_variable_read_fails_with_failed_precondition():
    handle = VarHandleOp.bind(shared_name="test_uninit_var", dtype=tt.float32, shape=(2,))
    with pytest.raises(FailedPreconditionError, match="uninitialized"):
        ReadVariableOp.bind(handle, dtype=tt.float32)
    AssignVariableOp.bind(handle, tt.constant([1.0, 2.0]))
    np.testing.assert_array_equal(ReadVariableOp.bind(handle, dtype=tt.float32).numpy(), [1.0, 2.0])
    again = VarHandleOp.bind(shared_name="test_uninit_var", dtype=tt.float32, shape=(2,))
    assert again is handle  # the same shared_name finds the same variable


def test_read_with_wrong_dtype_is_refused():
    v = tt.Variable([1.0])
    with pytest.raises(InvalidArgumentError, match="dtype"):
        ReadVariableOp.bind(v, dtype=tt.int32)


def test_resource_op_on_a_plain_tensor_is_refused():
    with pytest.raises(InvalidArgumentError, match="resource"):
        ReadVariableOp.bind(tt.constant([1.0]), dtype=tt.float32)


def test_concurrent_assign_add_loses_no_update():
    v = tt.Variable(np.zeros(4, np.float32))
    ones = np.ones(4, np.float32)

    def work():
        for _ in range(200):
            v.assign_add(ones)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    np.testing.assert_array_equal(v.numpy(), np.full(4, 800.0, np.float32))


def test_variables_have_a_global_lock_order():
    a, b = tt.Variable(1.0), tt.Variable(2.0)
    assert a.uid < b.uid
    with a.lock:
        pass


def test_values_handed_out_cannot_change_the_variable():
    v = tt.Variable([1.0, 2.0])
    out = v.value().numpy()
    with pytest.raises(ValueError):
        out[0] = 100.0  # read-only: the variable's buffer is shared, never written in place
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0])


def test_constant_copies_the_callers_array():
    a = np.array([1.0, 2.0], np.float32)
    t = tt.constant(a)
    a[0] = 100.0
    assert t.numpy()[0] == 1.0
