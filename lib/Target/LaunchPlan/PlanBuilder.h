//===- PlanBuilder.h - building a launch plan (private) ---------*- C++ -*-===//
//
// The state of building one host function's launch plan: plan nodes for
// index values (constants, argument sizes, arithmetic), buffers and their
// layouts, and the steps. Shared by LaunchPlan.cpp (launches, GEMMs, the
// entry point) and LaunchPlanGuards.cpp (the guard set and device checks).
//
//===----------------------------------------------------------------------===//

#ifndef TGC_LIB_TARGET_LAUNCHPLAN_PLANBUILDER_H
#define TGC_LIB_TARGET_LAUNCHPLAN_PLANBUILDER_H

#include "tgc/Target/LaunchPlan/LaunchPlan.h"

#include "tgc/Reference/HostTensor.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::tgc::plan_detail {
namespace rt = ::tgc::runtime;


/// The runtime's dtype of an element type (the reference interpreter's
/// DType, whose values are tgc_dtype's).
inline std::optional<int32_t> dtypeOf(Type t) {
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

  /// Position `at` of a reshape's shape when the shape is a constant
  /// global (`memref.get_global` of a `memref.global constant`: a reshape
  /// to sizes the frontend made static while the result type kept `?`,
  /// as in a Dynamo graph's view of a static specialization), or nullopt.
  static std::optional<int64_t> constantSize(Value shape, int64_t at) {
    auto get = shape.getDefiningOp<memref::GetGlobalOp>();
    if (!get)
      return std::nullopt;
    auto global = SymbolTable::lookupNearestSymbolFrom<memref::GlobalOp>(
        get, get.getNameAttr());
    if (!global || !global.getConstant())
      return std::nullopt;
    auto values =
        dyn_cast_or_null<DenseIntElementsAttr>(global.getConstantInitValue());
    if (!values || at < 0 || at >= values.getNumElements())
      return std::nullopt;
    return values.getValues<APInt>()[at].getSExtValue();
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
        if (std::optional<int64_t> c =
                constantSize(reshape.getShape(), int64_t(d))) {
          l.sizes.push_back(constant(*c));
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

/// The guard set of `func` as plan guards (LaunchPlanGuards.cpp).
LogicalResult addGuards(PlanBuilder &b, ModuleOp module, func::FuncOp func);

/// A host `cf.assert` on sizes as a plan guard, or on a device flag as a
/// device-side check (LaunchPlanGuards.cpp).
LogicalResult addAssert(PlanBuilder &b, cf::AssertOp op);

} // namespace mlir::tgc::plan_detail

#endif // TGC_LIB_TARGET_LAUNCHPLAN_PLANBUILDER_H
