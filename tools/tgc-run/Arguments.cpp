//===- Arguments.cpp - tgc-run's ARG: argument indices and names ----------===//

#include "Arguments.h"

#include "mlir/IR/Location.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace tgc_run;

/// The name of the first name location in `loc` ("" when none).
static std::string locationName(Location loc) {
  std::string name;
  loc->walk([&](Location l) {
    if (auto named = dyn_cast<NameLoc>(l)) {
      name = named.getName().str();
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return name;
}

EntryArguments::EntryArguments(func::FuncOp entry, const AsmParserState &state)
    : entry(entry),
      names(3, std::vector<std::string>(entry.getNumArguments())) {
  if (entry.isExternal())
    return;
  for (unsigned i = 0; i < entry.getNumArguments(); ++i) {
    names[0][i] = locationName(entry.getArgument(i).getLoc());
    if (auto name = entry.getArgAttrOfType<StringAttr>(i, "tgc.name"))
      names[1][i] = name.getValue().str();
  }
  const AsmParserState::BlockDefinition *def =
      state.getBlockDef(&entry.getBody().front());
  if (!def)
    return;
  for (auto [i, arg] : llvm::enumerate(def->arguments)) {
    llvm::StringRef text(arg.loc.Start.getPointer(),
                         arg.loc.End.getPointer() - arg.loc.Start.getPointer());
    if (i < names[2].size() && text.consume_front("%") && !text.empty() &&
        !llvm::all_of(text, llvm::isDigit))
      names[2][i] = text.str();
  }
}

std::optional<unsigned> EntryArguments::index(llvm::StringRef arg) const {
  unsigned idx;
  if (!arg.getAsInteger(10, idx))
    return idx < entry.getNumArguments() ? std::optional(idx) : std::nullopt;
  for (const std::vector<std::string> &kind : names)
    for (unsigned i = 0; i < kind.size(); ++i)
      if (!kind[i].empty() && kind[i] == arg)
        return i;
  return std::nullopt;
}

std::string EntryArguments::label(unsigned i) const {
  for (const std::vector<std::string> &kind : names)
    if (!kind[i].empty())
      return kind[i];
  return std::to_string(i);
}

std::string EntryArguments::describe() const {
  std::string out;
  for (unsigned i = 0; i < entry.getNumArguments(); ++i) {
    out += (i ? ", " : "") + std::to_string(i);
    std::string name = label(i);
    if (name != std::to_string(i))
      out += " (" + name + ")";
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
      fail(option + ": no argument '" + arg.trim() + "' in @" +
           entry.getName() + " (its arguments: " + describe() + ")");
    std::optional<std::vector<int64_t>> d = parseDims(dims);
    if (!d)
      fail(option + ": bad sizes '" + dims + "' (expected D0xD1x...)");
    shapes[*i] = *d;
  }
}
