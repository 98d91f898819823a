"""utils/reduce-graph.py, the reducer of wrong graphs, on the CPU: the
compiled graph is correct here, so "wrong" is a stand-in predicate (a
division of a log-softmax by a broadcast operand, the shape of GPU fuzz
seed 401554's bug); the test checks what the reducer keeps and what it
cuts, and that a cut argument carries the value the op had."""

import os
import sys

import pytest
import torch

UTILS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "utils")
if not os.path.exists(os.path.join(UTILS, "reduce-graph.py")):
    pytest.skip("utils/ is not beside this test (a Python bundle)", allow_module_level=True)


def _load():
    sys.path.insert(0, UTILS)
    from scriptload import load_script
    return load_script("reduce-graph.py")


GRAPH = """func.func @g(%a: tensor<?xf32>, %b: tensor<?xf32>, %c: tensor<?xf32>) -> (tensor<?xf32>, tensor<1x?xf32>) {
  %v1 = tgc.exp %c : tensor<?xf32>
  %v2 = tgc.abs %b : tensor<?xf32>
  %v3 = tgc.constant dense<0.5> : tensor<f32>
  %v4 = tgc.add %v2, %v3 : tensor<?xf32>, tensor<f32> -> tensor<?xf32>
  %v5 = tgc.unsqueeze %a dim = 0 : tensor<?xf32> -> tensor<1x?xf32>
  %v6 = tgc.log_softmax %v5 dim = 1 : tensor<1x?xf32>
  %v7 = tgc.div %v6, %v4 : tensor<1x?xf32>, tensor<?xf32> -> tensor<1x?xf32>
  %v8 = tgc.mul %v7, %v3 : tensor<1x?xf32>, tensor<f32> -> tensor<1x?xf32>
  return %v1, %v8 : tensor<?xf32>, tensor<1x?xf32>
}
// options: --calls 0=16,1=16,2=16
"""


def test_reduces_to_the_wrong_core(monkeypatch):
    rg = _load()
    real_run = rg.Checker.run

    def fake_run(self, g, inputs):
        r = real_run(self, g, inputs)
        if r is None:
            return None
        text = g.text()
        wrong = "tgc.div" in text and "tgc.log_softmax" in text
        # The first result stands in for "the wrong one".
        return (["stand-in mismatch"] if wrong else [None]) + [None] * (len(r) - 1)

    monkeypatch.setattr(rg.Checker, "run", fake_run)
    g = rg.Graph(GRAPH)
    opts = GRAPH.splitlines()[-1][len("// options:"):].split()
    checker = rg.Checker(g, opts, 0, "cpu", "", 0)
    reduced, inputs = rg.reduce_graph(g, checker, 120, False)
    text = reduced.text()
    # The result that was not wrong, and what only it needed, are gone;
    # the divisor's producers are cut into an argument.
    assert "tgc.exp" not in text
    assert "tgc.abs" not in text and "tgc.add" not in text
    assert "tgc.div" in text and "tgc.log_softmax" in text
    assert len(reduced.results) == 1
    assert len(reduced.params) == len(inputs)
    # A cut argument is given the value the op computed: |b| + 0.5.
    b = checker.inputs[1]
    assert any(p.startswith("%cut") for p in reduced.params), text
    assert any(torch.allclose(t, b.abs() + 0.5) for t in inputs if t.shape == b.shape)
