//===- TgcSymOps.td - tgc_sym dialect operations ----------*- tablegen -*-===//
//
// Descriptions are the reference documentation
// (docs/generated/Dialects/TgcSymDialect.md); the rationale is in
// docs/dialects/tgc_sym.md.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_DIALECT_TGCSYM_IR_TGCSYMOPS_TD
#define TGC_DIALECT_TGCSYM_IR_TGCSYMOPS_TD

include "tgc/Dialect/TgcSym/IR/TgcSymBase.td"
include "mlir/IR/OpAsmInterface.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

//===----------------------------------------------------------------------===//
// Symbols and derived sizes
//===----------------------------------------------------------------------===//

def TgcSym_SymbolOp : TgcSym_Op<"symbol", [
    Pure, DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>]> {
  let summary = "A symbolic size with a range, a hint and a source";
  let description = [{
    Defines one unknown size. The result is named after the symbol in
    printed IR (`%s0` for `"s0"`).

    * `range [lower, upper]`: the sizes the symbol may take; `upper` is
      `inf` when unbounded. TGC's default after 0/1 specialization is
      `[2, inf]`, like PyTorch's.
    * `hint`: the example value seen when the program was traced
      (optional).
    * `from arg N dim D`: the symbol is the size of dimension `D` of
      function argument `N`, which must be a ranked tensor of rank greater
      than `D`. A symbol without a source is data-dependent (for example
      the number of elements `nonzero` returns).

    The name is an identifier (`[A-Za-z_][A-Za-z0-9_]*`) unique among the
    symbols of its function or guard set.

    ```mlir
    %s0 = tgc_sym.symbol "s0" range [2, inf] hint 7 from arg 0 dim 1
    %n = tgc_sym.symbol "n" range [0, 1024]
    ```
  }];
  let arguments = (ins StrAttr:$name, TgcSym_I64Attr:$lower,
                       OptionalAttr<TgcSym_I64Attr>:$upper,
                       OptionalAttr<TgcSym_I64Attr>:$hint,
                       OptionalAttr<TgcSym_I64Attr>:$arg,
                       OptionalAttr<TgcSym_I64Attr>:$dim);
  let results = (outs TgcSym_SizeType:$result);
  let assemblyFormat = [{
    $name `range` ` ` `[` $lower `,` custom<UpperBound>($upper) `]`
    (`hint` $hint^)? (`from` `arg` $arg^ `dim` $dim)? attr-dict
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Whether the symbol is the size of a function argument's dimension.
    bool hasSource() { return getArg().has_value() && getDim().has_value(); }
  }];
}

class TgcSym_MinMaxOp<string mnemonic, string what>
    : TgcSym_Op<mnemonic, [Pure,
        DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>]> {
  let summary = "The " # what # " of size expressions";
  let arguments = (ins Variadic<TgcSym_SizeType>:$sizes,
                       AffineMapAttr:$map, OptionalAttr<StrAttr>:$name);
  let results = (outs TgcSym_SizeType:$result);
  let assemblyFormat = [{
    ($name^)? custom<SizeList>($sizes, $map) attr-dict
  }];
  let hasVerifier = 1;
}

def TgcSym_MinOp : TgcSym_MinMaxOp<"min", "minimum"> {
  let description = [{
    A size equal to the smallest of two or more size expressions over the
    size operands (see the dialect description). An optional name, an identifier, names the result in
    printed IR and in guard messages.

    ```mlir
    // The length of x[:k] when k may exceed the size: min(s0, s1 + 2).
    %m = tgc_sym.min "m" [%s0, %s1 + 2]
    %u = tgc_sym.min [%s0, 64]
    ```
  }];
}

def TgcSym_MaxOp : TgcSym_MinMaxOp<"max", "maximum"> {
  let description = [{
    A size equal to the largest of two or more size expressions over the
    size operands (see the dialect description). An optional name, an identifier, names the result in
    printed IR and in guard messages.

    ```mlir
    // The size of a broadcast of sizes s0 and s1 (one of them is 1).
    %b = tgc_sym.max "b" [%s0, %s1]
    ```
  }];
}

//===----------------------------------------------------------------------===//
// Annotations
//===----------------------------------------------------------------------===//

def TgcSym_BindOp : TgcSym_Op<"bind"> {
  let summary = "States the shape of a tensor value";
  let description = [{
    States that the shape of `tensor` is the list of size expressions, one
    per dimension. The expressions are over the size operands, which are
    written in place: `[%s0 * 2, 3]` has one operand, `%s0`. A static
    dimension of the tensor type must be bound to that same constant.

    ```mlir
    tgc_sym.bind %t [%s0 * 2, 3] : tensor<?x3xf32>
    tgc_sym.bind %u [%s0, %s0 floordiv 2] : tensor<?x?xf32>
    // The flattening of a [s0, s1] tensor.
    tgc_sym.bind %v [%s0 * %s1] : tensor<?xf32>
    ```

    The operation has no result and is not removed by dead code
    elimination; passes that change a value's shape update or erase its
    binds.
  }];
  let arguments = (ins AnyRankedTensor:$tensor,
                       Variadic<TgcSym_SizeType>:$sizes,
                       AffineMapAttr:$shape);
  let assemblyFormat = [{
    $tensor custom<SizeList>($sizes, $shape) attr-dict `:` type($tensor)
  }];
  let hasVerifier = 1;
}

def TgcSym_ConstrainOp : TgcSym_Op<"constrain"> {
  let summary = "A condition on sizes that the program needs";
  let description = [{
    Records that the program is well defined only when `lhs kind rhs`
    holds, where `[lhs, rhs]` are size expressions:

    | kind            | holds when                              |
    |-----------------|-----------------------------------------|
    | `eq`            | `lhs == rhs`                            |
    | `ge`            | `lhs >= rhs`                            |
    | `le`            | `lhs <= rhs`                            |
    | `divisible`     | `lhs mod rhs == 0` (`rhs` positive)      |
    | `broadcastable` | `lhs == rhs` or `lhs == 1` or `rhs == 1` |

    `reason` says why, and the location is the origin: the operation that
    needs the condition. The guard generator turns constraints that the
    symbol ranges do not already imply into `tgc_guard` checks. A
    constraint between two constants that is false is an error.

    ```mlir
    tgc_sym.constrain ge [%s0, 10] reason "tgc.topk needs k <= size of dim 0"
    tgc_sym.constrain broadcastable [%s0, %s1] reason "tgc.add broadcasts dim 0"
    tgc_sym.constrain divisible [%s0 * 3, 4] reason "tgc.reshape to ?x4"
    ```
  }];
  let arguments = (ins TgcSym_ConstraintKind:$kind,
                       Variadic<TgcSym_SizeType>:$sizes,
                       AffineMapAttr:$map, StrAttr:$reason);
  let assemblyFormat = [{
    $kind custom<SizeList>($sizes, $map) `reason` $reason attr-dict
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Readable text of the condition, with the symbols' names:
    /// `s0 >= 10`, `s1 == s0 * 2`, `broadcastable(s0, s1)`.
    std::string describe();
  }];
}

#endif // TGC_DIALECT_TGCSYM_IR_TGCSYMOPS_TD
