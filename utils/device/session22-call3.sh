#!/usr/bin/env bash
# Twenty-second session, third GPU-machine call (2026-11-29): the trace no
# longer writes tensors from outside the function, Dynamo's graph of
# opt.step gets the attributes it updates as inputs, _foreach_addc*'s
# tensor of scalars. The CUDA tests (torch.compile(opt.step,
# backend="tgc") first), the call path with its phases, the optimizer
# step (its plan evaluation no longer formats text per node), then
# torch-mlir's e2e suite. Carry .python-bundle.tar.xz and .e2e.
source utils/device/bundle.sh
export TGC_CACHE=0
(cd .python-bundle && timeout 200 python3 -m pytest -q test/test_optim.py test/test_outside_writes.py \
   test/test_formulas.py test/test_native_path.py test/test_gpu.py test/test_training.py 2>&1) > $OUT/pytest.txt
tail -2 $OUT/pytest.txt; grep -E "^FAILED|^E  " $OUT/pytest.txt | head -20
timeout 150 python3 utils/bench/python_bench.py --call-path --phases --only "softmax" 2>&1 | grep -v -i warn > $OUT/softmax.txt
grep -E "tgc|eager|induc|phases" $OUT/softmax.txt
timeout 90 python3 utils/bench/optimizer.py --models gpt2,resnet18 --modes eager,fused,tgc \
  --steps 30 > $OUT/optimizer.txt 2>&1
grep -v -i warn $OUT/optimizer.txt | tail -12
E2E_SHARD_S=200 bash utils/device/e2e.sh
