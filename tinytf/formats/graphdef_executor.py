"""GraphDef -> the ``tf_executor`` form, as ``tf-mlir-translate -graphdef-to-mlir`` writes it.

    module = import_graph_def_executor(graph_def, inputs=["x"], outputs=["y"], control_outputs=["train"])

    func.func @main(%arg0: tensor<2xf32>) -> tensor<*xf32> attributes {tf.entry_function = {...}} {
      %0 = tf_executor.graph {
        %outputs, %control = tf_executor.island wraps "tf.Neg"(%arg0) {device = ""} : ...
        %outputs_0, %control_1 = tf_executor.island(%control) wraps "tf.Abs"(%outputs) ...
        tf_executor.fetch %outputs_0 : tensor<*xf32>
      }
      return %0 : tensor<*xf32>
    }

The same importer as the functional form (graphdef_import.py: op classes, attributes, inputs by
name, functions), with what TensorFlow's importer does differently:

- every op is an island, its ``^control`` inputs the island's control operands (sorted by node, as
  TF sorts them; one on a fed node or a function argument is dropped); NoOps and unfed Placeholders
  stay. TF1 control flow becomes the tf_executor ops (Switch, _SwitchN, Merge, Enter, Exit,
  LoopCond, ControlTrigger); a NextIteration becomes a ``NextIteration.Source`` at the top of the
  graph (the latest first) feeding its Merge, and a ``NextIteration.Sink`` where the node is;
- the nodes come in TensorFlow's order (node_order.py); the fetch takes the outputs, then the
  control outputs' tokens; ``tf.entry_function`` is written only when inputs, outputs or control
  outputs are given; library functions are graphs too, renamed as TF's uniquifier names them
  (``foo`` -> ``foo0``), their ``control_ret`` nodes fetched as tokens;
- ``shape_inference=False`` (tf-mlir-translate's default, ``-tf-enable-shape-inference-on-import``)
  types a node's results as TF does without shape inference: unranked for a node with data inputs
  (its ``_output_shapes`` with ``use_output_shapes``), the shape rule's type for a source node;
- TensorFlow's ``_``-prefixed node attributes (``_class``, ``_tpu_replicate``, ...) are kept, but
  ``_output_shapes``.

A node calling a library function is a ``tf.LegacyCall`` of it, as TF writes it (the functional
importer, for SavedModels, writes ``tf.StatefulPartitionedCall``); both run.
``tf-executor-to-functional-conversion`` of this form runs as the functional importer's module does.
"""
from __future__ import annotations

from xdsl.dialects import func
from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    FusedLoc,
    IntegerAttr,
    ModuleOp,
    NameLoc,
    NoneAttr,
    StringAttr,
    SymbolRefAttr,
    TensorType,
    UnitAttr,
    i1,
    i32,
    i64,
)
from xdsl.ir import Block, Region

import tinytf.dtypes as dtypes
from tinytf.errors import InvalidArgumentError
from tinytf.formats import node_defs
from tinytf.formats.graphdef_import import GraphImporter, _Body, _spec_of_type, _Value, graph_feeds, tensor_name
from tinytf.formats.node_order import topological_order
from tinytf.framework import tf_types
from tinytf.ops import tf_executor as te
from tinytf.ops import tf_executor_control_flow as cf

STATELESS_CONTROL_FLOW = ("StatelessIf", "StatelessWhile", "StatelessCase")
NEXT_ITERATION = ("NextIteration", "RefNextIteration")
CONTROL_FLOW = ("Switch", "RefSwitch", "_SwitchN", "Merge", "RefMerge", "Enter", "RefEnter", "Exit", "RefExit",
                "LoopCond", "ControlTrigger", *NEXT_ITERATION)
# Output argument offsets of the control-flow ops, for ``node:out:idx`` inputs inside a FunctionDef.
CONTROL_FLOW_OUTPUTS = {"Switch": {"output_false": 0, "output_true": 1}, "Merge": {"output": 0, "value_index": 1}}
# The names TensorFlow's printer gives each op's results (its ODS result names).
RESULT_NAMES = {te.IslandOp: None, cf.SwitchOp: ("falseOutput", "trueOutput", "control"), cf.SwitchNOp: None,
                cf.MergeOp: ("output", "value_index", "control"), cf.EnterOp: ("output", "control"),
                cf.ExitOp: ("output", "control"), cf.LoopCondOp: ("output", "control"),
                cf.NextIterationSourceOp: ("output", "token", "control")}


