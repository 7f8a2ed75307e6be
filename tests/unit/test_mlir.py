"""Parsing, printing and verifying MLIR: fixed points, TensorFlow's exports, clear errors."""
import subprocess
import sys
from pathlib import Path

import pytest

from tinytf import mlir
from tinytf.errors import InvalidArgumentError, NotFoundError, ParseError

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = sorted((ROOT / "tests/conformance/fixtures").glob("*.mlir"))
ROUND_TRIP_FILES = sorted(p for p in (ROOT / "tests/filecheck/dialect").glob("*.mlir") if p.name != "invalid.mlir")


@pytest.mark.parametrize("path", FIXTURES + ROUND_TRIP_FILES, ids=lambda p: p.name)
@pytest.mark.parametrize("generic", [False, True])
def test_print_parse_print_is_a_fixed_point(path, generic):
    module = mlir.parse(path)
    mlir.verify(module)
    first = mlir.print(module, generic=generic)
    second = mlir.print(mlir.parse(first), generic=generic)
    assert first == second


def test_tensorflow_exports_keep_their_ops_and_attributes():
    text = mlir.print(mlir.parse(ROOT / "tests/conformance/fixtures/keras_cnn.mlir"))
    assert '"tf.Conv2D"' in text and 'padding = "SAME"' in text and "strides = [1, 1, 1, 1]" in text
    assert "tensor<*x!tf_type.resource>" in text and 'tf._user_specified_name = "x"' in text
    assert "tf.versions" in text and "tf.entry_function" in text


def test_unknown_tf_ops_parse_and_print_unchanged():
    text = '"tf.NotAnOpYet"(%x) {weird = [1, "a"]} : (tensor<2x!tf_type.qint8>) -> tensor<*x!tf_type.variant>'
    module = mlir.parse("func.func @f(%x: tensor<2x!tf_type.qint8>) {\n  %0 = " + text + "\n  func.return\n}\n")
    mlir.verify(module)
    assert text in mlir.print(module)


def test_parse_error_has_file_line_col(tmp_path):
    path = tmp_path / "bad.mlir"
    path.write_text('func.func @f() {\n  %0 = "tf.Const"() <{value = dense<[1.0> : tensor<1xf32>}> : () -> tensor<1xf32>\n}\n')
    with pytest.raises(ParseError) as info:
        mlir.parse(path)
    assert str(info.value).startswith(f"{path}:2:")
    assert (info.value.line, info.value.file) == (2, str(path))


def test_verify_error_names_the_op_and_its_location():
    module = mlir.parse('func.func @f(%x: tensor<f32>) {\n  %0 = "tf.AddV2"(%x) : (tensor<f32>) -> tensor<f32>\n'
                        '  func.return\n}\n', name="m.mlir")
    with pytest.raises(InvalidArgumentError, match=r"^m.mlir:2:3: 'tf.AddV2' op Expected 2 operands, but got 1"):
        mlir.verify(module)


def test_missing_file_is_not_found():
    with pytest.raises(NotFoundError, match="cannot read"):
        mlir.parse("/no/such/file.mlir")


def _opt(*args, stdin=None):
    return subprocess.run([sys.executable, "-m", "tinytf.cli.opt", *args], input=stdin,
                          capture_output=True, text=True, cwd=ROOT)


def test_tinytf_opt_reports_bad_input_in_one_line(tmp_path):
    bad = tmp_path / "bad.mlir"
    bad.write_text('func.func @f(%x: tensor<f32>) {\n  %0 = "tf.MatMul"(%x, %x) <{transpose_a = 1 : i32}>'
                   ' : (tensor<f32>, tensor<f32>) -> tensor<f32>\n  func.return\n}\n')
    result = _opt(str(bad))
    assert result.returncode == 1 and result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"{bad}:2:3: 'tf.MatMul' op")
    assert "Traceback" not in result.stderr


def test_tinytf_opt_round_trips_a_fixture():
    path = FIXTURES[0]
    result = _opt(str(path))
    assert result.returncode == 0, result.stderr
    assert result.stdout == mlir.print(mlir.parse(path))


