"""Slicing, gathering, joining and padding ops (tinytf/ops/slicing.py, gather.py, joining.py, padding.py):
StridedSlice with all five masks (against numpy basic indexing with random keys, and cases whose
results and errors came from TensorFlow 2.21),
Python ``x[key]`` encoding, Slice, GatherV2, UnsortedSegmentSum, ConcatV2, ConcatOffset, Pack,
Unpack, Split, SplitV, Tile, Pad, PadV2, StridedSliceGrad; gradients in eager and graph mode."""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tinytf as tt
from tinytf import dtypes, gradcheck, mlir
from tinytf.errors import InvalidArgumentError, ResourceExhaustedError
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.ops import gather as G
from tinytf.ops import joining as J
from tinytf.ops import padding as P
from tinytf.ops import slicing as SL
from tinytf.ops.slicing import strided_slice_from_key

FIXTURES = Path(__file__).parents[1] / "conformance" / "fixtures"
i32 = lambda *v: np.asarray(v, np.int32)
MASKS = ("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask")


def spec_of(a, known=True):
    a = np.asarray(a)
    return TensorSpec(a.shape, a.dtype, value=a if known else None)


def as_list(out):
    return list(out) if isinstance(out, tuple | list) else [out]


def run(cls, operands, attrs=None):
    """compute, eager bind and the shape rule (with and without operand values) must agree."""
    attrs = cls.complete_attrs(attrs or {})
    outs = as_list(cls.compute(np, *operands, **attrs))
    specs = as_list(cls.infer(*[spec_of(o) for o in operands], **attrs))
    blind = as_list(cls.infer(*[spec_of(o, known=False) for o in operands], **attrs))
    eager = as_list(cls.bind(*operands, **attrs))
    assert len(outs) == len(specs) == len(blind) == len(eager)
    for out, spec, guess, e in zip(outs, specs, blind, eager):
        assert spec.shape == np.shape(out) and spec.dtype.np == np.asarray(out).dtype
        assert guess.is_compatible_with(np.shape(out)) and guess.dtype == spec.dtype
        np.testing.assert_array_equal(e.numpy(), out)
    return outs


# --- StridedSlice ---------------------------------------------------------------------------------

def strided_slice(x, begin, end, strides, **masks):
    masks = {m: masks.get(m, 0) for m in MASKS}
    (out,) = run(SL.StridedSlice, [x, np.asarray(begin, np.int32), np.asarray(end, np.int32),
                                   np.asarray(strides, np.int32)], masks)
    return out


# (input shape, begin, end, strides, masks, output shape, output of arange(size).reshape(shape)): results
# TensorFlow 2.21 gave for random specs (3000 random specs agreed with TensorFlow when this was written).
TF_CASES = [
    ((3, 2, 1), [-6], [-6], [-3], {'end_mask': 1, 'ellipsis_mask': 1, 'new_axis_mask': 1, 'shrink_axis_mask': 1},
     (3, 2, 1), [[[0], [1]], [[2], [3]], [[4], [5]]]),
    ((1, 3), [-2, -1, 5], [3, 5, -2], [1, 3, 1], {'begin_mask': 4, 'end_mask': 1, 'new_axis_mask': 4,
                                                   'shrink_axis_mask': 4}, (1, 1, 1), [[[2]]]),
    ((4, 1, 2), [4, -5], [3, 5], [3, -2], {'ellipsis_mask': 1, 'new_axis_mask': 2, 'shrink_axis_mask': 2},
     (4, 1, 2, 1), [[[[0], [1]]], [[[2], [3]]], [[[4], [5]]], [[[6], [7]]]]),
    ((1, 3), [-1, -6], [-5, 2], [-1, 2], {'begin_mask': 2, 'end_mask': 2, 'ellipsis_mask': 2}, (1, 3), [[0, 1, 2]]),
    ((4,), [1, 1, 4], [-2, -1, 0], [1, 3, -2], {'begin_mask': 1, 'end_mask': 4, 'new_axis_mask': 3}, (1, 1, 2),
     [[[3, 1]]]),
    ((), [1], [2], [3], {'begin_mask': 1, 'end_mask': 1, 'ellipsis_mask': 1, 'shrink_axis_mask': 1}, (), 0),
    ((2,), [3, -5, 3], [-4, 2, 3], [3, 2, 1], {'begin_mask': 2, 'ellipsis_mask': 2, 'new_axis_mask': 5,
                                                'shrink_axis_mask': 4}, (1, 2, 1), [[[0], [1]]]),
    ((), [5, -5], [-5, -3], [1, 1], {'ellipsis_mask': 2, 'new_axis_mask': 1, 'shrink_axis_mask': 3}, (1,), [0]),
    ((4,), [0, -5], [-6, 4], [3, 2], {'end_mask': 2, 'ellipsis_mask': 1, 'shrink_axis_mask': 1}, (2,), [0, 2]),
    ((1, 2, 3), [], [], [], {'begin_mask': 1, 'ellipsis_mask': 1, 'new_axis_mask': 1, 'shrink_axis_mask': 1},
     (1, 2, 3), [[[0, 1, 2], [3, 4, 5]]]),
    ((2, 1, 3), [-6, 2], [-3, -5], [-1, -3], {'end_mask': 2, 'ellipsis_mask': 1, 'new_axis_mask': 3,
                                               'shrink_axis_mask': 2}, (2, 1, 3, 1), [[[[0], [1], [2]]], [[[3], [4], [5]]]]),
    ((1, 3, 3), [-4, 5, -2], [0, -3, 3], [-2, -2, 2], {'begin_mask': 2, 'end_mask': 2, 'ellipsis_mask': 2,
                                                        'new_axis_mask': 3}, (1, 1, 3, 1), [[[[1], [4], [7]]]]),
    ((1,), [2], [-6], [1], {'end_mask': 1, 'new_axis_mask': 1, 'shrink_axis_mask': 1}, (1, 1), [[0]]),
    ((3, 4), [1, 0], [0, 0], [1, 2], {'begin_mask': 2, 'end_mask': 3}, (2, 2), [[4, 6], [8, 10]]),  # the fixture's
    ((3, 4), [1, 1], [2, 2], [1, 1], {'shrink_axis_mask': 3}, (), 5),                                # x[1:, ::2], x[1, 1]
    ((3, 2), [2, -1], [0, 0], [-1, 1], {'end_mask': 1, 'shrink_axis_mask': 2}, (3,), [5, 3, 1]),
]

