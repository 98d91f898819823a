//===- VectorizeContractions.cpp - register-tiled matrix products ---------===//
//
// See the pass description in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "tgc/Transforms/Passes.h"

#include "LoopWork.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/ValueBoundsOpInterface.h"
#include "llvm/TargetParser/Host.h"

namespace mlir::tgc {
#define GEN_PASS_DEF_TGCVECTORIZECONTRACTIONS
#include "tgc/Transforms/CPU/Passes.h.inc"
} // namespace mlir::tgc

using namespace mlir;

namespace {

/// A `C += A * B` contraction over memrefs with one reduction loop `k`,
/// whose output's last dim `j` (and second-to-last `i`, if any) are loops;
/// or a window contraction (a direct convolution): reduction loops `ks`,
/// B read at sums of loops (`B[n, c, oh + kh, ow + kw]`), its last index
/// `j` plus reduction loops, and `i` the output's loop that A reads and B
/// does not (the output channel).
struct Contraction {
  linalg::GenericOp op;
  unsigned k = 0, j = 0;
  std::optional<unsigned> i;
  /// The reduction loops, outermost first (`{k}` for a matrix product).
  SmallVector<unsigned> ks;
  /// B's map has sums of loops (a window): tiles along j, no blocking.
  bool window = false;
  OpOperand *a = nullptr; // the operand that does not depend on j
  OpOperand *b = nullptr; // the operand that depends on j
  /// `B[.., k, j]`: vectors along `j` of B and C (a broadcast element of A).
  /// Otherwise `A[.., i, k]`, `B[.., j, k]`: vectors along `k` (a dot
  /// product of rows, which reassociates the sum).
  bool alongJ = true;
  /// A dot-product contraction (`B[.., j, k]`) tiled along j all the same:
  /// B's panels are packed transposed (see Emitter::emitTransposedPack).
  bool transposedB = false;
  /// A dot-product contraction whose sums must keep k's order (no
  /// `reassoc`): vectorized only with B packed transposed.
  bool inOrderOnly = false;
  bool fma = false;
};

bool unitInnerStride(Value v) {
  auto type = dyn_cast<MemRefType>(v.getType());
  if (!type || type.getRank() == 0)
    return false;
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)))
    return false;
  return strides.back() == 1;
}

bool uses(AffineMap map, unsigned d) {
  return llvm::any_of(map.getResults(),
                      [&](AffineExpr e) { return e.isFunctionOfDim(d); });
}

bool lastIs(AffineMap map, unsigned d) {
  return map.getNumResults() > 0 && map.getResults().back() == getAffineDimExpr(
                                                                   d, map.getContext());
}

/// Whether `e` is built of loops, constants, sums and products by
/// constants (what `Emitter::eval` computes).
bool isLinear(AffineExpr e) {
  if (isa<AffineDimExpr, AffineConstantExpr>(e))
    return true;
  auto bin = dyn_cast<AffineBinaryOpExpr>(e);
  if (!bin || (e.getKind() != AffineExprKind::Add &&
               (e.getKind() != AffineExprKind::Mul ||
                !isa<AffineConstantExpr>(bin.getRHS()))))
    return false;
  return isLinear(bin.getLHS()) && isLinear(bin.getRHS());
}

/// Whether `e` is `d + rest` (either order), `rest` free of `d`: a vector
/// along `d` reads consecutive elements.
bool isUnitStrideIn(AffineExpr e, unsigned d) {
  if (e == getAffineDimExpr(d, e.getContext()))
    return true;
  if (e.getKind() != AffineExprKind::Add)
    return false;
  auto bin = cast<AffineBinaryOpExpr>(e);
  auto dim = getAffineDimExpr(d, e.getContext());
  return (bin.getLHS() == dim && !bin.getRHS().isFunctionOfDim(d)) ||
         (bin.getRHS() == dim && !bin.getLHS().isFunctionOfDim(d)) ||
         (isUnitStrideIn(bin.getLHS(), d) && !bin.getRHS().isFunctionOfDim(d));
}

