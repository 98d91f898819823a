#!/usr/bin/env bash
# Runs every TGC test and ends with one summary line, `N passed, N failed`
# (plus `, N skipped` when tests were skipped):
#   - check-tgc: builds what the tests need, then lit runs the FileCheck
#     tests under test/ and the GoogleTest unit tests (test/Unit);
#   - pytest on python/test, when it has tests.
# Exits non-zero when anything failed. Configures the build first when it
# has not been configured yet (utils/setup.sh normally does that).

set -euo pipefail

usage() {
  cat <<'EOF'
Usage: utils/test.sh [--release] [-h|--help]

Builds and runs `check-tgc` (lit: regression and unit tests), then pytest on
python/test. The last line printed is the summary `N passed, N failed`
(`, N skipped` added when tests were skipped); the exit status is non-zero
when anything failed.

  --release    test the `release` preset's build (build-release/) instead of
               `dev` (build/)
  -h, --help   show this help

Environment: LIT_OPTS adds lit options (e.g. LIT_OPTS="--filter=Docs");
CMAKE_BUILD_PARALLEL_LEVEL=N limits build jobs; TGC_PYTHON is the Python
that runs pytest (default /usr/bin/python3, Debian's, with torch).
EOF
}

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
readonly ROOT
# shellcheck source=utils/common.sh
source "${ROOT}/utils/common.sh"

# Debian's Python: the one with python3-torch and python3-pytest (a python3
# earlier on PATH, e.g. from pyenv, may have neither).
PYTHON=${TGC_PYTHON:-/usr/bin/python3}
[[ -x ${PYTHON} ]] || PYTHON=python3

preset=dev
tmp_dir=""

log() { printf '==> %s\n' "$*"; }
now_us() { echo "${EPOCHREALTIME/[.,]/}"; }
print_elapsed() {
  local elapsed=$(($(now_us) - $2))
  printf '    %s: %d.%02ds\n' "$1" $((elapsed / 1000000)) \
    $((elapsed % 1000000 / 10000))
}
cleanup() { [[ -z ${tmp_dir} ]] || rm -rf "${tmp_dir}"; }
trap cleanup EXIT

# Counts from lit's summary ("Total Discovered Tests: N" followed by lines
# such as "  Passed     : 3 (60.00%)") in the log LOG; prints
# "PASSED FAILED SKIPPED", or nothing when lit printed no summary.
parse_lit_log() {
  "${PYTHON}" - "$1" <<'EOF'
import re
import sys

passed_labels = {"Passed", "Passed With Retry", "Expectedly Failed"}
skipped_labels = {"Unsupported", "Skipped", "Excluded"}
counts = [0, 0, 0]
found = False
in_summary = False
with open(sys.argv[1], errors="replace") as log:
    for line in log:
        if line.startswith("Total Discovered Tests:"):
            found = in_summary = True
            continue
        match = re.match(r"^\s+(\S.*?)\s*:\s+(\d+) \(", line)
        if in_summary and match:
            label, count = match.group(1), int(match.group(2))
            if label in passed_labels:
                counts[0] += count
            elif label in skipped_labels:
                counts[2] += count
            else:  # Failed, Unresolved, Timed Out, Unexpectedly Passed
                counts[1] += count
        else:
            in_summary = False
if found:
    print(*counts)
EOF
}

# Counts from pytest's JUnit XML report; prints "PASSED FAILED SKIPPED".
parse_junit_xml() {
  "${PYTHON}" - "$1" <<'EOF'
import sys
import xml.etree.ElementTree as ET

root = ET.parse(sys.argv[1]).getroot()
suites = [root] if root.tag == "testsuite" else root.iter("testsuite")
passed = failed = skipped = 0
for suite in suites:
    tests = int(suite.get("tests", 0))
    bad = int(suite.get("failures", 0)) + int(suite.get("errors", 0))
    skip = int(suite.get("skipped", 0))
    passed += tests - bad - skip
    failed += bad
    skipped += skip
print(passed, failed, skipped)
EOF
}

summary_line() {
  local line="$1 passed, $2 failed"
  [[ $3 -eq 0 ]] || line+=", $3 skipped"
  echo "${line}"
}

main() {
  while [[ $# -gt 0 ]]; do
    case $1 in
    --release) preset=release ;;
    *) help_or_unknown "$1" ;;
    esac
    shift
  done

  cd "${ROOT}"
  local build_dir=${ROOT}/build
  [[ ${preset} == dev ]] || build_dir=${ROOT}/build-${preset}
  tmp_dir=$(mktemp -d)

  local passed=0 failed=0 skipped=0 start counts
  local -a parts

  if [[ ! -f ${build_dir}/CMakeCache.txt ]]; then
    log "Configuring (cmake --preset ${preset})"
    start=$(now_us)
    cmake --preset "${preset}" || die "configuring failed"
    print_elapsed "Configuring" "${start}"
  fi

  # lit: regression and unit tests.
  log "Building and running check-tgc (cmake --build --preset ${preset} --target check-tgc)"
  start=$(now_us)
  local lit_status=0
  cmake --build --preset "${preset}" --target check-tgc 2>&1 |
    tee "${tmp_dir}/check-tgc.log" || lit_status=$?
  print_elapsed "check-tgc" "${start}"
  counts=$(parse_lit_log "${tmp_dir}/check-tgc.log")
  local lit_summary
  if [[ -z ${counts} ]]; then
    echo "error: lit did not run (building check-tgc failed?); counted as 1 failure" >&2
    lit_summary="0 passed, 1 failed"
    failed=$((failed + 1))
  else
    read -r -a parts <<<"${counts}"
    if [[ ${lit_status} -ne 0 && ${parts[1]} -eq 0 ]]; then
      echo "error: check-tgc exited with status ${lit_status} although no test failed; counted as 1 failure" >&2
      parts[1]=1
    fi
    lit_summary=$(summary_line "${parts[@]}")
    passed=$((passed + parts[0]))
    failed=$((failed + parts[1]))
    skipped=$((skipped + parts[2]))
  fi

  # pytest: the Python frontend's tests, when there are any.
  local py_summary="no tests"
  if [[ -d python/test ]] &&
    [[ -n $(find python/test -name 'test_*.py' -o -name '*_test.py' | head -n 1) ]]; then
    log "Running pytest (python3 -m pytest python/test)"
    start=$(now_us)
    local py_status=0
    # Every compile verifies its IR after each pass, as tgc-opt does in the
    # lit tests (a compile from Python verifies once per pass pipeline).
    TGC_VERIFY_EACH=${TGC_VERIFY_EACH:-1} TGC_BUILD_DIR=${build_dir} \
      "${PYTHON}" -m pytest python/test -p no:cacheprovider \
      --junitxml="${tmp_dir}/pytest.xml" || py_status=$?
    print_elapsed "pytest" "${start}"
    if [[ ${py_status} -eq 5 ]]; then # collected no tests
      py_summary="no tests collected"
    elif [[ -f ${tmp_dir}/pytest.xml ]]; then
      read -r -a parts <<<"$(parse_junit_xml "${tmp_dir}/pytest.xml")"
      if [[ ${py_status} -ne 0 && ${parts[1]} -eq 0 ]]; then
        echo "error: pytest exited with status ${py_status} although no test failed; counted as 1 failure" >&2
        parts[1]=1
      fi
      py_summary=$(summary_line "${parts[@]}")
      passed=$((passed + parts[0]))
      failed=$((failed + parts[1]))
      skipped=$((skipped + parts[2]))
    else
      echo "error: pytest exited with status ${py_status} and wrote no report; counted as 1 failure" >&2
      py_summary="0 passed, 1 failed"
      failed=$((failed + 1))
    fi
  fi

  log "Summary"
  echo "    lit (check-tgc): ${lit_summary}"
  echo "    pytest (python/test): ${py_summary}"
  summary_line "${passed}" "${failed}" "${skipped}"
  [[ ${failed} -eq 0 ]]
}

main "$@"
