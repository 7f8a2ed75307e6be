"""``tinytf-opt``: xDSL's opt driver with tinytf's dialects and passes.

    tinytf-opt model.mlir -p tf-device-cluster-formation,canonicalize
    tinytf-opt bad.mlir            # prints file:line:col: message, exits 1
    tinytf-opt cases.mlir --split-input-file --verify-diagnostics

``--split-input-file`` splits where a line is ``// -----`` (as MLIR does; a chunk of comments only
is an empty module). ``--verify-diagnostics`` on a file with ``expected-error`` / ``-warning`` /
``-remark`` / ``-note`` designators checks them all as MLIR does (see ``expected_diagnostics``): each
diagnostic goes to stderr, each mismatch too, as ``tinytf-opt: error: ...``, and the exit status is 1
when any is found; the chunks without errors print as usual. On a file without designators it keeps
xDSL's meaning: print each diagnostic and go on. ``--print-debuginfo`` (``-mlir-print-debuginfo``)
prints locations. ``--print-op-generic`` and pass options (``-p 'pass{opt=value}'``) come from xDSL.
"""
from __future__ import annotations

import dataclasses
import re
import sys
from collections.abc import Sequence
from io import BytesIO
from typing import IO

from xdsl.utils.exceptions import DiagnosticException, VerifyException
from xdsl.xdsl_opt_main import xDSLOptMain

import tinytf.mlir as mlir
from tinytf.cli import expected_diagnostics as expected
from tinytf.cli.errors import one_line, run_tool
from tinytf.errors import InvalidArgumentError, OpError, ParseError
from tinytf.framework import attributes, diagnostics

SPLIT_MARKER = re.compile(rb"^[ \t]*// -----[ \t]*\r?$", re.M)  # a line of its own, as MLIR splits


def tinytf_passes() -> dict:
    """Every tinytf pass by name: the compiler passes and the quantization passes."""
    from tinytf.passes import ALL_PASSES
    from tinytf.quantization import QUANTIZATION_PASSES

    return {p.name: p for p in (*ALL_PASSES, *QUANTIZATION_PASSES)}


def split_chunks(data: bytes) -> list[tuple[bytes, int]]:
    """(chunk, lines before it) for each ``// -----``-separated chunk."""
    chunks, start, line = [], 0, 0
    for m in SPLIT_MARKER.finditer(data):
        chunks.append((data[start:m.start()], line))
        line += data.count(b"\n", start, m.end())
        start = m.end()
    chunks.append((data[start:], line))
    return chunks