TF_ERRORS = [
    ((4, 0), [0, -2, 2, 0], [-3, -3, 2, 1], [1, -1, 2, -1], {'begin_mask': 4, 'ellipsis_mask': 9, 'shrink_axis_mask': 4},
     'Multiple ellipses in slice spec not allowed'),
    ((1,), [4, -6, -6], [2, -2, 0], [-2, 3, 1], {'begin_mask': 6, 'end_mask': 1, 'ellipsis_mask': 4,
                                                  'shrink_axis_mask': 1},
     'Index out of range using input dim 1; input has only 1 dims'),
    ((), [4, 5], [-5, 0], [2, -2], {'shrink_axis_mask': 1}, 'Attempting to slice scalar input.'),
    ((4, 4), [0], [-5], [-3], {'end_mask': 1, 'shrink_axis_mask': 1}, 'only stride 1 allowed on non-range indexing.'),
    ((0, 2, 0), [-3, 3, 5], [4, -1, 1], [3, -3, 1], {'begin_mask': 2, 'end_mask': 3, 'new_axis_mask': 2,
                                                      'shrink_axis_mask': 1},
     'slice index -3 of dimension 0 out of bounds.'),
    ((4, 2), [1], [-1], [0], {}, r'strides\[0\] must be non-zero'),
    ((3, 4), [5], [6], [1], {'shrink_axis_mask': 1}, 'slice index 5 of dimension 0 out of bounds'),
]


@pytest.mark.parametrize("case", TF_CASES, ids=[str(i) for i in range(len(TF_CASES))])
def test_strided_slice_matches_tensorflow(case):
    shape, begin, end, strides, masks, out_shape, want = case
    x = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    out = strided_slice(x, begin, end, strides, **masks)
    assert out.shape == out_shape
    np.testing.assert_array_equal(out, np.asarray(want, np.float32))


@pytest.mark.parametrize("case", TF_ERRORS, ids=[e[-1][:24] for e in TF_ERRORS])
def test_strided_slice_errors_match_tensorflow(case):
    shape, begin, end, strides, masks, match = case
    x = np.zeros(shape, np.float32)
    operands = [x] + [np.asarray(v, np.int32) for v in (begin, end, strides)]
    attrs = SL.StridedSlice.complete_attrs(masks)
    with pytest.raises(InvalidArgumentError, match=match):
        SL.StridedSlice.bind(*operands, **attrs)
    with pytest.raises(InvalidArgumentError, match=match):
        SL.StridedSlice.infer(*[spec_of(o) for o in operands], **attrs)


def index_item(rank_left):
    """One entry of a key: an int, a slice, None (newaxis); an Ellipsis is added separately."""
    ints = st.integers(-7, 7)
    steps = st.sampled_from([None, 1, 2, 3, -1, -2, -3])
    items = [st.builds(slice, st.none() | ints, st.none() | ints, steps), st.none()]
    if rank_left:
        items.append(ints)
    return st.one_of(*items)


@st.composite
def array_and_key(draw):
    shape = tuple(draw(st.lists(st.integers(0, 4), max_size=4)))
    key, real = [], 0
    for _ in range(draw(st.integers(0, 5))):
        item = draw(index_item(real < len(shape)))
        if item is None or isinstance(item, slice) and real >= len(shape):
            key.append(None if item is None else item)
            if isinstance(item, slice):
                real += 1
            continue
        key.append(item)
        real += 1
    if draw(st.booleans()):
        key.insert(draw(st.integers(0, len(key))), Ellipsis)
    return np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape), tuple(key)


@settings(max_examples=400, deadline=None)
@given(array_and_key())
def test_python_keys_match_numpy_basic_indexing(case):
    x, key = case
    try:
        want = x[key]
    except IndexError:
        with pytest.raises(InvalidArgumentError, match="tf.StridedSlice"):
            strided_slice_from_key(tt.constant(x), key)
        return
    out = strided_slice_from_key(tt.constant(x), key).numpy()
    assert out.shape == want.shape
    np.testing.assert_array_equal(out, want)
    assert tt.constant(x)[key].shape == want.shape  # Tensor.__getitem__


