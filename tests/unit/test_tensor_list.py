"""TensorList ops (tinytf/ops/tensor_list*.py): TensorFlow's semantics in graph mode,
the same values under XLA (a list is one buffer there), TensorFlow's errors, and TensorFlow's gradient
rules. The values pinned here are what TensorFlow 2.21 gives for the same calls."""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

import tinytf as tt
from tinytf import mlir
from tinytf.errors import InvalidArgumentError
from tinytf.framework.op import REGISTRY, NotDifferentiable, has_trait
from tinytf.ops.op_functions import ops as tl  # the list ops' classes and functions, whichever module holds them
from tinytf.ops.tensor_list_values import ListSpec, TensorList

X = np.arange(12, dtype=np.float32).reshape(4, 3)


def run(fn, *args, backends=("graph", "xla")):
    """fn traced with tt.function, run on the graph executor and under XLA: the (equal) results."""
    results = []
    for backend in backends:
        out = tt.function(fn, jit_compile=backend == "xla")(*[tt.constant(a) for a in args])
        out = out if isinstance(out, list | tuple) else [out]
        results.append([np.asarray(o.numpy()) for o in out])
    for other in results[1:]:
        for a, b in zip(results[0], other):
            assert a.dtype == b.dtype and a.shape == b.shape
            np.testing.assert_allclose(a, b, rtol=1e-6)
    return results[0] if len(results[0]) > 1 else results[0][0]


def graph(fn, *args):
    return run(fn, *args, backends=("graph",))


# --- values ---------------------------------------------------------------------------------------

def test_reserve_set_stack_reads_unset_elements_as_zeros():
    def f(x):
        lst = tl.tensor_list_reserve([3], 4, tt.float32)
        lst = tl.tensor_list_set_item(lst, 2, x[0])
        lst = tl.tensor_list_set_item(lst, 0, x[3])
        return tl.tensor_list_stack(lst, tt.float32, num_elements=4)

    np.testing.assert_array_equal(run(f, X), [X[3], [0, 0, 0], X[0], [0, 0, 0]])


def test_from_tensor_get_item_and_length():
    def f(x):
        lst = tl.tensor_list_from_tensor(x, [3])
        return tl.tensor_list_get_item(lst, 2, tt.float32), tl.tensor_list_length(lst)

    item, n = run(f, X)
    np.testing.assert_array_equal(item, X[2])
    assert n == 4 and n.dtype == np.int32


def test_set_item_leaves_the_input_list_unchanged():
    def f(x):
        a = tl.tensor_list_from_tensor(x, [3])
        b = tl.tensor_list_set_item(a, 1, x[0] * 0.0 - 1.0)
        return tl.tensor_list_stack(a, tt.float32), tl.tensor_list_stack(b, tt.float32)

    a, b = run(f, X)
    np.testing.assert_array_equal(a, X)
    np.testing.assert_array_equal(b, np.concatenate([X[:1], -np.ones((1, 3)), X[2:]]).astype(np.float32))


def test_push_back_pop_back():
    def f(x):
        lst = tl.empty_tensor_list([3], tt.float32, max_num_elements=4)
        for i in range(3):
            lst = tl.tensor_list_push_back(lst, x[i])
        lst, last = tl.tensor_list_pop_back(lst, tt.float32)
        return last, tl.tensor_list_length(lst)

    last, n = run(f, X)
    np.testing.assert_array_equal(last, X[2])
    assert n == 2


def test_element_shape_as_tensorflow_gives_it():
    def f(x):
        partial = tl.tensor_list_reserve([None, 3], 2, tt.float32)
        unknown = tl.tensor_list_reserve(None, 2, tt.float32)
        return (tl.tensor_list_element_shape(partial, tt.int32), tl.tensor_list_element_shape(unknown, tt.int64),
                tl.tensor_list_element_shape(tl.tensor_list_from_tensor(x, [3]), tt.int32))

    partial, unknown, full = graph(f, X)
    np.testing.assert_array_equal(partial, [-1, 3])
    assert unknown.shape == () and unknown == -1 and unknown.dtype == np.int64
    np.testing.assert_array_equal(full, [3])


def test_resize_cuts_and_grows():
    def f(x):
        lst = tl.tensor_list_from_tensor(x, [3])
        return (tl.tensor_list_stack(tl.tensor_list_resize(lst, 2), tt.float32),
                tl.tensor_list_stack(tl.tensor_list_resize(lst, 6), tt.float32))

    short, long = run(f, X)
    np.testing.assert_array_equal(short, X[:2])
    np.testing.assert_array_equal(long, np.concatenate([X, np.zeros((2, 3), np.float32)]))


