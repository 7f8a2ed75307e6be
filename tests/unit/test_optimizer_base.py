"""The Optimizer base class: an update rule it lacks is tinytf's UnimplementedError, not Python's."""
import numpy as np
import pytest

import tinytf as tt
from tinytf.errors import UnimplementedError


def test_base_optimizer_without_update_rule_raises_unimplemented():
    var = tt.Variable(np.ones(2, np.float32))
    opt = tt.optimizers.Optimizer(0.1, name="Plain")
    with pytest.raises(UnimplementedError, match=r"^Plain: Optimizer has no update rule: use SGD, Momentum or "
                                                 r"Adam, or subclass Optimizer and override _apply\(grad, var\)$"):
        opt.apply_gradients([(tt.constant([1.0, 1.0]), var)])
    np.testing.assert_array_equal(var.numpy(), [1.0, 1.0])  # nothing was applied


def test_subclass_overriding_apply_is_used():
    class Halve(tt.optimizers.Optimizer):
        def _apply(self, grad, var):
            var.assign_sub(0.5 * grad)

    var = tt.Variable(np.ones(2, np.float32))
    Halve(0.1).apply_gradients([(tt.constant([2.0, 4.0]), var)])
    np.testing.assert_array_equal(var.numpy(), [0.0, -1.0])


def test_slots_are_named_after_their_variable_whatever_the_scope():
    # TensorFlow 1's optimizers name a slot after its variable ("dense/w/Adam:0") in any name scope
    with tt.name_scope("dense"):
        w = tt.Variable(np.ones(2, np.float32), name="w")
    u = tt.Variable(np.ones(2, np.float32))
    opt = tt.optimizers.Adam(0.1)
    with tt.name_scope("train"):
        opt.apply_gradients([(tt.constant([1.0, 1.0]), w), (tt.constant([1.0, 1.0]), u)])
    assert [opt.get_slot(w, s).name for s in ("m", "v")] == ["dense/w/m:0", "dense/w/v:0"]
    assert [opt.get_slot(u, s).name for s in ("m", "v")] == ["Variable/m:0", "Variable/v:0"]
