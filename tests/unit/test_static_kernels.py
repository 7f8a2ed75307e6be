"""Kernels an op class gives static plans for operands of known types (``kernel_for``, ``compute_for``;
tinytf/runtime/static_plan.py): a plan specialized to its arguments' types runs them, and every value equals
the general runner's bit for bit."""
from __future__ import annotations

import numpy as np
import pytest

from tinytf import mlir
from tinytf.ops.conv import Conv2D
from tinytf.ops.conv_kernels import small_conv_kernel
from tinytf.runtime import specialized_plan
from tinytf.runtime.executor import Program


def _runs(text: str, args: list, monkeypatch, name="main", times=3) -> tuple[list, list, Program]:
    """(outputs of the specialized plans, of the general plans, the program that specialized)."""
    program = Program(mlir.parse(text))
    fast = [program.run(name, list(args)) for _ in range(times)][-1]
    with monkeypatch.context() as m:
        m.setattr(specialized_plan.Specializer, "plan_for", lambda *a, **k: None)
        reference = Program(mlir.parse(text)).run(name, list(args))
    return fast, reference, program


def _same(got: list, want: list):
    assert len(got) == len(want)
    for g, w in zip(got, want):
        g, w = np.asarray(g), np.asarray(w)
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_array_equal(g, w)


def _kernels(program: Program, name: str) -> list[str]:
    """The qualified names of the kernels of ``name``'s specialized plan."""
    plan, = [p for p in program.specializer.tables[name].values() if hasattr(p, "source")]
    namespace = plan.fast.__globals__
    return [getattr(namespace[k], "__qualname__", "") for k in namespace if k.startswith("k")]


SLICES = """
func.func @main(%x: tensor<*xf32>) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>) {
  %b0 = "tf.Const"() <{value = dense<[0, 2]> : tensor<2xi32>}> : () -> tensor<2xi32>
  %e0 = "tf.Const"() <{value = dense<[0, 5]> : tensor<2xi32>}> : () -> tensor<2xi32>
  %s0 = "tf.Const"() <{value = dense<[1, 1]> : tensor<2xi32>}> : () -> tensor<2xi32>
  %0 = "tf.StridedSlice"(%x, %b0, %e0, %s0) <{begin_mask = 1 : i64, ellipsis_mask = 0 : i64, end_mask = 1 : i64, new_axis_mask = 0 : i64, shrink_axis_mask = 0 : i64}> : (tensor<*xf32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>) -> tensor<*xf32>
  %b1 = "tf.Const"() <{value = dense<[-1, 0, 0]> : tensor<3xi32>}> : () -> tensor<3xi32>
  %e1 = "tf.Const"() <{value = dense<[0, 0, -8]> : tensor<3xi32>}> : () -> tensor<3xi32>
  %s1 = "tf.Const"() <{value = dense<[1, 1, -2]> : tensor<3xi32>}> : () -> tensor<3xi32>
  %1 = "tf.StridedSlice"(%x, %b1, %e1, %s1) <{begin_mask = 4 : i64, ellipsis_mask = 0 : i64, end_mask = 0 : i64, new_axis_mask = 2 : i64, shrink_axis_mask = 1 : i64}> : (tensor<*xf32>, tensor<3xi32>, tensor<3xi32>, tensor<3xi32>) -> tensor<*xf32>
  %b2 = "tf.Const"() <{value = dense<[0, 1]> : tensor<2xi32>}> : () -> tensor<2xi32>
  %e2 = "tf.Const"() <{value = dense<[0, 2]> : tensor<2xi32>}> : () -> tensor<2xi32>
  %s2 = "tf.Const"() <{value = dense<[1, 1]> : tensor<2xi32>}> : () -> tensor<2xi32>
  %2 = "tf.StridedSlice"(%x, %b2, %e2, %s2) <{begin_mask = 0 : i64, ellipsis_mask = 1 : i64, end_mask = 0 : i64, new_axis_mask = 0 : i64, shrink_axis_mask = 2 : i64}> : (tensor<*xf32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>) -> tensor<*xf32>
  %3 = "tf.Tanh"(%0) : (tensor<*xf32>) -> tensor<*xf32>
  return %0, %1, %2, %3 : tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>
}
"""


