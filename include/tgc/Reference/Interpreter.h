//===- Interpreter.h - reference interpreter for tgc functions --*- C++ -*-===//
//
// The oracle of TGC's integration and differential tests: runs a function
// of tgc ops on host tensors with one plain implementation per op, written
// from the op semantics (PyTorch's) and independent of the compiler's
// lowering. See docs/reference-interpreter.md.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_REFERENCE_INTERPRETER_H
#define TGC_REFERENCE_INTERPRETER_H

#include "tgc/Reference/HostTensor.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Support/LLVM.h"

#include <vector>

namespace mlir::tgc::ref {

/// Runs `func` on `args`, one per function argument: tensors as HostTensor
/// (dtype, rank and static sizes must match the signature; `?` sizes come
/// from the tensors), integer and index scalars as 0-d I64 tensors. Returns
/// the function's results (integer and index results as 0-d I64 tensors).
/// `tgc.write_out` copies its value into the out buffer in `args` (the
/// buffer keeps its allocation); later reads of that argument in the
/// function still see the value it had on entry, as in value semantics.
///
/// Fails, with an error diagnostic at the offending op (or at the function
/// for a bad argument), on an unsupported op, an index out of range
/// (gather, index_select, embedding), a matrix that is not positive
/// definite (cholesky), integer division by zero, an empty reduction
/// without identity (amax, argmax, max, ...), and sizes that violate an
/// op's requirements at run time (a broadcast mismatch, a reshape's element
/// count, topk's k, a result size that contradicts a static size in the
/// IR).
///
/// Floats are computed in double and each op's result is rounded to its
/// element type; integers in int64 with wrap-around.
FailureOr<std::vector<HostTensor>> interpret(func::FuncOp func,
                                             MutableArrayRef<HostTensor> args);

} // namespace mlir::tgc::ref

#endif // TGC_REFERENCE_INTERPRETER_H
