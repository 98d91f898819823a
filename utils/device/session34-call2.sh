#!/usr/bin/env bash
# Thirty-fourth session, second GPU-machine call, on the bundle of fe747dd
# (the native extension built from all its sources again: call 1 ran
# through Python, the native path off). The failures of call 1's sweep in
# full (RoBERTa's launch plan through the backend, with its module text;
# DeBERTa-v2's `in`, OPT's and BART's data-dependent bools), Swin V2 after
# c5c5d64, the wide groups with CUDA graphs, and the CUDA tests of the
# native path. Carry .python-bundle.tar.xz.
source utils/device/bundle.sh
export TGC_CACHE=0
python3 -c "import tgc._native_path as n; print('native path:', n.load() is not None)"
timeout 60 python3 utils/device/dump_failed_compiles.py --models hf-roberta --modes backend --device cuda -v 2>&1 | grep -v "^\[transformers\]" | tail -30
timeout 60 python3 utils/zoo/zoo.py --models hf-deberta-v2,hf-opt,hf-bart --modes default --device cuda -v 2>&1 | grep -E "Unsupported|at /" | head -12
timeout 60 python3 utils/zoo/zoo.py --models tv-swin-v2-t --modes default,backend --device cuda 2>&1 | tail -3
timeout 150 python3 utils/zoo/zoo.py --models hf-wide --modes reduce-overhead --device cuda > $OUT/zoo-hf-wide-ro.txt 2>&1
echo "hf-wide r-o rc=$?"; grep -vE " ok$|^\[transformers\]" $OUT/zoo-hf-wide-ro.txt | tail -12
timeout 120 python3 utils/zoo/zoo.py --models torchvision-wide --modes reduce-overhead --device cuda > $OUT/zoo-tv-wide-ro.txt 2>&1
echo "tv-wide r-o rc=$?"; grep -vE " ok$" $OUT/zoo-tv-wide-ro.txt | tail -8
(cd .python-bundle && timeout 120 python3 -m pytest -q -x -p no:cacheprovider test/test_native_path.py \
  test/test_state_guards.py test/test_outside_writes.py test/test_gpu.py 2>&1 | tail -3)
