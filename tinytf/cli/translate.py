"""``tinytf-translate``: TensorFlow's ``tf-mlir-translate`` for the TF-to-XLA direction.

    tinytf-translate --mlir-tf-to-hlo-text f.mlir -tf-input-shapes=2:2 \\
        -tf-input-data-types=DT_FLOAT,DT_FLOAT -tf-xla-input-types=parameter,resource

prints the HLO module of the entry function (``@main``, else the only public one), then the
compile result (``// InputMapping {0, 1}``, ``// XlaInputShape f32[2]``, ...). Flags keep
TensorFlow's spellings, with one dash or two: ``-tf-input-shapes`` (``:`` between arguments,
``,`` between dims, empty for a scalar), ``-tf-input-data-types``, ``-tf-xla-input-types``
(``parameter`` / ``resource``), ``-tf-xla-emit-return-tuple``, ``-tf-xla-emit-use-tuple-args``.
The importers ``--graphdef-to-mlir FILE`` (with ``-tf-input-arrays``, ``-tf-input-shapes``,
``-tf-input-data-types``, ``-tf-output-arrays``), ``--savedmodel-objectgraph-to-mlir DIR`` and
``--savedmodel-signaturedefs-to-mlir DIR`` print MLIR (``tinytf/cli/translate_import.py``);
``--mlir-to-graphdef FILE.mlir`` prints the GraphDef text proto of a functional module (``@main``, else
its only public function, as the graph; the other functions as the library).
As in TensorFlow, an output aliased to an argument (``tf.aliasing_output``) is reported as a
resource update. Bad input: one line on stderr, exit status 1.
"""
from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from tinytf.cli.errors import run_tool
from tinytf.errors import InvalidArgumentError


def _flag(parser: argparse.ArgumentParser, name: str, **kwargs) -> None:
    parser.add_argument(f"-{name}", f"--{name}", dest=name.replace("-", "_"), **kwargs)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tinytf-translate", description="tinytf's tf-mlir-translate (TF -> XLA HLO)",
                                     allow_abbrev=False)
    parser.add_argument("file", nargs="?", default="-", help="MLIR file ('-' for stdin)")
    _flag(parser, "mlir-tf-to-hlo-text", action="store_true",
          help="translate the entry function to HLO text followed by the XLA compile result")
    _flag(parser, "tf-input-shapes", default=None, help="argument shapes: ':' between arguments, ',' between dims")
    _flag(parser, "tf-input-data-types", default=None, help="argument dtypes, e.g. DT_FLOAT,DT_INT32")
    _flag(parser, "tf-xla-input-types", default=None, help="argument kinds: parameter or resource, ',' separated")
    _flag(parser, "tf-xla-emit-return-tuple", action="store_true", help="the entry computation returns a tuple")
    _flag(parser, "tf-xla-emit-use-tuple-args", action="store_true", help="the entry computation takes one tuple")
    # importers (tinytf/cli/translate_import.py): TensorFlow's files -> MLIR
    _flag(parser, "graphdef-to-mlir", action="store_true", help="import a GraphDef (.pb or .pbtxt)")
    # TF's splatting replaces the `value` of a function's top-level ops; in the tf_executor form every
    # constant is inside an island, so the output is --graphdef-to-mlir's
    parser.add_argument("-graphdef-to-splatted-mlir", "--graphdef-to-splatted-mlir", dest="graphdef_to_mlir",
                        action="store_true", help="as --graphdef-to-mlir (TF's splatting changes no island)")
    _flag(parser, "savedmodel-objectgraph-to-mlir", action="store_true",
          help="import a TF2 SavedModel directory's object graph")
    _flag(parser, "savedmodel-signaturedefs-to-mlir", action="store_true",
          help="import a TF1 SavedModel directory's SignatureDefs")
    _flag(parser, "mlir-to-graphdef", action="store_true",
          help="export a functional module as a GraphDef text proto (tinytf/formats/graphdef_export.py)")
    _flag(parser, "tf-input-arrays", default=None, help="graph inputs (tensor names), ',' separated")
    _flag(parser, "tf-output-arrays", default=None, help="graph outputs (tensor names), ',' separated")
    # the GraphDef importer's tf_executor form (tinytf/formats/graphdef_executor.py)
    _flag(parser, "tf-control-output-arrays", default=None, help="graph control outputs (node names), ',' separated")
    _flag(parser, "tf-prune-unused-nodes", action="store_true", help="import only what the outputs need")
    _flag(parser, "tf-enable-shape-inference-on-import", default="false", nargs="?", const="true",
          choices=["true", "false", "1", "0"], help="type results by shape rules (default false, as TF: unranked)")
    _flag(parser, "tf-enable-unconditionally-use-set-output-shapes-on-import", action="store_true",
          help="type results by the nodes' _output_shapes")
    _flag(parser, "tf-graph-as-function", action="store_true",
          help="the graph is a function: its _Arg nodes are @main's arguments, its _Retval nodes its results")
    _flag(parser, "tf-enable-soft-placement-on-import", default="false", nargs="?", const="true",
          choices=["true", "false", "1", "0"], help="with -tf-graph-as-function: allow_soft_placement")
    _flag(parser, "tf-xla-compile-device-type", default="",
          help="with -tf-graph-as-function: @main's _xla_compile_device_type (CPU, GPU, TPU)")
    _flag(parser, "tf-set-original-tf-func-name-on-import", default="false", nargs="?", const="true",
          choices=["true", "false", "1", "0"], help="give each library function tf._original_func_name")
    _flag(parser, "tf-convert-legacy-fed-inputs", action="store_true",
          help="a LegacyFedInput node without inputs is a Placeholder (tinytf/formats/legacy_fed_inputs.py)")
    _flag(parser, "mlir-print-debuginfo", action="store_true", help="print each op's loc(...) (an imported "
          "GraphDef node's: fused[\"Op:\", \"name\"])")
    _flag(parser, "mlir-print-local-scope", action="store_true", help="accepted: locations always print inline")
    _flag(parser, "print-after-all", action="store_true", help="accepted: an import runs no passes to print after")
    parser.add_argument("-o", "--output", default="-", help="output file (default: stdout)")
    return parser


