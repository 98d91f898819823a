//===- TgcGuardBase.td - tgc_guard dialect definition -----*- tablegen -*-===//

#ifndef TGC_DIALECT_TGCGUARD_IR_TGCGUARDBASE_TD
#define TGC_DIALECT_TGCGUARD_IR_TGCGUARDBASE_TD

include "mlir/IR/OpBase.td"

def TgcGuard_Dialect : Dialect {
  let name = "tgc_guard";
  let cppNamespace = "::mlir::tgc::guard";
  let summary = "Checks on a compiled function's inputs that decide reuse";
  let description = [{
    A compiled artifact is correct only for some inputs: the dtypes, ranks,
    layouts and sizes it was specialized for. The `tgc_guard` dialect states
    those conditions as checks on the runtime arguments of one function
    (data pointer, dtype, device, rank, sizes, strides, values of scalar
    arguments). The runtime runs the compiled checks before each call and
    reuses the artifact only when all pass; otherwise it recompiles, and
    the failed check's description and reason say why.

    A `tgc_guard.guard_set` holds the checks of one function. Its sizes are
    `tgc_sym.symbol`s read from the arguments (`from arg N dim D`), and
    `tgc_sym.min`/`tgc_sym.max` of them; range and relation checks are over
    these sizes. Each check carries a `reason` and its location is the
    origin of the check (the operation that required it).

    ```mlir
    func.func private @f(%x: tensor<?x4xf32>, %k: i64) -> tensor<?x4xf32>

    tgc_guard.guard_set for @f {
      %s0 = tgc_sym.symbol "s0" range [2, inf] hint 8 from arg 0 dim 0
      tgc_guard.dtype arg 0 is f32 reason "traced with float32"
      tgc_guard.contiguous arg 0 reason "kernels assume dense rows"
      tgc_guard.range %s0 in [10, inf] reason "tgc.topk k = 10"
      tgc_guard.scalar arg 1 in [3, 3] reason "specialized int k"
    }
    ```
  }];
  let dependentDialects = ["::mlir::tgc::sym::TgcSymDialect"];
  let extraClassDeclaration = [{
    void registerOps();
  }];
}

class TgcGuard_Op<string mnemonic, list<Trait> traits = []>
    : Op<TgcGuard_Dialect, mnemonic, traits>;

#endif // TGC_DIALECT_TGCGUARD_IR_TGCGUARDBASE_TD
