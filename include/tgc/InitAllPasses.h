//===- InitAllPasses.h - every pass TGC's tools know ------------*- C++ -*-===//

#ifndef TGC_INITALLPASSES_H
#define TGC_INITALLPASSES_H

namespace mlir::tgc {

/// TGC's own passes and pipelines plus the upstream passes TGC's pipelines
/// use (so that `tgc-opt` can run and test every stage by itself).
void registerAllTgcPasses();

} // namespace mlir::tgc

#endif // TGC_INITALLPASSES_H
