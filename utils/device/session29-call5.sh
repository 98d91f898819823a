#!/usr/bin/env bash
# Twenty-ninth session, fifth GPU-machine call: the final bundle (guard
# simplification per component in its own renumbered environment,
# 2d96b19): the dynamic training of HF GPT-2, Llama and ResNet-18, the
# dynamic and symbolic-size tests on CPU and CUDA, torch-mlir's e2e suite
# (shards of 200 s) and the zoo. Carry .python-bundle.tar.xz and .e2e.
source utils/device/bundle.sh
export TGC_CACHE=0
(cd utils/device && TGC_SLOW_COMPILE_S=30 timeout 150 python3 dynamic_train.py --models gpt2,llama,resnet18 \
   > $OUT/dynamic_train.txt 2>&1; echo "dyn rc=$?")
grep -vE "^  |transformers\]" $OUT/dynamic_train.txt | cut -c1-300 | head -20
(cd .python-bundle && timeout 150 python3 -m pytest -q test/test_training_dynamic.py \
   test/test_symbolic_sizes.py test/test_watch.py 2>&1) > $OUT/pytest.txt
tail -1 $OUT/pytest.txt; grep -E "^FAILED" $OUT/pytest.txt | head
OUT=/tmp/e2eout E2E_SHARD_S=200 bash utils/device/e2e.sh | head -14
cp /tmp/e2eout/e2e.txt $OUT/e2e.txt
timeout 120 python3 utils/zoo/zoo.py --models torchvision --modes default --device cuda > $OUT/zoo.txt 2>&1
grep -E "runs:" $OUT/zoo.txt