def test_strided_slices_of_constant_specs_run_their_static_kernel(monkeypatch):
    x = np.random.default_rng(0).standard_normal((3, 4, 9)).astype(np.float32)
    fast, reference, program = _runs(SLICES, [x], monkeypatch)
    _same(fast, reference)
    _same(fast, [x[:, 2:5], x[-1, None, ::-2], x[..., 1], np.tanh(x[:, 2:5])])
    assert sum("static_slice" in k for k in _kernels(program, "main")) == 3


def test_a_strided_slice_out_of_range_still_fails_as_the_general_runner(monkeypatch):
    text = SLICES.replace("dense<[-1, 0, 0]>", "dense<[7, 0, 0]>")
    program = Program(mlir.parse(text))
    x = np.zeros((3, 4, 9), np.float32)
    for _ in range(3):
        with pytest.raises(Exception, match="out of bounds"):
            program.run("main", [x])


LIST = """
func.func @main(%x: tensor<?x2x3xf32>, %i: tensor<i32>, %j: tensor<i32>) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>) {
  %eshape = "tf.Const"() <{value = dense<[2, 3]> : tensor<2xi32>}> : () -> tensor<2xi32>
  %n = "tf.Const"() <{value = dense<5> : tensor<i32>}> : () -> tensor<i32>
  %l = "tf.TensorListFromTensor"(%x, %eshape) : (tensor<?x2x3xf32>, tensor<2xi32>) -> tensor<!tf_type.variant<tensor<2x3xf32>>>
  %r = "tf.TensorListReserve"(%eshape, %n) : (tensor<2xi32>, tensor<i32>) -> tensor<!tf_type.variant<tensor<2x3xf32>>>
  %a = "tf.TensorListGetItem"(%l, %i, %eshape) : (tensor<!tf_type.variant<tensor<2x3xf32>>>, tensor<i32>, tensor<2xi32>) -> tensor<*xf32>
  %b = "tf.Tanh"(%a) : (tensor<*xf32>) -> tensor<*xf32>
  %r2 = "tf.TensorListSetItem"(%r, %j, %b) : (tensor<!tf_type.variant<tensor<2x3xf32>>>, tensor<i32>, tensor<*xf32>) -> tensor<!tf_type.variant<tensor<2x3xf32>>>
  %c = "tf.TensorListGetItem"(%r2, %j, %eshape) : (tensor<!tf_type.variant<tensor<2x3xf32>>>, tensor<i32>, tensor<2xi32>) -> tensor<*xf32>
  %d = "tf.TensorListGetItem"(%r2, %i, %eshape) : (tensor<!tf_type.variant<tensor<2x3xf32>>>, tensor<i32>, tensor<2xi32>) -> tensor<*xf32>
  return %a, %c, %d : tensor<*xf32>, tensor<*xf32>, tensor<*xf32>
}
"""


@pytest.mark.parametrize("i,j", [(1, 3), (2, 2)])
def test_list_items_set_and_got_by_static_kernels(monkeypatch, i, j):
    x = np.random.default_rng(1).standard_normal((4, 2, 3)).astype(np.float32)
    args = [x, np.asarray(i, np.int32), np.asarray(j, np.int32)]
    fast, reference, program = _runs(LIST, args, monkeypatch)
    _same(fast, reference)
    _same(fast, [x[i], np.tanh(x[i]), np.tanh(x[i]) if i == j else np.zeros((2, 3), np.float32)])
    names = _kernels(program, "main")
    assert sum(".get" in k for k in names) == 3 and sum(".set_item" in k for k in names) == 1


@pytest.mark.parametrize("i,j,message", [(4, 0, "Trying to access element 4"), (0, 5, "Trying to modify element 5"),
                                         (-1, 0, "Trying to access element -1")])
def test_list_items_out_of_range_fail_as_the_general_runner(i, j, message):
    program = Program(mlir.parse(LIST))
    x = np.zeros((4, 2, 3), np.float32)
    program.run("main", [x, np.asarray(0, np.int32), np.asarray(0, np.int32)])
    program.run("main", [x, np.asarray(0, np.int32), np.asarray(0, np.int32)])
    with pytest.raises(Exception, match=message):
        program.run("main", [x, np.asarray(i, np.int32), np.asarray(j, np.int32)])