def attribute_value(value, where: str):
    """TF's ConvertAttributeValue: as ``node_defs.mlir_attr``, but a function is ``#tf_type.func<@f, {attrs}>``."""
    if value.WhichOneof("value") == "func":
        attrs = {k: attribute_value(v, f"{where} ({k})") for k, v in sorted(value.func.attr.items())}
        return tf_types.FuncAttr(SymbolRefAttr(value.func.name), DictionaryAttr(attrs))
    return node_defs.mlir_attr(value, where)


def name_results(op) -> None:
    """``%outputs:N, %control`` (islands, _SwitchN) or each result's own name, as tf-opt prints them."""
    names = RESULT_NAMES.get(type(op))
    if names is None:
        for result in op.results[:-1]:
            result.name_hint = "outputs"
        op.results[-1].name_hint = "control"
        return
    for result, name in zip(op.results, names):
        result.name_hint = name


class ExecutorImporter(GraphImporter):
    """A GraphImporter writing TensorFlow's tf_executor form."""

    def __init__(self, library=None, op_list=None, allow_unregistered=False, shape_inference=True,
                 use_output_shapes=False):
        super().__init__(library, op_list, allow_unregistered)
        self.gradients = {g.function_name: g.gradient_func for g in library.gradient} if library is not None else {}
        self.shape_inference = shape_inference
        self.use_output_shapes = use_output_shapes
        self.original_func_names = False  # record each library function's name before renaming

    def module(self, versions=None) -> ModuleOp:
        module = super().module(versions)
        order_functions(module)
        rename_functions(module, self.tf_function_names())
        return module

    def tf_function_names(self) -> dict[str, str]:
        """TensorFlow's NameUniquifier: a name the library holds gets the first free counter suffix."""
        taken, out = set(self.fdefs), {}
        for name in self.functions:
            if name not in self.fdefs:
                continue
            count = 0
            while f"{name}{count}" in taken:
                count += 1
            out[name] = f"{name}{count}"
            taken.add(out[name])
        return out