/// The window contraction's parts (see Contraction): `c` has its body
/// checked and its maps are not all projected permutations, or it has
/// several reduction loops.
std::optional<Contraction> matchWindow(Contraction c) {
  linalg::GenericOp op = c.op;
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  AffineMap out = maps[2];
  if (out.getNumResults() < 2 ||
      !out.isProjectedPermutation(/*allowZeroInResults=*/false))
    return std::nullopt;
  for (AffineExpr e : out.getResults())
    if (iterators[cast<AffineDimExpr>(e).getPosition()] !=
        utils::IteratorType::parallel)
      return std::nullopt;
  c.j = cast<AffineDimExpr>(out.getResults().back()).getPosition();
  // A reads no j; B reads j in its last index only, at unit stride.
  int which = -1;
  for (int x = 0; x < 2; ++x)
    if (uses(maps[x], c.j))
      which = which == -1 ? x : 2;
  if (which < 0 || which > 1)
    return std::nullopt;
  c.b = &op->getOpOperand(which);
  c.a = &op->getOpOperand(1 - which);
  AffineMap aMap = maps[1 - which], bMap = maps[which];
  if (!aMap.isProjectedPermutation(/*allowZeroInResults=*/false) ||
      bMap.getNumResults() == 0 || !llvm::all_of(bMap.getResults(), isLinear) ||
      !isUnitStrideIn(bMap.getResults().back(), c.j))
    return std::nullopt;
  for (AffineExpr e : bMap.getResults().drop_back())
    if (e.isFunctionOfDim(c.j))
      return std::nullopt;
  // i: the output's innermost loop (but j) that A reads and B does not.
  c.i.reset();
  for (AffineExpr e : llvm::reverse(out.getResults().drop_back())) {
    unsigned d = cast<AffineDimExpr>(e).getPosition();
    if (uses(aMap, d) && !uses(bMap, d)) {
      c.i = d;
      break;
    }
  }
  // Every reduction loop is read by both (a sum over a loop one side
  // does not read would be a product of sums).
  for (unsigned k : c.ks)
    if (!uses(aMap, k) || !uses(bMap, k))
      return std::nullopt;
  if (!c.i || !unitInnerStride(c.b->get()) ||
      !unitInnerStride(op.getDpsInitOperand(0)->get()))
    return std::nullopt;
  c.k = c.ks.front();
  c.window = true;
  c.alongJ = true;
  return c;
}

/// Matches `yield out + a * b` (either order of both), in f32 or f64.
std::optional<Contraction> match(linalg::GenericOp op) {
  if (!op.hasPureBufferSemantics() || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1)
    return std::nullopt;
  Type element = getElementTypeOrSelf(op.getDpsInitOperand(0)->get());
  if (!element.isF32() && !element.isF64())
    return std::nullopt;
  for (OpOperand &operand : op->getOpOperands()) {
    auto type = dyn_cast<MemRefType>(operand.get().getType());
    if (!type || type.getElementType() != element)
      return std::nullopt;
  }
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  if (llvm::count(iterators, utils::IteratorType::reduction) == 0)
    return std::nullopt;
  Block &body = op.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  auto add = yield.getOperand(0).getDefiningOp<arith::AddFOp>();
  if (!add || &body.front() != add->getPrevNode() || !add->getNextNode() ||
      add->getNextNode() != yield)
    return std::nullopt;
  Value acc = body.getArgument(2);
  Value product = add.getLhs() == acc ? add.getRhs() : add.getLhs();
  if (add.getLhs() != acc && add.getRhs() != acc)
    return std::nullopt;
  auto mul = product.getDefiningOp<arith::MulFOp>();
  if (!mul || mul->getBlock() != &body || !product.hasOneUse())
    return std::nullopt;
  Value x = body.getArgument(0), y = body.getArgument(1);
  if (!((mul.getLhs() == x && mul.getRhs() == y) ||
        (mul.getLhs() == y && mul.getRhs() == x)))
    return std::nullopt;

  Contraction c;
  c.op = op;
  for (auto [d, t] : llvm::enumerate(iterators))
    if (t == utils::IteratorType::reduction)
      c.ks.push_back(d);
  c.k = c.ks.front();
  c.fma = bitEnumContainsAll(add.getFastmath(), arith::FastMathFlags::contract);
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  if (c.ks.size() > 1 || !llvm::all_of(maps, [](AffineMap map) {
        return map.isProjectedPermutation(/*allowZeroInResults=*/false);
      }))
    return matchWindow(c);
  AffineMap out = maps[2];
  if (out.getNumResults() == 0)
    return std::nullopt;
  c.j = cast<AffineDimExpr>(out.getResults().back()).getPosition();
  if (out.getNumResults() >= 2)
    c.i = cast<AffineDimExpr>(out.getResults()[out.getNumResults() - 2])
              .getPosition();
  bool xUsesJ = uses(maps[0], c.j), yUsesJ = uses(maps[1], c.j);
  if (xUsesJ == yUsesJ)
    return std::nullopt;
  c.a = &op->getOpOperand(xUsesJ ? 1 : 0);
  c.b = &op->getOpOperand(xUsesJ ? 0 : 1);
  AffineMap aMap = op.getMatchingIndexingMap(c.a);
  AffineMap bMap = op.getMatchingIndexingMap(c.b);
  if (!uses(aMap, c.k) || !uses(bMap, c.k) || (c.i && uses(bMap, *c.i)))
    return std::nullopt;
  Value cOut = op.getDpsInitOperand(0)->get();
  if (lastIs(bMap, c.j) && unitInnerStride(c.b->get()) &&
      unitInnerStride(cOut)) {
    c.alongJ = true;
    return c;
  }
  // A dot product of rows reorders the sum: only where it may. Without
  // `reassoc`, only a block whose B is packed transposed (in k's order).
  if (lastIs(aMap, c.k) && lastIs(bMap, c.k) && unitInnerStride(c.a->get()) &&
      unitInnerStride(c.b->get())) {
    c.alongJ = false;
    c.inOrderOnly =
        !bitEnumContainsAll(add.getFastmath(), arith::FastMathFlags::reassoc);
    return c;
  }
  return std::nullopt;
}

