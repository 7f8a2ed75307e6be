"""``tt.saved_model``: TensorFlow's SavedModels, loaded and run without TensorFlow.

    obj = tt.saved_model.load(export_dir)                        # TF2 object graph or TF1 SignatureDefs
    obj.signatures["serving_default"](x=arr)                     # -> {output key: tt.Tensor}
    obj = tt.saved_model.load(export_dir, tags=["serve"], backend="xla")
    tt.saved_model.save(module, export_dir, signatures={"serving_default": module.predict})   # TensorFlow loads it

See ``load.py`` for the entry point, ``object_graph.py`` (TF2) and ``signature_defs.py`` (TF1) for
how each kind becomes one MLIR module, ``save.py`` for writing one, ``mlir_export.py`` for ``tinytf-translate``'s
``--savedmodel-objectgraph-to-mlir`` / ``--savedmodel-signaturedefs-to-mlir`` output.
"""
from tinytf.saved_model.load import contains_saved_model, load  # noqa: F401
from tinytf.saved_model.reader import SERVING  # noqa: F401
from tinytf.saved_model.save import save  # noqa: F401

DEFAULT_SERVING_SIGNATURE_DEF_KEY = "serving_default"
CLASSIFY_METHOD_NAME = "tensorflow/serving/classify"
PREDICT_METHOD_NAME = "tensorflow/serving/predict"
REGRESS_METHOD_NAME = "tensorflow/serving/regress"

__all__ = ["load", "save", "contains_saved_model", "SERVING", "DEFAULT_SERVING_SIGNATURE_DEF_KEY"]
