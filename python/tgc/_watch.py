"""A native compile that takes long says so, and leaves what reproduces it.

TGC's compiles take milliseconds to a few seconds. One that runs past
``TGC_SLOW_COMPILE_S`` seconds (60 by default; a negative value turns the
watch off) is most likely a compiler bug: a pass that does not finish (a
fusion whose operands doubled at every level did, on a ResNet training
graph). The call goes on waiting, but a warning names the graph and
where its reproducer is: a folder (``$TGC_SLOW_COMPILE_DIR``, else a new
temporary one) with ``graph.mlir``, the compile's ``options.txt`` and
``repro.sh``, a ``tgc-run --compile-only`` command that compiles the same
graph on its own, where ``tgc-opt`` and ``-mlir-timing`` apply. The
native compile runs without the GIL (ctypes), so a timer thread can write
them while it runs.
"""

from __future__ import annotations

import contextlib
import os
import re
import shlex
import sys
import tempfile
import threading
import warnings
from typing import Optional


def limit_s() -> float:
    try:
        return float(os.environ.get("TGC_SLOW_COMPILE_S", "60"))
    except ValueError:
        return 60.0


# The compile options (lib/CAPI's key=value words) that change what is
# compiled, as tgc-run's flags: without them the reproducer compiles
# another program (duck sizing on, say, where the compile had it off).
_FLAGS = {"duck": "--duck-sizing", "zero-one": "--specialize-zero-one",
          "policy": "--policy", "tf32-matmuls": "--gpu-tf32-matmuls",
          "tf32-convolutions": "--gpu-tf32-convolutions",
          "cudnn-convolutions": "--gpu-cudnn-convolutions",
          "cuda-graphs": "--cuda-graphs", "device-asserts": "--device-asserts",
          "approximate-math": "--approximate-math",
          "vector-math": "--vector-math", "vector-width": "--vector-width",
          "direct-convolutions": "--direct-convolutions",
          "openmp": "--openmp", "block-size": "--gpu-block-size",
          "max-blocks": "--gpu-max-blocks", "row-block-size": "--gpu-row-block-size",
          "long-row-block-size": "--gpu-long-row-block-size",
          "row-registers": "--gpu-row-registers", "gemm-epilogues": "--gpu-gemm-epilogues",
          "vectorize": "--gpu-vectorize", "exact-division": "--exact-division",
          "dedup-kernels": "--gpu-dedup-kernels", "chip": "--gpu-chip"}


def _run_flags(options: str) -> list:
    """tgc-run flags for the options of a compile (``fuse=0`` and
    ``decompose=0`` are flags of their own; cache and library options
    change nothing compiled)."""
    flags = []
    for word in options.split():
        key, _, value = word.partition("=")
        if key in _FLAGS:
            flags.append(f"{_FLAGS[key]}={value}")
        elif key == "fuse" and value in ("0", "false"):
            flags.append("--no-fuse")
        elif key == "decompose" and value in ("0", "false"):
            flags.append("--no-decompose")
    return flags


def write_reproducer(text: str, entry: str, options: str) -> str:
    """The folder holding graph.mlir, options.txt and repro.sh."""
    root = os.environ.get("TGC_SLOW_COMPILE_DIR") or None
    if root:
        os.makedirs(root, exist_ok=True)
    safe = re.sub(r"[^A-Za-z0-9_.-]", "_", entry)[:60]
    where = tempfile.mkdtemp(prefix=f"tgc-slow-{safe}-", dir=root)
    with open(os.path.join(where, "graph.mlir"), "w") as f:
        f.write(text)
    with open(os.path.join(where, "options.txt"), "w") as f:
        f.write(options + "\n")
    device = re.search(r"\bdevice=(\w+)", options)
    device = device.group(1) if device else "cpu"
    # (On the GPU it compiles only, as on a machine without one; on the CPU
    # it compiles and runs once on random inputs.)
    args = ["tgc-run", "graph.mlir", "--entry", entry, "--device", device] + (
        ["--compile-only", "--profile"] if device == "cuda" else [])
    args += _run_flags(options)
    for m in re.finditer(r"\bexample=(\d+):([0-9x]+)", options):
        args += ["--shape", f"{m.group(1)}={m.group(2)}"]
    with open(os.path.join(where, "repro.sh"), "w") as f:
        f.write("#!/bin/sh\n# A TGC compile that ran past TGC_SLOW_COMPILE_S "
                "(tgc._watch); its options are in options.txt.\n"
                f'cd "$(dirname "$0")" && {" ".join(shlex.quote(a) for a in args)} "$@"\n')
    os.chmod(os.path.join(where, "repro.sh"), 0o755)
    return where


@contextlib.contextmanager
def slow_compile(text: str, entry: str, options: str, limit: Optional[float] = None):
    """While active, a compile running past `limit` seconds warns once and
    writes its reproducer."""
    limit = limit_s() if limit is None else limit
    if limit < 0:
        yield
        return
    done = threading.Event()

    def fire() -> None:
        if done.is_set():
            return
        try:
            where = write_reproducer(text, entry, options)
        except OSError as e:  # a full disk must not break the compile
            where = f"(not written: {e})"
        message = (f"tgc: compiling {entry} has taken more than {limit:g} s (TGC's "
                   f"compiles take seconds at most: likely a compiler bug; the compile goes "
                   f"on). Its graph and a reproducer are in {where} (repro.sh); please "
                   f"report it.")
        warnings.warn(message)
        print(message, file=sys.stderr, flush=True)

    timer = threading.Timer(limit, fire)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        done.set()
        timer.cancel()


__all__ = ["slow_compile", "write_reproducer", "limit_s"]
