//===- GuardTable.cpp - guards checked from a table -----------------------===//

#include "GuardTable.h"

#include "tgc/Dialect/TgcGuard/IR/TgcGuardOps.h"
#include "tgc/Dialect/TgcSym/IR/TgcSymOps.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/TypeSwitch.h"

#include <limits>

using namespace mlir;
using namespace mlir::tgc;

namespace mlir::tgc::guard_lowering {

namespace {
/// Record kinds (the record's second field).
enum Kind : int32_t {
  kRank = 0,       // rank == a
  kDtype = 1,      // dtype == a
  kDevice = 2,     // device type == a, and index == b unless b < 0
  kContiguous = 3, // rank == a, row-major dense strides (dims of 1 aside)
  kRange = 4,      // a <= sizes[dim] <= b
};
constexpr int64_t kFields = 6;
} // namespace

std::optional<int32_t> dtypeCode(Type t) {
  if (t.isF32())
    return 0;
  if (t.isF16())
    return 1;
  if (t.isBF16())
    return 2;
  if (t.isF64())
    return 3;
  if (t.isUnsignedInteger(8))
    return 8; // TGC_DTYPE_U8: i8 storage, guarded as uint8
  if (t.isSignlessInteger(64))
    return 4;
  if (t.isSignlessInteger(32))
    return 5;
  if (t.isSignlessInteger(8))
    return 6;
  if (t.isSignlessInteger(1))
    return 7;
  return std::nullopt;
}

std::optional<GuardRecord> tableRecord(Operation *op, int32_t index,
                                       FunctionOpInterface target) {
  auto record = [&](Kind kind, int64_t arg, int64_t dim, int64_t a,
                    int64_t b) -> std::optional<GuardRecord> {
    if (arg < 0 || dim < 0)
      return std::nullopt;
    return GuardRecord{index, kind, arg, dim, a, b};
  };
  return llvm::TypeSwitch<Operation *, std::optional<GuardRecord>>(op)
      .Case([&](guard::RankOp g) {
        return record(kRank, g.getArg(), 0, g.getRank(), 0);
      })
      .Case([&](guard::DtypeOp g) -> std::optional<GuardRecord> {
        std::optional<int32_t> code = dtypeCode(g.getDtype());
        if (!code)
          return std::nullopt; // (the code path reports the error)
        return record(kDtype, g.getArg(), 0, *code, 0);
      })
      .Case([&](guard::DeviceOp g) -> std::optional<GuardRecord> {
        StringRef device = g.getDevice();
        bool cuda = device.starts_with("cuda");
        int64_t deviceIndex = -1;
        if (device.consume_front("cuda:") &&
            (device.getAsInteger(10, deviceIndex) || deviceIndex < 0))
          return std::nullopt;
        return record(kDevice, g.getArg(), 0, cuda, deviceIndex);
      })
      .Case([&](guard::ContiguousOp g) -> std::optional<GuardRecord> {
        ArrayRef<Type> inputs = target.getArgumentTypes();
        int64_t arg = g.getArg();
        if (arg < 0 || arg >= static_cast<int64_t>(inputs.size()))
          return std::nullopt;
        auto type = dyn_cast<RankedTensorType>(inputs[arg]);
        if (!type)
          return std::nullopt;
        return record(kContiguous, arg, 0, type.getRank(), 0);
      })
      .Case([&](guard::RangeOp g) -> std::optional<GuardRecord> {
        auto symbol = g.getSize().getDefiningOp<sym::SymbolOp>();
        if (!symbol || !symbol.hasSource())
          return std::nullopt;
        return record(
            kRange, *symbol.getArg(), *symbol.getDim(), g.getLower(),
            g.getUpper().value_or(std::numeric_limits<int64_t>::max()));
      })
      .Default([](Operation *) { return std::nullopt; });
}

LLVM::GlobalOp buildGuardTable(OpBuilder &b, Location loc, StringRef name,
                               ArrayRef<GuardRecord> records) {
  SmallVector<int64_t> flat;
  for (const GuardRecord &r : records)
    llvm::append_range(flat, r);
  auto tensor = RankedTensorType::get({static_cast<int64_t>(flat.size())},
                                      b.getI64Type());
  auto type = LLVM::LLVMArrayType::get(b.getI64Type(), flat.size());
  return LLVM::GlobalOp::create(
      b, loc, type, /*isConstant=*/true, LLVM::Linkage::Internal, name,
      DenseElementsAttr::get(tensor, ArrayRef<int64_t>(flat)),
      /*alignment=*/8);
}

LLVM::LLVMFuncOp buildGuardTableCheck(OpBuilder &builder, Location loc,
                                      StringRef name) {
  MLIRContext *ctx = builder.getContext();
  Type ptrTy = LLVM::LLVMPointerType::get(ctx);
  Type i1 = builder.getI1Type(), i32 = builder.getI32Type(),
       i64 = builder.getI64Type();
  auto fnTy = LLVM::LLVMFunctionType::get(i32, {ptrTy, i32, ptrTy, i64, i64});
  auto fn = LLVM::LLVMFuncOp::create(builder, loc, name, fnTy,
                                     LLVM::Linkage::Internal);
  OpBuilder b(ctx);
  Region &body = fn.getBody();
  Block *entry = fn.addEntryBlock(b);
  Value args = entry->getArgument(0), numArgs = entry->getArgument(1),
        table = entry->getArgument(2), begin = entry->getArgument(3),
        end = entry->getArgument(4);
  auto block = [&](ArrayRef<Type> types = {}) {
    SmallVector<Location> locs(types.size(), loc);
    return b.createBlock(&body, body.end(), types, locs);
  };
  auto cst = [&](int64_t v) -> Value {
    return LLVM::ConstantOp::create(b, loc, i64, v);
  };
  auto cmp = [&](LLVM::ICmpPredicate p, Value l, Value r) -> Value {
    return LLVM::ICmpOp::create(b, loc, p, l, r);
  };
  auto land = [&](Value l, Value r) -> Value {
    return LLVM::AndOp::create(b, loc, l, r);
  };
  auto lor = [&](Value l, Value r) -> Value {
    return LLVM::OrOp::create(b, loc, l, r);
  };
  auto at = [&](Value base, Type element, Value index) -> Value {
    return LLVM::GEPOp::create(b, loc, ptrTy, element, base,
                               ArrayRef<LLVM::GEPArg>{index});
  };
  auto field = [&](Value desc, int64_t offset, Type type) -> Value {
    Value p = LLVM::GEPOp::create(
        b, loc, ptrTy, b.getI8Type(), desc,
        ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(offset)});
    return LLVM::LoadOp::create(b, loc, type, p);
  };
  auto wide = [&](Value v) -> Value {
    return LLVM::SExtOp::create(b, loc, i64, v);
  };

