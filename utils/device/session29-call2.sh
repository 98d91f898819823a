#!/usr/bin/env bash
# Twenty-ninth session, second GPU-machine call: (1) ResNet-18's batch-6
# CUDA gradients on the batch resnet_batch6.py saw, each compiled graph
# against its FX graph; (2) with the ShapeEnv and tgc-simplify-guards
# fixes and 3f43fb1 re-applied, the dynamic training of HF GPT-2, Llama,
# BERT and ResNet-18 (one backward region each, gradients against eager,
# steps timed); (3) the dynamic, symbolic-size, scatter and movement
# tests on CPU and CUDA; (4) torch-mlir's e2e suite and the zoo (the
# canonical forms of sizes changed). Carry .python-bundle.tar.xz and .e2e.
source utils/device/bundle.sh
export TGC_CACHE=0
(cd utils/device && timeout 120 python3 resnet_batch6_saved.py 6 > $OUT/batch6.txt 2>&1; echo "batch6 rc=$?")
grep -vE "Warning|return Variable" $OUT/batch6.txt | tail -22
mkdir -p $OUT/slow
(cd utils/device && TGC_SLOW_COMPILE_S=30 TGC_SLOW_COMPILE_DIR=$OUT/slow timeout 200 \
   python3 dynamic_train.py --models gpt2,llama,bert,resnet18 > $OUT/dynamic_train.txt 2>&1; echo "dyn rc=$?")
grep -vE "^  |transformers\]" $OUT/dynamic_train.txt | cut -c1-400 | head -40
(cd .python-bundle && timeout 200 python3 -m pytest -q test/test_training_dynamic.py \
   test/test_scatter.py test/test_movement.py test/test_symbolic_sizes.py 2>&1) > $OUT/pytest.txt
tail -1 $OUT/pytest.txt; grep -E "^FAILED" $OUT/pytest.txt | head
OUT=/tmp/e2eout E2E_SHARD_S=120 bash utils/device/e2e.sh | head -14
cp /tmp/e2eout/e2e.txt $OUT/e2e.txt
timeout 120 python3 utils/zoo/zoo.py --models torchvision --modes default --device cuda > $OUT/zoo.txt 2>&1
grep -E " ok$| ok | FAIL|fail|wrong|error|runs:" $OUT/zoo.txt | grep -v -i warn | tail -10
