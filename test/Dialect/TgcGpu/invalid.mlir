// RUN: tgc-opt %s -split-input-file -verify-diagnostics

// Every verifier error of the tgc_gpu attributes and of the discardable
// attributes the dialect checks.

// An empty m list does not parse (GemmAttr::verify rejects one built in
// C++).
// expected-error @below {{expected integer value}}
// expected-error @below {{failed to parse TgcGpu_GemmAttr parameter 'm'}}
func.func private @f() attributes {a = #tgc_gpu.gemm<m = [], n = 0, k = 1, trans_a = false, trans_b = false>}

// -----

// expected-error @below {{GEMM loop 5 is not one of its 3 loops}}
func.func private @f() attributes {a = #tgc_gpu.gemm<m = [5], n = 0, k = 1, trans_a = false, trans_b = false>}

// -----

// expected-error @below {{GEMM loop 1 has two roles}}
func.func private @f() attributes {a = #tgc_gpu.gemm<m = [1], n = 1, k = 0, trans_a = false, trans_b = false>}

// -----

// expected-error @below {{expected 'epilogue' or 'tf32', got 'fp16'}}
func.func private @f() attributes {a = #tgc_gpu.gemm<m = [0], n = 1, k = 2, trans_a = false, trans_b = false, fp16 = true>}

// -----

// expected-error @below {{kernel number must be non-negative, got -1}}
func.func private @f() attributes {a = #tgc_gpu.strategy<row, kernel = -1, threads = 128>}

// -----

// expected-error @below {{threads must be a multiple of 32 in [32, 1024], got 100}}
func.func private @f() attributes {a = #tgc_gpu.strategy<row, kernel = 0, threads = 100>}

// -----

// expected-error @below {{threads must be a multiple of 32 in [32, 1024], got 2048}}
func.func private @f() attributes {a = #tgc_gpu.strategy<element, kernel = 0, threads = 2048>}

// -----

// expected-error @below {{a flat kernel reads 16-byte vectors of 2, 4 or 8 elements, got vector = 0}}
func.func private @f() attributes {a = #tgc_gpu.strategy<flat, kernel = 0, threads = 256>}

// -----

// expected-error @below {{only flat kernels have a vector width}}
func.func private @f() attributes {a = #tgc_gpu.strategy<tree, kernel = 0, threads = 256, vector = 4>}

// -----

// expected-error @below {{only row and tree kernels choose their vectors}}
func.func private @f() attributes {a = #tgc_gpu.strategy<element, kernel = 0, threads = 256, vectors = true>}

// -----

// expected-error @below {{only row kernels keep rows in registers}}
func.func private @f() attributes {a = #tgc_gpu.strategy<tree, kernel = 0, threads = 256, registers = true>}

// -----

// expected-error @below {{'func.func' op 'tgc_gpu.gemm' must be a #tgc_gpu.gemm}}
func.func private @f() attributes {tgc_gpu.gemm = 1}

// -----

// expected-error @below {{'func.func' op 'tgc_gpu.gemm' is set on a linalg.generic only}}
func.func private @f() attributes {tgc_gpu.gemm = #tgc_gpu.gemm<m = [0], n = 1, k = 2, trans_a = false, trans_b = false>}

// -----

func.func @f(%x: memref<4x4xf32>) {
  // expected-error @below {{has 2 loops but its GEMM roles 3}}
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%x, %x : memref<4x4xf32>, memref<4x4xf32>) outs(%x : memref<4x4xf32>)
      attrs = {tgc_gpu.gemm = #tgc_gpu.gemm<m = [0], n = 1, k = 2, trans_a = false, trans_b = false>} {
  ^bb0(%a: f32, %b: f32, %o: f32):
    linalg.yield %a : f32
  }
  return
}

// -----

func.func @f(%x: memref<4x4xf32>) {
  // expected-error @below {{is a GEMM without two inputs and an output}}
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x : memref<4x4xf32>) outs(%x : memref<4x4xf32>)
      attrs = {tgc_gpu.gemm = #tgc_gpu.gemm<m = [0], n = 1, k = 2, trans_a = false, trans_b = false>} {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  }
  return
}

// -----

// expected-error @below {{'tgc_gpu.gemm_epilogue_of' is a unit attribute of a linalg.generic}}
func.func private @f() attributes {tgc_gpu.gemm_epilogue_of}

// -----

// expected-error @below {{'tgc_gpu.strategy' must be a #tgc_gpu.strategy}}
func.func private @f() attributes {tgc_gpu.strategy = "row"}

// -----

// expected-error @below {{'tgc_gpu.strategy' of kind row is set on a linalg.generic only}}
func.func private @f() attributes {tgc_gpu.strategy = #tgc_gpu.strategy<row, kernel = 0, threads = 128>}

// -----

func.func @f(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @below {{'tgc_gpu.strategy' of kind flat is set on a linalg.generic only}}
  scf.for %i = %c0 to %n step %c1 {
  } {tgc_gpu.strategy = #tgc_gpu.strategy<flat, kernel = 0, threads = 256, vector = 4>}
  return
}

// -----

// expected-error @below {{'tgc_gpu.vector_align' is a power of two up to 16 on a gpu.launch_func}}
func.func private @f() attributes {tgc_gpu.vector_align = 16 : i64}

// -----

// expected-error @below {{'tgc_gpu.operand_access' is an array<i32> on a gpu.launch_func}}
func.func private @f() attributes {tgc_gpu.operand_access = array<i32: 1>}

// -----

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @g(%a: memref<4xf32>) kernel {
      gpu.return
    }
  }
  func.func @launch(%a: memref<4xf32>) {
    %c1 = arith.constant 1 : index
    // expected-error @below {{'tgc_gpu.operand_access' has 2 entries for 1 kernel operands}}
    gpu.launch_func @k::@g blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<4xf32>) {tgc_gpu.operand_access = array<i32: 1, 1>}
    return
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @g(%a: memref<4xf32>) kernel {
      gpu.return
    }
  }
  func.func @launch(%a: memref<4xf32>) {
    %c1 = arith.constant 1 : index
    // expected-error @below {{'tgc_gpu.operand_access' entry 4 is not 0 to 3 (1 read, 2 written)}}
    gpu.launch_func @k::@g blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<4xf32>) {tgc_gpu.operand_access = array<i32: 4>}
    return
  }
}

// -----

// expected-error @below {{has an unknown tgc_gpu attribute 'tgc_gpu.kernel'}}
func.func private @f() attributes {tgc_gpu.kernel = 1}

// -----

// expected-error @below {{unknown GEMM epilogue 'tanh'}}
func.func private @f() attributes {a = #tgc_gpu.gemm<m = [0], n = 1, k = 2, trans_a = false, trans_b = false, epilogue = tanh>}

// -----

// expected-error @below {{a 2-d convolution has two strides, paddings and dilations}}
func.func private @f() attributes {a = #tgc_gpu.conv<stride = [1], padding = [0, 0], dilation = [1, 1], groups = 1>}

// -----

// expected-error @below {{strides and dilations must be positive}}
func.func private @f() attributes {a = #tgc_gpu.conv<stride = [1, 0], padding = [0, 0], dilation = [1, 1], groups = 1>}

// -----

// expected-error @below {{paddings must be non-negative}}
func.func private @f() attributes {a = #tgc_gpu.conv<stride = [1, 1], padding = [-1, 0], dilation = [1, 1], groups = 1>}

// -----

// expected-error @below {{groups must be positive, got 0}}
func.func private @f() attributes {a = #tgc_gpu.conv<stride = [1, 1], padding = [0, 0], dilation = [1, 1], groups = 0>}

// -----

// expected-error @below {{kind must be forward, backward_data or backward_filter, got 'backward'}}
func.func private @f() attributes {a = #tgc_gpu.conv<stride = [1, 1], padding = [0, 0], dilation = [1, 1], groups = 1, kind = backward>}

// -----

// expected-error @below {{'func.func' op 'tgc_gpu.conv' must be a #tgc_gpu.conv}}
func.func private @f() attributes {tgc_gpu.conv = 1}

// -----

// expected-error @below {{'func.func' op 'tgc_gpu.conv' is set on a linalg.generic only}}
func.func private @f() attributes {tgc_gpu.conv = #tgc_gpu.conv<stride = [1, 1], padding = [0, 0], dilation = [1, 1], groups = 1>}

// -----

func.func @f(%x: memref<4x4xf32>) {
  // expected-error @below {{is a convolution without 7 loops (3 of them reductions), a weight and an output}}
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<4x4xf32>) outs(%x : memref<4x4xf32>)
      attrs = {tgc_gpu.conv = #tgc_gpu.conv<stride = [1, 1], padding = [0, 0], dilation = [1, 1], groups = 1>} {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  }
  return
}
