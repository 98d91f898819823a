//===- TgcSymBase.td - tgc_sym dialect, types and enums ---*- tablegen -*-===//
//
// The `tgc_sym` dialect: symbolic sizes as SSA values, shapes and constraints
// as affine maps over them (torch-mlir's `torch.symbolic_int` /
// `torch.bind_symbolic_shape` precedent).
//
//===----------------------------------------------------------------------===//

#ifndef TGC_DIALECT_TGCSYM_IR_TGCSYMBASE_TD
#define TGC_DIALECT_TGCSYM_IR_TGCSYMBASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def TgcSym_Dialect : Dialect {
  let name = "tgc_sym";
  let cppNamespace = "::mlir::tgc::sym";
  let summary = "Symbolic sizes, shapes and shape constraints";
  let description = [{
    The `tgc_sym` dialect makes the symbolic shapes of a `tgc` program
    visible in the IR. It follows torch-mlir's `torch.symbolic_int` and
    `torch.bind_symbolic_shape`: symbols are SSA values, and shapes and
    constraints are affine maps over them.

    * A **symbol** (`tgc_sym.symbol`) is an SSA value of type
      `!tgc_sym.size` standing for one unknown, non-negative size: usually a
      dynamic dimension of a function argument, with an integer range and
      the example value seen when the program was traced.
    * A **size expression** is an expression over size values, written
      with the SSA names themselves: `[%s0 * 2, %s1 floordiv 4 + 1]`,
      `[%s0 * %s1]`. In storage the expressions form an `AffineMapAttr`
      with no dimensions and one affine symbol per size operand, in order
      of first use (`()[s0, s1] -> (s0 * s1)`), so products and quotients
      of sizes (semi-affine expressions) are allowed. `tgc_sym.min` and
      `tgc_sym.max` name sizes that are not expressions of this kind.
    * `tgc_sym.bind` states the shape of a tensor value;
      `tgc_sym.constrain` records a condition (`ge`, `le`, `eq`,
      `divisible`, `broadcastable`) the program needs, with the reason and
      the location of the operation that needs it.

    ```mlir
    func.func @f(%x: tensor<?x3xf32>) -> tensor<?x3xf32> {
      %s0 = tgc_sym.symbol "s0" range [2, inf] hint 8 from arg 0 dim 0
      tgc_sym.bind %x [%s0, 3] : tensor<?x3xf32>
      tgc_sym.constrain ge [%s0, 4] reason "tgc.topk needs k <= size of dim 0"
      return %x : tensor<?x3xf32>
    }
    ```

    These operations are annotations: the shape analyses create and read
    them, the guard generator turns their ranges and constraints into
    `tgc_guard` checks, and they are stripped before lowering to `linalg`.
  }];
  let useDefaultTypePrinterParser = 1;
  let extraClassDeclaration = [{
    void registerTypes();
    void registerOps();
  }];
}

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

def TgcSym_SizeType : TypeDef<TgcSym_Dialect, "Size"> {
  let mnemonic = "size";
  let summary = "symbolic non-negative integer size";
  let description = [{
    The value of a size is a non-negative integer known only when the
    compiled function is called: a symbol (`tgc_sym.symbol`) or a size
    derived from symbols (`tgc_sym.min`, `tgc_sym.max`). Sizes have no
    runtime representation; they exist for the shape analyses and guards.

    ```mlir
    %s0 = tgc_sym.symbol "s0" range [2, inf]   // %s0 : !tgc_sym.size
    ```
  }];
}

//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

// An i64 attribute read as a signed value (bounds, hints, indices): the
// upstream I64Attr reads `uint64_t`, which turns a negative bound in user
// input into a huge positive one before the verifier sees it.
def TgcSym_I64Attr : TypedSignlessIntegerAttrBase<I64, "int64_t",
    "64-bit signless integer attribute"> {
  let convertFromStorage = "$_self.getValue().getSExtValue()";
}

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

def TgcSym_ConstraintKind : I32EnumAttr<"ConstraintKind",
    "relation between two sizes", [
      I32EnumAttrCase<"eq", 0>, I32EnumAttrCase<"ge", 1>,
      I32EnumAttrCase<"le", 2>, I32EnumAttrCase<"divisible", 3>,
      I32EnumAttrCase<"broadcastable", 4>]> {
  let cppNamespace = "::mlir::tgc::sym";
}

//===----------------------------------------------------------------------===//
// Base op class
//===----------------------------------------------------------------------===//

class TgcSym_Op<string mnemonic, list<Trait> traits = []>
    : Op<TgcSym_Dialect, mnemonic, traits>;

#endif // TGC_DIALECT_TGCSYM_IR_TGCSYMBASE_TD
