"""tt.saved_model.load on SavedModels TensorFlow wrote (TF 1.0 - 2.14, TensorFlow Serving's test models):
every signature runs and gives what TensorFlow Serving's tests expect, on the graph executor and under XLA."""
from __future__ import annotations

import glob
import os
from pathlib import Path

import numpy as np
import pytest

import tinytf as tt
from tinytf.errors import InvalidArgumentError, UnimplementedError
from tinytf.ops.parsing import parse_example, serialize_example

FIXTURES = Path(__file__).parent.parent / "fixtures" / "savedmodels"
SHARED = Path(__file__).resolve().parents[3] / "shared" / "data" / "savedmodels" / "tf-serving"
BACKENDS = ["graph", "xla"]

TF1 = FIXTURES / "half_plus_two_tf1_14"
TF2 = FIXTURES / "half_plus_two_tf2_14"
X = np.array([[1.0], [2.0], [5.0]], np.float32)


def examples(*xs, x2=None):
    out = np.empty(len(xs), dtype=object)
    for i, x in enumerate(xs):
        features = {"x": [float(x)]}
        if x2 is not None:
            features["x2"] = [float(x2[i])]
        out[i] = serialize_example(features)
    return out


def values(outputs: dict) -> dict:
    return {k: v.numpy().tolist() for k, v in outputs.items()}


@pytest.mark.parametrize("backend", BACKENDS)
def test_tf1_predict_is_half_plus_two(backend):
    obj = tt.saved_model.load(TF1, backend=backend)
    assert sorted(obj.signatures) == ["classify_x_to_y", "regress_x2_to_y3", "regress_x_to_y", "regress_x_to_y2",
                                      "serving_default"]
    assert values(obj.signatures["serving_default"](x=X)) == {"y": [[2.5], [3.0], [4.5]]}
    assert values(obj.signatures["regress_x2_to_y3"](inputs=X)) == {"outputs": [[3.5], [4.0], [5.5]]}


def test_tf1_regress_and_classify_parse_tf_examples():
    sigs = tt.saved_model.load(TF1).signatures
    batch = examples(1.0, 3.0, x2=[4.0, -2.0])
    assert values(sigs["regress_x_to_y"](inputs=batch)) == {"outputs": [[2.5], [3.5]]}
    assert values(sigs["regress_x_to_y2"](inputs=batch)) == {"outputs": [[3.5], [4.5]]}
    assert values(sigs["classify_x_to_y"](inputs=batch)) == {"scores": [[2.5], [3.5]]}
    # x is required (an empty default); x2 defaults to 0.0
    with pytest.raises(InvalidArgumentError, match="Feature: x \\(data type: float\\) is required"):
        sigs["regress_x_to_y"](inputs=np.array([serialize_example({"x2": [1.0]})], object))


def test_parse_example_under_xla_is_a_clear_error():
    sigs = tt.saved_model.load(TF1, backend="xla").signatures
    with pytest.raises(UnimplementedError, match="tf.ParseExample parses strings: it runs on the graph backend"):
        sigs["regress_x_to_y"](inputs=examples(1.0))


@pytest.mark.parametrize("backend", BACKENDS)
def test_tf2_signatures_are_concrete_functions_with_bound_variables(backend):
    obj = tt.saved_model.load(TF2, backend=backend)
    sig = obj.signatures["serving_default"]
    assert list(sig.inputs) == ["x"] and sig.output_names == ["y"]
    assert values(sig(x=np.array([1.0], np.float32))) == {"y": [2.5]}
    assert values(obj.signatures["regress_x2_to_y3"](inputs=np.array([4.0], np.float32))) == {"outputs": [5.0]}
    assert values(obj.signatures["classify_x2_to_y3"](inputs=np.array([2.0], np.float32))) == {"scores": [4.0]}


def test_tf2_regress_and_classify_signatures_parse_examples():
    sigs = tt.saved_model.load(TF2).signatures
    batch = examples(1.0, 3.0, x2=[4.0, -2.0])
    assert values(sigs["regress_x_to_y"](inputs=batch)) == {"outputs": [[2.5], [3.5]]}
    assert values(sigs["regress_x_to_y2"](inputs=batch)) == {"outputs": [[3.5], [4.5]]}
    assert values(sigs["classify_x_to_y"](inputs=batch)) == {"scores": [[2.5], [3.5]]}


def test_tf2_restored_functions_and_variables_are_attributes():
    obj = tt.saved_model.load(TF2)
    assert [float(v.numpy()) for v in (obj.a, obj.b, obj.c)] == [0.5, 2.0, 3.0]
    np.testing.assert_array_equal(obj.predict(tt.constant([4.0]))["y"].numpy(), [4.0])  # its structured output
    np.testing.assert_array_equal(obj.regress_x2y3(np.array([2.0], np.float32))["outputs"].numpy(), [4.0])
    with pytest.raises(InvalidArgumentError, match="no concrete function takes arguments of shapes"):
        obj.predict(tt.constant([[1.0, 2.0]]))
    obj.b.assign(10.0)  # the functions read the restored variables
    np.testing.assert_array_equal(obj.signatures["serving_default"](x=np.array([2.0], np.float32))["y"].numpy(), [11.0])


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_counter_keeps_its_state_across_calls(backend):
    sigs = tt.saved_model.load(FIXTURES / "counter_tf1_5", backend=backend).signatures
    read = lambda key, **kw: float(sigs[key](**kw)["output"].numpy())  # noqa: E731
    assert read("get_counter") == 0.0
    assert [read("incr_counter"), read("incr_counter")] == [1.0, 2.0]
    assert read("incr_counter_by", delta=np.float32(5.0)) == 7.0
    assert read("get_counter") == 7.0
    assert read("reset_counter") == 0.0
    assert read("get_counter") == 0.0
    other = tt.saved_model.load(FIXTURES / "counter_tf1_5").signatures  # a second load has its own variable
    assert float(other["get_counter"]()["output"].numpy()) == 0.0


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_graph_without_variables(backend):
    sig = tt.saved_model.load(FIXTURES / "matrix_half_plus_two_tf1_2", backend=backend).signatures["serving_default"]
    x = np.arange(9, dtype=np.float32).reshape(1, 3, 3)
    np.testing.assert_array_equal(sig(x=x)["y"].numpy(), 0.5 * x + 2)


