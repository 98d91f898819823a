//===- TgcGuardOps.cpp - tgc_guard dialect operations ---------------------===//
//
// Verifiers (intrinsic ones per op; checks against the guarded function's
// signature through GuardSetOp::verifySymbolUses) and descriptions.
//
//===----------------------------------------------------------------------===//

#include "tgc/Dialect/TgcGuard/IR/TgcGuardOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <limits>

using namespace mlir;
using namespace mlir::tgc;
using namespace mlir::tgc::guard;

//===----------------------------------------------------------------------===//
// Custom directives
//===----------------------------------------------------------------------===//

// The size-list and upper-bound syntax is tgc_sym's; the generated parsers
// call the directives unqualified from this namespace.
namespace mlir::tgc::guard {
using sym::parseSizeList;
using sym::parseUpperBound;
using sym::printSizeList;
using sym::printUpperBound;
} // namespace mlir::tgc::guard

/// An integer, or `-inf` for an absent lower bound.
static ParseResult parseLowerBound(OpAsmParser &parser, IntegerAttr &lower) {
  SMLoc loc = parser.getCurrentLocation();
  bool negative = succeeded(parser.parseOptionalMinus());
  if (negative && succeeded(parser.parseOptionalKeyword("inf"))) {
    lower = {};
    return success();
  }
  APInt value;
  if (parser.parseInteger(value))
    return failure();
  if (negative)
    value = -value.sext(value.getBitWidth() + 1);
  if (value.getSignificantBits() > 64)
    return parser.emitError(loc, "bound does not fit in 64 bits");
  lower = parser.getBuilder().getI64IntegerAttr(value.getSExtValue());
  return success();
}

static void printLowerBound(OpAsmPrinter &printer, Operation *,
                            IntegerAttr lower) {
  if (lower)
    printer << lower.getInt();
  else
    printer << "-inf";
}

#include "tgc/Dialect/TgcGuard/IR/TgcGuardInterfaces.cpp.inc"

#define GET_OP_CLASSES
#include "tgc/Dialect/TgcGuard/IR/TgcGuardOps.cpp.inc"

void TgcGuardDialect::registerOps() {
  addOperations<
#define GET_OP_LIST
#include "tgc/Dialect/TgcGuard/IR/TgcGuardOps.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

static std::string argName(int64_t arg) { return "arg" + std::to_string(arg); }

/// `[lower, upper]` with absent bounds as `-inf` / `inf`, or `== v` when the
/// range holds one value.
static std::string describeRange(StringRef subject,
                                 std::optional<int64_t> lower,
                                 std::optional<int64_t> upper) {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (lower && upper && *lower == *upper) {
    os << subject << " == " << *lower;
    return text;
  }
  // Half-open ranges read as comparisons: the form of a recompile message
  // ("s0 >= 10").
  if (lower && !upper) {
    os << subject << " >= " << *lower;
    return text;
  }
  if (!lower && upper) {
    os << subject << " <= " << *upper;
    return text;
  }
  os << subject << " in [";
  if (lower)
    os << *lower;
  else
    os << "-inf";
  os << ", ";
  if (upper)
    os << *upper;
  else
    os << "inf";
  os << ']';
  return text;
}

/// The type of argument `arg` of `function`, or an error on `op` when the
/// index is out of range.
static FailureOr<Type>
getArgumentType(Operation *op, FunctionOpInterface function, int64_t arg) {
  ArrayRef<Type> types = function.getArgumentTypes();
  if (arg < 0 || arg >= static_cast<int64_t>(types.size()))
    return op->emitOpError() << "arg " << arg << " is out of range: @"
                             << SymbolTable::getSymbolName(function).getValue()
                             << " has " << types.size() << " arguments";
  return types[arg];
}

/// The tensor type of argument `arg` (a memref once the function is
/// bufferized: guard sets of GPU functions outlive bufferization and become
/// part of the launch plan), or an error on `op`.
static FailureOr<ShapedType>
getTensorArgument(Operation *op, FunctionOpInterface function, int64_t arg) {
  FailureOr<Type> type = getArgumentType(op, function, arg);
  if (failed(type))
    return failure();
  if (!isa<TensorType, BaseMemRefType>(*type))
    return op->emitOpError()
           << "arg " << arg << " must be a tensor, got " << *type;
  return cast<ShapedType>(*type);
}

//===----------------------------------------------------------------------===//
// GuardSetOp
//===----------------------------------------------------------------------===//

void GuardSetOp::build(OpBuilder &builder, OperationState &state,
                       FunctionOpInterface function) {
  state.getOrAddProperties<Properties>().function = FlatSymbolRefAttr::get(
      builder.getContext(), SymbolTable::getSymbolName(function).getValue());
  state.addRegion()->emplaceBlock();
}

LogicalResult GuardSetOp::verifyRegions() {
  Block *body = getBody();
  if (body->getNumArguments() != 0)
    return emitOpError() << "body must not have arguments";
  bool valid = true;
  for (Operation &op : *body) {
    if (auto symbol = dyn_cast<sym::SymbolOp>(op)) {
      if (!symbol.hasSource()) {
        symbol.emitOpError()
            << "in a guard set must have 'from arg N dim D' (guards read "
               "sizes from the arguments)";
        valid = false;
      }
      continue;
    }
    if (isa<sym::MinOp, sym::MaxOp, GuardOpInterface>(op))
      continue;
    op.emitOpError() << "is not allowed in a guard set (only tgc_sym.symbol, "
                        "tgc_sym.min, tgc_sym.max and guard checks)";
    valid = false;
  }
  return success(valid);
}

LogicalResult GuardSetOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  Operation *target =
      symbolTable.lookupNearestSymbolFrom(*this, getFunctionAttr());
  if (!target)
    return emitOpError() << "guards unknown function " << getFunctionAttr();
  auto function = dyn_cast<FunctionOpInterface>(target);
  if (!function)
    return emitOpError() << getFunctionAttr() << " is not a function";
  bool valid = true;
  for (Operation &op : *getBody()) {
    if (auto symbol = dyn_cast<sym::SymbolOp>(op)) {
      if (symbol.hasSource() &&
          failed(sym::verifyArgumentDim(symbol, function, *symbol.getArg(),
                                        *symbol.getDim())))
        valid = false;
      continue;
    }
    if (auto guard = dyn_cast<GuardOpInterface>(op))
      if (failed(guard.verifyAgainstFunction(function)))
        valid = false;
  }
  return success(valid);
}

