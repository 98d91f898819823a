#!/usr/bin/env bash
# Fifteenth session, fourth GPU-machine call (2026-11-28): cuDNN
# convolutions with every algorithm timed (cudnnFindConvolutionForwardAlgorithmEx,
# TGC_CUDNN_TUNE=0 for the heuristic): vision inference both ways, the
# per-call cost of one small cuDNN step next to eager's conv2d, ResNet-18's
# profile, the convolution tests. Carry .python-bundle.tar.xz.
set -uo pipefail
export PYTHONUNBUFFERED=1
[[ -d .python-bundle ]] || tar xJf .python-bundle.tar.xz
export PYTHONPATH=$PWD/.python-bundle
cp utils/bench/vision_inference.py /tmp/vi.py
timeout 120 python3 /tmp/vi.py --models resnet18,resnet50 --modes eager,tgc,tgc-ro \
  2>&1 | grep -v -i warn | tee $OUT/vision-tuned.txt
TGC_CUDNN_TUNE=0 timeout 80 python3 /tmp/vi.py --models resnet18,resnet50 --modes eager,tgc \
  2>&1 | grep -v -i warn | tee $OUT/vision-heuristic.txt
timeout 100 python3 - <<'PY' 2>&1 | grep -v -i warn | tee $OUT/small-conv.txt
# Host cost per call: a small convolution (device time a few us), synchronized.
import time, torch, torch.nn.functional as F, tgc
x = torch.randn(1, 64, 14, 14, device="cuda")
w = torch.randn(64, 64, 3, 3, device="cuda")
def per_call(fn, n=2000):
    for _ in range(50):
        fn()
    torch.cuda.synchronize()
    t = time.perf_counter()
    for _ in range(n):
        fn()
    torch.cuda.synchronize()
    return (time.perf_counter() - t) / n * 1e6
conv = tgc.compile(lambda x: F.conv2d(x, w, padding=1))
relu = tgc.compile(lambda x: torch.relu(x))
print(f"back to back, us per call: eager conv2d {per_call(lambda: F.conv2d(x, w, padding=1)):.1f}, "
      f"tgc conv {per_call(lambda: conv(x)):.1f}, tgc relu {per_call(lambda: relu(x)):.1f}, "
      f"eager relu {per_call(lambda: torch.relu(x)):.1f}")
print(tgc.profile(conv, x, repeat=50))
PY
timeout 100 python3 - <<'PY' 2>&1 | grep -v Warning > $OUT/resnet18-profile.txt
import torch, torchvision, tgc
m = torchvision.models.resnet18(weights=None).cuda().eval()
x = torch.randn(32, 3, 224, 224, device="cuda")
c = tgc.compile(m)
with torch.no_grad():
    c(x)
    print(tgc.profile(c, x, repeat=20))
PY
head -1 $OUT/resnet18-profile.txt; grep " conv " $OUT/resnet18-profile.txt | cut -c1-150 | head -5
(cd .python-bundle && timeout 150 python3 -m pytest -q test/test_gpu.py -k "cudnn or conv or tf32" 2>&1) > $OUT/pytest.txt
tail -2 $OUT/pytest.txt; grep -E "^FAILED" $OUT/pytest.txt | head
