//===- GpuGemmMatching.cpp - GEMMs and their epilogues for cuBLASLt -------===//

#include "GpuGemmMatching.h"
#include "tgc/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;

namespace mlir::tgc::gpu_kernels {

bool isAllParallel(linalg::GenericOp op) {
  return op.getNumParallelLoops() == op.getNumLoops();
}

//===----------------------------------------------------------------------===//
// GEMMs for cuBLASLt
//===----------------------------------------------------------------------===//

bool isIdentityMemRef(Value v) {
  auto type = dyn_cast<MemRefType>(v.getType());
  return type && type.getLayout().isIdentity();
}

/// Whether size `d` of the subview `view` is all of its source's size `d`.
bool isFullSize(memref::SubViewOp view, int64_t d) {
  OpFoldResult size = view.getMixedSizes()[d];
  MemRefType source = view.getSourceType();
  if (!source.isDynamicDim(d))
    return getConstantIntValue(size) == source.getDimSize(d);
  auto value = dyn_cast<Value>(size);
  if (!value)
    return false;
  if (auto dim = value.getDefiningOp<memref::DimOp>())
    if (dim.getSource() == view.getSource() && dim.getConstantIndex() == d)
      return true;
  Operation *def = view.getSource().getDefiningOp();
  if (auto alloc = dyn_cast_or_null<memref::AllocOp>(def))
    return alloc.getDynamicSizes()[source.getDynamicDimIndex(d)] == value;
  if (auto arena = dyn_cast_or_null<memref::ViewOp>(def))
    return arena.getSizes()[source.getDynamicDimIndex(d)] == value;
  return false;
}

/// Whether `v` is a dense row-major memref: identity layout, or a reshape
/// of one, or a subview of one that keeps the inner dims whole (unit dims,
/// then one dim cut anywhere, then whole dims), as `qkv[0]` of a packed
/// projection is. A GEMM takes such views as plain pointers.
bool isDenseMemRef(Value v) {
  if (isIdentityMemRef(v))
    return true;
  Operation *def = v.getDefiningOp();
  if (auto c = dyn_cast_or_null<memref::CollapseShapeOp>(def))
    return isDenseMemRef(c.getSrc());
  if (auto e = dyn_cast_or_null<memref::ExpandShapeOp>(def))
    return isDenseMemRef(e.getSrc());
  auto view = dyn_cast_or_null<memref::SubViewOp>(def);
  if (!view || !view.hasUnitStride() || !isDenseMemRef(view.getSource()))
    return false;
  SmallVector<OpFoldResult> sizes = view.getMixedSizes();
  int64_t d = 0, rank = static_cast<int64_t>(sizes.size());
  while (d < rank && getConstantIntValue(sizes[d]) == 1)
    ++d;
  for (++d; d < rank; ++d)
    if (!isFullSize(view, d) ||
        getConstantIntValue(view.getMixedOffsets()[d]) != 0)
      return false;
  return true;
}

/// Whether `exprs` are the dims `dims`, in order.
bool areDims(ArrayRef<AffineExpr> exprs, ArrayRef<unsigned> dims) {
  if (exprs.size() != dims.size())
    return false;
  for (auto [e, d] : llvm::zip(exprs, dims)) {
    auto dim = dyn_cast<AffineDimExpr>(e);
    if (!dim || dim.getPosition() != d)
      return false;
  }
  return true;
}

/// The dims of a contraction cuBLASLt runs, from its indexing maps (A, B,
/// C): [batch...] x M... x K times [batch...] x K x N (either operand
/// possibly transposed, A only with one M dim) into a row-major [batch...]
/// x M... x N (several batch dims are one strided batch). An operand
/// without the batch dims is broadcast over the batch. Sets the transposes
/// and the loops of each role.
bool matchGemmMaps(ArrayRef<AffineMap> maps, bool &transA, bool &transB,
                   SmallVector<unsigned> &batch, SmallVector<unsigned> &m,
                   unsigned &n, unsigned &k) {
  if (maps.size() != 3)
    return false;
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(maps);
  if (failed(dims) || dims->m.empty() || dims->k.size() != 1)
    return false;
  batch.assign(dims->batch.begin(), dims->batch.end());
  m.assign(dims->m.begin(), dims->m.end());
  SmallVector<unsigned> ns(dims->n.begin(), dims->n.end());
  // A batch A does not have (W[O, C] times X[N, C, H*W]) counts as an N dim
  // of the contraction: the leading dims of C that lead B too are batch.
  AffineMap aMap = maps[0], bMap = maps[1], cMap = maps[2];
  while (ns.size() > 1 && batch.size() < cMap.getNumResults() &&
         batch.size() < bMap.getNumResults()) {
    auto lead = dyn_cast<AffineDimExpr>(cMap.getResult(batch.size()));
    auto leadB = dyn_cast<AffineDimExpr>(bMap.getResult(batch.size()));
    if (!lead || lead != leadB || !llvm::is_contained(ns, lead.getPosition()))
      break;
    batch.push_back(lead.getPosition());
    llvm::erase(ns, lead.getPosition());
  }
  if (ns.size() != 1)
    return false;
  n = ns.front();
  k = dims->k.front();
  // The batch dims lead every operand that has them, in loop order.
  auto split = [&](AffineMap map, ArrayRef<AffineExpr> &rest) {
    ArrayRef<AffineExpr> exprs = map.getResults();
    if (!batch.empty() && exprs.size() >= batch.size() &&
        areDims(exprs.take_front(batch.size()), batch))
      exprs = exprs.drop_front(batch.size());
    rest = exprs;
  };
  ArrayRef<AffineExpr> ea, eb, ec;
  split(aMap, ea);
  split(bMap, eb);
  split(cMap, ec);
  // C must have the batch dim when there is one.
  if (!batch.empty() && cMap.getNumResults() != batch.size() + m.size() + 1)
    return false;
  SmallVector<unsigned> mk(m), km{k};
  mk.push_back(k);
  km.append(m.begin(), m.end());
  if (areDims(ea, mk))
    transA = false;
  else if (m.size() == 1 && areDims(ea, km))
    transA = true;
  else
    return false;
  if (areDims(eb, {k, n}))
    transB = false;
  else if (areDims(eb, {n, k}))
    transB = true;
  else
    return false;
  SmallVector<unsigned> mn(m);
  mn.push_back(n);
  return areDims(ec, mn);
}

/// A contraction cuBLASLt runs (matchGemmMaps) of f32, f16 or bf16
/// matrices in dense buffers.
bool matchGemm(linalg::GenericOp op, bool &transA, bool &transB,
               SmallVector<unsigned> &batch, SmallVector<unsigned> &m,
               unsigned &n, unsigned &k) {
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 ||
      !op.hasPureBufferSemantics() || !linalg::isaContractionOpInterface(op))
    return false;
  Value a = op.getDpsInputOperand(0)->get(),
        b = op.getDpsInputOperand(1)->get();
  Value c = op.getDpsInitOperand(0)->get();
  if (!isDenseMemRef(a) || !isDenseMemRef(b) || !isDenseMemRef(c))
    return false;
  Type ta = cast<MemRefType>(a.getType()).getElementType();
  Type tb = cast<MemRefType>(b.getType()).getElementType();
  Type tc = cast<MemRefType>(c.getType()).getElementType();
  if (ta != tb || !(ta.isF32() || ta.isF16() || ta.isBF16()) ||
      !(tc == ta || tc.isF32()))
    return false;
  return matchGemmMaps(op.getIndexingMapsArray(), transA, transB, batch, m, n,
                       k);
}

