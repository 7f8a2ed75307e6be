"""``tinytf saved_model show|run`` print what ``saved_model_cli`` prints; ``tinytf-translate``'s SavedModel
importers print the tf_saved_model module."""
from __future__ import annotations

import re
import textwrap
from pathlib import Path

import numpy as np
import pytest

from tinytf import mlir
from tinytf.cli import main as tinytf_main
from tinytf.cli import translate as translate_cli
from tinytf.cli.saved_model import ops_used
from tinytf.saved_model import reader

FIXTURES = Path(__file__).parent.parent / "fixtures" / "savedmodels"
TF1, TF2, COUNTER = FIXTURES / "half_plus_two_tf1_14", FIXTURES / "half_plus_two_tf2_14", FIXTURES / "counter_tf1_5"


def cli(capsys, *argv) -> str:
    assert tinytf_main.main(["saved_model", *map(str, argv)]) == 0
    return capsys.readouterr().out


COUNTER_ALL = """
MetaGraphDef with tag-set: 'serve' contains the following SignatureDefs:

signature_def['get_counter']:
  The given SavedModel SignatureDef contains the following input(s):
  The given SavedModel SignatureDef contains the following output(s):
    outputs['output'] tensor_info:
        dtype: DT_FLOAT_REF
        shape: ()
        name: counter:0
  Method name is: tensorflow/serving/predict

signature_def['incr_counter']:
  The given SavedModel SignatureDef contains the following input(s):
  The given SavedModel SignatureDef contains the following output(s):
    outputs['output'] tensor_info:
        dtype: DT_FLOAT_REF
        shape: ()
        name: incr_counter_op/AssignAdd:0
  Method name is: tensorflow/serving/predict

signature_def['incr_counter_by']:
  The given SavedModel SignatureDef contains the following input(s):
    inputs['delta'] tensor_info:
        dtype: DT_FLOAT
        shape: unknown_rank
        name: delta:0
  The given SavedModel SignatureDef contains the following output(s):
    outputs['output'] tensor_info:
        dtype: DT_FLOAT_REF
        shape: ()
        name: incr_counter_by_op/AssignAdd:0
  Method name is: tensorflow/serving/predict

signature_def['reset_counter']:
  The given SavedModel SignatureDef contains the following input(s):
  The given SavedModel SignatureDef contains the following output(s):
    outputs['output'] tensor_info:
        dtype: DT_FLOAT_REF
        shape: ()
        name: reset_counter_op/Assign:0
  Method name is: tensorflow/serving/predict
The MetaGraph with tag set ['serve'] contains the following ops: {'Assign', 'AssignAdd', 'Const', 'Identity', \
'MergeV2Checkpoints', 'NoOp', 'Pack', 'Placeholder', 'RestoreV2', 'SaveV2', 'ShardedFilename', 'StringJoin', \
'VariableV2'}
"""


def test_show_all_prints_saved_model_cli_s_text(capsys):
    assert cli(capsys, "show", "--dir", COUNTER, "--all") == COUNTER_ALL


def test_show_all_of_a_tf2_model_lists_its_concrete_functions(capsys):
    out = cli(capsys, "show", "--dir", TF2, "--all")
    assert textwrap.dedent("""\
        signature_def['__saved_model_init_op']:
          The given SavedModel SignatureDef contains the following input(s):
          The given SavedModel SignatureDef contains the following output(s):
            outputs['__saved_model_init_op'] tensor_info:
                dtype: DT_INVALID
                shape: unknown_rank
                name: NoOp
          Method name is: \n""") in out
    assert "        shape: (-1, 1)\n        name: StatefulPartitionedCall_1:0\n" in out
    concrete = out[out.index("\nConcrete Functions:"):]
    assert concrete.startswith(textwrap.dedent("""
        Concrete Functions:
          Function Name: 'classify_x2y3'
            Option #1
              Callable with:
                Argument #1
                  inputs: TensorSpec(shape=(1,), dtype=tf.float32, name='inputs')
        """))
    assert "  Function Name: 'predict'\n    Option #1\n      Callable with:\n        Argument #1\n" \
           "          x: TensorSpec(shape=(1,), dtype=tf.float32, name='x')\n" in concrete
    assert "inputs: TensorSpec(shape=(None,), dtype=tf.string, name='inputs')" in concrete
    assert [line for line in concrete.splitlines() if "Function Name" in line] == [
        f"  Function Name: '{n}'" for n in ("classify_x2y3", "classify_xy", "predict", "regress_x2y3", "regress_xy",
                                            "regress_xy2")]


