//===- TreeKernels.cpp - two-stage tree reductions
//--------------------------===//
//
// The tree strategy: a reduction over many elements per output as two
// kernels. The first stage's workers each combine a chunk of one output's
// reduction into a partial result in a scratch region at the end of the
// arena; the second combines each output's partials with its initial
// value and runs the elementwise epilogues at that output point. When every
// output has one chunk the first stage finishes the outputs itself.
//
//===----------------------------------------------------------------------===//

#include "GpuGemmMatching.h"
#include "Strategies.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::tgc;
using namespace mlir::tgc::gpu_kernels;

namespace {

class TreeKernelEmitter : public KernelBuilder {
public:
  using KernelBuilder::KernelBuilder;

  /// region: kernels run one after another on the stream.
  /// A view of target.treePartials elements of `type` in a scratch region after
  /// the arena's planned buffers (the arena grows by target.treePartials * 8
  /// bytes, or is created). Every tree of the function uses the same
  /// region: kernels run one after another on the stream.
  Value partialsBuffer(Type type) {
    if (Value v = ctx.partialViews.lookup(type))
      return v;
    Location loc = func.getLoc();
    if (!ctx.scratchArena) {
      memref::AllocOp arena;
      func.walk([&](memref::AllocOp a) {
        if (!a->use_empty() && llvm::all_of(a->getUsers(), [](Operation *u) {
              return isa<memref::ViewOp>(u);
            }))
          arena = a;
      });
      const int64_t extra = target.treePartials * 8;
      Type i8 = IntegerType::get(func.getContext(), 8);
      auto alignment =
          IntegerAttr::get(IntegerType::get(func.getContext(), 64), 64);
      if (!arena) {
        OpBuilder b = OpBuilder::atBlockBegin(&func.getBody().front());
        ctx.scratchAt = arith::ConstantIndexOp::create(b, loc, 0);
        ctx.scratchArena = memref::AllocOp::create(
            b, loc, MemRefType::get({extra}, i8), alignment);
      } else {
        OpBuilder b(arena);
        MemRefType type = arena.getType();
        if (type.hasStaticShape()) {
          int64_t old = llvm::alignTo(type.getNumElements(), 64);
          ctx.scratchAt = arith::ConstantIndexOp::create(b, loc, old);
          ctx.scratchArena = memref::AllocOp::create(
              b, loc, MemRefType::get({old + extra}, i8), alignment);
        } else {
          // The planner's size is a multiple of 64 (a product by 64).
          ctx.scratchAt = arena.getDynamicSizes()[0];
          auto mul = ctx.scratchAt.getDefiningOp<arith::MulIOp>();
          if (!mul || getConstantIntValue(mul.getRhs()) != 64) {
            Value c64 = arith::ConstantIndexOp::create(b, loc, 64);
            ctx.scratchAt = arith::MulIOp::create(
                b, loc, arith::CeilDivSIOp::create(b, loc, ctx.scratchAt, c64),
                c64);
          }
          Value total = arith::AddIOp::create(
              b, loc, ctx.scratchAt,
              arith::ConstantIndexOp::create(b, loc, extra));
          ctx.scratchArena = memref::AllocOp::create(
              b, loc, type, ValueRange{total}, alignment);
        }
        for (OpOperand &use : llvm::make_early_inc_range(arena->getUses()))
          use.set(ctx.scratchArena);
        arena.erase();
      }
    }
    OpBuilder b(ctx.scratchArena->getBlock(),
                std::next(Block::iterator(ctx.scratchArena)));
    Value view = memref::ViewOp::create(
        b, loc, MemRefType::get({target.treePartials}, type), ctx.scratchArena,
        ctx.scratchAt, ValueRange{});
    ctx.partialViews[type] = view;
    return view;
  }

