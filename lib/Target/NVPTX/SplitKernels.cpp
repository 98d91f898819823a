//===- SplitKernels.cpp - a kernel module in parts for parallel codegen ---===//
//
// See SplitKernels.h. The split is at the MLIR level, before translation:
// each part is translated into its own LLVMContext, which is what lets the
// parts' LLVM work run on separate threads.
//
//===----------------------------------------------------------------------===//

#include "SplitKernels.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/SymbolTable.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/IR/Module.h"

#include <algorithm>
#include <numeric>

using namespace mlir;
using namespace mlir::tgc;

static bool isKernel(LLVM::LLVMFuncOp func) {
  return func->hasAttr(NVVM::NVVMDialect::getKernelFuncAttrName()) ||
         func.getCConv() == LLVM::cconv::CConv::PTX_Kernel;
}

static bool isLocal(LLVM::Linkage linkage) {
  return linkage == LLVM::Linkage::Private ||
         linkage == LLVM::Linkage::Internal;
}

/// Whether `global` defines a name other PTX code could see: an externally
/// visible global with a value, or of a linkage that defines it.
static bool isVisibleDefinition(LLVM::GlobalOp global) {
  if (isLocal(global.getLinkage()))
    return false;
  bool declaration = !global.getValueOrNull() &&
                     global.getInitializerRegion().empty() &&
                     (global.getLinkage() == LLVM::Linkage::External ||
                      global.getLinkage() == LLVM::Linkage::ExternWeak);
  return !declaration;
}

namespace {
/// The top-level symbols of a gpu.module and their sizes.
struct SymbolIndex {
  llvm::DenseMap<StringAttr, Operation *> byName;
  llvm::DenseMap<Operation *, int64_t> opCount;

  /// The top-level symbols `root` refers to, transitively, with `root`.
  llvm::SmallPtrSet<Operation *, 16> reach(Operation *root) const {
    llvm::SmallPtrSet<Operation *, 16> seen;
    SmallVector<Operation *> work{root};
    seen.insert(root);
    while (!work.empty()) {
      Operation *op = work.pop_back_val();
      op->walk([&](Operation *inner) {
        inner->getAttrDictionary().walk([&](SymbolRefAttr ref) {
          auto it = byName.find(ref.getRootReference());
          if (it != byName.end() && seen.insert(it->second).second)
            work.push_back(it->second);
        });
      });
    }
    return seen;
  }
};
} // namespace

KernelModuleSplit::KernelModuleSplit(gpu::GPUModuleOp module, unsigned parts)
    : module(module) {
  partList.push_back(module);
  if (parts < 2)
    return;
  Block &body = module.getBodyRegion().front();
  SymbolIndex index;
  SmallVector<LLVM::LLVMFuncOp> kernels;
  for (Operation &op : body) {
    // Anything but functions and globals (module-level metadata ops, global
    // constructors) might tie parts together: translate the module whole.
    if (!isa<LLVM::LLVMFuncOp, LLVM::GlobalOp>(op) &&
        !op.hasTrait<OpTrait::IsTerminator>())
      return;
    if (auto symbol = dyn_cast<SymbolOpInterface>(op)) {
      index.byName[symbol.getNameAttr()] = &op;
      int64_t count = 0;
      op.walk([&](Operation *) { ++count; });
      index.opCount[&op] = count;
    }
    if (auto func = dyn_cast<LLVM::LLVMFuncOp>(op))
      if (isKernel(func) && !func.isExternal())
        kernels.push_back(func);
  }
  if (kernels.size() < 2)
    return;
  parts = std::min<unsigned>(parts, kernels.size());

  // Per kernel: what it reaches, its cost (the ops of all that) and whether
  // it must stay with the visible globals in part 0.
  SmallVector<llvm::SmallPtrSet<Operation *, 16>> reached;
  SmallVector<int64_t> cost(kernels.size(), 0);
  SmallVector<bool> pinned(kernels.size(), false);
  for (auto [i, kernel] : llvm::enumerate(kernels)) {
    reached.push_back(index.reach(kernel));
    for (Operation *op : reached.back()) {
      cost[i] += index.opCount.lookup(op);
      if (auto global = dyn_cast<LLVM::GlobalOp>(op))
        pinned[i] = pinned[i] || isVisibleDefinition(global);
    }
  }
  // Longest first onto the least loaded part (ties: the lower part, then
  // the earlier kernel).
  SmallVector<unsigned> partOf(kernels.size(), 0);
  SmallVector<int64_t> load(parts, 0);
  for (size_t i = 0; i < kernels.size(); ++i)
    if (pinned[i])
      load[0] += cost[i];
  SmallVector<size_t> byCost(kernels.size());
  std::iota(byCost.begin(), byCost.end(), 0);
  llvm::sort(byCost, [&](size_t a, size_t b) {
    return cost[a] != cost[b] ? cost[a] > cost[b] : a < b;
  });
  for (size_t i : byCost) {
    if (pinned[i])
      continue;
    unsigned best = std::min_element(load.begin(), load.end()) - load.begin();
    partOf[i] = best;
    load[best] += cost[i];
  }
  // Parts without a kernel are dropped (part 0 stays: it holds the globals).
  SmallVector<unsigned> renumber(parts, 0);
  unsigned used = 1;
  for (unsigned p = 1; p < parts; ++p)
    if (llvm::is_contained(partOf, p))
      renumber[p] = used++;
  if (used < 2)
    return;
  for (unsigned &p : partOf)
    p = renumber[p];

  for (Operation &op : body)
    order.push_back(&op);
  llvm::DenseMap<Operation *, unsigned> kernelPart;
  SmallVector<llvm::SmallPtrSet<Operation *, 16>> keep(used);
  for (auto [i, kernel] : llvm::enumerate(kernels)) {
    kernelPart[kernel] = partOf[i];
    keep[partOf[i]].insert(reached[i].begin(), reached[i].end());
  }
  // The other parts, in module order: kernels moved, what they reach copied.
  OpBuilder builder(module.getContext());
  for (unsigned p = 1; p < used; ++p) {
    auto part = cast<gpu::GPUModuleOp>(module->cloneWithoutRegions());
    owned.emplace_back(part);
    partList.push_back(part);
    Block *partBody = new Block;
    part.getBodyRegion().push_back(partBody);
    builder.setInsertionPointToEnd(partBody);
    for (Operation *op : order) {
      auto found = kernelPart.find(op);
      if (found != kernelPart.end()) {
        if (found->second == p)
          op->moveBefore(partBody, partBody->end());
        continue;
      }
      if (!keep[p].contains(op) && !op->hasTrait<OpTrait::IsTerminator>())
        continue;
      Operation *copy = builder.clone(*op);
      // A function part 0 defines too must not be visible twice.
      if (auto func = dyn_cast<LLVM::LLVMFuncOp>(copy))
        if (!func.isExternal() && !isLocal(func.getLinkage()))
          func.setLinkage(LLVM::Linkage::Internal);
    }
  }
}

