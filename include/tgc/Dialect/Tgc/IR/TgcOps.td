//===- TgcOps.td - tgc dialect operations ----------------------*- tablegen -*-===//
//
// One operation per ATen operator in TGC's core set. Descriptions are the
// reference documentation (docs/generated/Dialects/TgcDialect.md).
//
//===----------------------------------------------------------------------===//

#ifndef TGC_DIALECT_TGC_IR_TGCOPS_TD
#define TGC_DIALECT_TGC_IR_TGCOPS_TD

include "tgc/Dialect/Tgc/IR/TgcBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"

//===----------------------------------------------------------------------===//
// Creation (constant, full, iota, philox_uniform)
//===----------------------------------------------------------------------===//

include "tgc/Dialect/Tgc/IR/TgcCreationOps.td"

//===----------------------------------------------------------------------===//
// Elementwise unary
//===----------------------------------------------------------------------===//

class Tgc_UnaryOp<string mnemonic, Type type, string desc,
                  list<Trait> traits = []>
    : Tgc_Op<mnemonic, !listconcat(traits,
                                   [Pure, SameOperandsAndResultType])> {
  let summary = "Elementwise " # mnemonic;
  let description = desc # [{

    Elementwise, same type in and out:

    ```mlir
    %y = tgc.}] # mnemonic # [{ %x : tensor<4x?xf32>
    ```
  }];
  let arguments = (ins type:$input);
  let results = (outs type:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}

def Tgc_NegOp : Tgc_UnaryOp<"neg", Tgc_NumericTensor, "`-x` (torch.neg).">
    { let hasFolder = 1; }
def Tgc_AbsOp : Tgc_UnaryOp<"abs", Tgc_NumericTensor, "`|x|` (torch.abs).">
    { let hasFolder = 1; }
def Tgc_ReluOp : Tgc_UnaryOp<"relu", Tgc_NumericTensor,
    "`max(x, 0)` (torch.relu); NaN stays NaN."> { let hasFolder = 1; }
def Tgc_ExpOp : Tgc_UnaryOp<"exp", Tgc_FloatTensor, "`e^x` (torch.exp).">;
def Tgc_Exp2Op : Tgc_UnaryOp<"exp2", Tgc_FloatTensor, "`2^x` (torch.exp2).">;
def Tgc_Expm1Op : Tgc_UnaryOp<"expm1", Tgc_FloatTensor,
    "`e^x - 1`, accurate near 0 (torch.expm1).">;
def Tgc_LogOp : Tgc_UnaryOp<"log", Tgc_FloatTensor,
    "Natural logarithm (torch.log).">;
def Tgc_Log2Op : Tgc_UnaryOp<"log2", Tgc_FloatTensor,
    "Base-2 logarithm (torch.log2).">;
def Tgc_Log1pOp : Tgc_UnaryOp<"log1p", Tgc_FloatTensor,
    "`log(1 + x)`, accurate near 0 (torch.log1p).">;
def Tgc_SqrtOp : Tgc_UnaryOp<"sqrt", Tgc_FloatTensor,
    "Square root (torch.sqrt).">;
def Tgc_RsqrtOp : Tgc_UnaryOp<"rsqrt", Tgc_FloatTensor,
    "`1 / sqrt(x)` (torch.rsqrt).">;
def Tgc_SinOp : Tgc_UnaryOp<"sin", Tgc_FloatTensor, "Sine (torch.sin).">;
def Tgc_CosOp : Tgc_UnaryOp<"cos", Tgc_FloatTensor, "Cosine (torch.cos).">;
def Tgc_TanhOp : Tgc_UnaryOp<"tanh", Tgc_FloatTensor,
    "Hyperbolic tangent (torch.tanh).">;
def Tgc_SigmoidOp : Tgc_UnaryOp<"sigmoid", Tgc_FloatTensor,
    "`1 / (1 + e^-x)` (torch.sigmoid).">;
def Tgc_ErfOp : Tgc_UnaryOp<"erf", Tgc_FloatTensor,
    "Gauss error function (torch.erf).">;
def Tgc_SiluOp : Tgc_UnaryOp<"silu", Tgc_FloatTensor,
    "`x * sigmoid(x)` (torch.nn.functional.silu).">;
def Tgc_ReciprocalOp : Tgc_UnaryOp<"reciprocal", Tgc_FloatTensor,
    "`1 / x` (torch.reciprocal).">;
def Tgc_FloorOp : Tgc_UnaryOp<"floor", Tgc_FloatTensor,
    "Round toward -inf (torch.floor).">;
def Tgc_CeilOp : Tgc_UnaryOp<"ceil", Tgc_FloatTensor,
    "Round toward +inf (torch.ceil).">;
def Tgc_RoundOp : Tgc_UnaryOp<"round", Tgc_FloatTensor,
    "Round half to even (torch.round).">;
def Tgc_LogicalNotOp : Tgc_UnaryOp<"logical_not", Tgc_BoolTensor,
    "Boolean negation (torch.logical_not on bool tensors).">;

def Tgc_GeluOp : Tgc_Op<"gelu", [Pure, SameOperandsAndResultType]> {
  let summary = "Gaussian error linear unit (torch.nn.functional.gelu)";
  let description = [{
    `x * Phi(x)`, exactly (`approximate = none`, through `erf`) or with
    PyTorch's tanh approximation (`approximate = tanh`).

    ```mlir
    %y = tgc.gelu %x : tensor<4x8xf32>
    %t = tgc.gelu %x approximate = tanh : tensor<4x8xbf16>
    ```
  }];
  let arguments = (ins Tgc_FloatTensor:$input,
      DefaultValuedAttr<Tgc_GeluApproximation,
                        "::mlir::tgc::GeluApproximation::none">:$approximate);
  let results = (outs Tgc_FloatTensor:$result);
  let assemblyFormat = [{
    $input (`approximate` `=` $approximate^)? attr-dict `:` type($input)
  }];
}

