"""Shared pieces of the benchmarks: timing, peer detection, the result row, the machine description.

    from bench.common import Row, measure, peer_available
    t = measure(lambda: np.add(a, b))            # per-call seconds: best and median of 5 repeats
    Row("eager_dispatch", "2x2 float32 add", "µs", tinytf=0.9, peers={"numpy": 0.3, "pytorch": MISSING},
        reference="numpy", target="<= 3x numpy", target_ratio=3.0)

A benchmark's ``main(argv)`` returns a list of ``Row``s (and prints its own table); ``bench/run_all.py``
runs each benchmark in a child process, collects the rows and writes ``bench/RESULTS.md``. The
peers are numpy, TensorFlow, JAX and PyTorch: a peer a benchmark measures but that is not
importable is ``MISSING``, never left out; a peer a benchmark does not measure has no key.
"""
from __future__ import annotations

import datetime
import importlib
import importlib.metadata
import importlib.util
import os
import platform
import statistics
import time
from dataclasses import asdict, dataclass, field

MISSING = "missing"

# peer key -> (display name, module to import, distributions whose version is reported)
PEERS = {
    "numpy": ("numpy", "numpy", ("numpy",)),
    "tensorflow": ("TensorFlow", "tensorflow", ("tensorflow-cpu", "tensorflow")),
    "jax": ("JAX", "jax", ("jax",)),
    "pytorch": ("PyTorch", "torch", ("torch",)),
}
# other libraries the machine section reports
# label -> distributions (the first installed one is reported)
LIBRARIES = {"tinytf": ("tinytf",), "xdsl": ("xdsl",), "numpy": ("numpy",), "jax": ("jax",), "jaxlib": ("jaxlib",),
             "tensorflow": ("tensorflow-cpu", "tensorflow"), "torch": ("torch",)}


# --- timing ----------------------------------------------------------------------------------------

@dataclass
class Timing:
    """Seconds per call: the best and the median over ``repeat`` runs of ``number`` calls each."""

    best: float
    median: float
    number: int
    repeat: int

    def __str__(self) -> str:
        return f"{format_seconds(self.best)} (median {format_seconds(self.median)}, {self.repeat}x{self.number})"


def measure(fn, *, repeat: int = 5, number: int | None = None, warmup: int = 1, min_time: float = 0.02,
            timer=time.perf_counter) -> Timing:
    """Time ``fn()``: ``warmup`` calls first, then ``repeat`` runs of ``number`` calls.

    ``number=None`` picks the smallest power of ten whose run takes at least ``min_time`` (as
    ``timeit``'s autorange), so fast calls are not lost in the timer's resolution.
    """
    if repeat < 1:
        raise ValueError("measure: repeat must be at least 1")
    for _ in range(warmup):
        fn()
    if number is None:
        number = 1
        while True:
            start = timer()
            for _ in range(number):
                fn()
            if timer() - start >= min_time or number >= 10**7:
                break
            number *= 10
    runs = []
    for _ in range(repeat):
        start = timer()
        for _ in range(number):
            fn()
        runs.append((timer() - start) / number)
    return Timing(min(runs), statistics.median(runs), number, repeat)


def format_seconds(seconds: float) -> str:
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if seconds >= scale:
            return f"{seconds / scale:.3g} {unit}"
    return f"{seconds / 1e-9:.3g} ns"


# --- peers -----------------------------------------------------------------------------------------

_AVAILABLE: dict[str, bool] = {}


def peer_available(peer: str) -> bool:
    """Whether the peer's module imports here (imported once, then remembered)."""
    if peer not in _AVAILABLE:
        module = PEERS[peer][1] if peer in PEERS else peer
        try:
            importlib.import_module(module)
            _AVAILABLE[peer] = True
        except Exception:  # an ImportError, or a broken install failing at import time
            _AVAILABLE[peer] = False
    return _AVAILABLE[peer]


def peer_installed(peer: str) -> bool:
    """Whether the peer's module can be found, without importing it (cheap; for reports)."""
    module = PEERS[peer][1] if peer in PEERS else peer
    return importlib.util.find_spec(module) is not None


def version(*distributions: str) -> str | None:
    """The installed version of the first of ``distributions`` that is installed."""
    for dist in distributions:
        try:
            return importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            continue
    return None


