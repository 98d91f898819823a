//===- Elementwise.cpp - tgc to linalg: Elementwise ops -------------------------------===//
//
// Placeholder: the patterns of this family are being written.
//
//===----------------------------------------------------------------------===//

#include "tgc/Conversion/TgcToLinalg/TgcToLinalg.h"

#include "Utils.h"

using namespace mlir;
using namespace mlir::tgc;

void mlir::tgc::populateTgcElementwiseToLinalgPatterns(RewritePatternSet &patterns) {}
