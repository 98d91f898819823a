#!/usr/bin/env bash
# Tenth session, last call: convolutions as im2col + cuBLASLt GEMMs on the
# GPU (eb69a43), checked against eager on the torchvision zoo and e2e's
# convolution tests. Carry .python-bundle.tar.xz and .e2e.
set -uo pipefail
export PYTHONUNBUFFERED=1
tar xJf .python-bundle.tar.xz
export PYTHONPATH=$PWD/.python-bundle
timeout 120 python3 utils/zoo/zoo.py --models torchvision --modes default --device cuda 2>&1 | tail -10 | tee $OUT/zoo.txt
SHARD_S=80 OUT=/tmp/e2e timeout 90 .e2e/run.sh tgc '.*Conv' 2>&1 | tail -8 | tee $OUT/e2e.txt