def test_set_item_resizes_when_asked():
    def f(x):
        lst = tl.tensor_list_reserve([3], 1, tt.float32)
        lst = tl.tensor_list_set_item(lst, 3, x[1], resize_if_index_out_of_bounds=True)
        return tl.tensor_list_stack(lst, tt.float32)

    np.testing.assert_array_equal(run(f, X), np.concatenate([np.zeros((3, 3), np.float32), X[1:2]]))


def test_split_and_concat_with_different_lengths():
    def f(x):
        lst = tl.tensor_list_split(x, [-1, 3], [1, 3, 0])
        first = tl.tensor_list_get_item(lst, 1, tt.float32, element_shape=[-1, 3])
        return first, tl.tensor_list_concat(lst, tt.float32, element_shape=[-1, 3])

    first, joined = graph(f, X)
    np.testing.assert_array_equal(first, X[1:])
    np.testing.assert_array_equal(joined, X)


def test_concat_v2_lengths_and_leading_dims_of_unset_elements():
    def f(x):
        lst = tl.tensor_list_reserve([None, 3], 3, tt.float32)
        lst = tl.tensor_list_set_item(lst, 1, x[:2])
        return list(tl.TensorListConcatV2.bind(lst, np.asarray([-1, 3], np.int32), np.asarray([1, 9, 2], np.int64),
                                               element_dtype=tt.float32))

    tensor, lengths = graph(f, X)
    np.testing.assert_array_equal(lengths, [1, 2, 2])
    np.testing.assert_array_equal(tensor, np.concatenate([np.zeros((1, 3)), X[:2], np.zeros((2, 3))]))


def test_equal_splits_and_concat_under_xla():
    def f(x):
        lst = tl.tensor_list_split(x, [2, 3], [2, 2])
        return tl.tensor_list_concat(lst, tt.float32, element_shape=[2, 3]), tl.tensor_list_get_item(
            lst, 1, tt.float32, element_shape=[2, 3])

    joined, second = run(f, X)
    np.testing.assert_array_equal(joined, X)
    np.testing.assert_array_equal(second, X[2:])


def test_gather_and_scatter():
    def f(x):
        lst = tl.tensor_list_scatter(x[:2], [3, 1], element_shape=[3])
        grown = tl.tensor_list_scatter(x[2:], [0, 5], input_handle=lst)
        return (tl.tensor_list_stack(lst, tt.float32), tl.tensor_list_gather(lst, [3, 0], tt.float32),
                tl.tensor_list_length(grown), tl.tensor_list_stack(grown, tt.float32))

    made, gathered, n, grown = run(f, X)
    np.testing.assert_array_equal(made, [[0, 0, 0], X[1], [0, 0, 0], X[0]])
    np.testing.assert_array_equal(gathered, [X[0], [0, 0, 0]])
    assert n == 6
    np.testing.assert_array_equal(grown, [X[2], X[1], [0, 0, 0], X[0], [0, 0, 0], X[3]])


def test_scatter_v2_with_num_elements():
    def f(x):
        lst = tl.TensorListScatterV2.bind(x[:1], np.asarray([1], np.int32), np.asarray([3], np.int32),
                                           np.asarray(3, np.int32))
        return tl.tensor_list_stack(lst, tt.float32)

    np.testing.assert_array_equal(run(f, X), [[0, 0, 0], X[0], [0, 0, 0]])


def test_a_list_carried_by_a_while_loop_in_graph_mode_and_under_xla():
    def f(x):
        def body(i, lst):
            return i + 1, tl.tensor_list_set_item(lst, i, x[i] * 2.0)

        _, lst = tt.while_loop(lambda i, lst: i < 4, body, [tt.constant(0), tl.tensor_list_reserve([3], 4, tt.float32)])
        return tl.tensor_list_stack(lst, tt.float32, num_elements=4)

    np.testing.assert_array_equal(run(f, X), X * 2)


def test_traced_list_type_names_its_element_and_round_trips():
    def f(x):
        return tl.tensor_list_stack(tl.tensor_list_from_tensor(x, [3]), tt.float32)

    cf = tt.function(f).get_concrete_function(tt.TensorSpec([4, 3], tt.float32))
    text = cf.mlir()
    assert "tensor<!tf_type.variant<tensor<3xf32>>>" in text
    again = mlir.print(mlir.parse(text))
    assert again == mlir.print(mlir.parse(again))
    np.testing.assert_array_equal(tt.load_mlir(again).run(X)[0], X)
    np.testing.assert_array_equal(tt.load_mlir(again).run(X, backend="xla")[0], X)


