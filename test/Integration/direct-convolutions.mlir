// Convolutions the CPU runs as direct window contractions (tgc-to-linalg's
// direct-convolutions, docs/cpu-pipeline.md): `?` image sizes, one compile
// for images of several sizes (with partial column tiles and leftover
// output channels), against the reference interpreter; and the same with
// the option off (then a window loop nest: im2col does not take two `?`
// output sizes). A sequence-first linear (2 rows in its last
// leading dim) runs over its collapsed leading dims.

// RUN: tgc-run %s --entry conv --calls 0=2x5x17x40 --calls 0=2x5x30x19 --calls 0=3x5x9x70 \
// RUN:   --check reference --json | FileCheck %s
// RUN: tgc-run %s --entry conv --direct-convolutions=false --calls 0=2x5x17x40 \
// RUN:   --calls 0=2x5x30x19 --check reference --json | FileCheck %s --check-prefix=OFF
// RUN: tgc-run %s --entry projection --calls 0=7x2x24 --calls 0=33x2x24 \
// RUN:   --check reference --json | FileCheck %s --check-prefix=LINEAR
// CHECK:      "calls": 3,
// CHECK:      "compiles": 1,
// CHECK:      "reference_ok": true
// OFF:     "calls": 2,
// OFF:     "reference_ok": true
// LINEAR:     "calls": 2,
// LINEAR:     "compiles": 1,
// LINEAR:     "reference_ok": true

func.func @conv(%x: tensor<?x5x?x?xf32>, %w: tensor<11x5x3x3xf32>, %b: tensor<11xf32>) -> tensor<?x11x?x?xf32> {
  %c = tgc.conv2d %x, %w bias(%b : tensor<11xf32>) stride [1, 1] padding [1, 1] dilation [1, 1] groups = 1 : tensor<?x5x?x?xf32>, tensor<11x5x3x3xf32> -> tensor<?x11x?x?xf32>
  %r = tgc.relu %c : tensor<?x11x?x?xf32>
  return %r : tensor<?x11x?x?xf32>
}

func.func @projection(%x: tensor<?x2x24xf32>, %w: tensor<40x24xf32>, %b: tensor<40xf32>) -> tensor<?x2x40xf32> {
  %y = tgc.linear %x, %w, %b : tensor<?x2x24xf32>, tensor<40x24xf32>, tensor<40xf32> -> tensor<?x2x40xf32>
  return %y : tensor<?x2x40xf32>
}
