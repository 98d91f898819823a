//===- CompileReport.cpp - what a compile did, for reports ----------------===//

#include "tgc/Compiler/CompileReport.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/Operation.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::tgc;

void CompilePhases::begin(StringRef name) {
  end();
  currentName = name.str();
  started = std::chrono::steady_clock::now();
}

void CompilePhases::end() {
  if (currentName.empty())
    return;
  double ms = std::chrono::duration<double, std::milli>(
                  std::chrono::steady_clock::now() - started)
                  .count();
  auto it = llvm::find_if(phases,
                          [&](auto &p) { return p.first == currentName; });
  if (it != phases.end())
    it->second += ms;
  else
    phases.emplace_back(currentName, ms);
  currentName.clear();
}

std::string CompilePhases::text() const {
  std::string out;
  llvm::raw_string_ostream os(out);
  llvm::interleave(
      phases, os,
      [&](const auto &p) {
        os << p.first << "=" << llvm::format("%.3f", p.second);
      },
      ";");
  return out;
}

namespace {
class PhaseInstrumentation : public PassInstrumentation {
public:
  PhaseInstrumentation(
      CompilePhases &phases, StringRef first,
      ArrayRef<std::pair<StringRef, StringRef>> marks)
      : phases(phases), first(first.str()) {
    for (auto [pass, phase] : marks)
      this->marks.emplace_back(pass.str(), phase.str());
  }

  void runBeforePass(Pass *pass, Operation *) override {
    if (!started) {
      started = true;
      phases.begin(first);
    }
    StringRef argument = pass->getArgument();
    for (auto &[mark, phase] : marks)
      if (argument == mark && phases.current() != phase)
        phases.begin(phase);
  }

private:
  CompilePhases &phases;
  std::string first;
  std::vector<std::pair<std::string, std::string>> marks;
  bool started = false;
};
} // namespace

void CompilePhases::instrument(
    PassManager &pm, StringRef first,
    ArrayRef<std::pair<StringRef, StringRef>> marks) {
  pm.addInstrumentation(
      std::make_unique<PhaseInstrumentation>(*this, first, marks));
}

std::string mlir::tgc::kernelSources(Operation *kernel) {
  std::vector<std::string> seen;
  auto add = [&](Location loc) {
    std::string scope;
    // Pre-order: a NameLoc comes just before the file location it wraps
    // (a fused location lists several).
    loc->walk([&](Location l) {
      if (auto name = dyn_cast<NameLoc>(l)) {
        scope = name.getName().str();
      } else if (auto file = dyn_cast<FileLineColLoc>(l)) {
        std::string text = (scope.empty() ? "" : scope + "@") +
                           file.getFilename().str() + ":" +
                           std::to_string(file.getLine());
        if (llvm::find(seen, text) == seen.end())
          seen.push_back(text);
        scope.clear();
      }
      return WalkResult::advance();
    });
  };
  kernel->walk([&](Operation *op) { add(op->getLoc()); });
  return llvm::join(seen, "|");
}

std::string mlir::tgc::arenaLayout(Operation *func,
                                   ArrayRef<std::vector<int64_t>> shapes) {
  auto plan = func->getAttrOfType<DictionaryAttr>("tgc.memory_plan");
  if (!plan)
    return "";
  auto layout = plan.getAs<ArrayAttr>("layout");
  auto dims = plan.getAs<DenseI64ArrayAttr>("dims");
  if (!layout || !dims)
    return "";
  SmallVector<int64_t> symbols;
  for (size_t i = 0; i + 1 < static_cast<size_t>(dims.size()); i += 2) {
    int64_t arg = dims[i], dim = dims[i + 1];
    if (arg < 0 || arg >= static_cast<int64_t>(shapes.size()) || dim < 0 ||
        dim >= static_cast<int64_t>(shapes[arg].size()))
      return "";
    symbols.push_back(shapes[arg][dim]);
  }
  auto eval = [&](Attribute a) -> std::optional<int64_t> {
    auto map = dyn_cast<AffineMapAttr>(a);
    if (!map || map.getValue().getNumResults() != 1 ||
        map.getValue().getNumSymbols() != symbols.size())
      return std::nullopt;
    SmallVector<int64_t> r = map.getValue().compose(symbols);
    return r.empty() ? std::nullopt : std::optional<int64_t>(r[0]);
  };
  std::string out;
  llvm::raw_string_ostream os(out);
  for (Attribute entry : layout) {
    auto fields = dyn_cast<ArrayAttr>(entry);
    if (!fields || fields.size() != 4)
      return "";
    std::optional<int64_t> offset = eval(fields[0]), bytes = eval(fields[1]);
    auto first = dyn_cast<IntegerAttr>(fields[2]);
    auto last = dyn_cast<IntegerAttr>(fields[3]);
    if (!offset || !bytes || !first || !last)
      return "";
    os << *offset << " " << *bytes << " " << first.getInt() << " "
       << last.getInt() << "\n";
  }
  return out;
}
