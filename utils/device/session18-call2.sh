#!/usr/bin/env bash
# Eighteenth session, second GPU-machine call (2026-11-28): the compile
# times of call 1 again without the e2e suite on the same cores, with
# torch.compile's C++ backend next to the 6-block stack and GPT-2-2 (cold
# and warm), and the shared preamble (utils/device/bundle.sh) through
# e2e.sh's first lines. Carry .python-bundle.tar.xz.
source utils/device/bundle.sh
lscpu | grep -E "Model name|^CPU\(s\)"
timeout 420 python3 utils/bench/compile_cache.py --models cpu-stack,cpu-gpt2-2 2>&1 | grep -v -i warn
timeout 150 python3 utils/bench/compile_cache.py --models cpu-gpt2-24 --no-torch-compile 2>&1 | grep -v -i warn
