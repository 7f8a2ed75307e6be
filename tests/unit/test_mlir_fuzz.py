"""Mutated MLIR text: the parser and verifier only ever raise tinytf's errors."""
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tinytf import mlir
from tinytf.errors import OpError, ParseError

ROOT = Path(__file__).resolve().parents[2]
SEEDS = [p.read_text() for p in sorted((ROOT / "tests/filecheck/dialect").glob("*.mlir"))
         if p.name != "invalid.mlir"] + [(ROOT / "tests/conformance/fixtures/keras_mlp.mlir").read_text()]
TOKENS = ["(", ")", "{", "}", "<", ">", "[", "]", ":", ",", "=", "%0", "%arg9", "@f", '"', "tensor<", "x",
          "?", "*", "dense<", "0x7FC0", "-", "1.5e", "i1", "f32", "!tf_type.", "#tf_type.shape<", "->", "^bb0",
          '"tf.AddV2"', '"tf.MatMul"', '"tf.Const"', "func.return", "\n", " ", "loc(", "99999999999999999999",
          "\x00", "dense<0.0> : tensor<1024x1024x1024x1024xf32>", "1024x1024x1024x1024x", '"0x00000000"']


@st.composite
def mutated(draw):
    text = draw(st.sampled_from(SEEDS))
    for _ in range(draw(st.integers(1, 4))):
        pos = draw(st.integers(0, len(text)))
        action = draw(st.sampled_from(["delete", "insert", "replace", "truncate"]))
        if action == "delete":
            text = text[:pos] + text[pos + draw(st.integers(1, 12)):]
        elif action == "insert":
            text = text[:pos] + draw(st.sampled_from(TOKENS)) + text[pos:]
        elif action == "replace":
            text = text[:pos] + draw(st.sampled_from(TOKENS)) + text[pos + 1:]
        else:
            text = text[:pos]
    return text


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(mutated())
def test_mutated_text_raises_only_tinytf_errors(text):
    try:
        module = mlir.parse(text)
        mlir.verify(module)
        mlir.print(module)
    except OpError:
        pass


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(mutated(), st.integers(0, 1 << 20))
def test_a_nul_byte_anywhere_is_a_located_parse_error(text, where):
    pos = where % (len(text) + 1)
    text = text[:pos] + "\x00" + text[pos:]
    first = text.index("\x00")
    line, col = text.count("\n", 0, first) + 1, first - text.rfind("\n", 0, first)
    with pytest.raises(ParseError) as info:
        mlir.parse(text)
    assert str(info.value) == f"<string>:{line}:{col}: NUL byte in the input"
