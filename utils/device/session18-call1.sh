#!/usr/bin/env bash
# Eighteenth session, first GPU-machine call (2026-11-28): the CPU JIT's
# entry function is linear in the layers (tgc-check-allocations' failure
# paths freed every earlier buffer on every path; every kernel outlined, the
# glue scheduled with generic tuning). The e2e suite (CPU tensors) in the
# background; compile times of GPT-2 with 2 and 24 layers and the 6-block
# stack on the 16-core CPU (where LLVM's host model is not the CI machine's
# Zen 4); the zoo's transformers and two CNNs on the CPU. Carry
# .python-bundle.tar.xz and .e2e.
source utils/device/bundle.sh
E2E_SHARD_S=230 bash utils/device/e2e.sh > $OUT/e2e-summary.txt 2>&1 &
e2e=$!
lscpu | grep -E "Model name|^CPU\(s\)" > $OUT/cpu.txt
timeout 300 python3 utils/bench/compile_cache.py --models cpu-stack,cpu-gpt2-2,cpu-gpt2-24 \
  --no-torch-compile 2>&1 | grep -v -i warn > $OUT/compile.txt; cat $OUT/cpu.txt $OUT/compile.txt
export TGC_CACHE=0
timeout 200 python3 utils/zoo/zoo.py --models hf-gpt2,hf-bert,hf-llama,hf-t5,tv-resnet18,tv-mobilenet-v3 \
  --modes default --device cpu 2>&1 | grep -v -i warn > $OUT/zoo.txt; tail -12 $OUT/zoo.txt
wait $e2e
cat $OUT/e2e-summary.txt | head -30