def test_run_time_value_is_an_immutable_scalar_variant():
    lst = tl.TensorListReserve.compute(np, np.asarray([2], np.int32), np.asarray(3, np.int32), element_dtype=tt.float32)
    assert isinstance(lst, TensorList) and lst.shape == () and lst.dtype is tt.variant
    assert lst.items == (None, None, None) and lst.element_shape == (2,)
    new = tl.TensorListSetItem.compute(np, lst, np.asarray(1, np.int32), np.ones(2, np.float32),
                                       resize_if_index_out_of_bounds=False)
    assert lst.items[1] is None and new.items[1] is not None and new.items[0] is None


def test_list_spec_type():
    assert str(ListSpec((2, None), tt.float32).to_type()) == "tensor<!tf_type.variant<tensor<2x?xf32>>>"


# --- TensorFlow's errors ----------------------------------------------------------------------------

def _raises(fn, match, *args, backends=("graph",)):
    for backend in backends:
        with pytest.raises(InvalidArgumentError, match=match):
            tt.function(fn, jit_compile=backend == "xla")(*[tt.constant(a) for a in args])


def test_get_item_out_of_range():
    _raises(lambda x: tl.tensor_list_get_item(tl.tensor_list_from_tensor(x, [3]), 4, tt.float32),
            "Trying to access element 4 in a list with 4 elements", X, backends=("graph", "xla"))


def test_set_item_out_of_range_without_resize():
    _raises(lambda x: tl.tensor_list_set_item(tl.tensor_list_from_tensor(x, [3]), 7, x[0]),
            "Trying to modify element 7 in a list with 4 elements", X)


def test_pop_from_an_empty_list():
    _raises(lambda x: tl.tensor_list_pop_back(tl.empty_tensor_list([3], tt.float32), tt.float32)[1],
            "Trying to pop from an empty list", X)


def test_push_into_a_full_list():
    def f(x):
        lst = tl.tensor_list_push_back(tl.empty_tensor_list([3], tt.float32, max_num_elements=1), x[0])
        return tl.tensor_list_stack(tl.tensor_list_push_back(lst, x[1]), tt.float32)

    _raises(f, "Tried to push item into a full list", X)


def test_incompatible_item_shape():
    _raises(lambda x: tl.tensor_list_stack(tl.tensor_list_set_item(tl.tensor_list_reserve([2], 2, tt.float32), 0,
                                                                   x[0]), tt.float32),
            "incompatible shape", X)


def test_stack_with_the_wrong_num_elements():
    _raises(lambda x: tl.tensor_list_stack(tl.tensor_list_from_tensor(x, [3]), tt.float32, num_elements=3),
            "expected a list with 3 elements but got a list with 4", X)


def test_read_of_an_unset_element_with_an_unknown_shape():
    _raises(lambda x: tl.tensor_list_get_item(tl.tensor_list_reserve(None, 2, tt.float32), 0, tt.float32),
            "element_shape is not fully defined", X)


def test_element_dtype_mismatch():
    _raises(lambda x: tl.tensor_list_get_item(tl.tensor_list_from_tensor(x, [3]), 0, tt.int32),
            "Invalid data types", X)


def test_split_lengths_must_use_the_whole_tensor():
    _raises(lambda x: tl.tensor_list_length(tl.tensor_list_split(x, [-1, 3], [1, 2])), "Unused values in tensor", X)


def test_under_xla_a_list_needs_its_size_at_compile_time():
    with pytest.raises(InvalidArgumentError, match="fixed tensor list size"):
        tt.function(lambda x: tl.tensor_list_length(tl.empty_tensor_list([3], tt.float32)), jit_compile=True)(
            tt.constant(X))


def test_lists_run_eagerly_as_in_a_function():
    x = np.arange(6, dtype=np.float32).reshape(3, 2)

    def f(x):
        items = tl.tensor_list_from_tensor(x, [2])
        items = tl.tensor_list_set_item(items, 1, tt.constant([9.0, 9.0]))
        return tl.tensor_list_stack(items, tt.float32), tl.tensor_list_length(items)

    eager = f(tt.constant(x))
    graph = tt.function(f)(tt.constant(x))
    want = np.array([[0, 1], [9, 9], [4, 5]], np.float32)
    for stacked, length in (eager, graph):
        np.testing.assert_array_equal(stacked.numpy(), want)
        assert int(length.numpy()) == 3
    reserved = tl.tensor_list_reserve([3], 2, tt.float32)
    assert reserved.dtype is tt.variant and tuple(reserved.shape) == ()


