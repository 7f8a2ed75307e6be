"""tt.register_op: a user-defined op's kernel (with the kernel API), shape rule, gradient and lowering,
eagerly, in tt.function, from parsed MLIR, under GradientTape and XLA; and its error cases."""
from __future__ import annotations

import numpy as np
import pytest

import tinytf as tt
from tinytf.errors import AlreadyExistsError, InvalidArgumentError
from tinytf.framework.custom_op import register_op, unregister_op
from tinytf.framework.op import REGISTRY
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.runtime.executor import Program

FORWARDED: list = []  # ctx.forwarded of each TestSoftsign kernel call


def softsign_kernel(ctx, *, alpha):
    shape, dtype = ctx.input(0).shape, ctx.input(0).dtype
    den = (1 + alpha * np.abs(ctx.input(0))).astype(dtype, copy=False)
    out, _ = ctx.forward_input_or_allocate_output([0], 0, shape, dtype)
    np.divide(ctx.input(0), den, out=out)
    FORWARDED.append(dict(ctx.forwarded))


def softsign_shape(x, *, alpha):
    if not x.dtype.is_floating:
        raise InvalidArgumentError(f"tf.TestSoftsign: x must be a float tensor, got {x.dtype.name}", "tf.TestSoftsign")
    return TensorSpec(x.shape, x.dtype)


def softsign_grad(op, dy):  # Given upstream grad U and y = x / (1 + a|x|): dx = U / (1 + a|x|)^2
    return [dy / tt.square(1.0 + op.attrs["alpha"] * tt.math.abs(op.inputs[0]))]


def softsign_lower(x, *, alpha):
    import jax.numpy as jnp

    return x / (1 + alpha * jnp.abs(x))


def split_compute(xp, x, *, parts):  # a compute-rule op with two outputs
    return xp.sum(x, axis=-1), xp.max(x, axis=-1) * parts


def bump_kernel(ctx, *, by):  # a stateful op: adds ``by`` to its variable under the kernel API's lock
    with ctx.lock_variable_inputs_in_order([0]) as locks:
        buffer = locks.buffer(0)
        buffer += np.asarray(by, buffer.dtype)


@pytest.fixture(scope="module")
def ops():
    made = {
        "softsign": register_op("TestSoftsign", inputs=["x"], outputs=["y"], attrs={"alpha": 1.0},
                                kernel=softsign_kernel, shape_fn=softsign_shape, grad=softsign_grad,
                                lower=softsign_lower),
        "split": register_op("TestSumMax", inputs=["x"], outputs=["sum", "max"], attrs={"parts": (None, "int")},
                             compute=split_compute,
                             shape_fn=lambda x, *, parts: [TensorSpec(x.shape[:-1], x.dtype)] * 2),
        "bump": register_op("TestBump", inputs=["resource"], outputs=[], attrs={"by": 1.0}, kernel=bump_kernel,
                            shape_fn=lambda resource, *, by: [], stateful=True),
    }
    yield made
    for name in ("TestSoftsign", "TestSumMax", "TestBump"):
        unregister_op(name)


def expected(x, alpha):
    return x / (1 + alpha * np.abs(x))


def test_eager_and_registry(ops):
    x = np.array([-2.0, 0.5, 3.0], np.float32)
    y = ops["softsign"](tt.constant(x), alpha=2.0)
    assert isinstance(y, tt.Tensor) and y.dtype is tt.float32
    np.testing.assert_allclose(y.numpy(), expected(x, np.float32(2.0)), rtol=1e-6)
    assert REGISTRY["tf.TestSoftsign"] is ops["softsign"].op_class
    np.testing.assert_allclose(tt.raw_ops.TestSoftsign(x=tt.constant(x)).numpy(), expected(x, 1.0), rtol=1e-6)
    s, m = ops["split"](tt.constant([[1.0, 5.0], [2.0, 3.0]]), parts=2)
    assert s.numpy().tolist() == [6.0, 5.0] and m.numpy().tolist() == [10.0, 6.0]


def test_kernel_forwards_only_dying_inputs(ops):
    held = tt.constant([1.0, -1.0])
    FORWARDED.clear()
    ops["softsign"](held)
    assert FORWARDED == [{}] and held.numpy().tolist() == [1.0, -1.0]  # the caller's tensor is untouched
    FORWARDED.clear()
    np.testing.assert_allclose(ops["softsign"]([1.0, -3.0]).numpy(), [0.5, -0.75])  # a temporary: forwarded
    assert FORWARDED == [{0: 0}]


