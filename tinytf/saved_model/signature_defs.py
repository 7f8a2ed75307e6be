"""TF1 SavedModels: a GraphDef with placeholders and variables, and SignatureDefs naming its tensors.

    session = GraphSession(export_dir, meta_graph)   # one function per signature, variables restored,
    session.signatures["serving_default"](x=...)     # the init op run once

What TensorFlow's ``loader.load(sess, tags, export_dir)`` followed by ``sess.run(fetches, feeds)``
does, as functions: each SignatureDef becomes ``@<key>``, the graph pruned to what its outputs need,
its inputs (any tensor: feeding replaces it) as arguments in input-key order, then each variable it
uses as a resource argument. Ref variables become resource variables first
(``tinytf/formats/ref_variables.py``). Variables live in the session: a signature that assigns one
(a counter) changes what the next call sees.

Loading: variables take their checkpoint values by the saver's restore graph (``saver_def``'s
restore op: each Assign from ``RestoreV2:k`` names the key ``tensor_names[k]`` of its variable),
else by node name; then the main op (``saved_model_main_op``, ``legacy_init_op`` or the
``__saved_model_init_op`` signature) runs once with each asset's tensor fed its path.
"""
from __future__ import annotations

from tinytf.errors import InvalidArgumentError, NotFoundError
from tinytf.formats import graphdef_import, ref_variables, tensor_proto
from tinytf.formats.graphdef_import import Feed, GraphImporter, tensor_name
from tinytf.framework import tf_types
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.framework.variables import Variable
from tinytf.saved_model import reader
from tinytf.saved_model.loaded import Runner, SignatureFunction

INIT_OP_SIGNATURE_KEY = "__saved_model_init_op"
MAIN_OP_COLLECTIONS = ("saved_model_main_op", "legacy_init_op")
ASSETS_COLLECTION = "saved_model_assets"


def tensor_info_spec(info) -> TensorSpec:
    shape = tensor_proto.shape_from_proto(info.tensor_shape)
    return TensorSpec(shape, tensor_proto.dtype_from_enum(info.dtype), name=info.name)


def init_op_name(meta_graph) -> str | None:
    sig = meta_graph.signature_def.get(INIT_OP_SIGNATURE_KEY)
    if sig is not None and INIT_OP_SIGNATURE_KEY in sig.outputs:
        return sig.outputs[INIT_OP_SIGNATURE_KEY].name
    for key in MAIN_OP_COLLECTIONS:
        if key in meta_graph.collection_def and meta_graph.collection_def[key].node_list.value:
            return meta_graph.collection_def[key].node_list.value[0]
    return None


def asset_files(meta_graph) -> list[tuple[str, str]]:
    """(tensor name, file name) of each asset: the MetaGraphDef's asset_file_def, or TF1's collection."""
    from tinytf.formats import protos

    out = [(a.tensor_info.name, a.filename) for a in meta_graph.asset_file_def]
    if not out and ASSETS_COLLECTION in meta_graph.collection_def:
        for item in meta_graph.collection_def[ASSETS_COLLECTION].any_list.value:  # tensorflow.AssetFileDef
            asset = protos.parse(protos.meta_graph_pb2.AssetFileDef, item.value, "collection saved_model_assets")
            out.append((asset.tensor_info.name, asset.filename))
    return out


def restore_keys(nodes, saver_def) -> dict[str, str]:
    """Variable node -> checkpoint key, read off the saver's restore graph (empty without one)."""
    by_name = {n.name: n for n in nodes}
    if not saver_def.restore_op_name:
        return {}
    keys, stack, seen = {}, [saver_def.restore_op_name], set()
    while stack:
        name = tensor_name(stack.pop())[0]
        node = by_name.get(name)
        if node is None or name in seen:
            continue
        seen.add(name)
        stack.extend(node.input)
        if node.op not in ("Assign", "AssignVariableOp") or len(node.input) < 2:
            continue
        source, index = tensor_name(node.input[1])
        while source in by_name and by_name[source].op == "Identity":
            source, index = tensor_name(by_name[source].input[0])
        restore = by_name.get(source)
        if restore is None or restore.op not in ("RestoreV2", "Restore"):
            continue
        names = by_name.get(tensor_name(restore.input[1])[0])
        if names is None or names.op != "Const":
            continue
        values = tensor_proto.to_numpy(names.attr["value"].tensor, f"node '{names.name}'").reshape(-1)
        if index < len(values):
            keys[tensor_name(node.input[0])[0]] = values[index].decode("utf-8", "replace")
    return keys


