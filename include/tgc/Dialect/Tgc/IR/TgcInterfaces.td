//===- TgcInterfaces.td - tgc op interfaces --------------------*- tablegen -*-===//

#ifndef TGC_DIALECT_TGC_IR_TGCINTERFACES_TD
#define TGC_DIALECT_TGC_IR_TGCINTERFACES_TD

include "mlir/IR/OpBase.td"

def Tgc_SymbolicShapeOpInterface : OpInterface<"SymbolicShapeOpInterface"> {
  let cppNamespace = "::mlir::tgc";
  let description = [{
    The symbolic shape function of an op: given the symbolic shapes of its
    operands (expressions over size symbols), it sets the symbolic shapes of
    its results and requires the constraints the op needs to be well
    defined (matmul inner sizes equal, broadcast compatibility,
    `k <= size(dim)` for topk, equal element counts for reshape, an out
    buffer compatible with the value written into it).

    A shape function never concretizes a size: it never compares a symbol
    with its example value. Every requirement is a constraint with a reason;
    tgc-generate-guards turns the ones that are not implied into guards.
  }];
  let methods = [
    InterfaceMethod<[{
        Sets the symbolic shapes of the op's tensor results in `ctx` and
        requires the op's constraints. Returns failure (with a diagnostic)
        when a constraint can never hold.
      }],
      "::llvm::LogicalResult", "inferSymbolicShapes",
      (ins "::mlir::tgc::ShapeInferenceContext &":$ctx)>
  ];
}

#endif // TGC_DIALECT_TGC_IR_TGCINTERFACES_TD
