"""Write a checkpoint directory's ``checkpoint`` state file, as TensorFlow writes it.

    update_checkpoint_state("train", "train/ckpt-3", ["train/ckpt-2", "train/ckpt-3"],
                            timestamps=[t2, t3], last_preserved_timestamp=t0)

writes the text proto (a CheckpointState)::

    model_checkpoint_path: "ckpt-3"
    all_model_checkpoint_paths: "ckpt-2"
    all_model_checkpoint_paths: "ckpt-3"
    all_model_checkpoint_timestamps: 1796159212.080547
    all_model_checkpoint_timestamps: 1796159212.091034
    last_preserved_timestamp: 1796159211.0112345

with paths relative to the directory when they lie in it (``save_relative_paths``). The file is
replaced atomically (temporary file, fsync, rename, directory fsync): a reader sees the old list or
the new one. ``get_checkpoint_state`` / ``latest_checkpoint`` in ``checkpoint_reader.py`` read it.
"""
from __future__ import annotations

import os

from tinytf.formats.durable_files import step, write_atomically
from tinytf.train.checkpoint_reader import CHECKPOINT_STATE_FILE


def _relative(path: str, directory: str, relative: bool) -> str:
    path = os.fspath(path)
    if relative and os.path.isabs(path) == os.path.isabs(directory or "."):
        rel = os.path.relpath(path, directory or ".")
        if not rel.startswith(os.pardir):
            return rel
    return path


def checkpoint_state_text(directory: str, model_checkpoint_path: str, all_model_checkpoint_paths,
                          timestamps=None, last_preserved_timestamp=None, save_relative_paths: bool = True) -> str:
    from google.protobuf import text_format

    from tinytf.formats import protos

    state = protos.CheckpointState(model_checkpoint_path=_relative(model_checkpoint_path, directory, save_relative_paths))
    state.all_model_checkpoint_paths.extend(_relative(p, directory, save_relative_paths)
                                            for p in all_model_checkpoint_paths)
    if timestamps:
        state.all_model_checkpoint_timestamps.extend(float(t) for t in timestamps)
    if last_preserved_timestamp is not None:
        state.last_preserved_timestamp = float(last_preserved_timestamp)
    return text_format.MessageToString(state)


def update_checkpoint_state(directory: str, model_checkpoint_path: str, all_model_checkpoint_paths,
                            timestamps=None, last_preserved_timestamp=None, save_relative_paths: bool = True,
                            latest_filename: str | None = None, note: str = "") -> str:
    """Atomically replace ``directory/checkpoint``; returns its path."""
    directory = os.fspath(directory)
    text = checkpoint_state_text(directory, model_checkpoint_path, all_model_checkpoint_paths, timestamps,
                                 last_preserved_timestamp, save_relative_paths)
    path = os.path.join(directory, latest_filename or CHECKPOINT_STATE_FILE)
    step("state writing")
    write_atomically(path, text.encode("utf-8"), note)
    step("state renamed")
    return path