CONV = """
func.func @main(%x: tensor<*xf32>, %w: tensor<*xf32>) -> tensor<*xf32> {
  %0 = "tf.Conv2D"(%x, %w) <{data_format = "NHWC", dilations = DIL, explicit_paddings = PADS, padding = "PADDING", strides = STRIDES, use_cudnn_on_gpu = true}> : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}
"""

CONVS = [  # (input, filter, padding, strides, dilations, explicit paddings)
    ((2, 8, 8, 4), (3, 3, 4, 4), "SAME", (1, 1, 1, 1), (1, 1, 1, 1), ()),
    ((1, 7, 9, 3), (3, 2, 3, 5), "VALID", (1, 1, 1, 1), (1, 1, 1, 1), ()),
    ((2, 9, 7, 2), (3, 3, 2, 3), "SAME", (1, 2, 3, 1), (1, 1, 1, 1), ()),
    ((1, 9, 9, 2), (2, 3, 2, 2), "SAME", (1, 1, 1, 1), (1, 2, 2, 1), ()),
    ((1, 5, 6, 3), (3, 3, 3, 2), "EXPLICIT", (1, 1, 2, 1), (1, 1, 1, 1), (0, 0, 2, 0, 1, 3, 0, 0)),
]


def _conv_text(padding, strides, dilations, explicit):
    ints = lambda v: f"[{', '.join(str(i) for i in v)}]"  # noqa: E731
    return CONV.replace("PADDING", padding).replace("STRIDES", ints(strides)).replace("DIL", ints(dilations)) \
        .replace("PADS", ints(explicit))


@pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning")  # (the nan below)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("case", CONVS)
def test_small_convolutions_gather_their_columns(monkeypatch, case, dtype):
    x_shape, w_shape, *conv = case
    rng = np.random.default_rng(2)
    x, w = rng.standard_normal(x_shape).astype(dtype), rng.standard_normal(w_shape).astype(dtype)
    x[0, 0, 0, 0], x[-1, -1, -1, -1] = np.inf, np.nan  # (a padding zero is +0.0, as np.zeros's)
    fast, reference, program = _runs(_conv_text(*conv), [x, w], monkeypatch)
    _same(fast, reference)
    assert any("small_conv_kernel" in k for k in _kernels(program, "main"))


def test_small_conv_kernel_reads_views_and_refuses_what_it_cannot():
    attrs = dict(strides=(1, 1, 1, 1), padding="SAME", explicit_paddings=(), data_format="NHWC",
                 dilations=(1, 1, 1, 1), use_cudnn_on_gpu=True)
    x = np.random.default_rng(3).standard_normal((2, 8, 8, 8)).astype(np.float32)[..., ::2]  # not contiguous
    w = np.random.default_rng(4).standard_normal((3, 3, 4, 4)).astype(np.float32)
    run, _ = small_conv_kernel(Conv2D.window(x.shape, w.shape, attrs), x.dtype)
    np.testing.assert_array_equal(run(x, w), Conv2D.compute(np, x, w, **attrs))
    window = Conv2D.window
    assert small_conv_kernel(window((1, 8, 8, 4), (1, 1, 4, 4), attrs), np.dtype(np.float32)) is None  # a matmul
    assert small_conv_kernel(window((1, 8, 8, 4), (3, 3, 4, 4), attrs), np.dtype(np.float16)) is None
    assert small_conv_kernel(window((1, 8, 8, 4), (3, 3, 2, 4), attrs), np.dtype(np.float32)) is None  # groups
    assert small_conv_kernel(window((8, 64, 64, 8), (3, 3, 8, 8), attrs), np.dtype(np.float32)) is None  # large
    assert small_conv_kernel(window((1, 8, 8, 64), (3, 3, 64, 8), attrs), np.dtype(np.float32)) is None  # wide
    assert small_conv_kernel(window((1, 64, 64, 3), (3, 3, 3, 8), attrs), np.dtype(np.float32)) is not None


FUSED = """
func.func @main(%a: tensor<*xf32>, %b: tensor<*xf32>, %c: tensor<*xf32>) -> tensor<*xf32> {
  %0 = "tf._FusedMatMul"(%a, %b, %c) <{epsilon = 0.0001 : f32, fused_ops = OPS, leakyrelu_alpha = 0.2 : f32, num_args = 1 : i64, transpose_a = TA, transpose_b = false}> : (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}
"""


