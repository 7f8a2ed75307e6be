"""``tinytf gradcheck FILE.py:function --input-shapes 8,64:64,64``: check a model's gradients.

The function is loaded from the file and called with random inputs of the given shapes (``:``
between inputs, ``,`` between dims; an empty shape or ``scalar`` is a scalar). Both checks run
by default: ``full`` (every element, vectorised) and ``fast`` (a random projection). A table
of the results is printed; long checks show a progress bar. Exit status: 0 when the gradients
agree, 1 on a mismatch or bad input.

    $ tinytf gradcheck model.py:loss --input-shapes 8,64:64,64
    gradient check (full, float64): passed in 0.041 s
     input  shape     dtype    checked  max abs err  max rel err  result
     0      (8, 64)   float32      512      2.9e-10      4.1e-07  ok
     ...
"""
from __future__ import annotations

import argparse
import importlib.util
import sys
from collections.abc import Sequence
from pathlib import Path

from tinytf.cli.errors import run_tool

# Above this many perturbations a check shows a progress bar.
PROGRESS_THRESHOLD = 20_000


def parse_shapes(text: str) -> list[tuple[int, ...]]:
    """``"8,64:64,64"`` -> ``[(8, 64), (64, 64)]``; ``""`` or ``"scalar"`` is ``()``."""
    shapes = []
    for part in text.split(":"):
        part = part.strip()
        if part in ("", "scalar", "()"):
            shapes.append(())
            continue
        try:
            dims = tuple(int(d) for d in part.split(","))
        except ValueError:
            raise ValueError(f"--input-shapes: '{part}' is not a comma-separated list of dims") from None
        if any(d < 0 for d in dims):
            raise ValueError(f"--input-shapes: negative dim in '{part}'")
        shapes.append(dims)
    return shapes


def load_function(target: str):
    """``path/to/file.py:name`` -> the callable ``name`` defined in that file."""
    path, sep, name = target.rpartition(":")
    if not sep or not path or not name:
        raise ValueError(f"expected FILE.py:function, got '{target}'")
    file = Path(path)
    if not file.is_file():
        raise ValueError(f"{path}: no such file")
    spec = importlib.util.spec_from_file_location(f"_tinytf_gradcheck_{file.stem}", file)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    fn = getattr(module, name, None)
    if not callable(fn):
        raise ValueError(f"{path}: no function '{name}'")
    return fn


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="tinytf gradcheck", description=__doc__.split("\n\n")[0])
    p.add_argument("target", help="FILE.py:function — a model taking tensors, returning a tensor or a list")
    p.add_argument("--input-shapes", required=True, help="shapes of the inputs, e.g. 8,64:64,64")
    p.add_argument("--dtype", default="float32", help="dtype of the random inputs (default float32)")
    p.add_argument("--mode", choices=["full", "fast", "both"], default="both")
    p.add_argument("--wrt", default=None, help="indices of the inputs to check, e.g. 0,2 (default: all)")
    p.add_argument("--atol", type=float, default=None)
    p.add_argument("--rtol", type=float, default=None)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--no-promote", action="store_true", help="evaluate in the model's dtype, not float64")
    p.add_argument("--backend", choices=["numpy", "xla"], default="numpy")
    return p


def _table(report, console):
    from rich.table import Table

    table = Table(title=report.header(), title_justify="left")
    for title in ("input", "shape", "dtype", "checked", "max abs err", "max rel err", "result"):
        table.add_column(title, justify="right" if title in ("checked", "max abs err", "max rel err") else "left")
    for row in report.rows():
        style = "green" if row[-1] == "ok" else "yellow" if row[-1].startswith("skipped") else "bold red"
        table.add_row(*row[:-1], f"[{style}]{row[-1]}[/{style}]")
    console.print(table)
    for m in report.mismatches[:20]:
        console.print(f"  [red]{m}[/red]", highlight=False)
    if len(report.mismatches) > 20:
        console.print(f"  ... and {len(report.mismatches) - 20} more")


def _check(args) -> int:
    import numpy as np
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

    import tinytf.dtypes as dtypes
    from tinytf.gradcheck import check_gradients

    console = Console()
    model = load_function(args.target)
    shapes = parse_shapes(args.input_shapes)
    dtype = dtypes.as_dtype(args.dtype)
    rng = np.random.default_rng(args.seed)
    inputs = [rng.standard_normal(s).astype(dtype.np) if dtype.is_floating
              else rng.integers(0, 4, s).astype(dtype.np) for s in shapes]
    wrt = None if args.wrt is None else [int(i) for i in args.wrt.split(",") if i.strip()]
    modes = ["full", "fast"] if args.mode == "both" else [args.mode]
    ok = True
    for mode in modes:
        total = sum(inputs[i].size for i in (wrt if wrt is not None else range(len(inputs))))
        kwargs = dict(mode=mode, backend=args.backend, atol=args.atol, rtol=args.rtol, wrt=wrt,
                      promote=not args.no_promote, seed=args.seed, raise_exception=False)
        if mode == "full" and total >= PROGRESS_THRESHOLD:
            columns = [TextColumn("[bold]full check"), BarColumn(), TextColumn("{task.completed}/{task.total}"),
                       TimeRemainingColumn()]
            with Progress(*columns, console=console, transient=True) as progress:
                task = progress.add_task("full", total=total)
                report = check_gradients(model, inputs, progress=lambda done, n, task=task: progress.update(
                    task, completed=done), **kwargs)
        else:
            report = check_gradients(model, inputs, **kwargs)
        _table(report, console)
        ok = ok and report.ok
    return 0 if ok else 1


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(list(sys.argv[1:] if argv is None else argv))
    return run_tool("tinytf gradcheck", lambda: _check(args))


if __name__ == "__main__":
    sys.exit(main())
