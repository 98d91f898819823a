//===- GpuCompiler.cpp - compile a tgc function for a CUDA GPU ------------===//
//
// tgc-gpu-pipeline, then the launch plan: the host function's index
// arithmetic becomes plan expressions over argument sizes, its memrefs
// become buffers (arguments, results, views of the arena) with offsets,
// sizes and strides, its gpu.launch_func ops become launches with MLIR's
// memref-descriptor parameters and its tagged contractions cuBLASLt GEMMs.
// The guard set becomes declarative plan guards.
//
//===----------------------------------------------------------------------===//

#include "tgc/Compiler/GpuCompiler.h"
#include "tgc/Transforms/Passes.h"

#include "tgc/Compiler/CompilerUtils.h"

#include "tgc/Analysis/ShapeEnv.h"
#include "tgc/Analysis/SymbolicIR.h"
#include "tgc/Dialect/TgcGuard/IR/TgcGuardOps.h"
#include "tgc/Dialect/TgcSym/IR/TgcSymOps.h"
#include "tgc/Pipelines/Pipelines.h"
#include "tgc/Reference/HostTensor.h"
#include "tgc/Target/NVPTX/NVPTXTarget.h"
#include "tgc/Transforms/GuardUtils.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Pass/PassManager.h"

#include <chrono>

using namespace mlir;
using namespace mlir::tgc;
namespace rt = ::tgc::runtime;

namespace {

/// The runtime's dtype of an element type (the reference interpreter's
/// DType, whose values are tgc_dtype's).
std::optional<int32_t> dtypeOf(Type t) {
  if (std::optional<ref::DType> d = ref::dtypeOf(t))
    return static_cast<int32_t>(*d);
  return std::nullopt;
}

/// Where a memref's elements are: a plan buffer (base pointer) plus an
/// element offset, sizes and strides (plan nodes).
struct Layout {
  int64_t buffer = -1;
  int64_t offset = -1;
  SmallVector<int64_t> sizes, strides;
};

class PlanBuilder {
public:
  PlanBuilder(func::FuncOp func) : func(func) {}

  rt::Plan plan;

  int64_t constant(int64_t c) {
    auto it = constants.find(c);
    if (it != constants.end())
      return it->second;
    return constants[c] = add({rt::ExprKind::Const, c, 0});
  }

  int64_t add(rt::PlanExpr e) {
    plan.exprs.push_back(e);
    return static_cast<int64_t>(plan.exprs.size()) - 1;
  }

  int64_t binary(rt::ExprKind kind, int64_t a, int64_t b) {
    return add({kind, a, b});
  }

  int64_t argDim(int64_t arg, int64_t dim) {
    auto key = std::make_pair(arg, dim);
    auto it = argDims.find(key);
    if (it != argDims.end())
      return it->second;
    return argDims[key] = add({rt::ExprKind::ArgDim, arg, dim});
  }

  FailureOr<int64_t> expr(AffineExpr e, ArrayRef<int64_t> dims,
                          ArrayRef<int64_t> syms, Operation *where) {
    if (auto c = dyn_cast<AffineConstantExpr>(e))
      return constant(c.getValue());
    if (auto d = dyn_cast<AffineDimExpr>(e))
      return dims[d.getPosition()];
    if (auto s = dyn_cast<AffineSymbolExpr>(e))
      return syms[s.getPosition()];
    auto bin = cast<AffineBinaryOpExpr>(e);
    FailureOr<int64_t> l = expr(bin.getLHS(), dims, syms, where);
    FailureOr<int64_t> r = expr(bin.getRHS(), dims, syms, where);
    if (failed(l) || failed(r))
      return failure();
    switch (e.getKind()) {
    case AffineExprKind::Add:
      return binary(rt::ExprKind::Add, *l, *r);
    case AffineExprKind::Mul:
      return binary(rt::ExprKind::Mul, *l, *r);
    case AffineExprKind::FloorDiv:
      return binary(rt::ExprKind::FloorDiv, *l, *r);
    case AffineExprKind::CeilDiv:
      return binary(rt::ExprKind::CeilDiv, *l, *r);
    case AffineExprKind::Mod:
      return binary(rt::ExprKind::Mod, *l, *r);
    default:
    {
      std::string text;
      llvm::raw_string_ostream os(text);
      e.print(os);
      return where->emitOpError() << "has an expression the launch plan "
                                     "cannot express: "
                                  << text;
    }
    }
  }

  /// The plan node of a host index value.
  FailureOr<int64_t> node(Value v) {
    auto it = nodes.find(v);
    if (it != nodes.end())
      return it->second;
    FailureOr<int64_t> n = computeNode(v);
    if (succeeded(n))
      nodes[v] = *n;
    return n;
  }

  FailureOr<Layout> layout(Value v) {
    auto it = layouts.find(v);
    if (it != layouts.end())
      return it->second;
    FailureOr<Layout> l = computeLayout(v);
    if (succeeded(l))
      layouts[v] = *l;
    return l;
  }

  /// Device-side checks added so far (flag buffer, message).
  std::set<std::pair<void *, std::string>> checked;

  int64_t addBuffer(rt::PlanBuffer b) {
    plan.buffers.push_back(b);
    return static_cast<int64_t>(plan.buffers.size()) - 1;
  }