def test_key_encoding_is_tensorflows():
    # TensorFlow exports x[1:, ::2] as begin [1, 0], end [0, 0], strides [1, 2], begin_mask 2, end_mask 3.
    x = tt.constant(np.zeros((3, 4), np.float32))
    f = tt.function(lambda x: strided_slice_from_key(x, (slice(1, None), slice(None, None, 2))))
    text = f.get_concrete_function(tt.TensorSpec([3, 4], tt.float32)).mlir()
    assert "begin_mask = 2 : i64, ellipsis_mask = 0 : i64, end_mask = 3 : i64, new_axis_mask = 0 : i64, " \
           "shrink_axis_mask = 0 : i64" in text
    assert "dense<[1, 0]> : tensor<2xi32>" in text and "dense<[1, 2]> : tensor<2xi32>" in text
    assert "-> tensor<2x2xf32>" in text
    text = tt.function(lambda x: strided_slice_from_key(x, (Ellipsis, None, -1))).get_concrete_function(
        tt.TensorSpec([3, 4], tt.float32)).mlir()
    assert "ellipsis_mask = 1 : i64" in text and "new_axis_mask = 2 : i64" in text and "shrink_axis_mask = 4" in text
    assert f(x).shape == (2, 2)


def test_keys_with_tensors_and_numpy_ints():
    x = tt.constant(np.arange(12).reshape(3, 4))
    i = tt.constant(np.int32(2))
    np.testing.assert_array_equal(x[i].numpy(), [8, 9, 10, 11])
    np.testing.assert_array_equal(x[:, tt.constant(np.int64(1)):i].numpy(), [[1], [5], [9]])
    np.testing.assert_array_equal(x[np.int64(-1), ::np.int32(-2)].numpy(), [11, 9])
    assert x[()].shape == (3, 4) and x[[0, 1]].numpy() == 1  # a list key is a tuple of indices, as TensorFlow


@pytest.mark.parametrize("key", [True, 1.5, "a", (slice(0.5, 2),), tt.constant([1, 2])])
def test_unsupported_keys(key):
    with pytest.raises(InvalidArgumentError, match="tf.StridedSlice"):
        strided_slice_from_key(tt.constant(np.zeros(3)), key)


def test_strided_slice_shape_rule_with_unknown_parts():
    f32, i32t = dtypes.float32, dtypes.int32
    attrs = SL.StridedSlice.complete_attrs({"shrink_axis_mask": 1, "new_axis_mask": 4})
    unknown = TensorSpec([3], i32t)
    spec = SL.StridedSlice.infer(TensorSpec([5, None, 4]), unknown, unknown, spec_of(i32(1, 2, 1)), **attrs)
    assert spec == TensorSpec([None, 1, 4], f32)  # dim 0 shrunk, dim 1 unknown, a new axis, dim 2 whole
    both = SL.StridedSlice.complete_attrs({"begin_mask": 3, "end_mask": 3})
    spec = SL.StridedSlice.infer(TensorSpec([5, 4, None]), unknown, unknown, spec_of(i32(2, -3, 1)), **both)
    assert spec == TensorSpec([3, 2, None], f32)
    assert SL.StridedSlice.infer(TensorSpec([5]), unknown, unknown, unknown, **both).shape is None


@settings(max_examples=150, deadline=None)
@given(array_and_key(), st.integers(0, 2**31 - 1))
def test_strided_slice_grad_is_the_adjoint(case, seed):
    x, key = case
    try:
        y = x[key]
    except IndexError:
        return
    begin, end, strides, masks = _encoded(key)
    rng = np.random.default_rng(seed)
    dy = rng.standard_normal(y.shape)
    dx = SL.StridedSliceGrad.compute(np, np.asarray(x.shape, np.int64), begin, end, strides, dy, **masks)
    # <x[key], dy> == <x, grad(dy)> for every x: the gradient scatters dy where the slice reads
    xs = rng.standard_normal(x.shape)
    assert np.isclose(np.sum(xs[key] * dy), np.sum(xs * dx))
    spec = SL.StridedSliceGrad.infer(spec_of(np.asarray(x.shape, np.int64)), spec_of(begin), spec_of(end),
                                     spec_of(strides), spec_of(dy), **masks)
    assert spec.shape == x.shape


def _encoded(key):
    begin, end, strides, bits = [], [], [], dict.fromkeys(MASKS, 0)
    for i, item in enumerate(key):
        if isinstance(item, slice):
            begin.append(item.start or 0), end.append(item.stop or 0), strides.append(item.step or 1)
            bits["begin_mask"] |= (item.start is None) << i
            bits["end_mask"] |= (item.stop is None) << i
        elif item is Ellipsis or item is None:
            begin.append(0), end.append(0), strides.append(1)
            bits["ellipsis_mask" if item is Ellipsis else "new_axis_mask"] |= 1 << i
        else:
            begin.append(item), end.append(item + 1), strides.append(1)
            bits["shrink_axis_mask"] |= 1 << i
    return [np.asarray(v, np.int32).reshape(-1) for v in (begin, end, strides)] + [bits]


# --- the other ops: spec table against numpy -------------------------------------------------------

x34 = np.arange(12, dtype=np.float32).reshape(3, 4)
x234 = np.arange(24, dtype=np.float64).reshape(2, 3, 4)


def batch_gather(params, indices, axis, batch_dims):
    """A loop reference for GatherV2 with batch dims."""
    if batch_dims == 0:
        return np.take(params, indices, axis=axis)
    return np.stack([batch_gather(p, i, axis - 1, batch_dims - 1) for p, i in zip(params, indices)])