def Tgc_ClampOp : Tgc_Op<"clamp", [Pure, SameOperandsAndResultType]> {
  let summary = "Clamp to a range (torch.clamp)";
  let description = [{
    `min(max(x, min), max)` with either bound optional; NaN stays NaN. For
    integer tensors the bounds must be integral (PyTorch would promote to
    float otherwise; the importer makes that explicit).

    ```mlir
    %y = tgc.clamp %x min 0.0 max 6.0 : tensor<4xf32>
    ```
  }];
  let arguments = (ins Tgc_NumericTensor:$input, OptionalAttr<F64Attr>:$min,
                       OptionalAttr<F64Attr>:$max);
  let results = (outs Tgc_NumericTensor:$result);
  let assemblyFormat = [{
    $input (`min` $min^)? (`max` $max^)? attr-dict `:` type($input)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Elementwise binary, ternary and conversion (broadcasting)
//===----------------------------------------------------------------------===//

class Tgc_BroadcastBinaryOp<string mnemonic, Type type, string desc,
                            list<Trait> traits = []>
    : Tgc_Op<mnemonic, !listconcat(traits, [Pure, Tgc_InferTensorType])> {
  let summary = "Elementwise " # mnemonic # " with broadcasting";
  let description = desc # [{

    Both operands have one element type (promotion is explicit); shapes
    broadcast as in PyTorch. When all types agree one type is printed:

    ```mlir
    %a = tgc.}] # mnemonic # [{ %x, %y : tensor<4x8xf32>
    %b = tgc.}] # mnemonic # [{ %x, %s : tensor<4x8xf32>, tensor<f32> -> tensor<4x8xf32>
    ```
  }];
  let arguments = (ins type:$lhs, type:$rhs);
  let results = (outs type:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:`
      custom<BroadcastTypes>(type($lhs), type($rhs), type($result))
  }];
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *, std::optional<::mlir::Location> loc,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &types) {
      return ::mlir::tgc::inferElementwiseResult(
          loc, {adaptor.getLhs().getType(), adaptor.getRhs().getType()},
          /*resultElement=*/nullptr, types);
    }
  }];
}

def Tgc_AddOp : Tgc_BroadcastBinaryOp<"add", Tgc_NumericTensor,
    "`x + y` (torch.add; `alpha` is decomposed by the importer).",
    [Commutative]> { let hasFolder = 1; }
def Tgc_SubOp : Tgc_BroadcastBinaryOp<"sub", Tgc_NumericTensor,
    "`x - y` (torch.sub).", []> { let hasFolder = 1; }
def Tgc_MulOp : Tgc_BroadcastBinaryOp<"mul", Tgc_NumericTensor,
    "`x * y` (torch.mul).", [Commutative]> { let hasFolder = 1; }
def Tgc_PowOp : Tgc_BroadcastBinaryOp<"pow", Tgc_NumericTensor,
    "`x ** y` (torch.pow).", []>;
def Tgc_MaximumOp : Tgc_BroadcastBinaryOp<"maximum", Tgc_NumericTensor,
    "Elementwise maximum, NaN-propagating (torch.maximum).",
    [Commutative]> { let hasFolder = 1; }
def Tgc_MinimumOp : Tgc_BroadcastBinaryOp<"minimum", Tgc_NumericTensor,
    "Elementwise minimum, NaN-propagating (torch.minimum).",
    [Commutative]> { let hasFolder = 1; }
def Tgc_RemainderOp : Tgc_BroadcastBinaryOp<"remainder", Tgc_NumericTensor,
    "Python-style modulus, sign of the divisor (torch.remainder).", []>;
def Tgc_Atan2Op : Tgc_BroadcastBinaryOp<"atan2", Tgc_FloatTensor,
    "Quadrant-aware `atan(y / x)` (torch.atan2).", []>;
def Tgc_LogicalAndOp : Tgc_BroadcastBinaryOp<"logical_and", Tgc_BoolTensor,
    "Boolean and (torch.logical_and on bool tensors).", [Commutative]>;
def Tgc_LogicalOrOp : Tgc_BroadcastBinaryOp<"logical_or", Tgc_BoolTensor,
    "Boolean or (torch.logical_or on bool tensors).", [Commutative]>;

def Tgc_DivOp : Tgc_Op<"div", [Pure, Tgc_InferTensorType]> {
  let summary = "Division with broadcasting (torch.div)";
  let description = [{
    `x / y` with PyTorch's rounding modes: `true_div` (the default,
    floating-point operands only: integer division promotes in PyTorch, and
    the importer makes that explicit), `trunc` and `floor` (any numeric
    type).

    ```mlir
    %q = tgc.div %x, %y : tensor<4xf32>
    %f = tgc.div %i, %j rounding = floor : tensor<4xi64>
    ```
  }];
  let arguments = (ins Tgc_NumericTensor:$lhs, Tgc_NumericTensor:$rhs,
      DefaultValuedAttr<Tgc_RoundingMode,
                        "::mlir::tgc::RoundingMode::true_div">:$rounding);
  let results = (outs Tgc_NumericTensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs (`rounding` `=` $rounding^)? attr-dict `:`
      custom<BroadcastTypes>(type($lhs), type($rhs), type($result))
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Tgc_CmpOp : Tgc_Op<"cmp", [Pure, Tgc_InferTensorType]> {
  let summary = "Elementwise comparison with broadcasting";
  let description = [{
    `torch.eq/ne/lt/le/gt/ge`: compares two tensors of one element type
    and yields `i1`. Ordered comparisons with NaN are false; `ne` with NaN
    is true, as in PyTorch.

    ```mlir
    %m = tgc.cmp lt, %x, %y : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xi1>
    ```
  }];
  let arguments = (ins Tgc_CmpPredicate:$predicate, Tgc_Tensor:$lhs,
                       Tgc_Tensor:$rhs);
  let results = (outs Tgc_BoolTensor:$result);
  let assemblyFormat = [{
    $predicate `,` $lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs)
      `->` type($result)
  }];
  let hasFolder = 1;
}

def Tgc_WhereOp : Tgc_Op<"where", [Pure, Tgc_InferTensorType]> {
  let summary = "Elementwise select with broadcasting (torch.where)";
  let description = [{
    `cond ? x : y`, all three broadcast together; `x` and `y` have one
    element type.

    ```mlir
    %r = tgc.where %m, %x, %y : tensor<4x8xi1>, tensor<4x8xf32>, tensor<f32> -> tensor<4x8xf32>
    ```
  }];
  let arguments = (ins Tgc_BoolTensor:$condition, Tgc_Tensor:$true_value,
                       Tgc_Tensor:$false_value);
  let results = (outs Tgc_Tensor:$result);
  let assemblyFormat = [{
    $condition `,` $true_value `,` $false_value attr-dict `:`
      type($condition) `,` type($true_value) `,` type($false_value) `->`
      type($result)
  }];
  let hasFolder = 1;
}

def Tgc_ConvertOp : Tgc_Op<"convert", [Pure]> {
  let summary = "Element type conversion (Tensor.to(dtype))";
  let description = [{
    Converts each element as PyTorch does: float to integer truncates
    toward zero, to `i1` is `x != 0`, integer narrowing wraps. The shape is
    unchanged.

    ```mlir
    %h = tgc.convert %x : tensor<4x?xf32> -> tensor<4x?xf16>
    ```
  }];
  let arguments = (ins Tgc_Tensor:$input);
  let results = (outs Tgc_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

class Tgc_ReduceOp<string mnemonic, Type type, string desc,
                   dag extraArgs = (ins)>
    : Tgc_Op<mnemonic, [Pure, Tgc_InferTensorType]> {
  let summary = "Reduction: " # mnemonic;
  let description = desc # [{

    Reduces the listed `dims` (distinct, in `[0, rank)`); `keepdim` keeps
    them as size 1.

    ```mlir
    %r = tgc.}] # mnemonic # [{ %x dims [1] : tensor<4x?xf32> -> tensor<4xf32>
    %k = tgc.}] # mnemonic # [{ %x dims [0, 1] keepdim : tensor<4x?xf32> -> tensor<1x1xf32>
    ```
  }];
  let arguments = !con((ins type:$input, DenseI64ArrayAttr:$dims,
                            UnitAttr:$keepdim), extraArgs);
  let results = (outs type:$result);
  let assemblyFormat = [{
    $input `dims` $dims (`keepdim` $keepdim^)? attr-dict `:` type($input)
      `->` type($result)
  }];
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *, std::optional<::mlir::Location> loc,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &types) {
      return ::mlir::tgc::inferReduceResult(
          loc, adaptor.getInput().getType(), adaptor.getDims(),
          adaptor.getKeepdim(), /*resultElement=*/nullptr, types);
    }
  }];
}

def Tgc_SumOp : Tgc_ReduceOp<"sum", Tgc_NumericTensor,
    "Sum (torch.sum). Integer sums keep the element type; PyTorch's "
    "promotion of integer sums to `i64` is explicit.">;
def Tgc_MeanOp : Tgc_ReduceOp<"mean", Tgc_FloatTensor, "Mean (torch.mean).">;
def Tgc_AmaxOp : Tgc_ReduceOp<"amax", Tgc_NumericTensor,
    "Maximum, NaN-propagating (torch.amax). It has no identity: reducing a "
    "dimension of size 0 is an error, as in PyTorch."> {
  let hasVerifier = 1;
  let hasFolder = 1;
}
def Tgc_AminOp : Tgc_ReduceOp<"amin", Tgc_NumericTensor,
    "Minimum, NaN-propagating (torch.amin). It has no identity: reducing a "
    "dimension of size 0 is an error, as in PyTorch."> {
  let hasVerifier = 1;
  let hasFolder = 1;
}
def Tgc_VarOp : Tgc_ReduceOp<"var", Tgc_FloatTensor,
    "Variance with Bessel-style `correction` (torch.var; default 1).",
    (ins DefaultValuedAttr<I64Attr, "1">:$correction)>;
def Tgc_NormOp : Tgc_ReduceOp<"norm", Tgc_FloatTensor,
    "Vector p-norm (torch.linalg.vector_norm / torch.linalg.norm over "
    "dims); `p` may be `inf` or `-inf` (max/min of `|x|`). With `p` "
    "negative or infinite the norm has no identity: reducing a dimension of "
    "size 0 is an error, as in PyTorch.",
    (ins DefaultValuedAttr<F64Attr, "2.0">:$p)> {
  let hasVerifier = 1;
}

class Tgc_ArgReduceOp<string mnemonic, string desc>
    : Tgc_Op<mnemonic, [Pure, Tgc_InferTensorType]> {
  let summary = "Index of the " # desc # " along one dimension";
  let description = [{
    torch.}] # mnemonic # [{ over `dim` (first occurrence wins; NaN counts
    as the extreme, as in PyTorch). Yields `i64` indices. Reducing a
    dimension of size 0 is an error, as in PyTorch.

    ```mlir
    %i = tgc.}] # mnemonic # [{ %x dim 1 : tensor<4x8xf32> -> tensor<4xi64>
    ```
  }];
  let arguments = (ins Tgc_NumericTensor:$input, I64Attr:$dim,
                       UnitAttr:$keepdim);
  let results = (outs Tgc_I64Tensor:$result);
  let assemblyFormat = [{
    $input `dim` $dim (`keepdim` $keepdim^)? attr-dict `:` type($input) `->`
      type($result)
  }];
  let hasVerifier = 1;
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *ctx, std::optional<::mlir::Location> loc,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &types) {
      return ::mlir::tgc::inferReduceResult(
          loc, adaptor.getInput().getType(),
          {static_cast<int64_t>(adaptor.getDim())},
          adaptor.getKeepdim(), ::mlir::IntegerType::get(ctx, 64), types);
    }
  }];
}

def Tgc_ArgmaxOp : Tgc_ArgReduceOp<"argmax", "maximum">;
def Tgc_ArgminOp : Tgc_ArgReduceOp<"argmin", "minimum">;

class Tgc_ValueIndexReduceOp<string mnemonic, string desc>
    : Tgc_Op<mnemonic, [Pure, Tgc_InferTensorType]> {
  let summary = desc # " along one dimension, with indices";
  let description = [{
    `torch.}] # mnemonic # [{(x, dim, keepdim)`: values and `i64` indices of
    the }] # desc # [{ along `dim`. The `out=(values, indices)` form is
    this op followed by two `tgc.write_out`. Reducing a dimension of size
    0 is an error, as in PyTorch.

    ```mlir
    %v, %i = tgc.}] # mnemonic # [{ %x dim 1 : tensor<4x?xf32> -> tensor<4xf32>, tensor<4xi64>
    ```
  }];
  let arguments = (ins Tgc_NumericTensor:$input, I64Attr:$dim,
                       UnitAttr:$keepdim);
  let results = (outs Tgc_NumericTensor:$values, Tgc_I64Tensor:$indices);
  let assemblyFormat = [{
    $input `dim` $dim (`keepdim` $keepdim^)? attr-dict `:` type($input) `->`
      type($values) `,` type($indices)
  }];
  let hasVerifier = 1;
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *ctx, std::optional<::mlir::Location> loc,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &types) {
      if (::mlir::failed(::mlir::tgc::inferReduceResult(
              loc, adaptor.getInput().getType(),
          {static_cast<int64_t>(adaptor.getDim())},
              adaptor.getKeepdim(), nullptr, types)))
        return ::mlir::failure();
      types.push_back(::llvm::cast<::mlir::RankedTensorType>(types[0])
                          .clone(::mlir::IntegerType::get(ctx, 64)));
      return ::mlir::success();
    }
  }];
}

