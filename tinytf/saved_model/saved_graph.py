"""The graph of a SavedModel's MetaGraphDef, as TensorFlow 2.21's ``tf.saved_model.save`` writes it.

    used = set()
    write_graph(meta_graph, object_graph, signature_functions, used)   # nodes, signature defs, saver
    used                                                               # {"VarHandleOp", "Placeholder", ...}

The nodes: a ``VarHandleOp`` per variable (optimizer slots too), a ``Placeholder`` per signature
input (``serving_default_x``), a ``StatefulPartitionedCall`` per signature (keys in sorted order)
calling its wrapper function with the inputs and the captured variables, the init op ``NoOp``
(``__saved_model_init_op``), and a saver: TensorFlow's C++ loader (TensorFlow Serving,
``saved_model_cli run``) feeds ``saver_filename`` the variables prefix and runs ``restore_all``,
whose ``RestoreV2`` reads the checkpoint keys into the variables with ``AssignVariableOp``s.
"""
from __future__ import annotations

import numpy as np

from tinytf.formats import op_defs, tensor_proto
from tinytf.formats.graph_names import Names, node_name
from tinytf.framework import tf_types
from tinytf.framework.variables import Variable

PREDICT_METHOD_NAME = "tensorflow/serving/predict"
INIT_OP_KEY = "__saved_model_init_op"
OBJECT_GRAPH_KEY = "_CHECKPOINTABLE_OBJECT_GRAPH"
_CPU = "/device:CPU:0"


class _Graph:
    """Adds nodes with unique names to a GraphDef and records their op types."""

    def __init__(self, graph_def, used_ops: set):
        self.graph_def, self.used_ops, self.names = graph_def, used_ops, Names()

    def node(self, name: str, op: str, inputs=(), device: str = "", **types):
        """A node ``op`` named ``name`` (made unique); ``types`` are type attributes (``dtype=tt.float32``)."""
        node = self.graph_def.node.add(name=self.names.unique(name), op=op, input=list(inputs), device=device)
        for key, dtype in types.items():
            node.attr[key].type = tensor_proto.enum_of(dtype)
        self.used_ops.add(op)
        return node

    def placeholder(self, name: str, dtype, shape):
        node = self.node(name, "Placeholder", dtype=dtype)
        node.attr["shape"].shape.CopyFrom(tensor_proto.shape_to_proto(shape))
        node.attr["_output_shapes"].list.shape.add().CopyFrom(tensor_proto.shape_to_proto(shape))
        return node

    def const(self, name: str, array) -> str:
        node = self.node(name, "Const", device=_CPU)
        node.attr["value"].tensor.CopyFrom(tensor_proto.from_numpy(array))
        node.attr["dtype"].type = node.attr["value"].tensor.dtype
        node.attr["_output_shapes"].list.shape.add().CopyFrom(tensor_proto.shape_to_proto(array.shape))
        return node.name


def _tensor_info(info, name: str, dtype, shape) -> None:
    info.name, info.dtype = name, tensor_proto.enum_of(dtype)
    info.tensor_shape.CopyFrom(tensor_proto.shape_to_proto(shape))


def _strings(values) -> np.ndarray:
    out = np.empty(len(values), dtype=object)
    out[:] = [v.encode() for v in values]
    return out