def test_show_tag_sets_signature_keys_and_one_signature(capsys):
    assert cli(capsys, "show", "--dir", TF1) == "The given SavedModel contains the following tag-sets:\n'serve'\n"
    assert cli(capsys, "show", "--dir", TF1, "--tag_set", "serve") == (
        "The given SavedModel MetaGraphDef contains SignatureDefs with the following keys:\n"
        + "".join(f'SignatureDef key: "{k}"\n' for k in ("classify_x_to_y", "regress_x2_to_y3", "regress_x_to_y",
                                                           "regress_x_to_y2", "serving_default")))
    assert cli(capsys, "show", "--dir", TF1, "--tag_set", "serve", "--signature_def", "serving_default") == \
        textwrap.dedent("""\
        The given SavedModel SignatureDef contains the following input(s):
          inputs['x'] tensor_info:
              dtype: DT_FLOAT
              shape: (-1, 1)
              name: x:0
        The given SavedModel SignatureDef contains the following output(s):
          outputs['y'] tensor_info:
              dtype: DT_FLOAT
              shape: (-1, 1)
              name: y:0
        Method name is: tensorflow/serving/predict
        """)


def test_ops_used_include_the_functions_a_graph_calls():
    mg = reader.find_meta_graph(reader.read_saved_model(TF2), None)
    ops = ops_used(mg.graph_def)
    assert "ParseExampleV2" in ops and "AddV2" in ops  # only inside library functions
    assert not any(op.startswith("__inference") for op in ops)


def test_run_with_inputs_exprs_and_examples(tmp_path, capsys):
    np.save(tmp_path / "x.npy", np.array([[1.0], [2.0]], np.float32))
    np.savez(tmp_path / "xs.npz", a=np.array([[4.0]], np.float32), b=np.array([[6.0]], np.float32))
    out = cli(capsys, "run", "--dir", TF1, "--tag_set", "serve", "--signature_def", "serving_default",
              "--inputs", f"x={tmp_path / 'x.npy'}", "--outdir", tmp_path / "out")
    assert out == f"Result for output key y:\n[[2.5]\n [3. ]]\nOutput y is saved to {tmp_path / 'out' / 'y.npy'}\n"
    np.testing.assert_array_equal(np.load(tmp_path / "out" / "y.npy"), [[2.5], [3.0]])
    out = cli(capsys, "run", "--dir", TF1, "--tag_set", "serve", "--signature_def", "serving_default",
              "--inputs", f"x={tmp_path / 'xs.npz'}[b]")
    assert out == "Result for output key y:\n[[5.]]\n"
    out = cli(capsys, "run", "--dir", TF2, "--tag_set", "serve", "--signature_def", "serving_default",
              "--input_exprs", "x=np.ones((1,)) * 4")  # float64 is fed as the input's float32
    assert out == "Result for output key y:\n[4.]\n"
    out = cli(capsys, "run", "--dir", TF2, "--tag_set", "serve", "--signature_def", "regress_x_to_y",
              "--input_examples", 'inputs=[{"x": [1.0]}, {"x": [7.0]}]')
    assert out == "Result for output key outputs:\n[[2.5]\n [5.5]]\n"


def test_run_refuses_to_overwrite_and_bad_keys(tmp_path, capsys):
    (tmp_path / "y.npy").write_bytes(b"")
    argv = ["saved_model", "run", "--dir", str(TF1), "--tag_set", "serve", "--signature_def", "serving_default",
            "--input_exprs", "x=[[1.0]]", "--outdir", str(tmp_path)]
    assert tinytf_main.main(argv) == 1
    assert 'Add "--overwrite" to overwrite' in capsys.readouterr().err
    assert tinytf_main.main(argv + ["--overwrite"]) == 0
    np.testing.assert_array_equal(np.load(tmp_path / "y.npy"), [[2.5]])
    capsys.readouterr()
    assert tinytf_main.main(argv[:-2] + ["--input_exprs", "z=[[1.0]]"]) == 1
    assert '"z" is not a valid input key' in capsys.readouterr().err
    assert tinytf_main.main(argv[:7] + ["nope", "--input_exprs", "x=[[1.0]]"]) == 1
    assert 'Could not find signature "nope"' in capsys.readouterr().err