  /// A buffer whose pointer is where the layout's offset points (for
  /// GEMMs, which take plain pointers).
  int64_t pointerOf(const Layout &l, Type element) {
    if (matchConstant(l.offset, 0))
      return l.buffer;
    int64_t bytes = binary(rt::ExprKind::Mul, l.offset,
                           constant(int64_t(ref::elementBytes(*ref::dtypeOf(element)))));
    return addBuffer({rt::BufferKind::View, l.buffer, bytes});
  }

  bool matchConstant(int64_t n, int64_t c) {
    return n >= 0 && plan.exprs[n].kind == rt::ExprKind::Const &&
           plan.exprs[n].a == c;
  }

  /// Row-major strides of `sizes`.
  SmallVector<int64_t> rowMajor(ArrayRef<int64_t> sizes) {
    SmallVector<int64_t> strides(sizes.size());
    int64_t s = constant(1);
    for (int64_t i = static_cast<int64_t>(sizes.size()) - 1; i >= 0; --i) {
      strides[i] = s;
      if (i > 0)
        s = matchConstant(s, 1) ? sizes[i]
                                : binary(rt::ExprKind::Mul, s, sizes[i]);
    }
    return strides;
  }

  FailureOr<SmallVector<int64_t>> mixedSizes(ArrayRef<int64_t> shape,
                                             ValueRange dynamic) {
    SmallVector<int64_t> sizes;
    auto it = dynamic.begin();
    for (int64_t d : shape) {
      if (!ShapedType::isDynamic(d)) {
        sizes.push_back(constant(d));
        continue;
      }
      FailureOr<int64_t> n = node(*it++);
      if (failed(n))
        return failure();
      sizes.push_back(*n);
    }
    return sizes;
  }

  FailureOr<SmallVector<int64_t>> mixed(ArrayRef<OpFoldResult> values) {
    SmallVector<int64_t> out;
    for (OpFoldResult v : values) {
      if (auto a = dyn_cast<Attribute>(v)) {
        out.push_back(constant(cast<IntegerAttr>(a).getInt()));
        continue;
      }
      FailureOr<int64_t> n = node(cast<Value>(v));
      if (failed(n))
        return failure();
      out.push_back(*n);
    }
    return out;
  }

  /// The result index of each returned alloc.
  DenseMap<Value, int64_t> resultOf;
  Value arena;
  /// The end of the regions after the planned arena (node; -1: none yet).
  int64_t extraEnd = -1;

  /// `n` rounded up to a multiple of 64.
  int64_t alignTo64(int64_t n) {
    int64_t c64 = constant(64);
    return binary(rt::ExprKind::Mul, binary(rt::ExprKind::CeilDiv, n, c64),
                  c64);
  }

  /// Where the next region after the planned arena starts.
  int64_t extraArenaEnd() {
    if (extraEnd >= 0)
      return extraEnd;
    return plan.arenaBytes >= 0 ? alignTo64(plan.arenaBytes) : constant(0);
  }

private:
  func::FuncOp func;
  DenseMap<Value, int64_t> nodes;
  DenseMap<Value, Layout> layouts;
  std::map<int64_t, int64_t> constants;
  std::map<std::pair<int64_t, int64_t>, int64_t> argDims;

  /// The value stored at position `at` of a reshape's shape buffer (a
  /// host alloc that tgc-gpu-form-kernels checked only receives stores at
  /// constant positions), or null.
  static Value storedSize(Value shape, int64_t at) {
    Value found;
    for (Operation *user : shape.getUsers())
      if (auto store = dyn_cast<memref::StoreOp>(user))
        if (store.getMemRef() == shape &&
            getConstantIntValue(store.getIndices().front()) == at) {
          if (found)
            return Value(); // stored twice: ambiguous
          found = store.getValueToStore();
        }
    return found;
  }