class TinyTFOptMain(xDSLOptMain):
    def __init__(self, args: Sequence[str] | None = None):
        super().__init__(description="tinytf's MLIR optimizer driver (TF dialect)", args=args)
        self.ctx.allow_unregistered = True  # TensorFlow's dialect accepts unknown tf.* ops

    def register_all_arguments(self, arg_parser):
        super().register_all_arguments(arg_parser)
        for spelling in ("-mlir-print-debuginfo", "--mlir-print-debuginfo"):  # tf-opt's spelling
            arg_parser.add_argument(spelling, dest="print_debuginfo", action="store_true", help="as --print-debuginfo")

    def register_all_dialects(self):
        for dialect in mlir.dialects():
            self.ctx.register_dialect(dialect.name, lambda d=dialect: d)

    def register_all_frontends(self):
        def parse_mlir(stream: IO[bytes]):
            name, offset = self.get_input_name(), self._line_offset
            text = mlir.decode(stream.read(), name, offset)
            # a chunk of nothing but comments is an empty module, as MLIR reads it
            return mlir.parse_text(text, name, self.ctx, offset, allow_empty=self.args.split_input_file)

        self.available_frontends["mlir"] = parse_mlir

    def register_all_passes(self):
        super().register_all_passes()
        for name, cls in tinytf_passes().items():
            self.register_pass(name, lambda cls=cls: cls)

    _line_offset = 0
    _prepared = None

    def setup_pipeline(self):
        super().setup_pipeline()
        verify_between_passes = self.pipeline.callback  # xDSL's module.verify() before and after each pass
        if verify_between_passes is not None:
            def callback(*args):
                with attributes.verifying():  # as mlir.verify: a constant too large to run is well formed
                    verify_between_passes(*args)

            self.pipeline = dataclasses.replace(self.pipeline, callback=callback)

    def prepare_input(self):
        if self._prepared is not None:
            prepared, self._prepared = self._prepared, None
            return prepared
        stream, extension = self.get_input_stream()
        data = stream.read()
        if stream is not sys.stdin.buffer:
            stream.close()
        extension = self.args.frontend or extension
        if extension not in self.available_frontends:
            raise ValueError(f"Unrecognized file extension '{extension}'")
        chunks = split_chunks(data) if self.args.split_input_file else [(data, 0)]
        return [(BytesIO(chunk), offset) for chunk, offset in chunks], extension

    def output_resulting_program(self, prog) -> str:
        if self.args.target != "mlir":
            return super().output_resulting_program(prog)
        return mlir.print(prog, generic=self.args.print_op_generic, debuginfo=self.args.print_debuginfo)

    def parse_chunk(self, chunk, file_extension, start_offset=0):
        self._line_offset = start_offset
        try:
            return super().parse_chunk(chunk, file_extension, start_offset)
        except ParseError as err:
            if not self.args.parsing_diagnostics:
                raise
            print(err)
            return None

    def apply_passes(self, prog):
        try:
            mlir.verify(prog)  # located diagnostics for bad input, before any pass runs
        except InvalidArgumentError as err:
            if self.args.verify_diagnostics:
                raise DiagnosticException(str(err)) from None  # xDSL prints it and goes on
            raise
        super().apply_passes(prog)

    def run(self):
        chunks, extension = self.prepare_input()
        if self.args.verify_diagnostics:
            texts = [(chunk.getvalue(), offset) for chunk, offset in chunks]
            if any(expected.has_designators(text.decode("utf-8", "replace")) for text, _ in texts):
                return self.run_verifying_diagnostics(texts, extension)
        self._prepared = (chunks, extension)
        return super().run()

    # --- -verify-diagnostics, as MLIR checks it ------------------------------------------------

    def run_verifying_diagnostics(self, texts: list[tuple[bytes, int]], extension: str) -> int:
        name = self.get_input_name()
        output = self.prepare_output()
        failed = False
        try:
            for i, (data, offset) in enumerate(texts):
                if i > 0:
                    output.write("// -----\n")
                wanted = expected.expectations(data.decode("utf-8", "replace"), offset)
                module, diagnostics = self._diagnosed(data, offset, extension)
                for d in diagnostics:
                    where = f"{name}:{d.line}:{d.col}: " if d.line is not None else f"{name}: "
                    print(f"{where}{d.kind}: {d.message}", file=sys.stderr)
                problems = expected.check(wanted, diagnostics, name)
                for problem in problems:
                    print(f"tinytf-opt: error: {problem}", file=sys.stderr)
                failed = failed or bool(problems)
                if module is not None and all(d.kind == "warning" for d in diagnostics):
                    output.write(self.output_resulting_program(module))
                output.flush()
        finally:
            if output is not sys.stdout:
                output.close()
        return 1 if failed else 0

    def _diagnosed(self, data: bytes, offset: int, extension: str):
        """(the chunk after the passes, or None; the diagnostics it gave): a parse error, the first
        verifier error of each function (with its notes) and the verifiers' warnings, or the error a pass
        raised."""
        try:
            module = self.parse_chunk(BytesIO(data), extension, offset)
        except (ParseError, OpError) as err:
            return None, expected.reported_with_related(err)
        if module is None:
            return None, []
        with diagnostics.collecting() as warnings:
            errors = mlir.verify_each(module)
        warned = [expected.located("warning", mlir.location(op), text) for op, text in warnings]
        if errors:
            return None, [d for err in errors for d in expected.reported_with_related(err)] + warned
        try:
            super().apply_passes(module)
        except (OpError, DiagnosticException, VerifyException) as err:
            return None, [*warned, expected.reported(one_line(err))]
        return module, warned


def main(argv: Sequence[str] | None = None) -> int:
    return run_tool("tinytf-opt", lambda: TinyTFOptMain(args=argv).run())


if __name__ == "__main__":
    sys.exit(main())