def peer_versions() -> dict[str, str]:
    """Peer key -> its version, or ``MISSING``."""
    out = {}
    for key, (_, module, dists) in PEERS.items():
        v = version(*dists) if importlib.util.find_spec(module) is not None else None
        out[key] = v or MISSING
    return out


# --- result rows -----------------------------------------------------------------------------------

@dataclass
class Row:
    """One measured case. ``peers``: peer key -> value, ``MISSING``, or None (measured but failed);
    ``others``: baselines that are not peers (xDSL, a numpy loop), label -> value. ``reference``
    names the peer or other baseline that ``ratio`` divides by. Values are costs (time, bytes):
    lower is better, so ratio < 1 means tinytf is ahead. ``met`` is derived from ``target_ratio``
    (met when ratio <= target_ratio) unless given."""

    benchmark: str
    case: str
    unit: str
    tinytf: float | None
    peers: dict = field(default_factory=dict)
    others: dict = field(default_factory=dict)
    reference: str | None = None
    target: str = ""
    target_ratio: float | None = None
    met: bool | None = None
    note: str = ""

    def reference_value(self) -> float | None:
        if self.reference is None:
            return None
        value = self.peers.get(self.reference, self.others.get(self.reference))
        return value if isinstance(value, int | float) and value > 0 else None

    @property
    def ratio(self) -> float | None:
        ref = self.reference_value()
        if ref is None or self.tinytf is None:
            return None
        return self.tinytf / ref

    @property
    def verdict(self) -> bool | None:
        if self.met is not None:
            return self.met
        if self.target_ratio is None or self.ratio is None:
            return None
        return self.ratio <= self.target_ratio

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> Row:
        return cls(**{k: v for k, v in data.items() if k in cls.__dataclass_fields__})


def peer_cell(value) -> float | str | None:
    """What a row holds for a peer it measures: the value, or ``MISSING``."""
    return MISSING if value is None else value


def mark_missing(peers: dict) -> dict:
    """Fill ``MISSING`` for every peer key whose value is None and whose module does not import;
    a None left means the peer imports but its measurement did not come back."""
    return {k: (MISSING if v is None and not peer_available(k) else v) for k, v in peers.items()}


def as_rows(result) -> list[Row]:
    """A benchmark's return value as rows: a list of ``Row`` or of their dicts; anything else is none."""
    if isinstance(result, list | tuple) and all(isinstance(r, Row | dict) for r in result):
        return [r if isinstance(r, Row) else Row.from_dict(r) for r in result]
    return []


def exit_code(result) -> int:
    """For ``sys.exit(exit_code(main()))``: 0 for rows, a dict or None; an int passes through."""
    return result if isinstance(result, int) and not isinstance(result, bool) else 0


# --- the machine -----------------------------------------------------------------------------------

def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def memory_gib() -> float | None:
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemTotal:"):
                    return int(line.split()[1]) / 2**20
    except OSError:
        pass
    return None


def machine_info() -> dict:
    """What the results depend on: CPU, cores, memory, load, Python, OS, library versions, date."""
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:
        usable = os.cpu_count()
    try:
        load = "%.2f %.2f %.2f" % os.getloadavg()
    except OSError:
        load = "unknown"
    mem = memory_gib()
    return {
        "cpu": cpu_model(),
        "cores": f"{usable} usable of {os.cpu_count()}",
        "memory": f"{mem:.1f} GiB" if mem else "unknown",
        "load average at start": load,
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "os": platform.platform(),
        "libraries": {label: version(*dists) or MISSING for label, dists in LIBRARIES.items()},
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
    }


# --- formatting ------------------------------------------------------------------------------------

def format_value(value, unit: str = "") -> str:
    if value is None:
        return "failed"
    if isinstance(value, str):
        return value
    if value == 0:
        return f"0 {unit}".strip()
    text = f"{value:.3g}" if abs(value) < 999.5 else f"{value:,.0f}"  # (999.7 would print as 1e+03)
    return f"{text} {unit}".strip()


def format_ratio(row: Row) -> str:
    ratio = row.ratio
    if ratio is None:
        return "—"
    label = PEERS[row.reference][0] if row.reference in PEERS else row.reference
    return f"{ratio:.3g}x {label}"


def format_verdict(row: Row) -> str:
    v = row.verdict
    return "—" if v is None else ("yes" if v else "**no**")
