//===- IdenticalGroups.cpp - reuse a kernel formed for an identical group -===//

#include "IdenticalGroups.h"

#include "tgc/Transforms/Passes.h"

#include "llvm/ADT/Hashing.h"

using namespace mlir;
using namespace mlir::tgc;

namespace {

constexpr llvm::StringLiteral kGroup = "tgc.group";

/// The ops of `ops` and, after each, the ops nested in it (pre-order).
SmallVector<Operation *> nested(ArrayRef<Operation *> ops) {
  SmallVector<Operation *> all;
  for (Operation *op : ops)
    op->walk<WalkOrder::PreOrder>([&](Operation *o) { all.push_back(o); });
  return all;
}

/// `op`'s attributes (of its dictionary: inherent ones too where the op
/// keeps no properties) but its group number.
SmallVector<NamedAttribute> otherAttrs(Operation *op) {
  SmallVector<NamedAttribute> out;
  for (NamedAttribute a : op->getRawDictionaryAttrs())
    if (a.getName() != kGroup)
      out.push_back(a);
  return out;
}

/// Whether every shaped type among `types` is static.
bool allStatic(TypeRange types) {
  return llvm::all_of(types, [](Type t) {
    auto shaped = dyn_cast<ShapedType>(t);
    return !shaped || shaped.hasStaticShape();
  });
}

/// Whether the two ops have the same name, properties, attributes (but
/// the group number), result types and region shapes (block argument
/// types); operands and nested ops are compared by the caller.
bool sameShell(Operation *a, Operation *b) {
  if (a->getName() != b->getName() ||
      a->getOperandTypes() != b->getOperandTypes() ||
      a->getResultTypes() != b->getResultTypes() ||
      a->getNumRegions() != b->getNumRegions() || a->getNumSuccessors() ||
      b->getNumSuccessors() ||
      !a->getName().compareOpProperties(a->getPropertiesStorage(),
                                        b->getPropertiesStorage()) ||
      otherAttrs(a) != otherAttrs(b))
    return false;
  for (auto [ra, rb] : llvm::zip(a->getRegions(), b->getRegions())) {
    if (ra.getBlocks().size() != rb.getBlocks().size())
      return false;
    for (auto [ba, bb] : llvm::zip(ra, rb))
      if (ba.getArgumentTypes() != bb.getArgumentTypes() ||
          ba.getOperations().size() != bb.getOperations().size())
        return false;
  }
  return true;
}

/// Values `op` defines: its results, then its regions' block arguments.
void defined(Operation *op, SmallVectorImpl<Value> &out) {
  llvm::append_range(out, op->getResults());
  for (Region &r : op->getRegions())
    for (Block &b : r)
      llvm::append_range(out, b.getArguments());
}

/// The op of the function's body that holds `v`'s definition.
Operation *topLevelOwner(Value v, Block *body) {
  Operation *owner = v.getDefiningOp();
  if (!owner)
    owner = cast<BlockArgument>(v).getOwner()->getParentOp();
  while (owner && owner->getBlock() != body)
    owner = owner->getParentOp();
  return owner;
}

Location mapLocation(Location loc,
                     const DenseMap<Attribute, Attribute> &locations) {
  if (Attribute to = locations.lookup(loc))
    return cast<LocationAttr>(to);
  if (auto fused = dyn_cast<FusedLoc>(loc)) {
    SmallVector<Location> parts;
    for (Location l : fused.getLocations())
      parts.push_back(mapLocation(l, locations));
    return FusedLoc::get(loc.getContext(), parts, fused.getMetadata());
  }
  return loc;
}

} // namespace

IdenticalGroups::IdenticalGroups(func::FuncOp func)
    : body(&func.getBody().front()) {
  DenseMap<int64_t, unsigned> index;
  for (Operation &op : func.getBody().getOps()) {
    std::optional<int64_t> id = getFusionGroup(&op);
    if (!id)
      continue;
    auto [it, inserted] = index.try_emplace(*id, groups.size());
    if (inserted) {
      groups.emplace_back();
      groups.back().id = *id;
    }
    Group &g = groups[it->second];
    position[&op] = {it->second, g.ops.size()};
    g.ops.push_back(&op);
    g.erased.push_back(false);
  }
  // Each group against the earlier groups of the same shape that are
  // identical to no earlier one.
  DenseMap<llvm::hash_code, SmallVector<unsigned>> firsts;
  for (auto [i, g] : llvm::enumerate(groups)) {
    g.all = nested(g.ops);
    // (names, result types and properties: groups of other shapes rarely
    // meet)
    llvm::hash_code h = llvm::hash_value(g.all.size());
    for (Operation *op : g.all)
      h = llvm::hash_combine(
          h, OperationEquivalence::computeHash(
                 op, OperationEquivalence::ignoreHashValue,
                 OperationEquivalence::ignoreHashValue,
                 OperationEquivalence::IgnoreLocations |
                     OperationEquivalence::IgnoreDiscardableAttrs));
    SmallVector<unsigned> &candidates = firsts[h];
    for (unsigned c : candidates)
      if (identical(groups[c], g)) {
        g.earlier = c;
        groups[c].matched = true;
        break;
      }
    if (g.earlier < 0)
      candidates.push_back(i);
  }
}

