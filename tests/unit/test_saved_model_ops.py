"""The ops SavedModels need that tinytf lacked: tf.ParseExample / tf.ParseExampleV2 (dense features of
serialized tf.Examples) and tf.PlaceholderWithDefault."""
from __future__ import annotations

import numpy as np
import pytest

import tinytf as tt
from tinytf.errors import InvalidArgumentError, UnimplementedError
from tinytf.ops.parsing import ParseExample, ParseExampleV2, serialize_example
from tinytf.ops.placeholders import PlaceholderWithDefault


def strings(*values):
    out = np.empty(len(values), dtype=object)
    out[:] = list(values)
    return tt.constant(out)


EMPTY = strings()


def parse_v2(serialized, keys, defaults, shapes, types, **attrs):
    return ParseExampleV2.bind(serialized, EMPTY, EMPTY, strings(*keys), EMPTY, *[tt.constant(d) for d in defaults],
                               num_sparse=attrs.get("num_sparse", 0), dense_shapes=tuple(shapes),
                               sparse_types=attrs.get("sparse_types", ()), ragged_value_types=(), ragged_split_types=(),
                               Tdense=tuple(types))


def test_parse_example_v2_dense_features_defaults_and_kinds():
    batch = strings(serialize_example({"f": [1.0, 2.0], "i": [5], "s": ["yes"]}),
                    serialize_example({"f": [3.0, 4.0]}))
    f, i, s = parse_v2(batch, [b"f", b"i", b"s"],
                       [np.zeros(0, np.float32), np.array([9], np.int64), np.array([b"no"], object)],
                       [(2,), (1,), (1,)], [tt.float32, tt.int64, tt.string])
    np.testing.assert_array_equal(f.numpy(), [[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_array_equal(i.numpy(), [[5], [9]])  # the second Example takes the default
    assert s.numpy().tolist() == [[b"yes"], [b"no"]]
    assert f.numpy().dtype == np.float32 and i.numpy().dtype == np.int64


def test_parse_example_v2_of_one_scalar_example():
    out, = parse_v2(tt.constant(np.array(serialize_example({"x": [7.0]}), dtype=object)), [b"x"],
                    [np.zeros(0, np.float32)], [()], [tt.float32])
    assert out.numpy().shape == () and float(out.numpy()) == 7.0


@pytest.mark.parametrize("features, message", [
    ({"y": [1.0]}, r"Feature: x \(data type: float\) is required but could not be found"),
    ({"x": [1, 2]}, r"Key: x, Index: 0.  Data types don't match. Data type: int64 but expected type: float"),
    ({"x": [1.0, 2.0]}, r"Number of float values != expected.  Values size: 2 but output shape: \[1\]"),
])
def test_parse_example_v2_errors_are_tensorflow_s(features, message):
    with pytest.raises(InvalidArgumentError, match=message):
        parse_v2(strings(serialize_example(features)), [b"x"], [np.zeros(0, np.float32)], [(1,)], [tt.float32])


def test_malformed_examples_and_unsupported_features():
    with pytest.raises(InvalidArgumentError, match="Could not parse example input"):
        parse_v2(strings(b"\x0a\x05\x0a"), [b"x"], [np.zeros(0, np.float32)], [(1,)], [tt.float32])
    with pytest.raises(UnimplementedError, match="sparse and ragged features are not supported"):
        parse_v2(strings(b""), [b"x"], [np.zeros(0, np.float32)], [(1,)], [tt.float32], num_sparse=1,
                 sparse_types=(tt.int64,))
    with pytest.raises(UnimplementedError, match=r"variable-length dense features \(shape \(None,\)\)"):
        parse_v2(strings(b""), [b"x"], [np.zeros(0, np.float32)], [(None,)], [tt.float32])


def test_parse_example_v1_takes_scalar_keys_then_defaults():
    batch = strings(serialize_example({"a": [1.0], "b": [2.0]}), serialize_example({"a": [3.0]}))
    a, b = ParseExample.bind(batch, EMPTY, tt.constant(np.array(b"a", object)), tt.constant(np.array(b"b", object)),
                             tt.constant(np.zeros(0, np.float32)), tt.constant(np.array([-1.0], np.float32)),
                             Nsparse=0, Ndense=2, dense_shapes=((1,), (1,)), sparse_types=(),
                             Tdense=(tt.float32, tt.float32))
    np.testing.assert_array_equal(a.numpy(), [[1.0], [3.0]])
    np.testing.assert_array_equal(b.numpy(), [[2.0], [-1.0]])


def test_parsing_refuses_xla():
    with pytest.raises(UnimplementedError, match="runs on the graph backend, not under XLA"):
        ParseExampleV2.lower()


def test_placeholder_with_default_is_its_input_with_a_looser_shape():
    f = tt.function(lambda x: PlaceholderWithDefault.bind(x, shape=(None, 1)))
    cf = f.get_concrete_function(tt.TensorSpec([2, 1], tt.float32))
    assert '"tf.PlaceholderWithDefault"' in cf.mlir() and "#tf_type.shape<?x1>" in cf.mlir()
    np.testing.assert_array_equal(f(tt.constant([[1.0], [2.0]])).numpy(), [[1.0], [2.0]])
    with pytest.raises(InvalidArgumentError, match="the default has shape"):
        PlaceholderWithDefault.bind(tt.constant([1.0, 2.0]), shape=(3,))