def Tgc_MaxOp : Tgc_ValueIndexReduceOp<"max", "maximum">;
def Tgc_MinOp : Tgc_ValueIndexReduceOp<"min", "minimum">;

def Tgc_TopkOp : Tgc_Op<"topk", [Pure, Tgc_InferTensorType]> {
  let summary = "k largest (or smallest) elements along a dimension";
  let description = [{
    `torch.topk(x, k, dim, largest, sorted)`: values and `i64` indices of
    the `k` largest (`largest = false`: smallest) elements along `dim`.
    Requires `k <= size(dim)`: a static violation is a verifier error; a
    symbolic one becomes the constraint `size(dim) >= k`, never an
    equality on the size (the point of seed 000).

    ```mlir
    %v, %i = tgc.topk %x k = 10 dim = 0 : tensor<?xf32> -> tensor<10xf32>, tensor<10xi64>
    ```
  }];
  let arguments = (ins Tgc_NumericTensor:$input, I64Attr:$k, I64Attr:$dim,
                       DefaultValuedAttr<BoolAttr, "true">:$largest,
                       DefaultValuedAttr<BoolAttr, "true">:$sorted);
  let results = (outs Tgc_NumericTensor:$values, Tgc_I64Tensor:$indices);
  let assemblyFormat = [{
    $input `k` `=` $k `dim` `=` $dim attr-dict `:` type($input) `->`
      type($values) `,` type($indices)
  }];
}

