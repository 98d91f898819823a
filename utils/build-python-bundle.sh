#!/usr/bin/env bash
# Builds a relocatable bundle of TGC's Python package for machines with no
# LLVM or MLIR installed (the lent GPU machine: Python 3.12, PyTorch, CUDA),
# and packs it as OUT.tar.xz:
#   utils/build-python-bundle.sh [OUT_DIR]     (default: .python-bundle)
#   TGC_BUNDLE_SKIP_TEST=1 utils/build-python-bundle.sh   (no smoke test)
# On the other machine: tar xJf .python-bundle.tar.xz; PYTHONPATH=.python-bundle
#
# Layout:
#   OUT/tgc/        python/tgc (the package, ctypes only: any Python 3)
#   OUT/tgc/_lib/   libtgc_capi.so, libomp.so.5, libmlir_c_runner_utils.so.*
#                   and what those need beyond glibc, libstdc++ and libgcc_s;
#                   _tgc_native.abi3.so (the native call path)
#   OUT/test/       python/test
#
# Why a static link: the transfer limit is 64 MiB compressed, and Debian's
# LLVM links everything against libLLVM.so and libMLIR.so (LLVM_LINK_LLVM_DYLIB:
# build-gpu-bundle.sh carried both, 71 MB compressed). So libtgc_capi.so
# (lib/CAPI) is relinked here by hand from build-bundle/'s static TGC
# libraries and the static libMLIR*.a / libLLVM*.a, with libstdc++ and libgcc
# linked in, -Wl,--gc-sections and the version script tgc_capi.map: only
# tgc_* is exported, so the linker keeps only what those functions reach
# (still most of MLIR: tgc::registerAllTgcDialects registers all of MLIR's
# dialects and extensions). Then it is stripped. ldd shows only glibc.
# Three small stubs are linked in first (build-bundle/python-bundle/stubs.c):
#  - LLVM's AMDGPU and SPIRV target registration as no-ops: only MLIR's ROCDL
#    and XeVM targets call them, TGC generates code for X86 (JIT) and NVPTX
#    only; this drops about 30 MB of AMDGPU code generator;
#  - zstd (no libzstd.a on Debian; LLVM's Support references it for
#    compressed sections, which TGC never produces): calls fail cleanly;
#  - arc4random (glibc 2.36, used by libstdc++ and LLVM's Support) over
#    getrandom, so the library runs with glibc 2.35 (Ubuntu 22.04) too.
# The CPU JIT dlopens LLVM's OpenMP runtime and MLIR's C runner utils; the
# Python package passes the bundled copies with tgc_compile's shared-libs=
# option. Debian links those against libMLIR.so/libLLVM.so too, but uses no
# symbol of theirs: such DT_NEEDED entries are dropped from the copies and
# their RUNPATH becomes $ORIGIN (a small ELF edit in Python, no patchelf).
# libstdc++/libgcc_s are left to the system (every PyTorch install has
# them; a bundled older libstdc++ could shadow the newer one torch needs).
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
out="${1:-$root/.python-bundle}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
build="$root/build-bundle"
work="$build/python-bundle"
llvm_config="${LLVM_CONFIG:-llvm-config-22}"
llvm_lib="$("$llvm_config" --libdir)"
limit=$((64 * 1024 * 1024))
py=/usr/bin/python3
[[ -x $py ]] || py=python3

die() { echo "build-python-bundle: error: $*" >&2; exit 1; }
step() { echo "== $*"; }
start=$SECONDS

# --- 1. The static TGC libraries (build-bundle/: static MLIR, ccache). ----
step "configure $build"
cmake -S "$root" -B "$build" -G Ninja \
  -DCMAKE_BUILD_TYPE=Release -DTGC_ENABLE_ASSERTIONS=ON \
  -DMLIR_DIR="$llvm_lib/cmake/mlir" \
  -DLLVM_EXTERNAL_LIT="$("$llvm_config" --bindir)/lit" \
  -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
  -DLLVM_USE_LINKER=lld \
  -DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache \
  -DTGC_LINK_MLIR_DYLIB=OFF >/dev/null
