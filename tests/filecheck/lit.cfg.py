# lit configuration: FileCheck tests of tinytf-opt, tinytf-translate and Python-driven checks.
import os
import sys

import lit.formats

config.name = "tinytf"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir", ".py"]
config.excludes = ["lit.cfg.py", "Output"]
config.test_source_root = os.path.dirname(__file__)

bin_dir = os.path.dirname(sys.executable)
config.environment["PATH"] = bin_dir + os.pathsep + os.environ.get("PATH", "")
config.environment["PYTHONHASHSEED"] = "0"
config.substitutions.append(("%python", sys.executable))
