"""``tt.saved_model.save``: a ``tt.Module`` as a TensorFlow 2 SavedModel that TensorFlow loads.

    class Model(tt.Module):
        ...
        @tt.function(input_signature=[tt.TensorSpec([None, 3], tt.float32)])
        def predict(self, x): ...

    tt.saved_model.save(model, "export/1")                                 # serving_default = predict
    tt.saved_model.save(model, "export/1", signatures={"serving_default": model.predict,
                                                       "stats": model.stats.get_concrete_function()})
    tf.saved_model.load("export/1").signatures["serving_default"](x=x)     # in TensorFlow: {"output_0": ...}

What is written, as TensorFlow 2.21's ``tf.saved_model.save`` writes it:

- ``saved_model.pb``: a SavedModel with one MetaGraphDef tagged ``serve``:

  - the **function library**: every traced concrete function of the module's ``tt.function``s (their
    called functions too) as FunctionDefs (``tinytf/formats/graphdef_export.py``), and for each
    signature a wrapper ``__inference_signature_wrapper_<name>_<n>`` taking the inputs by name (sorted)
    and returning the outputs by key (``output_0`` ... for a tensor or a list; the keys of a dict):
    ``signature_functions.py``;
  - the **graph**: a ``VarHandleOp`` per variable, a ``Placeholder`` per signature input
    (``serving_default_x``), a ``StatefulPartitionedCall`` per signature (signature keys in sorted
    order), the init op ``NoOp``, and a saver (``saver_filename``, ``SaveV2`` / ``RestoreV2``) that
    TensorFlow's C++ loader (TensorFlow Serving, ``saved_model_cli run``) restores the variables with
    (``saved_graph.py``);
  - **signature defs** naming those tensors (method ``tensorflow/serving/predict``), and
    ``__saved_model_init_op``;
  - the **SavedObjectGraph**: nodes in the checkpoint's order (breadth first from the module):
    ``user_object`` for modules (``_generic_user_object``), lists and dicts (``trackable_list_wrapper``
    / ``trackable_dict_wrapper``) and the ``signatures`` map (``signature_map``); ``variable``;
    ``function`` for each ``tt.function`` attribute with its concrete functions (children
    ``trace_0``, ... as ``bare_concrete_function`` nodes); and each concrete function's signature,
    outputs and ``bound_inputs`` (the variables it captures, as node ids): the objects are
    ``saved_objects.py``'s stand-ins, the signatures' protos ``function_specs.py``'s;
  - ``stripped_op_list``: the OpDefs of the ops used, built from tinytf's op classes.

- ``variables/variables.{index,data-00000-of-00001}``: the checkpoint, written by ``tt.train``'s
  bundle writer, whose TrackableObjectGraph has the same nodes (keys such as
  ``l1/w/.ATTRIBUTES/VARIABLE_VALUE``).

Signatures: ``signatures=None`` takes the module's one ``tt.function`` with an ``input_signature``
(none when there are several, as in TensorFlow); otherwise a ``tt.function`` with an input signature,
a concrete function, or a dict of them by key. An optimizer the module holds is saved with its
variables; its slot variables are in the checkpoint (and the saver) but not in the SavedObjectGraph,
whose nodes are the checkpoint's up to them. Not written: assets, ``fingerprint.pb``.
"""
from __future__ import annotations

import os

from tinytf.errors import InvalidArgumentError
from tinytf.formats import graphdef_export, op_defs, tensor_proto
from tinytf.formats.durable_files import os_error, write_atomically
from tinytf.formats.graph_names import function_name
from tinytf.framework.variables import Variable
from tinytf.saved_model import function_specs as specs
from tinytf.saved_model import reader
from tinytf.saved_model.saved_graph import write_graph
from tinytf.saved_model.saved_objects import BARE, FUNCTION, USER_OBJECT, SavedObject, SavedObjects, owner
from tinytf.saved_model.signature_functions import SignatureFunction, arg_names, select_signatures
from tinytf.train import trackable


