"""The constants of a compiled XLA program, read off its HLO text: does an int8 weight stay int8?

    text = tt.xla.compile(module).compiled.as_text()
    hlo_constants(text)          # [("s8", (64, 32)), ("f32", (32,)), ("s32", ())]
    constant_bytes(text)         # {"s8": 2048, "f32": 128, "s32": 4}
"""
from __future__ import annotations

import math
import re

_CONSTANT = re.compile(r"=\s*([a-z]+[0-9]*)\[([0-9,]*)\](?:\{[^}]*\})?\s+constant\(")
_BYTES = {"pred": 1, "s8": 1, "u8": 1, "s16": 2, "u16": 2, "f16": 2, "bf16": 2, "s32": 4, "u32": 4, "f32": 4,
          "s64": 8, "u64": 8, "f64": 8, "c64": 8, "c128": 16}


def hlo_constants(text: str) -> list[tuple[str, tuple[int, ...]]]:
    """(element type, shape) of every array ``constant(...)`` instruction in HLO text."""
    return [(m.group(1), tuple(int(d) for d in m.group(2).split(",") if d)) for m in _CONSTANT.finditer(text)]


def constant_bytes(text: str) -> dict[str, int]:
    """Bytes of the HLO text's constants, by element type."""
    out: dict[str, int] = {}
    for dtype, shape in hlo_constants(text):
        out[dtype] = out.get(dtype, 0) + _BYTES.get(dtype, 0) * math.prod(shape)
    return out