/// Steps of k per block when blocks of rows are blocked along k: B's panel
/// under a column tile (256 x 2 vectors of 16 f32: 32 KiB) stays in L1/L2.
constexpr int64_t kKBlock = 256;

/// Emits the loop nest of one contraction.
class Emitter {
public:
  Emitter(OpBuilder &b, Location loc, Contraction c, int64_t lanes,
          int64_t rows, int64_t vectors, bool columnsOutside, int64_t kBlock,
          int64_t packRows)
      : b(b), loc(loc), c(c), lanes(lanes), rows(rows), vectors(vectors),
        columnsOutside(columnsOutside), kBlock(kBlock), packRows(packRows) {
    element = getElementTypeOrSelf(c.op.getDpsInitOperand(0)->get());
    vecType = VectorType::get({lanes}, element);
    maskType = VectorType::get({lanes}, b.getI1Type());
  }

  void run() {
    auto linalgOp = cast<linalg::LinalgOp>(c.op.getOperation());
    // Constants go before this one, ahead of every loop.
    anchor = arith::ConstantIndexOp::create(b, loc, 0);
    constants[0] = anchor->getResult(0);
    linalgRanges = linalgOp.getStaticLoopRanges();
    SmallVector<Range> ranges = linalgOp.createLoopRanges(b, loc);
    for (Range &r : ranges)
      extents.push_back(isa<Value>(r.size)
                            ? cast<Value>(r.size)
                            : cst(*getConstantIntValue(r.size)));
    dims.assign(ranges.size(), Value());
    zero = cst(0);
    one = cst(1);
    SmallVector<unsigned> outer;
    for (unsigned d = 0; d < ranges.size(); ++d)
      if (!llvm::is_contained(c.ks, d) && d != c.j && d != c.i)
        outer.push_back(d);
    emitOuter(outer);
  }

private:
  OpBuilder &b;
  Location loc;
  Contraction c;
  int64_t lanes, rows, vectors;
  bool columnsOutside;
  int64_t kBlock;
  /// Rows of the packed panel (a k block, or all of a static k); 0: B's
  /// panels are read where they are.
  int64_t packRows;
  Value panel;
  /// The loop over k of a tile, when blocked.
  Value kLow, kHigh;
  Type element;
  VectorType vecType, maskType;
  SmallVector<Value> extents, dims;
  /// The loops' static extents (ShapedType::kDynamic where not).
  SmallVector<int64_t> linalgRanges;
  Value zero, one;
  /// The first op emitted: constants and buffers go before it.
  Operation *anchor = nullptr;
  Value zeroVec;
  llvm::DenseMap<int64_t, Value> constants;

  /// Index constants, made once before the loops.
  Value cst(int64_t v) {
    Value &c = constants[v];
    if (!c) {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPoint(anchor);
      c = arith::ConstantIndexOp::create(b, loc, v);
    }
    return c;
  }
  Value zeroVector() {
    if (!zeroVec) {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPoint(anchor);
      zeroVec = arith::ConstantOp::create(
          b, loc, vecType,
          DenseElementsAttr::get(vecType, b.getZeroAttr(element)));
    }
    return zeroVec;
  }

  Value add(Value x, int64_t v) {
    return v == 0 ? x : arith::AddIOp::create(b, loc, x, cst(v)).getResult();
  }

  /// A loop from `lb` to `ub` by `step`; `body` sees the induction value.
  void loop(Value lb, Value ub, int64_t step,
            llvm::function_ref<void(Value)> body) {
    auto forOp = scf::ForOp::create(b, loc, lb, ub, cst(step));
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(forOp.getBody());
    body(forOp.getInductionVar());
  }

