//===- GpuPlan.h - Launch plans and GPU artifacts ---------------*- C++ -*-===//
//
// The host side of a function compiled for the GPU is not code but a launch
// plan: integer expressions over the arguments' sizes, the buffers a call
// uses (arguments, results, views into one arena), and the steps that run on
// a stream (kernel launches, GEMMs, copies, memsets). The compiler builds a
// Plan and serializes it into an artifact next to the kernels' cubin or PTX;
// the runtime parses it, evaluates the expressions once per call and runs
// the steps, directly or through a CUDA graph. Plain C++17, no MLIR, LLVM or
// CUDA dependency. See docs/gpu-runtime.md.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_RUNTIME_GPUPLAN_H
#define TGC_RUNTIME_GPUPLAN_H

#include "tgc/Runtime/tgc_runtime.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tgc::runtime {

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

/// One node of the plan's expression list. Nodes refer to earlier nodes by
/// index, so the list is evaluated front to back once per call. Division and
/// modulo follow affine semantics (floor), with a zero divisor an error.
enum class ExprKind : uint8_t {
  Const,    // a: the value
  ArgDim,   // a: argument index, b: dimension
  Add,      // a + b (a and b are node indices, as for every binary kind)
  Sub,      // a - b
  Mul,      // a * b
  FloorDiv, // floor(a / b)
  CeilDiv,  // ceil(a / b)
  Mod,      // a mod b, in [0, b)
  Max,      // max(a, b)
  Min,      // min(a, b)
};

struct PlanExpr {
  ExprKind kind = ExprKind::Const;
  int64_t a = 0;
  int64_t b = 0;
};

//===----------------------------------------------------------------------===//
// Signature and guards
//===----------------------------------------------------------------------===//

/// A tensor argument or result: dtype and rank; a result also has its sizes
/// (node indices), since the runtime allocates it.
struct PlanTensor {
  int32_t dtype = TGC_DTYPE_F32; // tgc_dtype
  int32_t rank = 0;
  std::vector<int64_t> sizes; // results only: one node per dim
};

/// A declarative guard, evaluated by the runtime before a call (the GPU
/// artifact carries no host code).
enum class GuardKind : uint8_t {
  Rank,        // arg: rank must be `value`
  Dtype,       // arg: dtype must be `value` (tgc_dtype)
  Device,      // arg: device type must be `value` (tgc_device_type)
  Contiguous,  // arg: dense row-major strides
  Range,       // node `lhs` in [lo, hi] (hi < 0: unbounded)
  Equal,       // node `lhs` == node `rhs`
  Divisible,   // node `lhs` mod `value` == 0
  Aligned,     // arg: data pointer aligned to `value` bytes
  NoAlias,     // arg and arg `value`: their element byte ranges are disjoint
  NoAliasOuts, // each arg of `args` is disjoint from every other argument
};

struct PlanGuard {
  GuardKind kind = GuardKind::Rank;
  int32_t arg = -1;
  int64_t value = 0;
  int64_t lhs = -1, rhs = -1;
  int64_t lo = 0, hi = -1;
  std::vector<int32_t> args; // NoAliasOuts: the out buffers
  std::string text;   // "s0 >= 2"
  std::string reason; // why the compiler needs it, with its origin
};

//===----------------------------------------------------------------------===//
// Buffers and steps
//===----------------------------------------------------------------------===//

/// A device pointer a step uses.
enum class BufferKind : uint8_t {
  Arg,    // index: argument
  Result, // index: result (allocated by the runtime, or the caller)
  Arena,  // the call's arena plus `offset` bytes (index unused)
  View,   // buffer `index` (an earlier one) plus `offset` bytes
  Global, // the module's global `index` (a constant) plus `offset` bytes
};

/// A global variable of the kernel module (a dense constant, its data in
/// the module), found by name when the module is loaded.
struct PlanGlobal {
  std::string name;
  int64_t bytes = 0; // its size, checked against the module's
};

struct PlanBuffer {
  BufferKind kind = BufferKind::Arg;
  int64_t index = 0;
  int64_t offset = -1; // node index of the byte offset; -1: 0
};

