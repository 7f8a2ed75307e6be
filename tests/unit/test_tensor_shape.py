"""tt.TensorShape: tf.TensorShape's documented semantics, and the shapes tensors and specs return.

Expected values are TensorFlow's (the examples of tf.TensorShape's docstrings); TensorFlow's
ValueError is tinytf's InvalidArgumentError.
"""
from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

import tinytf as tt
from tinytf.errors import InvalidArgumentError

S = tt.TensorShape
UNKNOWN = tt.TensorShape(None)


# --- the class ---------------------------------------------------------------------------------

def test_repr_and_str_like_tensorflow():
    assert repr(S([2, None])) == "TensorShape([2, None])" and str(S([2, None])) == "(2, None)"
    assert repr(S([3])) == "TensorShape([3])" and str(S([3])) == "(3,)"
    assert repr(S([])) == "TensorShape([])" and str(S([])) == "()"
    assert repr(UNKNOWN) == "TensorShape(None)" and str(UNKNOWN) == "<unknown>"
    assert f"{S([16, 256])}" == "(16, 256)"


def test_construction():
    assert S((2, 3)).as_list() == [2, 3]
    assert S(np.array([2, 3])).as_list() == [2, 3] and type(S(np.array([2, 3]))[0]) is int
    assert S([np.int64(4), None]).as_list() == [4, None]
    assert S(3).as_list() == [3]  # TensorFlow's singleton form
    s = S([1, None])
    assert S(s) is s
    for bad in ([2, -1], [2.5], ["a"]):
        with pytest.raises(InvalidArgumentError, match="cannot convert"):
            S(bad)


def test_as_list_rank_ndims_dims_len_iter():
    s = S([16, None, 256])
    assert s.as_list() == [16, None, 256] and s.rank == 3 and s.ndims == 3 and s.dims == [16, None, 256]
    assert len(s) == 3 and list(s) == [16, None, 256]
    scalar = S([])
    assert scalar.as_list() == [] and scalar.rank == 0 and len(scalar) == 0


def test_unknown_rank():
    assert UNKNOWN.rank is None and UNKNOWN.ndims is None and UNKNOWN.dims is None
    assert S(None) is UNKNOWN
    with pytest.raises(InvalidArgumentError, match=r"as_list\(\) is not defined on an unknown TensorShape"):
        UNKNOWN.as_list()
    with pytest.raises(InvalidArgumentError, match="Cannot take the length of shape with unknown rank"):
        len(UNKNOWN)
    with pytest.raises(InvalidArgumentError, match="Cannot iterate over a shape with unknown rank"):
        iter(UNKNOWN)
    with pytest.raises(InvalidArgumentError, match="Cannot iterate"):
        tuple(UNKNOWN)


def test_is_fully_defined_and_num_elements():
    assert S([2, 3]).is_fully_defined() and S([2, 3]).num_elements() == 6
    assert not S([2, None]).is_fully_defined() and S([2, None]).num_elements() is None
    assert S([]).is_fully_defined() and S([]).num_elements() == 1
    assert S([4, 0]).num_elements() == 0
    assert not UNKNOWN.is_fully_defined() and UNKNOWN.num_elements() is None
    S([2, 3]).assert_is_fully_defined()
    with pytest.raises(InvalidArgumentError, match=r"Shape \(2, None\) is not fully defined"):
        S([2, None]).assert_is_fully_defined()


def test_is_compatible_with_as_documented():
    # TensorShape(None) is compatible with all shapes
    for other in ([], [3], [None, 4], None):
        assert UNKNOWN.is_compatible_with(other) and S(other).is_compatible_with(UNKNOWN)
    # [None, None]: all two-dimensional shapes and None; not [None] or [None, None, None]
    assert S([None, None]).is_compatible_with([32, 784]) and S([None, None]).is_compatible_with(None)
    assert not S([None, None]).is_compatible_with([None])
    assert not S([None, None]).is_compatible_with([None, None, None])
    # [32, None]: 2-D with 32 first; not [32], [32, None, 1], [64, None]
    for yes in ([32, 784], [None, None], None):
        assert S([32, None]).is_compatible_with(yes)
    for no in ([32], [32, None, 1], [64, None]):
        assert not S([32, None]).is_compatible_with(no)
    # [32, 784]: itself, [32, None], [None, 784], [None, None], None; not [32, 1, 784] or [None]
    for yes in ([32, 784], [32, None], [None, 784], [None, None], None):
        assert S([32, 784]).is_compatible_with(S(yes))
    for no in ([32, 1, 784], [None]):
        assert not S([32, 784]).is_compatible_with(no)
    # reflexive and symmetric but not transitive
    assert S([32, 784]).is_compatible_with(None) and UNKNOWN.is_compatible_with([4, 4])
    assert not S([32, 784]).is_compatible_with([4, 4])
    S([32, None]).assert_is_compatible_with([32, 5])
    with pytest.raises(InvalidArgumentError, match=r"Shapes \(32, None\) and \(64, None\) are incompatible"):
        S([32, None]).assert_is_compatible_with([64, None])