//===----------------------------------------------------------------------===//
// Shape manipulation
//===----------------------------------------------------------------------===//

def Tgc_ReshapeOp : Tgc_Op<"reshape", [Pure]> {
  let summary = "Reshape in row-major order (torch.reshape / view)";
  let description = [{
    Same elements in row-major order, new shape. Sizes that are `?` in the
    result come from the index operands, one per `?` in order; with no
    operands exactly one `?` is allowed and is inferred from the element
    count (PyTorch's `-1`).

    ```mlir
    %f = tgc.reshape %x : tensor<?x4xf32> -> tensor<?xf32>
    %r = tgc.reshape %x [%n, %m] : tensor<?xf32> -> tensor<?x?x2xf32>
    ```
  }];
  let arguments = (ins Tgc_Tensor:$input, Variadic<Index>:$dynamic_sizes);
  let results = (outs Tgc_Tensor:$result);
  let assemblyFormat = [{
    $input (` ` `[` $dynamic_sizes^ `]`)? attr-dict `:` type($input) `->`
      type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Tgc_PermuteOp : Tgc_Op<"permute", [Pure, Tgc_InferTensorType]> {
  let summary = "Permute dimensions (torch.permute / transpose)";
  let description = [{
    Result dimension `i` is input dimension `permutation[i]`.

    ```mlir
    %t = tgc.permute %x [1, 0] : tensor<4x?xf32> -> tensor<?x4xf32>
    ```
  }];
  let arguments = (ins Tgc_Tensor:$input, DenseI64ArrayAttr:$permutation);
  let results = (outs Tgc_Tensor:$result);
  let assemblyFormat = [{
    $input $permutation attr-dict `:` type($input) `->` type($result)
  }];
  let hasFolder = 1;
}

def Tgc_ExpandOp : Tgc_Op<"expand", [Pure]> {
  let summary = "Broadcast to a larger shape (Tensor.expand)";
  let description = [{
    Input dimensions are aligned with the result's trailing dimensions; an
    input dimension of size 1 stretches, others keep their size; new leading
    dimensions are added. A result `?` aligned with an input `?` keeps the
    input's size (PyTorch's `-1`); every other result `?` takes its size
    from the next index operand.

    ```mlir
    %e = tgc.expand %x : tensor<1x8xf32> -> tensor<4x8xf32>
    %d = tgc.expand %x [%b] : tensor<1x?xf32> -> tensor<?x?xf32>
    ```
  }];
  let arguments = (ins Tgc_Tensor:$input, Variadic<Index>:$dynamic_sizes);
  let results = (outs Tgc_Tensor:$result);
  let assemblyFormat = [{
    $input (` ` `[` $dynamic_sizes^ `]`)? attr-dict `:` type($input) `->`
      type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Tgc_SliceOp : Tgc_Op<"slice", [Pure, Tgc_InferTensorType]> {
  let summary = "Strided slice along one dimension (x[start:end:step])";
  let description = [{
    Python slicing of dimension `dim`: negative `start`/`end` count from
    the end, both are clamped to `[0, size]`, `step >= 1`. An `end` of
    `9223372036854775807` (INT64_MAX) means "to the end".

    ```mlir
    %s = tgc.slice %x dim = 1 start = 0 end = 4 step = 2 : tensor<3x8xf32> -> tensor<3x2xf32>
    ```
  }];
  let arguments = (ins Tgc_Tensor:$input, I64Attr:$dim, I64Attr:$start,
                       I64Attr:$end, DefaultValuedAttr<I64Attr, "1">:$step);
  let results = (outs Tgc_Tensor:$result);
  let assemblyFormat = [{
    $input `dim` `=` $dim `start` `=` $start `end` `=` $end `step` `=` $step
      attr-dict `:` type($input) `->` type($result)
  }];
  let hasFolder = 1;
}

def Tgc_ConcatOp : Tgc_Op<"concat", [Pure, Tgc_InferTensorType]> {
  let summary = "Concatenate along one dimension (torch.cat)";
  let description = [{
    All inputs have one rank and element type and agree on every dimension
    but `dim`.

    ```mlir
    %c = tgc.concat %a, %b dim = 0 : (tensor<2x8xf32>, tensor<?x8xf32>) -> tensor<?x8xf32>
    ```
  }];
  let arguments = (ins Variadic<Tgc_Tensor>:$inputs, I64Attr:$dim);
  let results = (outs Tgc_Tensor:$result);
  let assemblyFormat = [{
    $inputs `dim` `=` $dim attr-dict `:` functional-type($inputs, $result)
  }];
  let hasFolder = 1;
}

def Tgc_SqueezeOp : Tgc_Op<"squeeze", [Pure, Tgc_InferTensorType]> {
  let summary = "Remove size-1 dimensions (torch.squeeze)";
  let description = [{
    Removes the listed dimensions, each of static size 1. (PyTorch treats a
    non-1 dimension as a no-op; the importer only emits dims it knows are 1,
    so that the result rank never depends on a runtime size.)

    ```mlir
    %s = tgc.squeeze %x dims [0] : tensor<1x?xf32> -> tensor<?xf32>
    ```
  }];
  let arguments = (ins Tgc_Tensor:$input, DenseI64ArrayAttr:$dims);
  let results = (outs Tgc_Tensor:$result);
  let assemblyFormat = [{
    $input `dims` $dims attr-dict `:` type($input) `->` type($result)
  }];
  let hasFolder = 1;
}

def Tgc_UnsqueezeOp : Tgc_Op<"unsqueeze", [Pure, Tgc_InferTensorType]> {
  let summary = "Insert a size-1 dimension (torch.unsqueeze)";
  let description = [{
    Inserts a dimension of size 1 at position `dim` in `[0, rank]`.

    ```mlir
    %u = tgc.unsqueeze %x dim = 1 : tensor<4xf32> -> tensor<4x1xf32>
    ```
  }];
  let arguments = (ins Tgc_Tensor:$input, I64Attr:$dim);
  let results = (outs Tgc_Tensor:$result);
  let assemblyFormat = [{
    $input `dim` `=` $dim attr-dict `:` type($input) `->` type($result)
  }];
  let hasFolder = 1;
}

def Tgc_PadOp : Tgc_Op<"pad", [Pure, Tgc_InferTensorType]> {
  let summary = "Constant padding (torch.nn.functional.pad, mode constant)";
  let description = [{
    Pads every dimension `d` with `low[d]` elements before and `high[d]`
    after, filled with `value` (of the element type). Amounts are
    non-negative: PyTorch's negative padding is a slice, and the importer
    emits `tgc.slice` for it. `low`/`high` list all dimensions in order
    (PyTorch's pad tuple runs from the last dimension backwards).

    ```mlir
    %p = tgc.pad %x low [0, 1] high [0, 2] value 0.0 : f32 : tensor<4x5xf32> -> tensor<4x8xf32>
    ```
  }];
  let arguments = (ins Tgc_Tensor:$input, DenseI64ArrayAttr:$low,
                       DenseI64ArrayAttr:$high, TypedAttrInterface:$value);
  let results = (outs Tgc_Tensor:$result);
  let assemblyFormat = [{
    $input `low` $low `high` $high `value` $value attr-dict `:` type($input)
      `->` type($result)
  }];
}

//===----------------------------------------------------------------------===//
// Indexing (gather, index_select, embedding, scatter_add)
//===----------------------------------------------------------------------===//

include "tgc/Dialect/Tgc/IR/TgcIndexingOps.td"

//===----------------------------------------------------------------------===//
// Linear algebra
//===----------------------------------------------------------------------===//

def Tgc_MatmulOp : Tgc_Op<"matmul", [Pure, Tgc_InferTensorType]> {
  let summary = "Matrix product with torch.matmul's rank rules";
  let description = [{
    1-D x 1-D is a dot product; 2-D x 2-D a matrix product; a 1-D operand
    gets a dimension prepended (left) or appended (right) that is removed
    afterwards; higher ranks are batched with broadcast batch dimensions.
    The contracted sizes must agree.

    ```mlir
    %y = tgc.matmul %a, %b : tensor<?x64xf32>, tensor<64x32xf32> -> tensor<?x32xf32>
    %z = tgc.matmul %a, %b : tensor<8x1x4x5xf32>, tensor<3x5x6xf32> -> tensor<8x3x4x6xf32>
    ```
  }];
  let arguments = (ins Tgc_NumericTensor:$lhs, Tgc_NumericTensor:$rhs);
  let results = (outs Tgc_NumericTensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)
  }];
}

def Tgc_BmmOp : Tgc_Op<"bmm", [Pure, Tgc_InferTensorType]> {
  let summary = "Batched matrix product (torch.bmm)";
  let description = [{
    `[b, n, k] x [b, k, m] -> [b, n, m]`: ranks are exactly 3 and batch
    sizes equal (no broadcasting, unlike `tgc.matmul`).

    ```mlir
    %c = tgc.bmm %a, %b : tensor<?x3x4xf32>, tensor<?x4x5xf32> -> tensor<?x3x5xf32>
    ```
  }];
  let arguments = (ins Tgc_NumericTensor:$lhs, Tgc_NumericTensor:$rhs);
  let results = (outs Tgc_NumericTensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)
  }];
}

def Tgc_LinearOp : Tgc_Op<"linear", [Pure, Tgc_InferTensorType]> {
  let summary = "Affine map x W^T + b (torch.nn.functional.linear)";
  let description = [{
    `input [..., in]`, `weight [out, in]`, optional `bias [out]` →
    `[..., out]`.

    ```mlir
    %y = tgc.linear %x, %w, %b : tensor<?x256xf32>, tensor<128x256xf32>, tensor<128xf32> -> tensor<?x128xf32>
    ```
  }];
  let arguments = (ins Tgc_FloatTensor:$input, Tgc_FloatTensor:$weight,
                       Optional<Tgc_FloatTensor>:$bias);
  let results = (outs Tgc_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $weight (`,` $bias^)? attr-dict `:` type($input) `,`
      type($weight) (`,` type($bias)^)? `->` type($result)
  }];
}

def Tgc_CholeskyOp : Tgc_Op<"cholesky", [Pure, SameOperandsAndResultType]> {
  let summary = "Cholesky factor of (batches of) SPD matrices";
  let description = [{
    `torch.linalg.cholesky`: lower (or `upper`) triangular `L` with
    `A = L L^H`, over any number of leading batch dimensions. The last two
    dimensions are square. A matrix that is not positive definite is a
    runtime error.

    ```mlir
    %l = tgc.cholesky %a : tensor<?x4x4xf64>
    ```
  }];
  let arguments = (ins Tgc_FloatTensor:$input, UnitAttr:$upper);
  let results = (outs Tgc_FloatTensor:$result);
  let assemblyFormat = "$input (`upper` $upper^)? attr-dict `:` type($input)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Neural-network operators
//===----------------------------------------------------------------------===//

class Tgc_SoftmaxLikeOp<string mnemonic, string desc>
    : Tgc_Op<mnemonic, [Pure, SameOperandsAndResultType]> {
  let summary = desc;
  let description = [{
    torch.nn.functional.}] # mnemonic # [{ over `dim`, computed stably
    (the row maximum is subtracted first).

    ```mlir
    %p = tgc.}] # mnemonic # [{ %x dim = 1 : tensor<?x1024xf32>
    ```
  }];
  let arguments = (ins Tgc_FloatTensor:$input, I64Attr:$dim);
  let results = (outs Tgc_FloatTensor:$result);
  let assemblyFormat = "$input `dim` `=` $dim attr-dict `:` type($input)";
  let hasVerifier = 1;
}

def Tgc_SoftmaxOp : Tgc_SoftmaxLikeOp<"softmax", "Softmax along a dimension">;
def Tgc_LogSoftmaxOp : Tgc_SoftmaxLikeOp<"log_softmax",
                                         "Log-softmax along a dimension">;

def Tgc_LayerNormOp : Tgc_Op<"layer_norm",
    [Pure, AttrSizedOperandSegments, AllTypesMatch<["input", "result"]>]> {
  let summary = "Layer normalization (torch.nn.functional.layer_norm)";
  let description = [{
    Normalizes over the trailing `normalized_rank` dimensions:
    `(x - mean) / sqrt(var + eps) * weight + bias`, with the biased
    variance. `weight` and `bias`, when present, have the shape of those
    trailing dimensions.

    ```mlir
    %y = tgc.layer_norm %x weight(%w : tensor<768xf32>) bias(%b : tensor<768xf32>) normalized_rank = 1 eps = 1.0e-05 : tensor<?x768xf32>
    ```
  }];
  let arguments = (ins Tgc_FloatTensor:$input,
                       Optional<Tgc_FloatTensor>:$weight,
                       Optional<Tgc_FloatTensor>:$bias,
                       I64Attr:$normalized_rank,
                       DefaultValuedAttr<F64Attr, "1.0e-5">:$eps);
  let results = (outs Tgc_FloatTensor:$result);
  let assemblyFormat = [{
    $input (`weight` `(` $weight^ `:` type($weight) `)`)?
      (`bias` `(` $bias^ `:` type($bias) `)`)?
      `normalized_rank` `=` $normalized_rank `eps` `=` $eps attr-dict `:`
      type($input)
  }];
  let hasVerifier = 1;
}

def Tgc_RmsNormOp : Tgc_Op<"rms_norm",
    [Pure, AllTypesMatch<["input", "result"]>]> {
  let summary = "RMS normalization (torch.nn.functional.rms_norm)";
  let description = [{
    `x / sqrt(mean(x^2) + eps) * weight` over the trailing
    `normalized_rank` dimensions. Without `eps`, PyTorch's default is used:
    the machine epsilon of the element type.

    ```mlir
    %y = tgc.rms_norm %x weight(%w : tensor<4096xbf16>) normalized_rank = 1 eps = 1.0e-06 : tensor<?x4096xbf16>
    ```
  }];
  let arguments = (ins Tgc_FloatTensor:$input,
                       Optional<Tgc_FloatTensor>:$weight,
                       I64Attr:$normalized_rank, OptionalAttr<F64Attr>:$eps);
  let results = (outs Tgc_FloatTensor:$result);
  let assemblyFormat = [{
    $input (`weight` `(` $weight^ `:` type($weight) `)`)?
      `normalized_rank` `=` $normalized_rank (`eps` `=` $eps^)? attr-dict `:`
      type($input)
  }];
  let hasVerifier = 1;
}

def Tgc_ScaledDotProductAttentionOp
    : Tgc_Op<"scaled_dot_product_attention",
             [Pure, Tgc_InferTensorType]> {
  let summary = "softmax(Q K^T * scale + mask) V";
  let description = [{
    torch.nn.functional.scaled_dot_product_attention without dropout:
    `query [..., L, E]`, `key [..., S, E]`, `value [..., S, Ev]` →
    `[..., L, Ev]`; leading dimensions broadcast. `mask` (bool: true keeps;
    float: added) broadcasts to `[..., L, S]`; `causal` masks `j > i` and
    excludes `mask`. `scale` defaults to `1 / sqrt(E)`.

    ```mlir
    %o = tgc.scaled_dot_product_attention %q, %k, %v causal : tensor<2x8x?x64xf16>, tensor<2x8x?x64xf16>, tensor<2x8x?x64xf16> -> tensor<2x8x?x64xf16>
    ```
  }];
  let arguments = (ins Tgc_FloatTensor:$query, Tgc_FloatTensor:$key,
                       Tgc_FloatTensor:$value, Optional<Tgc_Tensor>:$mask,
                       UnitAttr:$causal, OptionalAttr<F64Attr>:$scale);
  let results = (outs Tgc_FloatTensor:$result);
  let assemblyFormat = [{
    $query `,` $key `,` $value (`mask` `(` $mask^ `:` type($mask) `)`)?
      (`causal` $causal^)? attr-dict `:` type($query) `,` type($key) `,`
      type($value) `->` type($result)
  }];
  let hasFolder = 1;
}

def Tgc_Conv2dOp : Tgc_Op<"conv2d", [Pure, Tgc_InferTensorType]> {
  let summary = "2-D convolution (torch.nn.functional.conv2d)";
  let description = [{
    `input [N, C, H, W]` (or unbatched `[C, H, W]`), `weight
    [O, C / groups, kH, kW]`, optional `bias [O]`; zero padding.

    ```mlir
    %y = tgc.conv2d %x, %w stride [1, 1] padding [1, 1] dilation [1, 1] groups = 1 : tensor<?x3x32x32xf32>, tensor<16x3x3x3xf32> -> tensor<?x16x32x32xf32>
    ```
  }];
  let arguments = (ins Tgc_FloatTensor:$input, Tgc_FloatTensor:$weight,
                       Optional<Tgc_FloatTensor>:$bias,
                       DenseI64ArrayAttr:$stride, DenseI64ArrayAttr:$padding,
                       DenseI64ArrayAttr:$dilation, I64Attr:$groups);
  let results = (outs Tgc_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $weight (`bias` `(` $bias^ `:` type($bias) `)`)?
      `stride` $stride `padding` $padding `dilation` $dilation
      `groups` `=` $groups attr-dict `:` type($input) `,` type($weight) `->`
      type($result)
  }];
}