  /// The partials per output (host values): enough workers for the
  /// device's bandwidth, at most target.treePartials in all, and chunks of at
  /// least target.treeUnroll elements per thread.
  Value treeSplit(OpBuilder &b, Location loc, Tree &t, Value outputs,
                  Value length) {
    auto c = [&](int64_t v) {
      return arith::ConstantIndexOp::create(b, loc, v);
    };
    Value p = arith::MaxSIOp::create(b, loc, outputs, c(1));
    int64_t workers =
        t.columns ? target.treeWorkers : target.treeWorkers / target.warpSize;
    Value s = arith::CeilDivSIOp::create(b, loc, c(workers), p);
    s = arith::MinSIOp::create(
        b, loc, s, arith::DivSIOp::create(b, loc, c(target.treePartials), p));
    int64_t chunk =
        t.columns ? target.treeUnroll : target.warpSize * target.treeUnroll;
    s = arith::MinSIOp::create(
        b, loc, s, arith::CeilDivSIOp::create(b, loc, length, c(chunk)));
    if (t.columns)
      s = arith::MinSIOp::create(b, loc, s, c(target.treeColumnSplit));
    return arith::MaxSIOp::create(b, loc, s, c(1));
  }

  /// `acc` folded by `step(builder, position, acc)` over positions first,
  /// first + stride, ... below `end`: target.treeUnroll positions per iteration
  /// of a main loop (their loads are independent of each other), then the
  /// rest one at a time.
  Value accumulate(OpBuilder &b, Location loc, Value first, Value end,
                   int64_t stride, Value acc,
                   function_ref<Value(OpBuilder &, Value, Value)> step) {
    auto c = [&](int64_t v) {
      return arith::ConstantIndexOp::create(b, loc, v);
    };
    Value span = arith::MaxSIOp::create(
        b, loc, arith::SubIOp::create(b, loc, end, first), c(0));
    Value count = arith::CeilDivSIOp::create(b, loc, span, c(stride));
    Value mainEnd = arith::AddIOp::create(
        b, loc, first,
        arith::MulIOp::create(
            b, loc, arith::DivSIOp::create(b, loc, count, c(target.treeUnroll)),
            c(stride * target.treeUnroll)));
    auto main = scf::ForOp::create(
        b, loc, first, mainEnd, c(stride * target.treeUnroll), ValueRange{acc});
    {
      OpBuilder lb = OpBuilder::atBlockBegin(main.getBody());
      Value a = main.getRegionIterArgs()[0];
      for (int64_t u = 0; u < target.treeUnroll; ++u) {
        Value at = main.getInductionVar();
        if (u)
          at = arith::AddIOp::create(
              lb, loc, at, arith::ConstantIndexOp::create(lb, loc, u * stride));
        a = step(lb, at, a);
      }
      scf::YieldOp::create(lb, loc, a);
    }
    auto rest =
        scf::ForOp::create(b, loc, mainEnd, end, c(stride), main.getResults());
    {
      OpBuilder lb = OpBuilder::atBlockBegin(rest.getBody());
      scf::YieldOp::create(
          lb, loc,
          step(lb, rest.getInductionVar(), rest.getRegionIterArgs()[0]));
    }
    return rest.getResult(0);
  }

  /// Finishes output point `pivs` with the combined `total`: stores
  /// combine(initial value, total), then runs the epilogues there.
  void finishTree(OpBuilder &b, Tree &t, ValueRange pivs, Value total) {
    Location loc = t.op.getLoc();
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    SmallVector<Value> ivs(t.op.getNumLoops(), zero);
    for (auto [d, iv] : llvm::zip(t.par, pivs))
      ivs[d] = iv;
    OpOperand *init = t.op.getDpsInitOperand(0);
    Value out = kval(b, init->get());
    SmallVector<Value> idx =
        applyMap(b, loc, t.op.getMatchingIndexingMap(init), ivs);
    Value initial =
        t.fill ? emitBody(b, t.fill,
                          SmallVector<Value>(t.fill.getNumLoops(), zero))[0]
               : memref::LoadOp::create(b, loc, out, idx).getResult();
    Value value = combine(b, t.combiner.op, initial, total);
    memref::StoreOp::create(b, loc, value, out, idx);
    DenseMap<Value, Value> held{{init->get(), value}};
    for (linalg::GenericOp e : t.epilogues) {
      SmallVector<Value> given(e->getNumOperands());
      for (OpOperand &operand : e->getOpOperands())
        given[operand.getOperandNumber()] = held.lookup(operand.get());
      SmallVector<Value> values = emitBody(b, e, pivs, {}, given);
      storeOutputs(b, e, pivs, values);
      for (auto [v, result] : llvm::zip(e.getDpsInits(), values))
        held[v] = result;
    }
  }