@pytest.mark.parametrize("ops", ['["BiasAdd"]', '["BiasAdd", "Relu"]', '["BiasAdd", "Elu"]', '["BiasAdd", "LeakyRelu"]'])
@pytest.mark.parametrize("transpose_a", [False, True])
def test_fused_matmul_for_checked_operands(monkeypatch, ops, transpose_a):
    rng = np.random.default_rng(5)
    a = rng.standard_normal((4, 3) if transpose_a else (3, 4)).astype(np.float32)
    b, c = rng.standard_normal((4, 6)).astype(np.float32), rng.standard_normal(6).astype(np.float32)
    text = FUSED.replace("OPS", ops).replace("TA", str(transpose_a).lower())
    fast, reference, program = _runs(text, [a, b, c], monkeypatch)
    _same(fast, reference)
    assert any("compute_for" in k for k in _kernels(program, "main"))


FUSED_CONV = """
func.func @main(%x: tensor<*xf32>, %w: tensor<*xf32>, %b: tensor<*xf32>) -> tensor<*xf32> {
  %0 = "tf.OP"(%x, %w, %b) <{data_format = "NHWC", dilations = [1, 1, 1, 1], epsilon = 0.0001 : f32, explicit_paddings = [], fused_ops = ["BiasAdd", "Relu"], leakyrelu_alpha = 0.2 : f32, num_args = 1 : i64, padding = "SAME", strides = [1, 2, 2, 1], use_cudnn_on_gpu = true}> : (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}
"""


@pytest.mark.parametrize("op, x_shape, w_shape", [
    ("_FusedConv2D", (2, 8, 8, 4), (3, 3, 4, 5)),  # small: Conv2D's one-gather kernel
    ("_FusedConv2D", (1, 40, 40, 32), (3, 3, 32, 8)),  # larger: np_conv with its window worked out once
    ("_FusedDepthwiseConv2dNative", (2, 9, 9, 6), (3, 3, 6, 1)),
])
def test_fused_convolutions_for_checked_operands(monkeypatch, op, x_shape, w_shape):
    rng = np.random.default_rng(6)
    x, w = rng.standard_normal(x_shape).astype(np.float32), rng.standard_normal(w_shape).astype(np.float32)
    b = rng.standard_normal(w_shape[3] * (x_shape[3] if op.endswith("Native") else 1)).astype(np.float32)
    fast, reference, program = _runs(FUSED_CONV.replace("OP", op), [x, w, b], monkeypatch)
    _same(fast, reference)
    assert any("kernel_for" in k for k in _kernels(program, "main"))


GATES = """
func.func @main(%x: tensor<*xf32>, %b: tensor<*xf32>, %i: tensor<*xi32>, %n: tensor<*xi32>, %p: tensor<*xi1>) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xi32>, tensor<*xi1>, tensor<*xi1>, tensor<*xi1>, tensor<*xi32>, tensor<*xi32>, tensor<*xi1>) {
  %one = "tf.Const"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
  %0 = "tf.BiasAdd"(%x, %b) <{data_format = "NHWC"}> : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  %1:3 = "tf.Split"(%one, %0) <{num_split = 3 : i64}> : (tensor<i32>, tensor<*xf32>) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>)
  %2 = "tf.Sigmoid"(%1#0) : (tensor<*xf32>) -> tensor<*xf32>
  %3 = "tf.AddV2"(%i, %one) : (tensor<*xi32>, tensor<i32>) -> tensor<*xi32>
  %4 = "tf.Less"(%3, %n) : (tensor<*xi32>, tensor<*xi32>) -> tensor<*xi1>
  %5 = "tf.LogicalAnd"(%4, %p) : (tensor<*xi1>, tensor<*xi1>) -> tensor<*xi1>
  %6 = "tf.Less"(%1#1, %1#2) : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xi1>
  %7 = "tf.Sub"(%i, %n) : (tensor<*xi32>, tensor<*xi32>) -> tensor<*xi32>
  %8 = "tf.Mul"(%i, %n) : (tensor<*xi32>, tensor<*xi32>) -> tensor<*xi32>
  %9 = "tf.GreaterEqual"(%i, %n) : (tensor<*xi32>, tensor<*xi32>) -> tensor<*xi1>
  return %0, %1#1, %1#2, %2, %3, %4, %5, %6, %7, %8, %9 : tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xi32>, tensor<*xi1>, tensor<*xi1>, tensor<*xi1>, tensor<*xi32>, tensor<*xi32>, tensor<*xi1>
}
"""