def Tgc_Conv2dBackwardInputOp : Tgc_Op<"conv2d_backward_input", [Pure]> {
  let summary = "the gradient of tgc.conv2d with respect to its input";
  let description = [{
    `grad_output [N, O, H', W']` and the convolution's `weight [O, C /
    groups, kH, kW]` give the input's gradient `[N, C, H, W]`:
    `dx[n, c, h, w]` sums `dy[n, o, oh, ow] * weight[o, c mod (C / groups),
    kh, kw]` over the group's output channels `o` and the window positions
    with `oh * stride + kh * dilation - padding == h` (likewise `w`):
    `aten.convolution_backward`'s first result, a transposed convolution.
    `H` and `W` are static (a stride above 1 leaves them ambiguous from
    `H'`, so the result type says them); `N` is the gradient's.

    ```mlir
    %dx = tgc.conv2d_backward_input %dy, %w stride [2, 2] padding [1, 1] dilation [1, 1] groups = 1 : tensor<?x16x8x8xf32>, tensor<16x8x3x3xf32> -> tensor<?x8x16x16xf32>
    ```
  }];
  let arguments = (ins Tgc_FloatTensor:$grad_output, Tgc_FloatTensor:$weight,
                       DenseI64ArrayAttr:$stride, DenseI64ArrayAttr:$padding,
                       DenseI64ArrayAttr:$dilation, I64Attr:$groups);
  let results = (outs Tgc_FloatTensor:$result);
  let assemblyFormat = [{
    $grad_output `,` $weight `stride` $stride `padding` $padding
      `dilation` $dilation `groups` `=` $groups attr-dict `:`
      type($grad_output) `,` type($weight) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tgc_Conv2dBackwardWeightOp
    : Tgc_Op<"conv2d_backward_weight", [Pure, Tgc_InferTensorType]> {
  let summary = "the gradient of tgc.conv2d with respect to its weight";
  let description = [{
    `grad_output [N, O, H', W']` and the convolution's `input [N, C, H,
    W]` give the weight's gradient `[O, C / groups, kH, kW]` (`kernel`):
    `dw[o, c, kh, kw]` sums `dy[n, o, oh, ow] * input[n, g * C / groups +
    c, oh * stride + kh * dilation - padding, ...]` over `n, oh, ow`, zero
    outside the input, where `g = o / (O / groups)`:
    `aten.convolution_backward`'s second result.

    ```mlir
    %dw = tgc.conv2d_backward_weight %dy, %x kernel [3, 3] stride [1, 1] padding [1, 1] dilation [1, 1] groups = 1 : tensor<?x16x8x8xf32>, tensor<?x8x8x8xf32> -> tensor<16x8x3x3xf32>
    ```
  }];
  let arguments = (ins Tgc_FloatTensor:$grad_output, Tgc_FloatTensor:$input,
                       DenseI64ArrayAttr:$kernel, DenseI64ArrayAttr:$stride,
                       DenseI64ArrayAttr:$padding, DenseI64ArrayAttr:$dilation,
                       I64Attr:$groups);
  let results = (outs Tgc_FloatTensor:$result);
  let assemblyFormat = [{
    $grad_output `,` $input `kernel` $kernel `stride` $stride `padding`
      $padding `dilation` $dilation `groups` `=` $groups attr-dict `:`
      type($grad_output) `,` type($input) `->` type($result)
  }];
}

def Tgc_MaxPool2dOp : Tgc_Op<"max_pool2d", [Pure, Tgc_InferTensorType]> {
  let summary = "2-D max pooling (torch.nn.functional.max_pool2d)";
  let description = [{
    Over `[N, C, H, W]` or `[C, H, W]`; padding is `-inf`; `ceil_mode` as in
    PyTorch (a last window must start inside the input or left padding).

    ```mlir
    %p = tgc.max_pool2d %x kernel [2, 2] stride [2, 2] padding [0, 0] dilation [1, 1] : tensor<?x16x32x32xf32> -> tensor<?x16x16x16xf32>
    ```
  }];
  let arguments = (ins Tgc_NumericTensor:$input, DenseI64ArrayAttr:$kernel,
                       DenseI64ArrayAttr:$stride, DenseI64ArrayAttr:$padding,
                       DenseI64ArrayAttr:$dilation, UnitAttr:$ceil_mode);
  let results = (outs Tgc_NumericTensor:$result);
  let assemblyFormat = [{
    $input `kernel` $kernel `stride` $stride `padding` $padding
      `dilation` $dilation (`ceil_mode` $ceil_mode^)? attr-dict `:`
      type($input) `->` type($result)
  }];
}

def Tgc_AvgPool2dOp : Tgc_Op<"avg_pool2d", [Pure, Tgc_InferTensorType]> {
  let summary = "2-D average pooling (torch.nn.functional.avg_pool2d)";
  let description = [{
    Over `[N, C, H, W]` or `[C, H, W]`. `count_include_pad` (PyTorch's
    default `true`) counts padding zeros in the divisor;
    `divisor_override` replaces the divisor.

    ```mlir
    %p = tgc.avg_pool2d %x kernel [2, 2] stride [2, 2] padding [0, 0] : tensor<1x3x8x8xf32> -> tensor<1x3x4x4xf32>
    ```
  }];
  let arguments = (ins Tgc_FloatTensor:$input, DenseI64ArrayAttr:$kernel,
                       DenseI64ArrayAttr:$stride, DenseI64ArrayAttr:$padding,
                       UnitAttr:$ceil_mode,
                       DefaultValuedAttr<BoolAttr, "true">:$count_include_pad,
                       OptionalAttr<I64Attr>:$divisor_override);
  let results = (outs Tgc_FloatTensor:$result);
  let assemblyFormat = [{
    $input `kernel` $kernel `stride` $stride `padding` $padding
      (`ceil_mode` $ceil_mode^)? attr-dict `:` type($input) `->` type($result)
  }];
}

//===----------------------------------------------------------------------===//
// Out buffers
//===----------------------------------------------------------------------===//

def Tgc_WriteOutOp : Tgc_Op<"write_out",
    [DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "The value lands in a caller's buffer (out= and in-place)";
  let description = [{
    Functionalized `out=` and in-place forms: `torch.topk(x, 10,
    out=(v, i))` is a `tgc.topk` followed by two `tgc.write_out`, and
    `x.add_(y)` is a `tgc.add` written out to `x`. `out` is an argument of
    the enclosing function: the caller's buffer, written in place when the
    function returns.

    The value and the buffer have one element type and rank. Their sizes
    are related by a constraint, not assumed equal: static sizes must
    agree here, and a `?` on either side becomes a symbolic equality that
    the guards check on the buffer's actual size, so a varying input size
    never forces a recompile by itself.

    ```mlir
    func.func @topk_out(%x: tensor<?xf32>, %v: tensor<10xf32>, %i: tensor<10xi64>) {
      %values, %indices = tgc.topk %x k = 10 dim = 0 : tensor<?xf32> -> tensor<10xf32>, tensor<10xi64>
      tgc.write_out %values into %v : tensor<10xf32> into tensor<10xf32>
      tgc.write_out %indices into %i : tensor<10xi64> into tensor<10xi64>
      return
    }
    ```
  }];
  let arguments = (ins Tgc_Tensor:$value, Tgc_Tensor:$out);
  let assemblyFormat = [{
    $value `into` $out attr-dict `:` type($value) `into` type($out)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Fusion
//===----------------------------------------------------------------------===//

def Tgc_FusionGroupOp : Tgc_Op<"fusion_group",
    [IsolatedFromAbove, SingleBlockImplicitTerminator<"YieldOp">,
     RecursiveMemoryEffects]> {
  let summary = "Ops that compile to one kernel";
  let description = [{
    A group formed by `tgc-fuse`: its ops become one kernel (one parallel
    loop nest on the CPU, one GPU kernel), so the values flowing between
    them never round-trip through memory. The region is isolated: inputs
    come in as block arguments, results leave through `tgc.yield`. `kind`
    says how the group was formed and how it is lowered:

    | kind | what it holds |
    |---|---|
    | `elementwise` | a chain of elementwise ops and broadcasts |
    | `reduction` | a reduction with its elementwise producers and consumers |
    | `rows` | row-wise ops over the same rows (softmax, layer norm, entropy) |
    | `matmul` | a matmul / linear with its elementwise epilogue |
    | `convolution` | a convolution with its elementwise epilogue (the ReLU after it) |
    | `single` | one op that fuses with nothing |

    ```mlir
    %p = tgc.fusion_group "rows" ins(%x : tensor<?x1024xf32>) {
    ^bb0(%a: tensor<?x1024xf32>):
      %s = tgc.softmax %a dim = 1 : tensor<?x1024xf32>
      tgc.yield %s : tensor<?x1024xf32>
    } -> tensor<?x1024xf32>
    ```
  }];
  let arguments = (ins StrAttr:$kind, Variadic<Tgc_Tensor>:$inputs);
  let results = (outs Variadic<Tgc_Tensor>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $kind `ins` `(` ($inputs^ `:` type($inputs))? `)` attr-dict-with-keyword
      $body `->` type($results)
  }];
  let hasVerifier = 1;
  let skipDefaultBuilders = 1;
  let builders = [
    OpBuilder<(ins "::llvm::StringRef":$kind, "::mlir::ValueRange":$inputs,
                   "::mlir::TypeRange":$resultTypes)>
  ];
}

def Tgc_YieldOp : Tgc_Op<"yield",
    [Pure, Terminator, ReturnLike, HasParent<"FusionGroupOp">]> {
  let summary = "The results of a fusion group";
  let arguments = (ins Variadic<Tgc_Tensor>:$values);
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
  let builders = [OpBuilder<(ins), [{ /* empty */ }]>];
}

#endif // TGC_DIALECT_TGC_IR_TGCOPS_TD