  FailureOr<int64_t> computeNode(Value v) {
    if (auto arg = dyn_cast<BlockArgument>(v))
      return emitError(v.getLoc()) << "the launch plan cannot read a block "
                                      "argument as a size";
    Operation *op = v.getDefiningOp();
    if (std::optional<int64_t> c = getConstantIntValue(v))
      return constant(*c);
    auto two = [&](rt::ExprKind kind) -> FailureOr<int64_t> {
      FailureOr<int64_t> a = node(op->getOperand(0));
      FailureOr<int64_t> b = node(op->getOperand(1));
      if (failed(a) || failed(b))
        return failure();
      return binary(kind, *a, *b);
    };
    if (auto dim = dyn_cast<memref::DimOp>(op)) {
      std::optional<int64_t> index = dim.getConstantIndex();
      if (!index)
        return op->emitOpError() << "reads a dim the plan does not know";
      FailureOr<Layout> l = layout(dim.getSource());
      if (failed(l))
        return failure();
      return l->sizes[*index];
    }
    if (auto load = dyn_cast<memref::LoadOp>(op)) {
      // A size read back from a reshape's shape buffer: the stored value.
      std::optional<int64_t> at =
          load.getIndices().size() == 1
              ? getConstantIntValue(load.getIndices().front())
              : std::nullopt;
      if (Value v = at ? storedSize(load.getMemRef(), *at) : Value())
        return node(v);
      return op->emitOpError() << "reads device memory on the host; not "
                                  "supported on the GPU";
    }
    if (isa<arith::AddIOp>(op))
      return two(rt::ExprKind::Add);
    if (isa<arith::SubIOp>(op))
      return two(rt::ExprKind::Sub);
    if (isa<arith::MulIOp>(op))
      return two(rt::ExprKind::Mul);
    // Sizes are non-negative: truncating and flooring division agree.
    if (isa<arith::DivSIOp, arith::DivUIOp, arith::FloorDivSIOp>(op))
      return two(rt::ExprKind::FloorDiv);
    if (isa<arith::CeilDivSIOp, arith::CeilDivUIOp>(op))
      return two(rt::ExprKind::CeilDiv);
    if (isa<arith::RemSIOp, arith::RemUIOp>(op))
      return two(rt::ExprKind::Mod);
    if (isa<arith::MaxSIOp, arith::MaxUIOp>(op))
      return two(rt::ExprKind::Max);
    if (isa<arith::MinSIOp, arith::MinUIOp>(op))
      return two(rt::ExprKind::Min);
    if (isa<arith::IndexCastOp, arith::IndexCastUIOp>(op))
      return node(op->getOperand(0));
    // A comparison of sizes as 0 or 1, and a choice between two sizes (a
    // ceil-mode pooling's output size) as `y + c * (x - y)`: the plan's
    // integer arithmetic has no comparison of its own.
    if (auto cmp = dyn_cast<arith::CmpIOp>(op)) {
      FailureOr<int64_t> a = node(cmp.getLhs());
      FailureOr<int64_t> b = node(cmp.getRhs());
      if (failed(a) || failed(b))
        return failure();
      int64_t zero = constant(0), one = constant(1);
      // 1 when `x - y + bias` is positive (x - y + bias >= 1), else 0.
      auto positive = [&](int64_t x, int64_t y, int64_t bias) {
        int64_t diff = binary(rt::ExprKind::Sub, x, y);
        if (bias)
          diff = binary(rt::ExprKind::Add, diff, constant(bias));
        return binary(rt::ExprKind::Min,
                      binary(rt::ExprKind::Max, diff, zero), one);
      };
      // Sizes are non-negative: unsigned and signed orders agree.
      switch (cmp.getPredicate()) {
      case arith::CmpIPredicate::sge:
      case arith::CmpIPredicate::uge:
        return positive(*a, *b, 1);
      case arith::CmpIPredicate::sgt:
      case arith::CmpIPredicate::ugt:
        return positive(*a, *b, 0);
      case arith::CmpIPredicate::sle:
      case arith::CmpIPredicate::ule:
        return positive(*b, *a, 1);
      case arith::CmpIPredicate::slt:
      case arith::CmpIPredicate::ult:
        return positive(*b, *a, 0);
      case arith::CmpIPredicate::eq:
      case arith::CmpIPredicate::ne: {
        int64_t eq = binary(rt::ExprKind::Mul, positive(*a, *b, 1),
                            positive(*b, *a, 1));
        return cmp.getPredicate() == arith::CmpIPredicate::eq
                   ? eq
                   : binary(rt::ExprKind::Sub, one, eq);
      }
      }
    }
    if (auto select = dyn_cast<arith::SelectOp>(op);
        select && select.getCondition().getType().isInteger(1)) {
      FailureOr<int64_t> c = node(select.getCondition());
      FailureOr<int64_t> x = node(select.getTrueValue());
      FailureOr<int64_t> y = node(select.getFalseValue());
      if (failed(c) || failed(x) || failed(y))
        return failure();
      return binary(rt::ExprKind::Add, *y,
                    binary(rt::ExprKind::Mul, *c,
                           binary(rt::ExprKind::Sub, *x, *y)));
    }
    if (auto apply = dyn_cast<affine::AffineApplyOp>(op))
      return applyMap(op, apply.getAffineMap(), apply.getMapOperands(),
                      rt::ExprKind::Max);
    if (auto min = dyn_cast<affine::AffineMinOp>(op))
      return applyMap(op, min.getAffineMap(), min.getMapOperands(),
                      rt::ExprKind::Min);
    if (auto max = dyn_cast<affine::AffineMaxOp>(op))
      return applyMap(op, max.getAffineMap(), max.getMapOperands(),
                      rt::ExprKind::Max);
    return op->emitOpError() << "computes a size the launch plan cannot "
                                "express; not supported on the GPU yet";
  }

  /// A map's results combined with `combine` (one result: itself).
  FailureOr<int64_t> applyMap(Operation *op, AffineMap map,
                              ValueRange operands, rt::ExprKind combine) {
    SmallVector<int64_t> dims, syms;
    for (auto [i, v] : llvm::enumerate(operands)) {
      FailureOr<int64_t> n = node(v);
      if (failed(n))
        return failure();
      (i < map.getNumDims() ? dims : syms).push_back(*n);
    }
    std::optional<int64_t> result;
    for (AffineExpr e : map.getResults()) {
      FailureOr<int64_t> n = expr(e, dims, syms, op);
      if (failed(n))
        return failure();
      result = result ? binary(combine, *result, *n) : *n;
    }
    if (!result)
      return op->emitOpError() << "has an empty map";
    return *result;
  }

