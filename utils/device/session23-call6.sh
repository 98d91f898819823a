#!/usr/bin/env bash
# Twenty-third session, sixth GPU-machine call (2026-11-29): the traced
# forward and backward graphs of GPT-2 small's training step (TGC_LOGS=graph)
# to $OUT/graphs.txt. Here, each graph through `tgc-opt --tgc-gpu-pipeline
# --mlir-print-ir-after=tgc-gpu-form-kernels` named the slow kernels of
# call 3: transposes feeding GEMMs (tgc-gpu-fold-gemm-transposes since).
# Carry .python-bundle.tar.xz.
source utils/device/bundle.sh
export TGC_CACHE=0
TGC_LOGS=graph timeout 200 python3 - > $OUT/graphs.txt 2>&1 <<'PY'
import sys, torch, tgc
sys.path.insert(0, "utils/bench")
import training
model, data, loss_of = training._model("gpt2", "cuda", 0)
model = model.cuda().train()
data = tuple(d.cuda() for d in data)
c = tgc.compile(model)
loss_of(c, *data).backward()
PY
grep -c "func.func" $OUT/graphs.txt
