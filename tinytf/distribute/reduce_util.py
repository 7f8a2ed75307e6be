"""``tt.distribute.ReduceOp``: how values of the replicas combine (TensorFlow's SUM and MEAN)."""
from __future__ import annotations

import enum

from tinytf.errors import InvalidArgumentError


class ReduceOp(enum.Enum):
    """SUM or MEAN of the replicas' values."""

    SUM = "SUM"
    MEAN = "MEAN"

    @staticmethod
    def from_variable_aggregation(aggregation) -> ReduceOp:
        if isinstance(aggregation, ReduceOp):
            return aggregation
        name = getattr(aggregation, "name", aggregation)
        text = str(name).upper()
        if text in ("SUM", "ADD"):
            return ReduceOp.SUM
        if text in ("MEAN", "ONLY_FIRST_REPLICA"):
            return ReduceOp.MEAN
        raise InvalidArgumentError(f"unknown reduce op {aggregation!r} (tt.distribute.ReduceOp.SUM or MEAN)")

    @property
    def xla(self) -> str:
        """The name tf.XlaAllReduce uses."""
        return "Add" if self is ReduceOp.SUM else "Mean"
