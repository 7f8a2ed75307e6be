"""Checkpoint save and restore of a 500 MB model (10 float32 variables of 50 MB), in MB/s, beside
TensorFlow's ``tf.train.Checkpoint`` and beside a plain sequential write / read of the same bytes.

    .venv-bench/bin/python bench/checkpoint_io.py [--quick] [--size-mb 500] [--repeat 3] [--dir DIR]

Save: ``tt.train.Checkpoint(model=vars).write(prefix)`` (tensor bundle, crc32c of every tensor,
temporary names, fsync of both files and the directory, atomic renames) against
``tf.train.Checkpoint.write`` as it is (it never fsyncs: its time leaves the bytes in the page cache,
and a power cut can lose them), against TensorFlow's write followed by an fsync of its files and
directory (the durability tinytf's save has), and against a plain sequential write of the same bytes
into one file, with and without fsync.
Restore: ``read`` into the existing variables (crc32c checked) against TensorFlow's ``read`` and a
plain sequential read of the file into fresh arrays (4 MiB ``preadv`` with a readahead hint, the I/O
tinytf's reader does; a restore allocates its tensors too); before each restore
its files are synced and dropped from the page cache (``posix_fadvise(DONTNEED)``), so all three
read from the disk (each after one untimed read: on this VM the first read of a file just written is
slow for every reader alike); each is then timed again from the page cache ("cached", printed only). Each case is the best of
``--repeat`` runs, the libraries interleaved in each run. Goals (issue 16): save and restore at
least TensorFlow's MB/s and at least 70% of the plain write's / read's (with fsync for the write:
the same durability as tinytf's save).
"""
from __future__ import annotations

import argparse
import glob
import os
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np  # noqa: E402

from bench.common import MISSING, Row, peer_available  # noqa: E402

N_VARIABLES = 10
PLAIN_WRITE, PLAIN_WRITE_NOSYNC, PLAIN_READ = "plain write+fsync", "plain write (no fsync)", "plain read"
TF_DURABLE = "TensorFlow save + fsync"


def arrays(size_mb: float) -> list[np.ndarray]:
    n = int(size_mb * 1e6 / 4 / N_VARIABLES)
    rng = np.random.default_rng(0)
    return [rng.random(n, dtype=np.float32) for _ in range(N_VARIABLES)]


def drop_cache(paths) -> None:
    """Write back and evict these files from the page cache, so the next read comes from the disk."""
    os.sync()
    for path in paths:
        fd = os.open(path, os.O_RDONLY)
        try:
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        finally:
            os.close(fd)


def files(prefix: str) -> list[str]:
    return glob.glob(prefix + "*")


def remove(prefix: str) -> None:
    for path in files(prefix):
        os.unlink(path)
    shutil.rmtree(prefix + "_temp", ignore_errors=True)


def plain_write(path: str, data: list[np.ndarray], sync: bool) -> None:
    with open(path, "wb", buffering=0) as f:
        for a in data:
            f.write(memoryview(a).cast("B"))
        if sync:
            os.fsync(f.fileno())


def plain_read(path: str, out: list[np.ndarray], chunk: int = 4 << 20) -> None:
    """Read the file back into ``out`` with positioned reads of 4 MiB and a readahead hint per array:
    the I/O tinytf's reader does, without the checkpoint format and the checksums."""
    fd = os.open(path, os.O_RDONLY)
    try:
        offset = 0
        for a in out:
            raw = a.reshape(-1).view(np.uint8)
            os.posix_fadvise(fd, offset, raw.size, os.POSIX_FADV_WILLNEED)
            pos = 0
            while pos < raw.size:
                pos += os.preadv(fd, [raw[pos:pos + chunk]], offset + pos)
            offset += raw.size
    finally:
        os.close(fd)


