#!/usr/bin/env bash
# Fortieth session, sixth GPU-machine call: call 5's probe still put 86 ms
# in HF BERT-4's first traced attention after the mask change: what each
# real attention call gets (mask, layout) in the trace and in eager.
# Carry .python-bundle.tar.xz.
source utils/device/bundle.sh
python3 utils/device/sdpa_trace_probe.py --models hf-bert 2>&1 | grep -v -i -E "warn|token_id"
