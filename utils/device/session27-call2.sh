#!/usr/bin/env bash
# Twenty-seventh session, second GPU-machine call: where ResNet-18's
# compiled training step spends its first call with the convolution
# backward compiled (call 1's tgc mode did not finish in 300 s): the
# convolution backward eager (as before), compiled with cuDNN's first
# choice (no timing), and compiled with timing, each under a time limit
# that aborts with Python's stack. Carry .python-bundle.tar.xz.
source utils/device/bundle.sh
export TGC_CACHE=0 PYTHONFAULTHANDLER=1
for setting in TGC_CONV_BACKWARD=eager TGC_CUDNN_TUNE=0 TGC_CUDNN_TUNE=1; do
  echo "== $setting $(date +%T)"
  env $setting timeout -s ABRT 110 python3 utils/bench/training.py --models resnet18 --steps 3 \
    --modes tgc > $OUT/$setting.txt 2>&1
  echo "rc $? $(date +%T)"; grep -E "^resnet18 " $OUT/$setting.txt
  grep -E "File .*tgc|Thread|Current thread" $OUT/$setting.txt | head -12
done
