"""Every registered tf.* op carries its rules: a shape rule, and a way to run (compute, kernel, or
the executor for calls and control flow); and the IR side: it parses, verifies and prints."""
import inspect

import pytest
from xdsl.irdl import operand_def, result_def

import tinytf as tt
from tinytf import mlir
from tinytf.framework.op import IR_ONLY, REGISTRY, RESERVED_FIELD_NAMES, Op, calls_functions, register, tf_name

OPS = sorted(name for name in REGISTRY if name.startswith("tf."))
EXECUTOR_OPS = {name for name in OPS if calls_functions(REGISTRY[name]) is not None}  # run by the engines, by kind


def test_the_ops_the_engines_run_by_kind():
    assert EXECUTOR_OPS == {"tf.PartitionedCall", "tf.StatefulPartitionedCall", "tf.LegacyCall", "tf.If", "tf.StatelessIf", "tf.While",
                            "tf.StatelessWhile", "tf.Case", "tf.StatelessCase"}


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
    # (a leading underscore marks TensorFlow's internal ops, such as grappler's _FusedConv2D)
    assert name.startswith("tf.") and name[3:].lstrip("_")[:1].isupper() and REGISTRY[name].name == name


def test_every_op_class_is_in_the_tf_dialect():
    dialect_ops = {op.name for op in mlir.tf_dialect().operations}
    assert dialect_ops == set(OPS) | set(IR_ONLY)  # (and the ops tinytf knows only as IR)
    assert not set(IR_ONLY) & set(REGISTRY)


@pytest.mark.parametrize("name", OPS)
def test_operands_results_and_attributes_cannot_collide_with_rules(name):
    """Each operand, result and attribute field is still xDSL's accessor on the finished class: no rule
    (a ``grad`` method assigned after registration included) hides it, and no field hides a rule."""
    cls = REGISTRY[name]
    definition = cls.get_irdl_definition()
    for field, _ in definition.operands + definition.results:
        assert field not in RESERVED_FIELD_NAMES, f"{name}: field {field} is a rule's name"
        accessor = inspect.getattr_static(cls, field)
        assert type(accessor).__module__ == "xdsl.irdl.operations", f"{name}: {field} is hidden by {accessor!r}"
    for field in cls.attr_specs():
        assert field not in RESERVED_FIELD_NAMES, f"{name}: attribute {field} is a rule's name"


def test_tensorflow_names_of_fields_spelled_with_an_underscore():
    max_pool_grad = REGISTRY["tf.MaxPoolGrad"]
    fields = [tf_name(k) for k, _ in max_pool_grad.get_irdl_definition().operands]
    assert fields == ["orig_input", "orig_output", "grad"]
    assert callable(max_pool_grad.grad)  # the gradient rule, not the operand
    assert "grad" in tt.raw_ops.ResourceApplyAdam.__doc__.splitlines()[0]


def test_a_field_named_like_a_rule_is_refused_at_registration():
    with pytest.raises(TypeError, match="grad"):
        @register
        class Clashing(Op):
            """An op whose operand hides its gradient rule."""

            name = "tf.TestClashingField"
            grad = operand_def()
            out = result_def()
    assert "tf.TestClashingField" not in REGISTRY
