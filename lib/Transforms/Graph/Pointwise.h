//===- Pointwise.h - tgc ops computed point by point ------------*- C++ -*-===//
//
// The tgc ops whose result at a point depends only on their (broadcast)
// operands at that point: what tgc-fuse groups as elementwise (with
// tgc.expand and tgc.philox_uniform, whose values depend on the position)
// and what tgc-sink-gathers moves a gather through.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_LIB_TRANSFORMS_GRAPH_POINTWISE_H
#define TGC_LIB_TRANSFORMS_GRAPH_POINTWISE_H

#include "tgc/Dialect/Tgc/IR/TgcOps.h"

namespace mlir::tgc {

inline bool isPointwiseOp(Operation *op) {
  return isa<NegOp, AbsOp, ReluOp, ExpOp, Exp2Op, Expm1Op, LogOp, Log2Op,
             Log1pOp, SqrtOp, RsqrtOp, SinOp, CosOp, TanhOp, SigmoidOp, ErfOp,
             SiluOp, ReciprocalOp, FloorOp, CeilOp, RoundOp, LogicalNotOp,
             GeluOp, ClampOp, AddOp, SubOp, MulOp, PowOp, MaximumOp, MinimumOp,
             RemainderOp, Atan2Op, LogicalAndOp, LogicalOrOp, DivOp, CmpOp,
             WhereOp, ConvertOp>(op);
}

} // namespace mlir::tgc

#endif // TGC_LIB_TRANSFORMS_GRAPH_POINTWISE_H
