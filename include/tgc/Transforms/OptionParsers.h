//===- OptionParsers.h - pipeline options checked when parsed ---*- C++ -*-===//
//
// The string options of TGC's pipelines that take one of a fixed set of
// values (a shape policy, a device) check it in their llvm::cl parser: a
// bad value fails option parsing with one line that names the option, the
// value and the accepted values, before any IR is read:
//
//   tgc-opt: for the --default-policy option: 'dynamc' is not static,
//   dynamic or auto
//
// withDefault() sets an option's initial value and appends it to the help
// text ("Threads per block (default: 256)"), so that --help shows every
// pipeline option's default from the value the option really has.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_TRANSFORMS_OPTIONPARSERS_H
#define TGC_TRANSFORMS_OPTIONPARSERS_H

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/CommandLine.h"

#include <mutex>
#include <string>
#include <type_traits>

namespace mlir::tgc {

/// `static`, `dynamic` or `auto` (tgc-symbolize-shapes' default-policy).
inline bool isShapePolicy(llvm::StringRef value) {
  return value == "static" || value == "dynamic" || value == "auto";
}

/// `cpu`, `cuda` or `cuda:N` (tgc-generate-guards' device).
inline bool isDeviceName(llvm::StringRef value) {
  if (value == "cpu" || value == "cuda")
    return true;
  return value.consume_front("cuda:") && !value.empty() &&
         llvm::all_of(value, llvm::isDigit);
}

/// The llvm::cl parser of a string option that takes the values
/// `Values::accepts`: `Values::expected` lists them in errors ("static,
/// dynamic or auto") and `Values::valueName` in --help
/// (`--default-policy=<static|dynamic|auto>`). For cl::opt and pass
/// options alike: `Option<std::string, ShapePolicyParser>`.
template <typename Values>
class OneOfParser : public llvm::cl::parser<std::string> {
public:
  using llvm::cl::parser<std::string>::parser;

  // Returns true on error (llvm::cl's convention).
  bool parse(llvm::cl::Option &option, llvm::StringRef, llvm::StringRef arg,
             std::string &value) {
    if (!Values::accepts(arg))
      return option.error("'" + arg + "' is not " + Values::expected);
    value = arg.str();
    return false;
  }
  llvm::StringRef getValueName() const override { return Values::valueName; }
};

struct ShapePolicyValues {
  static bool accepts(llvm::StringRef value) { return isShapePolicy(value); }
  static constexpr const char *expected = "static, dynamic or auto";
  static constexpr const char *valueName = "static|dynamic|auto";
};
using ShapePolicyParser = OneOfParser<ShapePolicyValues>;

struct DeviceValues {
  static bool accepts(llvm::StringRef value) { return isDeviceName(value); }
  static constexpr const char *expected = "cpu, cuda or cuda:N";
  static constexpr const char *valueName = "cpu|cuda|cuda:N";
};
using DeviceParser = OneOfParser<DeviceValues>;

/// Help texts outlive the options (llvm::cl keeps a StringRef): one copy
/// of each, for the process.
inline llvm::StringRef keepOptionHelpText(const llvm::Twine &text) {
  static std::mutex mutex;
  static llvm::StringSet<> texts;
  std::lock_guard<std::mutex> lock(mutex);
  return texts.insert(text.str()).first->getKey();
}

/// An llvm::cl modifier, after cl::desc: the option's initial value, shown
/// in its help as " (default: VALUE)" (booleans as true/false, the
/// pipeline syntax).
template <typename T> struct ShownDefault {
  T value;

  template <typename Opt> void apply(Opt &option) const {
    option.setInitialValue(value);
    std::string text;
    if constexpr (std::is_same_v<T, bool>)
      text = value ? "true" : "false";
    else if constexpr (std::is_arithmetic_v<T>)
      text = std::to_string(value);
    else
      text = value;
    option.setDescription(
        keepOptionHelpText(option.HelpStr + " (default: " + text + ")"));
  }
};

template <typename T> ShownDefault<T> withDefault(const T &value) {
  return {value};
}
inline ShownDefault<std::string> withDefault(const char *value) {
  return {value};
}

} // namespace mlir::tgc

#endif // TGC_TRANSFORMS_OPTIONPARSERS_H