# --- TensorFlow's gradient rules -------------------------------------------------------------------
# The tape carries float tensors only, so each rule is called as the tape would call it: on the
# recorded op's inputs and outputs, inside a function, and chained by hand back to the tensor.

def _op(inputs, outputs, **attrs):
    return SimpleNamespace(inputs=inputs, outputs=outputs, attrs=attrs)


def test_get_item_and_from_tensor_gradients():
    w = np.random.default_rng(0).standard_normal(3).astype(np.float32)

    def f(x):
        lst = tl.tensor_list_from_tensor(x, [3])
        index = tt.constant(2)
        item = tl.TensorListGetItem.bind(lst, index, np.asarray([3], np.int32), element_dtype=tt.float32)
        dlist = tl.TensorListGetItem.grad(_op([lst, index, None], [item]), tt.constant(w))[0]
        return tl.TensorListFromTensor.grad(_op([x, None], [lst]), dlist)[0]

    expected = np.zeros((4, 3), np.float32)
    expected[2] = w
    np.testing.assert_array_equal(run(f, X), expected)


def test_set_item_and_stack_gradients():
    u = np.random.default_rng(1).standard_normal((4, 3)).astype(np.float32)

    def f(x):
        lst = tl.tensor_list_from_tensor(x, [3])
        index, item = tt.constant(1), x[3] * 2.0
        new = tl.TensorListSetItem.bind(lst, index, item)
        stacked = tl.tensor_list_stack(new, tt.float32)
        dnew = tl.TensorListStack.grad(_op([new, None], [stacked]), tt.constant(u))[0]
        dlst, _, ditem = tl.TensorListSetItem.grad(_op([lst, index, item], [new]), dnew)
        return tl.tensor_list_stack(dlst, tt.float32), ditem

    dlst, ditem = run(f, X)
    np.testing.assert_array_equal(ditem, u[1])
    np.testing.assert_array_equal(dlst, np.concatenate([u[:1], np.zeros((1, 3)), u[2:]]).astype(np.float32))


def test_push_back_and_pop_back_gradients():
    def f(x):
        lst = tl.tensor_list_push_back(tl.empty_tensor_list([3], tt.float32, max_num_elements=4), x[0])
        pushed = tl.TensorListPushBack.bind(lst, x[1])
        popped, last = tl.TensorListPopBack.bind(pushed, np.asarray([3], np.int32), element_dtype=tt.float32)
        dpushed = tl.TensorListPopBack.grad(_op([pushed, None], [popped, last]), None, tt.constant(X[2]))[0]
        dlst, dx1 = tl.TensorListPushBack.grad(_op([lst, x[1]], [pushed]), dpushed)
        return dx1, tl.tensor_list_length(dlst)

    dx1, n = graph(f, X)
    np.testing.assert_array_equal(dx1, X[2])
    assert n == 0


def test_gather_scatter_and_split_concat_gradients():
    u = np.random.default_rng(2).standard_normal((2, 3)).astype(np.float32)

    def f(x):
        lst = tl.tensor_list_from_tensor(x, [3])
        indices = tt.constant(np.asarray([3, 0], np.int32))
        picked = tl.TensorListGather.bind(lst, indices, np.asarray([3], np.int32), element_dtype=tt.float32)
        dlst = tl.TensorListGather.grad(_op([lst, indices, None], [picked]), tt.constant(u))[0]
        dx = tl.tensor_list_stack(dlst, tt.float32)
        pieces = tl.tensor_list_split(x, [-1, 3], [1, 3])
        joined, lengths = tl.TensorListConcatV2.bind(pieces, np.asarray([-1, 3], np.int32), np.zeros(0, np.int64),
                                                      element_dtype=tt.float32)
        dpieces = tl.TensorListConcatV2.grad(_op([pieces, None, None], [joined, lengths]), joined * 2.0, None)[0]
        return dx, tl.tensor_list_get_item(dpieces, 1, tt.float32, element_shape=[-1, 3])

    dx, piece = graph(f, X)
    np.testing.assert_array_equal(dx, [u[1], [0, 0, 0], [0, 0, 0], u[0]])
    np.testing.assert_array_equal(piece, X[1:] * 2)


def test_every_list_op_has_a_gradient_or_is_not_differentiable():
    ops = [c for n, c in REGISTRY.items() if "TensorList" in n]
    assert len(ops) == 18
    for cls in ops:
        assert getattr(cls, "grad", None) is not None or has_trait(cls, NotDifferentiable), cls.name
