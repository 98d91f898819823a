#!/usr/bin/env bash
# Builds tgc-run for machines with a GPU but no LLVM (the lent GPU machine)
# and packs it with the shared libraries it needs. TGC's own code and
# MLIR's static libraries are linked in, but Debian's LLVM CMake package
# links libLLVM.so (LLVM_LINK_LLVM_DYLIB) and its MLIRExecutionEngine
# libMLIR.so, so the bundle carries both: about 350 MB, 71 MB compressed,
# over the GPU machine's 64 MiB transfer limit. Use the split mode instead
# (docs/gpu-pipeline.md: compile here with --save-case, run there with
# tgc-gpu-run); this script is kept for machines where size is no issue:
#   utils/build-gpu-bundle.sh [OUT_DIR]      (default: .gpu-bundle)
# On the GPU machine: OUT_DIR/tgc-run.sh --device cuda ...
# The runtime (lib/Runtime) needs no bundle: it builds there from source.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="${1:-$root/.gpu-bundle}"
build="$root/build-bundle"
cmake -S "$root" -B "$build" -G Ninja \
  -DCMAKE_BUILD_TYPE=Release -DTGC_ENABLE_ASSERTIONS=ON \
  -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
  -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit \
  -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
  -DLLVM_USE_LINKER=lld \
  -DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache \
  -DTGC_LINK_MLIR_DYLIB=OFF \
  -DCMAKE_EXE_LINKER_FLAGS="-static-libstdc++ -static-libgcc -Wl,--gc-sections" \
  >/dev/null
ninja -C "$build" tgc-run tgc-gpu-selftest
mkdir -p "$out/lib"
cp "$build/bin/tgc-run" "$out/tgc-run"
strip "$out/tgc-run"
# Shared libraries beyond glibc that the binary needs.
ldd "$out/tgc-run" | awk '/=> \//{print $3}' | while read -r lib; do
  case "$(basename "$lib")" in
    libc.so*|libm.so*|libdl.so*|libpthread.so*|librt.so*|ld-linux*) ;;
    *) cp -L "$lib" "$out/lib/" ;;
  esac
done
cat > "$out/tgc-run.sh" <<'WRAP'
#!/usr/bin/env bash
here="$(cd "$(dirname "$0")" && pwd)"
LD_LIBRARY_PATH="$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" exec "$here/tgc-run" "$@"
WRAP
chmod +x "$out/tgc-run.sh"
du -sh "$out"
