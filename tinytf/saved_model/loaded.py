"""What ``tt.saved_model.load`` returns: signatures and restored functions over one compiled module.

    obj = tt.saved_model.load("export/1")
    obj.signatures["serving_default"](x=np.array([[1.0]], np.float32))   # {"y": <tt.Tensor [[2.5]]>}
    obj.predict(tt.constant([1.0]))                                      # a restored tf.function (TF2)
    obj.a                                                                # a restored tt.Variable (TF2)

Every callable is one ``func.func`` of the module plus its bound inputs (the variables, assets and
constants TensorFlow captured), run by the graph executor or, with ``backend="xla"``, compiled by XLA.
"""
from __future__ import annotations

import numpy as np

import tinytf.dtypes as dtypes
from tinytf.errors import InvalidArgumentError
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.framework.variables import Variable
from tinytf.passes.fold_batch_norm import folded
from tinytf.passes.fuse_bias_activation import fused
from tinytf.runtime.executor import Program, check_argument
from tinytf.runtime.tensor import Tensor

BACKENDS = ("graph", "xla")


class Runner:
    """The module of a loaded SavedModel and how its functions run."""

    def __init__(self, module, backend: str = "graph"):
        if backend not in BACKENDS:
            raise InvalidArgumentError(f"unknown backend '{backend}' (graph or xla)")
        self.module = module
        self.backend = backend
        self.program = Program(fused(folded(module)))  # (graph mode runs TF's graph rewrites first)

    def function(self, name: str):
        return self.program.function(name)

    def run(self, name: str, args: list, backend: str | None = None) -> list[np.ndarray]:
        fn = self.program.function(name)
        types = list(fn.function_type.inputs.data)
        if len(args) != len(types):
            raise InvalidArgumentError(f"@{name} takes {len(types)} arguments, got {len(args)}")
        args = [check_argument(a, t, i, name) for i, (a, t) in enumerate(zip(args, types))]
        if (backend or self.backend) == "xla":
            import tinytf.xla as xla  # JAX loads on first use

            return [np.asarray(o) for o in xla.run_module(self.module, name, args)]
        return [np.asarray(o) for o in self.program.run(name, args)]


def to_array(value, spec: TensorSpec, what: str, cast: bool = False) -> np.ndarray:
    """A call's argument as an array of ``spec``'s dtype: a Python value is converted; an array of
    another dtype is an error (TensorFlow's convert_to_tensor), unless ``cast`` (a session feed)."""
    if isinstance(value, Variable):
        value = value.numpy()
    elif hasattr(value, "numpy") and not isinstance(value, np.ndarray):
        value = value.numpy()
    dtype = spec.dtype
    if dtype is dtypes.string:
        array = np.asarray(value, dtype=object)
        flat = array.reshape(-1)
        for i, v in enumerate(flat):
            if isinstance(v, str):
                flat[i] = v.encode()
            elif not isinstance(v, bytes):
                raise InvalidArgumentError(f"{what}: expected strings (bytes), got {type(v).__name__}")
        return array
    if isinstance(value, np.ndarray | np.generic) and not cast:
        array = np.asarray(value)
        if array.dtype != dtype.np:
            raise InvalidArgumentError(f"{what}: expected {dtype.name}, got {dtypes.as_dtype(array.dtype).name}")
        return array
    try:
        return np.asarray(value, dtype=dtype.np)
    except (TypeError, ValueError) as err:
        raise InvalidArgumentError(f"{what}: cannot convert {type(value).__name__} to {dtype.name} ({err})") from None


def _tensor(array: np.ndarray):
    return Tensor(array)


class SignatureFunction:
    """A signature: keyword inputs in, ``{output key: tt.Tensor}`` out (TensorFlow's contract)."""

    def __init__(self, runner: Runner, fn_name: str, inputs: dict[str, TensorSpec], outputs: list[str],
                 bound: list, method_name: str = "", cast_inputs: bool = False):
        self._runner = runner
        self.function_name = fn_name
        self.inputs = inputs            # key -> TensorSpec, in the function's argument order
        self.output_names = outputs     # the function's results, in order
        self._bound = bound             # values of the trailing arguments (variables, assets, ...)
        self.method_name = method_name
        self._cast = cast_inputs

    @property
    def structured_input_signature(self):
        return (), dict(self.inputs)

    def __call__(self, *args, **kwargs) -> dict:
        if args:
            if len(args) > len(self.inputs) or kwargs:
                raise InvalidArgumentError(f"signature '{self.function_name}' takes its inputs by keyword: "
                                           f"{', '.join(self.inputs) or 'none'}")
            kwargs = dict(zip(self.inputs, args))
        unknown = sorted(set(kwargs) - set(self.inputs))
        missing = [k for k in self.inputs if k not in kwargs]
        if unknown or missing:
            raise InvalidArgumentError(
                f"signature '{self.function_name}' takes inputs {sorted(self.inputs) or '(none)'}; "
                + (f"missing {missing}" if missing else "") + ("; " if missing and unknown else "")
                + (f"unexpected {unknown}" if unknown else ""))
        arrays = [to_array(kwargs[k], spec, f"input '{k}'", self._cast) for k, spec in self.inputs.items()]
        outs = self._runner.run(self.function_name, arrays + list(self._bound))
        return {name: _tensor(o) for name, o in zip(self.output_names, outs)}

    def __repr__(self) -> str:
        return f"<SignatureFunction {self.function_name}({', '.join(self.inputs)}) -> {self.output_names}>"


