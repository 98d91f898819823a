"""The on-disk compile cache, from Python (docs/compile-cache.md).

Compiles go through the C library's cache (tgc_compile's `cache-dir`): a
compiled specialization is stored under a key that hashes the traced graph,
the options that change code, TGC's build and the target, and a later
process with the same key loads it instead of compiling. This module picks
the folder (`TGC_CACHE_DIR`, default `$XDG_CACHE_HOME/tgc` or
`~/.cache/tgc`; `TGC_CACHE=0` turns the cache off), reports what the
library says of each compile (TGC_LOGS=cache; a rejected entry is one
warning), and packs the entries this process used into a portable bundle
(`tgc.save_cache` / `tgc.load_cache`, like PyTorch's mega-cache).
"""

from __future__ import annotations

import hashlib
import os
import struct
import threading
import warnings
from typing import Callable, Dict, Optional

from . import _capi

# Entries this process compiled or loaded: key -> path (save_cache).
_used: Dict[str, str] = {}
_lock = threading.Lock()

_BUNDLE_MAGIC = b"TGCBNDL\0"
_BUNDLE_VERSION = 1


def cache_dir() -> Optional[str]:
    """The cache's folder, or None when TGC_CACHE=0."""
    if os.environ.get("TGC_CACHE", "1").strip().lower() in ("0", "false", "off", "no"):
        return None
    folder = os.environ.get("TGC_CACHE_DIR")
    if not folder:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        folder = os.path.join(base, "tgc")
    return os.path.abspath(folder)


_tuning_dir: Optional[str] = ""


def compile_options() -> str:
    """tgc_compile's cache options for this process's settings (and the
    runtime's cuBLASLt tuning cache, in the same folder)."""
    global _tuning_dir
    folder = cache_dir()
    if folder != _tuning_dir:
        _capi.lib().tgc_set_gemm_tuning_cache(folder.encode() if folder else None)
        _tuning_dir = folder
    if folder is None:
        return ""
    # tgc_compile's options are split at spaces: a space in the path is
    # written %20 (and % as %25).
    opts = "cache-dir=" + folder.replace("%", "%25").replace(" ", "%20")
    max_mb = os.environ.get("TGC_CACHE_MAX_MB")
    if max_mb:
        try:
            mb = int(max_mb)
            if mb < 1:
                raise ValueError
            opts += f" cache-max-mb={mb}"
        except ValueError:
            _warn_once(f"TGC_CACHE_MAX_MB={max_mb!r} is not a positive number of MiB: "
                       "the default bound (4096) applies")
    return opts


_warned: set = set()


def _warn_once(text: str) -> None:
    if text not in _warned:
        _warned.add(text)
        warnings.warn(f"tgc: compile cache: {text}")


def note(compiled: _capi.Compiled, name: str, log: Callable[[str, str], None]) -> None:
    """What the library said of one compile: the log line, the warning of
    a rejected or unwritten entry, the entry for save_cache."""
    status = compiled.cache_status
    if status == "off":
        if compiled.cache_warning:  # off for want of a build ID: once
            _warn_once(compiled.cache_warning)
        return
    if compiled.cache_warning:
        warnings.warn(f"tgc: compile cache: {compiled.cache_warning}")
    if status in ("hit", "miss") and compiled.cache_path:
        with _lock:
            _used[compiled.cache_key] = compiled.cache_path
    ms = compiled.compile_ms
    what = f"loaded in {ms:.1f} ms" if status == "hit" else f"compiled in {ms:.1f} ms"
    log("cache", f"{name}: compile cache {status} ({what}): {compiled.cache_path}")


def save_cache(path: str) -> int:
    """Writes the compile-cache entries this process compiled or loaded to
    one file, for `load_cache` on another machine of the same target (same
    TGC build, CPU or GPU and CUDA toolkit: the keys hold them, so entries
    of another target are never used there). Returns the number of
    entries."""
    with _lock:
        entries = sorted(_used.items())
    blobs = []
    for key, entry in entries:
        try:
            with open(entry, "rb") as f:
                blobs.append((key, f.read()))
        except OSError:
            continue  # evicted since: not in the bundle
    body = b"".join(struct.pack("<I", len(k)) + k.encode() + struct.pack("<Q", len(b)) + b
                    for k, b in blobs)
    header = _BUNDLE_MAGIC + struct.pack("<II", _BUNDLE_VERSION, len(blobs))
    digest = hashlib.sha256(header + body).digest()
    tmp = f"{path}.{os.getpid()}.tmp"
    with open(tmp, "wb") as f:
        f.write(header + body + digest)
    os.replace(tmp, path)
    return len(blobs)


def load_cache(path: str) -> int:
    """Adds the entries of a `save_cache` file to this process's cache
    folder (each written atomically; the library checks every entry again
    when it is used). Raises ValueError on a file that is not a whole
    bundle. Returns the number of entries."""
    folder = cache_dir()
    if folder is None:
        raise ValueError("tgc.load_cache: the compile cache is off (TGC_CACHE=0)")
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < len(_BUNDLE_MAGIC) + 8 + 32 or not data.startswith(_BUNDLE_MAGIC):
        raise ValueError(f"tgc.load_cache: {path} is not a TGC cache bundle")
    if hashlib.sha256(data[:-32]).digest() != data[-32:]:
        raise ValueError(f"tgc.load_cache: {path} is corrupted (checksum mismatch)")
    version, count = struct.unpack_from("<II", data, len(_BUNDLE_MAGIC))
    if version != _BUNDLE_VERSION:
        raise ValueError(f"tgc.load_cache: bundle format {version}, this TGC reads "
                         f"{_BUNDLE_VERSION}")
    at, end, entries = len(_BUNDLE_MAGIC) + 8, len(data) - 32, []
    try:
        for _ in range(count):
            (n,) = struct.unpack_from("<I", data, at)
            key = data[at + 4:at + 4 + n].decode()
            at += 4 + n
            (size,) = struct.unpack_from("<Q", data, at)
            blob = data[at + 8:at + 8 + size]
            at += 8 + size
            if len(blob) != size or len(key) != 64 or any(c not in "0123456789abcdef" for c in key):
                raise ValueError
            entries.append((key, blob))
    except (struct.error, UnicodeDecodeError, ValueError):
        raise ValueError(f"tgc.load_cache: {path} is malformed") from None
    if at != end:
        raise ValueError(f"tgc.load_cache: {path} is malformed (trailing bytes)")
    for key, blob in entries:
        target = os.path.join(folder, key[:2], key + ".tgcc")
        os.makedirs(os.path.dirname(target), exist_ok=True)
        tmp = f"{target}.tmp-{os.getpid()}-{threading.get_ident()}"
        with open(tmp, "wb") as f:
            f.write(blob)
        os.replace(tmp, target)
    return len(entries)
