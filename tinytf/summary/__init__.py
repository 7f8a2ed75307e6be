"""``tt.summary``: TensorBoard logs, as TensorFlow 2's ``tf.summary`` writes them.

    writer = tt.summary.create_file_writer("logs/train")
    with writer.as_default():
        for step in range(100):
            tt.summary.scalar("loss", loss, step=step)
            tt.summary.histogram("weights", w, step=step)
        tt.summary.image("inputs", images_nhwc, step=0)
        tt.summary.text("config", "lr = 0.01", step=0)
        tt.summary.graph(train_step.get_concrete_function(spec))
    writer.flush()
    # tensorboard --logdir logs

Event files (``writer.py``), the summaries (``summaries.py``) and graphs (``graph.py``) need only
TensorFlow's protos from the ``tensorboard`` package, loaded on first use.
"""
from types import SimpleNamespace as _Namespace

from tinytf.summary.graph import graph, trace_export, trace_off, trace_on  # noqa: F401
from tinytf.summary.summaries import histogram, image, scalar, text, write  # noqa: F401
from tinytf.summary.writer import (  # noqa: F401
    NoopWriter,
    SummaryWriter,
    create_file_writer,
    create_noop_writer,
    get_step,
    set_step,
)


def flush(writer=None, name=None) -> None:
    """Flush ``writer``, or the default writer."""
    from tinytf.summary.writer import get_default_writer

    writer = writer or get_default_writer()
    if writer is not None:
        writer.flush()


experimental = _Namespace(get_step=get_step, set_step=set_step)

__all__ = ["NoopWriter", "SummaryWriter", "create_file_writer", "create_noop_writer", "experimental", "flush", "graph",
           "histogram", "image", "scalar", "text", "trace_export", "trace_off", "trace_on", "write"]
