//===- CheckSymbolNames.cpp - no function named like a library symbol -----===//
//
// See the pass description in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "tgc/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/StringSet.h"

namespace mlir::tgc {
#define GEN_PASS_DEF_TGCCHECKSYMBOLNAMES
#include "tgc/Transforms/Frontend/Passes.h.inc"
} // namespace mlir::tgc

using namespace mlir;
using namespace mlir::tgc;

namespace {

/// C99 <math.h> functions; each also has an `f` (float) and an `l` (long
/// double) form. With the GNU extensions glibc's libm exports.
constexpr StringLiteral kMathFunctions[] = {
    "acos",      "acosh",     "asin",     "asinh",      "atan",
    "atan2",     "atanh",     "cbrt",     "ceil",       "copysign",
    "cos",       "cosh",      "drem",     "erf",        "erfc",
    "exp",       "exp10",     "exp2",     "expm1",      "fabs",
    "fdim",      "finite",    "floor",    "fma",        "fmax",
    "fmin",      "fmod",      "frexp",    "gamma",      "hypot",
    "ilogb",     "isinf",     "isnan",    "j0",         "j1",
    "jn",        "ldexp",     "lgamma",   "llrint",     "llround",
    "log",       "log10",     "log1p",    "log2",       "logb",
    "lrint",     "lround",    "modf",     "nan",        "nearbyint",
    "nextafter", "nexttoward", "pow",     "pow10",      "remainder",
    "remquo",    "rint",      "round",    "roundeven",  "scalb",
    "scalbln",   "scalbn",    "significand", "sin",     "sincos",
    "sinh",      "sqrt",      "tan",      "tanh",       "tgamma",
    "trunc",     "y0",        "y1",       "yn"};

/// <stdlib.h>, <string.h> and <stdio.h> functions that lowered code or
/// the runtimes it links against call, or that a process cannot do
/// without.
constexpr StringLiteral kLibcFunctions[] = {
    "abort",   "aligned_alloc", "atexit",  "calloc",  "exit",
    "free",    "fprintf",       "fputs",   "fwrite",  "malloc",
    "memalign", "memchr",       "memcmp",  "memcpy",  "memmove",
    "memset",  "posix_memalign", "printf", "putchar", "puts",
    "pvalloc", "realloc",       "strlen",  "valloc",  "write"};

/// Prefixes of symbols that compilers and TGC's runtime generate.
constexpr StringLiteral kReservedPrefixes[] = {
    "__", "_mlir", "tgc_guard_", "tgc_report_", "tgc_take_", "tgc_result_"};

const llvm::StringSet<> &reservedNames() {
  static const llvm::StringSet<> names = [] {
    llvm::StringSet<> set;
    for (StringRef f : kMathFunctions) {
      set.insert(f);
      set.insert((f + "f").str());
      set.insert((f + "l").str());
    }
    for (StringRef f : kLibcFunctions)
      set.insert(f);
    return set;
  }();
  return names;
}

/// Why `name` may not be the name of a function with a body, or "".
std::string reservedBecause(StringRef name) {
  for (StringRef prefix : kReservedPrefixes)
    if (name.starts_with(prefix))
      return ("names beginning with '" + prefix +
              "' are reserved for symbols compilers and TGC's runtime "
              "generate")
          .str();
  if (reservedNames().contains(name))
    return "it is the name of a C library or math library function that "
           "compiled code calls, which would call this function instead";
  return "";
}

struct TgcCheckSymbolNamesPass
    : tgc::impl::TgcCheckSymbolNamesBase<TgcCheckSymbolNamesPass> {
  void runOnOperation() override {
    bool failedAny = false;
    auto check = [&](Operation *op, StringRef name) {
      std::string why = reservedBecause(name);
      if (why.empty())
        return;
      op->emitError("function @")
          << name << " has a reserved name: " << why
          << "; rename the function (tgc-run, the C API and tgc.compile give "
             "the functions they compile a private symbol themselves)";
      failedAny = true;
    };
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (!func.isExternal())
        check(func, func.getSymName());
    if (failedAny)
      signalPassFailure();
  }
};

} // namespace