  /// `extent - extent % step`: where whole steps end.
  Value wholeSteps(Value extent, int64_t step) {
    if (step == 1)
      return extent;
    Value rem = arith::RemUIOp::create(b, loc, extent, cst(step));
    return arith::SubIOp::create(b, loc, extent, rem);
  }

  /// An index of a map (loops, constants, sums, products by constants:
  /// `isLinear`) at the current loop values.
  Value eval(AffineExpr e) {
    if (auto d = dyn_cast<AffineDimExpr>(e))
      return dims[d.getPosition()];
    if (auto k = dyn_cast<AffineConstantExpr>(e))
      return cst(k.getValue());
    auto bin = cast<AffineBinaryOpExpr>(e);
    Value lhs = eval(bin.getLHS());
    if (auto k = dyn_cast<AffineConstantExpr>(bin.getRHS())) {
      if (e.getKind() == AffineExprKind::Add)
        return add(lhs, k.getValue());
      if (k.getValue() == 1)
        return lhs;
    }
    Value rhs = eval(bin.getRHS());
    if (e.getKind() == AffineExprKind::Add)
      return arith::AddIOp::create(b, loc, lhs, rhs);
    return arith::MulIOp::create(b, loc, lhs, rhs);
  }

  SmallVector<Value> indices(OpOperand *operand) {
    SmallVector<Value> idx;
    for (AffineExpr e : c.op.getMatchingIndexingMap(operand).getResults())
      idx.push_back(eval(e));
    return idx;
  }

