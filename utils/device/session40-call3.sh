#!/usr/bin/env bash
# Fortieth session, third GPU-machine call: call 2's disk hits on CUDA
# spent 100-110 ms in the trace for HF BERT-4 (session 32: 27) and 61 ms
# for GPT-2-2 (21): where a CUDA disk hit's trace goes (cProfile), and the
# same models on the CPU for comparison.
# Carry .python-bundle.tar.xz.
source utils/device/bundle.sh
python3 utils/device/disk_hit_profile.py --models hf-bert,hf-gpt2 --device cuda > $OUT/disk_hit_cuda.txt 2>&1
python3 utils/device/disk_hit_profile.py --models hf-bert --device cpu > $OUT/disk_hit_cpu.txt 2>&1
grep -E "first call|phases" $OUT/disk_hit_*.txt