CASES = [
    ("Slice", SL.Slice, [x34, i32(1, 1), i32(2, -1)], {}, [x34[1:3, 1:]]),
    ("Slice-empty", SL.Slice, [x34, np.asarray([3, 0], np.int64), np.asarray([0, 2], np.int64)], {}, [x34[3:3, :2]]),
    ("Slice-scalar", SL.Slice, [np.float32(2), np.zeros(0, np.int32), np.zeros(0, np.int32)], {},
     [np.asarray(2, np.float32)]),
    ("GatherV2", G.GatherV2, [x34, i32(2, 0, 2), np.int32(0)], {}, [x34[[2, 0, 2]]]),
    ("GatherV2-axis-neg", G.GatherV2, [x234, np.asarray([[3], [0]], np.int64), np.int64(-1)], {},
     [np.take(x234, [[3], [0]], axis=-1)]),
    ("GatherV2-scalar-index", G.GatherV2, [x34, np.int32(1), np.int32(1)], {}, [x34[:, 1]]),
    ("GatherV2-int16-indices", G.GatherV2, [x34, np.asarray([2], np.int16), np.int32(0)], {}, [x34[[2]]]),
    ("GatherV2-batch1", G.GatherV2, [x234, np.asarray([[1, 0], [2, 2]], np.int32), np.int32(2)], {"batch_dims": 1},
     [batch_gather(x234, np.asarray([[1, 0], [2, 2]]), 2, 1)]),
    ("GatherV2-batch-neg", G.GatherV2, [x234, np.asarray([[0, 2, 1], [3, 3, 0]], np.int32), np.int32(2)],
     {"batch_dims": -1}, [batch_gather(x234, np.asarray([[0, 2, 1], [3, 3, 0]]), 2, 1)]),
    ("GatherV2-batch2", G.GatherV2, [x234, np.asarray([[[3], [0], [1]], [[2], [2], [2]]], np.int32), np.int32(2)],
     {"batch_dims": 2}, [batch_gather(x234, np.asarray([[[3], [0], [1]], [[2], [2], [2]]]), 2, 2)]),
    # TensorFlow leaves the indices of an empty result unchecked
    ("GatherV2-empty-result", G.GatherV2, [np.zeros((0, 3)), i32(7), np.int32(1)], {}, [np.zeros((0, 1))]),
    ("UnsortedSegmentSum", G.UnsortedSegmentSum, [x34, i32(1, -1, 1), np.int32(3)], {},
     [np.stack([np.zeros(4, np.float32), x34[0] + x34[2], np.zeros(4, np.float32)])]),
    ("UnsortedSegmentSum-2d-ids", G.UnsortedSegmentSum, [x34, np.asarray([[0, 1, 0, 1]] * 3, np.int64),
                                                          np.int64(2)], {},
     [np.asarray([x34[:, ::2].sum(), x34[:, 1::2].sum()], np.float32)]),
    ("ConcatV2", J.ConcatV2, [x34, x34 * 2, np.int32(0)], {}, [np.concatenate([x34, x34 * 2])]),
    ("ConcatV2-neg-axis-3", J.ConcatV2, [x34, x34[:, :1], x34[:, :0], np.int64(-1)], {},
     [np.concatenate([x34, x34[:, :1]], 1)]),
    ("ConcatV2-legacy-vector-axis", J.ConcatV2, [x34, x34, i32(1)], {}, [np.concatenate([x34, x34], 1)]),
    ("ConcatOffset", J.ConcatOffset, [np.int32(1), i32(2, 3), i32(2, 5), i32(2, 1)], {},
     [i32(0, 0), i32(0, 3), i32(0, 8)]),
    ("Pack", J.Pack, [x34, x34 + 1], {"axis": 1}, [np.stack([x34, x34 + 1], 1)]),
    ("Pack-scalars-neg", J.Pack, [np.int8(1), np.int8(2), np.int8(3)], {"axis": -1}, [np.asarray([1, 2, 3], np.int8)]),
    ("Unpack", J.Unpack, [x34], {"num": 4, "axis": -1}, list(x34.T)),
    ("Unpack-empty", J.Unpack, [np.zeros((2, 0))], {"num": 2, "axis": 0}, [np.zeros(0), np.zeros(0)]),
    ("Split", J.Split, [np.int32(1), x34], {"num_split": 2}, np.split(x34, 2, 1)),
    ("Split-neg", J.Split, [np.int32(-2), x234], {"num_split": 3}, np.split(x234, 3, 1)),
    ("SplitV", J.SplitV, [x34, i32(1, -1, 0), np.int32(1)], {"num_split": 3}, np.split(x34, [1, 4], 1)),
    ("SplitV-legacy-axis", J.SplitV, [x34, np.asarray([2, 1], np.int64), np.asarray([[0]], np.int32)],
     {"num_split": 2}, np.split(x34, [2], 0)),
    ("Tile", P.Tile, [x34, i32(2, 3)], {}, [np.tile(x34, (2, 3))]),
    ("Tile-zero", P.Tile, [x34, np.asarray([0, 1], np.int64)], {}, [np.zeros((0, 4), np.float32)]),
    ("Tile-scalar", P.Tile, [np.int32(4), np.zeros(0, np.int32)], {}, [np.asarray(4, np.int32)]),
    ("Pad", P.Pad, [x34, np.asarray([[1, 0], [2, 3]], np.int32)], {}, [np.pad(x34, [(1, 0), (2, 3)])]),
    ("Pad-bool", P.Pad, [np.asarray([True]), np.asarray([[1, 1]], np.int64)], {}, [np.asarray([False, True, False])]),
    ("PadV2", P.PadV2, [x34, np.asarray([[0, 1], [1, 0]], np.int32), np.float32(-1)], {},
     [np.pad(x34, [(0, 1), (1, 0)], constant_values=-1)]),
    ("PadV2-scalar", P.PadV2, [np.float32(3), np.zeros((0, 2), np.int32), np.float32(1)], {},
     [np.asarray(3, np.float32)]),
]


