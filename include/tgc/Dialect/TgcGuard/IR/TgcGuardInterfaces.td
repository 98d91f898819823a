//===- TgcGuardInterfaces.td - tgc_guard interfaces -------*- tablegen -*-===//

#ifndef TGC_DIALECT_TGCGUARD_IR_TGCGUARDINTERFACES_TD
#define TGC_DIALECT_TGCGUARD_IR_TGCGUARDINTERFACES_TD

include "mlir/IR/Interfaces.td"

def TgcGuard_GuardOpInterface : OpInterface<"GuardOpInterface"> {
  let cppNamespace = "::mlir::tgc::guard";
  let description = [{
    One check of a `tgc_guard.guard_set`. Every check has a non-empty
    reason and a readable description, which recompile messages print
    with the expected and actual values.
  }];
  let methods = [
    InterfaceMethod<"Why the check exists (for recompile messages).",
      "::llvm::StringRef", "getReason", (ins),
      /*methodBody=*/[{ return $_op.getReason(); }]>,
    InterfaceMethod<[{
        Readable text of the condition: `dtype(arg0) == f32`, `s0 >= 10`,
        `s0 in [10, inf]`, `s1 == s0 * 2`, `arg0 contiguous`.
      }],
      "std::string", "describe">,
    InterfaceMethod<[{
        Checks the guard against the signature of the guarded function
        (argument indices, kinds and types); errors are reported on the
        guard.
      }],
      "::llvm::LogicalResult", "verifyAgainstFunction",
      (ins "::mlir::FunctionOpInterface":$function), /*methodBody=*/[{}],
      /*defaultImplementation=*/[{ return ::mlir::success(); }]>,
  ];
  let verify = [{
    if (::llvm::cast<GuardOpInterface>($_op).getReason().empty())
      return $_op->emitOpError() << "reason must not be empty";
    return ::mlir::success();
  }];
}

#endif // TGC_DIALECT_TGCGUARD_IR_TGCGUARDINTERFACES_TD
