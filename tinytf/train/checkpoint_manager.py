"""``tt.train.CheckpointManager``: numbered checkpoints in a directory, the newest ``max_to_keep`` kept.

    manager = tt.train.CheckpointManager(ckpt, "train", max_to_keep=3)
    manager.restore_or_initialize()        # the latest checkpoint, if the directory has one
    for step in ...:
        manager.save()                     # train/ckpt-1, train/ckpt-2, ... ; older ones deleted
    manager.latest_checkpoint, manager.checkpoints

The directory's ``checkpoint`` state file is TensorFlow's (``checkpoint_state.py``), so
``tf.train.CheckpointManager`` and ``tf.train.latest_checkpoint`` pick up where tinytf left off and
the other way round.

Crash safety, step by step: the new bundle is written under temporary names, fsynced and renamed
into place (``tensor_bundle_writer.py``); only then is the state file replaced, atomically, listing
the new checkpoint and the ones kept; only after that are the dropped checkpoints deleted. A
process killed at any moment leaves the state file naming complete checkpoints only: the previous
list, or the new one. (TensorFlow records the state before deleting too, but lists the checkpoints
it is about to delete.) Temporary files of killed processes are removed by the next manager on
the directory. A failed save (disk full, permission denied) raises a tinytf error and leaves the
state file, the old checkpoints and ``save_counter`` as they were.
"""
from __future__ import annotations

import collections
import glob
import os
import time

import numpy as np

from tinytf.errors import InvalidArgumentError, OpError
from tinytf.formats.durable_files import fsync_directory, os_error, remove_stale_temp_files, step
from tinytf.formats.tensor_bundle import index_path
from tinytf.train.checkpoint import write_objects
from tinytf.train.checkpoint_reader import get_checkpoint_state
from tinytf.train.checkpoint_state import update_checkpoint_state

_KEPT = "the previous checkpoints and the 'checkpoint' state file are kept"


def delete_checkpoint(prefix: str) -> None:
    """Delete a checkpoint's files: the index first, so what is left is never mistaken for one."""
    for path in [index_path(prefix)] + glob.glob(glob.escape(prefix) + ".data-?????-of-?????"):
        try:
            os.unlink(path)
        except FileNotFoundError:
            pass
        except OSError as e:
            raise os_error(e, path, "delete an old checkpoint file") from None


