"""``tinytf bench``: the benchmarks of a source checkout, tinytf beside its peers, in this environment.

    tinytf bench --quick                      # each benchmark's quick mode; the table to the terminal
    tinytf bench --only eager_dispatch        # one benchmark, full mode
    tinytf bench -o bench/RESULTS.md          # also write the report (``make bench`` does, in .venv-bench)

This runs ``bench/run_all.py`` (see there) with this Python: a peer (TensorFlow, JAX, PyTorch) that
does not import here is reported as missing. The benchmarks live in the repository, not in the
installed package, so this needs a checkout (``pip install -e .``).
"""
from __future__ import annotations

import importlib.util
import os
from collections.abc import Sequence

from tinytf.errors import NotFoundError


def run_all_path() -> str:
    """bench/run_all.py of the checkout this tinytf was installed from."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    path = os.path.join(root, "bench", "run_all.py")
    if not os.path.exists(path):
        raise NotFoundError(f"no benchmarks at {path}: 'tinytf bench' runs from a source checkout "
                            "(pip install -e .)")
    return path


def load_run_all():
    spec = importlib.util.spec_from_file_location("tinytf_bench_run_all", run_all_path())
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(argv or [])
    if not any(a in ("-o", "--output") or a.startswith("--output=") for a in argv):
        argv += ["--output", "-"]  # the terminal only: RESULTS.md is make bench's, with every peer present
    return load_run_all().main(argv, prog="tinytf bench")
