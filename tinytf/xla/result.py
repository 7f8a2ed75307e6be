"""The compile result in TensorFlow's terms (``XlaCompilationResult``), printed as TensorFlow prints it.

    >>> print(tt.xla.compile(add_fn, [(), ()]))
    // InputMapping {0, 1}
    // XlaInputShape f32[]
    // XlaInputShape f32[]
    // XlaOutputShape (f32[])
    // XlaOutputDescription type=float shape=()

The lines follow ``tf-mlir-translate -mlir-tf-to-hlo-text``: InputMapping joined with ", " (and
left out when empty), XLA shapes as ``f32[2,3]`` and tuples as ``(f32[], f32[])``, output
description dims joined with ", ", resource update dims joined with a space, and the suffixes
`` input_index=N`` and `` constant`` where they apply.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from tinytf.dtypes import DType


@dataclass(frozen=True)
class XlaShape:
    """An XLA array shape: ``f32[2,3]``, ``pred[]``."""

    dtype: DType
    dims: tuple[int, ...]

    def __str__(self) -> str:
        return f"{self.dtype.xla}[{','.join(str(d) for d in self.dims)}]"


@dataclass(frozen=True)
class XlaTupleShape:
    """An XLA tuple shape: ``(f32[], f32[2])``."""

    shapes: tuple[XlaShape, ...]

    def __str__(self) -> str:
        return "(" + ", ".join(str(s) for s in self.shapes) + ")"

    def __len__(self) -> int:
        return len(self.shapes)

    def __iter__(self):
        return iter(self.shapes)

    def __getitem__(self, i):
        return self.shapes[i]


@dataclass
class OutputDescription:
    """One function output: ``input_index`` >= 0 when it is that argument passed through (or
    aliased to it), ``is_constant`` when its value is known at compile time."""

    dtype: DType
    shape: tuple[int, ...]
    input_index: int = -1
    is_constant: bool = False

    def __str__(self) -> str:
        text = f"// XlaOutputDescription type={self.dtype.tf} shape=({', '.join(str(d) for d in self.shape)})"
        if self.input_index >= 0:
            text += f" input_index={self.input_index}"
        if self.is_constant:
            text += " constant"
        return text


@dataclass
class ResourceUpdate:
    """A variable the computation writes: its new value is an output aliased to argument ``input_index``."""

    input_index: int
    dtype: DType
    shape: tuple[int, ...]
    modified: bool = True

    def __str__(self) -> str:
        text = (f"// ResourceUpdate input_index={self.input_index} type={self.dtype.tf} "
                f"shape=({' '.join(str(d) for d in self.shape)})")
        return text + (" modified" if self.modified else "")


@dataclass
class CompilationResult:
    """What ``tt.xla.compile`` returns. ``str()`` gives TensorFlow's compile-result lines;
    ``text()`` the HLO module followed by those lines (``tinytf-translate``'s output).

    ``lowered`` / ``compiled`` are JAX's ``Lowered`` and ``Compiled`` objects (``memory_analysis()``,
    ``cost_analysis()``, ``as_text()``); ``donated`` the argument indices whose buffers the
    computation may reuse; ``x64`` whether it runs with 64-bit types enabled.

    Over several devices (``num_devices`` > 1): ``argument_shardings`` / ``output_shardings`` hold each
    parameter's / output's sharding in HLO text (printed as ``// XlaInputSharding`` and
    ``// XlaOutputSharding`` lines), ``collectives()`` lists what the partitioned program moves
    between devices, ``memory()`` what XLA's memory analysis counts per device.
    """

    hlo_module_text: str
    input_mapping: list[int]
    xla_input_shapes: list
    xla_output_shape: XlaTupleShape
    outputs: list[OutputDescription]
    resource_updates: list[ResourceUpdate]
    donated: list[int] = field(default_factory=list)
    lowered: object = None
    compiled: object = None
    x64: bool = False
    argument_shardings: list | None = None
    output_shardings: list | None = None
    num_devices: int = 1

    def lines(self) -> list[str]:
        out = []
        if self.input_mapping:
            out.append("// InputMapping {" + ", ".join(str(i) for i in self.input_mapping) + "}")
        out += [f"// XlaInputShape {s}" for s in self.xla_input_shapes]
        out.append(f"// XlaOutputShape {self.xla_output_shape}")
        out += [str(o) for o in self.outputs]
        out += [str(r) for r in self.resource_updates]
        if self.argument_shardings is not None:
            out += [f"// XlaInputSharding index={i} {s}" for i, s in zip(self.input_mapping, self.argument_shardings)]
            out += [f"// XlaOutputSharding index={k} {s}" for k, s in enumerate(self.output_shardings or ())]
        return out

    def __str__(self) -> str:
        return "\n".join(self.lines()) + "\n"

    def text(self) -> str:
        hlo = self.hlo_module_text if self.hlo_module_text.endswith("\n") else self.hlo_module_text + "\n"
        return hlo + str(self)

    def memory_analysis(self):
        return self.compiled.memory_analysis()

    def memory(self) -> dict[str, int]:
        """Per-device bytes: argument, output, alias (donated buffers reused), temp, generated_code."""
        from tinytf.xla.spmd import memory

        return memory(self.compiled)

    def collectives(self) -> list:
        """The collectives of the optimized (partitioned) program: kind, bytes per device, group size."""
        from tinytf.xla.spmd import collectives

        return collectives(self.compiled.as_text(), self.num_devices)

    def collective_bytes(self) -> dict[str, int]:
        """Bytes per device moved by each kind of collective (the sum over the program's collectives)."""
        out: dict[str, int] = {}
        for c in self.collectives():
            out[c.kind] = out.get(c.kind, 0) + c.bytes
        return out
