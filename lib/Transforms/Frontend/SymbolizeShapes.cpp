//===- SymbolizeShapes.cpp - symbols or specializations for input sizes ---===//

#include "tgc/Transforms/Passes.h"

#include "tgc/Dialect/TgcSym/IR/TgcSymOps.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringExtras.h"

#include <map>

namespace mlir::tgc {
#define GEN_PASS_DEF_TGCSYMBOLIZESHAPES
#include "tgc/Transforms/Frontend/Passes.h.inc"
} // namespace mlir::tgc

using namespace mlir;
using namespace mlir::tgc;

namespace {
enum class Policy { Static, Dynamic, Auto };

std::optional<Policy> parsePolicy(StringRef s) {
  if (s == "static")
    return Policy::Static;
  if (s == "dynamic")
    return Policy::Dynamic;
  if (s == "auto")
    return Policy::Auto;
  return std::nullopt;
}

/// Parses `ARG=D0xD1x...` entries of the example-shapes option.
LogicalResult parseExamples(Operation *op, ArrayRef<std::string> entries,
                            std::map<int64_t, SmallVector<int64_t>> &out) {
  for (const std::string &entry : entries) {
    auto [argText, dimsText] = StringRef(entry).split('=');
    int64_t arg;
    if (argText.trim().getAsInteger(10, arg) || arg < 0)
      return op->emitError("example-shapes: bad entry '")
             << entry << "' (expected ARG=D0xD1x..., e.g. 0=7x64)";
    SmallVector<int64_t> dims;
    if (!dimsText.trim().empty()) {
      SmallVector<StringRef> parts;
      dimsText.trim().split(parts, 'x');
      for (StringRef p : parts) {
        int64_t d;
        if (p.trim().getAsInteger(10, d) || d < 0)
          return op->emitError("example-shapes: bad size '")
                 << p << "' in '" << entry << "'";
        dims.push_back(d);
      }
    }
    out[arg] = dims;
  }
  return success();
}

SmallVector<int64_t> dimsAttr(func::FuncOp func, unsigned arg,
                              StringRef name) {
  if (auto attr = func.getArgAttrOfType<DenseI64ArrayAttr>(arg, name))
    return SmallVector<int64_t>(attr.asArrayRef());
  return {};
}

struct TgcSymbolizeShapesPass
    : tgc::impl::TgcSymbolizeShapesBase<TgcSymbolizeShapesPass> {
  using TgcSymbolizeShapesBase::TgcSymbolizeShapesBase;

  /// A bad default-policy in a textual pipeline fails when the pipeline is
  /// parsed, in one line, not when the pass runs (C++ callers that set the
  /// option directly still get the error below).
  LogicalResult initializeOptions(
      StringRef options,
      function_ref<LogicalResult(const Twine &)> errorHandler) override {
    if (failed(
            TgcSymbolizeShapesBase::initializeOptions(options, errorHandler)))
      return failure();
    if (!parsePolicy(defaultPolicy))
      return errorHandler("tgc-symbolize-shapes: default-policy '" +
                          defaultPolicy + "' is not static, dynamic or auto");
    return success();
  }

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    std::optional<Policy> policy = parsePolicy(defaultPolicy);
    if (!policy) {
      func.emitError("tgc-symbolize-shapes: unknown default-policy '")
          << defaultPolicy << "' (expected static, dynamic or auto)";
      return signalPassFailure();
    }
    std::map<int64_t, SmallVector<int64_t>> examples;
    if (failed(parseExamples(func, exampleShapes, examples)))
      return signalPassFailure();

    Block &entry = func.front();
    // Already symbolized (a bind on an argument): nothing to do.
    for (Operation &op : entry)
      if (auto bind = dyn_cast<sym::BindOp>(op))
        if (isa<BlockArgument>(bind.getTensor()))
          return;

    MLIRContext *ctx = &getContext();
    OpBuilder builder = OpBuilder::atBlockBegin(&entry);
    Location loc = func.getLoc();
    std::map<int64_t, Value> duck; // example size -> symbol
    unsigned nextSymbol = 0;

    for (BlockArgument arg : entry.getArguments()) {
      auto type = dyn_cast<RankedTensorType>(arg.getType());
      if (!type)
        continue;
      unsigned argNo = arg.getArgNumber();
      int64_t rank = type.getRank();

      std::optional<SmallVector<int64_t>> example;
      if (auto it = examples.find(argNo); it != examples.end())
        example = it->second;
      else if (auto attr = func.getArgAttrOfType<DenseI64ArrayAttr>(
                   argNo, "tgc.example_shape"))
        example = SmallVector<int64_t>(attr.asArrayRef());
      if (example) {
        if (static_cast<int64_t>(example->size()) != rank) {
          func.emitError("example shape of argument ")
              << argNo << " has " << example->size()
              << " sizes but the argument has rank " << rank;
          return signalPassFailure();
        }
        for (int64_t d = 0; d < rank; ++d)
          if (!type.isDynamicDim(d) && type.getDimSize(d) != (*example)[d]) {
            func.emitError("example size ")
                << (*example)[d] << " of argument " << argNo << " dim " << d
                << " contradicts its static size " << type.getDimSize(d);
            return signalPassFailure();
          }
      }
      SmallVector<int64_t> staticDims =
          dimsAttr(func, argNo, "tgc.static_dims");
      SmallVector<int64_t> dynamicDims =
          dimsAttr(func, argNo, "tgc.dynamic_dims");
      SmallVector<int64_t> changedDims =
          dimsAttr(func, argNo, "tgc.changed_dims");
      for (ArrayRef<int64_t> list : {ArrayRef<int64_t>(staticDims),
                                     ArrayRef<int64_t>(dynamicDims),
                                     ArrayRef<int64_t>(changedDims)})
        for (int64_t d : list)
          if (d < 0 || d >= rank) {
            func.emitError("dimension ")
                << d << " in the attributes of argument " << argNo
                << " is out of range for rank " << rank;
            return signalPassFailure();
          }

      SmallVector<Value> operands;
      SmallVector<AffineExpr> exprs;
      SmallVector<Attribute> reasons;
      bool anyReason = false;
      auto symbolFor = [&](Value v) {
        auto it = llvm::find(operands, v);
        if (it == operands.end()) {
          operands.push_back(v);
          return getAffineSymbolExpr(operands.size() - 1, ctx);
        }
        return getAffineSymbolExpr(it - operands.begin(), ctx);
      };
      for (int64_t d = 0; d < rank; ++d) {
        std::string reason;
        if (!type.isDynamicDim(d)) {
          exprs.push_back(getAffineConstantExpr(type.getDimSize(d), ctx));
          reasons.push_back(builder.getStringAttr(""));
          continue;
        }
        Policy p = *policy;
        if (llvm::is_contained(staticDims, d))
          p = Policy::Static;
        else if (llvm::is_contained(dynamicDims, d))
          p = Policy::Dynamic;
        else if (p == Policy::Auto)
          p = llvm::is_contained(changedDims, d) ? Policy::Dynamic
                                                 : Policy::Static;
        std::optional<int64_t> ex =
            example ? std::optional((*example)[d]) : std::nullopt;
        if (p == Policy::Static) {
          if (!ex) {
            func.emitError("argument ")
                << argNo << " dim " << d
                << " is specialized (policy static) but has no example "
                   "size: give one with tgc.example_shape or example-shapes";
            return signalPassFailure();
          }
          exprs.push_back(getAffineConstantExpr(*ex, ctx));
          reason = "specialized to the example size " + std::to_string(*ex) +
                   (*policy == Policy::Auto
                        ? " (policy auto: static until the size changes)"
                        : " (policy static)");
        } else if (specializeZeroOne && ex && (*ex == 0 || *ex == 1)) {
          exprs.push_back(getAffineConstantExpr(*ex, ctx));
          reason = "0/1 specialization: the example size is " +
                   std::to_string(*ex) +
                   ", and sizes 0 and 1 get their own compilation";
        } else if (duckSizing && ex && duck.count(*ex)) {
          exprs.push_back(symbolFor(duck[*ex]));
        } else {
          std::string name = "s" + std::to_string(nextSymbol++);
          auto s = sym::SymbolOp::create(
              builder, loc, sym::SizeType::get(ctx), name,
              specializeZeroOne ? 2 : 0, IntegerAttr(),
              ex ? builder.getI64IntegerAttr(*ex) : IntegerAttr(),
              builder.getI64IntegerAttr(argNo), builder.getI64IntegerAttr(d));
          if (duckSizing && ex)
            duck[*ex] = s;
          exprs.push_back(symbolFor(s));
        }
        anyReason |= !reason.empty();
        reasons.push_back(builder.getStringAttr(reason));
      }
      // Binds go after every symbol (symbols are created at the block start
      // as they are needed, binds after them).
      OpBuilder::InsertionGuard guard(builder);
      builder.setInsertionPoint(&entry, entry.begin());
      for (Operation &op : entry)
        if (isa<sym::SymbolOp, sym::BindOp>(op))
          builder.setInsertionPointAfter(&op);
      auto bind = sym::BindOp::create(
          builder, loc, arg, operands,
          AffineMap::get(0, operands.size(), exprs, ctx));
      if (anyReason)
        bind->setAttr("tgc.reasons", builder.getArrayAttr(reasons));
    }
  }
};
} // namespace