@pytest.mark.parametrize("scalars", [True, False])
def test_gates_and_a_loop_counter_run_bare_ufuncs_and_views(monkeypatch, scalars):
    rng = np.random.default_rng(6)
    x = (rng.standard_normal((2, 12)) * 60).astype(np.float32)  # (exp overflows: sigmoid gives exactly 0)
    b = rng.standard_normal(12).astype(np.float32)
    shape = () if scalars else (3,)
    i, n = (np.asarray(rng.integers(-5, 5, shape), np.int32) for _ in range(2))
    i.reshape(-1)[0] = np.iinfo(np.int32).max  # (wraps, as numpy's add does)
    p = np.asarray(rng.integers(0, 2, shape), bool)
    fast, reference, program = _runs(GATES, [x, b, i, n, p], monkeypatch)
    _same(fast, reference)
    for got, want in zip(fast, reference):
        assert type(got) is type(want)  # (a scalar stays the numpy scalar the general runner gives)
    assert fast[3].min() == 0.0
    names = _kernels(program, "main")
    assert sum(k in ("add", "less", "logical_and", "subtract", "multiply", "greater_equal") for k in names) == 7
    assert any("Split.kernel_for" in k for k in names) and any("BiasAdd.kernel_for" in k for k in names)


def test_sigmoid_written_into_a_buffer_is_its_compute():
    from tinytf.ops.transcendental import Sigmoid

    rng = np.random.default_rng(7)
    for dtype in (np.float16, np.float32, np.float64):
        x = (rng.standard_normal(500) * 400).astype(dtype)
        x[:4] = [np.inf, -np.inf, np.nan, -0.0]
        out = np.empty_like(x)
        Sigmoid.compute_into(out, x)
        np.testing.assert_array_equal(out, Sigmoid.compute(np, x))
        Sigmoid.compute_into(x, x)  # (in place: the forwarded buffer)
        np.testing.assert_array_equal(x, out)


@pytest.mark.parametrize("shape,data_format", [((2, 3, 4, 5), "NCHW"), ((2, 3, 4, 5), "NHWC"), ((2, 3, 4), "NCHW")])
def test_bias_add_kernel_for_each_layout_is_its_compute(shape, data_format):
    from tinytf.ops.nn import BiasAdd

    rng = np.random.default_rng(8)
    x = rng.standard_normal(shape).astype(np.float32)
    channels = shape[1] if data_format == "NCHW" and len(shape) > 2 else shape[-1]
    b = rng.standard_normal(channels).astype(np.float32)
    kernel, _ = BiasAdd.kernel_for([(shape, x.dtype), ((channels,), b.dtype)], {}, data_format=data_format)
    np.testing.assert_array_equal(kernel(x, b), BiasAdd.compute(np, x, b, data_format=data_format))


