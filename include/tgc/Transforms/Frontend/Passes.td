//===- Passes.td - Frontend passes -----------------------------------*- tablegen -*-===//
//
// Shapes and guards: symbolic sizes, shape inference, type specialization, the guard set.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_TRANSFORMS_FRONTEND_PASSES_TD
#define TGC_TRANSFORMS_FRONTEND_PASSES_TD

include "mlir/Pass/PassBase.td"

def TgcSymbolizeShapes : Pass<"tgc-symbolize-shapes", "func::FuncOp"> {
  let summary = "Give every input size a symbol or a specialization";
  let description = [{
    Decides, for every dimension of every tensor argument, whether the
    compiled code is specialized to its example size (`static`) or works for
    a range of sizes (`dynamic`), and records the decision as IR:

    ```mlir
    %s0 = tgc_sym.symbol "s0" range [2, inf] hint 7 from arg 0 dim 0
    tgc_sym.bind %arg0 [%s0, 64] : tensor<?x64xf32>
    ```

    Policy, per function (`default-policy`) and overridable per argument
    dimension with argument attributes:

    * `static`: specialize to the example size; a guard checks equality.
    * `dynamic`: a symbol with range `[2, inf]` (PyTorch's 0/1
      specialization, `specialize-zero-one`) or `[0, inf]`.
    * `auto`: static first; dimensions listed in the argument attribute
      `tgc.changed_dims` (set by the runtime when a recompile was caused by
      a size change) are dynamic, as `torch.compile(dynamic=None)` does.

    Argument attributes: `tgc.dynamic_dims` and `tgc.static_dims` (arrays of
    dims) override the policy; `tgc.example_shape` gives the example sizes
    (the `example-shapes` option too: `0=7x64,2=10`). Dimensions static in
    the type are always static. A dynamic dimension whose example is 0 or 1
    is specialized when `specialize-zero-one` is set, with that reason.
    With `duck-sizing`, dynamic dimensions with the same example size share
    one symbol (and a guard checks their equality), as PyTorch does.
  }];
  let options = [
    Option<"defaultPolicy", "default-policy", "std::string", "\"dynamic\"",
           "static | dynamic | auto">,
    Option<"specializeZeroOne", "specialize-zero-one", "bool", "true",
           "Specialize sizes 0 and 1; dynamic sizes range over [2, inf]">,
    Option<"duckSizing", "duck-sizing", "bool", "true",
           "Dynamic sizes with equal examples share a symbol">,
    ListOption<"exampleShapes", "example-shapes", "std::string",
               "Example sizes per argument: ARG=D0xD1x...">,
  ];
  let dependentDialects = ["::mlir::tgc::sym::TgcSymDialect"];
}