def write_graph(meta_graph, object_graph, signatures, used_ops: set) -> None:
    """The nodes, signature defs, init op and saver of ``meta_graph``: variables from ``object_graph``
    (a ``tt.train`` ObjectGraph), one call per ``SignatureFunction``; op types into ``used_ops``."""
    graph = _Graph(meta_graph.graph_def, used_ops)
    variables = [obj for obj in object_graph.objects if isinstance(obj, Variable)]  # (slots too: the saver has them)
    handles = {}
    for var in variables:
        node = graph.node(node_name(var.shared_name), "VarHandleOp", dtype=var.dtype)  # w, w_1: TF's names
        node.attr["shape"].shape.CopyFrom(tensor_proto.shape_to_proto(var.shape))
        node.attr["shared_name"].s = node.name.encode()
        node.attr["_output_shapes"].list.shape.add()
        handles[id(var)] = node.name
    for sig in sorted(signatures, key=lambda s: s.key):
        signature_def = meta_graph.signature_def[sig.key]
        signature_def.method_name = PREDICT_METHOD_NAME
        inputs = []
        for name, spec in zip(sig.inputs, sig.input_specs()):
            ph = graph.placeholder(node_name(f"{sig.key}_{name}"), spec.dtype, spec.shape)
            inputs.append(ph.name)
            _tensor_info(signature_def.inputs[name], f"{ph.name}:0", spec.dtype, spec.shape)
        call = graph.node("StatefulPartitionedCall", "StatefulPartitionedCall",
                          inputs + [handles[id(v)] for v in sig.concrete.captured_variables])
        call.attr["f"].func.name = sig.name
        call.attr["Tin"].CopyFrom(op_defs.attr_value("list(type)", [tf_types.dtype_of(a.type)
                                                                    for a in sig.function.body.block.args]))
        call.attr["Tout"].CopyFrom(op_defs.attr_value("list(type)", [tf_types.dtype_of(t) for t in sig.types]))
        for t in sig.types:
            call.attr["_output_shapes"].list.shape.add().CopyFrom(tensor_proto.shape_to_proto(tf_types.shape_of(t)))
        for j, (key, t) in enumerate(zip(sig.outputs, sig.types)):
            _tensor_info(signature_def.outputs[key], f"{call.name}:{j}", tf_types.dtype_of(t), tf_types.shape_of(t))
    init = graph.node("NoOp", "NoOp")
    meta_graph.collection_def["saved_model_main_op"].node_list.value.append(init.name)
    info = meta_graph.signature_def[INIT_OP_KEY].outputs[INIT_OP_KEY]
    info.name = init.name
    info.tensor_shape.unknown_rank = True
    _saver(meta_graph.saver_def, graph, object_graph, variables, handles)


def _saver(saver, graph: _Graph, object_graph, variables, handles) -> None:
    """The saver's nodes and SaverDef: ``saver_filename`` fed the prefix, ``save/Identity`` to save, ``restore_all``."""
    keys = {id(v): k for k, v in object_graph.variables}
    filename = graph.placeholder("saver_filename", "string", ())
    save_keys = [keys[id(v)] for v in variables] + [OBJECT_GRAPH_KEY]
    graph_bytes = np.empty((), dtype=object)
    graph_bytes[()] = object_graph.proto.SerializeToString()
    reads = [graph.node(f"save/{handles[id(v)]}/Read", "ReadVariableOp", [handles[id(v)]], dtype=v.dtype).name
             for v in variables]
    save = graph.node("save/SaveV2", "SaveV2", [filename.name, graph.const("save/tensor_names", _strings(save_keys)),
                                                 graph.const("save/shape_and_slices", _strings([""] * len(save_keys)))]
                      + reads + [graph.const("save/object_graph", graph_bytes)], device=_CPU)
    save.attr["dtypes"].CopyFrom(op_defs.attr_value("list(type)", [v.dtype for v in variables] + ["string"]))
    saved = graph.node("save/Identity", "Identity", [filename.name, "^" + save.name], T="string")
    restore_all = graph.node("restore_all", "NoOp")
    if variables:
        restore = graph.node("restore/RestoreV2", "RestoreV2",
                             [filename.name, graph.const("restore/tensor_names", _strings(save_keys[:-1])),
                              graph.const("restore/shape_and_slices", _strings([""] * len(variables)))], device=_CPU)
        restore.attr["dtypes"].CopyFrom(op_defs.attr_value("list(type)", [v.dtype for v in variables]))
        for i, var in enumerate(variables):
            assign = graph.node(f"restore/{handles[id(var)]}/Assign", "AssignVariableOp",
                                [handles[id(var)], f"{restore.name}:{i}"], dtype=var.dtype)
            restore_all.input.append("^" + assign.name)
    saver.filename_tensor_name = f"{filename.name}:0"
    saver.save_tensor_name = f"{saved.name}:0"
    saver.restore_op_name = restore_all.name
    saver.version = 2  # SaverDef.V2
