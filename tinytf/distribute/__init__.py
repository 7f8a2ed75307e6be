"""``tt.distribute``: TensorFlow's distribution strategies, on XLA's SPMD partitioner and JAX's
multi-process runtime (layer 8). tinytf owns the names and the IR (``tf_device.replicate``,
``tf.XlaSharding``, ``tf.XlaAllReduce``); XLA and JAX own placement and collectives.

    strategy = tt.distribute.MirroredStrategy()              # every local device
    strategy = tt.distribute.MultiWorkerMirroredStrategy()   # every device of the TF_CONFIG cluster
    with strategy.scope(): ...                               # mirrored variables
    strategy.run(fn, args=...); strategy.reduce(tt.distribute.ReduceOp.SUM, per_replica, axis=None)

See strategy.py for the semantics and the compiled form. Importing this package does not import JAX.
"""
from tinytf.distribute.context import (
    ReplicaContext,
    ValueContext,
    get_cross_replica_context,
    get_replica_context,
    get_strategy,
    has_strategy,
    in_cross_replica_context,
)
from tinytf.distribute.losses import compute_average_loss, scale_regularization_loss
from tinytf.distribute.multi_worker import InputContext, MultiWorkerMirroredStrategy, TFConfigClusterResolver
from tinytf.distribute.reduce_util import ReduceOp
from tinytf.distribute.strategy import (
    DistributedDataset,
    MirroredStrategy,
    OneDeviceStrategy,
    Strategy,
    StrategyExtended,
)
from tinytf.distribute.values import DistributedBatch, DistributedValues, PerReplica

__all__ = ["DistributedBatch", "DistributedDataset", "DistributedValues", "InputContext", "MirroredStrategy",
           "MultiWorkerMirroredStrategy", "OneDeviceStrategy", "PerReplica", "ReduceOp", "ReplicaContext", "Strategy",
           "StrategyExtended", "TFConfigClusterResolver", "ValueContext", "compute_average_loss",
           "get_cross_replica_context", "get_replica_context", "get_strategy", "has_strategy",
           "in_cross_replica_context", "scale_regularization_loss"]
