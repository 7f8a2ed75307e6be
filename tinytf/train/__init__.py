"""``tt.train``: TensorFlow's checkpoint API, reading and writing TensorFlow's own files.

    ckpt = tt.train.Checkpoint(model=model, optimizer=opt)
    ckpt.write(prefix); ckpt.read(prefix).assert_consumed()
    manager = tt.train.CheckpointManager(ckpt, "train", max_to_keep=3); manager.save()
    reader = tt.train.load_checkpoint(prefix_or_dir)
    reader.get_tensor("model/w/.ATTRIBUTES/VARIABLE_VALUE"); reader.get_variable_to_shape_map()
    tt.train.list_variables(prefix_or_dir); tt.train.latest_checkpoint(directory)
"""
from tinytf.train.checkpoint import Checkpoint  # noqa: F401
from tinytf.train.checkpoint_manager import CheckpointManager  # noqa: F401
from tinytf.train.checkpoint_reader import (  # noqa: F401
    CheckpointReader,
    get_checkpoint_state,
    latest_checkpoint,
    list_variables,
    load_checkpoint,
)
from tinytf.train.checkpoint_state import update_checkpoint_state  # noqa: F401

__all__ = ["Checkpoint", "CheckpointManager", "CheckpointReader", "get_checkpoint_state", "latest_checkpoint",
           "list_variables", "load_checkpoint", "update_checkpoint_state"]
