"""The curated public API: names, namespaces, raw_ops generated from the registry, no JAX on import."""
from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from xdsl.irdl import VarOperandDef

import tinytf as tt
from tinytf.framework.op import REGISTRY, tf_name


def test_import_tinytf_does_not_import_jax():
    code = "import sys, tinytf as tt; tt.constant(1.0) + 1.0; print('jax' in sys.modules, 'jaxlib' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False False"


@pytest.mark.parametrize("name", ["constant", "Variable", "function", "TensorSpec", "TensorShape", "load_mlir",
                                  "errors", "dtypes", "math", "nn", "linalg", "raw_ops", "convert_to_tensor", "zeros",
                                  "ones", "fill", "Tensor", "add", "matmul", "reduce_sum", "reshape"])
def test_curated_names(name):
    assert hasattr(tt, name)


def test_dtypes():
    assert tt.float32 is tt.dtypes.float32 and tt.bool is tt.dtypes.bool_ and tt.int32.name == "int32"
    assert tt.as_dtype("DT_FLOAT") is tt.float32
    assert tt.errors.InvalidArgumentError.code == "INVALID_ARGUMENT"


def test_namespaces_follow_tensorflow():
    x = tt.constant([[1.0, -2.0], [3.0, 4.0]])
    np.testing.assert_array_equal(tt.math.reduce_sum(x, axis=0).numpy(), [4.0, 2.0])
    np.testing.assert_array_equal(tt.nn.relu(x).numpy(), [[1.0, 0.0], [3.0, 4.0]])
    np.testing.assert_array_equal(tt.linalg.matmul(x, x).numpy(), x.numpy() @ x.numpy())
    np.testing.assert_array_equal(tt.reduce_sum(x).numpy(), 6.0)
    np.testing.assert_array_equal(tt.reshape(x, [4]).numpy(), [1.0, -2.0, 3.0, 4.0])
    assert tt.add is tt.math.add and tt.matmul is tt.linalg.matmul
    assert "relu" not in dir(tt) or tt.relu is tt.nn.relu


def test_namespaces_are_discovered_from_op_modules():
    from tinytf.runtime import namespaces

    spaces = namespaces.build_namespaces()
    import tinytf.ops.math as math_ops

    for name, fn in namespaces.public_functions(math_ops).items():
        assert spaces["math"][name] is fn or name in spaces["math"]


def test_raw_ops_cover_the_registry():
    names = [k.removeprefix("tf.") for k in REGISTRY if k.startswith("tf.")]
    assert set(names) <= set(dir(tt.raw_ops))
    for name in names:
        fn = getattr(tt.raw_ops, name)
        assert callable(fn) and fn.__name__ == name
        cls = REGISTRY[f"tf.{name}"]
        for key, _ in cls.get_irdl_definition().operands:
            assert tf_name(key) in fn.__doc__
    with pytest.raises(AttributeError):
        tt.raw_ops.__getattr__("NoSuchOpAtAll")


def test_raw_ops_use_tensorflow_argument_names():
    a = tt.constant([[1.0, 2.0]])
    out = tt.raw_ops.MatMul(a=a, b=a, transpose_a=False, transpose_b=True)
    np.testing.assert_array_equal(out.numpy(), [[5.0]])
    np.testing.assert_array_equal(tt.raw_ops.AddV2(x=a, y=a, name="sum").numpy(), [[2.0, 4.0]])
    np.testing.assert_array_equal(tt.raw_ops.Cast(x=a, DstT=tt.int32).numpy(), [[1, 2]])
    outs = tt.raw_ops.IdentityN(input=[a, a])
    assert len(outs) == 2
    with pytest.raises(tt.errors.InvalidArgumentError, match="missing operand 'y'"):
        tt.raw_ops.AddV2(x=a)


def test_raw_ops_variadic_operands_take_lists():
    for name, cls in REGISTRY.items():
        for key, definition in cls.get_irdl_definition().operands:
            if isinstance(definition, VarOperandDef):
                assert key in getattr(tt.raw_ops, name.removeprefix("tf.")).__doc__


def test_lazy_submodules():
    assert tt.mlir.parse is not None
    with pytest.raises(AttributeError):
        tt.__getattr__("no_such_thing")
