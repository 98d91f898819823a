//===- Passes.h - TGC frontend passes ---------------------------*- C++ -*-===//

#ifndef TGC_TRANSFORMS_PASSES_H
#define TGC_TRANSFORMS_PASSES_H

#include "tgc/Transforms/CPU/Passes.h"
#include "tgc/Transforms/Frontend/Passes.h"
#include "tgc/Transforms/GPU/Passes.h"
#include "tgc/Transforms/Graph/Passes.h"
#include "tgc/Transforms/Memory/Passes.h"
#include "tgc/Transforms/OptionParsers.h"

namespace mlir::tgc {

/// Registers the passes of every folder (Frontend, Graph, Memory, CPU,
/// GPU).
inline void registerTgcTransformsPasses() {
  registerTgcFrontendPasses();
  registerTgcGraphPasses();
  registerTgcMemoryPasses();
  registerTgcCPUPasses();
  registerTgcGPUPasses();
}

/// The fusion group tgc-to-linalg tagged `op` with (`tgc.group`), if any.
std::optional<int64_t> getFusionGroup(Operation *op);

/// The fusion group of the kernel that runs `op` on the GPU path: a
/// `linalg.generic`'s own group, or, for a `memref.copy` that bufferization
/// put between two generics of one group (an accumulator's initial value
/// read by two reductions), that group. Other copies, and every other op,
/// run in no group's kernel: a copy between two groups (a concat's pieces
/// before the consumer's kernel) is a copy kernel of its own.
/// tgc-gpu-form-kernels makes one kernel of each run of consecutive such
/// ops of one group, and tgc-plan-memory keeps every buffer that such a
/// run uses alive over the whole run.
std::optional<int64_t> getKernelFusionGroup(Operation *op);

/// Named linalg ops that carry a fusion group (`tgc.group`) become
/// linalg.generic with the same tags (upstream's generalization drops
/// discardable attributes, which would leave the op, a fill for instance,
/// outside its group's kernel).
void generalizeTaggedLinalgOps(func::FuncOp func);

/// The size options of the frontend pipeline, which the CPU and GPU
/// pipelines take too (`Derived` is the options struct; see
/// ShapePolicyOptions in tgc/Pipelines/Pipelines.h).
template <typename Derived>
struct SizeOptions : public PassPipelineOptions<Derived> {
  template <typename T, typename Parser = detail::PassOptions::OptionParser<T>>
  using Option = detail::PassOptions::Option<T, Parser>;
  template <typename T>
  using ListOption = detail::PassOptions::ListOption<T>;
  Option<std::string, ShapePolicyParser> defaultPolicy{
      *this, "default-policy",
      llvm::cl::desc("Shape policy of `?` sizes: static (specialize to the "
                     "example), dynamic (symbols) or auto (static until the "
                     "size changes)"),
      withDefault("dynamic")};
  Option<bool> specializeZeroOne{*this, "specialize-zero-one",
                                 llvm::cl::desc("Specialize sizes 0 and 1"),
                                 withDefault(true)};
  Option<bool> duckSizing{
      *this, "duck-sizing",
      llvm::cl::desc("Dynamic sizes with equal examples share a symbol"),
      withDefault(true)};
  ListOption<std::string> exampleShapes{
      *this, "example-shapes",
      llvm::cl::desc("Example sizes per argument: ARG=D0xD1x... (ARG: the "
                     "argument's index)")};
};

/// Options of tgc-frontend-pipeline (symbolize, infer, generate and
/// simplify guards, optionally lower them to native code).
struct FrontendPipelineOptions : public SizeOptions<FrontendPipelineOptions> {
  Option<std::string, DeviceParser> device{
      *this, "device", llvm::cl::desc("Device the guards check"),
      withDefault("cpu")};
  Option<bool> lowerGuards{
      *this, "lower-guards",
      llvm::cl::desc("Lower guard sets to native guard functions"),
      withDefault(false)};
};

void buildFrontendPipeline(OpPassManager &pm,
                           const FrontendPipelineOptions &options);
void registerFrontendPipeline();

/// The buffer a returned memref views through expand_shape, collapse_shape
/// and cast (keepdim results reshape a fresh buffer): the GPU path's test
/// of whether a result is a buffer of its own.
Value resultBase(Value result);

} // namespace mlir::tgc

#endif // TGC_TRANSFORMS_PASSES_H
