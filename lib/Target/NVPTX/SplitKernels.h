//===- SplitKernels.h - a kernel module in parts for parallel codegen -----===//
//
// LLVM's optimizer and NVPTX back end run on one module in one thread; a
// model's kernel module holds tens to hundreds of independent kernels. The
// parallel path of translateGPUModuleToPTX splits the kernels into parts
// (each its own gpu.module with what its kernels use), optimizes and emits
// each part in its own LLVMContext and thread, and joins the parts' PTX into
// one PTX module for one ptxas run and one cubin, so that the runtime loads
// what it loaded before. LLVM's own llvm::splitCodeGen does the same for
// code generation alone; here the optimizer, which costs as much, runs per
// part too.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_LIB_TARGET_NVPTX_SPLITKERNELS_H
#define TGC_LIB_TARGET_NVPTX_SPLITKERNELS_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"

#include <string>
#include <vector>

namespace llvm {
class Module;
} // namespace llvm

namespace mlir::tgc {

/// The kernels of a gpu.module (lowered to the LLVM and NVVM dialects) in
/// at most `parts` gpu.modules of about equal size (op counts), for as long
/// as this object lives. Part 0 is `module` itself without the other parts'
/// kernels: it keeps every global and function, so that what the runtime
/// looks up by name (kernels, constants' data) is defined once; a kernel
/// that reaches an externally visible global definition stays there. Each
/// other part is a detached gpu.module holding its kernels (moved there, not
/// copied) and copies of the functions and globals they reach, the
/// functions made internal. The destructor moves the kernels back, in their
/// order. Fewer than two parts when splitting does not pay (one kernel,
/// `parts` < 2) or is not safe (a top-level op other than functions and
/// globals); `module` is then untouched.
class KernelModuleSplit {
public:
  KernelModuleSplit(gpu::GPUModuleOp module, unsigned parts);
  ~KernelModuleSplit();
  KernelModuleSplit(const KernelModuleSplit &) = delete;
  KernelModuleSplit &operator=(const KernelModuleSplit &) = delete;

  /// The parts, part 0 first; just `module` when it was not split.
  ArrayRef<gpu::GPUModuleOp> parts() const { return partList; }

private:
  gpu::GPUModuleOp module;
  /// The module's top-level ops in their order, to restore it.
  SmallVector<Operation *> order;
  SmallVector<gpu::GPUModuleOp> partList;
  std::vector<OwningOpRef<gpu::GPUModuleOp>> owned;
};

/// Gives the local (internal or private) symbols of part `part`'s LLVM
/// module names of their own (`name__tgc_part<N>`), so that parts emitted
/// separately do not define one PTX name twice. Part 0 keeps its names.
void renameLocalSymbols(llvm::Module &module, unsigned part);

/// Joins the PTX of the parts into one module: the header (`.version`,
/// `.target`, `.address_size`) once, each distinct `.extern` declaration
/// once before the bodies, then the bodies in order. Fails with a message
/// when the parts' headers differ.
FailureOr<std::string> joinPTX(ArrayRef<std::string> parts, std::string &error);

} // namespace mlir::tgc

#endif // TGC_LIB_TARGET_NVPTX_SPLITKERNELS_H