bool IdenticalGroups::identical(Group &a, Group &b) {
  if (a.ops.size() != b.ops.size() || a.all.size() != b.all.size())
    return false;
  ArrayRef<Operation *> all = a.all, other = b.all;
  // Values each group defines, numbered in the same walk; what they read
  // from outside, one to one.
  DenseMap<Value, unsigned> ids, otherIds;
  DenseMap<Value, Value> outside, back;
  for (auto [x, y] : llvm::zip(all, other)) {
    if (!sameShell(x, y))
      return false;
    for (auto [u, v] : llvm::zip(x->getOperands(), y->getOperands())) {
      auto i = ids.find(u);
      auto j = otherIds.find(v);
      if (i != ids.end() || j != otherIds.end()) {
        if (i == ids.end() || j == otherIds.end() || i->second != j->second)
          return false;
        continue;
      }
      auto [o, inserted] = outside.try_emplace(u, v);
      auto [p, insertedBack] = back.try_emplace(v, u);
      if (o->second != v || p->second != u)
        return false;
    }
    SmallVector<Value> dx, dy;
    defined(x, dx);
    defined(y, dy);
    if (dx.size() != dy.size())
      return false;
    for (auto [u, v] : llvm::zip(dx, dy)) {
      ids[u] = ids.size();
      otherIds[v] = otherIds.size();
    }
  }
  return true;
}

SmallVector<Value> IdenticalGroups::outsideValues(Group &g, unsigned upTo) {
  SmallVector<Value> out;
  for (unsigned i = 0; i <= upTo; ++i) {
    if (g.erased[i])
      continue;
    g.ops[i]->walk<WalkOrder::PreOrder>([&](Operation *o) {
      for (Value v : o->getOperands()) {
        Operation *top = topLevelOwner(v, body);
        auto it = top ? position.find(top) : position.end();
        if (it == position.end() || &groups[it->second.first] != &g)
          out.push_back(v);
      }
    });
  }
  return out;
}

void IdenticalGroups::aboutToForm(Operation *root) {
  auto it = position.find(root);
  if (it == position.end())
    return;
  Group &g = groups[it->second.first];
  g.pending = Formation();
  g.pending.root = ~0u;
  if (!g.matched || g.nextRoot == 0)
    return; // (only groups that others match keep their kernels)
  unsigned index = it->second.second;
  SmallVector<Value> outside = outsideValues(g, index);
  // (a dynamic size folds to the value that defines it, which the clone
  // would map by position: only static groups are cloned)
  if (!llvm::all_of(outside, [](Value v) { return allStatic(v.getType()); }))
    return;
  for (Operation *op : liveOps(g, index))
    if (!allStatic(op->getResultTypes()) || !allStatic(op->getOperandTypes()))
      return;
  g.pending.root = index;
  g.pending.ordinal = g.nextRoot - 1;
  g.pending.outside = std::move(outside);
  g.pending.erased.assign(g.erased.begin(), g.erased.begin() + index + 1);
  g.pending.locations = locations(g, index);
}

SmallVector<Location> IdenticalGroups::locations(Group &g, unsigned upTo) {
  SmallVector<Location> out;
  for (Operation *op : liveOps(g, upTo)) {
    out.push_back(op->getLoc());
    for (Region &r : op->getRegions())
      for (Block &b : r)
        for (BlockArgument a : b.getArguments())
          out.push_back(a.getLoc());
  }
  return out;
}

SmallVector<Operation *> IdenticalGroups::liveOps(Group &g, unsigned upTo) {
  SmallVector<Operation *> live;
  for (unsigned i = 0; i <= upTo; ++i)
    if (!g.erased[i])
      live.push_back(g.ops[i]);
  return nested(live);
}

void IdenticalGroups::formed(Operation *root, ArrayRef<Operation *> inserted,
                             unsigned numBefore, ArrayRef<Value> replacements) {
  auto it = position.find(root);
  if (it == position.end())
    return;
  Group &g = groups[it->second.first];
  if (g.pending.root != it->second.second)
    return;
  Formation f = std::move(g.pending);
  g.pending = Formation();
  llvm::append_range(f.ops, inserted);
  f.numBefore = numBefore;
  llvm::append_range(f.replacements, replacements);
  f.valid = true;
  unsigned ordinal = f.ordinal;
  if (g.formations.size() <= ordinal)
    g.formations.resize(ordinal + 1);
  g.formations[ordinal] = std::move(f);
}

