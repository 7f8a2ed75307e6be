"""``tinytf-opt``: xDSL's opt driver with tinytf's dialects and passes.

    tinytf-opt model.mlir -p tf-device-cluster-formation,canonicalize
    tinytf-opt bad.mlir            # prints file:line:col: message, exits 1

``--split-input-file``, ``--verify-diagnostics``, ``--print-op-generic`` and pass options
(``-p 'pass{opt=value}'``) come from xDSL.
"""
from __future__ import annotations

import dataclasses
import sys
from collections.abc import Sequence
from typing import IO

from xdsl.utils.exceptions import DiagnosticException
from xdsl.xdsl_opt_main import xDSLOptMain

import tinytf.mlir as mlir
from tinytf.cli.errors import run_tool
from tinytf.errors import InvalidArgumentError, ParseError
from tinytf.framework import attributes


def tinytf_passes() -> dict:
    """Every tinytf pass by name: the compiler passes and the quantization passes."""
    from tinytf.passes import ALL_PASSES
    from tinytf.quantization import QUANTIZATION_PASSES

    return {p.name: p for p in (*ALL_PASSES, *QUANTIZATION_PASSES)}


class TinyTFOptMain(xDSLOptMain):
    def __init__(self, args: Sequence[str] | None = None):
        super().__init__(description="tinytf's MLIR optimizer driver (TF dialect)", args=args)
        self.ctx.allow_unregistered = True  # TensorFlow's dialect accepts unknown tf.* ops

    def register_all_dialects(self):
        for dialect in mlir.dialects():
            self.ctx.register_dialect(dialect.name, lambda d=dialect: d)

    def register_all_frontends(self):
        def parse_mlir(stream: IO[bytes]):
            name, offset = self.get_input_name(), self._line_offset
            return mlir.parse_text(mlir.decode(stream.read(), name, offset), name, self.ctx, offset)

        self.available_frontends["mlir"] = parse_mlir

    def register_all_passes(self):
        super().register_all_passes()
        for name, cls in tinytf_passes().items():
            self.register_pass(name, lambda cls=cls: cls)

    _line_offset = 0

    def setup_pipeline(self):
        super().setup_pipeline()
        verify_between_passes = self.pipeline.callback  # xDSL's module.verify() before and after each pass
        if verify_between_passes is not None:
            def callback(*args):
                with attributes.verifying():  # as mlir.verify: a constant too large to run is well formed
                    verify_between_passes(*args)

            self.pipeline = dataclasses.replace(self.pipeline, callback=callback)

    def output_resulting_program(self, prog) -> str:
        if self.args.target != "mlir":
            return super().output_resulting_program(prog)
        return mlir.print(prog, generic=self.args.print_op_generic)

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


def main(argv: Sequence[str] | None = None) -> int:
    return run_tool("tinytf-opt", lambda: TinyTFOptMain(args=argv).run())


if __name__ == "__main__":
    sys.exit(main())