def fsync_files(prefix: str) -> None:
    """What tinytf's save adds for durability: fsync every file of the checkpoint and its directory."""
    for path in files(prefix):
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
    fd = os.open(os.path.dirname(prefix), os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def read_all(train, prefix: str) -> list:
    """Every variable of the checkpoint through ``train.load_checkpoint`` (tt.train or tf.train)."""
    reader = train.load_checkpoint(prefix)
    return [reader.get_tensor(name) for name in reader.get_variable_to_shape_map() if "VARIABLE_VALUE" in name]


def timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def main(argv=None) -> list:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="200 MB, two runs")
    parser.add_argument("--size-mb", type=float, help="model size (default 500, quick 200)")
    parser.add_argument("--repeat", type=int, help="runs per case (default 3, quick 2)")
    parser.add_argument("--dir", help="where to write (default: a temporary directory in $TMPDIR)")
    args = parser.parse_args(argv)
    size_mb = args.size_mb or (200.0 if args.quick else 500.0)
    repeat = args.repeat or (2 if args.quick else 3)
    import tinytf as tt

    data = arrays(size_mb)
    nbytes = sum(a.nbytes for a in data)
    work = tempfile.mkdtemp(prefix="checkpoint_io-", dir=args.dir)
    tt_vars = [tt.Variable(a) for a in data]
    tt_ckpt = tt.train.Checkpoint(model=tt_vars)
    tf = None
    if peer_available("tensorflow"):
        import tensorflow as tf

        tf_vars = [tf.Variable(a) for a in data]
        tf_ckpt = tf.train.Checkpoint(model=tf_vars)
    out = [np.empty_like(a) for a in data]
    best: dict[str, float] = {}

    def record(label, seconds):
        best[label] = min(best.get(label, float("inf")), seconds)

    prefixes = {"tinytf": os.path.join(work, "tt"), "tensorflow": os.path.join(work, "tf"),
                "plain": os.path.join(work, "plain.bin")}
    try:
        for _ in range(repeat):
            for prefix in prefixes.values():
                remove(prefix)
            record("tinytf save", timed(lambda: tt_ckpt.write(prefixes["tinytf"])))
            if tf is not None:
                record("tensorflow save", timed(lambda: tf_ckpt.write(prefixes["tensorflow"])))
                remove(prefixes["tensorflow"])
                record(TF_DURABLE, timed(lambda: (tf_ckpt.write(prefixes["tensorflow"]),
                                                   fsync_files(prefixes["tensorflow"]))))
            remove(prefixes["plain"])
            record(PLAIN_WRITE_NOSYNC, timed(lambda: plain_write(prefixes["plain"], data, sync=False)))
            remove(prefixes["plain"])
            record(PLAIN_WRITE, timed(lambda: plain_write(prefixes["plain"], data, sync=True)))

            # restores: from the disk (each one's files dropped from the page cache first), then from the cache.
            # On this VM the first read of a file just written is slow for any reader (the host is still
            # writing it back?): each reader reads its files once untimed first.
            fresh = lambda: plain_read(prefixes["plain"], [np.empty_like(a) for a in data])  # noqa: E731
            readers = [(PLAIN_READ, "plain", fresh),
                       ("tinytf restore", "tinytf", lambda: tt_ckpt.read(prefixes["tinytf"]).assert_consumed())]
            if tf is not None:
                readers.append(("tensorflow restore", "tensorflow",
                                lambda: tf_ckpt.read(prefixes["tensorflow"]).assert_consumed()))
                # issue 15: tt.train.load_checkpoint reading every tensor of the checkpoint TensorFlow wrote
                readers += [("tinytf load_checkpoint", "tensorflow", lambda: read_all(tt.train, prefixes["tensorflow"])),
                            ("tensorflow load_checkpoint", "tensorflow",
                             lambda: read_all(tf.train, prefixes["tensorflow"]))]
            for label, key, read in readers:
                drop_cache(files(prefixes[key]))
                read()
                drop_cache(files(prefixes[key]))
                record(label, timed(read))
                record(label + " (cached)", timed(read))
        for a, v in zip(data, tt_vars):  # the restores gave back the model, and the plain read its bytes
            np.testing.assert_array_equal(v.numpy(), a)
        plain_read(os.path.join(work, "plain.bin"), out)
        for a, b in zip(data, out):
            np.testing.assert_array_equal(a, b)
        if tf is not None:
            for a, v in zip(data, tf_vars):
                np.testing.assert_array_equal(v.numpy(), a)
    finally:
        shutil.rmtree(work, ignore_errors=True)

    mb = nbytes / 1e6
    print(f"checkpoint of {mb:.0f} MB ({N_VARIABLES} float32 variables), best of {repeat}; restores read from the disk")
    print(f"  {'case':<26} {'seconds':>8} {'MB/s':>8}")
    for label, seconds in best.items():
        print(f"  {label:<26} {seconds:8.3f} {mb / seconds:8.0f}")
    tf_save, tf_restore = best.get("tensorflow save"), best.get("tensorflow restore")
    case = f"{mb:.0f} MB model ({N_VARIABLES} variables)"
    rate = lambda label: f"{mb / best[label]:.0f} MB/s"  # noqa: E731
    tf_note = "" if tf is None else f", TensorFlow {rate('tensorflow save')} (no fsync)"
    rows = [
        Row("checkpoint_io", f"save {case}, vs TensorFlow", "s", best["tinytf save"],
            peers={"tensorflow": tf_save if tf is not None else MISSING}, reference="tensorflow",
            target=">= TensorFlow's MB/s", target_ratio=1.0,
            note=f"tinytf {rate('tinytf save')} with fsync{tf_note}"),
        Row("checkpoint_io", f"save {case}, vs TensorFlow + fsync of its files (the same durability)", "s",
            best["tinytf save"], others={TF_DURABLE: best.get(TF_DURABLE, MISSING)}, reference=TF_DURABLE,
            target=">= TensorFlow's MB/s", target_ratio=1.0,
            note="" if tf is None else f"TensorFlow + fsync {rate(TF_DURABLE)}"),
        Row("checkpoint_io", f"save {case}, vs a plain sequential write + fsync", "s", best["tinytf save"],
            others={PLAIN_WRITE: best[PLAIN_WRITE], PLAIN_WRITE_NOSYNC: best[PLAIN_WRITE_NOSYNC]},
            reference=PLAIN_WRITE, target=">= 70% of the plain write's MB/s", target_ratio=1 / 0.7,
            note=f"plain write {rate(PLAIN_WRITE)} with fsync, {rate(PLAIN_WRITE_NOSYNC)} without"),
        Row("checkpoint_io", f"restore {case}, vs TensorFlow", "s", best["tinytf restore"],
            peers={"tensorflow": tf_restore if tf is not None else MISSING}, reference="tensorflow",
            target=">= TensorFlow's MB/s", target_ratio=1.0, note=f"tinytf {rate('tinytf restore')}"),
        Row("checkpoint_io", f"restore {case}, vs a plain sequential read", "s", best["tinytf restore"],
            others={PLAIN_READ: best[PLAIN_READ]}, reference=PLAIN_READ, target=">= 70% of the plain read's MB/s",
            target_ratio=1 / 0.7, note=f"plain read {rate(PLAIN_READ)}"),
    ]
    if tf is not None:
        rows.append(Row("checkpoint_io", f"read {case} TensorFlow wrote, load_checkpoint + get_tensor of each", "s",
                        best["tinytf load_checkpoint"], peers={"tensorflow": best["tensorflow load_checkpoint"]},
                        reference="tensorflow", target=">= TensorFlow's MB/s", target_ratio=1.0,
                        note=f"tinytf {rate('tinytf load_checkpoint')}, TensorFlow {rate('tensorflow load_checkpoint')}"))
    for row in rows:
        verdict = {True: "met", False: "NOT met", None: "n/a"}[row.verdict]
        ratio = f"{row.ratio:.2f}x" if row.ratio is not None else "—"
        print(f"target {row.case}: {row.target}: time ratio {ratio}: {verdict}")
    return rows


if __name__ == "__main__":
    main()
