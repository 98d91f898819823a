#!/usr/bin/env bash
# Thirty-seventh session, fourth GPU-machine call: the call-path bench's
# Hugging Face rows with the final bundle (BERT: 45 launches per call, 37
# with reduce-overhead's device asserts). Carry .python-bundle.tar.xz.
source utils/device/bundle.sh
timeout 280 python3 utils/bench/python_bench.py --call-path --only HF > $OUT/bench.txt 2>&1
echo "rc=$?"; grep -E "HF " $OUT/bench.txt | head -24
