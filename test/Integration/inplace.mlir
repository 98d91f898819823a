// In-place updates (`x.add_(y); x.mul_(2)`) read the out argument and write
// it: tgc-to-linalg reads it from a copy taken on entry, so the result
// written into the caller's buffer is computed from the old values (a
// buffer aliasing bug once lost the write entirely).

// RUN: tgc-run %s --calls 0=3x4 --calls 0=7x4 --check reference --json | FileCheck %s
// CHECK: "calls": 2,
// CHECK: "compiles": 1,
// CHECK: "reference_ok": true
func.func @inplace(%x: tensor<?x4xf32>, %y: tensor<4xf32>) {
  %a = tgc.add %x, %y : tensor<?x4xf32>, tensor<4xf32> -> tensor<?x4xf32>
  %two = tgc.constant dense<2.0> : tensor<f32>
  %m = tgc.mul %a, %two : tensor<?x4xf32>, tensor<f32> -> tensor<?x4xf32>
  tgc.write_out %m into %x : tensor<?x4xf32> into tensor<?x4xf32>
  return
}

// RUN: tgc-opt %s --tgc-to-linalg | FileCheck %s --check-prefix=IR
// IR-LABEL: func.func @inplace
// IR: %[[COPY:.*]] = bufferization.alloc_tensor() copy(%arg0)
// IR: linalg.generic {{.*}} ins(%[[COPY]], %arg1
// IR: %[[DEST:.*]] = bufferization.to_buffer %arg0
// IR: materialize_in_destination {{.*}} in restrict writable %[[DEST]]
