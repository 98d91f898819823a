#!/usr/bin/env bash
# Twelfth session, second GPU-machine call (2026-11-28): the model zoo on the
# CPU (every result compared with eager) after the session's CPU changes.
# Carry .python-bundle.tar.xz.
set -uo pipefail
export PYTHONUNBUFFERED=1
tar xJf .python-bundle.tar.xz
export PYTHONPATH=$PWD/.python-bundle
timeout 480 python3 utils/zoo/zoo.py --models all --modes default --device cpu > $OUT/zoo-cpu.txt 2>&1
tail -32 $OUT/zoo-cpu.txt
