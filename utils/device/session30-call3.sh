#!/usr/bin/env bash
# Thirtieth session, third GPU-machine call, on the final bundle: the
# Hugging Face zoo on CUDA (the GPU compiler now verifies its IR once per
# pipeline), and the local zoo on CUDA and the CPU. Carry
# .python-bundle.tar.xz.
source utils/device/bundle.sh
export TGC_CACHE=0
timeout 300 python3 utils/zoo/zoo.py --models hf --modes default --device cuda > $OUT/zoo-hf.txt 2>&1
grep -E "runs:" $OUT/zoo-hf.txt; grep -vE "^ok|^  " $OUT/zoo-hf.txt | head -20
timeout 120 python3 utils/zoo/zoo.py --models local --modes default --device cuda > $OUT/zoo-local-cuda.txt 2>&1
grep -E "runs:" $OUT/zoo-local-cuda.txt
timeout 120 python3 utils/zoo/zoo.py --models local --modes default --device cpu > $OUT/zoo-local-cpu.txt 2>&1
grep -E "runs:" $OUT/zoo-local-cpu.txt