//===----------------------------------------------------------------------===//
// GEMM epilogues for cuBLASLt
//===----------------------------------------------------------------------===//

/// `v` with commutative operands in either order: the other operand of
/// the binary op `op` when one of them is `known`, else null.
Value otherOperand(Operation *op, Value known) {
  if (!op || op->getNumOperands() != 2)
    return Value();
  if (op->getOperand(0) == known)
    return op->getOperand(1);
  if (op->getOperand(1) == known)
    return op->getOperand(0);
  return Value();
}

/// Whether `v` is a float constant within a relative 1e-6 of `expected`.
bool isFloatConstant(Value v, double expected) {
  FloatAttr attr;
  if (!matchPattern(v, m_Constant(&attr)))
    return false;
  double got = attr.getValueAsDouble();
  return std::abs(got - expected) <= 1e-6 * std::abs(expected);
}

/// The `x` of `relu(x)` as tgc.relu lowers it (`x < 0 ? 0 : x`), or null.
Value matchRelu(Value v) {
  auto select = v.getDefiningOp<arith::SelectOp>();
  if (!select)
    return Value();
  auto cmp = select.getCondition().getDefiningOp<arith::CmpFOp>();
  Value x = select.getFalseValue();
  if (!cmp || cmp.getPredicate() != arith::CmpFPredicate::OLT ||
      cmp.getLhs() != x || !isFloatConstant(cmp.getRhs(), 0.0) ||
      !isFloatConstant(select.getTrueValue(), 0.0))
    return Value();
  return x;
}