  FailureOr<Layout> computeLayout(Value v) {
    auto type = cast<MemRefType>(v.getType());
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      if (arg.getOwner()->getParentOp() != func)
        return emitError(v.getLoc()) << "a buffer the plan does not know";
      Layout l;
      l.buffer = addBuffer({rt::BufferKind::Arg, arg.getArgNumber(), -1});
      l.offset = constant(0);
      for (auto [d, size] : llvm::enumerate(type.getShape()))
        l.sizes.push_back(ShapedType::isDynamic(size)
                              ? argDim(arg.getArgNumber(), d)
                              : constant(size));
      l.strides = rowMajor(l.sizes);
      return l;
    }
    Operation *op = v.getDefiningOp();
    if (auto get = dyn_cast<memref::GetGlobalOp>(op)) {
      // A dense constant: its data is a global of the kernel module.
      if (!type.hasStaticShape() || !type.getLayout().isIdentity())
        return op->emitOpError() << "reads a constant of type " << type
                                 << "; the launch plan needs a static "
                                    "row-major one";
      std::optional<ref::DType> dtype = ref::dtypeOf(type.getElementType());
      if (!dtype)
        return op->emitOpError()
               << "reads a constant of element type "
               << type.getElementType() << ", which the runtime has no "
               << "dtype for";
      std::string name = get.getName().str();
      int64_t index = 0;
      while (index < int64_t(plan.globals.size()) &&
             plan.globals[index].name != name)
        ++index;
      if (index == int64_t(plan.globals.size()))
        plan.globals.push_back(
            {name, std::max<int64_t>(type.getNumElements(), 1) *
                       int64_t(ref::elementBytes(*dtype))});
      Layout l;
      l.buffer = addBuffer({rt::BufferKind::Global, index, -1});
      l.offset = constant(0);
      for (int64_t size : type.getShape())
        l.sizes.push_back(constant(size));
      l.strides = rowMajor(l.sizes);
      return l;
    }
    if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
      if (v == arena) {
        Layout l;
        l.buffer = addBuffer({rt::BufferKind::Arena, 0, -1});
        l.offset = constant(0);
        return l;
      }
      Layout l;
      auto it = resultOf.find(v);
      if (it != resultOf.end())
        l.buffer = addBuffer({rt::BufferKind::Result, it->second, -1});
      l.offset = constant(0);
      FailureOr<SmallVector<int64_t>> sizes =
          mixedSizes(type.getShape(), alloc.getDynamicSizes());
      if (failed(sizes))
        return failure();
      l.sizes = *sizes;
      l.strides = rowMajor(l.sizes);
      if (it != resultOf.end())
        return l;
      // An intermediate the memory planner left out (one that a
      // memref.reshape reads, whose aliases it does not follow): a region
      // of its own after the planned arena, 64-byte aligned, never reused.
      std::optional<ref::DType> dtype = ref::dtypeOf(type.getElementType());
      if (!dtype)
        return op->emitOpError() << "allocates elements of type "
                                 << type.getElementType()
                                 << ", which the runtime has no dtype for";
      int64_t start = extraArenaEnd();
      int64_t bytes = constant(int64_t(ref::elementBytes(*dtype)));
      for (int64_t size : l.sizes)
        bytes = binary(rt::ExprKind::Mul, bytes, size);
      extraEnd = alignTo64(binary(rt::ExprKind::Add, start, bytes));
      l.buffer = addBuffer({rt::BufferKind::Arena, 0, start});
      return l;
    }
    if (auto view = dyn_cast<memref::ViewOp>(op)) {
      FailureOr<Layout> src = layout(view.getSource());
      FailureOr<int64_t> bytes = node(view.getByteShift());
      if (failed(src) || failed(bytes))
        return failure();
      Layout l;
      l.buffer = addBuffer({rt::BufferKind::View, src->buffer, *bytes});
      l.offset = constant(0);
      FailureOr<SmallVector<int64_t>> sizes =
          mixedSizes(type.getShape(), view.getSizes());
      if (failed(sizes))
        return failure();
      l.sizes = *sizes;
      l.strides = rowMajor(l.sizes);
      return l;
    }
    if (auto cast = dyn_cast<memref::CastOp>(op))
      return layout(cast.getSource());
    if (auto sub = dyn_cast<memref::SubViewOp>(op)) {
      FailureOr<Layout> src = layout(sub.getSource());
      FailureOr<SmallVector<int64_t>> offsets = mixed(sub.getMixedOffsets());
      FailureOr<SmallVector<int64_t>> sizes = mixed(sub.getMixedSizes());
      FailureOr<SmallVector<int64_t>> steps = mixed(sub.getMixedStrides());
      if (failed(src) || failed(offsets) || failed(sizes) || failed(steps))
        return failure();
      Layout l;
      l.buffer = src->buffer;
      l.offset = src->offset;
      llvm::SmallBitVector dropped = sub.getDroppedDims();
      for (size_t d = 0; d < src->sizes.size(); ++d) {
        int64_t shift = binary(rt::ExprKind::Mul, (*offsets)[d],
                               src->strides[d]);
        l.offset = binary(rt::ExprKind::Add, l.offset, shift);
        if (dropped.test(d))
          continue;
        l.sizes.push_back((*sizes)[d]);
        l.strides.push_back(
            binary(rt::ExprKind::Mul, src->strides[d], (*steps)[d]));
      }
      return l;
    }
    if (auto collapse = dyn_cast<memref::CollapseShapeOp>(op)) {
      FailureOr<Layout> src = layout(collapse.getSrc());
      if (failed(src))
        return failure();
      Layout l;
      l.buffer = src->buffer;
      l.offset = src->offset;
      for (ReassociationIndices group :
           collapse.getReassociationIndices()) {
        int64_t size = constant(1);
        for (int64_t d : group)
          size = binary(rt::ExprKind::Mul, size, src->sizes[d]);
        l.sizes.push_back(size);
        l.strides.push_back(group.empty() ? constant(1)
                                          : src->strides[group.back()]);
      }
      return l;
    }
    if (auto expand = dyn_cast<memref::ExpandShapeOp>(op)) {
      FailureOr<Layout> src = layout(expand.getSrc());
      FailureOr<SmallVector<int64_t>> sizes =
          mixed(expand.getMixedOutputShape());
      if (failed(src) || failed(sizes))
        return failure();
      Layout l;
      l.buffer = src->buffer;
      l.offset = src->offset;
      l.sizes = *sizes;
      l.strides.resize(sizes->size());
      for (auto [d, group] :
           llvm::enumerate(expand.getReassociationIndices())) {
        int64_t stride = src->strides[d];
        for (int64_t i = static_cast<int64_t>(group.size()) - 1; i >= 0;
             --i) {
          l.strides[group[i]] = stride;
          stride = binary(rt::ExprKind::Mul, stride, (*sizes)[group[i]]);
        }
      }
      return l;
    }
    if (auto reshape = dyn_cast<memref::ReshapeOp>(op)) {
      // A contiguous buffer read with the sizes the host stored into the
      // shape buffer (tgc-gpu-form-kernels checked that it only holds
      // stores at constant positions).
      auto srcType = cast<MemRefType>(reshape.getSource().getType());
      if (!srcType.getLayout().isIdentity())
        return op->emitOpError() << "reshapes a strided buffer; the launch "
                                    "plan needs a contiguous one";
      FailureOr<Layout> src = layout(reshape.getSource());
      if (failed(src))
        return failure();
      Layout l;
      l.buffer = src->buffer;
      l.offset = src->offset;
      for (auto [d, size] : llvm::enumerate(type.getShape())) {
        if (!ShapedType::isDynamic(size)) {
          l.sizes.push_back(constant(size));
          continue;
        }
        Value v = storedSize(reshape.getShape(), int64_t(d));
        if (!v)
          return op->emitOpError() << "has no size stored for dim " << d;
        FailureOr<int64_t> n = node(v);
        if (failed(n))
          return failure();
        l.sizes.push_back(*n);
      }
      l.strides = rowMajor(l.sizes);
      return l;
    }
    return op->emitOpError() << "makes a buffer the launch plan cannot "
                                "express";
  }
};