# Only the inputs of libtgc_capi.so: its own (dynamic) link is replaced below.
mapfile -t inputs < <(ninja -C "$build" -t query lib/libtgc_capi.so |
  sed -n '/^  input:/,/^  outputs:/p' | sed 's/^ *|* *//' |
  grep -v ':' | grep -v '^/' | sort -u)
[[ ${#inputs[@]} -gt 0 ]] || die "no inputs for lib/libtgc_capi.so in $build"
step "build ${#inputs[@]} inputs of libtgc_capi.so"
ninja -C "$build" "${inputs[@]}"

# --- 2. Stubs (see the top) and the static link. -------------------------
mkdir -p "$work"
cat >"$work/stubs.c" <<'EOF'
/* Linked before the static LLVM libraries by utils/build-python-bundle.sh. */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/random.h>

/* LLVM targets TGC never generates code for: registration does nothing, so
 * TargetRegistry::lookupTarget reports them as unknown. */
#define TGC_NO_TARGET(T)                                                      \
  void LLVMInitialize##T##TargetInfo(void) {}                                 \
  void LLVMInitialize##T##Target(void) {}                                     \
  void LLVMInitialize##T##TargetMC(void) {}                                   \
  void LLVMInitialize##T##AsmPrinter(void) {}                                 \
  void LLVMInitialize##T##AsmParser(void) {}
TGC_NO_TARGET(AMDGPU)
TGC_NO_TARGET(SPIRV)

/* zstd: every call fails (llvm::compression then reports an error). */
static const char zstd_msg[] = "zstd is not available in libtgc_capi";
void *ZSTD_createCCtx(void) { return NULL; }
size_t ZSTD_freeCCtx(void *c) { (void)c; return 0; }
size_t ZSTD_CCtx_setParameter(void *c, int p, int v) {
  (void)c; (void)p; (void)v; return (size_t)-1;
}
unsigned ZSTD_isError(size_t code) { return code > (size_t)-120; }
const char *ZSTD_getErrorName(size_t code) { (void)code; return zstd_msg; }
size_t ZSTD_compressBound(size_t n) { return n + (n >> 8) + 64; }
size_t ZSTD_compress2(void *c, void *d, size_t dn, const void *s, size_t sn) {
  (void)c; (void)d; (void)dn; (void)s; (void)sn; return (size_t)-1;
}
size_t ZSTD_decompress(void *d, size_t dn, const void *s, size_t sn) {
  (void)d; (void)dn; (void)s; (void)sn; return (size_t)-1;
}

/* glibc 2.36's arc4random over getrandom (glibc 2.25). */
uint32_t arc4random(void) {
  uint32_t v = 0;
  for (;;) {
    ssize_t n = getrandom(&v, sizeof v, 0);
    if (n == (ssize_t)sizeof v || (n < 0 && errno != EINTR))
      return v;
  }
}
EOF
clang-22 -O2 -fPIC -ffunction-sections -fdata-sections -fvisibility=hidden \
  -c "$work/stubs.c" -o "$work/stubs.o"

# The link line CMake generated, with libMLIR.so/libLLVM.so replaced by every
# static MLIR and LLVM archive in one group: the linker pulls only the
# members something reachable needs.
ninja -C "$build" -t commands lib/libtgc_capi.so | tail -n 1 >"$work/cmake-link.sh"
"$py" - "$work" "$llvm_lib" <<'EOF'
import glob, os, shlex, sys
work, llvm_lib = sys.argv[1:3]
cmd = open(os.path.join(work, "cmake-link.sh")).read().strip()
# ninja prints ": && clang++ ... && :"
if cmd.startswith(": && "):
    cmd = cmd[5:]
if cmd.endswith(" && :"):
    cmd = cmd[:-5]
toks = shlex.split(cmd)
if "lib/libtgc_capi.so" not in toks:
    sys.exit("unexpected link command for libtgc_capi.so: " + cmd[:200])
out, skip = [], False
for i, t in enumerate(toks):
    if skip:
        skip = False
        continue
    if t == "-o":
        out += ["-o", os.path.join(work, "libtgc_capi.so")]
        skip = True
        continue
    if t.startswith("-Wl,-rpath"):
        continue
    base = os.path.basename(t)
    if base.startswith(("libMLIR.so", "libLLVM.so", "libLLVM-")) or t in ("-lLLVM", "-lMLIR"):
        continue
    if not t.startswith("-") and (base.endswith(".so") or ".so." in base):
        sys.exit("unexpected shared library on the link line: " + t)
    out.append(t)
mlir = sorted(glob.glob(os.path.join(llvm_lib, "libMLIR*.a")))
llvm = sorted(glob.glob(os.path.join(llvm_lib, "libLLVM*.a")))
if not mlir or not llvm:
    sys.exit("no static libMLIR*.a / libLLVM*.a in " + llvm_lib)
out += [os.path.join(work, "stubs.o"), "-Wl,--start-group"] + mlir + llvm + [
    "-Wl,--end-group", "-l:libz.a", "-lm", "-ldl", "-lpthread", "-lrt",
    "-static-libstdc++", "-static-libgcc", "-Wl,--gc-sections", "-Wl,-O2",
    "-Wl,-Map=" + os.path.join(work, "libtgc_capi.map.txt")]
open(os.path.join(work, "link.sh"), "w").write(shlex.join(out) + "\n")
EOF
step "link $work/libtgc_capi.so (static MLIR and LLVM)"
(cd "$build" && bash "$work/link.sh")

# --- 3. The bundle. -------------------------------------------------------
marker="$out/.tgc-python-bundle"
if [[ -n "$(ls -A "$out")" && ! -e $marker ]]; then
  die "$out is not empty and not a previous bundle: refusing to clear it"
fi
find "$out" -mindepth 1 -delete
touch "$marker"
if [[ -d $root/python/tgc ]]; then
  cp -r "$root/python/tgc" "$out/tgc"
else
  echo "warning: $root/python/tgc does not exist: the bundle has no package" >&2
  mkdir -p "$out/tgc"
fi
if [[ -d $root/python/test ]]; then
  cp -r "$root/python/test" "$out/test"
fi
find "$out" -name __pycache__ -type d -prune -exec rm -rf {} +
rm -rf "$out/tgc/_lib"
libdir="$out/tgc/_lib"
mkdir -p "$libdir"
strip --strip-all -o "$libdir/libtgc_capi.so" "$work/libtgc_capi.so"

# The native call path (lib/Python/tgc_native.c): a stable-ABI extension
# (Python >= 3.10) that needs only libc, so one build serves the other
# machine's Python. Without Python's headers the bundle goes without it.
pyinc="$("$py" -c "import sysconfig; print(sysconfig.get_paths()['include'])")"
if [[ -e $pyinc/Python.h ]]; then
  step "native call path ($libdir/_tgc_native.abi3.so)"
  # Every source of the extension (lib/Python/CMakeLists.txt's list): a file
  # left out links anyway (Python's symbols are undefined until it loads)
  # and the module fails to load on the other machine, where the native
  # path turns itself off with a warning (session 33's file split did that).
  clang-22 -shared -fPIC -O2 -Wall -Wextra -DPy_LIMITED_API=0x030A0000 \
    -I"$pyinc" -I"$root/include" "$root"/lib/Python/*.c \
    -o "$libdir/_tgc_native.abi3.so"
  strip --strip-all "$libdir/_tgc_native.abi3.so"
  # Loaded here, with this Python, as tgc._native_path loads it (an unresolved
  # symbol of our own shows up now, not on the GPU machine).
  # (load() warns and returns None on failure: the warning is an error here.)
  env -u LD_PRELOAD LD_LIBRARY_PATH= PYTHONPATH="$out" "$py" -W error -c '
import tgc._native_path as n
assert n.load() is not None, "not found"
' || die "the bundle's native call path does not load"
else
  echo "warning: no Python.h in $pyinc: the bundle has no native call path" >&2
fi

# The runtime libraries the JIT loads: where CMake found them for the build.
cache_path() {
  sed -n "s/^$1:FILEPATH=//p" "$build/CMakeCache.txt"
}
libomp="$(cache_path TGC_LIBOMP)"
runner="$(cache_path TGC_C_RUNNER_UTILS)"
[[ -e $libomp ]] || die "libomp not found (TGC_LIBOMP in $build/CMakeCache.txt)"
[[ -e $runner ]] || die "libmlir_c_runner_utils not found (TGC_C_RUNNER_UTILS)"

step "runtime libraries"
# Copies each library under its SONAME with its needed libraries beyond
# glibc/libstdc++/libgcc_s; drops the DT_NEEDED entries that provide none of
# its undefined symbols and points RUNPATH at $ORIGIN.
"$py" - "$libdir" "$libomp" "$runner" <<'EOF'
import os, re, shutil, struct, subprocess, sys

libdir, roots = sys.argv[1], sys.argv[2:]
SYSTEM = re.compile(r"^(libc|libm|libdl|libpthread|librt|libutil|libresolv|"
                    r"ld-linux[-\w]*|libstdc\+\+|libgcc_s)\.so")

def dyn_syms(path, undefined):
    flag = "--undefined-only" if undefined else "--defined-only"
    out = subprocess.run(["nm", "-D", flag, path], check=True,
                         capture_output=True, text=True).stdout
    syms = set()
    for line in out.splitlines():
        parts = line.split()
        if not parts:
            continue
        if undefined and parts[0] == "w":  # weak: may stay unresolved
            continue
        syms.add(parts[-1].split("@")[0])
    return syms

def ldd_map(path):
    """NEEDED name -> resolved path, as the loader finds it here."""
    out = subprocess.run(["ldd", path], check=True, capture_output=True,
                         text=True).stdout
    m = {}
    for line in out.splitlines():
        mm = re.match(r"\s*(\S+) => (/\S+)", line)
        if mm:
            m[mm.group(1)] = mm.group(2)
    return m

class Elf:
    def __init__(self, path):
        self.path = path
        self.data = bytearray(open(path, "rb").read())
        d = self.data
        if d[:4] != b"\x7fELF" or d[4] != 2 or d[5] != 1:
            sys.exit(path + ": not a 64-bit little-endian ELF file")
        shoff, = struct.unpack_from("<Q", d, 0x28)
        shentsize, shnum = struct.unpack_from("<HH", d, 0x3A)
        secs = [struct.unpack_from("<IIQQQQIIQQ", d, shoff + i * shentsize)
                for i in range(shnum)]
        dyn = [s for s in secs if s[1] == 6]  # SHT_DYNAMIC
        if len(dyn) != 1:
            sys.exit(path + ": no single .dynamic section")
        self.dynoff, self.dynsize = dyn[0][4], dyn[0][5]
        self.stroff = secs[dyn[0][6]][4]  # sh_link: .dynstr
        self.entries = [struct.unpack_from("<qQ", d, self.dynoff + i * 16)
                        for i in range(self.dynsize // 16)]

    def string(self, off):
        start = self.stroff + off
        return self.data[start:self.data.index(b"\0", start)].decode()

    def soname(self):
        for tag, val in self.entries:
            if tag == 14:
                return self.string(val)
        return os.path.basename(self.path)

    def needed(self):
        return [self.string(v) for t, v in self.entries if t == 1]

    def verneed_files(self):
        out = subprocess.run(["readelf", "-V", "-W", self.path], check=True,
                             capture_output=True, text=True).stdout
        return set(re.findall(r"File: (\S+)", out))

    def edit(self, drop, runpath):
        kept = []
        for tag, val in self.entries:
            if tag == 0:
                break
            if tag == 1 and self.string(val) in drop:
                continue
            if tag in (15, 29) and runpath is not None:  # DT_RPATH, DT_RUNPATH
                old = self.string(val)
                assert len(runpath) <= len(old)
                at = self.stroff + val
                self.data[at:at + len(runpath) + 1] = runpath.encode() + b"\0"
            kept.append((tag, val))
        kept += [(0, 0)] * (len(self.entries) - len(kept))
        for i, (tag, val) in enumerate(kept):
            struct.pack_into("<qQ", self.data, self.dynoff + i * 16, tag, val)
        self.entries = kept

    def has_runpath(self):
        return any(t in (15, 29) for t, _ in self.entries)

todo, done = [os.path.realpath(r) for r in roots], {}
while todo:
    src = todo.pop(0)
    if src in done:
        continue
    elf = Elf(src)
    name = elf.soname()
    done[src] = name
    undefined = dyn_syms(src, True)
    resolved = ldd_map(src)
    drop, carry = set(), []
    for need in elf.needed():
        if SYSTEM.match(need):
            continue
        path = resolved.get(need)
        if not path:
            sys.exit(f"{src}: cannot find {need}")
        if not (undefined & dyn_syms(path, False)):
            drop.add(need)  # linked, but no symbol of it used
        else:
            carry.append(path)
    if drop & elf.verneed_files():
        sys.exit(f"{src}: symbol versions refer to {drop & elf.verneed_files()}")
    if carry and not elf.has_runpath():
        sys.exit(f"{src}: needs {carry} but has no RUNPATH to point at $ORIGIN")
    elf.edit(drop, "$ORIGIN" if elf.has_runpath() else None)
    dst = os.path.join(libdir, name)
    with open(dst, "wb") as f:
        f.write(elf.data)
    os.chmod(dst, 0o755)
    subprocess.run(["strip", "--strip-unneeded", dst], check=True)
    print(f"  {name:36} from {src}" +
          (f" (dropped unused: {' '.join(sorted(drop))})" if drop else ""))
    todo += [os.path.realpath(p) for p in carry]
EOF

# --- 4. Checks. ------------------------------------------------------------
step "checks"
capi="$libdir/libtgc_capi.so"
for f in "$libdir"/*.so*; do
  bad="$(ldd "$f" | awk '{print $1}' | grep -Ev \
    '^(linux-vdso\.so|/lib64/ld-linux|ld-linux|libc\.so|libm\.so|libdl\.so|libpthread\.so|librt\.so|libstdc\+\+\.so|libgcc_s\.so)' |
    while read -r n; do [[ -e $libdir/$n ]] || echo "$n"; done)" || true
  [[ -z $bad ]] || die "$(basename "$f") needs libraries outside the bundle: $bad"
  if ldd "$f" | grep -q 'not found'; then
    die "$(basename "$f"): $(ldd "$f" | grep 'not found')"
  fi
done
nonglibc="$(ldd "$capi" | awk '{print $1}' |
  grep -Ev '^(linux-vdso\.so|/lib64/ld-linux|libc\.so|libm\.so|libdl\.so|libpthread\.so|librt\.so)' || true)"
[[ -z $nonglibc ]] || die "libtgc_capi.so needs more than glibc: $nonglibc"
exports="$(nm -D --defined-only "$capi" | awk '{print $3}')"
others="$(grep -v '^tgc_' <<<"$exports" || true)"
[[ -z $others ]] || die "libtgc_capi.so exports more than tgc_*: $(head -5 <<<"$others")"
glibc_max="$(objdump -T "$libdir"/*.so* | grep -o 'GLIBC_[0-9.]*' | sort -uV | tail -1)"
echo "ldd libtgc_capi.so:"
ldd "$capi" | sed 's/ (0x[0-9a-f]*)//; s/^/  /'
echo "exports: $(wc -l <<<"$exports") tgc_* symbols; needs up to $glibc_max"

# --- 5. Smoke test: load it with no LLVM in sight. -------------------------
if [[ ${TGC_BUNDLE_SKIP_TEST:-0} != 1 ]]; then
  cat >"$work/smoke.py" <<'EOF'
"""Loads the bundled libtgc_capi.so and compiles a tgc.relu for the CPU (JIT,
with the bundled libomp and C runner utils) and CUDA (PTX only), then checks
that no LLVM or MLIR library of the system got mapped."""
import ctypes, glob, os, sys

libdir = sys.argv[1]
lib = ctypes.CDLL(os.path.join(libdir, "libtgc_capi.so"))
lib.tgc_capi_version.restype = ctypes.c_int32
lib.tgc_last_error.restype = ctypes.c_char_p
lib.tgc_compile.restype = ctypes.c_void_p
lib.tgc_compile.argtypes = [ctypes.c_char_p] * 3
for f in ("tgc_compiled_num_guards", "tgc_compiled_num_args", "tgc_compiled_num_results"):
    getattr(lib, f).restype = ctypes.c_int32
    getattr(lib, f).argtypes = [ctypes.c_void_p]
lib.tgc_compiled_destroy.argtypes = [ctypes.c_void_p]
lib.tgc_compiled_guard_text.restype = ctypes.c_char_p
lib.tgc_compiled_guard_text.argtypes = [ctypes.c_void_p, ctypes.c_int32]
lib.tgc_compiled_code.restype = ctypes.c_char_p
lib.tgc_compiled_code.argtypes = [ctypes.c_void_p, ctypes.c_char_p]

class ArgDesc(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("sizes", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("rank", ctypes.c_int64),
                ("scalar", ctypes.c_int64), ("dtype", ctypes.c_int32),
                ("device_type", ctypes.c_int32), ("device_index", ctypes.c_int32),
                ("reserved", ctypes.c_int32)]
assert ctypes.sizeof(ArgDesc) == 56
AllocFn = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int32,
                           ctypes.c_int32, ctypes.c_int64, ctypes.POINTER(ctypes.c_int64))
lib.tgc_compiled_check_guards.restype = ctypes.c_int32
lib.tgc_compiled_check_guards.argtypes = [ctypes.c_void_p, ctypes.POINTER(ArgDesc), ctypes.c_int32]
lib.tgc_compiled_run.restype = ctypes.c_int32
lib.tgc_compiled_run.argtypes = [ctypes.c_void_p, ctypes.POINTER(ArgDesc), ctypes.c_int32,
                                 AllocFn, ctypes.c_void_p]

TEXT = b"""
func.func @f(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %y = tgc.relu %x : tensor<?x4xf32>
  return %y : tensor<?x4xf32>
}
"""
failed = False
def check(ok, what):
    global failed
    print(("  ok    " if ok else "  FAIL  ") + what)
    failed |= not ok

version = lib.tgc_capi_version()
check(version >= 1, f"tgc_capi_version() = {version}")
shared = []
for pattern in ("libomp.so*", "libmlir_c_runner_utils.so*"):
    shared += sorted(glob.glob(os.path.join(libdir, pattern)))[:1]
check(len(shared) == 2, "bundled shared-libs: " + " ".join(map(os.path.basename, shared)))
opts = ("shared-libs=" + ":".join(shared)).encode()

c = lib.tgc_compile(TEXT, b"f", opts)
check(bool(c), "CPU compile" + ("" if c else ": " + lib.tgc_last_error().decode()))
if c:
    n = lib.tgc_compiled_num_guards(c)
    texts = [lib.tgc_compiled_guard_text(c, i).decode() for i in range(n)]
    check(n >= 0, f"tgc_compiled_num_guards = {n} {texts}")
    rows = 3
    xs = [float(v) for v in range(-6, 6)]
    data = (ctypes.c_float * 12)(*xs)
    sizes = (ctypes.c_int64 * 2)(rows, 4)
    strides = (ctypes.c_int64 * 2)(4, 1)
    args = (ArgDesc * 1)(ArgDesc(ctypes.cast(data, ctypes.c_void_p), sizes, strides, 2, 0, 0, 0, 0, 0))
    g = lib.tgc_compiled_check_guards(c, args, 1)
    check(g == -1, f"guards pass on a 3x4 input ({g})")
    keep = []
    def alloc(user, index, dtype, rank, sz):
        buf = (ctypes.c_float * max(1, sz[0] * sz[1]))()
        keep.append(buf)
        return ctypes.cast(buf, ctypes.c_void_p).value
    cb = AllocFn(alloc)
    rc = lib.tgc_compiled_run(c, args, 1, cb, None)
    got = list(keep[0])[:12] if keep else []
    check(rc == 0 and got == [max(0.0, v) for v in xs],
          f"run: relu of -6..5 = {got}" + ("" if rc == 0 else ": " + lib.tgc_last_error().decode()))
    lib.tgc_compiled_destroy(c)

c = lib.tgc_compile(TEXT, b"f", b"device=cuda ptx-only=1 keep-code=1")
check(bool(c), "CUDA compile (ptx-only)" + ("" if c else ": " + lib.tgc_last_error().decode()))
if c:
    ptx = lib.tgc_compiled_code(c, b"ptx") or b""
    check(b".entry" in ptx or b".visible" in ptx, f"PTX generated ({len(ptx)} bytes)")
    lib.tgc_compiled_destroy(c)

maps = {l.split()[-1] for l in open("/proc/self/maps")
        if l.split()[-1].startswith("/") and ".so" in os.path.basename(l.split()[-1])}
foreign = sorted(p for p in maps if any(s in p for s in ("llvm-", "libLLVM", "libMLIR"))
                 or (os.path.basename(p).startswith(("libomp", "libmlir_")) and
                     not p.startswith(os.path.realpath(libdir))))
check(not foreign, "no system LLVM/MLIR/OpenMP library mapped" + (f": {foreign}" if foreign else ""))
mine = sorted(os.path.basename(p) for p in maps if p.startswith(os.path.realpath(libdir)))
print("  mapped from the bundle: " + " ".join(mine))
sys.exit(1 if failed else 0)
EOF
  step "smoke test (LD_LIBRARY_PATH empty)"
  env -u LD_PRELOAD LD_LIBRARY_PATH= "$py" "$work/smoke.py" "$libdir" ||
    die "smoke test failed"
  # Again with every LLVM, MLIR and OpenMP library of the system hidden, where
  # a mount namespace can be had (root).
  if unshare -m true 2>/dev/null; then
    step "smoke test with the system's LLVM hidden (mount namespace)"
    unshare -m bash -c '
      set -e
      for d in /usr/lib/llvm-*; do mount -t tmpfs none "$d"; done
      for f in /usr/lib/x86_64-linux-gnu/lib{LLVM,MLIR,omp,iomp}*.so*; do
        if [ -e "$f" ]; then mount --bind /dev/null "$f"; fi
      done
      exec env -u LD_PRELOAD LD_LIBRARY_PATH= "$0" "$1" "$2"' \
      "$py" "$work/smoke.py" "$libdir" || die "smoke test (LLVM hidden) failed"
  else
    echo "(no mount namespace here: skipped the test with LLVM hidden)"
  fi
fi

# --- 6. Pack. ---------------------------------------------------------------
step "pack $out.tar.xz"
tar -C "$(dirname "$out")" -cf - "$(basename "$out")" | xz -9 -T0 >"$out.tar.xz.tmp"
mv "$out.tar.xz.tmp" "$out.tar.xz"
size=$(stat -c %s "$out.tar.xz")
echo "bundle: $(du -sb "$out" | cut -f1) bytes in $out ($(du -sh "$out" | cut -f1))"
echo "        $size bytes compressed in $out.tar.xz ($((size / 1024 / 1024)) MiB;" \
  "limit $((limit / 1024 / 1024)) MiB); $((SECONDS - start)) s"
if ((size >= limit)); then
  die "$out.tar.xz is $size bytes: over the 64 MiB transfer limit"
fi