def TgcInferShapes : Pass<"tgc-infer-shapes", "func::FuncOp"> {
  let summary = "Propagate symbolic shapes and collect constraints";
  let description = [{
    Runs every op's symbolic shape function in order, starting from the
    argument binds of tgc-symbolize-shapes, and makes the result visible:
    a `tgc_sym.bind` after each tensor-producing op and a `tgc_sym.constrain`
    (at the op's location, with a reason) for each requirement that the
    symbol ranges do not already imply. An equality between sizes becomes a
    substitution, so later shapes use one symbol. A requirement that no
    input can meet is an error. Re-running the pass recomputes everything.
  }];
  let dependentDialects = ["::mlir::tgc::sym::TgcSymDialect"];
}

def TgcSpecializeTypes : Pass<"tgc-specialize-types", "func::FuncOp"> {
  let summary = "Sizes the frontend specialized become static in the types";
  let description = [{
    After `tgc-symbolize-shapes` and `tgc-infer-shapes`, an argument size
    that is `?` in the signature may be specialized to a number (0/1
    specialization, the `static` or `auto` policy); its guard checks it at
    run time. This pass writes the number into the argument's type, and
    each op's result type is refined by its type rule (inference,
    same-operands-and-result, convert, layer/rms norm, a reshape's one `?`
    without size operands) in program order. A result whose bind proves a
    `?` size a number for every allowed input (a slice of the first 2 rows
    with step 2 has 1 row) gets a `tensor.cast` to that static type after
    its op.

    The lowering reads types: a `?` that is 1 at run time was indexed like
    any other size, so broadcasting it against 0 or against a larger size
    gave a wrong shape and out-of-bounds reads (the crash fuzzer found
    `maximum` of a 1x1 and a 1x0 tensor, both typed `1x?`, returning 1x1).
    A user that has no type rule here (a reshape with size operands, a
    return, a region's terminator) reads a `tensor.cast` back to the old
    type. The function's argument types change; its result types do not.
  }];
  let dependentDialects = ["::mlir::tensor::TensorDialect"];
}

def TgcGenerateGuards : Pass<"tgc-generate-guards", "ModuleOp"> {
  let summary = "Build the guard set of each function";
  let description = [{
    For each function with symbolic shapes, a `tgc_guard.guard_set` with:
    dtype, rank, device and contiguity of every tensor argument; each input
    size checked against its bind (specialized sizes by equality, symbols
    by their range, duck-sized dims by equality with their symbol); one
    guard per collected constraint, with the reason and location of the op
    that required it; and no-alias guards between out buffers
    (`tgc.write_out` targets) and every other tensor argument.
  }];
  let options = [
    Option<"device", "device", "std::string", "\"cpu\"",
           "Device the code is compiled for (cpu, cuda, cuda:N)">,
    Option<"assumeContiguous", "assume-contiguous", "bool", "true",
           "The compiled code assumes contiguous row-major tensors">,
  ];
  let dependentDialects = ["::mlir::tgc::guard::TgcGuardDialect",
                           "::mlir::tgc::sym::TgcSymDialect"];
}

def TgcSimplifyGuards : Pass<"tgc-simplify-guards", "ModuleOp"> {
  let summary = "Drop implied guards, merge ranges, order guards";
  let description = [{
    Within each guard set: merges range guards on one size (keeping the
    reason of the bound that wins), drops duplicates and relations implied
    by the other guards (Presburger implication), drops unused symbols, and
    orders the guards so that cheap and likely-to-fail checks come first:
    rank, dtype, device, size ranges, size relations, scalars, contiguity,
    alignment, aliasing.
  }];
}

def TgcPrintGuards : Pass<"tgc-print-guards", "ModuleOp"> {
  let summary = "Print symbols, ranges and guards in readable form";
  let description = [{
    A report on standard error, per guard set: the symbols with their
    ranges, hints and origins, then each guard with its index, text, reason
    and location. The IR is unchanged.
  }];
}

def TgcCheckSymbolNames : Pass<"tgc-check-symbol-names", "ModuleOp"> {
  let summary = "Reject functions named like a symbol the compiled code calls";
  let description = [{
    The CPU code TGC generates calls the C math library (`exp`, `tanhf`,
    `fmod`), the C library (`malloc`, `free`, `memcpy`), LLVM's and MLIR's
    helpers (`__powidf2`, `_mlir_ciface_*`) and TGC's runtime
    (`tgc_report_check_failure`). A function with a body and one of those
    names would be called instead of the library (a function `@exp` that
    calls `tgc.exp` on `f64` recursed until the stack overflowed; `@tanh` on
    `f64` failed with an operand type mismatch; `@malloc` failed to link).
    This pass fails with a diagnostic at such a function, before any
    lowering.

    Reserved: the functions of C99's `<math.h>` (with their `f` and `l`
    forms), the allocation, memory and process functions of `<stdlib.h>` and
    `<string.h>`, names that begin with `__` or `_mlir`, and TGC's runtime
    prefixes (`tgc_guard_`, `tgc_report_`, `tgc_take_`, `tgc_result_`). The JIT of
    `tgc-run`, the C API and Python never meet this error: they give the
    entry function the private symbol `tgc_entry_<name>`. Objects and
    shared objects (`tgc-translate --tgc-to-object`) keep the module's names,
    which are their interface, so there a reserved name is an error.
  }];
}

#endif // TGC_TRANSFORMS_FRONTEND_PASSES_TD
