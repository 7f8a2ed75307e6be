"""``MultiWorkerMirroredStrategy``: data parallel over every device of several processes (hosts),
with JAX's multi-process runtime (Gloo collectives on CPU) under XLA's SPMD partitioner.

    # each worker, with TF_CONFIG = {"cluster": {"worker": ["10.0.0.1:12345", "10.0.0.2:12345"]},
    #                                "task": {"type": "worker", "index": i}}
    strategy = tt.distribute.MultiWorkerMirroredStrategy()
    # the same script on every worker: every worker iterates the same global batches and
    # experimental_distribute_dataset gives each of its devices its slice

The first worker (or the ``chief``) hosts the coordinator at its address; ``jax.distributed`` starts
before JAX's backend does (make the strategy before anything else runs on JAX). A worker that
cannot reach the coordinator within ``initialization_timeout`` seconds raises UnavailableError
naming the address.
"""
from __future__ import annotations

import json
import os
import socket
import time

from tinytf.distribute.strategy import DistributedDataset, Strategy
from tinytf.errors import FailedPreconditionError, InvalidArgumentError, UnavailableError


class TFConfigClusterResolver:
    """The cluster and this task from ``TF_CONFIG`` (JSON: ``cluster`` {job: [addresses]}, ``task``
    {type, index}), or from the dict / JSON text given."""

    def __init__(self, tf_config=None):
        raw = os.environ.get("TF_CONFIG", "") if tf_config is None else tf_config
        if isinstance(raw, str):
            try:
                config = json.loads(raw) if raw.strip() else {}
            except json.JSONDecodeError as err:
                raise InvalidArgumentError(f"TF_CONFIG is not JSON: {err}") from None
        else:
            config = dict(raw)
        cluster = config.get("cluster") or {}
        task = config.get("task") or {}
        if not isinstance(cluster, dict) or not all(isinstance(v, list) for v in cluster.values()):
            raise InvalidArgumentError("TF_CONFIG: 'cluster' must map job names to lists of addresses")
        self._cluster = {k: list(v) for k, v in cluster.items()}
        self.task_type = task.get("type", "worker" if cluster else None)
        self.task_id = int(task.get("index", 0))
        jobs = [j for j in ("chief", "worker") if j in self._cluster]
        if self._cluster and self.task_type not in jobs:
            raise InvalidArgumentError(f"TF_CONFIG: task type '{self.task_type}' is not one of the cluster's jobs "
                                       f"{jobs}")
        if self.task_type is not None and not 0 <= self.task_id < len(self._cluster.get(self.task_type, [None])):
            raise InvalidArgumentError(f"TF_CONFIG: task index {self.task_id} is out of range for job "
                                       f"'{self.task_type}'")

    def cluster_spec(self) -> dict:
        return {k: list(v) for k, v in self._cluster.items()}

    @property
    def workers(self) -> list[str]:
        return self._cluster.get("chief", []) + self._cluster.get("worker", [])

    @property
    def num_processes(self) -> int:
        return max(len(self.workers), 1)

    @property
    def process_id(self) -> int:
        if self.task_type == "worker" and "chief" in self._cluster:
            return self.task_id + len(self._cluster["chief"])
        return self.task_id

    @property
    def coordinator_address(self) -> str | None:
        return self.workers[0] if self.workers else None


class InputContext:
    """What ``distribute_datasets_from_function``'s function gets (TensorFlow's tf.distribute.InputContext)."""

    def __init__(self, num_input_pipelines: int = 1, input_pipeline_id: int = 0, num_replicas_in_sync: int = 1):
        self.num_input_pipelines = num_input_pipelines
        self.input_pipeline_id = input_pipeline_id
        self.num_replicas_in_sync = num_replicas_in_sync

    def get_per_replica_batch_size(self, global_batch_size: int) -> int:
        if global_batch_size % self.num_replicas_in_sync:
            raise InvalidArgumentError(f"The `global_batch_size` {global_batch_size} is not divisible by "
                                       f"`num_replicas_in_sync` {self.num_replicas_in_sync}")
        return global_batch_size // self.num_replicas_in_sync


