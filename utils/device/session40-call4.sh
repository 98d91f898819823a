#!/usr/bin/env bash
# Fortieth session, fourth GPU-machine call: call 3's cProfile put 53 of
# HF BERT-4's CUDA trace's ~125 ms in four real attention calls. Each
# real attention call's host time during the trace and in an eager
# forward, with CUDA's lazy module loading (the default) and eager.
# Carry .python-bundle.tar.xz.
source utils/device/bundle.sh
python3 utils/device/sdpa_trace_probe.py --models hf-bert,hf-gpt2 2>&1 | grep -v -i warn
CUDA_MODULE_LOADING=EAGER python3 utils/device/sdpa_trace_probe.py --models hf-bert 2>&1 | grep -v -i warn
python3 utils/device/sdpa_trace_probe.py --models hf-bert --device cpu 2>&1 | grep -v -i warn