class ConcreteFunction:
    """A restored concrete function: positional (and keyword) tensors in, its structured outputs out."""

    def __init__(self, runner: Runner, fn_name: str, arg_specs: list[TensorSpec], arg_names: list[str],
                 bound: list, pack):
        self._runner = runner
        self.name = fn_name
        self.arg_specs = arg_specs
        self.arg_names = arg_names
        self._bound = bound
        self._pack = pack  # flat outputs -> the function's structure

    def matches(self, flat: list) -> bool:
        if len(flat) != len(self.arg_specs):
            return False
        for value, spec in zip(flat, self.arg_specs):
            array = np.asarray(value.numpy() if hasattr(value, "numpy") else value)
            if isinstance(value, np.ndarray | np.generic | Tensor) and dtypes.as_dtype(array.dtype) is not spec.dtype:
                return False
            if not spec.is_compatible_with(array.shape):
                return False
        return True

    def call_flat(self, flat: list):
        arrays = [to_array(v, s, f"argument '{n}'") for v, s, n in zip(flat, self.arg_specs, self.arg_names)]
        outs = self._runner.run(self.name, arrays + list(self._bound))
        return self._pack([_tensor(o) for o in outs])

    def __call__(self, *args, **kwargs):
        flat = list(args) + [kwargs[k] for k in self.arg_names[len(args):] if k in kwargs]
        if len(flat) != len(self.arg_specs):
            raise InvalidArgumentError(f"{self.name} takes {len(self.arg_specs)} tensors ({', '.join(self.arg_names)}), "
                                       f"got {len(flat)}")
        return self.call_flat(flat)


class RestoredFunction:
    """A restored ``tf.function``: the first of its concrete functions whose signature fits the call."""

    def __init__(self, name: str, concrete: list[ConcreteFunction]):
        self.name = name
        self.concrete_functions = concrete

    def __call__(self, *args, **kwargs):
        for fn in self.concrete_functions:
            flat = list(args) + [kwargs[k] for k in fn.arg_names[len(args):] if k in kwargs]
            if fn.matches(flat):
                return fn.call_flat(flat)
        shapes = [np.shape(a.numpy() if hasattr(a, "numpy") else a) for a in args]
        options = "; ".join(", ".join(f"{s.dtype.name}{list(s.shape) if s.shape is not None else '[*]'}"
                                      for s in fn.arg_specs) for fn in self.concrete_functions)
        raise InvalidArgumentError(f"restored function '{self.name}': no concrete function takes arguments of "
                                   f"shapes {shapes} (it has: {options or 'none'})")

    def __repr__(self) -> str:
        return f"<RestoredFunction {self.name}: {len(self.concrete_functions)} concrete function(s)>"


class LoadedSavedModel:
    """The root object of a loaded SavedModel: ``signatures``, and (TF2) its restored attributes."""

    def __init__(self, export_dir: str, tags, runner: Runner, signatures: dict, variables: list,
                 tensorflow_version: str = ""):
        self.export_dir = export_dir
        self.tags = tags
        self._runner = runner
        self.signatures = signatures
        self.variables = variables
        self.tensorflow_version = tensorflow_version

    @property
    def module(self):
        """The MLIR module every signature and restored function runs from."""
        return self._runner.module

    @property
    def backend(self) -> str:
        return self._runner.backend

    @backend.setter
    def backend(self, value: str) -> None:
        if value not in BACKENDS:
            raise InvalidArgumentError(f"unknown backend '{value}' (graph or xla)")
        self._runner.backend = value

    def __repr__(self) -> str:
        return (f"<LoadedSavedModel {self.export_dir!r} tags={list(self.tags)} signatures={sorted(self.signatures)} "
                f"variables={len(self.variables)}>")


class UserObject:
    """A restored trackable object (a ``tf.Module`` and its children), attributes set by the loader."""

    def __repr__(self) -> str:
        names = sorted(k for k in vars(self) if not k.startswith("_"))
        return f"<restored object: {', '.join(names)}>"