def start(resolver: TFConfigClusterResolver, initialization_timeout: int = 60, local_devices: int | None = None) -> None:
    """Start ``jax.distributed`` for this task (once per process), with Gloo collectives on CPU."""
    import jax

    if resolver.num_processes <= 1:
        return
    if jax.distributed.is_initialized():
        return
    address = resolver.coordinator_address
    try:
        jax.config.update("jax_cpu_collectives_implementation", "gloo")
        if local_devices is not None:
            jax.config.update("jax_num_cpu_devices", int(local_devices))
    except RuntimeError as err:
        raise FailedPreconditionError(f"MultiWorkerMirroredStrategy must be created before JAX starts its backend "
                                      f"(before any computation): {err}") from None
    if resolver.process_id != 0:
        _wait_for_coordinator(address, initialization_timeout, resolver)
    try:
        jax.distributed.initialize(coordinator_address=address, num_processes=resolver.num_processes,
                                   process_id=resolver.process_id, initialization_timeout=int(initialization_timeout))
    except RuntimeError as err:
        text = str(err)
        if "before" in text and "backend" in text or "already" in text and "initialize" in text:
            raise FailedPreconditionError(f"MultiWorkerMirroredStrategy must be created before JAX starts its "
                                          f"backend: {text.splitlines()[0]}") from None
        raise UnavailableError(f"worker {resolver.process_id} of {resolver.num_processes} could not join the cluster "
                               f"through the coordinator at {address} within {initialization_timeout} s: "
                               f"{text.splitlines()[0] if text else type(err).__name__}") from None
    except Exception as err:
        raise UnavailableError(f"worker {resolver.process_id} of {resolver.num_processes} could not join the cluster "
                               f"through the coordinator at {address} within {initialization_timeout} s: "
                               f"{type(err).__name__}: {str(err).splitlines()[0] if str(err) else ''}") from None


def _wait_for_coordinator(address: str, timeout: float, resolver) -> None:
    """Wait until the coordinator accepts connections: JAX aborts the process (it cannot be caught)
    when a worker's registration times out, so a worker checks first and raises a clear error."""
    host, _, port = address.rpartition(":")
    try:
        port_number = int(port)
    except ValueError:
        raise InvalidArgumentError(f"TF_CONFIG: bad coordinator address '{address}' (expected host:port)") from None
    deadline = time.monotonic() + timeout
    while True:
        try:
            with socket.create_connection((host.strip("[]"), port_number), timeout=1.0):
                return
        except OSError as err:
            if time.monotonic() >= deadline:
                raise UnavailableError(f"worker {resolver.process_id} of {resolver.num_processes} could not reach "
                                       f"the coordinator at {address} within {timeout} s ({err}): is worker 0 "
                                       "running, and is the address right?") from None
            time.sleep(0.1)


class MultiWorkerMirroredStrategy(Strategy):
    """MirroredStrategy over every device of every worker of the ``TF_CONFIG`` cluster."""

    def __init__(self, communication_options=None, cluster_resolver=None, *, initialization_timeout: int = 60,
                 local_devices: int | None = None):
        import jax

        self.cluster_resolver = cluster_resolver or TFConfigClusterResolver()
        start(self.cluster_resolver, initialization_timeout, local_devices)
        devices = sorted(jax.devices(), key=lambda d: (d.process_index, d.id))
        super().__init__(devices)

    @property
    def num_workers(self) -> int:
        return self.cluster_resolver.num_processes

    @property
    def worker_index(self) -> int:
        return self.cluster_resolver.process_id

    def distribute_datasets_from_function(self, dataset_fn, options=None):
        context = InputContext(1, 0, self.num_replicas_in_sync)
        return DistributedDataset(self, dataset_fn(context))
