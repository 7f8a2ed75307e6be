"""Every registered tf.* op carries its rules: a shape rule, and a way to run (compute, kernel, or
the executor for calls and control flow); and the IR side: it parses, verifies and prints."""
import pytest

from tinytf import mlir
from tinytf.framework.op import REGISTRY

OPS = sorted(name for name in REGISTRY if name.startswith("tf."))
EXECUTOR_OPS = {"tf.PartitionedCall", "tf.StatefulPartitionedCall", "tf.If", "tf.StatelessIf", "tf.While",
                "tf.StatelessWhile", "tf.Case"}


def test_registry_has_the_foundation_ops():
    foundation = {"tf.Const", "tf.Identity", "tf.IdentityN", "tf.ReadVariableOp", "tf.AssignVariableOp",
                  "tf.VarHandleOp", "tf.AddV2", "tf.Sub", "tf.Mul", "tf.MatMul", "tf.BiasAdd", "tf.Relu",
                  "tf.Cast", "tf.PartitionedCall", "tf.StatefulPartitionedCall"}
    assert foundation <= set(OPS)


@pytest.mark.parametrize("name", OPS)
def test_op_has_shape_rule_and_a_way_to_run(name):
    cls = REGISTRY[name]
    assert callable(getattr(cls, "infer", None)), f"{name} has no shape rule"
    runnable = any(callable(getattr(cls, rule, None)) for rule in ("compute", "kernel"))
    assert runnable or name in EXECUTOR_OPS, f"{name} has neither compute nor kernel"
    assert cls.__doc__, f"{name} has no docstring"


@pytest.mark.parametrize("name", OPS)
def test_op_names_match_tensorflow_spelling(name):
    assert name.startswith("tf.") and name[3].isupper() and REGISTRY[name].name == name


def test_every_op_class_is_in_the_tf_dialect():
    dialect_ops = {op.name for op in mlir.tf_dialect().operations}
    assert dialect_ops == set(OPS)