def test_merge_with_as_documented():
    assert S([1, 2]).merge_with(S([1, 2])).as_list() == [1, 2]
    assert S([1, 2]).merge_with([1, None]).as_list() == [1, 2]
    assert S([None, None]).merge_with([1, None]).as_list() == [1, None]
    assert S([None, 2]).merge_with([1, None]) == [1, 2]
    assert UNKNOWN.merge_with([1, None]) == [1, None] and S([1, 2]).merge_with(None) == [1, 2]
    assert UNKNOWN.merge_with(UNKNOWN).rank is None
    assert isinstance(S([None]).merge_with([3]), tt.TensorShape)
    with pytest.raises(InvalidArgumentError, match=r"Shapes \(1, 2\) and \(1, 3\) are not compatible"):
        S([1, 2]).merge_with([1, 3])
    with pytest.raises(InvalidArgumentError, match="not compatible"):
        S([1, 2]).merge_with([1, 2, 3])


def test_most_specific_compatible_shape_as_documented():
    assert S([2, 1]).most_specific_compatible_shape(S([5, 1])) == S([None, 1])
    assert S([1, 2, 3]).most_specific_compatible_shape([1, 2, 3]) == [1, 2, 3]
    assert S([2, None]).most_specific_compatible_shape([None, 3]) == [None, None]
    assert S([1, 2]).most_specific_compatible_shape([1, 2, 3]).rank is None
    assert S([1, 2]).most_specific_compatible_shape(None).rank is None
    assert UNKNOWN.most_specific_compatible_shape([1]).rank is None


def test_concatenate_and_plus():
    assert S([2]).concatenate([3, None]) == [2, 3, None]
    assert S([2]) + S([None]) == S([2, None]) and isinstance(S([2]) + [3], tt.TensorShape)
    assert [1] + S([2]) == S([1, 2]) and isinstance([1] + S([2]), tt.TensorShape)
    assert (1,) + S([2]) == (1, 2)
    assert S([2]).concatenate(None).rank is None and UNKNOWN.concatenate([2]).rank is None


def test_ranks():
    assert UNKNOWN.with_rank(2) == [None, None] and S([2, None]).with_rank(2) == [2, None]
    with pytest.raises(InvalidArgumentError, match=r"Shape \(2, 3\) must have rank 3"):
        S([2, 3]).with_rank(3)
    assert S([2, 3]).with_rank_at_least(2) == [2, 3] and S([2, 3]).with_rank_at_most(2) == [2, 3]
    with pytest.raises(InvalidArgumentError, match="must have rank at least 3"):
        S([2, 3]).with_rank_at_least(3)
    with pytest.raises(InvalidArgumentError, match="must have rank at most 1"):
        S([2, 3]).with_rank_at_most(1)
    S([2, 3]).assert_has_rank(2)
    UNKNOWN.assert_has_rank(5)
    with pytest.raises(InvalidArgumentError, match="must have rank 1"):
        S([2, 3]).assert_has_rank(1)


def test_getitem():
    s = S([2, None, 4])
    assert s[0] == 2 and s[1] is None and s[-1] == 4
    assert s[1:] == S([None, 4]) and isinstance(s[1:], tt.TensorShape) and s[1:].as_list() == [None, 4]
    assert s[::2] == [2, 4] and s[5:].as_list() == []
    with pytest.raises(IndexError):
        s[3]
    # unknown rank: an int gives None, a slice an unknown shape (of a known rank when the slice says)
    assert UNKNOWN[0] is None and UNKNOWN[1:].rank is None and UNKNOWN[-2:].rank is None
    assert UNKNOWN[1:3] == [None, None]
    with pytest.raises(InvalidArgumentError, match="Steps are not yet handled"):
        UNKNOWN[::2]


def test_equality_with_lists_tuples_and_shapes():
    assert S([1, 2]) == [1, 2] and S([1, 2]) == (1, 2) and S([1, 2]) == S([1, 2])
    assert [1, 2] == S([1, 2]) and (1, 2) == S([1, 2])
    assert not S([1, 2]) != [1, 2] and S([1, 2]) != [1, 2, 3]
    assert S([1, None]) == S([1, None]) and S([1, 2]) != S([1, None]) and S([1, None]) != S([2, None])
    assert UNKNOWN == S(None) and UNKNOWN != S([1, 2]) and S([1, 2]) != UNKNOWN and not UNKNOWN != UNKNOWN
    assert S([]) != UNKNOWN and UNKNOWN != ()
    assert S([1]) != "abc" and S([1]) != 1.5


def test_hash_and_tuple_behaviour():
    assert hash(S([2, 3])) == hash((2, 3)) and hash(S([None])) == hash((None,))
    table = {(2, 3): "from a tuple"}
    assert table[S([2, 3])] == "from a tuple"
    assert {S([2, 3]), (2, 3), S([2, None])} == {(2, 3), (2, None)}
    assert hash(UNKNOWN) == hash(S(None))
    s = S([2, 3])
    assert isinstance(s, tuple) and tuple(s) == (2, 3) and np.zeros(s).shape == (2, 3)
    assert not S([]) and S([0])  # the truth of its tuple (TensorFlow: a known scalar shape is truthy)
    for shape in (s, S([None, 1]), UNKNOWN):
        assert pickle.loads(pickle.dumps(shape)) == shape and copy.deepcopy(shape) == shape
    assert pickle.loads(pickle.dumps(UNKNOWN)).rank is None