  /// Loops over the reduction dims `ks` (one loop over `k`'s tile range
  /// for a matrix product) carrying `init`; `body` sees the iteration's
  /// values and returns the next. Returns the loops' results.
  SmallVector<Value>
  reduce(ArrayRef<unsigned> ks, ValueRange init,
         llvm::function_ref<SmallVector<Value>(ValueRange)> body) {
    if (ks.empty())
      return body(init);
    bool blocked = ks.size() == c.ks.size() && c.ks.size() == 1;
    Value lb = blocked && kLow ? kLow : zero;
    Value ub = blocked && kHigh ? kHigh : extents[ks.front()];
    auto forOp = scf::ForOp::create(b, loc, lb, ub, one, init);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(forOp.getBody());
      dims[ks.front()] = forOp.getInductionVar();
      scf::YieldOp::create(
          b, loc, reduce(ks.drop_front(), forOp.getRegionIterArgs(), body));
    }
    return forOp.getResults();
  }

  Value loadVector(OpOperand *operand, Value mask) {
    Value memref = operand->get();
    SmallVector<Value> idx = indices(operand);
    if (!mask)
      return vector::LoadOp::create(b, loc, vecType, memref, idx);
    return vector::MaskedLoadOp::create(b, loc, vecType, memref, idx, mask,
                                        zeroVector());
  }

  void storeVector(OpOperand *operand, Value value, Value mask) {
    Value memref = operand->get();
    SmallVector<Value> idx = indices(operand);
    if (!mask)
      vector::StoreOp::create(b, loc, value, memref, idx);
    else
      vector::MaskedStoreOp::create(b, loc, memref, idx, mask, value);
  }

  Value multiplyAdd(Value x, Value y, Value acc) {
    if (c.fma)
      return vector::FMAOp::create(b, loc, x, y, acc);
    Value p = arith::MulFOp::create(b, loc, x, y);
    return arith::AddFOp::create(b, loc, acc, p);
  }

  void emitOuter(ArrayRef<unsigned> outer) {
    if (!outer.empty()) {
      loop(zero, extents[outer.front()], 1, [&](Value iv) {
        dims[outer.front()] = iv;
        emitOuter(outer.drop_front());
      });
      return;
    }
    if (!columnsOutside) {
      // Each row tile sweeps all columns (B streams through once per row
      // tile): the order when an iteration has one row tile's rows.
      emitRowTiles([&](Value i0, int64_t count) {
        emitColumnTiles([&](Value j0, int64_t cols, ArrayRef<Value> masks) {
          emitTile(i0, count, j0, cols, masks);
        });
      });
      return;
    }
    // A block of many rows (tgc-form-kernels' 2-D blocks of large
    // products): column tiles outside, so that B's panel under a column
    // tile stays in cache across the block's row tiles, and, along j, the
    // loop over k in blocks of `kBlock` so that the panel fits the first
    // levels of cache (C's tile is stored and reloaded between blocks:
    // each element is still summed in the order of k).
    // Along j, B's panel under a column tile is packed first: copied into
    // a contiguous buffer (zeros past the last column), which the row
    // tiles read. Its rows are B's, a row of B apart: with a power-of-two
    // row length they all fall in a few cache sets (a 2048-wide B: every
    // row 8 KiB apart, one set of the L1), and the panel thrashes.
    int64_t panelRows = packRows;
    if (c.alongJ && panelRows > 0) {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPoint(anchor);
      panel = memref::AllocaOp::create(
          b, loc,
          MemRefType::get({panelRows, vectors * lanes}, element),
          b.getI64IntegerAttr(64));
    }
    auto columnsThenRows = [&] {
      emitColumnTiles([&](Value j0, int64_t cols, ArrayRef<Value> masks) {
        if (panel)
          emitPack(j0, masks);
        emitRowTiles([&](Value i0, int64_t count) {
          emitTile(i0, count, j0, cols, masks);
        });
      });
    };
    if (!c.alongJ || kBlock == 0) {
      columnsThenRows();
      return;
    }
    Value kExtent = extents[c.k];
    loop(zero, kExtent, kBlock, [&](Value kc) {
      kLow = kc;
      kHigh = arith::MinUIOp::create(
          b, loc, arith::AddIOp::create(b, loc, kc, cst(kBlock)), kExtent);
      columnsThenRows();
    });
    kLow = kHigh = Value();
  }

  /// `panel[k - kLow, :] = B[k, j0 : j0 + vectors * lanes]` (masked lanes
  /// zero) over the tile's k range.
  void emitPack(Value j0, ArrayRef<Value> masks) {
    if (c.transposedB) {
      emitTransposedPack(j0);
      return;
    }
    Value lo = kLow ? kLow : zero;
    Value hi = kHigh ? kHigh : extents[c.k];
    loop(lo, hi, 1, [&](Value k) {
      dims[c.k] = k;
      Value row = arith::SubIOp::create(b, loc, k, lo);
      for (int64_t v = 0; v < vectors; ++v) {
        setRowCol(Value(), 0, j0, v * lanes);
        Value vec = loadVector(c.b, masks.empty() ? Value() : masks[v]);
        vector::StoreOp::create(b, loc, vec, panel,
                                ValueRange{row, cst(v * lanes)});
      }
    });
  }

  /// `panel[k - kLow, :] = B[j0 : j0 + vectors * lanes, k]`: B read along
  /// k, `lanes` rows at a time, each square of lanes x lanes transposed in
  /// registers (log2(lanes) rounds of two-vector shuffles: a round swaps
  /// the elements whose row and column differ in one bit). The steps of k
  /// left after the squares are copied element by element. The tiles are
  /// whole (transposable).
  void emitTransposedPack(Value j0) {
    Value lo = kLow ? kLow : zero;
    Value hi = kHigh ? kHigh : extents[c.k];
    Value squaresEnd = arith::AddIOp::create(
        b, loc, lo, wholeSteps(arith::SubIOp::create(b, loc, hi, lo), lanes));
    loop(lo, squaresEnd, lanes, [&](Value k0) {
      dims[c.k] = k0;
      Value row0 = arith::SubIOp::create(b, loc, k0, lo);
      // One square's code for the tile's vectors, in a loop LLVM keeps:
      // unrolled, it doubled the kernel's LLVM time.
      auto vectorLoop = scf::ForOp::create(b, loc, zero, cst(vectors), one);
      tgc::disableUnrolling(vectorLoop);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(vectorLoop.getBody());
      Value col0 = arith::MulIOp::create(b, loc, vectorLoop.getInductionVar(),
                                         cst(lanes));
      Value jBase = arith::AddIOp::create(b, loc, j0, col0);
      SmallVector<Value> square;
      for (int64_t t = 0; t < lanes; ++t) {
        dims[c.j] = add(jBase, t);
        square.push_back(loadVector(c.b, Value()));
      }
      for (int64_t s = lanes / 2; s >= 1; s /= 2) {
        SmallVector<int64_t> low, high;
        for (int64_t col = 0; col < lanes; ++col) {
          bool bit = col & s;
          low.push_back(bit ? lanes + col - s : col);
          high.push_back(bit ? lanes + col : col + s);
        }
        for (int64_t r = 0; r < lanes; ++r) {
          if (r & s)
            continue;
          Value x = square[r], y = square[r + s];
          square[r] = vector::ShuffleOp::create(b, loc, x, y, low);
          square[r + s] = vector::ShuffleOp::create(b, loc, x, y, high);
        }
      }
      for (int64_t u = 0; u < lanes; ++u)
        vector::StoreOp::create(b, loc, square[u], panel,
                                ValueRange{add(row0, u), col0});
    });
    // (None when k and its blocks are whole squares.)
    int64_t kSteps = linalgRanges[c.k];
    if (!ShapedType::isDynamic(kSteps) && kSteps % lanes == 0 &&
        kBlock % lanes == 0)
      return;
    // A loop over the columns, not `width` copies: it is rare, and LLVM
    // spent more time on 32 copies than on the rest of the kernel.
    loop(squaresEnd, hi, 1, [&](Value k) {
      Value row = arith::SubIOp::create(b, loc, k, lo);
      loop(zero, cst(vectors * lanes), 1, [&](Value t) {
        dims[c.k] = k;
        dims[c.j] = arith::AddIOp::create(b, loc, j0, t);
        Value x = memref::LoadOp::create(b, loc, c.b->get(), indices(c.b));
        memref::StoreOp::create(b, loc, x, panel, ValueRange{row, t});
      });
    });
  }

  /// Rows in tiles of `rows`, then one at a time.
  void emitRowTiles(llvm::function_ref<void(Value, int64_t)> body) {
    if (!c.i) {
      body(/*i0=*/Value(), 1);
      return;
    }
    Value m = extents[*c.i];
    Value whole = wholeSteps(m, rows);
    if (rows > 1)
      loop(zero, whole, rows, [&](Value i0) { body(i0, rows); });
    loop(whole, m, 1, [&](Value i0) { body(i0, 1); });
  }

  /// Column tiles: along j, `vectors` vectors wide and a last partial one
  /// with masks of the lanes left; along k, `vectors` dot products and then
  /// one at a time.
  void emitColumnTiles(
      llvm::function_ref<void(Value, int64_t, ArrayRef<Value>)> body) {
    Value n = extents[c.j];
    if (!c.alongJ) {
      Value whole = wholeSteps(n, vectors);
      if (vectors > 1)
        loop(zero, whole, vectors, [&](Value j0) { body(j0, vectors, {}); });
      loop(whole, n, 1, [&](Value j0) { body(j0, 1, {}); });
      return;
    }
    int64_t width = vectors * lanes;
    Value whole = wholeSteps(n, width);
    loop(zero, whole, width, [&](Value j0) { body(j0, vectors, {}); });
    if (c.transposedB)
      return; // whole tiles only (transposable)
    // The last partial tile (0 or 1 iterations).
    loop(whole, n, width, [&](Value j0) {
      SmallVector<Value> masks;
      Value left = arith::SubIOp::create(b, loc, n, j0);
      for (int64_t v = 0; v < vectors; ++v) {
        Value lanesLeft =
            v == 0 ? left
                   : arith::SubIOp::create(b, loc, left, cst(v * lanes))
                         .getResult();
        masks.push_back(
            vector::CreateMaskOp::create(b, loc, maskType, lanesLeft));
      }
      body(j0, vectors, masks);
    });
  }

  void emitTile(Value i0, int64_t count, Value j0, int64_t cols,
                ArrayRef<Value> masks) {
    if (c.alongJ)
      emitAlongJTile(i0, count, j0, masks);
    else
      emitDotTile(i0, count, j0, cols);
  }

  void setRowCol(Value i0, int64_t r, Value j0, int64_t v) {
    if (c.i && i0)
      dims[*c.i] = add(i0, r);
    dims[c.j] = add(j0, v);
  }

  /// `C[i0 + r, j0 : j0 + vectors * lanes] += A[i0 + r, k] * B[k, j0 : ...]`
  /// over the tile's k range, accumulated in registers.
  void emitAlongJTile(Value i0, int64_t count, Value j0,
                      ArrayRef<Value> masks) {
    OpOperand *out = c.op.getDpsInitOperand(0);
    auto mask = [&](int64_t v) { return masks.empty() ? Value() : masks[v]; };
    SmallVector<Value> acc;
    for (int64_t r = 0; r < count; ++r)
      for (int64_t v = 0; v < vectors; ++v) {
        setRowCol(i0, r, j0, v * lanes);
        acc.push_back(loadVector(out, mask(v)));
      }
    SmallVector<Value> sums = reduce(c.ks, acc, [&](ValueRange iterArgs) {
      SmallVector<Value> bVec;
      Value panelRow;
      if (panel)
        panelRow = arith::SubIOp::create(b, loc, dims[c.k], kLow ? kLow : zero);
      for (int64_t v = 0; v < vectors; ++v) {
        if (panel) {
          bVec.push_back(vector::LoadOp::create(
              b, loc, vecType, panel, ValueRange{panelRow, cst(v * lanes)}));
          continue;
        }
        setRowCol(i0, 0, j0, v * lanes);
        bVec.push_back(loadVector(c.b, mask(v)));
      }
      SmallVector<Value> next;
      for (int64_t r = 0; r < count; ++r) {
        setRowCol(i0, r, j0, 0);
        Value scalar = memref::LoadOp::create(b, loc, c.a->get(), indices(c.a));
        Value splat = vector::BroadcastOp::create(b, loc, vecType, scalar);
        for (int64_t v = 0; v < vectors; ++v)
          next.push_back(
              multiplyAdd(splat, bVec[v], iterArgs[r * vectors + v]));
      }
      return next;
    });
    for (int64_t r = 0; r < count; ++r)
      for (int64_t v = 0; v < vectors; ++v) {
        setRowCol(i0, r, j0, v * lanes);
        storeVector(out, sums[r * vectors + v], mask(v));
      }
  }

  /// `C[i0 + r, j0 + s] += sum_k A[i0 + r, k] * B[j0 + s, k]`: lanes of
  /// partial sums along `k`, added up at the end.
  void emitDotTile(Value i0, int64_t count, Value j0, int64_t cols) {
    Value kExtent = extents[c.k];
    Value whole = wholeSteps(kExtent, lanes);
    SmallVector<Value> init(count * cols, zeroVector());
    auto step = [&](Value k0, ValueRange acc, Value mask) {
      dims[c.k] = k0;
      SmallVector<Value> aVec, bVec;
      for (int64_t r = 0; r < count; ++r) {
        setRowCol(i0, r, j0, 0);
        aVec.push_back(loadVector(c.a, mask));
      }
      for (int64_t s = 0; s < cols; ++s) {
        setRowCol(i0, 0, j0, s);
        bVec.push_back(loadVector(c.b, mask));
      }
      SmallVector<Value> next;
      for (int64_t r = 0; r < count; ++r)
        for (int64_t s = 0; s < cols; ++s)
          next.push_back(multiplyAdd(aVec[r], bVec[s], acc[r * cols + s]));
      return next;
    };
    auto body = scf::ForOp::create(b, loc, zero, whole, cst(lanes), init);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(body.getBody());
      scf::YieldOp::create(
          b, loc, step(body.getInductionVar(), body.getRegionIterArgs(), {}));
    }
    auto tail =
        scf::ForOp::create(b, loc, whole, kExtent, cst(lanes), body.getResults());
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(tail.getBody());
      Value left = arith::SubIOp::create(b, loc, kExtent, tail.getInductionVar());
      Value mask = vector::CreateMaskOp::create(b, loc, maskType, left);
      scf::YieldOp::create(
          b, loc, step(tail.getInductionVar(), tail.getRegionIterArgs(), mask));
    }
    OpOperand *out = c.op.getDpsInitOperand(0);
    for (int64_t r = 0; r < count; ++r)
      for (int64_t s = 0; s < cols; ++s) {
        setRowCol(i0, r, j0, s);
        Value sum = vector::ReductionOp::create(
            b, loc, vector::CombiningKind::ADD, tail.getResult(r * cols + s),
            Value(), arith::FastMathFlags::reassoc);
        SmallVector<Value> idx = indices(out);
        Value prev = memref::LoadOp::create(b, loc, out->get(), idx);
        Value total = arith::AddFOp::create(b, loc, prev, sum);
        memref::StoreOp::create(b, loc, total, out->get(), idx);
      }
  }
};

