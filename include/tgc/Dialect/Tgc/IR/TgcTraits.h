//===- TgcTraits.h - tgc op traits ------------------------------*- C++ -*-===//

#ifndef TGC_DIALECT_TGC_IR_TGCTRAITS_H
#define TGC_DIALECT_TGC_IR_TGCTRAITS_H

#include "mlir/IR/OpDefinition.h"
#include "llvm/ADT/SmallVector.h"

namespace mlir::OpTrait {

/// Runs the op's result type inference during verification, before the
/// generic InferTypeOpInterface check, so that an invalid op (incompatible
/// broadcast, out-of-range dim, ...) gets exactly one diagnostic: the precise
/// one from its shape rule.
template <typename ConcreteType>
class TgcVerifyInferredTypes
    : public TraitBase<ConcreteType, TgcVerifyInferredTypes> {
public:
  static LogicalResult verifyTrait(Operation *op) {
    llvm::SmallVector<Type> inferred;
    if (failed(ConcreteType::inferReturnTypes(
            op->getContext(), op->getLoc(), op->getOperands(),
            op->getRawDictionaryAttrs(), op->getPropertiesStorage(),
            op->getRegions(), inferred)))
      return failure();
    if (!ConcreteType::isCompatibleReturnTypes(inferred, op->getResultTypes()))
      return op->emitOpError("inferred type(s) ")
             << inferred
             << " are incompatible with return type(s) of operation "
             << op->getResultTypes();
    return success();
  }
};

} // namespace mlir::OpTrait

#endif // TGC_DIALECT_TGC_IR_TGCTRAITS_H