class GraphSession:
    """A TF1 MetaGraphDef loaded: a module of signature functions over restored variables."""

    def __init__(self, export_dir: str, meta_graph, backend: str = "graph", allow_unregistered: bool = False):
        self.export_dir = export_dir
        self.meta_graph = meta_graph
        graph_def = meta_graph.graph_def
        op_list = meta_graph.meta_info_def.stripped_op_list
        op_defs = {op.name: op for op in op_list.op}
        self.original_nodes = list(graph_def.node)
        self.nodes = ref_variables.upgrade_ref_variables(self.original_nodes, op_defs)
        self.by_name = {n.name: n for n in self.nodes}
        self.importer = GraphImporter(graph_def.library, op_list, allow_unregistered)
        self.specs: dict[str, tuple[dict, list]] = {}
        for key in sorted(meta_graph.signature_def):
            if key != INIT_OP_SIGNATURE_KEY:
                self._signature_function(key, meta_graph.signature_def[key])
        init = init_op_name(meta_graph)
        self.assets = asset_files(meta_graph)
        if init is not None:
            feeds = [Feed(t, tf_types.tensor_type((), tf_types.StringType()), tensor_name(t)[0]) for t, _ in self.assets]
            self.importer.graph(self.nodes, feeds, [], [init], prune=True, name=INIT_OP_SIGNATURE_KEY,
                                lift_variables=True)
        self.importer.check()
        self.module = self.importer.module(graph_def.versions if graph_def.HasField("versions") else None)
        self.runner = Runner(self.module, backend)
        self.variables = self._restore()
        if init is not None:
            values = [reader.asset_path(export_dir, f) for _, f in self.assets]
            self._run(INIT_OP_SIGNATURE_KEY, [_string(v) for v in values])  # (graph backend: strings, files)
        self.signatures = {key: SignatureFunction(self.runner, key, inputs, outputs,
                                                  [self.variables[v] for v in self.importer.lifted[key]],
                                                  meta_graph.signature_def[key].method_name, cast_inputs=True)
                           for key, (inputs, outputs) in self.specs.items()}

    def _input_spec(self, key: str, k: str, info) -> TensorSpec:
        """A signature input's spec: a Placeholder's own dtype (TF 1.0 exports could record a wrong one)
        and the SignatureDef's shape, or the Placeholder's when the SignatureDef has none."""
        node = self.by_name.get(tensor_name(info.name)[0])
        if node is None:
            raise InvalidArgumentError(f"signature '{key}': input '{k}' names tensor {info.name}, not in the graph")
        spec = tensor_info_spec(info)
        shape, dtype = spec.shape, spec.dtype
        if node.op in ("Placeholder", "PlaceholderWithDefault"):
            from tinytf.formats.graphdef_import import _node_dtype

            dtype = _node_dtype(node)
            if not info.HasField("tensor_shape"):
                shape = graphdef_import.placeholder_shape(node, self.meta_graph.graph_def.versions.producer)
        elif not info.HasField("tensor_shape"):
            shape = None
        return TensorSpec(shape, dtype, name=info.name)

    def _signature_function(self, key: str, sig) -> None:
        inputs = {k: self._input_spec(key, k, sig.inputs[k]) for k in sorted(sig.inputs)}
        feeds = [Feed(sig.inputs[k].name, spec.to_type(), k) for k, spec in inputs.items()]
        fetches = []
        for k in sorted(sig.outputs):
            fetches.append(self._fetchable(sig.outputs[k].name, key, k))
        self.importer.graph(self.nodes, feeds, fetches, [], prune=True, name=key, lift_variables=True)
        self.specs[key] = (inputs, sorted(sig.outputs))

    def _fetchable(self, tensor: str, key: str, output: str) -> str:
        """A fetched tensor; a variable's (a TF1 ``DT_FLOAT_REF`` output) is read by an added node."""
        name, index = tensor_name(tensor)
        node = self.by_name.get(name)
        if node is None:
            raise InvalidArgumentError(f"signature '{key}': output '{output}' names tensor {tensor}, not in the graph")
        if not ref_variables.is_variable(node):
            return tensor
        from tinytf.formats import protos

        read = f"{name}/read_for_signature_{key}"
        if read not in self.by_name:
            node_def = protos.node_def_pb2.NodeDef(name=read, op="ReadVariableOp", input=[name])
            node_def.attr["dtype"].CopyFrom(node.attr["dtype"])
            self.nodes.append(node_def)
            self.by_name[read] = node_def
        return f"{read}:0"

    def _restore(self) -> dict[str, Variable]:
        from tinytf.formats.graphdef_import import _node_dtype

        handles = [n for n in self.nodes if n.op == "VarHandleOp"]
        used = sorted({v for names in self.importer.lifted.values() for v in names})
        keys = restore_keys(self.original_nodes, self.meta_graph.saver_def)
        ckpt = reader.checkpoint_reader(self.export_dir, used)
        variables = {}
        for node in handles:
            shape = tensor_proto.shape_from_proto(node.attr["shape"].shape) if "shape" in node.attr else None
            shape = None if shape is None else tuple(None if d < 0 else d for d in shape)
            dtype = _node_dtype(node)
            key = keys.get(node.name, node.name)
            if ckpt is not None and ckpt.has_tensor(key):
                value = ckpt.get_tensor(key)
                if shape is not None and (len(shape) != value.ndim or any(
                        d is not None and d != s for d, s in zip(shape, value.shape))):
                    raise InvalidArgumentError(f"variable '{node.name}' has shape {list(shape)}, its checkpoint value "
                                               f"'{key}' {list(value.shape)}")
                variables[node.name] = Variable(value.astype(dtype.np, copy=False), name=node.name, dtype=dtype)
            elif node.name in keys and node.name in used:
                raise NotFoundError(f"Key {key} not found in checkpoint {ckpt.prefix if ckpt else ''} "
                                    f"(variable '{node.name}')")
            else:
                variables[node.name] = Variable(None, name=node.name, dtype=dtype, shape=shape)
        return variables

    def _run(self, name: str, args: list) -> list:
        return self.runner.run(name, list(args) + [self.variables[v] for v in self.importer.lifted[name]], "graph")


def _string(value: bytes):
    import numpy as np

    out = np.empty((), dtype=object)
    out[()] = value
    return out


__all__ = ["GraphSession", "graphdef_import", "init_op_name", "restore_keys", "tensor_info_spec"]