  LogicalResult emitTree(Tree &t) {
    linalg::GenericOp op = t.op;
    Location loc = op.getLoc();
    // Host code goes before the last op: the epilogues' outputs are
    // allocated in between.
    OpBuilder hb(t.epilogues.empty() ? op.getOperation()
                                     : t.epilogues.back().getOperation());
    SmallVector<Value> hostSizes = hostLoopSizes(hb, op);
    SmallVector<Value> hostPar, hostRed;
    for (unsigned d : t.par)
      hostPar.push_back(hostSizes[d]);
    for (unsigned d : t.red)
      hostRed.push_back(hostSizes[d]);
    Value hostP = product(hb, loc, hostPar);
    Value hostSplit = treeSplit(hb, loc, t, hostP, product(hb, loc, hostRed));
    Type accType = t.combiner.op->getResult(0).getType();
    Value partials = partialsBuffer(accType);
    auto c = [&](OpBuilder &b, int64_t v) {
      return arith::ConstantIndexOp::create(b, loc, v);
    };
    // Both kernels read the same operands.
    auto addAll = [&]() -> LogicalResult {
      for (Value s : hostSizes)
        if (failed(addOperand(s, op)))
          return failure();
      if (failed(addOperand(hostSplit, op)) || failed(addOperands(op)) ||
          failed(addOperand(partials, op)) ||
          (t.fill && failed(addOperands(t.fill))))
        return failure();
      for (linalg::GenericOp e : t.epilogues)
        if (failed(addOperands(e)))
          return failure();
      return success();
    };
    struct Setup {
      SmallVector<Value> parSizes, redSizes;
      Value outputs, length, split, partials, bid, tid;
    };
    auto setup = [&](OpBuilder &kb) {
      Setup s;
      for (unsigned d : t.par)
        s.parSizes.push_back(kval(kb, hostSizes[d]));
      for (unsigned d : t.red)
        s.redSizes.push_back(kval(kb, hostSizes[d]));
      s.outputs = product(kb, loc, s.parSizes);
      s.length = product(kb, loc, s.redSizes);
      s.split = kval(kb, hostSplit);
      s.partials = kval(kb, partials);
      s.bid = gpu::BlockIdOp::create(kb, loc, gpu::Dimension::x);
      s.tid = gpu::ThreadIdOp::create(kb, loc, gpu::Dimension::x);
      return s;
    };
    auto neutralValue = [&](OpBuilder &b) {
      return arith::ConstantOp::create(b, loc, t.combiner.neutral);
    };
    // Inputs whose indices by the reduction loops are one run of
    // consecutive dims, in the loops' order, over a dense buffer: read
    // through a view with that run collapsed into one dim, indexed by the
    // linear reduction position, so that no position is divided back into
    // the loops' indices (64-bit divisions would dominate the kernel).
    bool usesRedIndex = false;
    op.getBody()->walk([&](linalg::IndexOp index) {
      usesRedIndex |= llvm::is_contained(t.red, index.getDim());
    });
    SmallVector<std::optional<unsigned>> runAt(op.getNumDpsInputs());
    bool collapseAll = !usesRedIndex;
    for (OpOperand *in : op.getDpsInputOperands()) {
      auto type = dyn_cast<MemRefType>(in->get().getType());
      if (!type || splatGlobal(in->get()))
        continue;
      AffineMap m = op.getMatchingIndexingMap(in);
      ArrayRef<AffineExpr> results = m.getResults();
      std::optional<unsigned> at;
      for (unsigned r = 0; r + t.red.size() <= results.size() && !at; ++r)
        if (areDims(results.slice(r, t.red.size()), t.red))
          at = r;
      bool others =
          at && llvm::all_of(llvm::enumerate(results), [&](auto e) {
            return (e.index() >= *at && e.index() < *at + t.red.size()) ||
                   llvm::none_of(t.red, [&](unsigned d) {
                     return e.value().isFunctionOfDim(d);
                   });
          });
      if (!at || !others || !type.getLayout().isIdentity())
        collapseAll = false;
      else
        runAt[in->getOperandNumber()] = at;
    }
    // Warps read 16-byte vectors when every input is collapsed with its
    // run innermost (contiguous along the reduction) and all have one
    // element width; at run time only if the reduction length is a
    // multiple of the vector (so rows start aligned), behind the launch
    // plan's alignment guard, as flat kernels.
    int64_t treeVec = 0;
    if (vectorize && !t.columns && collapseAll) {
      for (OpOperand *in : op.getDpsInputOperands()) {
        unsigned n = in->getOperandNumber();
        if (!runAt[n])
          continue;
        auto type = cast<MemRefType>(in->get().getType());
        unsigned bits = type.getElementTypeBitWidth();
        int64_t width =
            (bits == 16 || bits == 32 || bits == 64) ? 128 / bits : 0;
        if (!type.getElementType().isIntOrFloat() || !width ||
            *runAt[n] + t.red.size() != static_cast<size_t>(type.getRank()) ||
            (treeVec && treeVec != width)) {
          treeVec = 0;
          break;
        }
        treeVec = width;
      }
    }
    // The partial of output `pivs` over reduction positions first, first +
    // stride, ... below end.
    // With `vec` > 1, positions are chunks of `vec` elements, each input
    // read with one vector load per chunk.
    auto reduceChunk = [&](OpBuilder &b, const Setup &s, ValueRange pivs,
                           Value first, Value end, int64_t stride,
                           int64_t vec = 1) {
      Value zero = arith::ConstantIndexOp::create(b, loc, 0);
      SmallVector<Value> ivs(op.getNumLoops(), zero);
      for (auto [d, iv] : llvm::zip(t.par, pivs))
        ivs[d] = iv;
      // The collapsed views, and the indices other than the run.
      SmallVector<Value> views(op.getNumDpsInputs());
      SmallVector<SmallVector<Value>> indices(op.getNumDpsInputs());
      if (collapseAll) {
        for (OpOperand *in : op.getDpsInputOperands()) {
          unsigned n = in->getOperandNumber();
          if (!runAt[n])
            continue;
          unsigned at = *runAt[n], run = t.red.size();
          auto type = cast<MemRefType>(in->get().getType());
          SmallVector<ReassociationIndices> groups;
          for (unsigned r = 0; r < type.getRank(); ++r)
            if (r < at || r >= at + run)
              groups.push_back({static_cast<int64_t>(r)});
            else if (r == at)
              groups.push_back(
                  llvm::to_vector(llvm::seq<int64_t>(at, at + run)));
          views[n] = run == 1 ? kval(b, in->get())
                              : memref::CollapseShapeOp::create(
                                    b, loc, kval(b, in->get()), groups)
                                    .getResult();
          indices[n] = applyMap(b, loc, op.getMatchingIndexingMap(in), ivs);
          indices[n].erase(indices[n].begin() + at,
                           indices[n].begin() + at + run);
        }
      }
      return accumulate(
          b, loc, first, end, stride, neutralValue(b),
          [&](OpBuilder &lb, Value k, Value acc) {
            SmallVector<Value> at(ivs);
            SmallVector<Value> given(op->getNumOperands());
            // Input n's element (or chunk of `vec`) at linear position
            // `first` of the collapsed run.
            auto load = [&](size_t n, Value first) -> Value {
              SmallVector<Value> idx(indices[n]);
              idx.insert(idx.begin() + *runAt[n], first);
              if (vec == 1)
                return memref::LoadOp::create(lb, loc, views[n], idx);
              auto type = VectorType::get(
                  {vec}, cast<MemRefType>(views[n].getType()).getElementType());
              return vector::LoadOp::create(lb, loc, type, views[n], idx,
                                            /*nontemporal=*/false,
                                            llvm::MaybeAlign(16));
            };
            if (vec > 1) {
              Value k0 = arith::MulIOp::create(
                  lb, loc, k, arith::ConstantIndexOp::create(lb, loc, vec));
              SmallVector<Value> chunks(views.size());
              for (auto [n, view] : llvm::enumerate(views))
                if (view)
                  chunks[n] = load(n, k0);
              for (int64_t e = 0; e < vec; ++e) {
                for (auto [n, chunk] : llvm::enumerate(chunks))
                  if (chunk)
                    given[n] = vector::ExtractOp::create(lb, loc, chunk, e);
                acc = emitBody(lb, op, at, ValueRange{acc}, given)[0];
              }
              return acc;
            }
            if (collapseAll) {
              for (auto [n, view] : llvm::enumerate(views))
                if (view)
                  given[n] = load(n, k);
            } else {
              for (auto [d, iv] :
                   llvm::zip(t.red, delinearize(lb, loc, k, s.redSizes)))
                at[d] = iv;
            }
            return emitBody(lb, op, at, ValueRange{acc}, given)[0];
          });
    };

    // Stage 1: partials[w] for worker w = (output, chunk).
    if (failed(addAll()))
      return failure();
    {
      OpBuilder kb = startKernel(loc, "tree");
      Setup s = setup(kb);
      Value workers = arith::MulIOp::create(kb, loc, s.outputs, s.split);
      Value direct = arith::CmpIOp::create(kb, loc, arith::CmpIPredicate::eq,
                                           s.split, c(kb, 1));
      Value w, lane;
      if (t.columns) {
        w = arith::AddIOp::create(
            kb, loc, arith::MulIOp::create(kb, loc, s.bid, c(kb, blockSize)),
            s.tid);
      } else {
        w = arith::AddIOp::create(
            kb, loc,
            arith::MulIOp::create(kb, loc, s.bid,
                                  c(kb, blockSize / target.warpSize)),
            arith::DivUIOp::create(kb, loc, s.tid, c(kb, target.warpSize)));
        lane = arith::RemUIOp::create(kb, loc, s.tid, c(kb, target.warpSize));
      }
      Value inRange =
          arith::CmpIOp::create(kb, loc, arith::CmpIPredicate::ult, w, workers);
      auto guard = scf::IfOp::create(kb, loc, inRange, /*withElse=*/false);
      OpBuilder b = guard.getThenBodyBuilder();
      // Columns: consecutive threads take consecutive outputs (coalesced
      // reads of a row); warps: consecutive warps take one output's
      // consecutive chunks.
      Value p = t.columns
                    ? arith::RemUIOp::create(b, loc, w, s.outputs).getResult()
                    : arith::DivUIOp::create(b, loc, w, s.split).getResult();
      Value chunk =
          t.columns ? arith::DivUIOp::create(b, loc, w, s.outputs).getResult()
                    : arith::RemUIOp::create(b, loc, w, s.split).getResult();
      Value per = arith::CeilDivSIOp::create(b, loc, s.length, s.split);
      if (!t.columns) {
        // Chunks of whole warp-wide unrolled steps (of vectors).
        Value step = c(b, target.warpSize * target.treeUnroll *
                              std::max<int64_t>(treeVec, 1));
        per = arith::MulIOp::create(
            b, loc, arith::CeilDivSIOp::create(b, loc, per, step), step);
      }
      Value begin = arith::MinSIOp::create(
          b, loc, arith::MulIOp::create(b, loc, chunk, per), s.length);
      Value end = arith::MinSIOp::create(
          b, loc, arith::AddIOp::create(b, loc, begin, per), s.length);
      SmallVector<Value> pivs = delinearize(b, loc, p, s.parSizes);
      Value partial;
      if (t.columns) {
        partial = reduceChunk(b, s, pivs, begin, end, 1);
      } else {
        auto scalar = [&](OpBuilder &sb) {
          return reduceChunk(sb, s, pivs,
                             arith::AddIOp::create(sb, loc, begin, lane), end,
                             target.warpSize);
        };
        if (treeVec) {
          // Chunks begin at multiples of the vector; so does the end when
          // the length is one.
          Value aligned = arith::CmpIOp::create(
              b, loc, arith::CmpIPredicate::eq,
              arith::RemUIOp::create(b, loc, s.length, c(b, treeVec)), c(b, 0));
          auto branch = scf::IfOp::create(b, loc, TypeRange{accType}, aligned,
                                          /*withElse=*/true);
          OpBuilder vb = branch.getThenBodyBuilder();
          Value vecs = c(vb, treeVec);
          scf::YieldOp::create(
              vb, loc,
              reduceChunk(vb, s, pivs,
                          arith::AddIOp::create(
                              vb, loc,
                              arith::DivUIOp::create(vb, loc, begin, vecs),
                              lane),
                          arith::DivUIOp::create(vb, loc, end, vecs),
                          target.warpSize, treeVec));
          OpBuilder eb = branch.getElseBodyBuilder();
          scf::YieldOp::create(eb, loc, scalar(eb));
          partial = branch.getResult(0);
        } else {
          partial = scalar(b);
        }
        partial = warpReduce(b, loc, t.combiner.op, partial);
      }
      Value writer =
          t.columns ? Value(arith::ConstantIntOp::create(b, loc, 1, 1))
                    : Value(arith::CmpIOp::create(
                          b, loc, arith::CmpIPredicate::eq, lane, c(b, 0)));
      auto write = scf::IfOp::create(b, loc, writer, /*withElse=*/false);
      OpBuilder wb = write.getThenBodyBuilder();
      auto mode = scf::IfOp::create(wb, loc, direct, /*withElse=*/true);
      OpBuilder db = mode.getThenBodyBuilder();
      finishTree(db, t, pivs, partial);
      OpBuilder pb = mode.getElseBodyBuilder();
      memref::StoreOp::create(pb, loc, partial, s.partials, ValueRange{w});
      Value threads = arith::MulIOp::create(hb, loc, hostP, hostSplit);
      if (!t.columns)
        threads =
            arith::MulIOp::create(hb, loc, threads, c(hb, target.warpSize));
      finishKernel(
          kb, hb, loc,
          arith::CeilDivSIOp::create(hb, loc, threads, c(hb, blockSize)),
          blockSize);
      if (treeVec)
        ctx.lastLaunch->setAttr(tgc_gpu::TgcGpuDialect::kVectorAlignAttrName,
                                hb.getI64IntegerAttr(16));
    }

    // Stage 2: each output's partials combined (not launched when every
    // output had one chunk), by blocks of target.treeFinalThreads: each thread
    // combines every 32nd partial (a few loads in flight at once, instead
    // of a long chain in one thread).
    if (failed(addAll()))
      return failure();
    {
      int64_t saved = blockSize;
      blockSize = target.treeFinalThreads;
      OpBuilder kb = startKernel(loc, "tree_final");
      auto space = gpu::AddressSpaceAttr::get(
          kb.getContext(), gpu::GPUDialect::getWorkgroupAddressSpace());
      int64_t warps = target.treeFinalThreads / target.warpSize;
      Value scratch = kernel.addWorkgroupAttribution(
          MemRefType::get({t.columns ? target.treeFinalThreads : warps},
                          accType, MemRefLayoutAttrInterface(), space),
          loc);
      Setup s = setup(kb);
      auto loadPartial = [&](OpBuilder &lb, Value at, Value acc) {
        Value v = memref::LoadOp::create(lb, loc, s.partials, ValueRange{at});
        return combine(lb, t.combiner.op, acc, v);
      };
      if (t.columns) {
        // 32 consecutive outputs per block (partials at chunk * outputs +
        // output: coalesced), one per lane; warp w combines chunks w,
        // w + 32, ...; then warp 0 combines the warps' results.
        Value lane =
            arith::RemUIOp::create(kb, loc, s.tid, c(kb, target.warpSize));
        Value warp =
            arith::DivUIOp::create(kb, loc, s.tid, c(kb, target.warpSize));
        Value p = arith::AddIOp::create(
            kb, loc,
            arith::MulIOp::create(kb, loc, s.bid, c(kb, target.warpSize)),
            lane);
        Value inRange = arith::CmpIOp::create(
            kb, loc, arith::CmpIPredicate::ult, p, s.outputs);
        auto part = scf::IfOp::create(kb, loc, TypeRange{accType}, inRange,
                                      /*withElse=*/true);
        {
          OpBuilder b = part.getThenBodyBuilder();
          Value partial = accumulate(
              b, loc, warp, s.split, warps, neutralValue(b),
              [&](OpBuilder &lb, Value chunk, Value acc) {
                return loadPartial(
                    lb,
                    arith::AddIOp::create(
                        lb, loc,
                        arith::MulIOp::create(lb, loc, chunk, s.outputs), p),
                    acc);
              });
          scf::YieldOp::create(b, loc, partial);
          OpBuilder eb = part.getElseBodyBuilder();
          scf::YieldOp::create(eb, loc, ValueRange{neutralValue(eb)});
        }
        memref::StoreOp::create(kb, loc, part.getResult(0), scratch,
                                ValueRange{s.tid});
        target.barrier(kb, loc);
        Value first = arith::CmpIOp::create(kb, loc, arith::CmpIPredicate::eq,
                                            warp, c(kb, 0));
        Value finish = arith::AndIOp::create(kb, loc, first, inRange);
        auto write = scf::IfOp::create(kb, loc, finish, /*withElse=*/false);
        OpBuilder b = write.getThenBodyBuilder();
        Value total = accumulate(
            b, loc, lane, c(b, target.treeFinalThreads), target.warpSize,
            neutralValue(b), [&](OpBuilder &lb, Value at, Value acc) {
              Value v =
                  memref::LoadOp::create(lb, loc, scratch, ValueRange{at});
              return combine(lb, t.combiner.op, acc, v);
            });
        finishTree(b, t, delinearize(b, loc, p, s.parSizes), total);
      } else {
        // A block per output (partials at output * split + chunk); the
        // grid is the outputs, so every block has one.
        Value p = s.bid;
        OpBuilder &b = kb;
        Value base = arith::MulIOp::create(b, loc, p, s.split);
        Value partial = accumulate(
            b, loc, s.tid, s.split, target.treeFinalThreads, neutralValue(b),
            [&](OpBuilder &lb, Value chunk, Value acc) {
              return loadPartial(
                  lb, arith::AddIOp::create(lb, loc, base, chunk), acc);
            });
        Value total = blockReduce(b, loc, t.combiner, partial, s.tid, scratch);
        Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                            s.tid, c(b, 0));
        auto write = scf::IfOp::create(b, loc, first, /*withElse=*/false);
        OpBuilder wb = write.getThenBodyBuilder();
        finishTree(wb, t, delinearize(wb, loc, p, s.parSizes), total);
      }
      blockSize = saved;
      // Launched only when some output has several chunks: the grid is
      // multiplied by min(split - 1, 1).
      Value several = arith::MinSIOp::create(
          hb, loc, arith::SubIOp::create(hb, loc, hostSplit, c(hb, 1)),
          c(hb, 1));
      Value blocks = t.columns ? arith::CeilDivSIOp::create(
                                     hb, loc, hostP, c(hb, target.warpSize))
                                     .getResult()
                               : hostP;
      finishKernel(kb, hb, loc, arith::MulIOp::create(hb, loc, blocks, several),
                   target.treeFinalThreads);
    }
    return success();
  }
};

} // namespace

LogicalResult gpu_kernels::emitTreeKernels(KernelContext &ctx, Tree &t,
                                           tgc_gpu::StrategyAttr strategy) {
  return TreeKernelEmitter(ctx, strategy).emitTree(t);
}
