//===- HostOptimizer.h - LLVM's pipeline for the host, with vector math -*- C++ -*-===//
//
// The CPU JIT's LLVM optimization (HostOptimizer.cpp): the -O pipeline with
// the host's target machine, and libmvec's vector math functions known to
// the loop vectorizer.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_COMPILER_HOSTOPTIMIZER_H
#define TGC_COMPILER_HOSTOPTIMIZER_H

#include "llvm/Support/Error.h"

#include <functional>

namespace llvm {
class Module;
class TargetMachine;
} // namespace llvm

namespace mlir::tgc {

/// Whether glibc's libmvec is loaded into the process (it is on first use):
/// code that calls its functions resolves them there.
bool vectorMathAvailable();

/// LLVM's default pipeline at `optLevel` for `machine` (which must outlive
/// the function); with `vectorMath` and libmvec loaded, loops of expf,
/// logf, tanhf, erff, ... vectorize into libmvec's functions.
std::function<llvm::Error(llvm::Module *)>
makeHostOptimizer(unsigned optLevel, llvm::TargetMachine *machine,
                  bool vectorMath);

/// The vector width, in bits, that LLVM's loop and SLP vectorizers are to
/// prefer for `bits` as a compile option asks: 0 means the host's widest,
/// 512 where it has AVX-512F (LLVM's tuning for Intel's server cores
/// prefers 256, which halves the lanes of libmvec's calls and of every
/// loop a kernel leaves to the vectorizer), else what LLVM chooses (0 is
/// returned). Other values are returned as they are.
unsigned resolveVectorWidth(unsigned bits);

/// Whether `bits` is a vector width a compile may ask for: 0 (the host's
/// widest), 128, 256 or 512. The text of the error for any other value.
bool isVectorWidthOption(unsigned bits);
inline constexpr const char *kVectorWidthExpected =
    "expected 0 (the host's widest), 128, 256 or 512";

/// Gives every function defined in `module` LLVM's `prefer-vector-width`
/// attribute of `bits` (nothing when 0). Explicit vectors (the register
/// tiles of tgc-vectorize-contractions) keep their own width.
void setPreferredVectorWidth(llvm::Module &module, unsigned bits);

} // namespace mlir::tgc

#endif // TGC_COMPILER_HOSTOPTIMIZER_H
