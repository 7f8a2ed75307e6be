"""Splat constants stay splat: ``dense<0.0> : tensor<4096x4096xf32>`` is one element in the IR, a
read-only broadcast view for kernels, and the allocation guard refuses an absurd one when it runs."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tinytf as tt
from tinytf import mlir
from tinytf.errors import ResourceExhaustedError
from tinytf.framework import attributes, kernel
from tinytf.framework.attributes import dense_to_numpy, is_splat, numpy_to_dense
from tinytf.passes.constant_fold import ConstantFold
from tinytf.passes.shape_inference import ShapeInference

HUGE = "1024x1024x1024x1024"  # 2**40 f32 elements: 4 TiB if it were ever expanded


def returning(shape, literal="0.0", element="f32"):
    t = f"tensor<{shape}x{element}>"
    return (f"func.func @main() -> {t} {{\n"
            f'  %0 = "tf.Const"() <{{value = dense<{literal}> : {t}}}> : () -> {t}\n'
            f"  return %0 : {t}\n}}\n")


def const_attr(module):
    (op,) = [op for op in module.walk() if op.name == "tf.Const"]
    return op, op.properties["value"]


@pytest.mark.parametrize("literal, element, printed, value, dtype", [
    ("0.0", "f32", "dense<0.000000e+00>", 0.0, np.float32),
    ("-2.5", "f64", "dense<-2.500000e+00>", -2.5, np.float64),
    ("0x7FC00000", "f32", "dense<0x7FC00000>", np.nan, np.float32),
    ('"0x0000803F"', "f32", "dense<1.000000e+00>", 1.0, np.float32),
    ("true", "i1", "dense<true>", True, np.bool_),
    ("-128", "i8", "dense<-128>", -128, np.int8),
    ("255", "ui8", "dense<255>", 255, np.uint8),
    ("7", "i64", "dense<7>", 7, np.int64),
    ("(1.0, -2.0)", "complex<f32>", "dense<(1.000000e+00,-2.000000e+00)>", 1 - 2j, np.complex64),
])
def test_splat_is_stored_as_one_element_and_prints_as_a_splat(literal, element, printed, value, dtype):
    module = mlir.parse(returning("3x4", literal, element))
    op, attr = const_attr(module)
    assert is_splat(attr) and len(attr.data.data) == attr.type.element_type.compile_time_size
    text = mlir.print(module)
    assert f"value = {printed} : tensor<3x4x{element}>" in text
    assert mlir.print(mlir.parse(text)) == text  # the splat form round-trips
    array = op.attr_values()["value"]
    assert array.shape == (3, 4) and array.strides == (0, 0) and array.dtype == dtype
    np.testing.assert_array_equal(array, np.full((3, 4), value, dtype))


def test_absurd_splat_parses_and_prints_as_written():
    module = mlir.parse(returning(HUGE))
    mlir.verify(module)  # well formed: only running it would need 4 TiB
    _, attr = const_attr(module)
    assert attr.data.data == b"\x00\x00\x00\x00"
    assert f"<{{value = dense<0.000000e+00> : tensor<{HUGE}xf32>}}>" in mlir.print(module)
    assert f"dense<0.000000e+00> : tensor<{HUGE}xf32>" in mlir.print(module, generic=True)


def test_hex_splat_and_full_hex_both_parse():
    splat = const_attr(mlir.parse(returning("2x2", '"0x00002041"')))[1]
    full = const_attr(mlir.parse(returning("2", '"0x0000204100000000"')))[1]
    assert is_splat(splat) and not is_splat(full)
    np.testing.assert_array_equal(dense_to_numpy(splat), np.full((2, 2), 10.0, np.float32))
    np.testing.assert_array_equal(dense_to_numpy(full), np.array([10.0, 0.0], np.float32))


def test_kernels_see_a_read_only_broadcast_view():
    op, _ = const_attr(mlir.parse(returning("4096x4096", "2.5")))
    value = op.attr_values()["value"]
    assert value.shape == (4096, 4096) and value.strides == (0, 0) and value.dtype == np.float32
    assert not value.flags.writeable
    with pytest.raises(ValueError, match="WRITEABLE"):
        value.flags.writeable = True  # a view of immutable bytes: it cannot be made writable either
    assert value[4095, 17] == 2.5


def test_run_of_an_absurd_splat_is_refused_by_the_allocation_guard():
    module = tt.load_mlir(returning(HUGE))  # parse and verify succeed
    with pytest.raises(ResourceExhaustedError, match=r"tf.Const: output of shape \[1024, 1024, 1024, 1024\] "
                                                     r"\(4398046511104 bytes\) exceeds the allocation limit"):
        module.run()


def test_xla_run_of_an_absurd_splat_is_refused_too():
    module = tt.load_mlir(returning(HUGE))
    with pytest.raises(ResourceExhaustedError, match=r"tf.Const: output of shape \[1024, 1024, 1024, 1024\]"):
        module.run(backend="xla")


def test_the_guard_counts_every_element_of_a_splat():
    op, _ = const_attr(mlir.parse(returning("4096x4096", "1.0")))
    previous = kernel.set_allocation_limit(4096 * 4096 * 4)  # exactly the splat's size: allowed
    try:
        assert op.attr_values()["value"].shape == (4096, 4096)
        kernel.set_allocation_limit(4096 * 4096 * 4 - 1)
        with pytest.raises(ResourceExhaustedError, match=r"\(67108864 bytes\) exceeds the allocation limit of "
                                                         r"67108863 bytes"):
            op.attr_values()
        with attributes.verifying():  # checking the attribute is well formed does not materialise it
            assert op.attr_values()["value"].shape == (4096, 4096)
        mlir.verify(op.parent_op().parent_op())
    finally:
        kernel.set_allocation_limit(previous)


def test_graph_run_reads_the_splat_and_never_writes_it():
    text = ("func.func @main(%x: tensor<512x512xf32>) -> (tensor<512x512xf32>, tensor<512x512xf32>) {\n"
            '  %c = "tf.Const"() <{value = dense<1.5> : tensor<512x512xf32>}> : () -> tensor<512x512xf32>\n'
            '  %n = "tf.Neg"(%c) : (tensor<512x512xf32>) -> tensor<512x512xf32>\n'
            '  %s = "tf.AddV2"(%n, %x) : (tensor<512x512xf32>, tensor<512x512xf32>) -> tensor<512x512xf32>\n'
            "  return %s, %c : tensor<512x512xf32>, tensor<512x512xf32>\n}\n")
    module = tt.load_mlir(text)
    x = np.arange(512 * 512, dtype=np.float32).reshape(512, 512)
    for _ in range(2):  # a second run sees the same constant: nothing wrote into it
        total, const = module.run(x)
        np.testing.assert_array_equal(total, x - 1.5)
        np.testing.assert_array_equal(const, np.full((512, 512), 1.5, np.float32))
        assert not const.flags.writeable


def _fold(text):
    module = mlir.parse(text)
    ConstantFold().apply(mlir.context(), module)
    return module


def test_constant_folding_reads_splats():
    t = "tensor<64x64xf32>"
    module = _fold(f"func.func @f() -> {t} {{\n"
                   f'  %a = "tf.Const"() <{{value = dense<2.0> : {t}}}> : () -> {t}\n'
                   f'  %b = "tf.Const"() <{{value = dense<0.25> : {t}}}> : () -> {t}\n'
                   f'  %r = "tf.Mul"(%a, %b) : ({t}, {t}) -> {t}\n'
                   f"  func.return %r : {t}\n}}\n")
    op, _ = const_attr(module)
    np.testing.assert_array_equal(op.attr_values()["value"], np.full((64, 64), 0.5, np.float32))
    assert "dense<5.000000e-01> : tensor<64x64xf32>" in mlir.print(module)


def test_constant_folding_reduces_a_large_splat():
    t = "tensor<4096x4096xf32>"
    module = _fold(f"func.func @f() -> tensor<f32> {{\n"
                   f'  %a = "tf.Const"() <{{value = dense<1.0> : {t}}}> : () -> {t}\n'
                   '  %axes = "tf.Const"() <{value = dense<[0, 1]> : tensor<2xi32>}> : () -> tensor<2xi32>\n'
                   f'  %r = "tf.Sum"(%a, %axes) <{{keep_dims = false}}> : ({t}, tensor<2xi32>) -> tensor<f32>\n'
                   "  func.return %r : tensor<f32>\n}\n")
    op, _ = const_attr(module)
    assert op.attr_values()["value"] == np.float32(4096 * 4096)


def test_constant_folding_leaves_an_absurd_splat_for_run_time():
    t = f"tensor<{HUGE}xf32>"
    text = (f"func.func @main() -> tensor<f32> {{\n"
            f'  %a = "tf.Const"() <{{value = dense<1.0> : {t}}}> : () -> {t}\n'
            '  %axes = "tf.Const"() <{value = dense<[0, 1, 2, 3]> : tensor<4xi32>}> : () -> tensor<4xi32>\n'
            f'  %r = "tf.Sum"(%a, %axes) <{{keep_dims = false}}> : ({t}, tensor<4xi32>) -> tensor<f32>\n'
            "  func.return %r : tensor<f32>\n}\n")
    module = _fold(text)
    assert [op.name for op in module.walk() if op.name.startswith("tf.")] == ["tf.Const", "tf.Const", "tf.Sum"]
    with pytest.raises(ResourceExhaustedError, match=r"tf.Const: output of shape \[1024, 1024, 1024, 1024\]"):
        tt.load_mlir(mlir.print(module)).run()


def test_shape_inference_takes_an_absurd_splat_shape_from_its_type():
    t = f"tensor<{HUGE}xf32>"
    module = mlir.parse(f"func.func @f() -> tensor<*xf32> {{\n"
                        f'  %a = "tf.Const"() <{{value = dense<1.0> : {t}}}> : () -> {t}\n'
                        f'  %r = "tf.AddV2"(%a, %a) : ({t}, {t}) -> tensor<*xf32>\n'
                        "  func.return %r : tensor<*xf32>\n}\n")
    ShapeInference().apply(mlir.context(), module)
    (add,) = [op for op in module.walk() if op.name == "tf.AddV2"]
    assert str(add.results[0].type) == t


def test_numpy_to_dense_keeps_a_broadcast_view_splat():
    view = np.broadcast_to(np.float32(3.0), (2048, 2048))
    attr = numpy_to_dense(view)
    assert is_splat(attr) and attr.data.data == np.float32(3.0).tobytes()
    np.testing.assert_array_equal(dense_to_numpy(attr), view)
    assert not is_splat(numpy_to_dense(np.full((2, 2), 3.0, np.float32)))  # an ordinary array: its bytes
    flags = numpy_to_dense(np.broadcast_to(np.array([True]), (3, 5)))
    assert is_splat(flags) and flags.data.data == b"\x01"
    np.testing.assert_array_equal(dense_to_numpy(flags), np.ones((3, 5), np.bool_))


ELEMENTS = {"f32": np.float32, "f64": np.float64, "i8": np.int8, "i32": np.int32, "ui8": np.uint8, "i1": np.bool_}


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.sampled_from(sorted(ELEMENTS)), st.lists(st.integers(1, 9), min_size=1, max_size=4),
       st.integers(-100, 100))
def test_splat_round_trip_equals_numpy_full(element, dims, number):
    dtype = ELEMENTS[element]
    if element == "i1":
        literal, value = ("true", True) if number % 2 else ("false", False)
    elif element == "ui8":
        literal, value = str(abs(number)), abs(number)
    elif element.startswith("f"):
        literal, value = f"{number / 8}", number / 8
    else:
        literal, value = str(number), number
    shape = "x".join(map(str, dims))
    text = mlir.print(mlir.parse(returning(shape, literal, element)))
    op, attr = const_attr(mlir.parse(text))
    assert is_splat(attr) == (np.prod(dims) > 1)
    np.testing.assert_array_equal(op.attr_values()["value"], np.full(tuple(dims), value, dtype))
