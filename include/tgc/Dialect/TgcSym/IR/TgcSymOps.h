//===- TgcSymOps.h - tgc_sym dialect operations -----------------*- C++ -*-===//
//
// Operations of the tgc_sym dialect, and the helpers tgc_guard shares with
// it: the `[%s0 * 2, 3]` size-list syntax, size-map verification and
// readable descriptions of sizes and constraints.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_DIALECT_TGCSYM_IR_TGCSYMOPS_H
#define TGC_DIALECT_TGCSYM_IR_TGCSYMOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "tgc/Dialect/TgcSym/IR/TgcSymDialect.h"

#include "tgc/Dialect/TgcSym/IR/TgcSymEnums.h.inc"

#define GET_TYPEDEF_CLASSES
#include "tgc/Dialect/TgcSym/IR/TgcSymOpsTypes.h.inc"

namespace mlir::tgc::sym {

//===----------------------------------------------------------------------===//
// Custom assembly directives (shared with tgc_guard)
//===----------------------------------------------------------------------===//

/// `custom<SizeList>($sizes, $map)`: a bracketed list of expressions over
/// SSA size values, `[%s0 * 2, %s1 + 1, 3]`, `[%s0 * %s1]`. The map has no
/// dimensions and one symbol per distinct value, numbered in order of first
/// use in the (simplified) results; values that simplify away
/// (`%s0 - %s0`) are not operands. Grammar, with MLIR's affine precedence:
///
///   list   ::= `[` (sum (`,` sum)*)? `]`
///   sum    ::= term ((`+` | `-`) term)*
///   term   ::= factor ((`*` | `floordiv` | `ceildiv` | `mod`) factor)*
///   factor ::= `-` factor | integer | ssa-value | `(` sum `)`
///
/// Operators are left-associative; a constant divisor must be positive.
/// The printer writes the fewest parentheses the grammar needs, in a form
/// that reads back as the same map.
ParseResult
parseSizeList(OpAsmParser &parser,
              SmallVectorImpl<OpAsmParser::UnresolvedOperand> &sizes,
              AffineMapAttr &map);
void printSizeList(OpAsmPrinter &printer, Operation *op, OperandRange sizes,
                   AffineMapAttr map);

/// `custom<UpperBound>($upper)`: an integer, or `inf` for an absent bound.
ParseResult parseUpperBound(OpAsmParser &parser, IntegerAttr &upper);
void printUpperBound(OpAsmPrinter &printer, Operation *op, IntegerAttr upper);

//===----------------------------------------------------------------------===//
// Verification helpers
//===----------------------------------------------------------------------===//

/// Whether `name` matches `[A-Za-z_][A-Za-z0-9_]*`.
bool isIdentifier(StringRef name);

/// Checks that `map` is a list of expressions over `numSizes` size operands
/// stored as map symbols (no dimensions), with positive constant divisors.
/// `what` names the map in messages.
LogicalResult verifySizeMap(Operation *op, AffineMap map, unsigned numSizes,
                            StringRef what);

/// Checks a `[lhs, rhs]` constraint map of `kind` (tgc_sym.constrain and
/// tgc_guard.relation): exactly two expressions, a positive divisor for
/// `divisible`, and not false when both sides are constants.
LogicalResult verifyConstraint(Operation *op, ConstraintKind kind,
                               AffineMap map, ValueRange sizes);

/// Checks that dimension `dim` of argument `arg` of `function` exists: `arg`
/// is in range and is a ranked tensor of rank greater than `dim`. Errors are
/// reported on `op`.
LogicalResult verifyArgumentDim(Operation *op, FunctionOpInterface function,
                                int64_t arg, int64_t dim);

//===----------------------------------------------------------------------===//
// Readable text (guard and recompile messages)
//===----------------------------------------------------------------------===//

/// The name of a size value: the symbol's name, a named min/max's name,
/// `min(s0, s1 + 2)` for an unnamed one, or `fallback` for anything else.
std::string describeSize(Value size, StringRef fallback = "?");

/// `expr` with map symbol `i` printed as the name of `sizes[i]`
/// (`d<i>` when it has none), in the size-list syntax: `s0 * 2 + 1`,
/// `s0 * s1 - 1`.
std::string describeExpr(AffineExpr expr, ValueRange sizes);

/// Prints a size expression in the size-list syntax (MLIR precedence,
/// minimal parentheses, `a - b` spellings), with `printSymbol(i)` in place
/// of affine symbol `i`. Shared by the size-list printer, guard
/// descriptions and ShapeEnv.
void printSizeExpr(llvm::raw_ostream &os, AffineExpr expr,
                   llvm::function_ref<void(unsigned)> printSymbol);

/// The comparison seen from the other side: ge <-> le; other kinds are
/// symmetric.
ConstraintKind flipConstraint(ConstraintKind kind);

/// `lhs kind rhs` for a two-result constraint map: `s0 >= 10`,
/// `s0 mod 4 == 0`, `broadcastable(s0, s1)`.
std::string describeConstraint(ConstraintKind kind, AffineMap map,
                               ValueRange sizes);

} // namespace mlir::tgc::sym

#define GET_OP_CLASSES
#include "tgc/Dialect/TgcSym/IR/TgcSymOps.h.inc"

#endif // TGC_DIALECT_TGCSYM_IR_TGCSYMOPS_H