def test_unterminated_string_fails_fast():
    # xDSL's own string regex backtracks exponentially here (a 40-character string never returns).
    text = 'func.func @f() {\n  %0 = "tf.' + "A" * 5000 + "\n}\n"
    with pytest.raises(ParseError, match="2:8: End of file reached before closing string literal"):
        mlir.parse(text)


@pytest.mark.parametrize("text", ["", "   \n\t\n", "// only a comment\n"], ids=["empty", "blank", "comment"])
def test_empty_input_is_a_located_parse_error(text):
    import tinytf as tt

    for load in (mlir.parse, tt.load_mlir):
        with pytest.raises(ParseError) as info:
            load(text)
        assert str(info.value) == "<string>:1:1: empty input: expected a module or operations"
        assert (info.value.file, info.value.line, info.value.col) == ("<string>", 1, 1)


def test_empty_file_is_a_located_parse_error(tmp_path):
    path = tmp_path / "empty.mlir"
    path.write_text("")
    with pytest.raises(ParseError, match=r"^.*empty.mlir:1:1: empty input: expected a module or operations$"):
        mlir.parse(path)
    with pytest.raises(ParseError) as info:
        mlir.parse(str(path))
    assert (info.value.file, info.value.line, info.value.col) == (str(path), 1, 1)


@pytest.mark.parametrize("text, line, col", [
    ("\x00", 1, 1),
    ("a\x00b", 1, 2),
    ('func.func @f() {\n  "tf.NoOp"() : () -> ()\x00\n  func.return\n}\n', 2, 25),
])
def test_nul_byte_is_a_located_parse_error(text, line, col):
    import tinytf as tt

    for load in (mlir.parse, tt.load_mlir):
        with pytest.raises(ParseError) as info:
            load(text)
        assert str(info.value) == f"<string>:{line}:{col}: NUL byte in the input"


def test_nul_byte_and_bad_utf8_in_a_file_are_located(tmp_path):
    nul = tmp_path / "nul.mlir"
    nul.write_bytes(b'func.func @f() {\n  "tf.NoOp"() : () -> ()\x00\n  func.return\n}\n')
    with pytest.raises(ParseError, match=r"nul.mlir:2:25: NUL byte in the input$"):
        mlir.parse(nul)
    bad = tmp_path / "bad.mlir"
    bad.write_bytes('func.func @f() {\n  // é\xff\n}\n'.encode("latin-1").replace(b"\xe9", "é".encode()))
    with pytest.raises(ParseError, match=r"bad.mlir:2:7: invalid UTF-8 byte 0xFF$"):
        mlir.parse(bad)


def test_a_path_holding_a_nul_byte_is_not_found():
    with pytest.raises(NotFoundError, match="cannot read 'a\\\\x00b.mlir': embedded null byte"):
        mlir.parse(Path("a\x00b.mlir"))


@pytest.mark.parametrize("content, message", [
    (b"", ":1:1: empty input: expected a module or operations"),
    (b'func.func @f() {\n  "tf.NoOp"() : () -> ()\x00\n}\n', ":2:25: NUL byte in the input"),
    (b"func.func @f() {\n\xff\n}\n", ":2:1: invalid UTF-8 byte 0xFF"),
], ids=["empty", "nul", "utf8"])
@pytest.mark.parametrize("tool", ["tinytf-opt", "tinytf-translate"])
def test_command_line_tools_report_bad_bytes_in_one_line(tmp_path, capsys, tool, content, message):
    from tinytf.cli import opt, translate

    path = tmp_path / "in.mlir"
    path.write_bytes(content)
    argv = [str(path)] if tool == "tinytf-opt" else ["--mlir-tf-to-hlo-text", str(path)]
    assert (opt if tool == "tinytf-opt" else translate).main(argv) == 1
    out = capsys.readouterr()
    assert out.out == "" and out.err == f"{path}{message}\n"


@pytest.mark.parametrize("content, message", [
    (b"", "<stdin>:1:1: empty input: expected a module or operations"),
    (b"\x00", "<stdin>:1:1: NUL byte in the input"),
])
def test_translate_reports_bad_stdin_in_one_line(monkeypatch, capsys, content, message):
    import io

    from tinytf.cli import translate

    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(content)))
    assert translate.main(["--mlir-tf-to-hlo-text"]) == 1
    assert capsys.readouterr().err == message + "\n"
