"""Loads one of the hyphenated scripts beside this file (fuzz-graphs.py,
fuzz-gpu.py, reduce-graph.py) as a module, for the scripts and tests that
reuse their functions."""

import importlib.util
import os

HERE = os.path.dirname(os.path.abspath(__file__))


def load_script(file):
    """The module of utils/`file`, named after it (fuzz-graphs.py:
    fuzz_graphs)."""
    name = os.path.splitext(file)[0].replace("-", "_")
    spec = importlib.util.spec_from_file_location(name, os.path.join(HERE, file))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
