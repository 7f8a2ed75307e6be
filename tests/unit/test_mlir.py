"""Parsing, printing and verifying MLIR: fixed points, TensorFlow's exports, clear errors."""
import subprocess
import sys
from pathlib import Path

import pytest

from tinytf import mlir
from tinytf.errors import InvalidArgumentError, NotFoundError, ParseError

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = sorted((ROOT / "tests/conformance/fixtures").glob("*.mlir"))
ROUND_TRIP_FILES = sorted(p for p in (ROOT / "tests/filecheck/dialect").glob("*.mlir") if "invalid" not in p.name)


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
    text = '"tf.NotAnOpYet"(%arg0) {weird = [1, "a"]} : (tensor<2x!tf_type.qint8>) -> tensor<*x!tf_type.variant>'
    module = mlir.parse("func.func @f(%arg0: tensor<2x!tf_type.qint8>) {\n  %0 = " + text + "\n  func.return\n}\n")
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


# --- printing as MLIR prints -------------------------------------------------------------------

@pytest.mark.parametrize("value, type_, text", [
    (8.0, "f32", "8.000000e+00"),
    (0.1, "f32", "1.000000e-01"),
    (0.01, "f32", "0.00999999977"),          # APFloat cuts %e to 9.999990e-03, which reads back wrong
    (0.00704810954, "f32", "0.00704810954"),  # Python's correctly rounded 9 digits: ...955
    (1 / 3, "f32", "0.333333343"),
    (1 / 3, "f64", "0.33333333333333331"),
    (-0.0, "f32", "-0.000000e+00"),
    (65504.0, "f16", "6.550400e+04"),
    (123456789.0, "f64", None),               # no '.' in APFloat's form: MLIR prints the bits
])
def test_floats_print_as_llvm_apfloat_writes_them(value, type_, text):
    import numpy as np

    from tinytf.framework import apfloat

    stored = float(np.asarray(value, {"f16": np.float16, "f32": np.float32, "f64": np.float64}[type_]))
    assert apfloat.mlir_float_text(stored, *apfloat.SEMANTICS[type_]) == text


def test_results_print_as_one_group_and_names_get_mlirs_suffixes():
    # MLIR drops the text's names: %argN, %N, and the names ops give (tf.Const's %cst; ODS result names)
    module = mlir.parse('func.func @f(%v: tensor<2xi32>) -> (tensor<i32>, tensor<i32>) {\n'
                        '  %cst = "tf.Const"() {value = dense<1> : tensor<i32>} : () -> tensor<i32>\n'
                        '  %cst_7 = "tf.Const"() {value = dense<2> : tensor<i32>} : () -> tensor<i32>\n'
                        '  %a, %b = "tf.Unpack"(%v) {axis = 0 : i64} : (tensor<2xi32>) -> (tensor<i32>, tensor<i32>)\n'
                        '  %0:2 = "tf.Unpack"(%v) {axis = 0 : i64} : (tensor<2xi32>) -> (tensor<i32>, tensor<i32>)\n'
                        '  %u:2 = "tf.Unique"(%v) : (tensor<2xi32>) -> (tensor<2xi32>, tensor<2xi32>)\n'
                        '  func.return %0#1, %cst_7 : tensor<i32>, tensor<i32>\n}\n')
    text = mlir.print(module)
    assert "func.func @f(%arg0: tensor<2xi32>)" in text
    assert '%cst = "tf.Const"' in text and '%cst_0 = "tf.Const"' in text
    assert '%0:2 = "tf.Unpack"(%arg0)' in text and '%1:2 = "tf.Unpack"(%arg0)' in text
    assert '%y, %idx = "tf.Unique"(%arg0)' in text
    assert "return %1#1, %cst_0 : tensor<i32>, tensor<i32>" in text
    assert mlir.print(mlir.parse(text)) == text


def test_attribute_dictionaries_print_sorted():
    module = mlir.parse_text('"tf.X"() <{z = 1 : i64, a = 2 : i64}> {y = "b", b = {d = 1 : i64, c = 2 : i64}} : () -> ()')
    assert '"tf.X"() <{a = 2 : i64, z = 1 : i64}> {b = {c = 2 : i64, d = 1 : i64}, y = "b"} : () -> ()' \
        in mlir.print(module)


def test_a_custom_form_op_that_does_not_verify_prints_generic():
    # 3 results for n = 2 and one returned value: its custom form would read back with 2
    text = ('func.func @f(%a: tensor<i32>) {\n  %r:3 = "tf_device.replicate"() ({\n'
            '    tf_device.return %a : tensor<i32>\n  }) {n = 2 : i32, operandSegmentSizes = array<i32: 0, 0>}'
            ' : () -> (tensor<i32>, tensor<i32>, tensor<i32>)\n  func.return\n}\n')
    printed = mlir.print(mlir.parse(text))
    assert '"tf_device.replicate"() <{n = 2 : i32, operandSegmentSizes = array<i32: 0, 0>}>' in printed
    assert '"func.func"() <{function_type' in printed  # every op, as MLIR prints an invalid module
    assert len(list(mlir.parse(printed).walk())) == len(list(mlir.parse(text).walk()))


