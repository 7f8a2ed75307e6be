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
