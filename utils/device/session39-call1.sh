#!/usr/bin/env bash
# Thirty-ninth session, first GPU-machine call: guard sets of at least 64
# checkable guards checked from a table (tgc-lower-guards), the C
# interface inlined into its packed wrapper and the glue's allocas in its
# entry block (CPU JIT). Every CPU compile's guard function changed:
# torch-mlir's e2e suite on CPU tensors and the zoo on the CPU (run
# together), then issue 22's compile times on the CPU: the 6-block stack
# and GPT-2 with 2 and 24 layers (cold, in-process, disk), three times.
# Carry .python-bundle.tar.xz and .e2e.
source utils/device/bundle.sh
lscpu | grep -E "Model name|^CPU\(s\)" | cut -c1-100 | head -2
E2E_SHARD_S=200 bash utils/device/e2e.sh > $OUT/e2e-summary.txt 2>&1 &
e2e=$!
timeout 200 python3 utils/zoo/zoo.py --models all --modes default --device cpu 2>&1 \
  | grep -v -i warn > $OUT/zoo.txt; tail -4 $OUT/zoo.txt
wait $e2e
head -8 $OUT/e2e-summary.txt; grep "did not finish" $OUT/e2e-summary.txt
timeout 200 python3 utils/bench/compile_cache.py --models cpu-stack,cpu-gpt2-2,cpu-gpt2-24 \
  --repeat 3 --no-torch-compile --json $OUT/compile_cache.json 2>&1 | grep -v -i warn \
  | tee $OUT/compile_cache.txt
