// REQUIRES: cuda-gpu
// Elementwise kernels on the GPU against the reference interpreter: one
// compile serves every size (sizes are kernel arguments); then through CUDA
// graphs, with the inputs copied to new device buffers for every run so
// that replays must patch the changed pointers and stay right.

// RUN: tgc-run %s --entry relu_add --device cuda --calls 0=3x5,1=3x5 --calls 0=1000x1000,1=1000x1000 \
// RUN:   --calls 0=2048x100,1=2048x100 --check reference --json | grep -q '"compiles": 1,'
// RUN: tgc-run %s --entry relu_add --device cuda --calls 0=257x33,1=257x33 --calls 0=64x64,1=64x64 \
// RUN:   --check reference --json --cuda-graphs --fresh-inputs --repeat 5 > %t.json
// RUN: grep -q '"reference_ok": true' %t.json
// RUN: grep -q '"graph_replays": [1-9]' %t.json
// RUN: grep -q '"patched_nodes": [1-9]' %t.json
// RUN: tgc-run %s --entry broadcast --device cuda --calls 0=33x17,1=17,2=33x1 --check reference --json \
// RUN:   | grep -q '"reference_ok": true'
// RUN: tgc-run %s --entry mixed --device cuda --calls 0=100x9 --check reference --json \
// RUN:   | grep -q '"reference_ok": true'

func.func @relu_add(%x: tensor<?x?xf32>, %y: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %a = tgc.add %x, %y : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32>
  %r = tgc.relu %a : tensor<?x?xf32>
  %two = tgc.add %r, %r : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32>
  return %two : tensor<?x?xf32>
}

func.func @broadcast(%x: tensor<?x?xf32>, %row: tensor<?xf32>, %col: tensor<?x1xf32>) -> tensor<?x?xf32> {
  %a = tgc.mul %x, %col : tensor<?x?xf32>, tensor<?x1xf32> -> tensor<?x?xf32>
  %b = tgc.add %a, %row : tensor<?x?xf32>, tensor<?xf32> -> tensor<?x?xf32>
  %t = tgc.tanh %b : tensor<?x?xf32>
  %e = tgc.exp %t : tensor<?x?xf32>
  return %e : tensor<?x?xf32>
}

func.func @mixed(%x: tensor<?x9xf32>) -> (tensor<?x9xbf16>, tensor<?x9xi32>, tensor<?x9xf32>) {
  %b = tgc.convert %x : tensor<?x9xf32> -> tensor<?x9xbf16>
  %g = tgc.gelu %b : tensor<?x9xbf16>
  %i = tgc.convert %x : tensor<?x9xf32> -> tensor<?x9xi32>
  %s = tgc.sigmoid %x : tensor<?x9xf32>
  return %g, %i, %s : tensor<?x9xbf16>, tensor<?x9xi32>, tensor<?x9xf32>
}