LogicalResult addGuards(PlanBuilder &b, ModuleOp module, func::FuncOp func) {
  guard::GuardSetOp set;
  for (auto s : module.getOps<guard::GuardSetOp>())
    if (s.getFunction() == func.getSymName())
      set = s;
  if (!set)
    return func.emitOpError() << "has no guard set; run the frontend first";
  ShapeEnv env(module.getContext());
  SymbolicIR ir(env);
  ir.addSymbolOps(*set.getBody(), /*actualSizes=*/true);
  SmallVector<int64_t> symbols;
  for (unsigned i = 0; i < env.getNumSymbols(); ++i) {
    const SymbolInfo &info = env.getSymbol(i);
    if (info.kind != SymbolKind::Input || !info.arg || !info.dim)
      symbols.push_back(-1); // min/max: expanded below
    else
      symbols.push_back(b.argDim(*info.arg, *info.dim));
    if (symbols.back() >= 0)
      b.plan.symbols.emplace_back(info.name, symbols.back());
  }
  for (unsigned i = 0; i < env.getNumSymbols(); ++i) {
    const SymbolInfo &info = env.getSymbol(i);
    if (symbols[i] >= 0)
      continue;
    if (info.kind == SymbolKind::Unbacked || info.operands.empty())
      return set.emitOpError() << "has a data-dependent size " << info.name
                               << "; GPU launch plans cannot guard it yet";
    std::optional<int64_t> r;
    for (AffineExpr e : info.operands) {
      FailureOr<int64_t> n = b.expr(e, {}, symbols, set);
      if (failed(n))
        return failure();
      r = r ? b.binary(info.kind == SymbolKind::Min ? rt::ExprKind::Min
                                                    : rt::ExprKind::Max,
                       *r, *n)
            : *n;
    }
    symbols[i] = *r;
  }
  for (Operation &op : *set.getBody()) {
    auto g = dyn_cast<guard::GuardOpInterface>(op);
    if (!g)
      continue;
    rt::PlanGuard pg;
    pg.text = g.describe();
    pg.reason = (g.getReason() + " at " + formatLocation(op.getLoc())).str();
    if (auto r = dyn_cast<guard::RankOp>(op)) {
      pg.kind = rt::GuardKind::Rank;
      pg.arg = r.getArg();
      pg.value = r.getRank();
    } else if (auto d = dyn_cast<guard::DtypeOp>(op)) {
      std::optional<int32_t> dt = dtypeOf(d.getDtype());
      if (!dt)
        return op.emitOpError() << "guards a dtype the runtime lacks";
      pg.kind = rt::GuardKind::Dtype;
      pg.arg = d.getArg();
      pg.value = *dt;
    } else if (auto d = dyn_cast<guard::DeviceOp>(op)) {
      pg.kind = rt::GuardKind::Device;
      pg.arg = d.getArg();
      pg.value = d.getDevice() == "cpu" ? TGC_DEVICE_CPU : TGC_DEVICE_CUDA;
    } else if (auto c = dyn_cast<guard::ContiguousOp>(op)) {
      pg.kind = rt::GuardKind::Contiguous;
      pg.arg = c.getArg();
    } else if (auto a = dyn_cast<guard::AlignedOp>(op)) {
      pg.kind = rt::GuardKind::Aligned;
      pg.arg = a.getArg();
      pg.value = a.getAlignment();
    } else if (auto n = dyn_cast<guard::NoAliasOp>(op)) {
      pg.kind = rt::GuardKind::NoAlias;
      pg.arg = n.getLhs();
      pg.value = n.getRhs();
    } else if (isa<guard::RangeOp, guard::RelationOp>(op)) {
      for (const SizeConstraint &c : constraintsOfGuard(&op, ir)) {
        FailureOr<int64_t> l = b.expr(c.lhs, {}, symbols, &op);
        FailureOr<int64_t> r = b.expr(c.rhs, {}, symbols, &op);
        if (failed(l) || failed(r))
          return failure();
        rt::PlanGuard one = pg;
        switch (c.kind) {
        case sym::ConstraintKind::eq:
          one.kind = rt::GuardKind::Equal;
          one.lhs = *l;
          one.rhs = *r;
          break;
        case sym::ConstraintKind::ge:
          one.kind = rt::GuardKind::Range;
          one.lhs = b.binary(rt::ExprKind::Sub, *l, *r);
          one.lo = 0;
          one.hi = -1;
          break;
        case sym::ConstraintKind::le:
          one.kind = rt::GuardKind::Range;
          one.lhs = b.binary(rt::ExprKind::Sub, *r, *l);
          one.lo = 0;
          one.hi = -1;
          break;
        case sym::ConstraintKind::divisible: {
          auto k = dyn_cast<AffineConstantExpr>(c.rhs);
          if (!k)
            return op.emitOpError()
                   << "divides by a symbolic size; not in GPU plans yet";
          one.kind = rt::GuardKind::Divisible;
          one.lhs = *l;
          one.value = k.getValue();
          break;
        }
        default:
          return op.emitOpError() << "is a broadcastable guard, which GPU "
                                     "launch plans cannot check yet";
        }
        b.plan.guards.push_back(one);
      }
      continue;
    } else {
      return op.emitOpError() << "is a guard GPU launch plans cannot check "
                                 "yet; not supported on the GPU yet";
    }
    b.plan.guards.push_back(pg);
  }
  return success();
}