@pytest.mark.parametrize("name,cls,operands,attrs,want", CASES, ids=[c[0] for c in CASES])
def test_spec_table(name, cls, operands, attrs, want):
    outs = run(cls, operands, attrs)
    assert len(outs) == len(want)
    for out, w in zip(outs, want):
        w = np.asarray(w)
        assert out.shape == w.shape and out.dtype == w.dtype
        np.testing.assert_array_equal(out, w)


@settings(max_examples=60, deadline=None)
@given(shape=st.lists(st.integers(0, 4), min_size=1, max_size=4), data=st.data())
def test_slice_matches_numpy(shape, data):
    x = np.arange(int(np.prod(shape)), dtype=np.int32).reshape(shape)
    begin = [data.draw(st.integers(0, d)) for d in shape]
    size = [data.draw(st.sampled_from([-1, *range(d - b + 1)])) for d, b in zip(shape, begin)]
    want = x[tuple(slice(b, None if s == -1 else b + s) for b, s in zip(begin, size))]
    (out,) = run(SL.Slice, [x, np.asarray(begin, np.int32), np.asarray(size, np.int32)])
    np.testing.assert_array_equal(out, want)


@settings(max_examples=60, deadline=None)
@given(shape=st.lists(st.integers(1, 4), min_size=1, max_size=3), data=st.data())
def test_gather_matches_numpy(shape, data):
    x = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    batch = data.draw(st.integers(0, axis % len(shape)))
    ind_shape = shape[:batch] + data.draw(st.lists(st.integers(0, 3), max_size=2))
    indices = data.draw(st.lists(st.integers(0, shape[axis] - 1), min_size=int(np.prod(ind_shape)),
                                 max_size=int(np.prod(ind_shape))))
    indices = np.asarray(indices, np.int32).reshape(ind_shape)
    (out,) = run(G.GatherV2, [x, indices, np.int32(axis)], {"batch_dims": batch})
    np.testing.assert_array_equal(out, batch_gather(x, indices, axis % len(shape), batch))


ERRORS = [
    (SL.Slice, [x34, i32(0), i32(1)], {}, "Expected begin and size arguments to be 1-D tensors of size 2"),
    (SL.Slice, [x34, i32(2, 0), i32(2, 1)], {}, r"Expected size\[0\] in \[0, 1\], but got 2"),
    (SL.Slice, [x34, i32(4, 0), i32(-1, 1)], {}, r"Expected begin\[0\] in \[0, 3\], but got 4"),
    (SL.Slice, [x34, i32(0, 0), np.asarray([1, 1], np.int64)], {}, "same dtype"),
    (SL.StridedSlice, [x34, i32(0), i32(0, 1), i32(1)], {}, "Expected begin, end, and strides to be 1D equal size"),
    (G.GatherV2, [x34, i32(3), np.int32(0)], {}, r"indices\[0\] = 3 is not in \[0, 3\)"),
    (G.GatherV2, [x34, np.asarray([[0, -1]], np.int32), np.int32(1)], {}, r"indices\[0,1\] = -1 is not in \[0, 4\)"),
    (G.GatherV2, [x34, i32(0), np.int32(2)], {}, r"Expected axis in the range \[-2, 2\), but got 2"),
    (G.GatherV2, [x34, i32(0), i32(0)], {}, "axis must be a scalar"),  # TensorFlow: "axis must be scalar"
    (G.GatherV2, [x34, np.zeros(1, np.float32), np.int32(0)], {}, "indices must be int16, int32 or int64"),
    (G.GatherV2, [x34, np.zeros((3, 1), np.int32), np.int32(0)], {"batch_dims": 1}, r"batch_dims \(1\) must be less"),
    (G.GatherV2, [x34, np.zeros((2, 1), np.int32), np.int32(1)], {"batch_dims": 1},
     r"params.shape\[0\]: 3 should be equal to indices.shape\[0\]: 2"),
    (G.UnsortedSegmentSum, [x34, i32(0, 3, 1), np.int32(3)], {}, r"segment_ids\[1\] = 3 is out of range \[0, 3\)"),
    (G.UnsortedSegmentSum, [x34, i32(0, 1), np.int32(3)], {}, "does not start with segment_ids.shape"),
    (G.UnsortedSegmentSum, [x34, i32(0, 0, 0), i32(3)], {}, "num_segments must be a scalar"),
    (J.ConcatV2, [x34, x34[:2, :3], np.int32(0)], {}, "Dimensions of inputs should match"),
    (J.ConcatV2, [x34, x34, np.int32(2)], {}, r"Expected concatenating dimensions in the range \[-2, 2\), but got 2"),
    (J.ConcatV2, [np.float32(1), np.float32(2), np.int32(0)], {}, "Can't concatenate scalars"),
    (J.ConcatV2, [x34, x34.astype(np.float64), np.int32(0)], {}, "same dtype"),
    (J.ConcatV2, [x34, np.ones(3, np.float32), np.int32(0)], {}, "Ranks of all input tensors should match"),
    (J.ConcatV2, [x34, np.int32(0)], {}, "at least 2 values"),
    (J.Pack, [x34, x34[:2]], {}, "Shapes of all inputs must match"),
    (J.Pack, [x34, x34], {"axis": 3}, "axis 3 is out of range"),
    (J.Unpack, [x34], {"num": 2, "axis": 0}, "Input shape axis 0 must equal 2, got 3"),
    (J.Unpack, [np.float32(1)], {"num": 1, "axis": 0}, "tf.Unpack"),
    (J.Split, [np.int32(1), x34], {"num_split": 3}, "Number of ways to split should evenly divide the split dimension"),
    (J.Split, [np.int32(0), np.float32(1)], {"num_split": 1}, r"-input rank\(-0\) <= split_dim < input rank \(0\)"),
    (J.Split, [i32(1), x34], {"num_split": 2}, "split_dim must be a scalar"),  # TensorFlow refuses it too
    (J.SplitV, [x34, i32(1, 1), np.int32(1)], {"num_split": 2}, "Determined shape must either match input shape"),
    (J.SplitV, [x34, i32(-1, -1), np.int32(1)], {"num_split": 2}, "There can only be one -1 in the input"),
    (J.SplitV, [x34, i32(-1), np.int32(1)], {"num_split": 1}, "If there is only one output, it must have the same size"),
    (P.Tile, [x34, i32(2)], {}, "Expected multiples argument to be a vector of length 2 but got length 1"),
    (P.Tile, [x34, i32(1, -1)], {}, r"Expected multiples\[1\] >= 0, but got -1"),
    (P.Pad, [x34, np.asarray([[1, 1]], np.int32)], {}, "The first dimension of paddings must be the rank of inputs"),
    (P.Pad, [x34, np.asarray([[1, -1], [0, 0]], np.int32)], {}, "Paddings must be non-negative"),
    (P.Pad, [x34, np.ones((2, 3), np.int32)], {}, "paddings must be a matrix with 2 columns"),
    (P.PadV2, [x34, np.zeros((2, 2), np.int32), np.ones(1, np.float32)], {}, "constant_values must be a scalar"),
]


