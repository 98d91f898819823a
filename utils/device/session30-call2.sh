#!/usr/bin/env bash
# Thirtieth session, second GPU-machine call, on the final bundle (glue
# compiled fast, outer loops kept from LLVM's unroller, IR verified once
# per pass pipeline): torch-mlir's e2e suite (CPU tensors, shards of
# 200 s), the zoo on the CPU and on CUDA, and cold / from-disk compile
# times, and the CPU rows of call 1 once more (outer loops of small nests
# left to LLVM since). Carry .python-bundle.tar.xz and .e2e.
source utils/device/bundle.sh
OUT=/tmp/e2eout E2E_SHARD_S=200 bash utils/device/e2e.sh | head -14
cp /tmp/e2eout/e2e.txt $OUT/e2e.txt
export TGC_CACHE=0
timeout 100 python3 utils/zoo/zoo.py --models torchvision --modes default --device cpu > $OUT/zoo-cpu.txt 2>&1
grep -E "runs:" $OUT/zoo-cpu.txt
timeout 100 python3 utils/zoo/zoo.py --models torchvision --modes default --device cuda > $OUT/zoo-cuda.txt 2>&1
grep -E "runs:" $OUT/zoo-cuda.txt
unset TGC_CACHE
timeout 120 python3 utils/bench/compile_cache.py --models cpu-stack,hf-bert,hf-vit,tv-convnext-tiny,gpt2-2 \
  --no-torch-compile 2>&1 | tail -10
export TGC_CACHE=0
timeout 100 python3 utils/bench/cpu_models.py --python --repeat 10 --no-torch-compile \
  --only convs,resnet18,mobilenetv3,squeezenet,encoder,chain,matmul512,maxpool_bwd 2>&1 | tail -9