/// A size check on the host (`cf.assert` of `size != 0` terms, as
/// reductions without identity emit, and `a == b` terms, as reshapes emit,
/// joined by `and`) as plan guards.
LogicalResult addAssert(PlanBuilder &b, cf::AssertOp op) {
  // `flag || size == 0`: the flag, checked for nonempty sizes only.
  Value flagValue = op.getArg();
  std::optional<int64_t> when;
  if (auto orOp = flagValue.getDefiningOp<arith::OrIOp>()) {
    for (auto [f, c] : {std::make_pair(orOp.getLhs(), orOp.getRhs()),
                        std::make_pair(orOp.getRhs(), orOp.getLhs())}) {
      auto cmp = c.getDefiningOp<arith::CmpIOp>();
      if (!f.getDefiningOp<memref::LoadOp>() || !cmp ||
          cmp.getPredicate() != arith::CmpIPredicate::eq ||
          getConstantIntValue(cmp.getRhs()) != 0)
        continue;
      FailureOr<int64_t> size = b.node(cmp.getLhs());
      if (failed(size))
        return failure();
      when = *size;
      flagValue = f;
      break;
    }
  }
  if (auto load = flagValue.getDefiningOp<memref::LoadOp>()) {
    // A flag the kernels computed (tgc-gpu-form-kernels left the load on
    // the host only for this): checked once the call has run.
    if (load.getMemRefType().getRank() != 0)
      return op.emitOpError() << "checks an element of a device buffer; "
                                 "only a scalar flag can be checked";
    // One check per flag and message (CSE shares a flag among asserts).
    if (!b.checked
             .insert({load.getMemRef().getAsOpaquePointer(), op.getMsg().str()})
             .second)
      return success();
    FailureOr<Layout> flag = b.layout(load.getMemRef());
    if (failed(flag))
      return failure();
    rt::PlanStep step;
    step.kind = rt::PlanStep::Check;
    step.check.flag = b.pointerOf(*flag, load.getMemRefType().getElementType());
    step.check.when = when.value_or(-1);
    step.check.message =
        (op.getMsg() + " at " + formatLocation(op.getLoc())).str();
    b.plan.steps.push_back(std::move(step));
    return success();
  }
  SmallVector<Value> worklist{op.getArg()};
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    if (auto a = v.getDefiningOp<arith::AndIOp>()) {
      worklist.push_back(a.getLhs());
      worklist.push_back(a.getRhs());
      continue;
    }
    auto cmp = v.getDefiningOp<arith::CmpIOp>();
    if (cmp && cmp.getPredicate() == arith::CmpIPredicate::eq) {
      // Two sizes that must agree (a reshape's element counts).
      FailureOr<int64_t> lhs = b.node(cmp.getLhs());
      FailureOr<int64_t> rhs = b.node(cmp.getRhs());
      if (failed(lhs) || failed(rhs))
        return failure();
      rt::PlanGuard g;
      g.kind = rt::GuardKind::Equal;
      g.lhs = *lhs;
      g.rhs = *rhs;
      g.text = "sizes agree";
      g.reason = (op.getMsg() + " at " + formatLocation(op.getLoc())).str();
      b.plan.guards.push_back(g);
      continue;
    }
    if (cmp && cmp.getPredicate() != arith::CmpIPredicate::eq &&
        cmp.getPredicate() != arith::CmpIPredicate::ne) {
      // An order between two sizes (a gather's index no larger than its
      // input): the difference's range.
      using P = arith::CmpIPredicate;
      P p = cmp.getPredicate();
      bool lessSide = p == P::sle || p == P::slt || p == P::ule || p == P::ult;
      bool strict = p == P::slt || p == P::sgt || p == P::ult || p == P::ugt;
      FailureOr<int64_t> lhs = b.node(cmp.getLhs());
      FailureOr<int64_t> rhs = b.node(cmp.getRhs());
      if (failed(lhs) || failed(rhs))
        return failure();
      rt::PlanGuard g;
      g.kind = rt::GuardKind::Range;
      g.lhs = lessSide ? b.binary(rt::ExprKind::Sub, *rhs, *lhs)
                       : b.binary(rt::ExprKind::Sub, *lhs, *rhs);
      g.lo = strict ? 1 : 0;
      g.hi = -1;
      g.text = "sizes in order";
      g.reason = (op.getMsg() + " at " + formatLocation(op.getLoc())).str();
      b.plan.guards.push_back(g);
      continue;
    }
    std::optional<int64_t> zero =
        cmp ? getConstantIntValue(cmp.getRhs()) : std::nullopt;
    if (!cmp || cmp.getPredicate() != arith::CmpIPredicate::ne || zero != 0)
      return op.emitOpError()
             << "checks a condition GPU launch plans cannot express";
    FailureOr<int64_t> size = b.node(cmp.getLhs());
    if (failed(size))
      return failure();
    rt::PlanGuard g;
    g.kind = rt::GuardKind::Range;
    g.lhs = *size;
    g.lo = 1;
    g.hi = -1;
    g.text = "size != 0";
    g.reason = (op.getMsg() + " at " + formatLocation(op.getLoc())).str();
    b.plan.guards.push_back(g);
  }
  return success();
}