//===----------------------------------------------------------------------===//
// DtypeOp
//===----------------------------------------------------------------------===//

LogicalResult DtypeOp::verifyAgainstFunction(FunctionOpInterface function) {
  FailureOr<ShapedType> type = getTensorArgument(*this, function, getArg());
  if (failed(type))
    return failure();
  // ui8 guards an i8 argument that stores a uint8 tensor (`tgc.unsigned`).
  Type element = type->getElementType();
  bool unsignedStorage =
      getDtype().isUnsignedInteger(8) && element.isSignlessInteger(8);
  if (element != getDtype() && !unsignedStorage)
    return emitOpError() << "expects element type " << getDtype() << " but arg "
                         << getArg() << " has element type "
                         << type->getElementType();
  return success();
}

std::string DtypeOp::describe() {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "dtype(" << argName(getArg()) << ") == " << getDtype();
  return text;
}

//===----------------------------------------------------------------------===//
// RankOp
//===----------------------------------------------------------------------===//

LogicalResult RankOp::verifyAgainstFunction(FunctionOpInterface function) {
  FailureOr<ShapedType> type = getTensorArgument(*this, function, getArg());
  if (failed(type))
    return failure();
  if (type->hasRank() && type->getRank() != getRank())
    return emitOpError() << "expects rank " << getRank() << " but arg "
                         << getArg() << " has rank " << type->getRank();
  return success();
}

std::string RankOp::describe() {
  return "rank(" + argName(getArg()) + ") == " + std::to_string(getRank());
}

//===----------------------------------------------------------------------===//
// DeviceOp
//===----------------------------------------------------------------------===//

LogicalResult DeviceOp::verify() {
  StringRef device = getDevice();
  if (device == "cpu" || device == "cuda")
    return success();
  StringRef index = device;
  if (!index.consume_front("cuda:") || index.empty() ||
      !llvm::all_of(index, llvm::isDigit))
    return emitOpError() << "device '" << device
                         << "' is not \"cpu\", \"cuda\" or \"cuda:N\"";
  // The descriptor's device index is an int32_t: a larger N would be
  // compared in 32 bits by some checks and in 64 by others.
  int64_t n;
  if (index.getAsInteger(10, n) || n > std::numeric_limits<int32_t>::max())
    return emitOpError() << "device index " << index
                         << " does not fit in 32 bits";
  return success();
}

LogicalResult DeviceOp::verifyAgainstFunction(FunctionOpInterface function) {
  return getTensorArgument(*this, function, getArg());
}

std::string DeviceOp::describe() {
  return "device(" + argName(getArg()) + ") == " + getDevice().str();
}