def test_tf1_0_export_with_unknown_placeholder_shapes_is_half_plus_three():
    sigs = tt.saved_model.load(FIXTURES / "half_plus_three_tf1_0").signatures
    assert values(sigs["serving_default"](x=X)) == {"y": [[3.5], [4.0], [5.5]]}
    # the SignatureDef says DT_FLOAT, the graph's placeholder takes the serialized examples
    assert values(sigs["tensorflow/serving/regress"](inputs=examples(1.0, 3.0))) == {"outputs": [[3.5], [4.5]]}


def test_the_tf1_main_op_ran_once_with_the_asset_path():
    obj = tt.saved_model.load(TF1)
    by_name = {v.name: v for v in obj.variables}
    assert by_name["filename_tensor:0"].numpy()[()] == b"foo.txt"  # group_deps assigned it
    assert float(by_name["a:0"].numpy()) == 0.5 and float(by_name["c2:0"].numpy()) == 3.0


def test_signature_inputs_are_checked():
    sig = tt.saved_model.load(TF2).signatures["serving_default"]
    with pytest.raises(InvalidArgumentError, match=r"takes inputs \['x'\]; missing \['x'\]; unexpected \['z'\]"):
        sig(z=np.array([1.0], np.float32))
    with pytest.raises(InvalidArgumentError, match="input 'x': expected float32, got float64"):
        sig(x=np.array([1.0]))
    with pytest.raises(InvalidArgumentError, match=r"expected shape \[1\], got \[2\]"):
        sig(x=np.array([1.0, 2.0], np.float32))
    assert sig(x=[3.0])["y"].numpy().tolist() == [3.5]  # a Python value converts to the input's dtype


def test_tags_select_the_meta_graph():
    assert tt.saved_model.load(TF1, tags=["serve"]).tags == ["serve"]
    assert tt.saved_model.load(TF1, tags="serve").tags == ["serve"]
    with pytest.raises(tt.errors.NotFoundError, match="tag-set 'gpu' could not be found.*its tag-sets: 'serve'"):
        tt.saved_model.load(TF1, tags=["gpu"])


def test_example_wire_format_round_trip():
    data = serialize_example({"f": [1.5, -2.0], "i": [3, -4], "s": ["a", b"\x00b"]})
    assert parse_example(data) == {b"f": ("float", [1.5, -2.0]), b"i": ("int64", [3, -4]),
                                   b"s": ("bytes", [b"a", b"\x00b"])}


# --- every SavedModel of TensorFlow Serving's tests, when ../shared is there ------------------------

SHARED_MODELS = sorted(p for p in glob.glob(str(SHARED / "*" / "*")) if os.path.isfile(os.path.join(p, "saved_model.pb")))


@pytest.mark.skipif(not SHARED_MODELS, reason="../shared/data/savedmodels is not here")
@pytest.mark.parametrize("path", SHARED_MODELS, ids=lambda p: "/".join(Path(p).parts[-2:]))
def test_every_shared_savedmodel_loads_and_predicts(path):
    obj = tt.saved_model.load(path)
    if "counter" in path:
        assert float(obj.signatures["incr_counter"]()["output"].numpy()) == 1.0
        return
    sigs = obj.signatures
    plus = 3.0 if "half_plus_three" in path else 2.0
    if "matrix" in path:
        x = np.ones((2, 3, 3), np.float32)
        np.testing.assert_array_equal(sigs["serving_default"](x=x)["y"].numpy(), 0.5 * x + 2)
        return
    x = np.array([1.0], np.float32) if "tf2" in path else (np.array([[1.0]], np.float32) if "mkl" in path else X)
    np.testing.assert_array_equal(sigs["serving_default"](x=x)["y"].numpy().reshape(-1), (0.5 * x + plus).reshape(-1))
    batch = examples(1.0) if "mkl" in path else examples(1.0, 3.0, x2=[4.0, 4.0])
    xs = np.array([1.0] if "mkl" in path else [1.0, 3.0])
    for sig in sigs.values():
        key = next(iter(sig.inputs), None)
        if key is None or sig.inputs[key].dtype is not tt.string:
            continue
        out = next(iter(sig(**{key: batch}).values())).numpy().reshape(len(xs), -1)[:, 0]
        assert any(np.array_equal(out, 0.5 * xs + b) for b in (plus, 3.0)), (sig, out)  # y, or y2 = 0.5x + c
