"""``tt.train``: TensorFlow's checkpoint API, reading TensorFlow's own files.

    reader = tt.train.load_checkpoint(prefix_or_dir)
    reader.get_tensor("dense/kernel"); reader.get_variable_to_shape_map()
    tt.train.list_variables(prefix_or_dir); tt.train.latest_checkpoint(directory)
"""
from tinytf.train.checkpoint_reader import (  # noqa: F401
    CheckpointReader,
    get_checkpoint_state,
    latest_checkpoint,
    list_variables,
    load_checkpoint,
)

__all__ = ["CheckpointReader", "get_checkpoint_state", "latest_checkpoint", "list_variables", "load_checkpoint"]