/// The other operand of the binary op defining `v` (of type OpTy) when one
/// of its operands is the float constant `c`, or null.
template <typename OpTy> Value besideConstant(Value v, double c) {
  auto op = v ? v.getDefiningOp<OpTy>() : OpTy();
  if (!op)
    return Value();
  if (isFloatConstant(op.getLhs(), c))
    return op.getRhs();
  return isFloatConstant(op.getRhs(), c) ? op.getLhs() : Value();
}

/// The `x` of tanh-approximated GELU as tgc.gelu lowers it,
/// `0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3)))` (operands of
/// commutative ops in either order), or null. cuBLASLt's GELU epilogue is
/// this approximation (checked on the H100: 5e-6 from PyTorch's tanh GELU,
/// 5e-4 from the exact one), so exact GELU never matches.
Value matchTanhGelu(Value v) {
  auto outer = v.getDefiningOp<arith::MulFOp>();
  if (!outer)
    return Value();
  for (int side = 0; side < 2; ++side) {
    Value x = besideConstant<arith::MulFOp>(outer->getOperand(side), 0.5);
    Value tanhValue =
        besideConstant<arith::AddFOp>(outer->getOperand(1 - side), 1.0);
    auto tanh =
        tanhValue ? tanhValue.getDefiningOp<math::TanhOp>() : math::TanhOp();
    if (!x || !tanh)
      continue;
    Value inner =
        besideConstant<arith::MulFOp>(tanh.getOperand(), 0.7978845608028654);
    auto sum = inner ? inner.getDefiningOp<arith::AddFOp>() : arith::AddFOp();
    Value cubeTerm = sum ? otherOperand(sum, x) : Value();
    Value cube = besideConstant<arith::MulFOp>(cubeTerm, 0.044715);
    auto cubeMul = cube ? cube.getDefiningOp<arith::MulFOp>() : arith::MulFOp();
    Value square = cubeMul ? otherOperand(cubeMul, x) : Value();
    auto squareMul =
        square ? square.getDefiningOp<arith::MulFOp>() : arith::MulFOp();
    if (squareMul && squareMul.getLhs() == x && squareMul.getRhs() == x)
      return x;
  }
  return Value();
}

/// The operands of an elementwise op over a GEMM's output `C` that may be
/// its cuBLASLt epilogue: all-parallel over C's dims in the GEMM's fusion
/// group, reading C through the identity, at most a bias (a dense vector of
/// the output type over the last loop, the GEMM's n) and at most a
/// residual (a dense tensor of the output's type and shape read through
/// the identity: cuBLASLt's `beta * C`), writing a dense f32 / f16 / bf16
/// output through the identity without reading it.
struct EpilogueOperands {
  OpOperand *c = nullptr, *bias = nullptr, *residual = nullptr, *out = nullptr;
  BlockArgument cArg, biasArg, residualArg;
  Type outType, accType;
};

