"""``tinytf-translate``'s importers: TensorFlow's files to MLIR, as ``tf-mlir-translate`` names them.

    tinytf-translate --graphdef-to-mlir model.pb --tf-input-arrays=x --tf-input-shapes=1,3 \\
        --tf-input-data-types=DT_FLOAT --tf-output-arrays=y
    tinytf-translate --savedmodel-objectgraph-to-mlir export/1       # TF2: the object graph
    tinytf-translate --savedmodel-signaturedefs-to-mlir export/1     # TF1: one function per SignatureDef

``--tf-input-arrays`` / ``--tf-output-arrays`` are comma-separated tensor names (``x``, ``x:1``);
``--tf-input-shapes`` has ``:`` between arrays and ``,`` between dims (empty: a scalar, ``*``: unknown);
``--tf-input-data-types`` ``DT_FLOAT,DT_INT32``. A GraphDef is ``.pb`` (binary) or ``.pbtxt`` (text).
A GraphDef prints in TensorFlow's tf_executor form (a ``tf_executor.graph`` of islands; ``-p
tf-executor-to-functional-conversion`` gives the functional form), with ``--tf-control-output-arrays``,
``--tf-prune-unused-nodes``, ``--tf-enable-shape-inference-on-import`` (off by default, as in TF: a
node with data inputs is unranked; on, the shape rules type it) and ``--tf-enable-unconditionally-use-set-output-shapes-on-import``; SavedModels print in
the functional form. Ops tinytf lacks print as generic ops.
"""
from __future__ import annotations

import re

from tinytf.errors import InvalidArgumentError

FLAGS = ("graphdef_to_mlir", "savedmodel_objectgraph_to_mlir", "savedmodel_signaturedefs_to_mlir")


def wanted(args) -> bool:
    return any(getattr(args, f, False) for f in FLAGS)


def _names(text):
    return [p.strip() for p in text.split(",") if p.strip()] if text else None


def _shapes(text, count):
    if text is None:
        return None
    parts = text.split(":")
    out = []
    for part in parts:
        part = part.strip()
        if part == "*":
            out.append(None)
        elif part == "":
            out.append(())
        else:
            try:
                out.append(tuple(None if d.strip() in ("?", "-1") else int(d) for d in part.split(",")))
            except ValueError:
                raise InvalidArgumentError(f"-tf-input-shapes={text}: '{part}' is not a shape") from None
    if count is not None and len(out) != count:
        raise InvalidArgumentError(f"-tf-input-shapes gives {len(out)} shapes for {count} input arrays")
    return out


def _dtypes(text, count):
    """``DT_FLOAT,,DT_RESOURCE(2,3:DT_INT32)``: a dtype per array (empty: the graph's own; a resource or
    variant may name its subtype's shape and dtype, as TensorFlow's flag does)."""
    import tinytf.dtypes as dtypes
    from tinytf.framework import tf_types

    if not text:
        return None
    names = [n.strip() for n in re.split(r",(?![^()]*\))", text)]  # (commas inside the parentheses stay)
    out = []
    for i, name in enumerate(names):
        m = re.fullmatch(r"(DT_RESOURCE|DT_VARIANT)\((?:([0-9,?-]*):)?(DT_\w+)\)", name)
        try:
            if m:
                dims = m.group(2)
                shape = tuple(None if d in ("?", "-1") else int(d) for d in dims.split(",")) if dims else ()
                sub = tf_types.tensor_type(shape, dtypes.as_dtype(m.group(3)))
                kind = tf_types.ResourceType if m.group(1) == "DT_RESOURCE" else tf_types.VariantType
                out.append(kind([sub]))
            else:
                out.append(None if name in ("DT_INVALID", "") else dtypes.as_dtype(name))
        except (InvalidArgumentError, ValueError):
            raise InvalidArgumentError(f"Invalid dtype at index {i}: {name}") from None
    if count is not None and len(out) != count:
        raise InvalidArgumentError(f"-tf-input-data-types gives {len(out)} types for {count} input arrays")
    return out


def translate(args) -> str:
    """The MLIR text of the requested import."""
    from tinytf import mlir

    chosen = [f for f in FLAGS if getattr(args, f, False)]
    if len(chosen) > 1:
        raise InvalidArgumentError("choose one translation, not " + " and ".join("--" + f.replace("_", "-")
                                                                              for f in chosen))
    if args.file == "-":
        raise InvalidArgumentError(f"--{chosen[0].replace('_', '-')} reads a file or directory, not stdin")
    if args.graphdef_to_mlir:
        from tinytf.formats.graphdef_executor import import_graph_def_executor
        from tinytf.formats.graphdef_import import read_graph_def

        inputs = _names(args.tf_input_arrays) or []
        module = import_graph_def_executor(
            read_graph_def(args.file), inputs=inputs, input_shapes=_shapes(args.tf_input_shapes, len(inputs)),
            input_dtypes=_dtypes(args.tf_input_data_types, len(inputs)), outputs=_names(args.tf_output_arrays),
            control_outputs=_names(args.tf_control_output_arrays), allow_unregistered=True,
            prune=args.tf_prune_unused_nodes, shape_inference=args.tf_enable_shape_inference_on_import in ("true", "1"),
            use_output_shapes=args.tf_enable_unconditionally_use_set_output_shapes_on_import,
            graph_as_function=getattr(args, "tf_graph_as_function", False),
            soft_placement=getattr(args, "tf_enable_soft_placement_on_import", "false") in ("true", "1"),
            xla_device_type=getattr(args, "tf_xla_compile_device_type", "") or "",
            original_func_names=getattr(args, "tf_set_original_tf_func_name_on_import", "false") in ("true", "1"),
            convert_legacy_fed_inputs=getattr(args, "tf_convert_legacy_fed_inputs", False))
    elif args.savedmodel_objectgraph_to_mlir:
        from tinytf.saved_model.mlir_export import objectgraph_module

        module = objectgraph_module(args.file)
    else:
        from tinytf.saved_model.mlir_export import signaturedefs_module

        module = signaturedefs_module(args.file)
    mlir.verify(module)
    return mlir.print(module, debuginfo=getattr(args, "mlir_print_debuginfo", False))