/// One cuBLASLt call for the GEMM `op`; with `epilogue` (an op tagged
/// `tgc.gemm_epilogue_of`), the GEMM writes that op's output through the
/// cuBLASLt epilogue named by `op`'s `tgc.gemm_epilogue`.
LogicalResult addGemm(PlanBuilder &b, linalg::GenericOp op,
                      linalg::GenericOp epilogue) {
  // The loops of each role, as tgc-gpu-form-kernels matched them.
  auto roleLoops = [&](StringRef name) -> std::optional<SmallVector<unsigned>> {
    auto attr = op->getAttrOfType<DenseI64ArrayAttr>(name);
    if (!attr)
      return std::nullopt;
    return SmallVector<unsigned>(attr.asArrayRef().begin(),
                                 attr.asArrayRef().end());
  };
  std::optional<SmallVector<unsigned>> batchLoops =
      roleLoops("tgc.gemm_batch");
  std::optional<SmallVector<unsigned>> mLoops = roleLoops("tgc.gemm_m");
  std::optional<SmallVector<unsigned>> nLoops = roleLoops("tgc.gemm_n");
  std::optional<SmallVector<unsigned>> kLoops = roleLoops("tgc.gemm_k");
  if (!batchLoops || !mLoops || !nLoops || !kLoops || nLoops->size() != 1 ||
      kLoops->size() != 1)
    return op.emitOpError() << "is tagged as a GEMM without its loop roles";
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
  SmallVector<unsigned> m = *mLoops, batch = *batchLoops;
  rt::GemmStep g;
  g.m = product(m);
  g.n = product(*nLoops);
  g.k = product(*kLoops);
  g.batch = product(batch);
  g.transA = op->getAttrOfType<BoolAttr>("tgc.gemm_trans_a").getValue();
  g.transB = op->getAttrOfType<BoolAttr>("tgc.gemm_trans_b").getValue();
  Type ta = getElementTypeOrSelf(op.getDpsInputOperand(0)->get().getType());
  Type tc = getElementTypeOrSelf(op.getDpsInitOperand(0)->get().getType());
  Layout cLayout = layouts[2];
  if (epilogue) {
    auto kind = op->getAttrOfType<StringAttr>("tgc.gemm_epilogue");
    static const std::pair<StringRef, rt::GemmStep::Epilogue> kinds[] = {
        {"none", rt::GemmStep::None},          {"bias", rt::GemmStep::Bias},
        {"relu", rt::GemmStep::Relu},          {"bias_relu", rt::GemmStep::BiasRelu},
        {"gelu", rt::GemmStep::Gelu},          {"bias_gelu", rt::GemmStep::BiasGelu}};
    const auto *found = llvm::find_if(
        kinds, [&](const auto &k) { return kind && k.first == kind.getValue(); });
    if (found == std::end(kinds))
      return op.emitOpError() << "has an unknown GEMM epilogue";
    g.epilogue = found->second;
    Value out = epilogue.getDpsInitOperand(0)->get();
    FailureOr<Layout> l = b.layout(out);
    if (failed(l))
      return failure();
    cLayout = *l;
    tc = getElementTypeOrSelf(out.getType());
    Value c = op.getDpsInitOperand(0)->get();
    for (OpOperand *in : epilogue.getDpsInputOperands()) {
      if (in->get() == c)
        continue;
      FailureOr<Layout> bias = b.layout(in->get());
      if (failed(bias))
        return failure();
      g.bias = b.pointerOf(*bias, tc);
    }
    if ((g.bias >= 0) != (g.epilogue == rt::GemmStep::Bias ||
                          g.epilogue == rt::GemmStep::BiasRelu ||
                          g.epilogue == rt::GemmStep::BiasGelu))
      return epilogue.emitOpError() << "does not match its GEMM epilogue";
  }
  g.dtype = *dtypeOf(ta);
  g.cDtype = *dtypeOf(tc);
  g.a = b.pointerOf(layouts[0], ta);
  g.b = b.pointerOf(layouts[1], ta);
  g.c = b.pointerOf(cLayout, tc);
  auto hasBatch = [&](unsigned operand) {
    return !batch.empty() &&
           op.getMatchingIndexingMap(&op->getOpOperand(operand))
               .isFunctionOfDim(batch.front());
  };
  g.strideA = hasBatch(0) ? b.binary(rt::ExprKind::Mul, g.m, g.k)
                          : b.constant(0);
  g.strideB = hasBatch(1) ? b.binary(rt::ExprKind::Mul, g.k, g.n)
                          : b.constant(0);
  g.strideC = b.binary(rt::ExprKind::Mul, g.m, g.n);
  rt::PlanStep step;
  step.kind = rt::PlanStep::Gemm;
  step.gemm = g;
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
  auto align = launch->getAttrOfType<IntegerAttr>("tgc.vector_align");
  for (Value v : launch.getKernelOperands()) {
    rt::KernelParam p;
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
    FailureOr<SmallVector<int64_t>> bytes = b.mixedSizes(
        alloc.getType().getShape(), alloc.getDynamicSizes());
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
      // A GEMM with an epilogue is issued at its epilogue op, whose output
      // it writes (only host ops, such as that output's allocation, lie
      // between them).
      if (generic->hasAttr("tgc.gemm_epilogue"))
        continue;
      linalg::GenericOp gemm = generic, epilogue;
      if (generic->hasAttr("tgc.gemm_epilogue_of")) {
        epilogue = generic;
        gemm = nullptr;
        for (Operation *prev = op.getPrevNode(); prev && !gemm;
             prev = prev->getPrevNode())
          if (auto g = dyn_cast<linalg::GenericOp>(prev))
            gemm = g->hasAttr("tgc.gemm_epilogue") ? g : nullptr;
        if (!gemm)
          return op.emitOpError() << "is tagged as a GEMM epilogue without "
                                     "its GEMM before it";
      }
      if (!gemm->hasAttr("tgc.gemm"))
        return op.emitOpError() << "is left on the host";
      if (failed(addGemm(b, gemm, epilogue)))
        return failure();
    }
  }
  if (b.extraEnd >= 0)
    b.plan.arenaBytes = b.extraEnd;
  return b.plan;
}

