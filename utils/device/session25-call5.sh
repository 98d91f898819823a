#!/usr/bin/env bash
# Twenty-fifth session, fifth GPU-machine call (2026-11-29): saved tensors
# an output holds not returned twice, a backward without absent gradients'
# zeros, GEMMs reading keys transposed under a batch collapse: the CUDA
# training, partition and GEMM tests, and GPT-2 small's training step
# against eager with every kernel's time. Carry .python-bundle.tar.xz.
source utils/device/bundle.sh
export TGC_CACHE=0
(cd .python-bundle && timeout 150 python3 -m pytest -q test/test_partition.py test/test_training.py \
   test/test_native_path.py 2>&1; timeout 60 python3 -m pytest -q test/test_gpu.py \
   -k "gemm or matmul or bmm or transpos or attention or linear" 2>&1) > $OUT/pytest.txt
grep -E "passed|failed" $OUT/pytest.txt; grep -E "^FAILED|^E  " $OUT/pytest.txt | head -20
timeout 200 python3 utils/bench/training.py --models gpt2 --steps 8 --modes eager,tgc \
  --profile 10 --kernels $OUT/kernels.tsv > $OUT/gpt2.txt 2>&1
grep -E "^gpt2 " $OUT/gpt2.txt