def test_locations_print_with_debuginfo_only():
    module = mlir.parse_text('"tf.NoOp"() : () -> () loc("m.py":3:4)')
    assert 'loc(' not in mlir.print(module)
    assert '"tf.NoOp"() : () -> () loc("m.py":3:4)' in mlir.print(module, debuginfo=True)


def test_tensor_proto_constant_runs_with_its_values():
    import numpy as np

    import tinytf as tt

    # "tftensor$" + a TensorProto in text form, as TensorFlow mangles it
    proto = b'tftensor$dtype: DT_INT32 tensor_shape { dim { size: 3 } } int_val: 7 int_val: -1 int_val: 4'
    text = ('func.func @main() -> tensor<3xi32> {\n'
            f'  %0 = "tf.Const"() {{value = #tf_type<tensor_proto : "0x{proto.hex().upper()}"> : tensor<3xi32>}}'
            ' : () -> tensor<3xi32>\n  func.return %0 : tensor<3xi32>\n}\n')
    module = mlir.parse(text)
    mlir.verify(module)
    assert f'#tf_type<tensor_proto : "0x{proto.hex().upper()}"> : tensor<3xi32>' in mlir.print(module)
    (out,) = tt.load_mlir(text).run()
    np.testing.assert_array_equal(out, np.array([7, -1, 4], np.int32))


def test_a_tensor_proto_of_the_wrong_shape_is_refused_when_run():
    import tinytf as tt

    proto = b'tftensor$dtype: DT_INT32 tensor_shape { dim { size: 2 } } int_val: 7 int_val: 1'
    text = ('func.func @main() -> tensor<3xi32> {\n'
            f'  %0 = "tf.Const"() {{value = #tf_type<tensor_proto : "0x{proto.hex()}"> : tensor<3xi32>}}'
            ' : () -> tensor<3xi32>\n  func.return %0 : tensor<3xi32>\n}\n')
    with pytest.raises(InvalidArgumentError, match=r"the tensor proto holds shape \[2\], its type says tensor<3xi32>"):
        tt.load_mlir(text).run()


# --- verifying: every function's first error, MLIR's order ---------------------------------------

def test_verify_each_reports_the_first_error_of_each_function():
    module = mlir.parse('func.func @f(%x: tensor<f32>) {\n  %0 = "tf.AddV2"(%x) : (tensor<f32>) -> tensor<f32>\n'
                        '  %1 = "tf.AddV2"(%x) : (tensor<f32>) -> tensor<f32>\n  func.return\n}\n'
                        'func.func @ok() {\n  func.return\n}\n'
                        'func.func @g(%x: tensor<f32>) {\n  "tf.AddV2"(%x, %x, %x) : (tensor<f32>, tensor<f32>, tensor<f32>)'
                        ' -> ()\n  func.return\n}\n', name="m.mlir")
    errors = [str(e) for e in mlir.verify_each(module)]
    assert errors == ["m.mlir:2:3: 'tf.AddV2' op Expected 2 operands, but got 1",
                      "m.mlir:10:3: 'tf.AddV2' op Expected 2 operands, but got 3"]


def test_a_missing_terminator_is_named_after_the_ops_own_error():
    # MLIR checks a block's terminator on leaving the block: the op's own error comes first
    module = mlir.parse('func.func @f(%x: tensor<f32>) {\n  %0 = "tf.AddV2"(%x) : (tensor<f32>) -> tensor<f32>\n}\n'
                        'func.func @g(%x: tensor<f32>) {\n  %0 = "tf.Neg"(%x) : (tensor<f32>) -> tensor<f32>\n}\n',
                        name="m.mlir")
    assert [str(e) for e in mlir.verify_each(module)] == [
        "m.mlir:2:3: 'tf.AddV2' op Expected 2 operands, but got 1",
        "m.mlir:5:3: block with no terminator, has 'tf.Neg'"]


# --- tinytf-opt --verify-diagnostics: every expected-* of a file -------------------------------

