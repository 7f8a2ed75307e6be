"""A SavedModel as the ``tf_saved_model`` module ``tf-mlir-translate`` prints for it.

    module = objectgraph_module("export/1")        # --savedmodel-objectgraph-to-mlir (TF2)
    module = signaturedefs_module("export/1")      # --savedmodel-signaturedefs-to-mlir (TF1)

The module carries ``tf_saved_model.semantics``. Each variable is a
``"tf_saved_model.global_tensor"() <{is_mutable, sym_name, type, value}>`` holding its restored
value; each exported function is public with ``tf_saved_model.exported_names``, its arguments
``tf_saved_model.index_path`` (TF2: the position, ``[0]``; TF1 and signatures: the input key,
``["x"]``) or ``tf_saved_model.bound_input = @<global tensor>`` (typed
``tensor<!tf_type.resource<tensor<...>>>``), its results ``tf_saved_model.index_path``. A TF1 init op
is a ``tf_saved_model.session_initializer``; assets are ``tf_saved_model.asset`` ops. Exported names
of TF2 functions are their object paths (``predict``, ``child.method``) and, for the root's
signatures, the signature keys.
"""
from __future__ import annotations

import os

from xdsl.dialects import func
from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    IntegerAttr,
    ModuleOp,
    StringAttr,
    SymbolRefAttr,
    UnitAttr,
    i64,
)

from tinytf.errors import FailedPreconditionError
from tinytf.framework import attributes, tf_types
from tinytf.ops.tf_saved_model import AssetOp, GlobalTensorOp, SessionInitializerOp
from tinytf.saved_model import reader


def _global_tensor(sym: str, var, exported: list[str] | None):
    props = {"is_mutable": UnitAttr(), "sym_name": StringAttr(sym),
             "type": tf_types.tensor_type(var.shape, var.dtype)}
    try:
        props["value"] = attributes.numpy_to_dense(var.read())
    except FailedPreconditionError:  # never initialised: TensorFlow would refuse it; print it without value
        pass
    attrs = {"tf_saved_model.exported_names": ArrayAttr([StringAttr(n) for n in exported])} if exported else {}
    return GlobalTensorOp.create(properties=props, attributes=attrs)


def _index_path(key) -> ArrayAttr:
    item = IntegerAttr(key, i64) if isinstance(key, int) else StringAttr(str(key))
    return ArrayAttr([item])


def _export(fn: func.FuncOp, names: list[str], user_keys: list, bound: list, result_keys: list) -> None:
    """Annotate ``fn``: exported names, arguments' index paths or bound inputs, results' index paths.
    ``bound``: (symbol, variable or None) per trailing bound argument."""
    fn.sym_visibility = None
    fn.attributes["tf_saved_model.exported_names"] = ArrayAttr([StringAttr(n) for n in names])
    block = fn.body.blocks[0]
    n_user = len(block.args) - len(bound)
    for i, (_, var) in enumerate(bound):  # a variable's handle gets its variable's type
        arg = block.args[n_user + i]
        if var is not None and tf_types.is_resource(arg.type) and tf_types.resource_subtype(arg.type) is None:
            sub = tf_types.tensor_type(var.shape, var.dtype)
            new = block.insert_arg(tf_types.tensor_type((), tf_types.ResourceType([sub])), arg.index)
            new.name_hint = arg.name_hint
            arg.replace_all_uses_with(new)
            block.erase_arg(arg)
    old = list(fn.arg_attrs.data) if fn.arg_attrs is not None else [DictionaryAttr({})] * len(block.args)
    arg_attrs = []
    for i in range(len(block.args)):
        entries = dict(old[i].data) if i < len(old) else {}
        if i < n_user:
            entries["tf_saved_model.index_path"] = _index_path(user_keys[i])
        else:
            entries = {"tf_saved_model.bound_input": SymbolRefAttr(bound[i - n_user][0])}
        arg_attrs.append(DictionaryAttr(entries))
    fn.arg_attrs = ArrayAttr(arg_attrs)
    types = [a.type for a in block.args]
    fn.function_type = func.FunctionType.from_lists(types, list(fn.function_type.outputs.data))
    fn.res_attrs = ArrayAttr([DictionaryAttr({"tf_saved_model.index_path": ArrayAttr([] if key is None else
                                                                                     list(_index_path(key).data))})
                              for key in result_keys])


