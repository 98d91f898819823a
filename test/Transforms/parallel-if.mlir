// RUN: tgc-opt %s --tgc-parallel-if -split-input-file | FileCheck %s

// A dynamic trip count: the region forks only when n >= 16384.

// CHECK-LABEL: func.func @dynamic
// CHECK: %[[SPAN:.*]] = arith.subi %{{.*}}, %{{.*}} : index
// CHECK: %[[POS:.*]] = arith.maxsi %[[SPAN]], %{{.*}} : index
// CHECK: %[[N:.*]] = arith.ceildivsi %[[POS]], %{{.*}} : index
// CHECK: %[[T:.*]] = arith.muli %{{.*}}, %[[N]] : index
// CHECK: %[[LIMIT:.*]] = arith.constant 16384 : index
// CHECK: %[[BIG:.*]] = arith.cmpi sge, %[[T]], %[[LIMIT]] : index
// CHECK: omp.parallel if(%[[BIG]])
func.func @dynamic(%m: memref<?xf32>, %n: index, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  omp.parallel {
    omp.wsloop {
      omp.loop_nest (%i) : index = (%c0) to (%n) step (%c1) {
        memref.store %v, %m[%i] : memref<?xf32>
        omp.yield
      }
    }
    omp.terminator
  }
  return
}

// -----

// Each iteration runs a 256-iteration inner loop: the work is n * 256.

// CHECK-LABEL: func.func @rows
// CHECK: %[[N:.*]] = arith.ceildivsi
// CHECK: %[[W1:.*]] = arith.muli %{{.*}}, %[[N]] : index
// CHECK: %[[W2:.*]] = arith.muli %[[W1]], %{{.*}} : index
// CHECK: %[[LIMIT:.*]] = arith.constant 16384 : index
// CHECK: arith.cmpi sge, %[[W2]], %[[LIMIT]] : index
// CHECK: omp.parallel if(
func.func @rows(%m: memref<?x256xf32>, %n: index, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  omp.parallel {
    omp.wsloop {
      omp.loop_nest (%i) : index = (%c0) to (%n) step (%c1) {
        scf.for %j = %c0 to %c256 step %c1 {
          memref.store %v, %m[%i, %j] : memref<?x256xf32>
        }
        omp.yield
      }
    }
    omp.terminator
  }
  return
}

// -----

// A dynamic inner loop whose bound is known before the region: its trip
// count is part of the work.

// CHECK-LABEL: func.func @dynamic_inner
// CHECK-COUNT-2: arith.ceildivsi
// CHECK: arith.cmpi sge
// CHECK: omp.parallel if(
func.func @dynamic_inner(%m: memref<?x?xf32>, %n: index, %k: index, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  omp.parallel {
    omp.wsloop {
      omp.loop_nest (%i) : index = (%c0) to (%n) step (%c1) {
        scf.for %j = %c0 to %k step %c1 {
          memref.store %v, %m[%i, %j] : memref<?x?xf32>
        }
        omp.yield
      }
    }
    omp.terminator
  }
  return
}

// -----

// Constant bounds (tgc-serialize-small-loops' case) and an inner bound
// computed inside the region are left alone.

// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: if(
// CHECK: omp.parallel {
// CHECK-NOT: if(
// CHECK: omp.parallel {
func.func @left_alone(%m: memref<?x?xf32>, %n: index, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  omp.parallel {
    omp.wsloop {
      omp.loop_nest (%i) : index = (%c0) to (%c64) step (%c1) {
        memref.store %v, %m[%i, %i] : memref<?x?xf32>
        omp.yield
      }
    }
    omp.terminator
  }
  omp.parallel {
    omp.wsloop {
      omp.loop_nest (%i) : index = (%c0) to (%n) step (%c1) {
        %e = arith.addi %i, %c1 : index
        scf.for %j = %c0 to %e step %c1 {
          memref.store %v, %m[%i, %j] : memref<?x?xf32>
        }
        omp.yield
      }
    }
    omp.terminator
  }
  return
}