class SavedModelWriter:
    """Builds the protos of one save; ``write(export_dir)`` puts them on disk."""

    def __init__(self, root, signatures=None):
        from tinytf.train.object_graph import ObjectGraph

        if trackable.is_container(root) or isinstance(root, Variable) or not hasattr(root, "__dict__"):
            raise InvalidArgumentError(f"tt.saved_model.save: expected a tt.Module or another trackable object, got "
                                       f"{root!r}")
        self.root = root
        self.objects = SavedObjects()
        self.top = self.objects.wrap(root)
        chosen = select_signatures(root, signatures)
        self.signatures = [SignatureFunction.of(chosen[key], key) for key in sorted(chosen)]
        if self.signatures:
            signature_map = SavedObject(USER_OBJECT, None, "signature_map")
            for sig in self.signatures:
                signature_map.children[sig.key] = SavedObject(BARE, sig)
            self.top.children["signatures"] = signature_map
        self.graph = ObjectGraph(self.top)
        self.node_ids = {id(o): i for i, o in enumerate(self.graph.objects)}

    # --- the function library ----------------------------------------------------------------------

    def _bound_inputs(self, cf, where: str) -> list[int]:
        ids = []
        for var in cf.captured_variables:
            node = self.node_ids.get(id(var))
            if node is None:
                raise InvalidArgumentError(
                    f"{where} captures variable '{var.name}', which the saved object does not track: assign it to an "
                    "attribute of the module (or of a submodule) to save it")
            ids.append(node)
        return ids

    def _library(self, library, used_ops: set) -> dict:
        """Every concrete function's and signature's FunctionDefs into ``library``; returns
        {FunctionDef name: (ConcreteFunction or SignatureFunction, bound input node ids)}."""
        added: dict[str, bytes] = {}
        exported: set[int] = set()
        concrete = {}

        def add_module(module, where, elsewhere=()):
            if id(module) in exported:  # (a signature's function is often an attribute's trace too)
                return
            exported.add(id(module))
            exporter = graphdef_export.Exporter(module, elsewhere)
            for fn in exporter.functions.values():
                fdef = exporter.function_def(fn)
                data = fdef.SerializeToString(deterministic=True)
                name = fdef.signature.name
                if name in added:
                    if added[name] != data:
                        raise InvalidArgumentError(f"{where}: two different functions are named {name}")
                    continue
                added[name] = data
                library.function.add().CopyFrom(fdef)
            used_ops.update(exporter.op_types)

        for obj in self.graph.objects:
            if isinstance(obj, SavedObject) and obj.kind == BARE and not isinstance(obj.value, SignatureFunction):
                cf = obj.value
                if function_name(cf.name) not in concrete:
                    add_module(cf.module, f"function {cf.name}")
                    concrete[function_name(cf.name)] = (cf, self._bound_inputs(cf, f"function {cf.name}"))
        for sig in self.signatures:
            cf, where = sig.concrete, f"signature '{sig.key}'"
            add_module(cf.module, where)  # (a signature of no attribute's function adds it here)
            add_module(sig.module, where, elsewhere={cf.function.sym_name.data})
            concrete[sig.name] = (sig, self._bound_inputs(cf, where))
        return concrete

    def _concrete_function_protos(self, object_graph, concrete: dict) -> None:
        for name, (value, bound) in concrete.items():
            saved = object_graph.concrete_functions[name]
            saved.bound_inputs.extend(bound)
            if isinstance(value, SignatureFunction):
                inputs = ((), {n: specs.Named(n) for n in value.inputs})
                saved.canonicalized_input_signature.CopyFrom(specs.structured(inputs, specs.specs_of(value.input_specs())))
                outputs = {k: specs.Named(k) for k in value.outputs}
                saved.output_signature.CopyFrom(specs.structured(outputs, specs.specs_of_types(value.types)))
            else:
                inputs = (tuple(specs.Named(n) for n in arg_names(value)), {})
                saved.canonicalized_input_signature.CopyFrom(specs.structured(inputs, specs.specs_of(value.input_specs)))
                outputs = specs.leaf_structure(value.structured_outputs)
                saved.output_signature.CopyFrom(specs.structured(
                    outputs, specs.specs_of_types(value.function.function_type.outputs.data)))

    # --- the object graph -----------------------------------------------------------------------------

    def _object_graph(self, object_graph) -> None:
        # Optimizer slot variables (the last nodes of the checkpoint's graph) are in the checkpoint only:
        # the SavedObjectGraph is the checkpoint's graph up to them.
        slots = {s.slot_variable_node_id for n in self.graph.proto.nodes for s in n.slot_variables}
        for i, obj in enumerate(self.graph.objects):
            if i in slots:
                continue
            node = object_graph.nodes.add()
            children = self.graph.proto.nodes[i].children
            node.children.extend(children)
            if isinstance(obj, Variable):
                v = node.variable
                v.dtype = tensor_proto.enum_of(obj.dtype)
                v.shape.CopyFrom(tensor_proto.shape_to_proto(obj.shape))
                v.trainable = obj.trainable
                v.name = obj.shared_name  # TensorFlow writes the name without ":0"
            elif obj.kind == USER_OBJECT:
                node.user_object.identifier = obj.identifier
                node.user_object.version.producer = 1
                node.user_object.version.min_consumer = 1
            elif obj.kind == FUNCTION:
                for child in children:
                    node.function.concrete_functions.append(function_name(self.graph.objects[child.node_id].value.name))
                    node.dependencies.add(node_id=child.node_id, local_name=child.local_name)
                specs.function_spec(node.function.function_spec, obj.value, True)
            elif isinstance(obj.value, SignatureFunction):
                bare = node.bare_concrete_function
                bare.concrete_function_name = obj.value.name
                bare.argument_keywords.extend(obj.value.inputs)
                bare.allowed_positional_arguments = len(obj.value.inputs)
                specs.signature_spec(bare.function_spec, obj.value.inputs)
            else:  # a trace of a function, or a concrete function saved on its own
                bare, cf = node.bare_concrete_function, obj.value
                bare.concrete_function_name = function_name(cf.name)
                bare.argument_keywords.extend(arg_names(cf))
                bare.allowed_positional_arguments = len(cf.input_specs)
                specs.function_spec(bare.function_spec, owner(self.graph, i), False)

    # --- all of it ------------------------------------------------------------------------------------

    def saved_model(self):
        from tinytf.formats import protos

        saved_model = protos.SavedModel(saved_model_schema_version=1)
        meta_graph = saved_model.meta_graphs.add()
        meta_graph.meta_info_def.tags.append(reader.SERVING)
        used: set[str] = set()
        concrete = self._library(meta_graph.graph_def.library, used)
        write_graph(meta_graph, self.graph, self.signatures, used)
        self._object_graph(meta_graph.object_graph_def)
        self._concrete_function_protos(meta_graph.object_graph_def, concrete)
        versions = meta_graph.graph_def.versions
        versions.producer, versions.min_consumer = graphdef_export.DEFAULT_PRODUCER, 12
        meta_graph.meta_info_def.stripped_op_list.CopyFrom(op_defs.stripped_op_list(used))
        return saved_model

    def write(self, export_dir: str) -> None:
        from tinytf.train.checkpoint import write_objects

        saved_model = self.saved_model()
        variables_dir = os.path.join(export_dir, reader.VARIABLES_DIR)
        for directory in (export_dir, variables_dir):
            try:
                os.makedirs(directory, exist_ok=True)
            except OSError as e:
                raise os_error(e, directory, "create the SavedModel directory") from None
        write_objects(self.top, reader.variables_prefix(export_dir))
        write_atomically(os.path.join(export_dir, reader.SAVED_MODEL_PB), saved_model.SerializeToString(deterministic=True))


def save(obj, export_dir, signatures=None, options=None) -> None:
    """Write ``obj`` (a ``tt.Module``) as a SavedModel in ``export_dir``; see the module docstring.
    ``options`` (tf.saved_model.SaveOptions) is accepted and ignored."""
    SavedModelWriter(obj, signatures).write(os.fspath(export_dir))


__all__ = ["SavedModelWriter", "save"]
