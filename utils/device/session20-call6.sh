#!/usr/bin/env bash
# Twentieth session, sixth GPU-machine call (2026-11-29): the call path's
# real-model rows (HF BERT, GPT-2, Llama: each has an embedding, whose index
# check made every call wait at its end until tgc-hoist-checks), from
# Python. Carry .python-bundle.tar.xz.
source utils/device/bundle.sh
export TGC_CACHE=0
timeout 500 python3 utils/bench/python_bench.py --call-path --only HF > $OUT/call-path-hf.txt 2>&1
grep -v -i warn $OUT/call-path-hf.txt | tail -24