  Block *header = block({i64});
  Block *body0 = block();
  Block *haveArg = block();
  Block *rankB = block(), *dtypeB = block(), *deviceB = block(),
        *rangeB = block(), *rangeLoad = block(), *contB = block(),
        *contInit = block();
  Block *contHeader = block({i64, i64, i1});
  Block *contBody = block(), *contStride = block(), *contNext = block(),
        *contEnd = block();
  Block *latch = block(), *done = block(), *fail = block({i32});

  b.setInsertionPointToEnd(entry);
  LLVM::BrOp::create(b, loc, ValueRange{begin}, header);

  b.setInsertionPointToEnd(header);
  Value i = header->getArgument(0);
  LLVM::CondBrOp::create(b, loc, cmp(LLVM::ICmpPredicate::slt, i, end), body0,
                         done);

  // The record's fields; the argument exists.
  b.setInsertionPointToEnd(body0);
  Value rec = at(table, i64, LLVM::MulOp::create(b, loc, i, cst(kFields)));
  auto recField = [&](int64_t k) -> Value {
    return LLVM::LoadOp::create(b, loc, i64, at(rec, i64, cst(k)));
  };
  Value index = LLVM::TruncOp::create(b, loc, i32, recField(0));
  Value kind = LLVM::TruncOp::create(b, loc, i32, recField(1));
  Value arg = recField(2), dim = recField(3), a = recField(4),
        bound = recField(5);
  LLVM::CondBrOp::create(b, loc,
                         cmp(LLVM::ICmpPredicate::slt, arg, wide(numArgs)),
                         haveArg, ValueRange{}, fail, ValueRange{index});

  b.setInsertionPointToEnd(haveArg);
  Value desc =
      at(args, b.getI8Type(), LLVM::MulOp::create(b, loc, arg, cst(kDescSize)));
  Value rank = field(desc, kRankOffset, i64);
  SmallVector<ValueRange> noOperands(5, ValueRange{});
  LLVM::SwitchOp::create(
      b, loc, kind, fail, ValueRange{index},
      ArrayRef<int32_t>{kRank, kDtype, kDevice, kContiguous, kRange},
      BlockRange{rankB, dtypeB, deviceB, contB, rangeB}, noOperands);

  // Continues with the next record when `ok`, else fails.
  auto next = [&](Value ok) {
    LLVM::CondBrOp::create(b, loc, ok, latch, ValueRange{}, fail,
                           ValueRange{index});
  };
  b.setInsertionPointToEnd(rankB);
  next(cmp(LLVM::ICmpPredicate::eq, rank, a));

  b.setInsertionPointToEnd(dtypeB);
  next(cmp(LLVM::ICmpPredicate::eq, wide(field(desc, kDtypeOffset, i32)), a));

