#!/usr/bin/env bash
# Sets up TGC on a Debian 12 machine, from nothing to a result:
#   1. installs the Debian packages TGC needs (only those missing; no apt
#      call at all when everything is there),
#   2. configures (CMake preset `dev`, or `release`),
#   3. builds,
#   4. runs the main job on the bundled example, examples/mlp.mlir.
# Safe to run again at any time.

set -euo pipefail

usage() {
  cat <<'EOF'
Usage: utils/setup.sh [--release] [--no-build] [--no-run] [-h|--help]

Installs missing Debian packages, configures and builds TGC, then runs the
main job on examples/mlp.mlir.

  --release    use the `release` preset (build-release/, no assertions)
               instead of `dev` (build/, assertions on)
  --no-build   skip configuring and building (install packages only, then
               run the main job with an existing build unless --no-run)
  --no-run     stop after the build; do not run the main job
  -h, --help   show this help

Environment: CMAKE_BUILD_PARALLEL_LEVEL=N limits build jobs (default: all
cores).
EOF
}

# Debian packages TGC needs. LLVM/MLIR 22 land in /usr/lib/llvm-22. CUDA is
# not one of them: it is optional and found in /usr/local/cuda. Chromium
# renders the compile report in a test (headless; python/test/test_report.py).
readonly PACKAGES=(
  llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools clang-22 lld-22
  libomp-22-dev
  cmake ninja-build ccache git
  libgtest-dev libgmock-dev libbenchmark-dev
  python3-dev python3-torch python3-torchvision python3-numpy python3-pytest
  chromium
)

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
readonly ROOT
# shellcheck source=utils/common.sh
source "${ROOT}/utils/common.sh"

preset=dev
do_build=1
do_run=1

current_step=""

log() { printf '==> %s\n' "$*"; }
die() {
  current_step=""
  printf 'error: %s\n' "$*" >&2
  exit 1
}

# A failing command inside a step ends the script (set -e); say which step.
on_exit() {
  local status=$?
  if [[ ${status} -ne 0 && -n ${current_step} ]]; then
    printf 'error: step "%s" failed (exit status %d); see the output above\n' \
      "${current_step}" "${status}" >&2
  fi
}
trap on_exit EXIT

now_us() { echo "${EPOCHREALTIME/[.,]/}"; }

# step NAME COMMAND...: runs one step and prints how long it took. Not called
# from a condition, so that set -e stays in force inside COMMAND.
step() {
  local name=$1
  shift
  log "${name}"
  current_step=${name}
  local start
  start=$(now_us)
  "$@"
  current_step=""
  local elapsed=$(($(now_us) - start))
  printf '    %s: %d.%02ds\n' "${name}" $((elapsed / 1000000)) \
    $((elapsed % 1000000 / 10000))
}

as_root() {
  if [[ ${EUID} -eq 0 ]]; then
    "$@"
  elif command -v sudo >/dev/null 2>&1; then
    sudo "$@"
  else
    die "need root to run '$*', and sudo is not installed"
  fi
}

is_installed() {
  [[ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null || true)" == \
    "install ok installed" ]]
}

install_packages() {
  command -v dpkg-query >/dev/null 2>&1 ||
    die "dpkg-query not found: utils/setup.sh supports Debian 12 only"
  local missing=() pkg
  for pkg in "${PACKAGES[@]}"; do
    is_installed "${pkg}" || missing+=("${pkg}")
  done
  if [[ ${#missing[@]} -eq 0 ]]; then
    echo "    all ${#PACKAGES[@]} packages already installed"
    return 0
  fi
  echo "    missing: ${missing[*]}"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get update
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y \
    --no-install-recommends "${missing[@]}"
  for pkg in "${missing[@]}"; do
    is_installed "${pkg}" || die "package ${pkg} did not install"
  done
}

check_cuda() {
  # Informational only: nothing in the build needs CUDA.
  if [[ -x /usr/local/cuda/bin/ptxas ]] || command -v ptxas >/dev/null 2>&1; then
    echo "    ptxas found: cubin tests will run"
  else
    echo "    ptxas not found: tests marked 'REQUIRES: ptxas' will be skipped"
  fi
}

configure() {
  cmake --preset "${preset}"
}

build() {
  cmake --build --preset "${preset}"
}

build_dir() {
  if [[ ${preset} == release ]]; then
    echo "${ROOT}/build-release"
  else
    echo "${ROOT}/build"
  fi
}

# The main job: what TGC does for a user, on the bundled example. For now it
# verifies and canonicalizes the model and derives its symbolic shapes and
# guards (one compile for every batch size); later milestones compile and
# run it.
main_job() {
  local tgc_run example
  tgc_run="$(build_dir)/bin/tgc-run"
  example="${ROOT}/examples/mlp.mlir"
  [[ -x ${tgc_run} ]] ||
    die "${tgc_run} not found: build first (utils/setup.sh without --no-build)"
  [[ -f ${example} ]] || die "${example} not found"
  # One compile serves batch sizes 8, 32 and 100 (the batch size is
  # symbolic); every call is checked against the reference interpreter.
  local args=(--calls 0=8x64 --calls 0=32x64 --calls 0=100x64
    --check reference --repeat 20 --print-results=false)
  echo "    \$ ${tgc_run#"${ROOT}/"} ${example#"${ROOT}/"} ${args[*]}"
  "${tgc_run}" "${example}" "${args[@]}" 2>&1
}

main() {
  while [[ $# -gt 0 ]]; do
    case $1 in
    --release) preset=release ;;
    --no-build) do_build=0 ;;
    --no-run) do_run=0 ;;
    *) help_or_unknown "$1" ;;
    esac
    shift
  done

  cd "${ROOT}"
  local start
  start=$(now_us)
  step "Checking Debian packages" install_packages
  step "Checking for CUDA's ptxas (optional)" check_cuda
  if [[ ${do_build} -eq 1 ]]; then
    step "Configuring (cmake --preset ${preset})" configure
    step "Building (cmake --build --preset ${preset})" build
  fi
  if [[ ${do_run} -eq 1 ]]; then
    step "Main job: examples/mlp.mlir" main_job
  fi
  local elapsed=$(($(now_us) - start))
  log "$(printf 'Done in %d.%02ds' $((elapsed / 1000000)) \
    $((elapsed % 1000000 / 10000)))"
}

main "$@"
