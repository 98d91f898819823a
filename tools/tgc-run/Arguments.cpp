//===- Arguments.cpp - tgc-run's ARG: argument indices and names ----------===//

#include "Arguments.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace tgc_run;

EntryArguments::EntryArguments(func::FuncOp entry, const AsmParserState &state)
    : entry(entry), sourceNames(entry.getNumArguments()) {
  if (entry.isExternal())
    return;
  const AsmParserState::BlockDefinition *def =
      state.getBlockDef(&entry.getBody().front());
  if (!def)
    return;
  for (auto [i, arg] : llvm::enumerate(def->arguments)) {
    llvm::StringRef text(arg.loc.Start.getPointer(),
                         arg.loc.End.getPointer() - arg.loc.Start.getPointer());
    if (i < sourceNames.size() && text.consume_front("%") && !text.empty() &&
        !llvm::all_of(text, llvm::isDigit))
      sourceNames[i] = text.str();
  }
}

std::optional<unsigned> EntryArguments::index(llvm::StringRef arg) const {
  unsigned idx;
  if (!arg.getAsInteger(10, idx))
    return idx < entry.getNumArguments() ? std::optional(idx) : std::nullopt;
  for (unsigned i = 0; i < entry.getNumArguments(); ++i) {
    if (auto name = entry.getArgAttrOfType<StringAttr>(i, "tgc.name"))
      if (name.getValue() == arg)
        return i;
    if (sourceNames[i] == arg)
      return i;
  }
  return std::nullopt;
}

std::string EntryArguments::describe() const {
  std::string out;
  for (unsigned i = 0; i < entry.getNumArguments(); ++i) {
    out += (i ? ", " : "") + std::to_string(i);
    if (!sourceNames[i].empty())
      out += " (" + sourceNames[i] + ")";
  }
  return out;
}

void EntryArguments::applyShapeSpecs(llvm::ArrayRef<std::string> specs,
                                     Shapes &shapes,
                                     llvm::StringRef option) const {
  for (const std::string &spec : specs) {
    auto [arg, dims] = llvm::StringRef(spec).split('=');
    std::optional<unsigned> i = index(arg.trim());
    if (!i)
      fail(option + ": no argument '" + arg + "' in @" + entry.getName() +
           " (its arguments: " + describe() + ")");
    std::optional<std::vector<int64_t>> d = parseDims(dims);
    if (!d)
      fail(option + ": bad sizes '" + dims + "' (expected D0xD1x...)");
    shapes[*i] = *d;
  }
}