  b.setInsertionPointToEnd(deviceB);
  Value typeOk = cmp(LLVM::ICmpPredicate::eq,
                     wide(field(desc, kDeviceTypeOffset, i32)), a);
  Value indexOk = lor(cmp(LLVM::ICmpPredicate::slt, bound, cst(0)),
                      cmp(LLVM::ICmpPredicate::eq,
                          wide(field(desc, kDeviceIndexOffset, i32)), bound));
  next(land(typeOk, indexOk));

  // a <= sizes[dim] <= b, after dim < rank; a size outside [0, kMaxSize)
  // fails, as the guard function's loads do.
  auto sizeInRange = [&](Value size) {
    return land(cmp(LLVM::ICmpPredicate::sge, size, cst(0)),
                cmp(LLVM::ICmpPredicate::slt, size, cst(kMaxSize)));
  };
  b.setInsertionPointToEnd(rangeB);
  LLVM::CondBrOp::create(b, loc, cmp(LLVM::ICmpPredicate::sgt, rank, dim),
                         rangeLoad, ValueRange{}, fail, ValueRange{index});
  b.setInsertionPointToEnd(rangeLoad);
  Value size = LLVM::LoadOp::create(
      b, loc, i64, at(field(desc, kSizesOffset, ptrTy), i64, dim));
  next(land(sizeInRange(size),
            land(cmp(LLVM::ICmpPredicate::sge, size, a),
                 cmp(LLVM::ICmpPredicate::sle, size, bound))));

  // Contiguous: from the last dim, stride == the product of the sizes
  // after it, or size 1; any layout of an empty tensor (as the guard
  // function's contiguity check, and PyTorch's is_contiguous).
  b.setInsertionPointToEnd(contB);
  LLVM::CondBrOp::create(b, loc, cmp(LLVM::ICmpPredicate::eq, rank, a),
                         contInit, ValueRange{}, fail, ValueRange{index});
  b.setInsertionPointToEnd(contInit);
  Value sizes = field(desc, kSizesOffset, ptrTy);
  Value strides = field(desc, kStridesOffset, ptrTy);
  LLVM::BrOp::create(b, loc,
                     ValueRange{LLVM::SubOp::create(b, loc, a, cst(1)), cst(1),
                                LLVM::ConstantOp::create(b, loc, i1, 1)},
                     contHeader);
  b.setInsertionPointToEnd(contHeader);
  Value d = contHeader->getArgument(0), expected = contHeader->getArgument(1),
        allOk = contHeader->getArgument(2);
  LLVM::CondBrOp::create(b, loc, cmp(LLVM::ICmpPredicate::sge, d, cst(0)),
                         contBody, contEnd);
  b.setInsertionPointToEnd(contBody);
  Value dimSize = LLVM::LoadOp::create(b, loc, i64, at(sizes, i64, d));
  LLVM::CondBrOp::create(b, loc, sizeInRange(dimSize), contStride, ValueRange{},
                         fail, ValueRange{index});
  b.setInsertionPointToEnd(contStride);
  Value stride = LLVM::LoadOp::create(b, loc, i64, at(strides, i64, d));
  Value dimOk = lor(cmp(LLVM::ICmpPredicate::eq, dimSize, cst(1)),
                    cmp(LLVM::ICmpPredicate::eq, stride, expected));
  auto resTy = LLVM::LLVMStructType::getLiteral(ctx, {i64, i1});
  Value product =
      LLVM::SMulWithOverflowOp::create(b, loc, resTy, expected, dimSize);
  Value productValue = LLVM::ExtractValueOp::create(b, loc, product, 0);
  Value overflow = LLVM::ExtractValueOp::create(b, loc, product, 1);
  LLVM::CondBrOp::create(b, loc, overflow, fail, ValueRange{index}, contNext,
                         ValueRange{});
  b.setInsertionPointToEnd(contNext);
  LLVM::BrOp::create(b, loc,
                     ValueRange{LLVM::SubOp::create(b, loc, d, cst(1)),
                                productValue, land(allOk, dimOk)},
                     contHeader);
  b.setInsertionPointToEnd(contEnd);
  next(lor(allOk, cmp(LLVM::ICmpPredicate::eq, expected, cst(0))));

  b.setInsertionPointToEnd(latch);
  LLVM::BrOp::create(b, loc, ValueRange{LLVM::AddOp::create(b, loc, i, cst(1))},
                     header);
  b.setInsertionPointToEnd(done);
  LLVM::ReturnOp::create(b, loc,
                         LLVM::ConstantOp::create(b, loc, i32, int64_t(-1)));
  b.setInsertionPointToEnd(fail);
  LLVM::ReturnOp::create(b, loc, fail->getArgument(0));
  return fn;
}

} // namespace mlir::tgc::guard_lowering
