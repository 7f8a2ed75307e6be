"""``tinytf-translate``'s importers: TensorFlow's files to MLIR, as ``tf-mlir-translate`` names them.

    tinytf-translate --graphdef-to-mlir model.pb --tf-input-arrays=x --tf-input-shapes=1,3 \\
        --tf-input-data-types=DT_FLOAT --tf-output-arrays=y
    tinytf-translate --savedmodel-objectgraph-to-mlir export/1       # TF2: the object graph
    tinytf-translate --savedmodel-signaturedefs-to-mlir export/1     # TF1: one function per SignatureDef

``--tf-input-arrays`` / ``--tf-output-arrays`` are comma-separated tensor names (``x``, ``x:1``);
``--tf-input-shapes`` has ``:`` between arrays and ``,`` between dims (empty: a scalar, ``*``: unknown);
``--tf-input-data-types`` ``DT_FLOAT,DT_INT32``. A GraphDef is ``.pb`` (binary) or ``.pbtxt`` (text).
The output is the functional form (``func.func`` of ``tf.*`` ops); ops tinytf lacks print as generic
ops when their OpDef is known.
"""
from __future__ import annotations

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
    import tinytf.dtypes as dtypes

    names = _names(text)
    if names is None:
        return None
    out = []
    for i, name in enumerate(names):
        try:
            out.append(None if name == "DT_INVALID" else dtypes.as_dtype(name))
        except InvalidArgumentError:
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
        from tinytf.formats.graphdef_import import import_graph_def, read_graph_def

        inputs = _names(args.tf_input_arrays)
        count = len(inputs) if inputs is not None else None
        module = import_graph_def(read_graph_def(args.file), inputs=inputs,
                                  input_shapes=_shapes(args.tf_input_shapes, count),
                                  input_dtypes=_dtypes(args.tf_input_data_types, count),
                                  outputs=_names(args.tf_output_arrays), allow_unregistered=True)
    elif args.savedmodel_objectgraph_to_mlir:
        from tinytf.saved_model.mlir_export import objectgraph_module

        module = objectgraph_module(args.file)
    else:
        from tinytf.saved_model.mlir_export import signaturedefs_module

        module = signaturedefs_module(args.file)
    mlir.verify(module)
    return mlir.print(module)
