#!/usr/bin/env python3
"""Where a first call's time goes, by Python function (issue 22: on the
GPU a disk hit is mostly the trace, and GPT-2-24's cold compile is more
than half trace). Builds a model as utils/bench/compile_cache.py does,
runs three eager forwards, then profiles the first `tgc.compile` call
with cProfile and prints the explain phases and the top functions by own
time and by cumulative time. Run it twice with the same --cache-dir for a
cold call and then a disk hit (a new process). Also counts the cyclic
collector's full passes in the call and in 300 K allocations after it
(session 41: the trace freezes the heap, tgc._trace_loop._heap_frozen);
`--gc` freezes or disables the collector around the call (an experiment).

    utils/device/trace_profile.py --model gpt2-24 --device cuda --cache-dir D [--top 30]
"""
import argparse
import cProfile
import io
import os
import pstats
import sys
import time
import warnings

warnings.filterwarnings("ignore")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--model", default="gpt2-24")
    p.add_argument("--device", default="cuda")
    p.add_argument("--cache-dir", required=True)
    p.add_argument("--top", type=int, default=30)
    p.add_argument("--no-profile", action="store_true")
    p.add_argument("--gc", choices=("on", "freeze", "off"), default="on",
                   help="the collector during the first call (an experiment; since "
                   "session 41 the tracer freezes the heap itself and unfreezes it when "
                   "its trace ends, also what this froze)")
    a = p.parse_args()
    os.environ["TGC_CACHE_DIR"] = a.cache_dir
    import torch
    import tgc
    import tgc._ops  # noqa: F401
    import transformers
    torch.manual_seed(0)
    if a.model.startswith("gpt2-"):
        cfg = transformers.GPT2Config(n_layer=int(a.model.split("-")[1]), n_embd=256,
                                      n_head=4, vocab_size=1000, n_positions=256)
        model, args = transformers.GPT2Model(cfg), (torch.randint(0, 1000, (2, 64)),)
        kwargs = {}
    else:
        root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        sys.path.insert(0, os.path.join(root, "utils", "zoo"))
        import models
        entry = models.ALL[a.model]
        batch, seq = entry.sizes[0]
        model, (args, kwargs) = entry.build(), entry.inputs(batch, seq, "cpu")
    model = model.to(a.device).eval()
    args = tuple(x.to(a.device) if isinstance(x, torch.Tensor) else x for x in args)
    kwargs = {k: v.to(a.device) if isinstance(v, torch.Tensor) else v
              for k, v in kwargs.items()}
    sync = torch.cuda.synchronize if a.device == "cuda" else (lambda: None)
    with torch.no_grad():
        for _ in range(3):
            model(*args, **kwargs)
        sync()
        t = time.perf_counter()
        model(*args, **kwargs)
        sync()
        eager = (time.perf_counter() - t) * 1e3
    fn = tgc.compile(model)
    prof = cProfile.Profile()
    import gc
    frozen_before = gc.get_freeze_count()
    freezes = []
    real_freeze = gc.freeze

    def counted_freeze():
        freezes.append(1)  # (not len(gc.get_objects()): 30-40 ms with an HF model)
        real_freeze()

    gc.freeze = counted_freeze
    full0 = gc.get_stats()[2]["collections"]
    with torch.no_grad():
        t = time.perf_counter()
        if not a.no_profile:
            prof.enable()
        if a.gc == "freeze":
            gc.freeze()
        elif a.gc == "off":
            gc.disable()
        fn(*args, **kwargs)
        sync()
        if a.gc == "freeze":
            gc.unfreeze()
        gc.enable()
        prof.disable()
        first = (time.perf_counter() - t) * 1e3
    full1 = gc.get_stats()[2]["collections"]
    # What the program does next: allocations that a deferred full pass
    # of the collector would land in.
    t = time.perf_counter()
    junk = [[i] for i in range(300000)]
    after = (time.perf_counter() - t) * 1e3
    full2 = gc.get_stats()[2]["collections"]
    del junk
    e = tgc.explain(fn)
    phases = [(n, round(x, 1)) for s in e.specializations for n, x in s.phases]
    disk = [c for s in e.specializations for c in s.disk_cache]
    print(f"== {a.model} {a.device} gc {a.gc}: frozen before {frozen_before}, freezes {freezes}; "
          f"eager forward {eager:.2f} ms; first call {first:.1f} ms"
          f"{'' if a.no_profile else ' (profiled)'}; full passes in it {full1 - full0}, "
          f"then 300 K lists {after:.1f} ms ({full2 - full1} full passes); "
          f"disk {disk}; phases {phases}")
    for key in () if a.no_profile else ("tottime", "cumulative"):
        s = io.StringIO()
        pstats.Stats(prof, stream=s).sort_stats(key).print_stats(a.top)
        print(f"-- by {key}")
        print("\n".join(line for line in s.getvalue().splitlines()[6:] if line.strip()))


if __name__ == "__main__":
    main()