class ExecutorBody(_Body):
    """One function in the tf_executor form: islands in a graph block, control tokens by node."""

    call_op = "tf.LegacyCall"

    def __init__(self, importer: ExecutorImporter, where: str):
        super().__init__(importer, where)
        self.graph_block = Block()
        self.tokens: dict = {}          # node name -> its control token
        self.node_ids: dict = {}        # node name -> index in the GraphDef (TF's node ids)
        self.control_outputs: list = []
        self.back_edges: list = []      # (Merge node, its data input index, NextIteration node)
        self.sources: dict = {}         # NextIteration node -> its NextIteration.Source
        self.executor_ops: dict = {}    # node name -> its tf_executor op (Merges get patched)
        self.pseudo: dict = {}          # ordered but not emitted: fed nodes, _Arg, _Retval -> device

    # --- entry points ----------------------------------------------------------------------------

    def graph(self, nodes, feeds, fetches, targets, prune, name, lift_variables=False) -> func.FuncOp:
        self.control_outputs = [t.lstrip("^") for t in targets]
        self.node_ids = {n.name: i for i, n in enumerate(nodes)}
        fn = super().graph(nodes, feeds, fetches, targets, prune, name, lift_variables)
        if not (feeds or fetches or targets):
            del fn.attributes["tf.entry_function"]  # TF writes it only for given feeds and fetches
        else:  # the input names as given (``z:1``), not their nodes'
            entry = dict(fn.attributes["tf.entry_function"].data)
            entry["inputs"] = StringAttr(",".join(f.tensor.removesuffix(":0") for f in feeds))
            fn.attributes["tf.entry_function"] = DictionaryAttr(entry)
        devices = {n.name: n.device for n in nodes}
        arg_attrs = [DictionaryAttr({"tf.device": StringAttr(devices[f.name])} if devices.get(f.name) else {})
                     for f in feeds]
        if any(a.data for a in arg_attrs):  # a fed node's requested device, as TF records it
            fn.arg_attrs = ArrayAttr(arg_attrs)
        return fn

    def function_def(self, fdef) -> func.FuncOp:
        self.fdef = fdef
        sig = fdef.signature
        self.node_ids = {n.name: i for i, n in enumerate(fdef.node_def)}
        self.control_outputs = [fdef.control_ret[c] for c in sig.control_output if c in fdef.control_ret]
        fn = super().function_def(fdef)
        if fdef.resource_arg_unique_id:  # resource arguments that alias, by id (TF's argument attribute)
            arg_attrs = [dict(a.data) for a in fn.arg_attrs.data] if fn.arg_attrs else [{} for _ in sig.input_arg]
            for index, unique_id in sorted(fdef.resource_arg_unique_id.items()):
                if index < len(arg_attrs):
                    arg_attrs[index]["tf._resource_arg_unique_id"] = IntegerAttr(unique_id, i64)
            fn.arg_attrs = ArrayAttr([DictionaryAttr(a) for a in arg_attrs])
        for key in sorted(fdef.attr):  # FunctionDef attributes, mangled as TF's importer does
            fn.attributes["tf." + key] = attribute_value(fdef.attr[key], f"function {sig.name} attribute '{key}'")
        if self.importer.original_func_names:  # -tf-set-original-tf-func-name-on-import
            fn.attributes["tf._original_func_name"] = StringAttr(sig.name)
        if sig.is_stateful:
            fn.attributes["tf.signature.is_stateful"] = UnitAttr()
        gradient = self.importer.gradients.get(sig.name)
        if gradient is not None:
            self.importer.function(gradient)
            fn.attributes["tf.gradient"] = SymbolRefAttr(gradient)
        return fn

    # --- order -----------------------------------------------------------------------------------

    def _emit_all(self, nodes) -> None:
        self._fed_nodes = {name for name, _ in self.fed}
        by_name = {n.name: n for n in nodes}
        devices = {n.name: n.device for n in nodes}
        for n in getattr(self, "replaced", ()):
            devices[n.name] = n.device
        edges = []
        for node in [*nodes, *getattr(self, "replaced", ())]:
            controls = set()
            for position, ref in enumerate(node.input):  # (data inputs come first: position = input index)
                src = self._order_source(ref, devices)
                if src is None or (ref.startswith("^") and src in controls):
                    continue  # TF's Graph holds one control edge per pair of nodes
                if ref.startswith("^"):
                    controls.add(src)
                source_node = by_name.get(src)
                if source_node is not None and source_node.op in NEXT_ITERATION:
                    if not ref.startswith("^"):
                        self.back_edges.append((node.name, position, src))
                    continue  # a back edge: TF removes it before ordering
                edges.append((src, node.name))
        if self.is_function:
            for arg in self.args:
                devices.setdefault(arg, "")
            for out in self.fdef.signature.output_arg:
                ret = f"{out.name}_RetVal"
                devices[ret] = ""
                src = self._order_source(self.fdef.ret.get(out.name, ""), devices)
                if src is not None:
                    edges.append((src, ret))
        names = list(devices)
        self.used = self._outputs_used(nodes)
        for name in topological_order(names, edges, devices.get):
            if name in by_name:
                self._emit(by_name[name])
        self._patch_back_edges()

    def _outputs_used(self, nodes) -> dict:
        """Node -> 1 + the highest output index read (sizes the outputs of ops nobody describes)."""
        used: dict[str, int] = {}
        refs = [r for n in nodes for r in n.input if not r.startswith("^")] + list(getattr(self, "fetches", ()))
        for ref in refs:
            if not self.is_function:
                name, index = tensor_name(ref)
                used[name] = max(used.get(name, 0), index + 1)
        return used

    def _order_source(self, ref: str, known: dict) -> str | None:
        """The node an input edge comes from, for ordering (arguments and fed nodes included)."""
        if not ref:
            return None
        if self.is_function:
            parts = ref.lstrip("^").split(":")
            name = parts[0]
            return name if name in known or name in self.args else None
        name = tensor_name(ref)[0]
        return name if name in known else None

    # --- emitting --------------------------------------------------------------------------------

    def _controls(self, node) -> list:
        sources = []
        for ref in node.input:
            if not ref.startswith("^"):
                continue
            name = ref[1:].split(":")[0]
            if name in self._fed_nodes or name not in self.tokens or name in sources:
                continue  # a fed node's or an argument's control edge is dropped, as TF drops it
            sources.append(name)
        sources.sort(key=lambda n: self.node_ids.get(n, -1))
        return [self.tokens[n] for n in sources]

    def node_location(self, node):
        """TF's location of a node's op (printed with ``-mlir-print-debuginfo``): ``fused["Op:", ...names]``,
        the names its ``experimental_debug_info`` merged and its own, ``name@function`` in a function."""
        function = self.fdef.signature.name if self.is_function else ""

        def named(name, func_name=""):
            return NameLoc(StringAttr(f"{name}@{func_name}" if func_name else name), NoneAttr())

        if node.op in NEXT_ITERATION:  # (its Source and Sink are paired by this name)
            return named(node.name, function)
        info = node.experimental_debug_info
        funcs = list(info.original_func_names)
        merged = [named(n, funcs[i] if i < len(funcs) else "") for i, n in enumerate(info.original_node_names)]
        return FusedLoc(ArrayAttr([named(node.op + ":"), *merged, named(node.name, function)]), NoneAttr())

    def _add(self, node, op) -> list:
        op.location = self.node_location(node)
        island = te.IslandOp.wrap(op, self._controls(node))
        name_results(island)
        self.graph_block.add_op(island)
        self.tokens[node.name] = island.control
        return island.outputs

    def _class_name(self, node) -> str:
        # TF's importer writes StatelessIf / StatelessWhile / StatelessCase as tf.If ... with is_stateless
        return "tf." + (node.op.removeprefix("Stateless") if node.op in STATELESS_CONTROL_FLOW else node.op)

    def _keeps_attributes(self) -> bool:
        return self.importer.allow_unregistered  # (printing: tf-mlir-translate's output)

    def _attributes(self, node, cls) -> dict:
        attrs = super()._attributes(node, cls)
        attrs.update(getattr(self, "kept", None) or {})
        self.kept = None
        declared = cls.attr_specs() if cls is not None and hasattr(cls, "attr_specs") else {}
        for key in sorted(node.attr):
            if key.startswith("_") and key != "_output_shapes" and key not in declared:
                attrs[key] = node_defs.mlir_attr(node.attr[key], f"node '{node.name}' attribute '{key}'")
            if node.attr[key].WhichOneof("value") == "func":  # a function's own attributes: `key.name`
                for name, value in sorted(node.attr[key].func.attr.items()):
                    attrs[f"{key}.{name}"] = node_defs.mlir_attr(value, f"node '{node.name}' attribute '{key}.{name}'")
        return attrs

    def _emit(self, node) -> None:
        if node.op in ("While", "StatelessWhile") and "output_shapes" in node.attr \
                and node.attr["output_shapes"].list.shape and "shape_invariant" not in node.attr:
            node = type(node).FromString(node.SerializeToString())  # (the caller's GraphDef stays as it was)
            node.attr["shape_invariant"].b = True  # TF's importer: recorded output shapes are invariants
        if node.op in CONTROL_FLOW:
            self._emit_control_flow(node)
        elif node.op == "NoOp" or (node.op == "Placeholder" and not self.is_function):
            self._emit_kept(node)
        else:
            super()._emit(node)

    def _emit_kept(self, node) -> None:
        """A NoOp, or a Placeholder nothing feeds: TensorFlow keeps them as ops."""
        from xdsl.dialects.builtin import UnregisteredOp

        attrs = self._attributes(node, None)
        types = []
        if node.op == "Placeholder":
            shape = node_defs.python_value("shape", node.attr["shape"], node.name) if "shape" in node.attr else None
            attrs["shape"] = tf_types.ShapeAttr(shape)  # (TF adds the OpDef's default: unknown)
            types = [tf_types.tensor_type(shape, _node_dtype(node))]
        op = UnregisteredOp.with_name("tf." + node.op).create(
            operands=[self._input(r, f"node '{node.name}' input '{r}'").ssa for r in node.input if not r.startswith("^")],
            result_types=types, attributes=attrs)
        results = self._add(node, op)
        self.offsets[node.name] = {"output": 0}
        self.values[node.name] = [_Value(r, _spec_of_type(r.type)) for r in results]

    def _emit_control_flow(self, node) -> None:
        kind = node.op.removeprefix("Ref").removeprefix("_")
        data_refs = [(i, r) for i, r in enumerate(node.input) if not r.startswith("^")]
        back = {i for m, i, _ in self.back_edges if m == node.name}
        inputs = [self._input(r, f"node '{node.name}' input '{r}'") for i, r in data_refs if i not in back]
        operands = [v.ssa for v in inputs] + self._controls(node)
        attrs = {k: node_defs.mlir_attr(v, f"node '{node.name}' attribute '{k}'")
                 for k, v in sorted(node.attr.items()) if k != "_output_shapes"}
        attrs["device"] = StringAttr(node_defs.canonical_device(node))
        control = te.ControlType()
        props = {}
        if kind in ("Switch", "SwitchN", "Merge", "Enter", "Exit", "NextIteration") and not inputs:
            raise InvalidArgumentError(f"node '{node.name}' ({node.op}) has no data input")
        data = inputs[0].ssa.type if inputs else None
        if kind == "Switch":
            cls, types = cf.SwitchOp, [self._flow_type(data)] * 2 + [control]
        elif kind == "SwitchN":
            count = int(node.attr["num_outs"].i) if "num_outs" in node.attr else 0
            props["num_outs"] = IntegerAttr(count, i64)
            attrs.pop("num_outs", None)
            cls, types = cf.SwitchNOp, [self._flow_type(data)] * count + [control]
        elif kind == "Merge":
            same = all(v.ssa.type == data for v in inputs) and not back
            cls, types = cf.MergeOp, [data if same and self.importer.shape_inference else self._flow_type(data, True),
                                      TensorType(i32, []), control]
        elif kind == "Enter":
            for key, default in (("frame_name", None), ("is_constant", False), ("parallel_iterations", 10)):
                value = attrs.pop(key, None)
                if key == "frame_name":
                    props[key] = value if isinstance(value, StringAttr) else StringAttr("")
                elif key == "is_constant":
                    props[key] = IntegerAttr(int(bool(value.value.data)) if value is not None else 0, i1)
                else:
                    props[key] = IntegerAttr(value.value.data if value is not None else default, i64)
            constant = props["is_constant"].value.data
            cls, types = cf.EnterOp, [data if constant and self.importer.shape_inference else self._flow_type(data, True),
                                      control]
        elif kind == "Exit":
            cls, types = cf.ExitOp, [self._flow_type(data), control]
        elif kind == "LoopCond":
            cls, types = cf.LoopCondOp, [TensorType(i1, []) if self.importer.shape_inference
                                         else tf_types.tensor_type(None, dtypes.bool_), control]
        elif kind == "ControlTrigger":
            cls, types = cf.ControlTriggerOp, [control]
        else:  # NextIteration: a Source at the top of the graph, the Sink here
            source = cf.NextIterationSourceOp.create(result_types=[data, te.TokenType(), control],
                                                     attributes=dict(attrs))
            name_results(source)
            source.location = self.node_location(node)
            first = self.graph_block.first_op
            if first is None:
                self.graph_block.add_op(source)
            else:
                self.graph_block.insert_op_before(source, first)
            self.sources[node.name] = source
            sink = cf.NextIterationSinkOp.create(operands=[source.results[1], *operands], attributes=attrs)
            sink.location = source.location
            self.graph_block.add_op(sink)
            self.values[node.name] = [_Value(source.results[0], _spec_of_type(data))]
            self.offsets[node.name] = {"output": 0}
            return
        op = cls.create(operands=operands, result_types=types, properties=props, attributes=attrs)
        op.location = self.node_location(node)
        if cls is not cf.ControlTriggerOp:
            name_results(op)
        self.graph_block.add_op(op)
        self.executor_ops[node.name] = op
        self.tokens[node.name] = op.results[-1]
        self.values[node.name] = [_Value(r, _spec_of_type(r.type)) for r in op.results[:-1]]
        self.offsets[node.name] = CONTROL_FLOW_OUTPUTS.get(kind, {"output": 0, "outputs": 0})

    def _flow_type(self, data, unknown_when_inferring: bool = False):
        """A forwarded value's type: the input's with shape inference (unless TF's shape function
        leaves it unknown there), else unranked of its element type."""
        if self.importer.shape_inference and not unknown_when_inferring:
            return data
        return tf_types.tensor_type(None, tf_types.dtype_of(data))

    def _patch_back_edges(self) -> None:
        for merge_name, position, next_name in self.back_edges:
            merge, source = self.executor_ops.get(merge_name), self.sources.get(next_name)
            if not isinstance(merge, cf.MergeOp) or source is None:
                raise InvalidArgumentError(f"{self.where}: Invalid backedge; should be from NextIteration to Merge! "
                                           f"('{next_name}' -> '{merge_name}')")
            operands = list(merge.operands)
            operands.insert(min(position, len(operands)), source.results[0])
            merge.operands = operands

    # --- types -----------------------------------------------------------------------------------

    def _result_types(self, node, cls, attrs, specs) -> list:
        types = super()._result_types(node, cls, attrs, specs)
        if node.op in ("TensorListReserve", "EmptyTensorList"):
            return [self._conservative(node, i, t) for i, t in enumerate(types)]  # (a list's element type)
        if self.importer.shape_inference:
            return types
        return [self._conservative(node, i, t) for i, t in enumerate(types)]

    def _conservative(self, node, index, inferred):
        """TensorFlow's type for output ``index`` of ``node`` imported without shape inference."""
        recorded = node_defs.output_shapes(node)
        if self.importer.use_output_shapes and index < len(recorded):
            return tf_types.tensor_type(recorded[index], tf_types.dtype_of(inferred))
        if node.op in ("TensorListReserve", "EmptyTensorList") and "element_dtype" in node.attr:
            element = tf_types.tensor_type(None, node_defs.python_value("type", node.attr["element_dtype"], node.name))
            return tf_types.tensor_type((), tf_types.VariantType([element]))
        if node.op in ("While", "StatelessWhile") and "output_shapes" in node.attr \
                and node.attr["output_shapes"].list.shape:
            shape = node_defs.python_value("shapes", node.attr["output_shapes"], node.name)[index]
            return tf_types.tensor_type(shape, tf_types.dtype_of(inferred))
        if not any(not r.startswith("^") for r in node.input):
            return inferred  # a source node: TF runs its shape function
        return tf_types.tensor_type(None, tf_types.dtype_of(inferred))

    def _unregistered_shape(self, node, recorded, index: int = 0):
        typed = node_defs.attr_typed_outputs(node)
        if typed is not None and index < len(typed):  # TF types these by their attributes, inferring or not
            return typed[index][0]
        if self.importer.shape_inference or self.importer.use_output_shapes:
            return recorded
        return recorded if not any(not r.startswith("^") for r in node.input) else None

    # --- the function ----------------------------------------------------------------------------

    def _finish(self, name, results, arg_attrs, visibility) -> func.FuncOp:
        controls = [self.tokens[n] for n in self.control_outputs if n in self.tokens]
        self.graph_block.add_op(te.FetchOp([v.ssa for v in results] + controls))
        graph = te.GraphOp(self.graph_block)
        self.block.add_op(graph)
        self.block.add_op(func.ReturnOp(*graph.results))
        arg_types = [a.type for a in self.block.args]
        return func.FuncOp(name, (arg_types, [r.type for r in graph.results]), Region(self.block), visibility,
                           arg_attrs=ArrayAttr(arg_attrs) if arg_attrs else None)


