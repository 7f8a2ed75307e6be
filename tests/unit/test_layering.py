"""The layer order of /work/shared/DESIGN.md ("Layers"), checked on the source: a module of a lower
layer never imports one of a higher layer.

Every ``.py`` file under tinytf/ is parsed with ``ast`` and every import counts, the lazy ones inside
functions too (DESIGN.md allows no lazy upward import), as does ``importlib.import_module("tinytf.x")``
with a literal name (an f-string name cannot be followed). ``from tinytf.ops import slicing`` imports
the module tinytf.ops.slicing; ``from tinytf import something_else`` imports tinytf/__init__.py.

Packages on one line of DESIGN.md's table share a layer and may import each other, but in one
direction only (no cycle between two of them). A new top-level module or package must be placed in
``LAYERS`` below, so nothing escapes the check.
"""
from __future__ import annotations

import ast
import itertools
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "tinytf"

# DESIGN.md's table, 1 (lowest) to 9; "tinytf" is tinytf/__init__.py itself.
LAYERS = {
    "tinytf.errors": 1,
    "tinytf.dtypes": 2,
    "tinytf.framework": 3,
    "tinytf.ops": 4,
    "tinytf.runtime": 5, "tinytf.autodiff": 5,  # (autodiff is above ops: gradients bind ops)
    "tinytf.mlir": 6,
    "tinytf.passes": 7, "tinytf.xla": 7, "tinytf.quantization": 7, "tinytf.formats": 7,
    "tinytf.function": 8, "tinytf.gradcheck": 8,
    "tinytf.saved_model": 8, "tinytf.train": 8, "tinytf.summary": 8, "tinytf.distribute": 8,
    "tinytf": 9, "tinytf.cli": 9,
    # Not in DESIGN.md's table: placed by what they are and what they import.
    "tinytf.random": 5,  # tt.random's Generator and seeds: ops plus runtime state (runtime.namespaces loads it)
    "tinytf.module": 8,  # tt.Module: tracks variables for checkpoints (imports tinytf.train)
    "tinytf.loaded_module": 8,  # tt.load_mlir's result: parses, runs passes, runs on the executor or XLA
    "tinytf.optimizers": 8,  # tt.optimizers: tape and distribute strategies
    "tinytf.experimental": 8,  # tt.experimental.dtensor: layouts over tinytf.distribute
}

# Existing upward imports, each with why it is tolerated: (importing module, imported module).
# None when this test was written; add one only with a reason, and prefer moving the shared piece down.
ALLOWED: set[tuple[str, str]] = set()


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def is_module(name: str) -> bool:
    path = ROOT.joinpath(*name.split("."))
    return path.with_suffix(".py").exists() or (path / "__init__.py").exists()


def imported_modules(source: str, name: str, is_package: bool = False, exists=is_module) -> list[tuple[int, str]]:
    """(line, module) for every import in ``source`` (of module ``name``), lazy ones included."""
    package = name if is_package else name.rpartition(".")[0]
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            out += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # from . import x / from ..ops import y
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            for alias in node.names:
                full = f"{base}.{alias.name}"
                out.append((node.lineno, full if exists(full) else base))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute | ast.Name) and \
                getattr(node.func, "attr", getattr(node.func, "id", None)) == "import_module" and node.args and \
                isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
            out.append((node.lineno, node.args[0].value))
    return [(line, module) for line, module in out if module == "tinytf" or module.startswith("tinytf.")]


def unit(module: str) -> str:
    """The LAYERS entry a module belongs to: tinytf.ops.slicing -> tinytf.ops."""
    return ".".join(module.split(".")[:2])


def import_edges():
    """(importer, line, imported) over every file of the package."""
    for path in sorted(PACKAGE.rglob("*.py")):
        name = module_name(path)
        for line, imported in imported_modules(path.read_text(), name, path.name == "__init__.py"):
            yield name, line, imported


def test_every_module_has_a_layer():
    units = {unit(module_name(p)) for p in PACKAGE.rglob("*.py")}
    assert sorted(units - set(LAYERS)) == [], "place the new module in LAYERS (tests/unit/test_layering.py)"


def test_no_module_imports_a_higher_layer():
    upward = set()
    where = {}
    for importer, line, imported in import_edges():
        if LAYERS[unit(imported)] > LAYERS[unit(importer)]:
            upward.add((importer, imported))
            where.setdefault((importer, imported), f"{importer}:{line} imports {imported}")
    new = sorted(where[edge] for edge in upward - ALLOWED)
    assert new == [], "imports that run up DESIGN.md's layers:\n" + "\n".join(new)
    assert sorted(ALLOWED - upward) == [], "ALLOWED lists upward imports that are gone: remove them"


def test_no_cycle_between_packages_of_one_layer():
    edges = {(unit(a), unit(b)) for a, _, b in import_edges() if unit(a) != unit(b)}
    cycles = sorted((a, b) for a, b in itertools.combinations(sorted(LAYERS), 2) if (a, b) in edges and (b, a) in edges)
    assert cycles == [], f"packages importing each other: {cycles}"


def test_the_scan_sees_lazy_and_relative_imports():
    source = (
        "import tinytf.errors\n"
        "from tinytf import dtypes, something\n"
        "from ..runtime import tensor\n"
        "def f():\n"
        "    from tinytf.xla import compile\n"
        "    return importlib.import_module('tinytf.passes.fold')\n"
    )
    modules = {"tinytf.dtypes", "tinytf.runtime.tensor", "tinytf.xla"}
    found = sorted(imported_modules(source, "tinytf.ops.example", exists=modules.__contains__))
    assert found == [(1, "tinytf.errors"), (2, "tinytf"), (2, "tinytf.dtypes"), (3, "tinytf.runtime.tensor"),
                     (5, "tinytf.xla"), (6, "tinytf.passes.fold")]
    assert [LAYERS[unit(m)] > LAYERS["tinytf.ops"] for _, m in found] == [False, True, False, True, True, True]