STACKS = """
func.func @main(%x: tensor<?x2x3xf32>, %j: tensor<i32>) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>) {
  %eshape = "tf.Const"() <{value = dense<[-1, 3]> : tensor<2xi32>}> : () -> tensor<2xi32>
  %full = "tf.Const"() <{value = dense<[2, 3]> : tensor<2xi32>}> : () -> tensor<2xi32>
  %n = "tf.Const"() <{value = dense<4> : tensor<i32>}> : () -> tensor<i32>
  %l = "tf.TensorListFromTensor"(%x, %eshape) : (tensor<?x2x3xf32>, tensor<2xi32>) -> tensor<!tf_type.variant<tensor<2x3xf32>>>
  %r = "tf.TensorListReserve"(%full, %n) : (tensor<2xi32>, tensor<i32>) -> tensor<!tf_type.variant<tensor<2x3xf32>>>
  %a = "tf.TensorListGetItem"(%l, %j, %full) : (tensor<!tf_type.variant<tensor<2x3xf32>>>, tensor<i32>, tensor<2xi32>) -> tensor<*xf32>
  %r2 = "tf.TensorListSetItem"(%r, %j, %a) : (tensor<!tf_type.variant<tensor<2x3xf32>>>, tensor<i32>, tensor<*xf32>) -> tensor<!tf_type.variant<tensor<2x3xf32>>>
  %0 = "tf.TensorListStack"(%l, %full) <{num_elements = NUM : i64}> : (tensor<!tf_type.variant<tensor<2x3xf32>>>, tensor<2xi32>) -> tensor<*xf32>
  %1 = "tf.TensorListStack"(%r2, %eshape) <{num_elements = 4 : i64}> : (tensor<!tf_type.variant<tensor<2x3xf32>>>, tensor<2xi32>) -> tensor<*xf32>
  %2 = "tf.TensorListStack"(%r, %full) <{num_elements = -1 : i64}> : (tensor<!tf_type.variant<tensor<2x3xf32>>>, tensor<2xi32>) -> tensor<*xf32>
  return %0, %1, %2 : tensor<*xf32>, tensor<*xf32>, tensor<*xf32>
}
"""


@pytest.mark.parametrize("num", [-1, 4])
def test_lists_made_and_stacked_by_static_kernels(monkeypatch, num):
    x = np.random.default_rng(9).standard_normal((4, 2, 3)).astype(np.float32)
    fast, reference, program = _runs(STACKS.replace("NUM", str(num)), [x, np.asarray(1, np.int32)], monkeypatch)
    _same(fast, reference)
    partly = np.zeros_like(x)
    partly[1] = x[1]
    _same(fast, [x, partly, np.zeros_like(x)])
    names = _kernels(program, "main")
    # (a stack of an unknown number of elements has no static type: the general runner)
    assert sum("stack_items" in k for k in names) == (2 if num == 4 else 1)
    assert any("from_tensor" in k for k in names) and any("reserve_kernel" in k for k in names)
    assert program.run("main", [x, np.asarray(1, np.int32)])[1] is not fast[1]  # (a new array each call)


def test_a_stack_of_the_wrong_length_fails_as_the_general_runner():
    program = Program(mlir.parse(STACKS.replace("NUM", "5")))
    x = np.zeros((4, 2, 3), np.float32)
    for _ in range(3):
        with pytest.raises(Exception, match="expected a list with 5 elements but got a list with 4"):
            program.run("main", [x, np.asarray(1, np.int32)])


def test_sigmoid_into_ignores_floating_point_errors_as_compute_and_only_there():
    from tinytf.ops.transcendental import Sigmoid

    x = np.asarray([-200.0, 200.0, 0.5], np.float32)  # exp overflows and underflows
    out = np.empty_like(x)
    with np.errstate(all="raise"):
        Sigmoid.compute_into(out, x)
        np.testing.assert_array_equal(out, np.asarray([0.0, 1.0, 1 / (1 + np.exp(np.float32(-0.5)))], np.float32))
        with pytest.raises(FloatingPointError):
            np.exp(x)  # (the setting around the kernel is back)


TRANSPOSE = """
func.func @main(%x: tensor<*xf32>) -> (tensor<*xf32>, tensor<*xf32>) {
  %p = "tf.Const"() <{value = dense<[1, -1, 0]> : tensor<3xi32>}> : () -> tensor<3xi32>
  %0 = "tf.Transpose"(%x, %p) : (tensor<*xf32>, tensor<3xi32>) -> tensor<*xf32>
  %1 = "tf.Tanh"(%0) : (tensor<*xf32>) -> tensor<*xf32>
  return %0, %1 : tensor<*xf32>, tensor<*xf32>
}
"""


def test_a_transpose_by_a_constant_permutation_checks_it_once(monkeypatch):
    x = np.random.default_rng(10).standard_normal((2, 3, 4)).astype(np.float32)
    fast, reference, program = _runs(TRANSPOSE, [x], monkeypatch)
    _same(fast, reference)
    _same(fast, [x.transpose(1, 2, 0), np.tanh(x.transpose(1, 2, 0))])
    assert any("Transpose.kernel_for" in k for k in _kernels(program, "main"))