def objectgraph_module(export_dir, tags=None) -> ModuleOp:
    """``--savedmodel-objectgraph-to-mlir``: a TF2 SavedModel's exported functions and variables."""
    from tinytf.saved_model.load import is_tf2
    from tinytf.saved_model.loaded import LoadedSavedModel
    from tinytf.saved_model.object_graph import SIGNATURES, ObjectGraph
    from tinytf.saved_model.structures import flatten, to_python

    export_dir = os.fspath(export_dir)
    meta_graph = reader.find_meta_graph(reader.read_saved_model(export_dir), tags, export_dir)
    if not is_tf2(meta_graph):
        raise FailedPreconditionError(f"{export_dir} has no object graph (a TF1 SavedModel): use "
                                      "--savedmodel-signaturedefs-to-mlir")
    graph = ObjectGraph(export_dir, meta_graph, LoadedSavedModel(export_dir, [], None, {}, []))
    module = graph.module
    paths = _object_paths(graph.nodes)
    symbols, tensors = {}, []
    for i, var in graph.variables.items():
        symbols[i] = f"__sm_node{i}__{paths.get(i, f'node{i}').replace('.', '_')}"
        tensors.append(_global_tensor(symbols[i], var, [paths[i]] if i in paths else None))
    _prepend(module, tensors)
    exported: dict[str, tuple[list[str], bool]] = {}
    traced = {name for node in graph.nodes if node.WhichOneof("kind") == "function"
              for name in node.function.concrete_functions}
    for i, node in enumerate(graph.nodes):
        kind = node.WhichOneof("kind")
        if kind == "function":
            names = list(node.function.concrete_functions)
        elif kind == "bare_concrete_function" and node.bare_concrete_function.concrete_function_name not in traced:
            names = [node.bare_concrete_function.concrete_function_name]  # (a function's trace_0 is the function)
        else:
            continue
        for name in names:
            entry = exported.setdefault(name, ([], False))
            if i in paths:
                entry[0].append(paths[i])
    for child in graph.nodes[0].children:  # the signatures, exported under their keys, by keyword
        if child.local_name == SIGNATURES:
            for sig in graph.nodes[child.node_id].children:
                name = graph._concrete_name(sig.node_id)
                exported[name] = ([*exported.get(name, ([], False))[0], sig.local_name], True)
    _private_copies_for_callers(module, {name for name, (names, _) in exported.items() if names})
    taken: set[str] = set()  # an exported name names one function (TF's verifier): signatures' keys first
    for name, (names, keyword) in sorted(exported.items(), key=lambda item: (not item[1][1], item[0])):
        names = sorted(set(names) - taken)
        if not names or name not in graph.importer.functions:
            continue
        taken.update(names)
        saved = graph.concrete[name]
        specs, arg_names = graph._arg_specs(name)
        keys = arg_names if keyword else list(range(len(specs)))
        bound = [(symbols.get(b, f"__sm_node{b}"), graph.variables.get(b)) for b in saved.bound_inputs]
        outputs = [path for path, leaf in flatten(to_python(saved.output_signature))]
        result_keys = [path[-1] if path else None for path in outputs]
        fn = graph.importer.functions[name]
        if len(result_keys) != len(fn.function_type.outputs.data):
            result_keys = list(range(len(fn.function_type.outputs.data)))
        _export(fn, names, keys, bound, result_keys)
    _unexported_private(module)
    module.attributes["tf_saved_model.semantics"] = UnitAttr()
    return module


def _object_paths(nodes) -> dict[int, str]:
    """Node id -> its first path from the root (``child.method``), breadth first, signatures excluded."""
    paths, queue = {0: ""}, [0]
    while queue:
        i = queue.pop(0)
        for child in nodes[i].children:
            if child.node_id in paths or (i == 0 and child.local_name == "signatures"):
                continue
            paths[child.node_id] = f"{paths[i]}.{child.local_name}" if paths[i] else child.local_name
            queue.append(child.node_id)
    del paths[0]
    return paths


