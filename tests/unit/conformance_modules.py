"""Modules of tests/conformance (the case tables and exporters TensorFlow's fixtures were written with),
loaded by path: the unit tests check tinytf against the very cases the fixtures recorded."""
import importlib.util
from pathlib import Path

CONFORMANCE = Path(__file__).resolve().parents[1] / "conformance"


def load(name: str):
    """tests/conformance/<name>.py as a module."""
    spec = importlib.util.spec_from_file_location(name, CONFORMANCE / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
