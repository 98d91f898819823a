#!/usr/bin/env bash
# Fifteenth session, second GPU-machine call (2026-11-28): where ResNet-18
# and ResNet-50 inference (batch 32, 224^2, f32, TF32 convolutions) spend
# their time with cuDNN convolutions (tgc.profile, next to torch.profiler's
# view of eager); the ResNet-18 training step; the training, native-path
# and pooling tests. Carry .python-bundle.tar.xz.
set -uo pipefail
export PYTHONUNBUFFERED=1
[[ -d .python-bundle ]] || tar xJf .python-bundle.tar.xz
export PYTHONPATH=$PWD/.python-bundle
for model in resnet18 resnet50; do
timeout 100 python3 - $model <<'PY' 2>&1 | grep -v Warning > $OUT/$model-profile.txt
import sys, torch, torchvision, tgc
m = getattr(torchvision.models, sys.argv[1])(weights=None).cuda().eval()
x = torch.randn(32, 3, 224, 224, device="cuda")
c = tgc.compile(m)
with torch.no_grad():
    c(x)
    print(tgc.profile(c, x, repeat=20))
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        for _ in range(10):
            m(x)
        torch.cuda.synchronize()
print(prof.key_averages().table(sort_by="cuda_time_total", row_limit=25))
PY
head -12 $OUT/$model-profile.txt | cut -c1-200
done
timeout 90 python3 utils/bench/training.py --models resnet18 --steps 6 --modes eager,tgc \
  2>&1 | grep -v Warning | tee $OUT/training.txt
(cd .python-bundle && timeout 220 python3 -m pytest -q test/test_training.py \
  test/test_native_path.py test/test_pooling.py 2>&1) > $OUT/pytest.txt; tail -4 $OUT/pytest.txt
grep -E "^FAILED" $OUT/pytest.txt | head