def test_translate_objectgraph_prints_tf_saved_model_semantics(capsys):
    assert translate_cli.main(["--savedmodel-objectgraph-to-mlir", str(TF2)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("module attributes {tf.versions = {bad_consumers = [], min_consumer = 12 : i32, "
                          "producer = 1569 : i32}, tf_saved_model.semantics} {")
    assert ('"tf_saved_model.global_tensor"() <{is_mutable, sym_name = "__sm_node1__a", type = tensor<f32>, '
            'value = dense<5.000000e-01> : tensor<f32>}> {tf_saved_model.exported_names = ["a"]}') in out
    assert ('func.func @__inference_predict_235(%arg0: tensor<1xf32> {tf._user_specified_name = "x", '
            'tf_saved_model.index_path = [0]}, %arg1: tensor<!tf_type.resource<tensor<f32>>> '
            '{tf_saved_model.bound_input = @__sm_node1__a}') in out
    assert 'tf_saved_model.exported_names = ["predict"]' in out
    assert ('@__inference_signature_wrapper_predict_245(%arg0: tensor<1xf32> {tf._user_specified_name = "x", '
            'tf_saved_model.index_path = ["x"]}') in out
    assert mlir.print(mlir.parse(out)) == out  # reprints unchanged


def test_translate_signaturedefs_lifts_variables_and_the_session_initializer(capsys):
    assert translate_cli.main(["--savedmodel-signaturedefs-to-mlir", str(TF1)]) == 0
    out = capsys.readouterr().out
    assert '"tf_saved_model.session_initializer"() <{initializers = [@__saved_model_init_op]}>' in out
    assert '"tf_saved_model.asset"() <{filename = "assets/foo.txt", sym_name = "__tf_saved_model_asset0_foo.txt"}>' \
        in out
    assert ('"tf_saved_model.global_tensor"() <{is_mutable, sym_name = "a", type = tensor<f32>, '
            'value = dense<5.000000e-01> : tensor<f32>}>') in out
    assert ('func.func @serving_default(%arg0: tensor<?x1xf32> {tf_saved_model.index_path = ["x"]}, '
            '%arg1: tensor<!tf_type.resource<tensor<f32>>> {tf_saved_model.bound_input = @a}, '
            '%arg2: tensor<!tf_type.resource<tensor<f32>>> {tf_saved_model.bound_input = @b}) -> '
            '(tensor<?x1xf32> {tf_saved_model.index_path = ["y"]})') in out
    assert 'tf_saved_model.exported_names = ["__tf_saved_model_session_initializer_group_deps"]' in out
    assert mlir.print(mlir.parse(out)) == out


def _ops_sorted(text: str) -> str:
    """TensorFlow prints the op set of ``--all`` as a Python set (hash order); tinytf sorts it."""
    def sort(match):
        return "{" + ", ".join(sorted(match.group(1).split(", "))) + "}"

    return re.sub(r"(?<=contains the following ops: )\{(.*)\}", sort, text)


@pytest.mark.parametrize("name", ["half_plus_two_tf1_14", "half_plus_two_tf2_14", "counter_tf1_5",
                                  "matrix_half_plus_two_tf1_2", "half_plus_three_tf1_0"])
def test_show_all_is_what_tensorflow_2_21_saved_model_cli_printed(capsys, name):
    # saved_model_cli_show_all/<name>.txt: `saved_model_cli show --dir <name> --all` run with TensorFlow 2.21
    want = (FIXTURES / "saved_model_cli_show_all" / f"{name}.txt").read_text()
    assert cli(capsys, "show", "--dir", FIXTURES / name, "--all") == _ops_sorted(want)