std::optional<EpilogueOperands> epilogueOperands(linalg::GenericOp gemm,
                                                 linalg::GenericOp epilogue) {
  Value c = gemm.getDpsInitOperand(0)->get();
  if (!isAllParallel(epilogue) || epilogue.getNumDpsInits() != 1 ||
      epilogue.getNumDpsInputs() < 1 || epilogue.getNumDpsInputs() > 3 ||
      !epilogue.hasPureBufferSemantics() ||
      epilogue.getNumLoops() != cast<MemRefType>(c.getType()).getRank() ||
      getFusionGroup(gemm) != getFusionGroup(epilogue))
    return std::nullopt;
  EpilogueOperands e;
  e.out = epilogue.getDpsInitOperand(0);
  if (!epilogue.getMatchingIndexingMap(e.out).isIdentity() ||
      !isDenseMemRef(e.out->get()))
    return std::nullopt;
  e.outType = cast<MemRefType>(e.out->get().getType()).getElementType();
  e.accType = cast<MemRefType>(c.getType()).getElementType();
  if (!(e.outType.isF32() || e.outType.isF16() || e.outType.isBF16()) ||
      !(e.accType == e.outType || e.accType.isF32()))
    return std::nullopt;
  Block *body = epilogue.getBody();
  if (!body->getArgument(epilogue.getNumDpsInputs()).use_empty())
    return std::nullopt;
  unsigned nLoop = epilogue.getNumLoops() - 1;
  for (OpOperand *in : epilogue.getDpsInputOperands()) {
    AffineMap map = epilogue.getMatchingIndexingMap(in);
    BlockArgument arg = body->getArgument(in->getOperandNumber());
    if (in->get() == c && map.isIdentity() && !e.c) {
      e.c = in;
      e.cArg = arg;
      continue;
    }
    auto type = dyn_cast<MemRefType>(in->get().getType());
    auto outMemRef = cast<MemRefType>(e.out->get().getType());
    if (in->get() != c && map.isIdentity() && !e.residual && type &&
        type.getShape() == outMemRef.getShape() &&
        type.getElementType() == e.outType && isDenseMemRef(in->get())) {
      e.residual = in;
      e.residualArg = arg;
      continue;
    }
    if (e.bias || !type || type.getRank() != 1 ||
        type.getElementType() != e.outType || !isDenseMemRef(in->get()) ||
        map.getNumResults() != 1 ||
        map.getResult(0) != getAffineDimExpr(nLoop, map.getContext()))
      return std::nullopt;
    e.bias = in;
    e.biasArg = arg;
  }
  if (!e.c)
    return std::nullopt;
  return e;
}

