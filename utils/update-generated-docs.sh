#!/usr/bin/env bash
# Refreshes the committed generated docs: builds the `tgc-doc` target (the
# dialect and pass references made by mlir-tblgen from ODS) and mirrors every
# *.md under BUILD/docs (Dialects/, Passes/, ...) into docs/generated/,
# removing committed files the build no longer makes. The lit test
# test/Docs/generated-docs-fresh.test fails until this has been run and the
# result committed.

set -euo pipefail

usage() {
  cat <<'EOF'
Usage: utils/update-generated-docs.sh [--build-dir DIR] [-h|--help]

Builds `tgc-doc` and copies DIR/docs/**/*.md into docs/generated/.

  --build-dir DIR  build directory (default: build/, the `dev` preset's;
                   configured with the `dev` preset when it is not yet)
  -h, --help       show this help
EOF
}


ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
readonly ROOT
# shellcheck source=utils/common.sh
source "${ROOT}/utils/common.sh"

main() {
  local build_dir=${ROOT}/build
  while [[ $# -gt 0 ]]; do
    case $1 in
    --build-dir)
      [[ $# -ge 2 ]] || die "--build-dir needs a directory"
      build_dir=$(realpath -m "$2")
      shift
      ;;
    *) help_or_unknown "$1" ;;
    esac
    shift
  done

  cd "${ROOT}"
  if [[ ! -f ${build_dir}/CMakeCache.txt ]]; then
    echo "==> Configuring ${build_dir} (cmake --preset dev)"
    cmake --preset dev -B "${build_dir}"
  fi
  echo "==> Building tgc-doc"
  cmake --build "${build_dir}" --target tgc-doc

  local src=${build_dir}/docs dest=${ROOT}/docs/generated
  local -a files
  mapfile -t files < <(cd "${src}" &&
    find . -path ./CMakeFiles -prune -o -type f -name '*.md' -print | sort)
  [[ ${#files[@]} -gt 0 ]] || die "tgc-doc made no *.md files under ${src}"

  echo "==> Updating ${dest#"${ROOT}/"}"
  # Mirror: drop committed pages the build no longer makes.
  if [[ -d ${dest} ]]; then
    find "${dest}" -type f -name '*.md' -delete
    find "${dest}" -mindepth 1 -type d -empty -delete
  fi
  local file
  for file in "${files[@]}"; do
    file=${file#./}
    mkdir -p "${dest}/$(dirname "${file}")"
    cp "${src}/${file}" "${dest}/${file}"
    echo "    docs/generated/${file}"
  done
  python3 "${ROOT}/utils/check-generated-docs.py" \
    "${src}" "${dest}"
  echo "==> Done: review and commit docs/generated (git status docs/generated)"
}

main "$@"
