#!/usr/bin/env bash
# Fifteenth session, eighth GPU-machine call (2026-11-28): max pooling reads
# its padded input in place on the GPU, and the timed cuDNN candidates
# include the fallback list: the CUDA tests (with pooling), vision
# inference, ResNet-18's stem convolution and pool in the profile.
# Carry .python-bundle.tar.xz.
set -uo pipefail
export PYTHONUNBUFFERED=1
[[ -d .python-bundle ]] || tar xJf .python-bundle.tar.xz
export PYTHONPATH=$PWD/.python-bundle
export TGC_CACHE=0
(cd .python-bundle && timeout 150 python3 -m pytest -q test/test_gpu.py test/test_pooling.py 2>&1) > $OUT/pytest.txt
tail -2 $OUT/pytest.txt; grep -E "^FAILED|^E  " $OUT/pytest.txt | head -20
cp utils/bench/vision_inference.py /tmp/vi.py
timeout 100 python3 /tmp/vi.py --models resnet18,resnet50 --modes eager,tgc,tgc-ro \
  2>&1 | grep -v -i warn | tee $OUT/vision.txt
timeout 80 python3 - <<'PY' 2>&1 | grep -v Warning > $OUT/resnet18-profile.txt
import torch, torchvision, tgc
m = torchvision.models.resnet18(weights=None).cuda().eval()
x = torch.randn(32, 3, 224, 224, device="cuda")
c = tgc.compile(m)
with torch.no_grad():
    c(x)
    print(tgc.profile(c, x, repeat=20))
PY
head -1 $OUT/resnet18-profile.txt; sed -n '40,48p' $OUT/resnet18-profile.txt | cut -c1-150
