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
source utils/device/cpu-conformance.sh
timeout 200 python3 utils/bench/compile_cache.py --models cpu-stack,cpu-gpt2-2,cpu-gpt2-24 \
  --repeat 3 --no-torch-compile --json $OUT/compile_cache.json 2>&1 | grep -v -i warn \
  | tee $OUT/compile_cache.txt
