"""The gradient checker's report: per input, what was compared and every element that is off.

    >>> report = compare_numerical_and_autodiff_gradients(model, [x, w])
    >>> print(report)
    gradient check (tensorflow, eager): passed in 0.012 s
      input  shape   dtype    checked  max abs err  max rel err  result
      0      (2, 2)  float32        4      3.1e-05      2.2e-05  ok

A failure message lists each mismatch on one line: input index, element index (flat and as a
multi-index), numerical value, autodiff value and their difference.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass
class Mismatch:
    input_index: int
    element: int                   # flat index into the input (or the projection's number)
    index: tuple                   # the same as a multi-index
    numerical: float
    autodiff: float

    @property
    def difference(self) -> float:
        return abs(self.numerical - self.autodiff)

    def __str__(self) -> str:
        return (f"input {self.input_index}, element {self.element} (index {self.index}): numerical "
                f"{self.numerical:.9g}, autodiff {self.autodiff:.9g}, difference {self.difference:.3g}")


@dataclass
class InputResult:
    index: int
    shape: tuple
    dtype: str
    checked: int = 0
    max_abs_error: float = 0.0
    max_rel_error: float = 0.0
    mismatches: list[Mismatch] = field(default_factory=list)
    skipped: str | None = None     # why the input was not checked ("no gradient")
    projection: bool = False       # fast mode: one uᵀJv value, not elements
    numerical: np.ndarray | None = None
    autodiff: np.ndarray | None = None

    @property
    def ok(self) -> bool:
        return not self.mismatches


@dataclass
class CheckReport:
    mode: str = "full"
    backend: str = "numpy"
    eval_dtype: str = ""
    use_function: bool = False
    atol: float = 0.0
    rtol: float = 0.0
    seconds: float = 0.0
    inputs: list[InputResult] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return all(r.ok for r in self.inputs)

    @property
    def mismatches(self) -> list[Mismatch]:
        return [m for r in self.inputs for m in r.mismatches]

    def rows(self) -> list[list[str]]:
        """Table rows: input, shape, dtype, checked, max abs err, max rel err, result."""
        out = []
        for r in self.inputs:
            if r.skipped:
                out.append([str(r.index), str(tuple(r.shape)), r.dtype, "-", "-", "-", f"skipped ({r.skipped})"])
                continue
            what = "uᵀJv" if r.projection else str(r.checked)
            result = "ok" if r.ok else f"FAILED ({len(r.mismatches)} off)"
            out.append([str(r.index), str(tuple(r.shape)), r.dtype, what, f"{r.max_abs_error:.2e}",
                        f"{r.max_rel_error:.2e}", result])
        return out

    def header(self) -> str:
        how = self.mode if self.mode != "tensorflow" else "tensorflow, " + ("graph" if self.use_function else "eager")
        extra = f", {self.eval_dtype}" if self.eval_dtype else ""
        return f"gradient check ({how}{extra}): {'passed' if self.ok else 'FAILED'} in {self.seconds:.3f} s"

    def __str__(self) -> str:
        titles = ["input", "shape", "dtype", "checked", "max abs err", "max rel err", "result"]
        rows = [titles] + self.rows()
        widths = [max(len(r[c]) for r in rows) for c in range(len(titles))]
        lines = [self.header()]
        for r in rows:
            lines.append("  " + "  ".join(cell.ljust(w) for cell, w in zip(r, widths)).rstrip())
        return "\n".join(lines)

    def failure_message(self, limit: int = 50) -> str:
        bad = self.mismatches
        tol = f"abs_error {self.atol:g}" if self.rtol == 0 else f"atol {self.atol:g}, rtol {self.rtol:g}"
        lines = [f"gradient check failed: {len(bad)} element(s) differ beyond {tol}"]
        lines += [f"  {m}" for m in bad[:limit]]
        if len(bad) > limit:
            lines.append(f"  ... and {len(bad) - limit} more")
        return "\n".join(lines)


def compare_elements(index: int, shape, dtype: str, numerical, autodiff, atol: float, rtol: float,
                     projection: bool = False) -> InputResult:
    """Element-wise: |numerical - autodiff| <= atol + rtol * |autodiff| (NaN never passes)."""
    num = np.asarray(numerical).reshape(-1)
    ana = np.asarray(autodiff).reshape(-1)
    if num.shape != ana.shape:
        raise ValueError(f"gradcheck: input {index}: numerical gradient has {num.size} elements, "
                         f"autodiff gradient {ana.size}")
    num64 = num.astype(np.complex128 if num.dtype.kind == "c" else np.float64)
    ana64 = ana.astype(num64.dtype)
    diff = np.abs(num64 - ana64)
    with np.errstate(divide="ignore", invalid="ignore"):
        rel = np.where(ana64 != 0, diff / np.abs(ana64), np.where(diff == 0, 0.0, np.inf))
    bad = np.flatnonzero(~(diff <= atol + rtol * np.abs(ana64)))
    grid = tuple(shape) if not projection else (num.size,)
    mismatches = [Mismatch(index, int(e), tuple(int(i) for i in np.unravel_index(e, grid)) if grid else (),
                           _scalar(num64[e]), _scalar(ana64[e])) for e in bad]
    return InputResult(index, tuple(shape), dtype, checked=int(num.size),
                       max_abs_error=float(np.nanmax(diff, initial=0.0)) if diff.size else 0.0,
                       max_rel_error=float(np.nanmax(rel, initial=0.0)) if rel.size else 0.0,
                       mismatches=mismatches, projection=projection,
                       numerical=np.asarray(numerical), autodiff=np.asarray(autodiff))


def _scalar(v):
    return complex(v) if isinstance(v, complex | np.complexfloating) else float(v)
