#!/usr/bin/env bash
# Fourteenth session, fifth GPU-machine call (2026-11-28): where TGC's
# ResNet-18 inference (batch 32, 224^2, f32, TF32 convolutions) spends its
# time: tgc.profile's kernels and GEMMs, next to torch.profiler's view of
# eager's. Carry .python-bundle.tar.xz.
set -uo pipefail
export PYTHONUNBUFFERED=1
[[ -d .python-bundle ]] || tar xJf .python-bundle.tar.xz
export PYTHONPATH=$PWD/.python-bundle
timeout 200 python3 - <<'PY' 2>&1 | grep -v Warning | tee $OUT/resnet18-profile.txt | cut -c1-220
import torch, torchvision, tgc
m = torchvision.models.resnet18(weights=None).cuda().eval()
x = torch.randn(32, 3, 224, 224, device="cuda")
c = tgc.compile(m)
with torch.no_grad():
    c(x)
    print(tgc.profile(c, x, repeat=20))
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        for _ in range(10):
            m(x)
        torch.cuda.synchronize()
print(prof.key_averages().table(sort_by="cuda_time_total", row_limit=15))
PY