ExecutorImporter.body_class = ExecutorBody


def _node_dtype(node):
    from tinytf.formats.tensor_proto import dtype_from_enum

    return dtype_from_enum(node.attr["dtype"].type) if "dtype" in node.attr else dtypes.float32


def order_functions(module: ModuleOp) -> None:
    """TensorFlow's order: the public functions (the graphs), then the library functions breadth-first
    as they are first referenced (TF's queue of deferred functions)."""
    functions = [op for op in module.ops if isinstance(op, func.FuncOp)]
    by_name = {f.sym_name.data: f for f in functions}
    order = [f for f in functions if f.sym_visibility is None or f.sym_visibility.data != "private"]
    queue = list(order)
    while queue:
        fn = queue.pop(0)
        for op in fn.walk():
            for attr in (*op.properties.values(), *op.attributes.values()):
                refs = attr.data if isinstance(attr, ArrayAttr) else (attr,)
                for ref in refs:
                    callee = by_name.get(ref.root_reference.data) if isinstance(ref, SymbolRefAttr) else None
                    if callee is not None and callee not in order:
                        order.append(callee)
                        queue.append(callee)
    order += [f for f in functions if f not in order]
    for fn in order:
        fn.detach()
        module.body.block.add_op(fn)


def rename_functions(module: ModuleOp, names: dict[str, str]) -> None:
    """Rename functions and every symbol reference to them (properties, attributes, lists)."""
    if not names:
        return

    def renamed(attr):
        if isinstance(attr, SymbolRefAttr) and attr.root_reference.data in names and not attr.nested_references.data:
            return SymbolRefAttr(names[attr.root_reference.data])
        if isinstance(attr, ArrayAttr) and any(isinstance(a, SymbolRefAttr) for a in attr.data):
            return ArrayAttr([renamed(a) for a in attr.data])
        return attr

    for op in module.walk():
        if isinstance(op, func.FuncOp) and op.sym_name.data in names:
            op.sym_name = StringAttr(names[op.sym_name.data])
        for table in (op.properties, op.attributes):
            for key, value in list(table.items()):
                new = renamed(value)
                if new is not value:
                    table[key] = new