/// The cuBLASLt epilogue that computes the elementwise `epilogue` over the
/// GEMM's output `c`: `act(c + bias)` rounded once to the output type,
/// with `act` none, ReLU or tanh GELU and the bias a vector over the GEMM's
/// n loop of the output type (cuBLASLt's bias type is D's). Sets `bias`
/// (null without one). A rounding to the output type between the bias and
/// the activation is allowed: ReLU commutes with it, and GELU's result
/// differs from the twice-rounded reference by at most an ulp of the
/// output type (what Inductor's fused kernels do, which skip intermediate
/// roundings). "" when `epilogue` is anything else.
StringRef matchGemmEpilogue(linalg::GenericOp gemm, linalg::GenericOp epilogue,
                            Value &bias) {
  bias = Value();
  std::optional<EpilogueOperands> e = epilogueOperands(gemm, epilogue);
  if (!e)
    return "";
  Type outType = e->outType, accType = e->accType;
  Value cArg = e->cArg, biasArg = e->biasArg;
  // cuBLASLt computes a 16-bit D only from 16-bit A and B (f32 A and B
  // with an f16 D is no supported type combination: no algorithm).
  if (outType != accType &&
      llvm::any_of(gemm.getDpsInputOperands(), [&](OpOperand *in) {
        return getElementTypeOrSelf(in->get().getType()) != outType;
      }))
    return "";
  if (e->bias)
    bias = e->bias->get();
  BlockArgument residualArg = e->residualArg;
  Block *body = epilogue.getBody();
  // Walk back from the yielded value.
  Value v = body->getTerminator()->getOperand(0);
  auto roundToOut = [&](Value x) -> Value {
    if (outType == accType)
      return x;
    auto trunc = x.getDefiningOp<arith::TruncFOp>();
    return trunc && trunc.getType() == outType ? trunc.getIn() : Value();
  };
  // Skips `ext(trunc(x))` through the output type.
  auto skipRounding = [&](Value x) -> Value {
    auto ext = x.getDefiningOp<arith::ExtFOp>();
    if (!ext || ext.getIn().getType() != outType)
      return x;
    auto trunc = ext.getIn().getDefiningOp<arith::TruncFOp>();
    return trunc && trunc.getIn().getType() == accType ? trunc.getIn() : x;
  };
  v = roundToOut(v);
  if (!v)
    return "";
  StringRef act = "";
  if (residualArg) {
    // `x + residual` (either order; a 16-bit residual extended first),
    // and no activation: cuBLASLt adds beta * C before its epilogue, so
    // only `act(c + bias + residual)` would be one, and models add the
    // residual after the projection. A rounding of `x` to the output type
    // before the add is skipped below, as for GELU: one rounding, not two.
    auto add = v.getDefiningOp<arith::AddFOp>();
    if (!add)
      return "";
    auto isResidual = [&](Value x) {
      auto ext = x.getDefiningOp<arith::ExtFOp>();
      return x == residualArg || (ext && ext.getIn() == residualArg);
    };
    if (isResidual(add.getRhs()))
      v = add.getLhs();
    else if (isResidual(add.getLhs()))
      v = add.getRhs();
    else
      return "";
  } else if (Value x = matchRelu(v)) {
    act = "relu";
    v = x;
  } else if (Value x = matchTanhGelu(v)) {
    act = "gelu";
    v = x;
  }
  v = skipRounding(v);
  if (biasArg) {
    auto add = v.getDefiningOp<arith::AddFOp>();
    Value other = add ? otherOperand(add, cArg) : Value();
    if (!other)
      return "";
    if (other != biasArg) {
      auto ext = other.getDefiningOp<arith::ExtFOp>();
      if (!ext || ext.getIn() != biasArg)
        return "";
    }
    if (residualArg)
      return "bias_residual";
    return act.empty() ? "bias" : act == "relu" ? "bias_relu" : "bias_gelu";
  }
  if (v != cArg)
    return "";
  if (residualArg)
    return "residual";
  return act.empty() ? "none" : act;
}

