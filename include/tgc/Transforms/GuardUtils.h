//===- GuardUtils.h - building and reading guards ---------------*- C++ -*-===//

#ifndef TGC_TRANSFORMS_GUARDUTILS_H
#define TGC_TRANSFORMS_GUARDUTILS_H

#include "tgc/Analysis/SymbolicIR.h"

#include "mlir/IR/Builders.h"

#include <string>

namespace mlir::tgc {

/// "model.py:12:5", the name of a NameLoc, the first known location of a
/// FusedLoc, or "unknown location".
std::string formatLocation(Location loc);

/// Creates the guard for `lhs kind rhs`: a tgc_guard.range when one side is
/// a lone input symbol and the other a constant (ge, le, eq), otherwise a
/// tgc_guard.relation.
void createSizeGuard(OpBuilder &builder, SymbolicIR &ir, ShapeEnv &env,
                     Location loc, ConstraintKind kind, AffineExpr lhs,
                     AffineExpr rhs, StringRef reason);

/// The size constraints a size guard stands for (a range guard is one or
/// two bounds); empty for other guards.
SmallVector<SizeConstraint> constraintsOfGuard(Operation *guard,
                                               SymbolicIR &ir);

} // namespace mlir::tgc

#endif // TGC_TRANSFORMS_GUARDUTILS_H
