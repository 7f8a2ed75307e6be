"""``tt.nn.compute_average_loss`` and ``tt.nn.scale_regularization_loss``: losses scaled for a
strategy, as TensorFlow scales them, so that summing the replicas' gradients gives the gradient of
the global mean.

    per_example = tt.math.reduce_sum(tt.square(pred - y), axis=1)     # one loss per example
    loss = tt.nn.compute_average_loss(per_example)                    # sum / (local batch x replicas)
"""
from __future__ import annotations

from tinytf.distribute import context
from tinytf.errors import FailedPreconditionError, InvalidArgumentError
from tinytf.ops.op_functions import ops
from tinytf.runtime.constructors import convert_to_tensor


def compute_average_loss(per_example_loss, sample_weight=None, global_batch_size=None):
    """``sum(per_example_loss * sample_weight) / global_batch_size``; the global batch size defaults
    to the local batch times the number of replicas in sync."""

    loss = convert_to_tensor(per_example_loss)
    dtype = loss.dtype
    if loss.shape is not None and len(loss.shape) == 0:
        raise InvalidArgumentError("Invalid value passed for `per_example_loss`. Expected a tensor with at least "
                                   "rank 1.")
    if sample_weight is not None:
        loss = loss * ops.cast(sample_weight, dtype)
    if global_batch_size is None:
        if context.has_strategy() and context.in_cross_replica_context():
            raise FailedPreconditionError("You are calling `compute_average_loss` in cross replica context, while "
                                          "it was expected to be called in replica context.")
        replicas = context.get_strategy().num_replicas_in_sync
        local = loss.shape[0] if loss.shape is not None else None
        if local is None:
            raise InvalidArgumentError("compute_average_loss: the per-example loss needs a known batch dim (or "
                                       "pass global_batch_size)")
        global_batch_size = int(local) * replicas
    if isinstance(global_batch_size, int | float):
        if int(global_batch_size) != global_batch_size or global_batch_size <= 0:
            raise InvalidArgumentError(f"global_batch_size must be a positive integer, got {global_batch_size}")
        return ops.reduce_sum(loss) / float(global_batch_size)
    return ops.reduce_sum(loss) / ops.cast(global_batch_size, dtype)


def scale_regularization_loss(regularization_loss):
    """``sum(regularization_loss) / num_replicas_in_sync``: summed over the replicas, the loss once."""

    if context.has_strategy() and context.in_cross_replica_context():
        raise FailedPreconditionError("You are calling `scale_regularization_loss` in cross replica context, while "
                                      "it was expected to be called in replica context.")
    replicas = context.get_strategy().num_replicas_in_sync
    return ops.reduce_sum(regularization_loss) / float(replicas)