class CheckpointManager:
    """TensorFlow's ``tf.train.CheckpointManager`` (see the module docstring)."""

    def __init__(self, checkpoint, directory, max_to_keep, keep_checkpoint_every_n_hours=None,
                 checkpoint_name: str = "ckpt", step_counter=None, checkpoint_interval=None, init_fn=None):
        if max_to_keep is not None and (not isinstance(max_to_keep, int) or max_to_keep <= 0):
            raise InvalidArgumentError(f"Expected a positive integer or `None` for `max_to_keep`, got {max_to_keep!r}.")
        if checkpoint_interval is not None and step_counter is None:
            raise InvalidArgumentError("`step_counter` should be passed if `checkpoint_interval` is not None.")
        self._checkpoint = checkpoint
        self._max_to_keep = max_to_keep
        self._keep_checkpoint_every_n_hours = keep_checkpoint_every_n_hours
        self._directory = os.fspath(directory)
        self._prefix = os.path.join(self._directory, checkpoint_name)
        self._checkpoint_name = checkpoint_name
        self._step_counter = step_counter
        self._checkpoint_interval = checkpoint_interval
        self._last_checkpoint_step = None
        self._init_fn = init_fn
        remove_stale_temp_files(self._directory, checkpoint_name)
        now = time.time()
        self._maybe_delete: collections.OrderedDict[str, float] = collections.OrderedDict()
        state = get_checkpoint_state(self._directory)
        if state is None:
            self._latest_checkpoint = None
            self._last_preserved_timestamp = now - 1.0  # a manager re-created at once must not preserve them
        else:
            self._latest_checkpoint = state.model_checkpoint_path
            self._last_preserved_timestamp = state.last_preserved_timestamp
            timestamps = list(state.all_model_checkpoint_timestamps) or \
                [self._last_preserved_timestamp] * len(state.all_model_checkpoint_paths)
            for path, timestamp in zip(state.all_model_checkpoint_paths, timestamps):
                timestamp = min(timestamp, now)  # a clock that went backwards must not delete old ones early
                if timestamp > self._last_preserved_timestamp:
                    self._maybe_delete[path] = timestamp

    @property
    def directory(self) -> str:
        return self._directory

    @property
    def checkpoint(self):
        return self._checkpoint

    @property
    def checkpoint_interval(self):
        return self._checkpoint_interval

    @property
    def latest_checkpoint(self) -> str | None:
        """The prefix of the newest checkpoint, or None."""
        return self._latest_checkpoint

    @property
    def checkpoints(self) -> list[str]:
        """The managed checkpoints, oldest first."""
        return list(self._maybe_delete)

    def _interval_reached(self) -> bool:
        if self._last_checkpoint_step is None:
            return True
        current = int(np.asarray(self._step_counter))
        return current - self._last_checkpoint_step >= self._checkpoint_interval

    def save(self, checkpoint_number=None, check_interval: bool = True, options=None) -> str | None:
        """Write a new numbered checkpoint and record it; returns its prefix (None when the step
        interval is not reached yet)."""
        if self._checkpoint_interval is not None and check_interval and not self._interval_reached():
            return None
        counter = self._checkpoint.save_counter
        previous = int(counter.numpy())
        counter.assign(np.int64(previous + 1))
        try:
            number = previous + 1 if checkpoint_number is None else int(np.asarray(checkpoint_number))
            path = f"{self._prefix}-{number}"
            remove_stale_temp_files(self._directory, self._checkpoint_name)
            write_objects(self._checkpoint, path, _KEPT)
            step("bundle written")
            kept = collections.OrderedDict(self._maybe_delete)
            kept.pop(path, None)  # an overwritten checkpoint moves to the end of the queue
            kept[path] = time.time()
            dropped, last_preserved = self._sweep(kept)
            update_checkpoint_state(self._directory, path, list(kept), list(kept.values()), last_preserved, note=_KEPT)
        except BaseException:
            counter.assign(np.int64(previous))
            raise
        self._maybe_delete, self._latest_checkpoint = kept, path
        self._last_preserved_timestamp = last_preserved
        if self._step_counter is not None:
            self._last_checkpoint_step = int(np.asarray(self._step_counter))
        for old in dropped:  # the state file no longer lists them: deleting is safe at any moment
            step("deleting old checkpoint")
            try:
                delete_checkpoint(old)
            except OpError:  # the new checkpoint is saved and listed; a file left over is only garbage
                pass
        if dropped:
            fsync_directory(self._directory)
        return path

    def _sweep(self, kept) -> tuple[list[str], float]:
        """Drop the oldest beyond ``max_to_keep`` from ``kept``; the prefixes to delete and the new
        last-preserved time (``keep_checkpoint_every_n_hours`` keeps one every N hours, unlisted)."""
        dropped, last_preserved = [], self._last_preserved_timestamp
        if not self._max_to_keep:
            return dropped, last_preserved
        while len(kept) > self._max_to_keep:
            path, timestamp = kept.popitem(last=False)
            hours = self._keep_checkpoint_every_n_hours
            if hours and timestamp - hours * 3600.0 >= last_preserved:
                last_preserved = timestamp
                continue
            dropped.append(path)
        return dropped, last_preserved

    def restore_or_initialize(self):
        """Restore the latest checkpoint and return its prefix; without one, run ``init_fn`` and return None."""
        if self._latest_checkpoint is not None:
            self._checkpoint.restore(self._latest_checkpoint)
            if self._step_counter is not None:
                self._last_checkpoint_step = int(np.asarray(self._step_counter))
            return self._latest_checkpoint
        if self._init_fn is not None:
            self._init_fn()
        return None

