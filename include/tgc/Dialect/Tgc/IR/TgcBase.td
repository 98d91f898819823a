//===- TgcBase.td - tgc dialect definition and type constraints -----------===//
//
// The `tgc` dialect: value-semantic tensor operations with PyTorch (ATen)
// semantics, over builtin ranked tensor types.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_DIALECT_TGC_IR_TGCBASE_TD
#define TGC_DIALECT_TGC_IR_TGCBASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "tgc/Dialect/Tgc/IR/TgcInterfaces.td"

def Tgc_Dialect : Dialect {
  let name = "tgc";
  let cppNamespace = "::mlir::tgc";
  let summary = "Value-semantic tensor operations with PyTorch semantics";
  let description = [{
    The `tgc` dialect holds the tensor programs TGC compiles: one operation
    per ATen operator that PyTorch graphs use, on builtin ranked `tensor`
    types whose unknown sizes are `?`.

    Semantics follow PyTorch with three differences that make the IR
    explicit rather than implicit:

    * **Type promotion is explicit.** Binary operations require operands of
      one element type; the importer inserts `tgc.convert` where PyTorch
      would promote (`int + float`, `half + float`, ...).
    * **Dimensions are normalized.** Negative `dim` arguments are rewritten
      by the importer to `dim + rank`; verifiers reject negative dims.
    * **Scalars are rank-0 tensors.** `x + 1` is `tgc.add` of `x` and a
      `tgc.constant` of type `tensor<f32>`, broadcast like any tensor.

    Broadcasting is PyTorch's: shapes are aligned on the right, and a
    dimension of size 1 stretches to the other operand's size. A static
    mismatch is a verifier error; a `?` dimension is accepted and its
    compatibility becomes a symbolic constraint (see the `tgc_sym`
    dialect).

    `out=` and in-place forms are functionalized: the operation produces a
    value, and `tgc.write_out` records that the value lands in a caller
    buffer.

    Element types: `f32`, `f16`, `bf16`, `f64`, `i64`, `i32`, `i8` and
    `i1` (PyTorch's `float`, `half`, `bfloat16`, `double`, `long`, `int`,
    `int8` and `bool`). Integers are signless in the IR and signed in
    meaning, as in PyTorch.
  }];
  let useDefaultAttributePrinterParser = 0;
  let useDefaultTypePrinterParser = 0;
  let hasConstantMaterializer = 1;
  let extraClassDeclaration = [{
    void registerOps();
  }];
}

//===----------------------------------------------------------------------===//
// Type constraints
//===----------------------------------------------------------------------===//

def Tgc_FloatElement : AnyTypeOf<[F16, BF16, F32, F64], "floating-point">;
def Tgc_IntElement : AnyTypeOf<[I8, I32, I64], "integer (i8, i32, i64)">;
def Tgc_NumericElement : AnyTypeOf<[F16, BF16, F32, F64, I8, I32, I64],
                                   "numeric (non-bool)">;
def Tgc_Element : AnyTypeOf<[F16, BF16, F32, F64, I1, I8, I32, I64],
                            "tgc element">;

def Tgc_Tensor : RankedTensorOf<[Tgc_Element]>;
def Tgc_FloatTensor : RankedTensorOf<[Tgc_FloatElement]>;
def Tgc_NumericTensor : RankedTensorOf<[Tgc_NumericElement]>;
def Tgc_BoolTensor : RankedTensorOf<[I1]>;
def Tgc_IntOrBoolTensor : RankedTensorOf<[I1, I8, I32, I64]>;
def Tgc_IndexTensor : RankedTensorOf<[I32, I64]>;
def Tgc_I64Tensor : RankedTensorOf<[I64]>;

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

def Tgc_CmpPredicate : I32EnumAttr<"CmpPredicate",
    "comparison predicate of tgc.cmp", [
      I32EnumAttrCase<"eq", 0>, I32EnumAttrCase<"ne", 1>,
      I32EnumAttrCase<"lt", 2>, I32EnumAttrCase<"le", 3>,
      I32EnumAttrCase<"gt", 4>, I32EnumAttrCase<"ge", 5>]> {
  let cppNamespace = "::mlir::tgc";
}

def Tgc_GeluApproximation : I32EnumAttr<"GeluApproximation",
    "approximation of tgc.gelu", [
      I32EnumAttrCase<"none", 0>, I32EnumAttrCase<"tanh", 1>]> {
  let cppNamespace = "::mlir::tgc";
}

def Tgc_RoundingMode : I32EnumAttr<"RoundingMode",
    "rounding of tgc.div", [
      I32EnumAttrCase<"true_div", 0>, I32EnumAttrCase<"trunc", 1>,
      I32EnumAttrCase<"floor", 2>]> {
  let cppNamespace = "::mlir::tgc";
}

//===----------------------------------------------------------------------===//
// Result type inference
//===----------------------------------------------------------------------===//

include "mlir/Interfaces/InferTypeOpInterface.td"

// Result types follow from operands and attributes (PyTorch's shape rules).
// A declared result type may be more precise than the inferred one (a static
// size where inference gives `?`), but never contradict it.
def Tgc_InferTensorTypeBase : InferTypeOpAdaptorBase<[{
    static bool isCompatibleReturnTypes(::mlir::TypeRange l,
                                        ::mlir::TypeRange r) {
      return ::mlir::tgc::areCompatibleTensorTypes(l, r);
    }
}]>;
// Verification runs the shape rule first, so an invalid op gets one precise
// diagnostic (see TgcTraits.h).
def Tgc_InferTensorType : TraitList<
    !listconcat(Tgc_InferTensorTypeBase.traits,
                [NativeOpTrait<"TgcVerifyInferredTypes">])>;

//===----------------------------------------------------------------------===//
// Base op classes
//===----------------------------------------------------------------------===//

// Every tgc op has a symbolic shape function (TgcShapeFunctions.cpp).
class Tgc_Op<string mnemonic, list<Trait> traits = []>
    : Op<Tgc_Dialect, mnemonic,
         !listconcat(traits,
                     [DeclareOpInterfaceMethods<Tgc_SymbolicShapeOpInterface>])>;

#endif // TGC_DIALECT_TGC_IR_TGCBASE_TD