void IdenticalGroups::erasing(Operation *root) {
  auto it = position.find(root);
  if (it == position.end())
    return;
  groups[it->second.first].erased[it->second.second] = true;
  // (a new op may take the erased one's address)
  position.erase(it);
}

FailureOr<SmallVector<Value>> IdenticalGroups::reuse(RewriterBase &rewriter,
                                                     Operation *root) {
  auto it = position.find(root);
  if (it == position.end())
    return failure();
  Group &g = groups[it->second.first];
  unsigned index = it->second.second;
  unsigned ordinal = g.nextRoot++;
  if (g.earlier < 0)
    return failure();
  Group &e = groups[g.earlier];
  if (ordinal >= e.formations.size() || !e.formations[ordinal].valid)
    return failure();
  Formation &f = e.formations[ordinal];
  if (f.root != index ||
      !llvm::equal(f.erased, ArrayRef(g.erased).take_front(index + 1)))
    return failure();

  // The earlier group's values -> ours: its ops' results, what it read
  // (one to one, as it was when its kernel was formed), and the kernels
  // already cloned for its earlier roots.
  IRMapping mapping = g.fromEarlier;
  for (unsigned i = 0; i < index; ++i)
    if (!g.erased[i]) {
      assert(!e.erased[i] && "the earlier group's live ops, as recorded");
      for (auto [u, v] :
           llvm::zip(e.ops[i]->getResults(), g.ops[i]->getResults()))
        mapping.map(u, v);
    }
  SmallVector<Value> outside = outsideValues(g, index);
  if (outside.size() != f.outside.size())
    return failure();
  DenseMap<Value, Value> back;
  for (auto [u, v] : llvm::zip(f.outside, outside)) {
    if (u.getType() != v.getType())
      return failure();
    if (Value mapped = mapping.lookupOrNull(u)) {
      if (mapped != v)
        return failure();
      continue;
    }
    auto [b, inserted] = back.try_emplace(v, u);
    if (b->second != u)
      return failure();
    mapping.map(u, v);
  }
  // Every value the kernel reads from outside itself has ours, and what
  // replaces the root is the kernel's.
  DenseSet<Operation *> kernel(f.ops.begin(), f.ops.end());
  for (Value r : f.replacements)
    if (r && !kernel.contains(r.getDefiningOp()))
      return failure();
  bool complete = true;
  for (Operation *op : f.ops)
    op->walk([&](Operation *o) {
      for (Value v : o->getOperands())
        if (!kernel.contains(topLevelOwner(v, body)) && !mapping.contains(v))
          complete = false;
    });
  if (!complete)
    return failure();
  // Locations, one to one (the earlier root is erased: its ops'
  // locations were kept when its kernel was formed).
  DenseMap<Attribute, Attribute> locationMap;
  SmallVector<Location> ours = locations(g, index);
  if (ours.size() != f.locations.size())
    return failure();
  auto mapLoc = [&](Location from, Location to) {
    if (isa<UnknownLoc>(from))
      return from == to; // (the clone's other unknown locations stay)
    auto [m, inserted] = locationMap.try_emplace(from, to);
    return m->second == Attribute(to);
  };
  for (auto [from, to] : llvm::zip(f.locations, ours))
    if (!mapLoc(from, to))
      return failure();
  // (the tiled ops' block arguments take the locations of the values
  // they stand for)
  for (auto [u, v] : llvm::zip(f.outside, outside))
    if (!mapLoc(u.getLoc(), v.getLoc()))
      return failure();

  Attribute group = root->getAttr(kGroup);
  rewriter.setInsertionPoint(root);
  for (auto [i, op] : llvm::enumerate(f.ops)) {
    if (i == f.numBefore)
      rewriter.setInsertionPointAfter(root);
    Operation *clone = rewriter.clone(*op, mapping);
    clone->walk([&](Operation *o) {
      if (auto a = o->getAttrOfType<IntegerAttr>(kGroup);
          a && a.getInt() == e.id)
        o->setAttr(kGroup, group);
      o->setLoc(mapLocation(o->getLoc(), locationMap));
      for (Region &r : o->getRegions())
        for (Block &b : r)
          for (BlockArgument a : b.getArguments())
            a.setLoc(mapLocation(a.getLoc(), locationMap));
    });
    for (auto [u, v] : llvm::zip(op->getResults(), clone->getResults()))
      g.fromEarlier.map(u, v);
  }
  SmallVector<Value> replacements;
  for (Value r : f.replacements)
    replacements.push_back(r ? mapping.lookupOrNull(r) : Value());
  ++reused;
  return replacements;
}