def signaturedefs_module(export_dir, tags=None) -> ModuleOp:
    """``--savedmodel-signaturedefs-to-mlir``: a function per SignatureDef, variables as global tensors."""
    from tinytf.saved_model.signature_defs import INIT_OP_SIGNATURE_KEY, GraphSession

    export_dir = os.fspath(export_dir)
    meta_graph = reader.find_meta_graph(reader.read_saved_model(export_dir), tags, export_dir)
    session = GraphSession(export_dir, meta_graph)
    module = session.module
    used = sorted({v for names in session.importer.lifted.values() for v in names})
    symbols = {v: v.replace("/", "_") for v in used}
    _prepend(module, [_global_tensor(symbols[v], session.variables[v], None) for v in used])
    _private_copies_for_callers(module, set(session.specs))
    for key, (inputs, outputs) in session.specs.items():
        lifted = session.importer.lifted[key]
        _export(session.importer.functions[key], [key], list(inputs), [(symbols[v], session.variables[v])
                                                                       for v in lifted], list(outputs))
    if INIT_OP_SIGNATURE_KEY in session.importer.functions:
        fn = session.importer.functions[INIT_OP_SIGNATURE_KEY]
        ops, assets = [], []
        for i, (_, filename) in enumerate(session.assets):
            assets.append(f"__tf_saved_model_asset{i}_{filename}")
            ops.append(AssetOp.create(properties={
                "filename": StringAttr(os.path.join(reader.ASSETS_DIR, filename)), "sym_name": StringAttr(assets[-1])}))
        lifted = session.importer.lifted[INIT_OP_SIGNATURE_KEY]
        for v in lifted:
            if v not in symbols:
                symbols[v] = v.replace("/", "_")
                ops.append(_global_tensor(symbols[v], session.variables[v], None))
        name = "__tf_saved_model_session_initializer_" + (session_init_name(meta_graph) or "init")
        _export(fn, [name], [], [(a, None) for a in assets] + [(symbols[v], session.variables[v]) for v in lifted], [])
        ops.insert(0, SessionInitializerOp.create(
            properties={"initializers": ArrayAttr([SymbolRefAttr(INIT_OP_SIGNATURE_KEY)])}))
        _prepend(module, ops)
    _unexported_private(module)
    module.attributes["tf_saved_model.semantics"] = UnitAttr()
    return module


def _unexported_private(module: ModuleOp) -> None:
    """The functions no name exports are private (TensorFlow's verifier: public ones must be exported)."""
    for op in module.body.block.ops:
        if isinstance(op, func.FuncOp) and "tf_saved_model.exported_names" not in op.attributes:
            op.sym_visibility = StringAttr("private")


def _private_copies_for_callers(module: ModuleOp, exported: set[str]) -> None:
    """An exported function may not be referenced inside the module (TensorFlow's verifier: "exported
    function cannot be internally referenced"): the ops that call one call a private copy of it instead,
    ``<name>_private``, taken before the exported one gets its tf_saved_model attributes."""
    functions = {op.sym_name.data: op for op in module.body.block.ops if isinstance(op, func.FuncOp)}
    copies: dict[str, str] = {}

    def renamed(attr):
        if isinstance(attr, SymbolRefAttr) and not attr.nested_references.data and attr.root_reference.data in exported \
                and attr.root_reference.data in functions:
            name = attr.root_reference.data
            if name not in copies:
                copies[name] = f"{name}_private"
                copy = functions[name].clone()
                copy.sym_name = StringAttr(copies[name])
                copy.sym_visibility = StringAttr("private")
                module.body.block.add_op(copy)
            return SymbolRefAttr(copies[name])
        if isinstance(attr, ArrayAttr):
            items = [renamed(a) for a in attr.data]
            return ArrayAttr(items) if any(a is not b for a, b in zip(items, attr.data)) else attr
        return attr

    for op in list(module.walk()):
        if isinstance(op, func.FuncOp):
            continue
        for table in (op.properties, op.attributes):
            for key, value in list(table.items()):
                new = renamed(value)
                if new is not value:
                    table[key] = new


def _prepend(module: ModuleOp, ops: list) -> None:
    block = module.body.blocks[0]
    first = block.first_op
    for op in ops:
        block.insert_op_before(op, first) if first is not None else block.add_op(op)


def session_init_name(meta_graph) -> str | None:
    from tinytf.saved_model.signature_defs import init_op_name

    name = init_op_name(meta_graph)
    return None if name is None else name.split(":")[0]