def _split(text: str | None) -> list[str] | None:
    if text is None or text == "":
        return None
    return [part.strip() for part in text.split(",")]


def _data_types(text: str | None):
    import tinytf.dtypes as dtypes

    names = _split(text)
    if names is None:
        return None
    out = []
    for i, name in enumerate(names):
        try:
            dtype = dtypes.as_dtype(name)
        except InvalidArgumentError:
            raise InvalidArgumentError(f"Invalid dtype at index {i}: {name}") from None
        if dtype.kind == "o":
            raise InvalidArgumentError(f"Unsupported dtype at index {i}: {name}")
        out.append(dtype)
    return out


def translate(args: argparse.Namespace) -> int:
    from tinytf.cli import translate_import

    if translate_import.wanted(args):
        return _write(args, translate_import.translate(args))
    if args.mlir_to_graphdef and args.mlir_tf_to_hlo_text:
        raise InvalidArgumentError("choose one translation, not --mlir-tf-to-hlo-text and --mlir-to-graphdef")
    if not args.mlir_tf_to_hlo_text and not args.mlir_to_graphdef:
        raise InvalidArgumentError("choose a translation: --mlir-tf-to-hlo-text, --mlir-to-graphdef, --graphdef-to-mlir, "
                                   "--savedmodel-objectgraph-to-mlir or --savedmodel-signaturedefs-to-mlir")
    module = _read_module(args.file)
    if args.mlir_to_graphdef:
        from tinytf.formats.graphdef_export import graph_def_text

        return _write(args, graph_def_text(module))
    from tinytf import xla
    from tinytf.passes.shape_inference import parse_input_shapes

    shapes = parse_input_shapes(args.tf_input_shapes) if args.tf_input_shapes is not None else None
    kinds = _split(args.tf_xla_input_types)
    if kinds is not None:
        for i, kind in enumerate(kinds):
            if kind not in ("parameter", "resource"):
                raise InvalidArgumentError(f"Unsupported TF/XLA argument kind at index {i}: {kind}")
    data_types = _data_types(args.tf_input_data_types)
    if shapes is not None and any(s is None or any(d is None for d in s) for s in shapes):
        raise InvalidArgumentError(f"-tf-input-shapes={args.tf_input_shapes}: XLA needs static shapes")
    lengths = {len(x) for x in (shapes, kinds, data_types) if x is not None}
    if len(lengths) > 1:
        raise InvalidArgumentError(
            "Input shapes, dtypes, and types/kinds must be of the same length, but got "
            f"{len(shapes or ())}, {len(data_types or ())}, and {len(kinds or ())} respectively")
    result = xla.compile(module, shapes, kinds, use_tuple_args=args.tf_xla_emit_use_tuple_args,
                         return_tuple=args.tf_xla_emit_return_tuple, input_dtypes=data_types,
                         use_resource_updates_for_aliases=True)
    out = result.text()
    if args.output == "-":
        sys.stdout.write(out)
    else:
        with open(args.output, "w") as f:
            f.write(out)
    return 0


def _read_module(file: str):
    from tinytf import mlir

    if file == "-":
        stdin = getattr(sys.stdin, "buffer", None)  # bytes, so bad UTF-8 is a located ParseError
        text = mlir.decode(stdin.read(), "<stdin>") if stdin is not None else sys.stdin.read()
        module = mlir.parse_text(text, "<stdin>")
    else:
        text, name = mlir.read_text(Path(file))  # (a file name, even one that looks like text)
        module = mlir.parse_text(text, name)
    mlir.verify(module)
    return module


def _write(args, text: str) -> int:
    if args.output == "-":
        sys.stdout.write(text)
    else:
        with open(args.output, "w") as f:
            f.write(text)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    return run_tool("tinytf-translate", lambda: translate(args))


if __name__ == "__main__":
    sys.exit(main())
