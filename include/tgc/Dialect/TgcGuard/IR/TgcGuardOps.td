//===- TgcGuardOps.td - tgc_guard dialect operations ------*- tablegen -*-===//
//
// Descriptions are the reference documentation
// (docs/generated/Dialects/TgcGuardDialect.md); the rationale is in
// docs/dialects/tgc_guard.md.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_DIALECT_TGCGUARD_IR_TGCGUARDOPS_TD
#define TGC_DIALECT_TGCGUARD_IR_TGCGUARDOPS_TD

include "tgc/Dialect/TgcGuard/IR/TgcGuardBase.td"
include "tgc/Dialect/TgcGuard/IR/TgcGuardInterfaces.td"
include "tgc/Dialect/TgcSym/IR/TgcSymBase.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/IR/OpBase.td"
include "mlir/IR/SymbolInterfaces.td"

//===----------------------------------------------------------------------===//
// Guard set
//===----------------------------------------------------------------------===//

def TgcGuard_GuardSetOp : TgcGuard_Op<"guard_set", [
    IsolatedFromAbove, NoTerminator, SingleBlock,
    HasParent<"::mlir::ModuleOp">,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "The checks that decide whether a compiled function is reused";
  let description = [{
    Holds every check on the arguments of the function `function` that a
    compiled artifact of it relies on. The body contains only
    `tgc_sym.symbol` (each with `from arg N dim D`: guards read sizes from
    the arguments), `tgc_sym.min`, `tgc_sym.max` and check operations; it
    has one block and no terminator. Checks are evaluated in order, and
    the first that fails is reported.

    Each check is verified against the function's signature: argument
    indices must be in range, tensor checks need tensor arguments, `dtype`
    and `rank` must agree with the argument's type, `scalar` needs an
    integer or index argument.

    ```mlir
    func.func private @f(%x: tensor<?x?xf32>, %y: tensor<?xf32>)
        -> tensor<?x?xf32>

    tgc_guard.guard_set for @f {
      %s0 = tgc_sym.symbol "s0" range [2, inf] hint 8 from arg 0 dim 0
      %s1 = tgc_sym.symbol "s1" range [2, inf] hint 16 from arg 0 dim 1
      %s2 = tgc_sym.symbol "s2" range [2, inf] hint 16 from arg 1 dim 0
      tgc_guard.dtype arg 0 is f32 reason "traced with float32"
      tgc_guard.relation eq [%s2, %s1] reason "tgc.add broadcasts y over rows"
    }
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$function);
  let regions = (region SizedRegion<1>:$bodyRegion);
  let assemblyFormat = "`for` $function attr-dict-with-keyword $bodyRegion";
  let hasRegionVerifier = 1;
  let builders = [
    // An empty guard set (one empty block) for `function`.
    OpBuilder<(ins "::mlir::FunctionOpInterface":$function)>,
  ];
}

//===----------------------------------------------------------------------===//
// Checks
//===----------------------------------------------------------------------===//

// A check on one or two arguments, verified against the function signature.
class TgcGuard_ArgCheckOp<string mnemonic, list<Trait> traits = []>
    : TgcGuard_Op<mnemonic, !listconcat(traits, [
        HasParent<"GuardSetOp">,
        DeclareOpInterfaceMethods<TgcGuard_GuardOpInterface,
                                  ["verifyAgainstFunction"]>])>;

// A check on sizes (tgc_sym values of the guard set).
class TgcGuard_SizeCheckOp<string mnemonic, list<Trait> traits = []>
    : TgcGuard_Op<mnemonic, !listconcat(traits, [
        HasParent<"GuardSetOp">,
        DeclareOpInterfaceMethods<TgcGuard_GuardOpInterface>])>;

def TgcGuard_ArgIndex : ConfinedAttr<TgcSym_I64Attr, [IntNonNegative]>;

def TgcGuard_DtypeOp : TgcGuard_ArgCheckOp<"dtype"> {
  let summary = "The element type of a tensor argument";
  let description = [{
    Argument `arg`, a tensor, has element type `dtype`. The argument's type
    in the function signature must have that element type.

    ```mlir
    tgc_guard.dtype arg 0 is f32 reason "traced with float32"
    ```
  }];
  let arguments = (ins TgcGuard_ArgIndex:$arg, TypeAttr:$dtype,
                       StrAttr:$reason);
  let assemblyFormat = "`arg` $arg `is` $dtype `reason` $reason attr-dict";
}

def TgcGuard_RankOp : TgcGuard_ArgCheckOp<"rank"> {
  let summary = "The rank of a tensor argument";
  let description = [{
    Argument `arg`, a tensor, has `rank` dimensions. When the argument's
    type is ranked, it must have that rank.

    ```mlir
    tgc_guard.rank arg 0 is 2 reason "tgc.matmul is compiled for 2-D x"
    ```
  }];
  let arguments = (ins TgcGuard_ArgIndex:$arg,
                       ConfinedAttr<TgcSym_I64Attr, [IntNonNegative]>:$rank,
                       StrAttr:$reason);
  let assemblyFormat = "`arg` $arg `is` $rank `reason` $reason attr-dict";
}

def TgcGuard_DeviceOp : TgcGuard_ArgCheckOp<"device"> {
  let summary = "The device holding a tensor argument";
  let description = [{
    Argument `arg`, a tensor, lives on `device`: `"cpu"`, `"cuda"` (any
    GPU) or `"cuda:N"` (GPU number `N`).

    ```mlir
    tgc_guard.device arg 0 is "cuda:0" reason "compiled for the first GPU"
    ```
  }];
  let arguments = (ins TgcGuard_ArgIndex:$arg, StrAttr:$device,
                       StrAttr:$reason);
  let assemblyFormat = "`arg` $arg `is` $device `reason` $reason attr-dict";
  let hasVerifier = 1;
}

def TgcGuard_ContiguousOp : TgcGuard_ArgCheckOp<"contiguous"> {
  let summary = "A tensor argument has dense row-major strides";
  let description = [{
    Argument `arg`, a tensor, is contiguous: its strides are the row-major
    strides of its sizes (`stride[i] = size[i+1] * stride[i+1]`, the last
    stride 1; a dimension of size 1 may have any stride, as in PyTorch's
    `is_contiguous`).

    ```mlir
    tgc_guard.contiguous arg 0 reason "kernels index x as dense rows"
    ```
  }];
  let arguments = (ins TgcGuard_ArgIndex:$arg, StrAttr:$reason);
  let assemblyFormat = "`arg` $arg `reason` $reason attr-dict";
}

def TgcGuard_AlignedOp : TgcGuard_ArgCheckOp<"aligned"> {
  let summary = "The data pointer of a tensor argument is aligned";
  let description = [{
    The data pointer of argument `arg`, a tensor, is a multiple of
    `alignment` bytes, a power of two.

    ```mlir
    tgc_guard.aligned arg 0 to 16 reason "vectorized loads of 4 x f32"
    ```
  }];
  let arguments = (ins TgcGuard_ArgIndex:$arg, TgcSym_I64Attr:$alignment,
                       StrAttr:$reason);
  let assemblyFormat = "`arg` $arg `to` $alignment `reason` $reason attr-dict";
  let hasVerifier = 1;
}

def TgcGuard_NoAliasOp : TgcGuard_ArgCheckOp<"no_alias"> {
  let summary = "Two tensor arguments do not share memory";
  let description = [{
    The memory of tensor arguments `lhs` and `rhs` (two different
    indices) does not overlap: the byte ranges from the lowest to the
    highest element address of each are disjoint.

    ```mlir
    tgc_guard.no_alias arg 0, arg 2 reason "out= buffer written in place"
    ```
  }];
  let arguments = (ins TgcGuard_ArgIndex:$lhs, TgcGuard_ArgIndex:$rhs,
                       StrAttr:$reason);
  let assemblyFormat = [{
    `arg` $lhs `,` `arg` $rhs `reason` $reason attr-dict
  }];
  let hasVerifier = 1;
}

def TgcGuard_NoAliasOutsOp : TgcGuard_ArgCheckOp<"no_alias_outs"> {
  let summary = "Out buffers share memory with no other tensor argument";
  let description = [{
    The memory of each tensor argument listed in `outs` (distinct,
    non-negative indices) overlaps no other tensor argument's: the byte
    ranges from the lowest to the highest element address are disjoint
    (an empty tensor overlaps nothing). Tensors not listed may share
    memory with each other.

    `no_alias` pairs say the same, one pair at a time; a function that
    writes many of its arguments in place (an optimizer's step writes a
    parameter and two moments per parameter) would need a pair per out
    buffer and argument, quadratic in the arguments. This one guard is
    checked in one pass over the arguments (the GPU runtime sorts their
    ranges; the CPU guard function compares each out buffer with every
    other argument in a loop, not in code per pair).

    ```mlir
    tgc_guard.no_alias_outs outs [0, 2, 3] reason "arguments written in place"
    ```
  }];
  let arguments = (ins DenseI64ArrayAttr:$outs, StrAttr:$reason);
  let assemblyFormat = "`outs` $outs `reason` $reason attr-dict";
  let hasVerifier = 1;
}

def TgcGuard_ScalarOp : TgcGuard_ArgCheckOp<"scalar"> {
  let summary = "Bounds on the value of a scalar integer argument";
  let description = [{
    The value of argument `arg`, an integer or `index` scalar, is within
    `[lower, upper]`; a missing bound is written `-inf` or `inf`.
    PyTorch's specialized ints become `[v, v]`; its dynamic ints get the
    range the program needs.

    ```mlir
    tgc_guard.scalar arg 1 in [3, 3] reason "specialized int k"
    tgc_guard.scalar arg 2 in [0, inf] reason "tgc.slice start"
    tgc_guard.scalar arg 3 in [-inf, 100] reason "loop bound"
    ```
  }];
  let arguments = (ins TgcGuard_ArgIndex:$arg,
                       OptionalAttr<TgcSym_I64Attr>:$lower,
                       OptionalAttr<TgcSym_I64Attr>:$upper, StrAttr:$reason);
  let assemblyFormat = [{
    `arg` $arg `in` ` ` `[` custom<LowerBound>($lower) `,`
    custom<UpperBound>($upper) `]` `reason` $reason attr-dict
  }];
  let hasVerifier = 1;
}

def TgcGuard_RangeOp : TgcGuard_SizeCheckOp<"range"> {
  let summary = "A size is within a range";
  let description = [{
    The size `size` is within `[lower, upper]` (`upper` is `inf` when
    unbounded). Prefer a range to an equality wherever the compiled code
    is correct for every size in the range.

    ```mlir
    tgc_guard.range %s0 in [10, inf] reason "tgc.topk k = 10 needs 10 rows"
    tgc_guard.range %s1 in [7, 7] reason "tgc.reshape specialized dim 1"
    ```
  }];
  let arguments = (ins TgcSym_SizeType:$size,
                       ConfinedAttr<TgcSym_I64Attr, [IntNonNegative]>:$lower,
                       OptionalAttr<TgcSym_I64Attr>:$upper, StrAttr:$reason);
  let assemblyFormat = [{
    $size `in` ` ` `[` $lower `,` custom<UpperBound>($upper) `]`
    `reason` $reason attr-dict
  }];
  let hasVerifier = 1;
}

def TgcGuard_RelationOp : TgcGuard_SizeCheckOp<"relation"> {
  let summary = "A relation between size expressions";
  let description = [{
    `lhs kind rhs` holds, where `[lhs, rhs]` are size expressions over
    the size operands, with the meanings of `tgc_sym.constrain`: `eq`,
    `ge`, `le`, `divisible` (`lhs mod rhs == 0`) and `broadcastable`
    (`lhs == rhs` or either is 1).

    ```mlir
    tgc_guard.relation eq [%s1, %s0 * 2] reason "tgc.cat of x with itself"
    tgc_guard.relation divisible [%s0, 8] reason "tgc.reshape to ?x8"
    tgc_guard.relation eq [%s2, %s0 * %s1] reason "tgc.reshape flattens x"
    ```
  }];
  let arguments = (ins TgcSym_ConstraintKind:$kind,
                       Variadic<TgcSym_SizeType>:$sizes,
                       AffineMapAttr:$map, StrAttr:$reason);
  let assemblyFormat = [{
    $kind custom<SizeList>($sizes, $map) `reason` $reason attr-dict
  }];
  let hasVerifier = 1;
}

#endif // TGC_DIALECT_TGCGUARD_IR_TGCGUARDOPS_TD
