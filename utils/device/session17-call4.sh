#!/usr/bin/env bash
# Seventeenth session, fourth GPU-machine call (2026-11-28): torch-mlir's
# e2e suite (CPU tensors) at the stop's last code commit, after the linear
# changes (a868ebc, a24f6af) that the second call's run predates. Carry
# .python-bundle.tar.xz and .e2e.
set -uo pipefail
export PYTHONUNBUFFERED=1
[[ -d .python-bundle ]] || tar xJf .python-bundle.tar.xz
E2E_SHARD_S=230 bash utils/device/e2e.sh 2>&1 | head -8
