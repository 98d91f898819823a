//===- OutlineIdenticalKernels.cpp - identical kernels compiled once ------===//
//
// See the pass description in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "tgc/Transforms/CPU/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::tgc {
#define GEN_PASS_DEF_TGCOUTLINEIDENTICALKERNELS
#include "tgc/Transforms/CPU/Passes.h.inc"
namespace {

/// A kernel: a loop nest or parallel region at the top level of a
/// function, with no results (`scf.forall` on buffers, before the loops
/// are lowered).
bool isKernel(Operation &op) {
  return isa<scf::ForOp, scf::ForallOp, scf::ParallelOp, omp::ParallelOp>(op) &&
         op.getNumResults() == 0;
}

/// The locations of a kernel's ops, fused: its call's location, so that
/// each twin keeps its own source lines (a kernel map, a profile).
Location sourceLocations(Operation *kernel) {
  llvm::SetVector<Location> locations;
  kernel->walk([&](Operation *op) { locations.insert(op->getLoc()); });
  return FusedLoc::get(kernel->getContext(), locations.getArrayRef());
}

/// Marks a function this pass outlined: a later run leaves its kernel
/// where it is (the function is the kernel).
constexpr llvm::StringLiteral kKernelFunction = "tgc.kernel_function";

/// A constant (cloned into an outlined kernel, compared by value).
bool isConstant(Value v) {
  Operation *def = v.getDefiningOp();
  return def && def->hasTrait<OpTrait::ConstantLike>();
}

/// The values `kernel` uses that are defined outside it, in the order of
/// their first use (operands of a pre-order walk): the constants, and the
/// rest (the arguments of an outlined kernel).
void capturedValues(Operation *kernel, SmallVectorImpl<Value> &constants,
                    SmallVectorImpl<Value> &captured) {
  llvm::SmallDenseSet<Value> seen;
  kernel->walk<WalkOrder::PreOrder>([&](Operation *op) {
    for (Value v : op->getOperands()) {
      if (kernel->isAncestor(v.getParentRegion()->getParentOp()))
        continue; // defined inside the kernel
      if (seen.insert(v).second)
        (isConstant(v) ? constants : captured).push_back(v);
    }
  });
}

/// Whether `a` and `b` are the same kernel but for the values they
/// capture, which correspond by position.
bool sameKernel(Operation *a, ArrayRef<Value> capturedA, Operation *b,
                ArrayRef<Value> capturedB) {
  if (capturedA.size() != capturedB.size())
    return false;
  for (auto [x, y] : llvm::zip(capturedA, capturedB))
    if (x.getType() != y.getType())
      return false;
  DenseMap<Value, unsigned> positionA, positionB;
  for (auto [i, v] : llvm::enumerate(capturedA))
    positionA[v] = i;
  for (auto [i, v] : llvm::enumerate(capturedB))
    positionB[v] = i;
  DenseMap<Value, Value> inside; // a's values defined in it -> b's
  auto check = [&](Value x, Value y) -> LogicalResult {
    auto it = inside.find(x);
    if (it != inside.end())
      return success(it->second == y);
    if (isConstant(x) || isConstant(y))
      return success(isConstant(x) && isConstant(y) &&
                     OperationEquivalence::isEquivalentTo(
                         x.getDefiningOp(), y.getDefiningOp(),
                         OperationEquivalence::IgnoreLocations));
    auto px = positionA.find(x), py = positionB.find(y);
    return success(px != positionA.end() && py != positionB.end() &&
                   px->second == py->second);
  };
  auto mark = [&](Value x, Value y) { inside[x] = y; };
  return OperationEquivalence::isEquivalentTo(
      a, b, check, mark, OperationEquivalence::Flags::IgnoreLocations);
}

struct TgcOutlineIdenticalKernelsPass
    : impl::TgcOutlineIdenticalKernelsBase<TgcOutlineIdenticalKernelsPass> {
  using Base::Base;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    SmallVector<func::FuncOp> funcs(module.getOps<func::FuncOp>());
    unsigned counter = 0;
    for (func::FuncOp func : funcs) {
      if (func.isExternal())
        continue;
      if (func->hasAttr(kKernelFunction)) {
        // Outlined by an earlier run: no C interface (one may have been
        // requested for every function since), nothing to outline.
        func->removeAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName());
        continue;
      }
      // Kernels of the function's blocks, with what each captures; a
      // hash of the op (operands ignored) finds the candidates.
      struct Candidate {
        Operation *op;
        SmallVector<Value> constants, captured;
        llvm::hash_code hash;
      };
      SmallVector<Candidate> kernels;
      // Kernel formation's annotations number the fusion groups, which
      // differ between layers; nothing after it reads them.
      func.walk([](Operation *op) {
        op->removeAttr("tgc.group");
        op->removeAttr("tgc.group_kind");
      });
      for (Block &block : func.getBody())
        for (Operation &op : block) {
          if (!isKernel(op))
            continue;
          Candidate c{&op, {}, {}, {}};
          capturedValues(&op, c.constants, c.captured);
          c.hash = OperationEquivalence::computeHash(
              &op, OperationEquivalence::ignoreHashValue,
              OperationEquivalence::ignoreHashValue,
              OperationEquivalence::IgnoreLocations);
          kernels.push_back(std::move(c));
        }
      SmallVector<bool> done(kernels.size(), false);
      for (size_t i = 0; i < kernels.size(); ++i) {
        if (done[i])
          continue;
        SmallVector<size_t> twins;
        for (size_t j = i + 1; j < kernels.size(); ++j)
          if (!done[j] && kernels[j].hash == kernels[i].hash &&
              sameKernel(kernels[i].op, kernels[i].captured, kernels[j].op,
                         kernels[j].captured))
            twins.push_back(j);
        if (twins.empty() && !everyKernel)
          continue;
        func::FuncOp outlined =
            outline(func, kernels[i].op, kernels[i].constants,
                    kernels[i].captured, symbols, counter);
        twins.insert(twins.begin(), i);
        for (size_t k : twins) {
          Operation *op = kernels[k].op;
          OpBuilder b(op);
          func::CallOp::create(b, sourceLocations(op), outlined,
                               kernels[k].captured);
          op->erase();
          done[k] = true;
        }
      }
    }
  }

  /// A private function that runs `kernel` on its captured values.
  func::FuncOp outline(func::FuncOp parent, Operation *kernel,
                       ArrayRef<Value> constants, ArrayRef<Value> captured,
                       SymbolTable &symbols, unsigned &counter) {
    MLIRContext *ctx = &getContext();
    SmallVector<Type> types;
    for (Value v : captured)
      types.push_back(v.getType());
    OpBuilder b(ctx);
    b.setInsertionPointAfter(parent);
    auto fn = func::FuncOp::create(b, kernel->getLoc(),
                                   (parent.getSymName() + "__kernel" +
                                    Twine(counter++))
                                       .str(),
                                   FunctionType::get(ctx, types, {}));
    fn.setPrivate();
    fn->setAttr(kKernelFunction, UnitAttr::get(ctx));
    // Internal in LLVM too (func-to-llvm keeps `llvm.linkage`): not
    // exported from an object, no packed wrapper in the JIT, and LLVM may
    // drop arguments the body does not use.
    fn->setAttr("llvm.linkage",
                LLVM::LinkageAttr::get(ctx, LLVM::Linkage::Internal));
    // LLVM's inliner would copy the body back into every caller, and its
    // optimizer compile each copy again.
    // (`passthrough` reaches the LLVM function's attributes.)
    fn->setAttr("passthrough",
                 ArrayAttr::get(ctx, {StringAttr::get(ctx, "noinline")}));
    symbols.insert(fn);
    Block *body = fn.addEntryBlock();
    IRMapping mapping;
    for (auto [v, arg] : llvm::zip(captured, body->getArguments()))
      mapping.map(v, arg);
    b.setInsertionPointToStart(body);
    for (Value c : constants)
      b.clone(*c.getDefiningOp(), mapping);
    b.clone(*kernel, mapping);
    func::ReturnOp::create(b, kernel->getLoc());
    return fn;
  }
};

} // namespace
} // namespace mlir::tgc