/// One kernel parameter. A Buffer parameter is passed as MLIR's descriptor
/// of a strided memref of rank `rank`: {allocated ptr, aligned ptr, i64
/// offset, i64 sizes[rank], i64 strides[rank]} (3 + 2 * rank parameters),
/// offset, sizes and strides in elements, from nodes `offset`, `sizes` and
/// `strides` (-1 in `offset`: 0). With `rank` = -1 it is the short rank-1
/// form {allocated, aligned, 0, size, 1}, `size` from node `sizeNode` (-1:
/// 0). An Int parameter is one i64, node `id`. `elementBytes` is the
/// buffer's element size (0: not known) and `access` whether the kernel
/// reads it (1), writes it (2) or both (3; 0: not known), for the bytes a
/// step moves in reports and profiles; neither changes what is passed.
struct KernelParam {
  enum Kind : uint8_t { Buffer, Int } kind = Int;
  int64_t id = 0;        // buffer index or node index
  int64_t sizeNode = -1; // Buffer, rank -1 only
  int32_t rank = -1;     // Buffer only
  int32_t elementBytes = 0; // Buffer only
  uint8_t access = 0;        // Buffer only
  int64_t offset = -1;   // Buffer, rank >= 0: node index
  std::vector<int64_t> sizes, strides; // Buffer, rank >= 0: node indices
};

struct LaunchStep {
  int32_t kernel = 0; // index into Plan::kernels
  int64_t grid[3] = {-1, -1, -1};  // node indices
  int64_t block[3] = {-1, -1, -1}; // node indices
  int64_t sharedBytes = -1;        // node index; -1: none
  std::vector<KernelParam> params;
};

/// Row-major C[m, n] = epilogue(alpha * op(A)[m, k] @ op(B)[k, n]
/// [+ residual] + bias) over `batch` matrices, through cuBLASLt. A residual
/// (cuBLASLt's beta = 1 input) has C's type and layout; it may be C itself.
struct GemmStep {
  enum Epilogue : uint8_t { None, Bias, Relu, BiasRelu, Gelu, BiasGelu };
  int32_t dtype = TGC_DTYPE_F32; // of A and B
  int32_t cDtype = -1;           // of C and the bias; -1: same as A and B
  /// f32 A and B rounded to TF32, f32 accumulation
  /// (CUBLAS_COMPUTE_32F_FAST_TF32), where PyTorch's flags allow it.
  bool tf32 = false;
  int64_t m = -1, n = -1, k = -1, batch = -1; // node indices
  bool transA = false, transB = false;
  int64_t a = -1, b = -1, c = -1, bias = -1; // buffer indices (bias: -1)
  int64_t residual = -1; // buffer index; -1: none (beta = 0)
  Epilogue epilogue = None;
  /// Elements between consecutive matrices of a batch (node indices; a
  /// stride node evaluating to 0 broadcasts one matrix over the batch).
  int64_t strideA = -1, strideB = -1, strideC = -1;
};

/// A 2-d NCHW convolution y = conv(x, w) through cuDNN (beta 0: y is
/// overwritten): x [N, C, H, W] and y [N, O, H', W'] strided views, w
/// [O, C / groups, kH, kW] packed. The window parameters are constants.
struct ConvStep {
  /// Which product: y from x and w (cuDNN's forward), x's gradient from
  /// y's and w (backward data), w's gradient from x and y's (backward
  /// filter). x, w and y keep their roles: [N, C, H, W], [O, C/G, kH, kW],
  /// [N, O, H', W'].
  enum Kind : int32_t { Forward = 0, BackwardData = 1, BackwardFilter = 2 };
  Kind kind = Forward;
  int32_t dtype = TGC_DTYPE_F32;
  /// cuDNN may use TF32 tensor cores (torch.backends.cudnn.allow_tf32).
  bool tf32 = false;
  KernelParam x, w, y; // ranked (rank 4) buffer parameters
  int64_t stride[2] = {1, 1}, padding[2] = {0, 0}, dilation[2] = {1, 1};
  int64_t groups = 1;
};

struct CopyStep {
  int64_t dst = -1, src = -1; // buffer indices
  int64_t bytes = -1;         // node index
};

struct MemsetStep {
  int64_t dst = -1;   // buffer index
  int64_t bytes = -1; // node index (a multiple of 4)
  uint32_t value = 0; // 32-bit pattern
};

/// A condition the kernels computed on the device (a gather's indices in
/// range, no integer division by zero): the byte at `flag` is copied to
/// the host in stream order, and a call whose byte is 0 fails with
/// `message` once it has finished. With `when` set, only calls where that
/// node is not 0 check (an integer division's check holds trivially for
/// an empty tensor).
/// An index range check (`index`, plan text `check ... index "..."`) is
/// the one kind GpuFunction::setDeviceAsserts turns into a device assert,
/// as eager PyTorch's CUDA kernels assert an index in range; the others (a
/// cholesky's definiteness, an integer division by zero: recoverable or
/// no error in eager) are always read on the host.
struct CheckStep {
  int64_t flag = -1; // buffer index (one byte: i1)
  int64_t when = -1; // node index; -1: always
  bool index = false;
  std::string message;
};

