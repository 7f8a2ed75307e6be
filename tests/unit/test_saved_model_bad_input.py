"""Bad SavedModels are tinytf errors at load, and one line from the command line (exit status 1): a truncated
saved_model.pb, a flipped byte in a variables shard, a missing variables folder, ops tinytf lacks (one error
naming them all), an old-style export."""
from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

import tinytf as tt
from tinytf.cli import main as tinytf_main
from tinytf.cli import translate as translate_cli
from tinytf.errors import DataLossError, NotFoundError, UnimplementedError
from tinytf.formats import protos

FIXTURES = Path(__file__).parent.parent / "fixtures" / "savedmodels"


def copy(name: str, tmp_path: Path) -> Path:
    dst = tmp_path / name
    shutil.copytree(FIXTURES / name, dst)
    for p in dst.rglob("*"):
        p.chmod(0o644 if p.is_file() else 0o755)
    return dst


def one_line_error(capsys, argv) -> str:
    assert tinytf_main.main(argv) == 1
    captured = capsys.readouterr()
    err = captured.err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    assert err.startswith("tinytf saved_model: error: ")
    assert "Result for output key" not in captured.out  # never a partial result
    return err


def run_argv(path):
    return ["saved_model", "run", "--dir", str(path), "--tag_set", "serve", "--signature_def", "serving_default",
            "--input_exprs", "x=np.ones((1, 1))"]


def test_a_truncated_saved_model_pb(tmp_path, capsys):
    path = copy("half_plus_two_tf1_14", tmp_path)
    pb = path / "saved_model.pb"
    pb.write_bytes(pb.read_bytes()[:5000])
    with pytest.raises(DataLossError, match="saved_model.pb: cannot parse as SavedModel"):
        tt.saved_model.load(path)
    assert "cannot parse as SavedModel" in one_line_error(capsys, run_argv(path))
    assert "cannot parse as SavedModel" in one_line_error(capsys, ["saved_model", "show", "--dir", str(path), "--all"])


def test_an_empty_saved_model_pb(tmp_path):
    path = tmp_path / "empty"
    path.mkdir()
    (path / "saved_model.pb").write_bytes(b"")
    with pytest.raises(DataLossError, match="holds no MetaGraphDef"):
        tt.saved_model.load(path)


@pytest.mark.parametrize("name", ["half_plus_two_tf1_14", "half_plus_two_tf2_14"])
def test_a_flipped_byte_in_the_variables_shard(tmp_path, capsys, name):
    path = copy(name, tmp_path)
    shard = path / "variables" / "variables.data-00000-of-00001"
    data = bytearray(shard.read_bytes())
    data[2] ^= 0x40  # inside the first float variable
    shard.write_bytes(bytes(data))
    with pytest.raises(DataLossError, match=r"variables.data-00000-of-00001.*checksum|crc") as err:
        tt.saved_model.load(path)
    assert "variables.data-00000-of-00001" in str(err.value)
    assert "variables.data-00000-of-00001" in one_line_error(capsys, run_argv(path))


@pytest.mark.parametrize("name", ["half_plus_two_tf1_14", "half_plus_two_tf2_14", "counter_tf1_5"])
def test_a_missing_variables_folder(tmp_path, capsys, name):
    path = copy(name, tmp_path)
    shutil.rmtree(path / "variables")
    with pytest.raises(NotFoundError, match=r"variables? \(.*\) but no checkpoint: .*variables/variables.index is "
                                            "missing"):
        tt.saved_model.load(path)
    assert "but no checkpoint" in one_line_error(capsys, run_argv(path))


def test_ops_tinytf_lacks_are_one_error_naming_each_and_where(tmp_path, capsys):
    path = copy("half_plus_two_tf1_14", tmp_path)
    saved = protos.parse(protos.SavedModel, (path / "saved_model.pb").read_bytes(), "saved_model.pb")
    for node in saved.meta_graphs[0].graph_def.node:
        if node.name in ("Mul", "Mul_1"):
            node.op = "FancyMul"
        elif node.name == "Add_2":
            node.op = "FancyAdd"
    (path / "saved_model.pb").write_bytes(saved.SerializeToString())
    with pytest.raises(UnimplementedError) as err:
        tt.saved_model.load(path)
    message = str(err.value)
    assert message.startswith("tinytf does not implement 2 TensorFlow ops this graph uses: ")
    assert "FancyAdd (node 'Add_2')" in message
    assert "FancyMul (node 'Mul', node 'Mul_1')" in message  # each node once, though several signatures use it
    assert "FancyMul" in one_line_error(capsys, run_argv(path))


def test_a_missing_op_inside_a_tf2_function_names_the_function(tmp_path):
    path = copy("half_plus_two_tf2_14", tmp_path)
    saved = protos.parse(protos.SavedModel, (path / "saved_model.pb").read_bytes(), "saved_model.pb")
    for fdef in saved.meta_graphs[0].graph_def.library.function:
        for node in fdef.node_def:
            if node.op == "AddV2":
                node.op = "FancyAddV2"
    (path / "saved_model.pb").write_bytes(saved.SerializeToString())
    with pytest.raises(UnimplementedError, match=r"FancyAddV2 \(node 'Add' in function __inference_\w+_\d+"):
        tt.saved_model.load(path)


def test_an_old_style_export_is_not_a_saved_model(capsys):
    path = FIXTURES / "bad_half_plus_two"
    with pytest.raises(NotFoundError) as err:
        tt.saved_model.load(path)
    message = str(err.value)
    assert "SavedModel file does not exist at:" in message and "{saved_model.pbtxt|saved_model.pb}" in message
    assert "export.meta and a checkpoint: an old-style (pre-SavedModel) export" in message
    assert "old-style" in one_line_error(capsys, run_argv(path))
    assert "old-style" in one_line_error(capsys, ["saved_model", "show", "--dir", str(path)])


def test_a_serving_base_path_points_at_its_versions(tmp_path):
    base = tmp_path / "half_plus_two"
    shutil.copytree(FIXTURES / "matrix_half_plus_two_tf1_2", base / "00000123")
    with pytest.raises(NotFoundError, match=r"version folders 00000123 \(a TensorFlow Serving base path\)"):
        tt.saved_model.load(base)


def test_translate_reports_bad_savedmodels_in_one_line(tmp_path, capsys):
    path = copy("half_plus_two_tf2_14", tmp_path)
    shutil.rmtree(path / "variables")
    assert translate_cli.main(["--savedmodel-objectgraph-to-mlir", str(path)]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("tinytf-translate: error: ") and "but no checkpoint" in err and len(err.splitlines()) == 1


def test_a_signature_naming_a_tensor_the_graph_lacks(tmp_path):
    path = copy("matrix_half_plus_two_tf1_2", tmp_path)
    saved = protos.parse(protos.SavedModel, (path / "saved_model.pb").read_bytes(), "saved_model.pb")
    saved.meta_graphs[0].signature_def["serving_default"].outputs["y"].name = "nope:0"
    (path / "saved_model.pb").write_bytes(saved.SerializeToString())
    with pytest.raises(tt.errors.InvalidArgumentError, match="output 'y' names tensor nope:0, not in the graph"):
        tt.saved_model.load(path)


def test_a_bad_example_string_is_an_invalid_argument():
    sig = tt.saved_model.load(FIXTURES / "half_plus_two_tf1_14").signatures["regress_x_to_y"]
    with pytest.raises(tt.errors.InvalidArgumentError, match="Could not parse example input"):
        sig(inputs=np.array([b"\x0a\xff\xff"], object))