//===----------------------------------------------------------------------===//
// ContiguousOp
//===----------------------------------------------------------------------===//

LogicalResult
ContiguousOp::verifyAgainstFunction(FunctionOpInterface function) {
  return getTensorArgument(*this, function, getArg());
}

std::string ContiguousOp::describe() {
  return argName(getArg()) + " contiguous";
}

//===----------------------------------------------------------------------===//
// AlignedOp
//===----------------------------------------------------------------------===//

LogicalResult AlignedOp::verify() {
  int64_t alignment = getAlignment();
  if (alignment <= 0 || !llvm::isPowerOf2_64(alignment))
    return emitOpError() << "alignment " << alignment
                         << " is not a positive power of two";
  return success();
}

LogicalResult AlignedOp::verifyAgainstFunction(FunctionOpInterface function) {
  return getTensorArgument(*this, function, getArg());
}

std::string AlignedOp::describe() {
  return argName(getArg()) + " aligned to " + std::to_string(getAlignment());
}

//===----------------------------------------------------------------------===//
// NoAliasOp
//===----------------------------------------------------------------------===//

LogicalResult NoAliasOp::verify() {
  if (getLhs() == getRhs())
    return emitOpError() << "needs two different arguments, got arg "
                         << getLhs() << " twice";
  return success();
}

LogicalResult NoAliasOp::verifyAgainstFunction(FunctionOpInterface function) {
  return success(succeeded(getTensorArgument(*this, function, getLhs())) &&
                 succeeded(getTensorArgument(*this, function, getRhs())));
}

std::string NoAliasOp::describe() {
  return argName(getLhs()) + " does not alias " + argName(getRhs());
}

//===----------------------------------------------------------------------===//
// NoAliasOutsOp
//===----------------------------------------------------------------------===//

LogicalResult NoAliasOutsOp::verify() {
  ArrayRef<int64_t> outs = getOuts();
  if (outs.empty())
    return emitOpError() << "needs at least one out argument";
  llvm::SmallDenseSet<int64_t> seen;
  for (int64_t o : outs) {
    if (o < 0)
      return emitOpError() << "has a negative argument index " << o;
    if (!seen.insert(o).second)
      return emitOpError() << "lists arg " << o << " twice";
  }
  return success();
}

LogicalResult
NoAliasOutsOp::verifyAgainstFunction(FunctionOpInterface function) {
  for (int64_t o : getOuts())
    if (failed(getTensorArgument(*this, function, o)))
      return failure();
  return success();
}

std::string NoAliasOutsOp::describe() {
  std::string list;
  for (int64_t o : getOuts())
    list += (list.empty() ? "" : ", ") + argName(o);
  return list + " alias no other tensor argument";
}

//===----------------------------------------------------------------------===//
// ScalarOp
//===----------------------------------------------------------------------===//

LogicalResult ScalarOp::verify() {
  std::optional<int64_t> lower = getLower(), upper = getUpper();
  if (lower && upper && *upper < *lower)
    return emitOpError() << "upper bound " << *upper
                         << " is less than lower bound " << *lower;
  return success();
}

LogicalResult ScalarOp::verifyAgainstFunction(FunctionOpInterface function) {
  FailureOr<Type> type = getArgumentType(*this, function, getArg());
  if (failed(type))
    return failure();
  if (!isa<IntegerType, IndexType>(*type))
    return emitOpError() << "arg " << getArg()
                         << " must be an integer or index scalar, got "
                         << *type;
  return success();
}

std::string ScalarOp::describe() {
  return describeRange(argName(getArg()), getLower(), getUpper());
}

//===----------------------------------------------------------------------===//
// RangeOp
//===----------------------------------------------------------------------===//

LogicalResult RangeOp::verify() {
  std::optional<int64_t> upper = getUpper();
  if (upper && *upper < getLower())
    return emitOpError() << "upper bound " << *upper
                         << " is less than lower bound " << getLower();
  return success();
}

std::string RangeOp::describe() {
  // Sizes are never negative: a lower bound of 0 says nothing.
  std::optional<int64_t> lower = getLower();
  if (*lower == 0 && getUpper())
    lower = std::nullopt;
  return describeRange(sym::describeSize(getSize()), lower, getUpper());
}

//===----------------------------------------------------------------------===//
// RelationOp
//===----------------------------------------------------------------------===//

LogicalResult RelationOp::verify() {
  return sym::verifyConstraint(*this, getKind(), getMap(), getSizes());
}

std::string RelationOp::describe() {
  return sym::describeConstraint(getKind(), getMap(), getSizes());
}