/// The most rows (extent of `i`) the contraction can have: its static
/// size, or the bound of a tile's dynamic one (`min(64, m - i)` of the last
/// block); 0 where unknown.
int64_t maxRows(Contraction &c) {
  OpOperand *out = c.op.getDpsInitOperand(0);
  AffineMap map = c.op.getMatchingIndexingMap(out);
  for (auto [r, e] : llvm::enumerate(map.getResults())) {
    if (cast<AffineDimExpr>(e).getPosition() != *c.i)
      continue;
    FailureOr<int64_t> ub = ValueBoundsConstraintSet::computeConstantBound(
        presburger::BoundType::UB, {out->get(), static_cast<int64_t>(r)},
        nullptr, /*closedUB=*/true);
    return succeeded(ub) ? *ub : 0;
  }
  return 0;
}

/// Whether a dot-product contraction's B is packed transposed: C
/// contiguous along j, a panel reused by 4 row tiles or more, and whole
/// tiles of `2 * lanes` columns (a static count). A last partial tile
/// copied element by element measured slower than the dot products on the
/// GPU machine's Xeon (a 128 x 768 -> 1000 linear, 0.63 against 0.47 ms).
bool transposable(Contraction &c, ArrayRef<int64_t> ranges, int64_t lanes) {
  int64_t n = ranges[c.j];
  // (The in-register transpose takes squares of a power of two.)
  return llvm::isPowerOf2_64(lanes) && !ShapedType::isDynamic(n) && n > 0 &&
         n % (2 * lanes) == 0 && maxRows(c) >= 32 &&
         unitInnerStride(c.op.getDpsInitOperand(0)->get());
}

