// Matrix products through tgc-vectorize-contractions' register tiles,
// against the reference interpreter, at sizes that fill no tile, one tile,
// and tiles plus leftover rows, columns and a masked last vector: a matmul
// (rows of 8 by two vectors), x W^T with its epilogue (4 x 4 dot products
// along k), a batched product and an im2col convolution. One compile
// serves every size (dynamic rows and columns; no specialization of
// equal sizes or of sizes 0 and 1).

// RUN: tgc-run %s --entry products --duck-sizing=false --specialize-zero-one=false \
// RUN:   --calls 0=1x1,1=1x1,2=1x16,3=2x1x5,4=2x5x1 \
// RUN:   --calls 0=8x32,1=32x32,2=8x16,3=3x8x16,4=3x16x32 \
// RUN:   --calls 0=13x45,1=45x37,2=21x16,3=2x19x33,4=2x33x71 \
// RUN:   --calls 0=70x129,1=129x97,2=67x16,3=1x9x7,4=1x7x100 \
// RUN:   --check reference --json | FileCheck %s
// CHECK:      "calls": 4,
// CHECK:      "compiles": 1,
// CHECK:      "reference_ok": true

// The same with the sums in order (no reassociation: the dot products
// stay scalar loops; the matmul tiles keep each sum's order anyway).
// RUN: tgc-run %s --entry products --strict-reductions \
// RUN:   --calls 0=13x45,1=45x37,2=21x16,3=2x19x33,4=2x33x71 \
// RUN:   --check reference --json | FileCheck %s --check-prefix=STRICT
// STRICT:      "reference_ok": true

// RUN: tgc-run %s --entry conv --shape 0=3x5x11x13 --check reference --json \
// RUN:   | FileCheck %s --check-prefix=CONV
// CONV:      "reference_ok": true

// Static sizes large enough for tgc-form-kernels' 2-D blocks (64 rows x
// 256 columns per iteration; the last blocks partial) and, along j, for
// blocks of 256 steps of k (600 = 2 x 256 + 88).
// RUN: tgc-run %s --entry blocks --check reference --json | FileCheck %s --check-prefix=BLOCKS
// BLOCKS:      "reference_ok": true

// Many rows and 128 to 511 columns, B read along them: blocks of 64 rows
// x 64 columns (150 = 2 x 64 + 22: a partial block of a partial tile; 600
// steps of k in blocks of 256), and an im2col convolution over 7x7 images
// whose product takes the batch into its columns (130 x 45 x 196); and 50
// columns in iterations of at most 8 rows: tiles of 4 rows x 4 vectors,
// the last vector masked, leftover rows one at a time; and a linear layer
// of 260 rows and 530 columns in blocks of 128 x 128 (partial blocks of 4
// rows and 18 columns). (Sums of 600 products: an absolute tolerance of
// 1e-4.)
// RUN: tgc-run %s --entry narrow --check reference --atol 1e-4 --json | FileCheck %s --check-prefix=NARROW
// NARROW:      "reference_ok": true

func.func @narrow(%a: tensor<130x600xf32>, %b: tensor<600x150xf32>,
                  %x: tensor<4x5x7x7xf32>, %w: tensor<130x5x3x3xf32>,
                  %p: tensor<13x70xf32>, %q: tensor<70x50xf32>,
                  %u: tensor<260x300xf32>, %v: tensor<530x300xf32>)
    -> (tensor<130x150xf32>, tensor<4x130x7x7xf32>, tensor<13x50xf32>,
        tensor<260x530xf32>) {
  %0 = tgc.matmul %a, %b : tensor<130x600xf32>, tensor<600x150xf32> -> tensor<130x150xf32>
  %1 = tgc.conv2d %x, %w stride [1, 1] padding [1, 1] dilation [1, 1] groups = 1 : tensor<4x5x7x7xf32>, tensor<130x5x3x3xf32> -> tensor<4x130x7x7xf32>
  %2 = tgc.relu %1 : tensor<4x130x7x7xf32>
  %3 = tgc.matmul %p, %q : tensor<13x70xf32>, tensor<70x50xf32> -> tensor<13x50xf32>
  %4 = tgc.linear %u, %v : tensor<260x300xf32>, tensor<530x300xf32> -> tensor<260x530xf32>
  %5 = tgc.relu %4 : tensor<260x530xf32>
  return %0, %2, %3, %5 : tensor<130x150xf32>, tensor<4x130x7x7xf32>, tensor<13x50xf32>, tensor<260x530xf32>
}

func.func @blocks(%a: tensor<130x600xf32>, %b: tensor<600x520xf32>,
                  %x: tensor<2x130x300xf32>, %w: tensor<520x300xf32>)
    -> (tensor<130x520xf32>, tensor<2x130x520xf32>) {
  %0 = tgc.matmul %a, %b : tensor<130x600xf32>, tensor<600x520xf32> -> tensor<130x520xf32>
  %1 = tgc.linear %x, %w : tensor<2x130x300xf32>, tensor<520x300xf32> -> tensor<2x130x520xf32>
  %2 = tgc.relu %1 : tensor<2x130x520xf32>
  return %0, %2 : tensor<130x520xf32>, tensor<2x130x520xf32>
}

func.func @products(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %x: tensor<?x16xf32>,
                    %p: tensor<?x?x?xf32>, %q: tensor<?x?x?xf32>,
                    %w: tensor<24x16xf32>, %bias: tensor<24xf32>)
    -> (tensor<?x?xf32>, tensor<?x24xf32>, tensor<?x?x?xf32>) {
  %0 = tgc.matmul %a, %b : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32>
  %1 = tgc.linear %x, %w, %bias : tensor<?x16xf32>, tensor<24x16xf32>, tensor<24xf32> -> tensor<?x24xf32>
  %2 = tgc.tanh %1 : tensor<?x24xf32>
  %3 = tgc.matmul %p, %q : tensor<?x?x?xf32>, tensor<?x?x?xf32> -> tensor<?x?x?xf32>
  return %0, %2, %3 : tensor<?x?xf32>, tensor<?x24xf32>, tensor<?x?x?xf32>
}

func.func @conv(%x: tensor<3x5x11x13xf32>, %w: tensor<10x5x3x3xf32>, %b: tensor<10xf32>) -> tensor<3x10x6x13xf32> {
  %0 = tgc.conv2d %x, %w bias(%b : tensor<10xf32>) stride [2, 1] padding [1, 1] dilation [1, 1] groups = 1 : tensor<3x5x11x13xf32>, tensor<10x5x3x3xf32> -> tensor<3x10x6x13xf32>
  %1 = tgc.relu %0 : tensor<3x10x6x13xf32>
  return %1 : tensor<3x10x6x13xf32>
}