CASES = '''func.func @one(%x: tensor<f32>) {
  // expected-error@+1 {{'tf.AddV2' op Expected 2 operands, but got 1}}
  %0 = "tf.AddV2"(%x) : (tensor<f32>) -> tensor<f32>
  func.return
}

// -----

func.func @two(%x: tensor<f32>) {
  %0 = "tf.AddV2"(%x) : (tensor<f32>) -> tensor<f32>
  // expected-error@above {{Expected 2 operands}}
  func.return
}
func.func @three(%x: tensor<f32>) {
  // expected-error@below {{Expected 2 operands, but got 3}}
  // expected-error@below {{'tf.AddV2' op}}
  %0 = "tf.AddV2"(%x, %x, %x) : (tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<f32>
  func.return
}

// -----

func.func @fine(%x: tensor<f32>) -> tensor<f32> {
  %0 = "tf.Neg"(%x) : (tensor<f32>) -> tensor<f32>
  func.return %0 : tensor<f32>
}

// -----

func.func @parse_error() {
  // expected-error-re@+1 {{'{{[]]}}' expected}}
  %0 = "tf.Const"() <{value = dense<[1.0> : tensor<1xf32>}> : () -> tensor<1xf32>
}
'''


def _opt_diagnostics(tmp_path, capsys, text, *flags):
    from tinytf.cli import opt

    path = tmp_path / "cases.mlir"
    path.write_text(text)
    rc = opt.main([str(path), "--split-input-file", "--verify-diagnostics", *flags])
    out = capsys.readouterr()
    return rc, out.out, [line.replace(str(path), "F") for line in out.err.splitlines()]


def test_verify_diagnostics_passes_when_every_expected_error_is_reported(tmp_path, capsys):
    rc, out, err = _opt_diagnostics(tmp_path, capsys, CASES)
    assert rc == 0
    assert [line for line in err if line.startswith("tinytf-opt")] == []
    assert [line.split(": error: ")[0] for line in err] == ["F:3:3", "F:10:3", "F:17:3", "F:32:41"]
    # the cases without errors print, the others do not
    assert out.count("// -----") == 3 and "func.func @fine" in out and "@one" not in out


def test_verify_diagnostics_fails_on_a_missing_or_an_unexpected_error(tmp_path, capsys):
    broken = CASES.replace("but got 3}}", "but got 4}}").replace(
        '%0 = "tf.Neg"(%x) : (tensor<f32>) -> tensor<f32>\n  func.return %0',
        '%0 = "tf.Neg"(%x, %x) : (tensor<f32>, tensor<f32>) -> tensor<f32>\n  func.return %0')
    rc, _, err = _opt_diagnostics(tmp_path, capsys, broken)
    assert rc == 1
    assert [line for line in err if line.startswith("tinytf-opt")] == [
        "tinytf-opt: error: F:15: expected error \"Expected 2 operands, but got 4\" was not produced",
        "tinytf-opt: error: F:24:3: unexpected error: 'tf.Neg' op Expected 1 operand, but got 2",
    ]


def test_verify_diagnostics_without_designators_prints_and_goes_on(tmp_path, capsys):
    rc, out, _ = _opt_diagnostics(tmp_path, capsys, 'func.func @f(%x: tensor<f32>) {\n'
                                  '  %0 = "tf.AddV2"(%x) : (tensor<f32>) -> tensor<f32>\n  func.return\n}\n')
    assert rc == 0 and "cases.mlir:2:3: 'tf.AddV2' op Expected 2 operands, but got 1" in out


def test_split_input_file_splits_on_marker_lines_only(tmp_path, capsys):
    from tinytf.cli import opt

    path = tmp_path / "split.mlir"
    path.write_text('// ----------------\n"tf.NoOp"() : () -> ()\n// -----\n// nothing but a comment\n'
                    '  // -----  \n"tf.NoOp"() : () -> ()\n')
    assert opt.main([str(path), "--split-input-file"]) == 0
    chunks = capsys.readouterr().out.split("// -----\n")
    assert [c.count('"tf.NoOp"') for c in chunks] == [1, 0, 1]
    assert chunks[1] == "module {\n}\n"


def test_a_chunk_of_comments_is_an_empty_module_when_allowed():
    module = mlir.parse_text("// a case of nothing but comments\n\n", allow_empty=True)
    assert mlir.print(module) == "module {\n}\n"
    with pytest.raises(ParseError, match="empty input"):
        mlir.parse_text("// a case of nothing but comments\n")


def test_an_upstream_op_tinytf_cannot_run_is_unimplemented_not_a_crash():
    import numpy as np

    import tinytf as tt
    from tinytf.errors import UnimplementedError

    text = ('func.func @main(%x: tensor<2xi32>) -> tensor<2xi32> {\n  %c = arith.constant dense<[1, 2]> : tensor<2xi32>\n'
            '  %0 = "tf.AddV2"(%x, %c) : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>\n  func.return %0 : tensor<2xi32>\n}\n')
    for backend in ("graph", "xla"):
        with pytest.raises(UnimplementedError, match=r"<string>:2:3: 'arith.constant' op is not implemented"):
            tt.load_mlir(text).run(np.array([1, 1], np.int32), backend=backend)