@pytest.mark.parametrize("cls,operands,attrs,match", ERRORS, ids=[f"{e[0].name}-{i}" for i, e in enumerate(ERRORS)])
def test_bad_input_raises_invalid_argument_naming_the_op(cls, operands, attrs, match):
    with pytest.raises(InvalidArgumentError, match=match) as err:
        cls.bind(*operands, **attrs)
    assert cls.name in str(err.value)


@pytest.mark.parametrize("cls,operands", [
    (P.Tile, [np.ones((1024, 1024), np.float32), np.asarray([1 << 20, 1], np.int64)]),
    (P.Pad, [np.float32(1) * np.ones(1, np.float32), np.asarray([[1 << 40, 0]], np.int64)]),
    (G.UnsortedSegmentSum, [np.ones(1, np.float32), i32(0), np.int32(2**31 - 1)]),
])
def test_absurd_sizes_are_refused(cls, operands):
    with pytest.raises(ResourceExhaustedError, match=cls.name):
        cls.bind(*operands)


@pytest.mark.parametrize("cls,operands,attrs", [
    (J.Unpack, [TensorSpec(None)], {"num": 1 << 40, "axis": 0}),
    (J.Split, [TensorSpec([], dtypes.int32), TensorSpec(None)], {"num_split": 1 << 40}),
    (J.SplitV, [TensorSpec(None), TensorSpec(None, dtypes.int32), TensorSpec([], dtypes.int32)],
     {"num_split": 1 << 40}),
])
def test_absurd_output_counts_are_refused(cls, operands, attrs):
    with pytest.raises(ResourceExhaustedError, match=cls.name):
        cls.infer(*operands, **attrs)


# --- public functions -------------------------------------------------------------------------------

def test_public_functions():
    x = tt.constant(x34)
    np.testing.assert_array_equal(tt.slice(x, [1, 0], [1, -1]).numpy(), x34[1:2])
    np.testing.assert_array_equal(tt.strided_slice(x, [0, 3], [3, 0], [2, -1]).numpy(), x34[0:3:2, 3:0:-1])
    np.testing.assert_array_equal(tt.strided_slice(x, [1], [2], shrink_axis_mask=1).numpy(), x34[1])
    np.testing.assert_array_equal(tt.gather(x, [2, 0]).numpy(), x34[[2, 0]])
    np.testing.assert_array_equal(tt.gather(x, tt.constant([[1]]), axis=1).numpy(), x34[:, [[1]]])
    np.testing.assert_array_equal(tt.concat([x, x], axis=-1).numpy(), np.concatenate([x34, x34], -1))
    assert tt.concat([x], 0).shape == (3, 4)
    np.testing.assert_array_equal(tt.stack([x, x], axis=1).numpy(), np.stack([x34, x34], 1))
    np.testing.assert_array_equal(tt.stack([1, 2]).numpy(), [1, 2])
    assert [u.shape for u in tt.unstack(x, axis=1)] == [(3,)] * 4
    assert len(tt.unstack(x, num=3)) == 3
    assert [s.shape for s in tt.split(x, 2, axis=1)] == [(3, 2)] * 2
    assert [s.shape for s in tt.split(x, [1, -1])] == [(1, 4), (2, 4)]
    assert [s.shape for s in tt.split(x, tt.constant([3, 1]), axis=1)] == [(3, 3), (3, 1)]
    np.testing.assert_array_equal(tt.tile(x, [1, 2]).numpy(), np.tile(x34, (1, 2)))
    np.testing.assert_array_equal(tt.pad(x, [[1, 0], [0, 0]]).numpy(), np.pad(x34, [(1, 0), (0, 0)]))
    np.testing.assert_array_equal(tt.pad(x, [[0, 0], [1, 1]], constant_values=9).numpy(),
                                  np.pad(x34, [(0, 0), (1, 1)], constant_values=9))
    np.testing.assert_array_equal(tt.math.unsorted_segment_sum(x, [1, 1, 0], 2).numpy(),
                                  [x34[2], x34[0] + x34[1]])
    for mode in ("REFLECT", "SYMMETRIC", "reflect"):
        np.testing.assert_array_equal(tt.pad(x, [[2, 1], [0, 3]], mode=mode).numpy(),
                                      np.pad(x34, [(2, 1), (0, 3)], mode=mode.lower()))


