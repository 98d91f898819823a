"""The model zoo (utils/zoo) on this machine's device: every hand-written
model and the small torchvision ones, compiled by `tgc.compile` and called at
several batch sizes, must match eager and must not change an earlier result
(issue "Zero wrong answers on real models"). A model TGC cannot compile yet
is not a failure here (the zoo's table lists those with the reason); a wrong
result or an internal error is. The larger torchvision models and the Hugging
Face ones run on the GPU machine (`utils/zoo/zoo.py --models all`)."""

import importlib.util
import os
import sys

import pytest
import torch

ZOO = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "utils", "zoo")
if not os.path.isdir(ZOO):
    pytest.skip("utils/zoo is not beside this test (a Python bundle)", allow_module_level=True)
sys.path.insert(0, ZOO)

import models as zoo_models  # noqa: E402
import zoo  # noqa: E402

DEVICE = "cuda" if torch.cuda.is_available() else "cpu"
# Models that compile completely today: a regression to "cannot compile" or
# to partly eager fails too.
MUST_COMPILE = {"mlp", "cnn", "residual-stack", "seq-regressor", "encoder", "tv-squeezenet",
                "tv-resnet18", "tv-mobilenet-v3"}
NAMES = [e.name for e in zoo_models.LOCAL] + ["tv-squeezenet", "tv-resnet18", "tv-mobilenet-v3"]


@pytest.mark.parametrize("name", NAMES)
def test_zoo_model(name):
    entry = zoo_models.ALL[name]
    if entry.needs and importlib.util.find_spec(entry.needs) is None:
        pytest.skip(f"{entry.needs} is not installed")
    row = zoo.run_model(entry, "default", DEVICE, verbose=False)
    status = row["status"]
    assert not status.startswith(("MISMATCH", "STALE", "ERROR")), f"{name}: {status} (error {row['error']})"
    if name in MUST_COMPILE:
        assert status == "ok", f"{name}: {status}"
        assert row["compiles"] >= 1 and row["eager_calls"] == 0
