#!/usr/bin/env bash
# Fortieth session, second GPU-machine call: the batch norm change A/B in
# one call, HEAD's tracer ("result": v * scale + shift where a channel has
# more weights than outputs) against the file before 6b8f72a ("weights":
# always scaled weights), carried as old_convolution.py: torchvision
# BatchNorm CNNs on CUDA (batch 32, 224^2) and on the host CPU (the Python
# rows of issue 25); then issue 22's GPU compile rows (cold, in-process,
# disk) without torch.compile.
# Carry .python-bundle.tar.xz.
source utils/device/bundle.sh
for v in result weights; do
  [[ $v == weights ]] && cp old_convolution.py .python-bundle/tgc/_ops/convolution.py
  timeout 170 python3 utils/bench/vision_inference.py \
    --models resnet18,resnet50,efficientnet_b0,mobilenet_v3_large --modes eager,tgc 2>&1 \
    | grep -v -i warn | tee $OUT/vision-$v.txt
  timeout 100 python3 utils/bench/cpu_models.py --python --only resnet18,mobilenetv3 \
    --repeat 10 --no-torch-compile 2>&1 | grep -v -i warn | tee $OUT/cpu-$v.txt
done
cp python/tgc/_ops/convolution.py .python-bundle/tgc/_ops/convolution.py
timeout 150 python3 utils/bench/compile_cache.py --models gpu --no-torch-compile 2>&1 \
  | grep -v -i warn | tee $OUT/compile_cache.txt