FailureOr<GpuCompileResult>
mlir::tgc::compileGpuFunction(ModuleOp source, StringRef entry,
                              const GpuCompileOptions &options,
                              std::string &error) {
  auto start = std::chrono::steady_clock::now();
  MLIRContext *ctx = source.getContext();
  OwningOpRef<ModuleOp> module = cloneEntryModule(source, entry, error);
  if (!module)
    return failure();

  GpuPipelineOptions pipeline;
  setShapePolicyOptions(pipeline, options);
  pipeline.blockSize = options.blockSize;
  pipeline.vectorize = options.vectorize;
  pipeline.maxBlocks = options.maxBlocks;
  pipeline.rowBlockSize = options.rowBlockSize;
  pipeline.rowRegisters = options.rowRegisters;
  pipeline.gemmEpilogues = options.gemmEpilogues;
  pipeline.exactDivision = options.exactDivision;

  ErrorCollector diagnostics(ctx);
  PassManager pm(ctx);
  buildGpuPipeline(pm, pipeline);
  if (failed(pm.run(*module))) {
    error = "compilation failed:\n" + diagnostics.text;
    return failure();
  }
  auto func = module->lookupSymbol<func::FuncOp>(entry);
  FailureOr<rt::Plan> plan = buildLaunchPlan(*module, func);
  if (failed(plan)) {
    error = "launch plan failed:\n" + diagnostics.text;
    return failure();
  }
  GpuCompileResult result;
  result.artifact.plan = std::move(*plan);
  result.artifact.chip = options.chip;
  for (const rt::PlanStep &s : result.artifact.plan.steps) {
    if (s.kind == rt::PlanStep::Gemm)
      ++result.gemms;
    else if (s.kind == rt::PlanStep::Launch)
      ++result.kernels;
  }
  if (!result.artifact.plan.kernels.empty() ||
      !result.artifact.plan.globals.empty()) {
    auto gpuModule = module->lookupSymbol<gpu::GPUModuleOp>(
        (entry + "_kernels").str());
    if (!gpuModule) {
      error = "no kernel module for @" + entry.str();
      return failure();
    }
    DialectRegistry registry;
    registerNVPTXTranslationDialects(registry);
    ctx->appendDialectRegistry(registry);
    NVPTXOptions nvptx;
    nvptx.chip = options.chip;
    bool ptx = options.ptxOnly;
    if (!ptx) {
      llvm::Expected<std::string> ptxas = findPtxas();
      if (!ptxas) {
        llvm::consumeError(ptxas.takeError());
        ptx = true;
      }
    }
    FailureOr<std::string> code = ptx
                                      ? translateGPUModuleToPTX(gpuModule, nvptx)
                                      : translateGPUModuleToCubin(gpuModule,
                                                                  nvptx);
    if (failed(code)) {
      error = "kernel code generation failed:\n" + diagnostics.text;
      return failure();
    }
    result.artifact.module = std::move(*code);
    result.artifact.isPtx = ptx;
  }
  result.compileMs = std::chrono::duration<double, std::milli>(
                         std::chrono::steady_clock::now() - start)
                         .count();
  result.artifact.metadata = "compiler tgc; function " + entry.str() +
                             "; chip " + options.chip + "; compile_ms " +
                             std::to_string(result.compileMs);
  return result;
}