/// Splits an elementwise consumer `f(round(c + bias))` of a GEMM's output
/// `c` that matchGemmEpilogue rejects (exact GELU, tanh, any `f`) into the
/// bias epilogue `round(c + bias)` and `f` over its output in place, so
/// that the GEMM writes the 16-bit biased product (as PyTorch's addmm
/// does) and `f` reads that instead of the f32 product. The rounding is
/// the reference's own, so the split is exact. Without a bias, only a
/// rounding to a 16-bit output splits off. Returns the two new ops, or
/// nothing when `epilogue` does not have that form.
std::optional<std::pair<linalg::GenericOp, linalg::GenericOp>>
splitGemmEpilogue(linalg::GenericOp gemm, linalg::GenericOp epilogue) {
  std::optional<EpilogueOperands> e = epilogueOperands(gemm, epilogue);
  // (The second op reads only the first's output: no residual.)
  if (!e || e->residual)
    return std::nullopt;
  Type outType = e->outType, accType = e->accType;
  BlockArgument cArg = e->cArg, biasArg = e->biasArg;
  OpOperand *cOperand = e->c, *biasOperand = e->bias, *out = e->out;
  Value o = out->get();
  Block *body = epilogue.getBody();
  if (!cArg.hasOneUse())
    return std::nullopt;
  // The split point: round(c + bias), each step the only use of the last.
  SmallVector<Operation *> head;
  Value t = cArg;
  if (biasArg) {
    Value b = biasArg;
    if (!biasArg.hasOneUse())
      return std::nullopt;
    if (auto ext = dyn_cast<arith::ExtFOp>(*biasArg.getUsers().begin())) {
      if (!ext->hasOneUse())
        return std::nullopt;
      head.push_back(ext);
      b = ext;
    }
    auto add = dyn_cast<arith::AddFOp>(*cArg.getUsers().begin());
    if (!add || otherOperand(add, cArg) != b ||
        *b.getUsers().begin() != add.getOperation())
      return std::nullopt;
    head.push_back(add);
    t = add;
  }
  if (outType != accType) {
    if (!t.hasOneUse())
      return std::nullopt;
    auto trunc = dyn_cast<arith::TruncFOp>(*t.getUsers().begin());
    if (!trunc || trunc.getType() != outType)
      return std::nullopt;
    head.push_back(trunc);
    t = trunc;
  } else if (!biasArg) {
    return std::nullopt; // nothing to gain
  }
  Value yielded = body->getTerminator()->getOperand(0);
  if (yielded == t)
    return std::nullopt; // the whole op is the epilogue
  // The rest of the body must not read the GEMM's output or the bias.
  for (Operation &op : body->without_terminator())
    if (!llvm::is_contained(head, &op))
      for (Value v : op.getOperands())
        if (v == cArg || v == biasArg ||
            (v.getDefiningOp() && v != t &&
             llvm::is_contained(head, v.getDefiningOp())))
          return std::nullopt;

  OpBuilder b(epilogue);
  Location loc = epilogue.getLoc();
  SmallVector<Value> ins{cOperand->get()};
  SmallVector<AffineMap> maps{epilogue.getMatchingIndexingMap(cOperand)};
  if (biasOperand) {
    ins.push_back(biasOperand->get());
    maps.push_back(epilogue.getMatchingIndexingMap(biasOperand));
  }
  maps.push_back(epilogue.getMatchingIndexingMap(out));
  SmallVector<utils::IteratorType> iterators = epilogue.getIteratorTypesArray();
  auto biased = linalg::GenericOp::create(
      b, loc, TypeRange{}, ins, ValueRange{o}, maps, iterators,
      [&](OpBuilder &nb, Location l, ValueRange args) {
        IRMapping map;
        map.map(cArg, args[0]);
        if (biasArg)
          map.map(biasArg, args[1]);
        for (Operation *op : head)
          nb.clone(*op, map);
        linalg::YieldOp::create(nb, l, map.lookup(t));
      });
  AffineMap identity = epilogue.getMatchingIndexingMap(out);
  auto rest = linalg::GenericOp::create(
      b, loc, TypeRange{}, ValueRange{}, ValueRange{o},
      ArrayRef<AffineMap>{identity}, iterators,
      [&](OpBuilder &nb, Location l, ValueRange args) {
        IRMapping map;
        map.map(t, args[0]);
        for (Operation &op : body->without_terminator())
          if (!llvm::is_contained(head, &op))
            nb.clone(op, map);
        linalg::YieldOp::create(nb, l, map.lookupOrDefault(yielded));
      });
  for (linalg::GenericOp op : {biased, rest})
    for (StringRef name : {"tgc.group", "tgc.group_kind"})
      if (Attribute a = epilogue->getAttr(name))
        op->setAttr(name, a);
  epilogue->erase();
  return std::make_pair(biased, rest);
}

/// Whether only `gemm` and `epilogue` use the GEMM's output `c` (besides
/// deallocations), or the epilogue writes `c` in place: then the GEMM can
/// write the epilogue's output directly.
bool onlyEpilogueReads(linalg::GenericOp gemm, linalg::GenericOp epilogue) {
  Value c = gemm.getDpsInitOperand(0)->get();
  if (epilogue.getDpsInitOperand(0)->get() == c)
    return true;
  if (!c.getDefiningOp<memref::ViewOp>() && !c.getDefiningOp<memref::AllocOp>())
    return false;
  return llvm::all_of(c.getUsers(), [&](Operation *user) {
    return user == gemm || user == epilogue || isa<memref::DeallocOp>(user);
  });
}

} // namespace mlir::tgc::gpu_kernels
