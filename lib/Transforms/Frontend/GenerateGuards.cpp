//===- GenerateGuards.cpp - guard sets from shapes and constraints --------===//

#include "tgc/Transforms/Passes.h"

#include "tgc/Analysis/SymbolicIR.h"
#include "tgc/Dialect/Tgc/IR/TgcOps.h"
#include "tgc/Dialect/TgcGuard/IR/TgcGuardOps.h"
#include "tgc/Dialect/TgcSym/IR/TgcSymOps.h"
#include "tgc/Transforms/GuardUtils.h"

#include "mlir/IR/Builders.h"

#include <map>

namespace mlir::tgc {
#define GEN_PASS_DEF_TGCGENERATEGUARDS
#include "tgc/Transforms/Frontend/Passes.h.inc"
} // namespace mlir::tgc

using namespace mlir;
using namespace mlir::tgc;

namespace {

/// Out buffers times tensor arguments up to which each out buffer gets a
/// `no_alias` guard per other argument; past it, one `no_alias_outs`.
constexpr size_t kMaxNoAliasPairs = 64;

bool containsUnbacked(const ShapeEnv &env, AffineExpr e) {
  bool found = false;
  e.walk([&](AffineExpr sub) {
    auto s = dyn_cast<AffineSymbolExpr>(sub);
    if (!s)
      return;
    const SymbolInfo &info = env.getSymbol(s.getPosition());
    if (info.kind == SymbolKind::Unbacked)
      found = true;
    for (AffineExpr op : info.operands)
      found |= containsUnbacked(env, op);
  });
  return found;
}

struct TgcGenerateGuardsPass
    : tgc::impl::TgcGenerateGuardsBase<TgcGenerateGuardsPass> {
  using TgcGenerateGuardsBase::TgcGenerateGuardsBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (device != "cpu" && device != "cuda" &&
        !StringRef(device).starts_with("cuda:")) {
      module.emitError("tgc-generate-guards: unknown device '")
          << device << "' (expected cpu, cuda or cuda:N)";
      return signalPassFailure();
    }
    // Regenerate: drop existing guard sets.
    for (auto set :
         llvm::make_early_inc_range(module.getOps<guard::GuardSetOp>()))
      set.erase();
    SmallVector<func::FuncOp> funcs(module.getOps<func::FuncOp>());
    for (func::FuncOp func : funcs)
      if (!func.isExternal() && failed(generate(module, func)))
        return signalPassFailure();
  }

