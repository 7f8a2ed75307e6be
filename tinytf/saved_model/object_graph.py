"""TF2 SavedModels: the SavedObjectGraph (objects, variables, functions) over the function library.

    graph = ObjectGraph(export_dir, meta_graph)
    graph.root.signatures["serving_default"](x=...)   # a concrete function with its bound inputs
    graph.root.predict(x)                              # a restored tf.function, an attribute
    graph.root.a                                       # a restored variable

Nodes are SavedObjectGraph nodes by id (names repeat: two variables may both be ``kernel``):
``user_object`` (attributes from ``children``), ``variable``, ``function`` (its concrete functions),
``bare_concrete_function``, ``constant``, ``asset``. A concrete function's arguments are its
structured inputs, flattened, then its ``bound_inputs`` (node ids: variables, assets, constants).
Variable values come from the checkpoint by walking the SavedObjectGraph and the checkpoint's
TrackableObjectGraph in parallel from node 0, child by ``local_name``; a variable node's checkpoint
node holds the ``VARIABLE_VALUE`` key.
"""
from __future__ import annotations

from tinytf.errors import InvalidArgumentError, NotFoundError, UnimplementedError
from tinytf.formats import tensor_proto
from tinytf.formats.graphdef_import import GraphImporter
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.framework.variables import Variable
from tinytf.saved_model import reader
from tinytf.saved_model.loaded import ConcreteFunction, RestoredFunction, Runner, SignatureFunction, UserObject
from tinytf.saved_model.structures import flatten, pack_as, to_python

SIGNATURES = "signatures"
VARIABLE_VALUE = "VARIABLE_VALUE"


