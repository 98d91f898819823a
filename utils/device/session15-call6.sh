#!/usr/bin/env bash
# Fifteenth session, sixth GPU-machine call (2026-11-28): the backend API's
# convolution plans with cuDNN's first candidates timed (up to 6 per
# shape; TGC_CUDNN_TUNE=0 for the first choice): the CUDA tests, vision
# inference both ways, ResNet-18's profile, the ResNet-18 training step,
# the zoo on CUDA. Carry .python-bundle.tar.xz.
set -uo pipefail
export PYTHONUNBUFFERED=1
[[ -d .python-bundle ]] || tar xJf .python-bundle.tar.xz
export PYTHONPATH=$PWD/.python-bundle
export TGC_CACHE=0
(cd .python-bundle && timeout 150 python3 -m pytest -q test/test_gpu.py 2>&1) > $OUT/pytest.txt
tail -2 $OUT/pytest.txt; grep -E "^FAILED|^E  " $OUT/pytest.txt | head -20
cp utils/bench/vision_inference.py /tmp/vi.py
timeout 150 python3 /tmp/vi.py --models resnet18,resnet50 --modes eager,inductor,tgc,tgc-ro,inductor-ro \
  2>&1 | grep -v -i warn | tee $OUT/vision-tuned.txt
TGC_CUDNN_TUNE=0 timeout 80 python3 /tmp/vi.py --models resnet18,resnet50 --modes eager,tgc \
  2>&1 | grep -v -i warn | tee $OUT/vision-first.txt
timeout 100 python3 - <<'PY' 2>&1 | grep -v Warning > $OUT/resnet18-profile.txt
import torch, torchvision, tgc
m = torchvision.models.resnet18(weights=None).cuda().eval()
x = torch.randn(32, 3, 224, 224, device="cuda")
c = tgc.compile(m)
with torch.no_grad():
    c(x)
    print(tgc.profile(c, x, repeat=20))
PY
head -1 $OUT/resnet18-profile.txt; grep " conv " $OUT/resnet18-profile.txt | cut -c1-150 | sed -n '1,2p;18,20p'
timeout 90 python3 utils/bench/training.py --models resnet18 --steps 6 --modes eager,tgc \
  2>&1 | grep -v Warning | tee $OUT/training.txt
timeout 150 python3 utils/zoo/zoo.py --models all --modes default --device cuda > $OUT/zoo-cuda.txt 2>&1
grep -E "runs:|wrong|error" $OUT/zoo-cuda.txt | tail -4