def test_graph_mode_print_parse_and_forwarding(ops):
    @tt.function
    def f(x):
        return ops["softsign"](tt.math.exp(x), alpha=0.5)

    x = np.array([0.0, 1.0, -1.0])
    np.testing.assert_allclose(f(tt.constant(x)).numpy(), expected(np.exp(x), 0.5), rtol=1e-15)
    cf = f.get_concrete_function(tt.TensorSpec([3], tt.float64))
    text = cf.mlir()
    assert '"tf.TestSoftsign"(%0) <{alpha = 5.000000e-01 : f32}> : (tensor<3xf64>) -> tensor<3xf64>' in text
    module = tt.load_mlir(text)
    np.testing.assert_allclose(module.run(x)[0], expected(np.exp(x), 0.5), rtol=1e-15)
    FORWARDED.clear()
    out = Program(cf.module).run(cf.name, [x])[0]  # exp's result dies at the custom op
    assert FORWARDED == [{0: 0}]
    np.testing.assert_allclose(out, expected(np.exp(x), 0.5), rtol=1e-15)


def test_gradient_eager_and_graph(ops):
    x = tt.constant([-2.0, 0.5, 3.0], tt.float64)
    with tt.GradientTape() as tape:
        tape.watch(x)
        y = tt.math.reduce_sum(ops["softsign"](x, alpha=2.0))
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), 1 / (1 + 2 * np.abs(x.numpy())) ** 2, rtol=1e-12)
    for use_function in (False, True):
        report = tt.gradcheck.compare_numerical_and_autodiff_gradients(
            lambda v: ops["softsign"](v, alpha=2.0), [np.array([-2.0, 0.5, 3.0])], use_function=use_function,
            abs_error=1e-6)
        assert report.ok  # (a mismatch raises AssertionError listing it)


def test_not_differentiable_op_has_no_gradient(ops):
    x = tt.constant([[1.0, 2.0]])
    with tt.GradientTape() as tape:
        tape.watch(x)
        s, _ = ops["split"](x, parts=1)
    assert tape.gradient(s, x) is None


def test_xla_lowering(ops):
    jitted = tt.function(lambda v: ops["softsign"](v, alpha=2.0), jit_compile=True)
    x = np.array([-2.0, 0.5, 3.0], np.float32)
    np.testing.assert_allclose(jitted(tt.constant(x)).numpy(), expected(x, np.float32(2.0)), rtol=1e-6)


def test_stateful_op_eager_and_traced(ops):
    v = tt.Variable(np.zeros(2))
    ops["bump"](v, by=2.0)
    np.testing.assert_array_equal(v.numpy(), [2.0, 2.0])

    @tt.function
    def step():
        ops["bump"](v, by=0.5)
        return v.read_value()

    np.testing.assert_array_equal(step().numpy(), [2.5, 2.5])
    np.testing.assert_array_equal(step().numpy(), [3.0, 3.0])


def test_shape_rule_and_call_errors(ops):
    with pytest.raises(InvalidArgumentError, match="must be a float tensor, got int32"):
        ops["softsign"](tt.constant([1, 2]))
    with pytest.raises(InvalidArgumentError, match="takes 1 inputs"):
        ops["softsign"](tt.constant([1.0]), tt.constant([1.0]))
    with pytest.raises(InvalidArgumentError, match="missing attribute 'parts'"):
        ops["split"](tt.constant([[1.0]]))


@pytest.mark.parametrize("kwargs, error, match", [
    (dict(name="TestSoftsign"), AlreadyExistsError, "already registered"),
    (dict(name="lower_case"), InvalidArgumentError, "CamelCase"),
    (dict(name="TestNoKernel", kernel=None), InvalidArgumentError, "kernel"),
    (dict(name="TestNoShape", shape_fn=None), InvalidArgumentError, "shape_fn"),
    (dict(name="TestBadInput", inputs=["name"]), InvalidArgumentError, "not usable"),
    (dict(name="TestTwice", inputs=["x", "x"]), InvalidArgumentError, "used twice"),
    (dict(name="TestReqAttr", attrs={"n": None}), InvalidArgumentError, "needs a kind"),
])
def test_registration_errors(ops, kwargs, error, match):
    args = dict(inputs=["x"], outputs=["y"], kernel=softsign_kernel, shape_fn=softsign_shape)
    args.update(kwargs)
    name = args.pop("name")
    with pytest.raises(error, match=match):
        register_op(name, **args)
    assert f"tf.{name}" not in REGISTRY or name == "TestSoftsign"


def test_unregister_refuses_library_ops():
    with pytest.raises(InvalidArgumentError, match="not a user-defined op"):
        unregister_op("AddV2")
    assert "tf.AddV2" in REGISTRY
