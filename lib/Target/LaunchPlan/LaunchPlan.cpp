//===- LaunchPlan.cpp - the launch plan of a host function ----------------===//
//
// After tgc-gpu-pipeline, the launch plan: the host function's index
// arithmetic becomes plan expressions over argument sizes, its memrefs
// become buffers (arguments, results, views of the arena) with offsets,
// sizes and strides, its gpu.launch_func ops become launches with MLIR's
// memref-descriptor parameters and its tagged contractions cuBLASLt GEMMs.
// The guard set becomes declarative plan guards.
//
//===----------------------------------------------------------------------===//

#include "PlanBuilder.h"

#include "tgc/Analysis/ShapeEnv.h"
#include "tgc/Analysis/SymbolicIR.h"
#include "tgc/Dialect/TgcGuard/IR/TgcGuardOps.h"
#include "tgc/Dialect/TgcSym/IR/TgcSymOps.h"
#include "tgc/Reference/HostTensor.h"
#include "tgc/Transforms/GuardUtils.h"
#include "tgc/Transforms/Passes.h"

#include "tgc/Dialect/TgcGpu/IR/TgcGpuDialect.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::tgc;
namespace rt = ::tgc::runtime;

using namespace mlir::tgc::plan_detail;

namespace {

/// One cuBLASLt call for the GEMM `op`; with `epilogue` (an op marked
/// `tgc_gpu.gemm_epilogue_of`), the GEMM writes that op's output through
/// the cuBLASLt epilogue its #tgc_gpu.gemm names.
LogicalResult addGemm(PlanBuilder &b, linalg::GenericOp op,
                      linalg::GenericOp epilogue) {
  // The loops of each role, as tgc-gpu-select-strategy matched them.
  auto gemmAttr = op->getAttrOfType<tgc_gpu::GemmAttr>(
      tgc_gpu::TgcGpuDialect::kGemmAttrName);
  if (!gemmAttr)
    return op.emitOpError() << "is left on the host without a #tgc_gpu.gemm";
  auto roleLoops = [](ArrayRef<int64_t> ds) {
    return SmallVector<unsigned>(ds.begin(), ds.end());
  };
  SmallVector<unsigned> nLoops{static_cast<unsigned>(gemmAttr.getN())},
      kLoops{static_cast<unsigned>(gemmAttr.getK())};
  // The size of each loop, from an operand that indexes it directly.
  SmallVector<int64_t> loopSize(op.getNumLoops(), -1);
  SmallVector<Layout> layouts;
  for (OpOperand &operand : op->getOpOperands()) {
    FailureOr<Layout> l = b.layout(operand.get());
    if (failed(l))
      return failure();
    layouts.push_back(*l);
    for (auto [i, e] :
         llvm::enumerate(op.getMatchingIndexingMap(&operand).getResults()))
      if (auto d = dyn_cast<AffineDimExpr>(e))
        loopSize[d.getPosition()] = l->sizes[i];
  }
  auto product = [&](ArrayRef<unsigned> ds) {
    int64_t p = b.constant(1);
    for (unsigned d : ds)
      p = b.binary(rt::ExprKind::Mul, p, loopSize[d]);
    return p;
  };
  SmallVector<unsigned> m = roleLoops(gemmAttr.getM()),
                        batch = roleLoops(gemmAttr.getBatch());
  rt::GemmStep g;
  g.m = product(m);
  g.n = product(nLoops);
  g.k = product(kLoops);
  g.batch = product(batch);
  g.transA = gemmAttr.getTransA();
  g.transB = gemmAttr.getTransB();
  Type ta = getElementTypeOrSelf(op.getDpsInputOperand(0)->get().getType());
  Type tc = getElementTypeOrSelf(op.getDpsInitOperand(0)->get().getType());
  Layout cLayout = layouts[2];
  if (epilogue) {
    using tgc_gpu::GemmEpilogue;
    static const std::pair<GemmEpilogue, rt::GemmStep::Epilogue> kinds[] = {
        {GemmEpilogue::none, rt::GemmStep::None},
        {GemmEpilogue::bias, rt::GemmStep::Bias},
        {GemmEpilogue::relu, rt::GemmStep::Relu},
        {GemmEpilogue::bias_relu, rt::GemmStep::BiasRelu},
        {GemmEpilogue::gelu, rt::GemmStep::Gelu},
        {GemmEpilogue::bias_gelu, rt::GemmStep::BiasGelu},
        {GemmEpilogue::residual, rt::GemmStep::None},
        {GemmEpilogue::bias_residual, rt::GemmStep::Bias}};
    const auto *found = llvm::find_if(kinds, [&](const auto &k) {
      return k.first == gemmAttr.getEpilogue();
    });
    if (found == std::end(kinds))
      return op.emitOpError() << "has an epilogue op but no GEMM epilogue";
    g.epilogue = found->second;
    Value out = epilogue.getDpsInitOperand(0)->get();
    FailureOr<Layout> l = b.layout(out);
    if (failed(l))
      return failure();
    cLayout = *l;
    tc = getElementTypeOrSelf(out.getType());
    Value c = op.getDpsInitOperand(0)->get();
    bool residual = gemmAttr.getEpilogue() == GemmEpilogue::residual ||
                    gemmAttr.getEpilogue() == GemmEpilogue::bias_residual;
    for (OpOperand *in : epilogue.getDpsInputOperands()) {
      if (in->get() == c)
        continue;
      FailureOr<Layout> layout = b.layout(in->get());
      if (failed(layout))
        return failure();
      // The residual is read through the identity (cuBLASLt reads it in
      // D's layout: tgc-gpu-select-strategy checked it is dense), the
      // bias along the last loop.
      int64_t &slot =
          residual && epilogue.getMatchingIndexingMap(in).isIdentity()
              ? g.residual
              : g.bias;
      if (slot >= 0)
        return epilogue.emitOpError() << "does not match its GEMM epilogue";
      slot = b.pointerOf(*layout, tc);
    }
    if ((g.bias >= 0) != (g.epilogue == rt::GemmStep::Bias ||
                          g.epilogue == rt::GemmStep::BiasRelu ||
                          g.epilogue == rt::GemmStep::BiasGelu) ||
        residual != (g.residual >= 0))
      return epilogue.emitOpError() << "does not match its GEMM epilogue";
  }
  g.dtype = *dtypeOf(ta);
  g.cDtype = *dtypeOf(tc);
  g.tf32 = gemmAttr.getTf32() && ta.isF32();
  g.a = b.pointerOf(layouts[0], ta);
  g.b = b.pointerOf(layouts[1], ta);
  g.c = b.pointerOf(cLayout, tc);
  auto hasBatch = [&](unsigned operand) {
    return !batch.empty() &&
           op.getMatchingIndexingMap(&op->getOpOperand(operand))
               .isFunctionOfDim(batch.front());
  };
  g.strideA =
      hasBatch(0) ? b.binary(rt::ExprKind::Mul, g.m, g.k) : b.constant(0);
  g.strideB =
      hasBatch(1) ? b.binary(rt::ExprKind::Mul, g.k, g.n) : b.constant(0);
  g.strideC = b.binary(rt::ExprKind::Mul, g.m, g.n);
  rt::PlanStep step;
  step.kind = rt::PlanStep::Gemm;
  step.gemm = g;
  b.plan.steps.push_back(step);
  return success();
}

/// One cuDNN convolution for the #tgc_gpu.conv generic `op`: x, w and y by
/// the attribute's kind (the forward's input is the buffer its body loads
/// from, its weight its input operand, its output its init; the backward
/// kinds write dx or dw, tgc_gpu::getConvOperands).
LogicalResult addConv(PlanBuilder &b, linalg::GenericOp op,
                      tgc_gpu::ConvAttr attr) {
  tgc_gpu::ConvOperands roles = tgc_gpu::getConvOperands(op, attr);
  if (!roles.x)
    return op.emitOpError()
           << "is a #tgc_gpu.conv without exactly one buffer its body reads";
  rt::ConvStep c;
  c.tf32 = attr.getTf32();
  StringRef kind = attr.getKind();
  c.kind = kind == "backward_data"     ? rt::ConvStep::BackwardData
           : kind == "backward_filter" ? rt::ConvStep::BackwardFilter
                                       : rt::ConvStep::Forward;
  Value operands[3] = {roles.x, roles.w, roles.y};
  rt::KernelParam *params[3] = {&c.x, &c.w, &c.y};
  for (int i = 0; i < 3; ++i) {
    auto type = cast<MemRefType>(operands[i].getType());
    if (!type.getElementType().isF32() || type.getRank() != 4)
      return op.emitOpError() << "is a #tgc_gpu.conv of a buffer cuDNN "
                                 "cannot take: "
                              << type;
    FailureOr<Layout> layout = b.layout(operands[i]);
    if (failed(layout))
      return failure();
    rt::KernelParam &p = *params[i];
    p.kind = rt::KernelParam::Buffer;
    p.id = layout->buffer;
    p.elementBytes = 4;
    p.access = i == roles.written ? 2 : 1;
    p.rank = 4;
    p.offset = layout->offset;
    p.sizes.assign(layout->sizes.begin(), layout->sizes.end());
    p.strides.assign(layout->strides.begin(), layout->strides.end());
  }
  for (int i = 0; i < 2; ++i) {
    c.stride[i] = attr.getStride()[i];
    c.padding[i] = attr.getPadding()[i];
    c.dilation[i] = attr.getDilation()[i];
  }
  c.groups = attr.getGroups();
  rt::PlanStep step;
  step.kind = rt::PlanStep::Conv;
  step.conv = c;
  b.plan.steps.push_back(step);
  return success();
}

LogicalResult addLaunch(PlanBuilder &b, gpu::LaunchFuncOp launch) {
  rt::LaunchStep l;
  StringRef name = launch.getKernelName().getValue();
  auto it = llvm::find(b.plan.kernels, name.str());
  l.kernel = static_cast<int32_t>(it - b.plan.kernels.begin());
  if (it == b.plan.kernels.end())
    b.plan.kernels.push_back(name.str());
  gpu::KernelDim3 grid = launch.getGridSizeOperandValues();
  gpu::KernelDim3 block = launch.getBlockSizeOperandValues();
  Value dims[6] = {grid.x, grid.y, grid.z, block.x, block.y, block.z};
  for (int i = 0; i < 6; ++i) {
    FailureOr<int64_t> n = b.node(dims[i]);
    if (failed(n))
      return failure();
    (i < 3 ? l.grid[i] : l.block[i - 3]) = *n;
  }
  if (Value shared = launch.getDynamicSharedMemorySize()) {
    FailureOr<int64_t> n = b.node(shared);
    if (failed(n))
      return failure();
    l.sharedBytes = *n;
  }
  auto align = launch->getAttrOfType<IntegerAttr>(
      tgc_gpu::TgcGpuDialect::kVectorAlignAttrName);
  auto access = launch->getAttrOfType<DenseI32ArrayAttr>(
      tgc_gpu::TgcGpuDialect::kOperandAccessAttrName);
  for (auto [index, v] : llvm::enumerate(launch.getKernelOperands())) {
    rt::KernelParam p;
    if (access && index < static_cast<size_t>(access.size()))
      p.access = static_cast<uint8_t>(access[index]);
    if (isa<MemRefType>(v.getType())) {
      FailureOr<Layout> layout = b.layout(v);
      if (failed(layout))
        return failure();
      // Vector accesses need aligned argument buffers (results and the
      // arena are allocated aligned): a guard, as Inductor's alignment
      // guards.
      const rt::PlanBuffer &buffer = b.plan.buffers[layout->buffer];
      if (align && buffer.kind == rt::BufferKind::Arg) {
        int32_t arg = static_cast<int32_t>(buffer.index);
        bool present = llvm::any_of(b.plan.guards, [&](const rt::PlanGuard &g) {
          return g.kind == rt::GuardKind::Aligned && g.arg == arg &&
                 g.value >= align.getInt();
        });
        if (!present) {
          rt::PlanGuard g;
          g.kind = rt::GuardKind::Aligned;
          g.arg = arg;
          g.value = align.getInt();
          g.text = "arg" + std::to_string(arg) + " aligned to " +
                   std::to_string(align.getInt()) + " bytes";
          g.reason = "kernel " + name.str() + " reads and writes arg " +
                     std::to_string(arg) + " with " +
                     std::to_string(align.getInt()) + "-byte vector accesses";
          b.plan.guards.push_back(g);
        }
      }
      p.kind = rt::KernelParam::Buffer;
      p.id = layout->buffer;
      // Reports count the bytes a launch moves (i1 is stored as a byte).
      Type element = cast<MemRefType>(v.getType()).getElementType();
      if (element.isIntOrFloat())
        p.elementBytes =
            static_cast<int32_t>((element.getIntOrFloatBitWidth() + 7) / 8);
      p.rank = static_cast<int32_t>(layout->sizes.size());
      p.offset = layout->offset;
      p.sizes.assign(layout->sizes.begin(), layout->sizes.end());
      p.strides.assign(layout->strides.begin(), layout->strides.end());
    } else {
      FailureOr<int64_t> n = b.node(v);
      if (failed(n))
        return failure();
      p.kind = rt::KernelParam::Int;
      p.id = *n;
    }
    l.params.push_back(p);
  }
  rt::PlanStep step;
  step.kind = rt::PlanStep::Launch;
  step.launch = l;
  b.plan.steps.push_back(step);
  return success();
}

} // namespace