  LogicalResult generate(ModuleOp module, func::FuncOp func) {
    MLIRContext *ctx = &getContext();
    Block &entry = func.front();
    ShapeEnv env(ctx);
    SymbolicIR fnIR(env);
    fnIR.addSymbolOps(entry);

    OpBuilder builder(ctx);
    builder.setInsertionPointAfter(func);
    auto set = guard::GuardSetOp::create(builder, func.getLoc(),
                                         cast<FunctionOpInterface>(*func));
    Block *body = set.getBody();
    builder.setInsertionPointToStart(body);
    SymbolicIR setIR(env); // materializes symbols inside the guard set
    Location loc = func.getLoc();

    // Where the program writes into arguments.
    std::map<unsigned, Location> outBuffers;
    func.walk([&](WriteOutOp w) {
      if (auto arg = dyn_cast<BlockArgument>(w.getOut()))
        outBuffers.try_emplace(arg.getArgNumber(), w.getLoc());
    });

    // 1. Per tensor argument: rank, dtype, device, layout.
    for (BlockArgument arg : entry.getArguments()) {
      auto type = dyn_cast<RankedTensorType>(arg.getType());
      if (!type)
        continue;
      int64_t i = arg.getArgNumber();
      std::string what = "arg " + std::to_string(i);
      guard::RankOp::create(builder, loc, i, type.getRank(),
                            "compiled for a " +
                                std::to_string(type.getRank()) +
                                "-d tensor at " + what);
      // An i8 argument marked `tgc.unsigned` holds a uint8 tensor (its
      // storage; the function computes on it widened): the guard is ui8.
      Type dtype = type.getElementType();
      if (dtype.isSignlessInteger(8) &&
          func.getArgAttr(i, "tgc.unsigned"))
        dtype = IntegerType::get(ctx, 8, IntegerType::Unsigned);
      std::string typeText;
      llvm::raw_string_ostream(typeText) << dtype;
      guard::DtypeOp::create(builder, loc, i, dtype,
                             "compiled for " + typeText + " at " + what);
      guard::DeviceOp::create(builder, loc, i, device,
                              "compiled for device " + device);
      if (assumeContiguous)
        guard::ContiguousOp::create(
            builder, loc, i,
            "the compiled code indexes " + what +
                " as a dense row-major tensor");
    }

    // 2. Input sizes against their binds.
    for (Operation &op : entry) {
      auto bind = dyn_cast<sym::BindOp>(op);
      if (!bind)
        continue;
      auto arg = dyn_cast<BlockArgument>(bind.getTensor());
      if (!arg || arg.getOwner() != &entry)
        continue;
      int64_t i = arg.getArgNumber();
      auto reasons = bind->getAttrOfType<ArrayAttr>("tgc.reasons");
      SmallVector<AffineExpr> shape =
          fnIR.exprsOf(bind.getShape(), bind.getSizes());
      for (auto [d, e] : llvm::enumerate(shape)) {
        std::string reason;
        if (reasons && d < reasons.size())
          if (auto s = dyn_cast<StringAttr>(reasons[d]))
            reason = s.str();
        auto s = dyn_cast<AffineSymbolExpr>(e);
        if (s) {
          const SymbolInfo &info = env.getSymbol(s.getPosition());
          if (info.kind == SymbolKind::Input && info.arg == i &&
              info.dim == static_cast<int64_t>(d)) {
            // The symbol's own size: check its declared range.
            if (info.range.lower.value_or(0) > 0 || info.range.upper) {
              Value v = materializeOne(builder, setIR, loc, e);
              guard::RangeOp::create(
                  builder, loc, v, info.range.lower.value_or(0),
                  info.range.upper
                      ? builder.getI64IntegerAttr(*info.range.upper)
                      : IntegerAttr(),
                  info.name + " is the size of arg " + std::to_string(i) +
                      " dim " + std::to_string(d) + ", dynamic over " +
                      info.range.str() +
                      (info.range.lower == 2
                           ? " (0/1 specialization: sizes 0 and 1 get "
                             "their own compilation)"
                           : ""));
            }
            continue;
          }
        }
        // Read the actual size and compare it with the bound expression.
        SymbolInfo probeInfo;
        probeInfo.name = "arg" + std::to_string(i) + "_dim" +
                         std::to_string(d);
        probeInfo.kind = SymbolKind::Input;
        probeInfo.range = {0, std::nullopt};
        probeInfo.arg = i;
        probeInfo.dim = d;
        AffineExpr probe = env.addSymbol(probeInfo);
        Value probeValue = materializeOne(builder, setIR, loc, probe);
        if (std::optional<int64_t> c = env.getConstant(e)) {
          if (reason.empty())
            reason = "arg " + std::to_string(i) + " dim " +
                     std::to_string(d) + " is " + std::to_string(*c) +
                     " in the compiled signature";
          guard::RangeOp::create(builder, loc, probeValue, *c,
                                 builder.getI64IntegerAttr(*c), reason);
          continue;
        }
        if (containsUnbacked(env, e)) {
          emitWarning(loc) << "arg " << i << " dim " << d
                           << " is bound to a data-dependent size; it is "
                              "not guarded";
          continue;
        }
        if (reason.empty())
          reason = (s ? "duck sizing: arg " + std::to_string(i) + " dim " +
                            std::to_string(d) +
                            " had the same example size as " + env.str(e)
                      : "arg " + std::to_string(i) + " dim " +
                            std::to_string(d) + " must equal " + env.str(e));
        auto [operands, map] = setIR.materialize(builder, loc, {probe, e});
        guard::RelationOp::create(builder, loc, ConstraintKind::eq, operands,
                                  map, reason);
      }
    }

    // 3. The constraints the program's ops need.
    bool ok = true;
    func.walk([&](sym::ConstrainOp c) {
      SmallVector<AffineExpr> sides = fnIR.exprsOf(c.getMap(), c.getSizes());
      if (sides.size() != 2)
        return;
      if (containsUnbacked(env, sides[0]) || containsUnbacked(env, sides[1])) {
        c.emitWarning("constraint on a data-dependent size cannot be "
                      "checked before the call: ")
            << c.describe();
        return;
      }
      std::string reason = c.getReason().str() + " at " +
                           formatLocation(c.getLoc());
      createSizeGuard(builder, setIR, env, c.getLoc(), c.getKind(), sides[0],
                      sides[1], reason);
    });
    if (!ok)
      return failure();

    // 4. Out buffers must not overlap other tensor arguments: a guard per
    // pair where there are few (its message names both), else one guard
    // over all of them (a pair per out buffer and argument is quadratic:
    // an optimizer step over 148 parameters writes 444 of its 593
    // arguments).
    unsigned tensorArgs = llvm::count_if(entry.getArguments(), [](Value a) {
      return isa<RankedTensorType>(a.getType());
    });
    if (outBuffers.size() * tensorArgs > kMaxNoAliasPairs) {
      SmallVector<int64_t> outs;
      for (auto [o, writeLoc] : outBuffers)
        outs.push_back(o);
      guard::NoAliasOutsOp::create(
          builder, outBuffers.begin()->second, outs,
          std::to_string(outs.size()) +
              " arguments are out buffers (tgc.write_out, the first at " +
              formatLocation(outBuffers.begin()->second) +
              "): none may overlap another tensor argument");
      outBuffers.clear();
    }
    for (auto [o, writeLoc] : outBuffers) {
      for (BlockArgument arg : entry.getArguments()) {
        unsigned j = arg.getArgNumber();
        if (j == o || !isa<RankedTensorType>(arg.getType()))
          continue;
        if (outBuffers.count(j) && j < o)
          continue; // pair already guarded from j's side
        guard::NoAliasOp::create(
            builder, writeLoc, o, j,
            "arg " + std::to_string(o) +
                " is an out buffer (tgc.write_out at " +
                formatLocation(writeLoc) + "): it must not overlap arg " +
                std::to_string(j));
      }
    }
    (void)module;
    return success();
  }

  static Value materializeOne(OpBuilder &builder, SymbolicIR &ir,
                              Location loc, AffineExpr e) {
    auto [operands, map] = ir.materialize(builder, loc, {e});
    assert(operands.size() == 1 && "expected a lone symbol");
    return operands.front();
  }
};
} // namespace