def test_slices_with_tensor_bounds_in_a_traced_function():
    x, n = tt.constant(np.arange(12.0).reshape(3, 4)), tt.constant(np.int32(2))
    cases = [lambda x, n: x[:n], lambda x, n: x[n:], lambda x, n: x[n:n + 1, ::-1], lambda x, n: x[:n, 1:]]
    for f in cases:
        np.testing.assert_array_equal(tt.function(f)(x, n).numpy(), f(x, n).numpy())
    np.testing.assert_array_equal(tt.function(cases[3])(x, n).numpy(), np.arange(12.0).reshape(3, 4)[:2, 1:])


@pytest.mark.parametrize("mode", ["REFLECT", "SYMMETRIC"])
@pytest.mark.parametrize("use_xla", [False, True])
def test_mirror_pad_and_its_gradient_match_numpy(mode, use_xla):
    x = np.random.default_rng(5).standard_normal((3, 4, 2)).astype(np.float32)
    paddings = [[1, 2], [3, 0], [0, 1]] if mode == "SYMMETRIC" else [[2, 2], [0, 3], [1, 0]]
    dy = np.random.default_rng(6).standard_normal(np.pad(x, paddings).shape).astype(np.float32)

    def f(x, dy):
        with tt.GradientTape() as tape:
            tape.watch(x)
            y = tt.pad(x, paddings, mode=mode)
        return y, tape.gradient(y, x, output_gradients=dy)

    y, dx = tt.function(f, jit_compile=use_xla)(tt.constant(x), tt.constant(dy))
    np.testing.assert_array_equal(y.numpy(), np.pad(x, paddings, mode=mode.lower()))
    # numpy's adjoint: each padded position's gradient lands on the input element it copies
    index = np.pad(np.arange(x.size).reshape(x.shape), paddings, mode=mode.lower())
    want = np.bincount(index.ravel(), weights=dy.ravel().astype(np.float64), minlength=x.size).reshape(x.shape)
    np.testing.assert_allclose(dx.numpy(), want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("paddings, mode, message", [
    ([[3, 0], [0, 0], [0, 0]], "REFLECT", "no greater than the dimension size minus 1 in REFLECT mode: 3, 0"),
    ([[0, 0], [0, 5], [0, 0]], "SYMMETRIC", "no greater than the dimension size in SYMMETRIC mode: 0, 5"),
    ([[1, 1], [0, 0], [0, 0]], "WRAP", "mode must be REFLECT or SYMMETRIC, got 'WRAP'"),
    ([[1, 1], [0, 0]], "REFLECT", "The first dimension of paddings must be the rank of inputs"),
])
def test_mirror_pad_bad_paddings(paddings, mode, message):
    with pytest.raises(InvalidArgumentError, match=re.escape(message)):
        tt.pad(tt.zeros((3, 4, 2)), paddings, mode=mode)


# --- gradients, eager and traced ------------------------------------------------------------------

rng = np.random.default_rng(11)


def T(*shape):
    return tt.constant(rng.standard_normal(shape))


GRADS = [
    ("strided_slice", lambda x: x[::-2, 1:, None], [T(5, 3)]),
    ("strided_slice-shrink", lambda x: x[..., -1], [T(2, 3)]),
    ("strided_slice-masks", lambda x: tt.strided_slice(x, [0, 5, 0], [0, 0, 1], [1, -2, 1], begin_mask=1, end_mask=3,
                                                       new_axis_mask=4), [T(2, 6)]),
    ("slice", lambda x: tt.slice(x, [1, 0], [2, -1]), [T(4, 3)]),
    ("gather", lambda x: tt.gather(x, [[2, 0], [2, 2]]), [T(3, 2)]),
    ("gather-axis", lambda x: tt.gather(x, [1, 1, 0], axis=-1), [T(2, 3, 2)]),
    ("gather-batch", lambda x: tt.gather(x, tt.constant(np.asarray([[2, 0], [1, 1]], np.int32)), axis=1,
                                         batch_dims=1), [T(2, 3, 2)]),
    ("gather-batch2", lambda x: tt.gather(x, tt.constant(np.asarray([[[0, 1, 1]], [[1, 0, 0]]], np.int64)), axis=2,
                                          batch_dims=2), [T(2, 1, 2, 3)]),
    ("segment_sum", lambda x: tt.math.unsorted_segment_sum(x, [0, 2, 0, -1], 3), [T(4, 2)]),
    ("concat", lambda x, y: tt.concat([x, y], axis=-1), [T(2, 3), T(2, 1)]),
    ("stack", lambda x, y: tt.stack([x, y], axis=1), [T(2, 3), T(2, 3)]),
    ("unstack", lambda x: tt.unstack(x, axis=1)[1] * 2.0, [T(2, 3)]),
    ("split", lambda x: tt.split(x, 3, axis=1)[2], [T(2, 6)]),
    ("split_v", lambda x: tt.split(x, [1, -1], axis=0)[1], [T(4, 2)]),
    ("tile", lambda x: tt.tile(x, [2, 3]), [T(2, 3)]),
    ("pad", lambda x: tt.pad(x, [[1, 2], [0, 1]]), [T(2, 3)]),
    ("pad_v2", lambda x: tt.pad(x, [[1, 2], [0, 1]], constant_values=2.0), [T(2, 3)]),
]


@pytest.mark.parametrize("use_function", [False, True], ids=["eager", "graph"])
@pytest.mark.parametrize("name,model,inputs", GRADS, ids=[g[0] for g in GRADS])
def test_gradients(name, model, inputs, use_function):
    weights = tt.constant(rng.standard_normal(model(*inputs).shape))
    gradcheck.compare_numerical_and_autodiff_gradients(lambda *xs: model(*xs) * weights, inputs,
                                                       use_function=use_function, abs_error=1e-6)


def test_gather_gradient_with_an_axis_only_known_when_run():
    x = T(3, 4)

    @tt.function
    def grad(x, axis):
        with tt.GradientTape() as tape:
            tape.watch(x)
            y = tt.gather(x, [1, 1, 0], axis=axis)
        return tape.gradient(y, x, output_gradients=tt.ones_like(y))

    want = np.zeros((3, 4))
    want[:, 0], want[:, 1] = 1, 2
    np.testing.assert_array_equal(grad(x, tt.constant(np.int32(-1)) * 0 + 1).numpy(), want)


def test_unstack_and_split_gradients_fill_unused_outputs_with_zeros():
    x = T(2, 3)
    with tt.GradientTape(persistent=True) as tape:
        tape.watch(x)
        parts = tt.unstack(x, axis=1)
        halves = tt.split(x, [2, 1], axis=1)
    np.testing.assert_array_equal(tape.gradient(parts[2], x).numpy(), [[0, 0, 1], [0, 0, 1]])
    np.testing.assert_array_equal(tape.gradient(halves[0], x).numpy(), [[1, 1, 0], [1, 1, 0]])


# --- graph mode and the fixtures ---------------------------------------------------------------------

def test_traced_ops_run_and_print_as_tensorflow():
    def f(x):
        return tt.concat([tt.stack([x, x])[0], tt.tile(x[:1], [2, 1])], 0), tt.pad(x, [[1, 0], [0, 0]])

    fn = tt.function(f)
    x = tt.constant(x34)
    for got, want in zip(fn(x), f(x)):
        np.testing.assert_array_equal(got.numpy(), want.numpy())
    text = fn.get_concrete_function(tt.TensorSpec([3, 4], tt.float32)).mlir()
    assert "axis = 0 : i64" in text  # tf.Pack
    for line in text.splitlines():
        if '"tf.ConcatV2"' in line:
            assert "<{" not in line and line.rstrip().endswith("-> tensor<5x4xf32>")
        if '"tf.Tile"' in line:
            assert "-> tensor<2x4xf32>" in line


def test_fixture_ops_parse_with_their_properties():
    module = mlir.parse(FIXTURES / "elementwise_zoo.mlir")
    by_name = {}
    for op in module.walk():
        by_name.setdefault(op.name, []).append(op)
    (gather,) = by_name["tf.GatherV2"]
    assert type(gather) is G.GatherV2 and gather.attr_values() == {"batch_dims": 0}
    assert [op.attr_values() for op in by_name["tf.StridedSlice"]] == [
        {"begin_mask": 2, "ellipsis_mask": 0, "end_mask": 3, "new_axis_mask": 0, "shrink_axis_mask": 0},
        {"begin_mask": 0, "ellipsis_mask": 0, "end_mask": 0, "new_axis_mask": 0, "shrink_axis_mask": 3}]
    (pack,) = by_name["tf.Pack"]
    assert pack.attr_values() == {"axis": 0}
    assert all(type(op) is J.ConcatV2 and len(op.values) == 2 for op in by_name["tf.ConcatV2"])
    assert type(by_name["tf.Tile"][0]) is P.Tile and type(by_name["tf.Pad"][0]) is P.Pad
    printed = mlir.print(module)
    assert "begin_mask = 2 : i64, ellipsis_mask = 0 : i64, end_mask = 3 : i64" in printed


XLA_MODELS = [
    ("strided_slice", lambda x: x[::-1, 1:, None, -1]),
    ("slice", lambda x: tt.slice(x, [0, 1, 1], [-1, 2, 2])),
    ("gather", lambda x: tt.gather(x, [2, 0], axis=1)),
    ("gather-batch", lambda x: tt.gather(x, tt.constant(np.asarray([[1], [2]], np.int32)), axis=2, batch_dims=1)),
    ("concat-stack", lambda x: tt.concat([tt.stack([x, x], 1)[:, 0], x], 2)),
    ("unstack-split", lambda x: tt.unstack(x)[1] + tt.split(x, [1, 2], axis=1)[1][0, 0]),
    ("tile-pad", lambda x: tt.pad(tt.tile(x, [1, 2, 1]), [[0, 1], [1, 0], [0, 0]], constant_values=3.0)),
    ("segment_sum", lambda x: tt.math.unsorted_segment_sum(x, [1, -1], 3)),
]


def test_under_xla_values_and_gradients_match_eager():
    x = tt.constant(np.arange(24, dtype=np.float32).reshape(2, 3, 4))
    for name, model in XLA_MODELS:
        np.testing.assert_allclose(tt.function(model, jit_compile=True)(x).numpy(), model(x).numpy(), err_msg=name)

    def grad(x):
        with tt.GradientTape() as tape:
            tape.watch(x)
            y = sum(tt.reduce_sum(model(x) * 1.5) for _, model in XLA_MODELS)
        return tape.gradient(y, x)

    np.testing.assert_allclose(tt.function(grad, jit_compile=True)(x).numpy(), grad(x).numpy(), rtol=1e-6)