struct PlanStep {
  enum Kind : uint8_t { Launch, Gemm, Copy, Memset, Check, Conv } kind = Launch;
  LaunchStep launch;
  GemmStep gemm;
  ConvStep conv;
  CopyStep copy;
  MemsetStep memset;
  CheckStep check;
};

//===----------------------------------------------------------------------===//
// The plan
//===----------------------------------------------------------------------===//

struct Plan {
  std::string function;
  std::vector<PlanTensor> args;
  std::vector<PlanTensor> results;
  /// Symbols for messages: name and the node that holds the value.
  std::vector<std::pair<std::string, int64_t>> symbols;
  std::vector<PlanExpr> exprs;
  std::vector<PlanGuard> guards;
  int64_t arenaBytes = -1; // node index; -1: no arena
  std::vector<std::string> kernels; // kernel function names in the module
  std::vector<PlanGlobal> globals;  // constants in the module
  std::vector<PlanBuffer> buffers;
  std::vector<PlanStep> steps;
};

/// The plan as text (one line per item; see docs/gpu-runtime.md) and back.
/// parsePlan checks every index (nodes refer to earlier nodes, steps to
/// existing buffers, kernels and nodes) and reports the first problem with
/// its line number.
std::string serializePlan(const Plan &plan);

/// The name of a TGC dtype code ("f32", "f16", "bf16", "f64", "i64", "i32",
/// "i8", "i1"), as plans and messages spell it; null for an unknown code.
/// The runtime's one dtype table.
const char *dtypeName(int32_t dtype);
bool parsePlan(const std::string &text, Plan &plan, std::string &error);

/// Evaluates every node for one call's argument sizes (`argSizes[i]` holds
/// argument i's sizes). Fails on a missing argument or dim, a zero divisor
/// or a signed overflow.
bool evaluatePlan(const Plan &plan,
                  const std::vector<std::vector<int64_t>> &argSizes,
                  std::vector<int64_t> &values, std::string &error);

/// One argument's sizes, held by the caller.
struct SizesRef {
  const int64_t *sizes = nullptr;
  int64_t rank = 0;
};

/// The same for sizes held elsewhere (a call's descriptors or tensors),
/// without copying them.
bool evaluatePlan(const Plan &plan, const SizesRef *argSizes, size_t numArgs,
                  std::vector<int64_t> &values, std::string &error);

/// Bytes per element of a tgc_dtype (i1 takes a byte); 0 for an unknown one.
int64_t dtypeBytes(int32_t dtype);

/// The dtype compiled code stores `dtype` as: uint8 is i8 in plans (guards
/// alone tell the two apart), every other dtype itself.
int32_t storageDtype(int32_t dtype);

/// Runs the guards on a call's arguments; returns the index of the first
/// one that fails (and a message naming it, its reason and the actual
/// values) or -1. Also fails (returning -2) on a wrong argument count.
int32_t checkPlanGuards(const Plan &plan, const tgc_arg_desc *args,
                        int32_t numArgs, std::string &message);

//===----------------------------------------------------------------------===//
// Artifacts
//===----------------------------------------------------------------------===//

/// A GPU artifact: one file per compiled specialization.
///   "TGCGPUA\0" magic, u32 format version, u32 section count,
///   u64 FNV-1a checksum of everything after the header;
///   then sections {u32 kind, u32 reserved, u64 byte size, bytes}.
/// Sections: the plan text, the kernels' module (cubin or PTX), a metadata
/// text (compiler version, target chip, compile times).
inline constexpr uint32_t kGpuArtifactVersion = 2;

struct GpuArtifact {
  Plan plan;
  std::string chip = "sm_90";
  /// The kernels: a cubin (ELF) or PTX text (then `isPtx`).
  std::string module;
  bool isPtx = false;
  std::string metadata;
};

std::string writeGpuArtifact(const GpuArtifact &artifact);
/// Rejects wrong magic, other versions, bad checksums, truncated or
/// unknown sections and invalid plans, with a message saying which.
bool readGpuArtifact(const std::string &bytes, GpuArtifact &artifact,
                     std::string &error);

} // namespace tgc::runtime

#endif // TGC_RUNTIME_GPUPLAN_H
