// REQUIRES: cuda-gpu
// Row kernels (one block per row, shuffle reductions) against the
// reference interpreter: softmax, log-softmax, layer norm, RMS norm, the
// seed's entropy scorer, row sums and maxima; rows shorter and longer than
// a block, and several sizes through one compile.

// RUN: tgc-run %s --entry softmax --device cuda --calls 0=5x7 --calls 0=512x1024 --calls 0=3x5000 \
// RUN:   --check reference --json | grep -q '"compiles": 1,'
// RUN: tgc-run %s --entry norms --device cuda --calls 0=64x3x16 --calls 0=9x3x16 --check reference --json \
// RUN:   | grep -q '"reference_ok": true'
// RUN: tgc-run %s --entry entropy --device cuda --calls 0=100x1000 --calls 0=7x33 --check reference --json \
// RUN:   | grep -q '"reference_ok": true'
// RUN: tgc-run %s --entry rowstats --device cuda --calls 0=300x777 --check reference --json \
// RUN:   | grep -q '"reference_ok": true'
// Static rows of up to 256 elements: a warp per row (8 rows per block; a
// row count that is not a multiple of 8 leaves spare warps).
// Static rows up to 32 elements per thread keep the row in registers:
// 1024 in two 16-byte chunks per thread of 128, without bounds checks;
// 1000 and 3000 (8 and 24 slots, the last partly past the end) with
// checked scalar loads. Dynamic rows (@softmax) stride through memory.
// RUN: tgc-run %s --entry static_rows --device cuda --calls 0=37x1024,1=37x1000,2=5x3000 \
// RUN:   --calls 0=300x1024,1=2x1000,2=64x3000 --check reference --json | grep -q '"reference_ok": true'
// RUN: tgc-run %s --entry warp_rows --device cuda --calls 0=13x200,1=200,2=200 --calls 0=1000x200,1=200,2=200 \
// RUN:   --check reference --json | grep -q '"reference_ok": true'
// Vector rows with a warp per row: 1024 bf16 (4 chunks of 8 per lane),
// 512 f32 (4 chunks of 4), 64 bf16 (one chunk of 2); row counts that leave
// spare warps, and CUDA graphs patched to new sizes (the largest call
// first: a growing arena would drop the graph).
// RUN: tgc-run %s --entry vector_rows --device cuda --calls 0=301x1024,1=1024,2=1024,3=301x512,4=301x64 \
// RUN:   --calls 0=5x1024,1=1024,2=1024,3=5x512,4=5x64 --calls 0=2x1024,1=1024,2=1024,3=2x512,4=2x64 \
// RUN:   --check reference --cuda-graphs --json | FileCheck %s --check-prefix=VEC
// VEC: "compiles": 1,
// VEC: "graph_captures": 1,
// VEC: "graph_resizes": 2,
// VEC: "reference_ok": true

func.func @softmax(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %s = tgc.softmax %x dim = 1 : tensor<?x?xf32>
  return %s : tensor<?x?xf32>
}

func.func @norms(%x: tensor<?x3x16xf32>, %w: tensor<16xf32>, %b: tensor<16xf32>) -> (tensor<?x3x16xf32>, tensor<?x3x16xf32>, tensor<?x3x16xf32>) {
  %l = tgc.layer_norm %x weight(%w : tensor<16xf32>) bias(%b : tensor<16xf32>) normalized_rank = 1 eps = 1.0e-05 : tensor<?x3x16xf32>
  %r = tgc.rms_norm %x weight(%w : tensor<16xf32>) normalized_rank = 1 eps = 1.0e-06 : tensor<?x3x16xf32>
  %ls = tgc.log_softmax %x dim = 2 : tensor<?x3x16xf32>
  return %l, %r, %ls : tensor<?x3x16xf32>, tensor<?x3x16xf32>, tensor<?x3x16xf32>
}

func.func @entropy(%x: tensor<?x?xf32>) -> tensor<?xf32> {
  %p = tgc.softmax %x dim = 1 : tensor<?x?xf32>
  %eps = tgc.constant dense<1.0e-08> : tensor<f32>
  %q = tgc.add %p, %eps : tensor<?x?xf32>, tensor<f32> -> tensor<?x?xf32>
  %l = tgc.log %q : tensor<?x?xf32>
  %m = tgc.mul %p, %l : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32>
  %s = tgc.sum %m dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  %n = tgc.neg %s : tensor<?xf32>
  return %n : tensor<?xf32>
}

func.func @rowstats(%x: tensor<?x?xf32>) -> (tensor<?xf32>, tensor<?x1xf32>, tensor<?xf32>) {
  %s = tgc.sum %x dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  %m = tgc.amax %x dims [1] keepdim : tensor<?x?xf32> -> tensor<?x1xf32>
  %v = tgc.mean %x dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  return %s, %m, %v : tensor<?xf32>, tensor<?x1xf32>, tensor<?xf32>
}

func.func @warp_rows(%x: tensor<?x200xf32>, %w: tensor<200xf32>, %b: tensor<200xf32>) -> (tensor<?x200xf32>, tensor<?x200xf32>, tensor<?xf32>) {
  %s = tgc.softmax %x dim = 1 : tensor<?x200xf32>
  %l = tgc.layer_norm %x weight(%w : tensor<200xf32>) bias(%b : tensor<200xf32>) normalized_rank = 1 eps = 1.0e-05 : tensor<?x200xf32>
  %m = tgc.amax %x dims [1] : tensor<?x200xf32> -> tensor<?xf32>
  return %s, %l, %m : tensor<?x200xf32>, tensor<?x200xf32>, tensor<?xf32>
}

func.func @static_rows(%a: tensor<?x1024xf32>, %b: tensor<?x1000xf32>, %c: tensor<?x3000xf32>) -> (tensor<?x1024xf32>, tensor<?x1000xf32>, tensor<?x3000xf32>) {
  %0 = tgc.softmax %a dim = 1 : tensor<?x1024xf32>
  %1 = tgc.log_softmax %b dim = 1 : tensor<?x1000xf32>
  %2 = tgc.softmax %c dim = 1 : tensor<?x3000xf32>
  return %0, %1, %2 : tensor<?x1024xf32>, tensor<?x1000xf32>, tensor<?x3000xf32>
}

func.func @vector_rows(%x: tensor<?x1024xbf16>, %w: tensor<1024xbf16>, %b: tensor<1024xbf16>, %y: tensor<?x512xf32>, %z: tensor<?x64xbf16>) -> (tensor<?x1024xbf16>, tensor<?x1024xbf16>, tensor<?x512xf32>, tensor<?x64xbf16>) {
  %s = tgc.softmax %x dim = 1 : tensor<?x1024xbf16>
  %l = tgc.layer_norm %x weight(%w : tensor<1024xbf16>) bias(%b : tensor<1024xbf16>) normalized_rank = 1 eps = 1.0e-05 : tensor<?x1024xbf16>
  %n = tgc.log_softmax %y dim = 1 : tensor<?x512xf32>
  %t = tgc.softmax %z dim = 1 : tensor<?x64xbf16>
  return %s, %l, %n, %t : tensor<?x1024xbf16>, tensor<?x1024xbf16>, tensor<?x512xf32>, tensor<?x64xbf16>
}
