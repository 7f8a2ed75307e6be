"""The tf.print cases whose text TensorFlow 2.21 printed (tests/fixtures/print/tf_print.json, written by
tests/conformance/export_print_fixtures.py) and tests/unit/test_print.py compares tt.print's with.

Each case: name -> (inputs, keyword arguments). An input is ("tensor", array) for a tensor, anything else
is passed as it is (a Python string, number or structure, which tf.print formats while tracing).
"""
from __future__ import annotations

import numpy as np


def tensor(value, dtype=None):
    return ("tensor", np.asarray(value, dtype))


CASES = {
    "scalar_int": ([tensor(5, np.int32)], {}),
    "scalar_floats": ([tensor(1.5, np.float32), tensor(0.1, np.float32), tensor(1 / 3, np.float64)], {}),
    "float_formats": ([tensor([1e-7, 1e10, -2.5, 0.0, 123456789.0, 1.0], np.float32)], {"summarize": -1}),
    "specials": ([tensor([np.nan, np.inf, -np.inf, -0.0], np.float64)], {}),
    "long_vector": ([tensor(np.arange(10), np.int64)], {}),
    "long_vector_summarize_1": ([tensor(np.arange(10), np.int64)], {"summarize": 1}),
    "long_vector_all": ([tensor(np.arange(10), np.int64)], {"summarize": -1}),
    "matrix": ([tensor(np.arange(6).reshape(2, 3), np.int32)], {}),
    "big_matrix": ([tensor(np.arange(64).reshape(8, 8) * 0.5, np.float32)], {"summarize": 2}),
    "cube": ([tensor(np.arange(12).reshape(2, 2, 3), np.int32)], {}),
    "bools": ([tensor([True, False, True])], {}),
    "strings": ([tensor(["a", "bc", "d"], object)], {}),
    "string_scalar": ([tensor("hello", object)], {}),
    "empty": ([tensor(np.zeros((0, 3)), np.float32)], {}),
    "text_and_tensors": (["x =", tensor([1, 2], np.int32), "and", 7, 2.5], {}),
    "separator_and_end": (["a", tensor(3, np.int32), "b"], {"sep": ", ", "end": "!\n"}),
    "structure": ([{"w": tensor([1.0, 2.0], np.float32), "n": 3}, [tensor(4, np.int32), "s"]], {}),
    "percent_and_braces": (["100% {} {{x}}", tensor(1, np.int32)], {}),
}