KernelModuleSplit::~KernelModuleSplit() {
  if (order.empty())
    return;
  // Every op back into the module's body, in its order; the parts keep
  // (and drop) only their copies.
  Block &body = module.getBodyRegion().front();
  for (Operation *op : order)
    op->moveBefore(&body, body.end());
}

void mlir::tgc::renameLocalSymbols(llvm::Module &module, unsigned part) {
  if (part == 0)
    return;
  std::string suffix = "__tgc_part" + std::to_string(part);
  for (llvm::GlobalValue &value : module.global_values()) {
    if (!value.hasLocalLinkage())
      continue;
    // Unnamed values become __unnamed_N in PTX, in every part alike.
    if (value.hasName())
      value.setName(value.getName() + suffix);
    else
      value.setName("tgc_unnamed" + suffix);
  }
}

/// The header's directives without comments and blank lines, to compare.
static std::string headerDirectives(StringRef header) {
  std::string out;
  SmallVector<StringRef> lines;
  header.split(lines, '\n');
  for (StringRef line : lines) {
    line = line.trim();
    if (line.empty() || line.starts_with("//"))
      continue;
    out += line.str() + "\n";
  }
  return out;
}

FailureOr<std::string> mlir::tgc::joinPTX(ArrayRef<std::string> parts,
                                          std::string &error) {
  std::string header, directives, bodies;
  std::vector<std::string> externs;
  llvm::StringSet<> seen;
  for (auto [i, ptx] : llvm::enumerate(parts)) {
    StringRef text(ptx);
    size_t at = text.find("\n.address_size");
    if (at == StringRef::npos) {
      error = "the PTX of part " + std::to_string(i) +
              " has no .address_size directive";
      return failure();
    }
    size_t end = text.find('\n', at + 1);
    if (end == StringRef::npos)
      end = text.size();
    StringRef head = text.take_front(end), rest = text.drop_front(end);
    if (i == 0) {
      header = head.str();
      directives = headerDirectives(head);
    } else if (headerDirectives(head) != directives) {
      error =
          "the PTX headers of part 0 and part " + std::to_string(i) + " differ";
      return failure();
    }
    // Module-scope `.extern` statements (one line, or a function prototype
    // over several ending in ';') once; everything else in order.
    SmallVector<StringRef> lines;
    rest.split(lines, '\n');
    for (size_t l = 0; l < lines.size(); ++l) {
      if (!lines[l].starts_with(".extern")) {
        bodies += lines[l].str();
        bodies += '\n';
        continue;
      }
      std::string statement = lines[l].str();
      while (!StringRef(statement).rtrim().ends_with(";") &&
             l + 1 < lines.size())
        statement += "\n" + lines[++l].str();
      if (seen.insert(statement).second)
        externs.push_back(std::move(statement));
    }
  }
  std::string out = std::move(header);
  out += "\n";
  for (const std::string &statement : externs)
    out += "\n" + statement;
  out += "\n";
  out += bodies;
  return out;
}