FailureOr<rt::Plan> mlir::tgc::buildLaunchPlan(ModuleOp module,
                                               func::FuncOp func) {
  PlanBuilder b(func);
  b.plan.function = func.getSymName().str();
  for (Type t : func.getArgumentTypes()) {
    auto m = dyn_cast<MemRefType>(t);
    std::optional<int32_t> dt = m ? dtypeOf(m.getElementType()) : std::nullopt;
    if (!dt)
      return func.emitOpError() << "has an argument the GPU runtime cannot "
                                   "pass: "
                                << t;
    b.plan.args.push_back({*dt, static_cast<int32_t>(m.getRank()), {}});
  }
  auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
  for (auto [i, v] : llvm::enumerate(ret.getOperands())) {
    // A reshaped view of a fresh buffer (keepdim results) is that buffer.
    Value base = resultBase(v);
    auto alloc = base.getDefiningOp<memref::AllocOp>();
    if (!alloc || b.resultOf.count(base))
      return ret.emitOpError()
             << "returns a value that is not a fresh buffer (result " << i
             << "); the GPU path needs one allocation per result";
    b.resultOf[base] = static_cast<int64_t>(i);
  }
  // The arena: the one alloc only memref.view ops read.
  func.walk([&](memref::AllocOp alloc) {
    if (!b.resultOf.count(alloc) && !alloc->use_empty() &&
        llvm::all_of(alloc->getUsers(),
                     [](Operation *u) { return isa<memref::ViewOp>(u); }))
      b.arena = alloc;
  });
  if (failed(addGuards(b, module, func)))
    return failure();
  // The planned arena's size first: buffers the planner left out go after
  // it (extraArenaEnd).
  if (b.arena) {
    auto alloc = b.arena.getDefiningOp<memref::AllocOp>();
    FailureOr<SmallVector<int64_t>> bytes =
        b.mixedSizes(alloc.getType().getShape(), alloc.getDynamicSizes());
    if (failed(bytes))
      return failure();
    b.plan.arenaBytes = bytes->front();
  }
  for (auto [i, v] : llvm::enumerate(ret.getOperands())) {
    auto type = cast<MemRefType>(v.getType());
    FailureOr<Layout> l = b.layout(v);
    if (failed(l))
      return failure();
    b.plan.results.push_back(
        {*dtypeOf(type.getElementType()), static_cast<int32_t>(type.getRank()),
         std::vector<int64_t>(l->sizes.begin(), l->sizes.end())});
  }
  for (Operation &op : func.getBody().front()) {
    if (auto launch = dyn_cast<gpu::LaunchFuncOp>(op)) {
      if (failed(addLaunch(b, launch)))
        return failure();
    } else if (auto check = dyn_cast<cf::AssertOp>(op)) {
      if (failed(addAssert(b, check)))
        return failure();
    } else if (auto generic = dyn_cast<linalg::GenericOp>(op)) {
      if (auto conv = generic->getAttrOfType<tgc_gpu::ConvAttr>(
              tgc_gpu::TgcGpuDialect::kConvAttrName)) {
        if (failed(addConv(b, generic, conv)))
          return failure();
        continue;
      }
      // A GEMM with an epilogue is issued at its epilogue op, whose output
      // it writes (only host ops, such as that output's allocation, lie
      // between them).
      auto isFusedGemm = [](Operation *g) {
        auto attr = g->getAttrOfType<tgc_gpu::GemmAttr>(
            tgc_gpu::TgcGpuDialect::kGemmAttrName);
        return attr && attr.getEpilogue() != tgc_gpu::GemmEpilogue::unfused;
      };
      if (isFusedGemm(generic))
        continue;
      linalg::GenericOp gemm = generic, epilogue;
      if (generic->hasAttr(tgc_gpu::TgcGpuDialect::kGemmEpilogueOfAttrName)) {
        epilogue = generic;
        gemm = nullptr;
        for (Operation *prev = op.getPrevNode(); prev && !gemm;
             prev = prev->getPrevNode())
          if (auto g = dyn_cast<linalg::GenericOp>(prev))
            gemm = isFusedGemm(g) ? g : nullptr;
        if (!gemm)
          return op.emitOpError() << "is tagged as a GEMM epilogue without "
                                     "its GEMM before it";
      }
      if (!gemm->hasAttr(tgc_gpu::TgcGpuDialect::kGemmAttrName))
        return op.emitOpError() << "is left on the host";
      if (failed(addGemm(b, gemm, epilogue)))
        return failure();
    }
  }
  if (b.extraEnd >= 0)
    b.plan.arenaBytes = b.extraEnd;
  return b.plan;
}
