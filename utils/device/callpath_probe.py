"""Host costs of the pieces of a CUDA call from Python (device probe for
issue 20): what each tensor read, allocation and stream query costs, next
to eager x + 1. Run on the GPU machine: python3 utils/device/callpath_probe.py"""
import timeit

import torch

d = torch.device("cuda", 0)
f = torch.float32
t = torch.empty(1, device=d)
shape = (1,)
kw = dict(dtype=f, device=d)
E = torch.empty
raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
cases = [
    ("torch.empty(shape, dtype, device)", lambda: E(shape, **kw)),
    ("t.new_empty(shape)", lambda: t.new_empty(shape)),
    ("torch.empty_like(t)", lambda: torch.empty_like(t)),
    ("current_stream().cuda_stream", lambda: torch.cuda.current_stream(0).cuda_stream),
    ("_cuda_getCurrentRawStream(0)", (lambda: raw(0)) if raw else (lambda: None)),
    ("t.is_contiguous()", lambda: t.is_contiguous()),
    ("t.data_ptr()", lambda: t.data_ptr()),
    ("t.shape", lambda: t.shape),
    ("t.get_device()", lambda: t.get_device()),
    ("t.is_cuda", lambda: t.is_cuda),
    ("x + 1 (eager, no sync)", lambda: t + 1),
    ("nothing", lambda: None),
]
for name, fn in cases:
    n = 20000
    for _ in range(100):
        fn()
    torch.cuda.synchronize()
    best = min(timeit.repeat(fn, number=n, repeat=5)) / n * 1e6
    torch.cuda.synchronize()
    print(f"{name:36s} {best:7.2f} us")