/// Bits of the host's vector registers and how many there are.
std::pair<int64_t, int64_t> hostVectors() {
  llvm::StringMap<bool> features = llvm::sys::getHostCPUFeatures();
  auto has = [&](StringRef f) { return features.lookup(f); };
  if (has("avx512f"))
    return {512, 32};
  if (has("avx2") || has("avx"))
    return {256, 16};
  return {128, 16};
}

struct TgcVectorizeContractionsPass
    : tgc::impl::TgcVectorizeContractionsBase<TgcVectorizeContractionsPass> {
  using TgcVectorizeContractionsBase::TgcVectorizeContractionsBase;

  void runOnOperation() override {
    int64_t bits = vectorBits, registers = 32;
    if (bits == 0)
      std::tie(bits, registers) = hostVectors();
    else if (bits < 512)
      registers = 16;
    SmallVector<Contraction> found;
    getOperation().walk([&](linalg::GenericOp op) {
      if (std::optional<Contraction> c = match(op))
        found.push_back(*c);
    });
    for (Contraction &c : found) {
      int64_t elementBits =
          getElementTypeOrSelf(c.op.getDpsInitOperand(0)->get())
              .getIntOrFloatBitWidth();
      int64_t lanes = std::max<int64_t>(1, bits / elementBits);
      // Register tiles: rows x 2 vectors of accumulators, a vector of B per
      // column vector and a broadcast of A (8 x 2 with 32 registers);
      // rows x columns dot products plus one vector per row and per column
      // (4 x 4).
      int64_t rows = c.alongJ ? (registers >= 32 ? 8 : 4) : (registers >= 32 ? 4 : 2);
      int64_t vectors = c.alongJ ? 2 : (registers >= 32 ? 4 : 3);
      // A block of more rows than one tile (a 2-D block of a large
      // product): column tiles outside, and k in blocks where it is long.
      SmallVector<int64_t> ranges =
          cast<linalg::LinalgOp>(c.op.getOperation()).getStaticLoopRanges();
      // Three or four vectors of columns (a static 33 to 64 f32 with
      // AVX-512: an im2col product over 4x4 images, 512 x 4608 x 64 in
      // ResNet-18's layer 4 at 112x112): tiles of 4 rows x 4 vectors, which
      // read each row of A once where 8 x 2 tiles read it twice (A, the
      // weights, is the product's largest operand there: 13% faster on
      // one thread of the CI machine).
      // (Not in a block of more than 8 rows, whose row tiles share a
      // packed panel of B instead. An iteration of 5 to 8 rows then has
      // more rows than one tile: its row tiles run inside each column
      // tile, k in blocks of kKBlock where it is longer than 2 kKBlock,
      // with no panel; each sum keeps k's order.)
      if (c.alongJ && !c.window && registers >= 32 && c.i &&
          maxRows(c) <= rows && !ShapedType::isDynamic(ranges[c.j]) &&
          ranges[c.j] > 2 * lanes && ranges[c.j] <= 4 * lanes) {
        rows = 4;
        vectors = 4;
      }
      // (A window's B is no matrix: its tiles sweep all columns, unblocked.)
      bool manyRows = !c.window && c.i && maxRows(c) > rows;
      // A block of a large `x W^T` (a linear layer's product): its dot
      // products end in a sum across lanes per element of C, and read A
      // again per 4 columns. W's panel is packed transposed instead and
      // the block tiled along j like `x W`.
      if (!c.alongJ && manyRows && transposable(c, ranges, lanes)) {
        c.alongJ = true;
        c.transposedB = true;
        rows = registers >= 32 ? 8 : 4;
        vectors = 2;
      }
      if (c.inOrderOnly && !c.transposedB)
        continue; // the scalar loop keeps k's order
      int64_t kBlock = 0, packRows = 0;
      if (manyRows && c.alongJ) {
        // A packed panel pays for its copy over 4 row tiles or more; it
        // has at most kKBlock rows.
        bool pack = maxRows(c) >= 4 * rows;
        int64_t longest = pack ? kKBlock : 2 * kKBlock;
        if (ShapedType::isDynamic(ranges[c.k]) || ranges[c.k] > longest)
          kBlock = kKBlock;
        if (pack)
          packRows = kBlock ? kBlock : ranges[c.k];
      }
      OpBuilder b(c.op);
      Emitter(b, c.op.getLoc(), c, lanes, rows, vectors, manyRows, kBlock,
              packRows)
          .run();
      c.op.erase();
    }
  }
};

} // namespace