def import_graph_def_executor(graph_def, inputs=(), input_shapes=None, input_dtypes=None, outputs=(),
                              control_outputs=(), op_list=None, allow_unregistered=False, prune=False,
                              shape_inference=True, use_output_shapes=False, name="main",
                              graph_as_function=False, soft_placement=False, xla_device_type="",
                              original_func_names=False, convert_legacy_fed_inputs=False) -> ModuleOp:
    """A GraphDef as TensorFlow's importer writes it: ``@main`` takes ``inputs`` (tensor names; none
    by default: Placeholders stay ops) and fetches ``outputs``, then ``control_outputs``' tokens.
    ``graph_as_function``: the graph's ``_Arg`` / ``_Retval`` nodes are them (graph_as_function.py)."""
    if convert_legacy_fed_inputs:
        from tinytf.formats.legacy_fed_inputs import convert_legacy_fed_inputs as convert

        graph_def = convert(graph_def)
    signature = None
    if graph_as_function:
        from tinytf.formats.graph_as_function import graph_signature

        signature = graph_signature(graph_def, list(control_outputs or ()))
        graph_def, feeds, outputs = signature.graph_def, signature.feeds, signature.fetches
    else:
        inputs = list(inputs or ())
        if input_shapes is None:
            input_shapes = [()] * len(inputs)  # TF's default: an input without a shape is a scalar
        feeds = graph_feeds(graph_def, inputs, input_shapes, input_dtypes)
    importer = ExecutorImporter(graph_def.library, op_list, allow_unregistered, shape_inference, use_output_shapes)
    importer.original_func_names = original_func_names
    importer.graph(list(graph_def.node), feeds, list(outputs or ()), targets=list(control_outputs or ()),
                   prune=prune, name=name)
    importer.check()
    module = importer.module(graph_def.versions if graph_def.HasField("versions") else None)
    if signature is not None:
        from tinytf.formats.graph_as_function import apply_signature

        apply_signature(next(op for op in module.ops if isinstance(op, func.FuncOp) and op.sym_name.data == name),
                        signature, soft_placement, xla_device_type)
    return module