class ObjectGraph:
    """A TF2 MetaGraphDef loaded: objects, variables and functions over one module."""

    def __init__(self, export_dir: str, meta_graph, root, backend: str = "graph", allow_unregistered=False):
        self.export_dir = export_dir
        self.meta_graph = meta_graph
        self.graph = meta_graph.object_graph_def
        self.nodes = list(self.graph.nodes)
        graph_def = meta_graph.graph_def
        self.importer = GraphImporter(graph_def.library, meta_graph.meta_info_def.stripped_op_list, allow_unregistered)
        self.concrete = dict(self.graph.concrete_functions)
        wanted = self._wanted_functions()
        for name in wanted:
            self.importer.function(name)
        self.importer.check()
        for name in wanted:
            self.importer.functions[name].sym_visibility = None  # callable from outside: public
        self.module = self.importer.module(graph_def.versions if graph_def.HasField("versions") else None)
        self.runner = Runner(self.module, backend)
        self.variables = self._restore()
        self.values = {i: self._bound_value(i) for i in range(len(self.nodes))
                       if self.nodes[i].WhichOneof("kind") in ("variable", "asset", "constant")}
        self.root = root
        self.objects = {0: root}
        self._build(0, root)

    # --- which functions -------------------------------------------------------------------------

    def _wanted_functions(self) -> list[str]:
        names = []
        for node in self.nodes:
            kind = node.WhichOneof("kind")
            if kind == "function":
                names.extend(node.function.concrete_functions)
            elif kind == "bare_concrete_function":
                names.append(node.bare_concrete_function.concrete_function_name)
        missing = [n for n in names if n not in self.importer.fdefs]
        if missing:
            raise NotFoundError(f"{self.export_dir}: the object graph names functions the library lacks: "
                                f"{', '.join(missing[:5])}")
        return list(dict.fromkeys(names))

    # --- values ------------------------------------------------------------------------------------

    def _restore(self) -> dict[int, Variable]:
        ids = [i for i, n in enumerate(self.nodes) if n.WhichOneof("kind") == "variable"]
        names = [self.nodes[i].variable.name or f"node {i}" for i in ids]
        ckpt = reader.checkpoint_reader(self.export_dir, names)
        keys = self._checkpoint_keys(ckpt) if ckpt is not None else {}
        variables = {}
        for i in ids:
            spec = self.nodes[i].variable
            dtype = tensor_proto.dtype_from_enum(spec.dtype)
            shape = tensor_proto.shape_from_proto(spec.shape)
            shape = None if shape is None else tuple(None if d < 0 else d for d in shape)
            key = keys.get(i)
            if key is None:
                raise NotFoundError(f"{self.export_dir}: variable '{spec.name}' (object graph node {i}) has no value "
                                    f"in the checkpoint {ckpt.prefix}")
            value = ckpt.get_tensor(key)
            if shape is not None and (len(shape) != value.ndim or any(
                    d is not None and d != s for d, s in zip(shape, value.shape))):
                raise InvalidArgumentError(f"variable '{spec.name}' has shape {list(shape)}, its checkpoint value "
                                           f"'{key}' {list(value.shape)}")
            variables[i] = Variable(value.astype(dtype.np, copy=False), trainable=spec.trainable,
                                    name=spec.name or f"node_{i}", dtype=dtype)
        return variables

    def _checkpoint_keys(self, ckpt) -> dict[int, str]:
        """Saved node id -> checkpoint key of its VARIABLE_VALUE, walking both object graphs from node 0."""
        trackable = ckpt.object_graph()
        if trackable is None:
            raise NotFoundError(f"{ckpt.prefix}: a TF2 SavedModel's checkpoint needs its object graph "
                                "(_CHECKPOINTABLE_OBJECT_GRAPH); this one is name-based")
        keys, stack, seen = {}, [(0, 0)], set()
        while stack:
            saved, ckpt_id = stack.pop()
            if saved in seen or saved >= len(self.nodes) or ckpt_id >= len(trackable.nodes):
                continue
            seen.add(saved)
            node = trackable.nodes[ckpt_id]
            for a in node.attributes:
                if a.name == VARIABLE_VALUE:
                    keys[saved] = a.checkpoint_key
            by_name = {c.local_name: c.node_id for c in node.children}
            for child in self.nodes[saved].children:
                if child.local_name in by_name:
                    stack.append((child.node_id, by_name[child.local_name]))
        return keys

    def _bound_value(self, i: int):
        node = self.nodes[i]
        kind = node.WhichOneof("kind")
        if kind == "variable":
            return self.variables[i]
        if kind == "asset":
            files = self.meta_graph.asset_file_def
            index = node.asset.asset_file_def_index
            if index >= len(files):
                raise InvalidArgumentError(f"asset node {i} names asset_file_def {index}, the graph has {len(files)}")
            import numpy as np

            value = np.empty((), dtype=object)
            value[()] = reader.asset_path(self.export_dir, files[index].filename)
            return value
        op = {n.name: n for n in self.meta_graph.graph_def.node}.get(node.constant.operation)
        if op is None or op.op != "Const":
            raise InvalidArgumentError(f"constant node {i} names operation '{node.constant.operation}', not a Const")
        return tensor_proto.to_numpy(op.attr["value"].tensor, f"constant '{op.name}'")

    def _bound(self, name: str) -> list:
        out = []
        for i in self.concrete[name].bound_inputs:
            if i not in self.values:
                kind = self.nodes[i].WhichOneof("kind") if i < len(self.nodes) else "missing"
                raise UnimplementedError(f"function {name} captures object graph node {i} ({kind}): tinytf binds "
                                         "variables, assets and constants only")
            out.append(self.values[i])
        return out

    # --- callables ---------------------------------------------------------------------------------

    def _arg_specs(self, name: str) -> tuple[list[TensorSpec], list[str]]:
        fn = self.importer.functions[name]
        saved = self.concrete[name]
        n_user = len(fn.function_type.inputs.data) - len(saved.bound_inputs)
        fdef = self.importer.fdefs[name]
        leaves = flatten(to_python(saved.canonicalized_input_signature))
        specs = [leaf for _, leaf in leaves if isinstance(leaf, TensorSpec)]
        paths = [path for path, leaf in leaves if isinstance(leaf, TensorSpec)]
        if len(specs) != n_user:  # no structured signature: the FunctionDef's own argument types
            specs = [TensorSpec.from_type(t) for t in fn.function_type.inputs.data[:n_user]]
            paths = [(a.name,) for a in fdef.signature.input_arg[:n_user]]
        names = [s.name or (str(p[-1]) if p else f"arg{i}") for i, (s, p) in enumerate(zip(specs, paths))]
        return specs, names

    def concrete_function(self, name: str) -> ConcreteFunction:
        specs, names = self._arg_specs(name)
        structure = to_python(self.concrete[name].output_signature)
        return ConcreteFunction(self.runner, name, specs, names, self._bound(name),
                                lambda outs, s=structure: pack_as(s, outs))

    def signature(self, name: str) -> SignatureFunction:
        specs, names = self._arg_specs(name)
        structure = to_python(self.concrete[name].output_signature)
        keys = [str(path[-1]) if path else "output_0" for path, leaf in flatten(structure)
                if isinstance(leaf, TensorSpec)]
        return SignatureFunction(self.runner, name, dict(zip(names, specs)), keys, self._bound(name))

    def _build(self, i: int, obj) -> None:
        for child in self.nodes[i].children:
            node = self.nodes[child.node_id]
            kind = node.WhichOneof("kind")
            if child.local_name == SIGNATURES and i == 0:
                obj.signatures = {c.local_name: self.signature(self._concrete_name(c.node_id))
                                  for c in node.children}
                continue
            if kind == "user_object":
                value = self.objects.get(child.node_id)
                if value is None:
                    value = self.objects[child.node_id] = UserObject()
                    self._build(child.node_id, value)
            elif kind == "variable":
                value = self.variables[child.node_id]
            elif kind == "function":
                value = RestoredFunction(child.local_name, [self.concrete_function(n)
                                                            for n in node.function.concrete_functions])
            elif kind == "bare_concrete_function":
                value = self.concrete_function(node.bare_concrete_function.concrete_function_name)
            elif kind in ("asset", "constant"):
                value = self.values[child.node_id]
            else:
                continue
            if child.local_name.isidentifier():
                setattr(obj, child.local_name, value)

    def _concrete_name(self, node_id: int) -> str:
        node = self.nodes[node_id]
        if node.WhichOneof("kind") == "bare_concrete_function":
            return node.bare_concrete_function.concrete_function_name
        if node.WhichOneof("kind") == "function" and node.function.concrete_functions:
            return node.function.concrete_functions[0]
        raise InvalidArgumentError(f"signature node {node_id} is a {node.WhichOneof('kind')}, not a function")
