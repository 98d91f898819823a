//===- PtxasWorkarounds.cpp - LLVM IR that ptxas compiles wrong, rewritten ===//
//
// ptxas (CUDA 12.8 to 13.3 at least, at -O1 and above, sm_90 and later)
// fuses an integer negation into the three-input min/max it forms from two
// integer min/max instructions (SASS VIMNMX3) and drops the negation:
// `max(max(acc, -a), -b)` runs as `max(max(acc, a), b)`. The PTX is right;
// only the machine code is wrong (pytorch/pytorch#190973,
// triton-lang/triton#11032; found here by utils/fuzz-gpu.py: an i32 amax of
// -|x|, and a minimum of two i32 tensors with a negated one).
//
// Tried on the H100 (ptxas 13.0 and the driver's JIT): the negation
// spelled neg, sub from 0, mul by -1, sub.cc or with a mov in between is
// miscompiled; spelled `not` then `add 1` (or xor -1 then sub -1) it
// compiles right, ptxas forming LOP3 and VIADDMNMX instead; so do a neg
// followed by an identity prmt or two brevs, and a max written as setp +
// selp, at more instructions. So each negation that feeds an integer min
// or max is replaced, for that use only, by inline assembly computing
// `~x + 1`, which LLVM cannot fold back into `0 - x`. The same ptxas drops
// the negation read by a signed comparison (`-|x| > -1` held for every x
// on the H100, fuzz seed 924138; the rewrite fixed it there), so those
// uses are rewritten too.
//
//===----------------------------------------------------------------------===//

#include "tgc/Target/NVPTX/NVPTXTarget.h"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PatternMatch.h"

using namespace llvm;
using namespace llvm::PatternMatch;

/// `~x + 1` for a scalar of 16, 32 or 64 bits as ptxas sees it, or null.
static Value *opaqueNegate(IRBuilder<> &b, Value *x) {
  auto *type = dyn_cast<IntegerType>(x->getType());
  if (!type)
    return nullptr;
  const char *asmText, *constraints;
  switch (type->getBitWidth()) {
  case 16:
    asmText = "not.b16 $0, $1;\n\tadd.s16 $0, $0, 1;";
    constraints = "=h,h";
    break;
  case 32:
    asmText = "not.b32 $0, $1;\n\tadd.s32 $0, $0, 1;";
    constraints = "=r,r";
    break;
  case 64:
    asmText = "not.b64 $0, $1;\n\tadd.s64 $0, $0, 1;";
    constraints = "=l,l";
    break;
  default:
    return nullptr;
  }
  auto *fnType = FunctionType::get(type, {type}, /*isVarArg=*/false);
  InlineAsm *negate = InlineAsm::get(fnType, asmText, constraints,
                                     /*hasSideEffects=*/false);
  return b.CreateCall(negate, {x}, x->getName() + ".neg");
}

/// The same for each element of a vector (or the scalar itself).
static Value *opaqueNegateAll(IRBuilder<> &b, Value *x) {
  auto *vector = dyn_cast<FixedVectorType>(x->getType());
  if (!vector)
    return opaqueNegate(b, x);
  Value *result = PoisonValue::get(vector);
  for (unsigned i = 0, e = vector->getNumElements(); i < e; ++i) {
    Value *element = opaqueNegate(b, b.CreateExtractElement(x, i));
    if (!element)
      return nullptr;
    result = b.CreateInsertElement(result, element, i);
  }
  return result;
}

unsigned mlir::tgc::hideNegationsFromIntegerMinMax(llvm::Module &module) {
  unsigned rewritten = 0;
  for (Function &function : module) {
    for (BasicBlock &block : function) {
      for (Instruction &inst : block) {
        // Integer min/max, and signed comparisons (fuzz seed 924138: `-|x|
        // > -1` ran as if the negation were not there).
        auto *cmp = dyn_cast<ICmpInst>(&inst);
        if (!isa<MinMaxIntrinsic>(inst) && !(cmp && cmp->isSigned()))
          continue;
        for (unsigned i = 0; i < 2; ++i) {
          llvm::Value *negated;
          if (!match(inst.getOperand(i), m_Neg(m_Value(negated))))
            continue;
          IRBuilder<> b(&inst);
          if (llvm::Value *opaque = opaqueNegateAll(b, negated)) {
            inst.setOperand(i, opaque);
            ++rewritten;
          }
        }
      }
    }
  }
  return rewritten;
}