# --- what tensors and specs return ---------------------------------------------------------------

def test_eager_tensor_shape():
    x = tt.constant([[1.0, 2.0, 3.0]])
    assert isinstance(x.shape, tt.TensorShape)
    assert x.shape.as_list() == [1, 3] and x.shape.rank == 2 and x.shape == (1, 3) and x.shape == [1, 3]
    assert repr(x.shape) == "TensorShape([1, 3])" and x.shape[1:].as_list() == [3]
    assert tt.constant(1.0).shape.as_list() == [] and tt.constant(1.0).shape.rank == 0
    assert x.shape.num_elements() == 3 and x.shape.is_fully_defined()
    assert repr(x) == "<tt.Tensor: shape=(1, 3), dtype=float32, numpy=array([[1., 2., 3.]], dtype=float32)>"
    y = tt.reshape(tt.constant(np.arange(6.0)), x.shape.concatenate([2]))  # a shape as an op argument
    assert y.shape.as_list() == [1, 3, 2]
    np.testing.assert_array_equal(tt.zeros(x.shape).numpy(), np.zeros((1, 3), np.float32))


def test_symbolic_tensor_shape_in_a_function():
    seen = {}
    w = tt.constant(np.ones((3, 2), np.float32))

    @tt.function(input_signature=[tt.TensorSpec([None, 3], tt.float32)])
    def f(x):
        y = tt.matmul(x, w)
        seen["x"], seen["y"] = x.shape, y.shape
        return tt.reshape(y, [-1] + y.shape[1:].as_list())

    out = f(tt.constant(np.ones((4, 3), np.float32)))
    np.testing.assert_array_equal(out.numpy(), np.full((4, 2), 3.0, np.float32))
    assert isinstance(seen["x"], tt.TensorShape) and isinstance(seen["y"], tt.TensorShape)
    assert seen["x"].as_list() == [None, 3] and seen["y"].as_list() == [None, 2]
    assert seen["x"].rank == 2 and seen["x"][0] is None and not seen["x"].is_fully_defined()
    assert seen["x"].is_compatible_with([4, 3]) and not seen["x"].is_compatible_with([4, 2])
    assert str(seen["x"]) == "(None, 3)"


def test_symbolic_tensor_shape_from_a_concrete_call_and_a_tensor_shape_spec():
    seen = []

    @tt.function
    def g(x):
        seen.append(x.shape)
        return x * 2.0

    g(tt.constant(np.ones((2, 5), np.float32)))
    cf = g.get_concrete_function(tt.TensorSpec(tt.TensorShape([None, 5]), tt.float32))
    assert [s.as_list() for s in seen] == [[2, 5], [None, 5]]
    assert "tensor<?x5xf32>" in cf.mlir()


def test_unknown_rank_in_a_function_is_none():
    """A tensor of unknown rank has ``shape is None`` (as its TensorSpec's, which the engines test)."""
    seen = {}

    @tt.function
    def h(x):
        seen["shape"], seen["ndim"] = x.shape, x.ndim
        return x + 1.0

    cf = h.get_concrete_function(tt.TensorSpec(None, tt.float32))
    assert seen == {"shape": None, "ndim": None}
    assert "tensor<*xf32>" in cf.mlir()
    cf2 = h.get_concrete_function(tt.TensorSpec(tt.TensorShape(None), tt.float32))
    assert seen["shape"] is None and cf2.mlir() == cf.mlir()


def test_tensor_spec_shape():
    spec = tt.TensorSpec([2, None], tt.float32)
    assert isinstance(spec.shape, tt.TensorShape) and spec.shape.as_list() == [2, None] and spec.shape.rank == 2
    assert spec.shape == (2, None) and repr(spec) == "TensorSpec(shape=(2, None), dtype=tt.float32)"
    assert tt.TensorSpec([-1, 3]).shape.as_list() == [None, 3]  # MLIR's -1 is an unknown dim
    assert tt.TensorSpec(tt.TensorShape([None, 4])).shape == [None, 4]
    assert tt.TensorSpec(tt.TensorShape(None)).shape is None and tt.TensorSpec(None).shape is None
    assert tt.TensorSpec(tt.TensorShape(None)).rank is None
    assert tt.TensorSpec(tt.TensorShape([2, None])) == spec and hash(tt.TensorSpec((2, None))) == hash(spec)
    assert spec.is_compatible_with(tt.TensorShape(None)) and spec.is_compatible_with(tt.TensorShape([2, 7]))
    assert not spec.is_compatible_with(tt.TensorShape([3, 7]))
    assert tt.TensorSpec.from_type(spec.to_type()).shape.as_list() == [2, None]
