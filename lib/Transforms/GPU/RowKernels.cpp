//===- RowKernels.cpp - one block or warp per row
//---------------------------===//
//
// The row strategy: a group of row stages (softmax, layer norm, a
// reduction and the elementwise ops around it) as one kernel with one
// block, or one warp, per row. Threads stride over each stage's row loop;
// reductions combine across the warp or block; barriers separate stages
// that read what an earlier stage wrote. Short static rows stay in
// registers between stages.
//
//===----------------------------------------------------------------------===//

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

/// The buffer `v` is a view of: through reshapes, casts and subviews, not
/// through memref.view (distinct slots of the arena, disjoint while both
/// are live). Two operands with one root may read or write the same memory.
Value bufferRoot(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    if (isa<memref::ViewOp>(def))
      break;
    auto view = dyn_cast<ViewLikeOpInterface>(def);
    if (!view)
      break;
    v = view.getViewSource();
  }
  return v;
}

class RowKernelEmitter : public KernelBuilder {
public:
  using KernelBuilder::KernelBuilder;

  /// One block per row (the points of the first R loops); threads stride
  /// over the row loop of each stage; stages are separated by barriers.
  LogicalResult emitRowKernel(ArrayRef<linalg::GenericOp> ops) {
    linalg::GenericOp first = ops.front();
    Location loc = first.getLoc();
    // Host code goes before the last stage: every operand (arena views
    // included) is defined by then, and only host ops lie in between.
    OpBuilder hb(ops.back());
    unsigned loops = 0;
    for (linalg::GenericOp op : ops)
      loops = std::max(loops, op.getNumLoops());
    unsigned rows = loops - 1;
    SmallVector<SmallVector<Value>> hostSizes;
    for (linalg::GenericOp op : ops)
      if (failed(addLoopSizesAndOperands(hb, op, hostSizes.emplace_back())))
        return failure();
    // Stages with the row loop whose row has one element (a layer norm's
    // `rsqrt(var + eps)` on its `[B, T, 1]` statistics): per-row values,
    // like the stages without the row loop, when the other rows are longer.
    auto unitLength = [&](size_t i) {
      linalg::GenericOp op = ops[i];
      if (op.getNumLoops() != loops || loops < 2 ||
          op.getIteratorTypesArray().back() != utils::IteratorType::parallel)
        return false;
      std::optional<int64_t> len = getConstantIntValue(hostSizes[i].back());
      return (len && *len == 1) || op.getStaticLoopRanges().back() == 1;
    };
    // The row sizes: from the first op with the row loop, one of more than
    // one element where there is one.
    auto firstWithRow = [&](bool unitToo) {
      for (size_t i = 0; i < ops.size(); ++i)
        if (linalg::GenericOp(ops[i]).getNumLoops() == loops &&
            (unitToo || !unitLength(i)))
          return i;
      return ops.size();
    };
    size_t rowSource = firstWithRow(/*unitToo=*/false);
    if (rowSource == ops.size())
      rowSource = firstWithRow(/*unitToo=*/true);
    DenseSet<Operation *> unitRows;
    if (!unitLength(rowSource))
      for (size_t i = 0; i < ops.size(); ++i)
        if (unitLength(i))
          unitRows.insert(ops[i]);
    // Whether `op` has (and iterates) its row: not a per-row stage.
    auto alongRow = [&](linalg::GenericOp op) {
      return op.getNumLoops() == loops && !unitRows.contains(op);
    };
    SmallVector<Value> hostRowSizes(hostSizes[rowSource].begin(),
                                    hostSizes[rowSource].begin() + rows);

    // Rows of a static length up to target.warpRowLimit get a warp each (8 rows
    // per block of 256 threads, reductions within the warp only); longer
    // or dynamic rows a block each.
    std::optional<int64_t> rowLength =
        getConstantIntValue(hostSizes[rowSource].back());
    // Whether `operand` of `op` reaches its row contiguously: a dense
    // buffer (an integer or float element of 1 to 8 bytes) whose last
    // index is the row loop and whose other indices do not use it, and
    // whose rows start at multiples of `width` elements.
    auto rowContiguous = [&](linalg::GenericOp op, OpOperand &operand,
                             int64_t width) {
      auto type = dyn_cast<MemRefType>(operand.get().getType());
      if (!type || !type.getLayout().isIdentity() || splatGlobal(operand.get()))
        return false;
      Type element = type.getElementType();
      if (!element.isIntOrFloat() || element.getIntOrFloatBitWidth() < 8 ||
          element.getIntOrFloatBitWidth() % 8 != 0)
        return false;
      if (type.getRank() > 1 && (type.isDynamicDim(type.getRank() - 1) ||
                                 type.getShape().back() % width != 0))
        return false;
      AffineMap map = op.getMatchingIndexingMap(&operand);
      if (map.getNumResults() == 0)
        return false;
      auto last = dyn_cast<AffineDimExpr>(map.getResults().back());
      if (!last || last.getPosition() != rows)
        return false;
      return llvm::none_of(map.getResults().drop_back(), [&](AffineExpr e) {
        return e.isFunctionOfDim(rows);
      });
    };
    // The widest element of a row-contiguous buffer, in bytes (0: none).
    unsigned widest = 0;
    for (linalg::GenericOp op : ops) {
      if (!alongRow(op))
        continue;
      for (OpOperand &operand : op->getOpOperands())
        if (rowContiguous(op, operand, 1))
          widest = std::max(widest, cast<MemRefType>(operand.get().getType())
                                            .getElementTypeBitWidth() /
                                        8);
    }
    bool warpPerRow =
        rowLength &&
        (*rowLength <= target.warpRowLimit ||
         (vectorize && rowRegisters && widest &&
          *rowLength * widest <= target.warpRowBytes &&
          *rowLength % (target.warpSize * (16 / widest)) == 0 &&
          *rowLength / target.warpSize <= target.registerRowSlots));
    int64_t rowsPerBlock = warpPerRow ? blockSize / target.warpSize : 1;

    // Rows of one static length of at most target.registerRowSlots elements per
    // thread ("slots"): each thread owns the same positions of the row in
    // every stage, and the row's elements of buffers the kernel only reads
    // are loaded once and kept in registers for every stage (softmax reads
    // its input once instead of three times).
    int64_t strideValue = warpPerRow ? target.warpSize : blockSize;
    std::optional<int64_t> slots;
    for (size_t i = 0; i < ops.size(); ++i) {
      if (!alongRow(ops[i]))
        continue;
      std::optional<int64_t> len = getConstantIntValue(hostSizes[i].back());
      if (!len || (slots && *len != *rowLength)) {
        slots.reset();
        break;
      }
      slots = (*len + strideValue - 1) / strideValue;
    }
    if (slots &&
        (!rowRegisters || *slots < 1 || *slots > target.registerRowSlots))
      slots.reset();
    // Past 256 threads a thread has at most 65536 / threads registers (64
    // at 1024): every buffer a stage reads along the row must fit its slots
    // in target.registerRowSlots together, or the launch fails
    // (CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES: a softmax backward's two inputs
    // of 32 slots each at 1024 threads).
    if (slots && blockSize > 256) {
      SmallPtrSet<Value, 4> read;
      for (linalg::GenericOp op : ops)
        if (alongRow(op))
          for (OpOperand *in : op.getDpsInputOperands())
            if (isa<MemRefType>(in->get().getType()) &&
                op.getMatchingIndexingMap(in).isFunctionOfDim(loops - 1))
              read.insert(in->get()); // (per-row values hold no slots)
      if (*slots * int64_t(read.size()) > target.registerRowSlots)
        slots.reset();
    }
    // With slots and a row length that is a multiple of the threads of a
    // row times `vecWidth` ("full rows"): no position is past the row end,
    // so loads need no bounds check, and each thread's positions are
    // chunks of `vecWidth` consecutive elements, read and written with one
    // vector access (16 bytes for the widest element) where the buffer is
    // row-contiguous. The launch then guards its argument buffers'
    // alignment, as flat kernels do.
    int64_t vecWidth = 1;
    bool fullRows = false;
    if (slots) {
      if (vectorize && widest)
        vecWidth = 16 / widest;
      while (vecWidth > 1 && *rowLength % (strideValue * vecWidth) != 0)
        vecWidth /= 2;
      fullRows = *rowLength % (strideValue * vecWidth) == 0;
    }

    OpBuilder kb = startKernel(loc, warpPerRow ? "warp_rows" : "rows");
    // One scratch slot per warp for each reduction (block rows): a
    // reduction's scratch is not reused, so no barrier is needed between
    // one block reduction's reads and the next one's writes.
    DenseMap<Operation *, Value> scratch;
    for (linalg::GenericOp op : ops) {
      if (warpPerRow || op.getNumLoops() != loops ||
          op.getIteratorTypesArray().back() != utils::IteratorType::reduction)
        continue;
      Type t = matchCombiner(op)->op->getResult(0).getType();
      auto space = gpu::AddressSpaceAttr::get(
          kb.getContext(), gpu::GPUDialect::getWorkgroupAddressSpace());
      auto type =
          MemRefType::get({std::max<int64_t>(blockSize / target.warpSize, 1)},
                          t, MemRefLayoutAttrInterface(), space);
      scratch[op] = kernel.addWorkgroupAttribution(type, loc);
    }
    SmallVector<Value> rowSizes;
    for (Value s : hostRowSizes)
      rowSizes.push_back(kval(kb, s));
    Value numRows = product(kb, loc, rowSizes);
    Value bid = gpu::BlockIdOp::create(kb, loc, gpu::Dimension::x);
    Value tid = gpu::ThreadIdOp::create(kb, loc, gpu::Dimension::x);
    Value zero = arith::ConstantIndexOp::create(kb, loc, 0);
    // Full rows load without bounds checks from the clamped row below,
    // which exists unless there are no rows: then the block does nothing
    // (a uniform branch, so barriers inside it are reached by all).
    scf::IfOp nonEmpty;
    if (fullRows) {
      nonEmpty = scf::IfOp::create(
          kb, loc,
          arith::CmpIOp::create(kb, loc, arith::CmpIPredicate::ugt, numRows,
                                zero),
          /*withElse=*/false);
      kb.setInsertionPoint(nonEmpty.thenBlock()->getTerminator());
    }
    // The row, the thread's first element of it and the stride.
    Value row = bid, lane = tid;
    Value stride = arith::ConstantIndexOp::create(kb, loc, blockSize);
    if (warpPerRow) {
      Value warpSize = arith::ConstantIndexOp::create(kb, loc, target.warpSize);
      Value perBlock = arith::ConstantIndexOp::create(kb, loc, rowsPerBlock);
      row = arith::AddIOp::create(
          kb, loc, arith::MulIOp::create(kb, loc, bid, perBlock),
          arith::DivUIOp::create(kb, loc, tid, warpSize));
      lane = arith::RemUIOp::create(kb, loc, tid, warpSize);
      stride = warpSize;
    }
    // Rows past the end (the last block's spare warps) do no work but
    // reach every barrier.
    Value inRange =
        arith::CmpIOp::create(kb, loc, arith::CmpIPredicate::ult, row, numRows);
    Value lastRow = arith::SubIOp::create(
        kb, loc,
        arith::MaxUIOp::create(kb, loc, numRows,
                               arith::ConstantIndexOp::create(kb, loc, 1)),
        arith::ConstantIndexOp::create(kb, loc, 1));
    Value safeRow = arith::MinUIOp::create(kb, loc, row, lastRow);
    OpBuilder &b = kb;
    SmallVector<Value> rivs = delinearize(b, loc, safeRow, rowSizes);
    Value isFirst = arith::AndIOp::create(
        b, loc, inRange,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lane, zero));

    DenseSet<Value> writtenInKernel; // buffer roots (bufferRoot)
    for (linalg::GenericOp op : ops)
      for (Value init : op.getDpsInits())
        writtenInKernel.insert(bufferRoot(init));
    // Slot k of a thread is element k % vecWidth of its chunk k / vecWidth,
    // which starts at (lane + chunk * stride) * vecWidth.
    SmallVector<Value> chunkStarts, positions, valid;
    DenseMap<std::tuple<Value, AffineMap, int64_t>, Value> cached;
    // With slots: the row's element of per-row buffers this kernel writes
    // (reduction results, rows-only stages), held by every thread of the
    // row with the map it was written through, so that later stages read
    // registers instead of reloading it after a barrier.
    DenseMap<Value, std::pair<AffineMap, Value>> rowValues;
    auto rowMap = [&](AffineMap map) -> std::optional<AffineMap> {
      if (map.getNumDims() > loops || map.getNumSymbols() != 0)
        return std::nullopt;
      for (AffineExpr e : map.getResults())
        if (e.isFunctionOfDim(rows))
          return std::nullopt;
      return AffineMap::get(loops, 0, map.getResults(), map.getContext());
    };
    // The indexing map of `operand` of `op`, the row's position 0 in a
    // per-row stage with the row loop (unitRows).
    auto stageMap = [&](linalg::GenericOp op, OpOperand &operand) {
      AffineMap map = op.getMatchingIndexingMap(&operand);
      if (!unitRows.contains(op))
        return map;
      return map.replace(getAffineDimExpr(rows, op.getContext()),
                         getAffineConstantExpr(0, op.getContext()),
                         map.getNumDims(), map.getNumSymbols());
    };
    // The buffer `operand` of `op` accesses and its row map (rowMap),
    // seen through an expand_shape that only adds unit dims (a keepdim
    // statistic `[B, 1]` viewing the reduction's `[B]`): each group's one
    // dim of more than one element indexes the source.
    auto rowAccess =
        [&](linalg::GenericOp op,
            OpOperand &operand) -> std::pair<Value, std::optional<AffineMap>> {
      AffineMap map = stageMap(op, operand);
      auto expand = operand.get().getDefiningOp<memref::ExpandShapeOp>();
      if (!expand)
        return {operand.get(), rowMap(map)};
      ArrayRef<int64_t> shape = expand.getResultType().getShape();
      SmallVector<AffineExpr> exprs;
      for (ReassociationIndices group : expand.getReassociationIndices()) {
        std::optional<int64_t> kept;
        for (int64_t d : group)
          if (shape[d] != 1) {
            if (kept)
              return {operand.get(), rowMap(map)};
            kept = d;
          }
        exprs.push_back(kept ? map.getResult(*kept)
                             : getAffineConstantExpr(0, op.getContext()));
      }
      return {expand.getSrc(),
              rowMap(AffineMap::get(map.getNumDims(), map.getNumSymbols(),
                                    exprs, op.getContext()))};
    };
    // The register value of `operand` of `op` for this row, or null.
    auto rowRegister = [&](linalg::GenericOp op, OpOperand &operand) -> Value {
      auto [buffer, map] = rowAccess(op, operand);
      auto found = rowValues.find(buffer);
      if (found == rowValues.end())
        return Value();
      return map && *map == found->second.first ? found->second.second
                                                : Value();
    };
    if (slots) {
      Value len = arith::ConstantIndexOp::create(b, loc, *rowLength);
      Value laneStart = arith::MulIOp::create(
          b, loc, lane, arith::ConstantIndexOp::create(b, loc, vecWidth));
      for (int64_t k = 0; k < *slots; ++k) {
        int64_t chunk = k / vecWidth, element = k % vecWidth;
        if (element == 0)
          chunkStarts.push_back(arith::AddIOp::create(
              b, loc, laneStart,
              arith::ConstantIndexOp::create(b, loc,
                                             chunk * strideValue * vecWidth)));
        Value c = element == 0
                      ? chunkStarts.back()
                      : arith::AddIOp::create(
                            b, loc, chunkStarts.back(),
                            arith::ConstantIndexOp::create(b, loc, element));
        positions.push_back(c);
        valid.push_back(
            fullRows ? inRange
                     : arith::AndIOp::create(
                           b, loc, inRange,
                           arith::CmpIOp::create(
                               b, loc, arith::CmpIPredicate::ult, c, len)));
      }
    }
    // Whether the stages after `i` read `buffer` only from the registers
    // holding it with map `map`, and write it, if at all, only from the
    // row's first thread (rows-only stages and reductions of the row,
    // which read their start from registers or from that same thread).
    auto onlyRegisterReads = [&](size_t i, Value buffer, AffineMap map) {
      Value root = bufferRoot(buffer);
      return llvm::all_of(ops.drop_front(i + 1), [&](linalg::GenericOp later) {
        bool firstThreadWrites = later.getNumLoops() == rows ||
                                 unitRows.contains(later) ||
                                 later.getIteratorTypesArray().back() ==
                                     utils::IteratorType::reduction;
        // A read through another view of the buffer is a read of memory
        // the first thread writes: it needs the barrier. (An expand_shape
        // adding unit dims back is read from the registers: rowAccess.)
        for (OpOperand &o : later->getOpOperands()) {
          if (bufferRoot(o.get()) != root)
            continue;
          auto [accessed, accessMap] = rowAccess(later, o);
          if (accessed != buffer ||
              (later.isDpsInit(&o) && !firstThreadWrites) || accessMap != map)
            return false;
        }
        return true;
      });
    };
    // A thread's partial of a reducing stage combined over the row (warp
    // or block), then into the row's output by its first thread. Returns
    // whether the result is in registers for every later reader.
    auto finishReduction = [&](size_t i, const Combiner &c, Value partial,
                               ArrayRef<Value> rowIvs) {
      linalg::GenericOp op = ops[i];
      Value total = warpPerRow
                        ? warpReduce(b, loc, c.op, partial)
                        : blockReduce(b, loc, c, partial, tid, scratch[op]);
      OpOperand &out = op.getDpsInitsMutable()[0];
      auto [outBuffer, outMap] = rowAccess(op, out);
      if (slots && outMap) {
        // Every thread has the total: the row's result in registers, its
        // start from registers too when this kernel wrote it.
        Value start = rowRegister(op, out);
        SmallVector<Value> oivs(rowIvs);
        oivs.push_back(zero);
        if (!start)
          start = memref::LoadOp::create(
              b, loc, kval(b, out.get()),
              applyMap(b, loc, op.getMatchingIndexingMap(&out), oivs));
        Value result = combine(b, c.op, start, total);
        rowValues[outBuffer] = {*outMap, result};
        auto once = scf::IfOp::create(b, loc, isFirst, /*withElse=*/false);
        OpBuilder ob = once.getThenBodyBuilder();
        memref::StoreOp::create(
            ob, loc, result, kval(ob, out.get()),
            applyMap(ob, loc, op.getMatchingIndexingMap(&out), oivs));
        return onlyRegisterReads(i, outBuffer, *outMap);
      }
      auto once = scf::IfOp::create(b, loc, isFirst, /*withElse=*/false);
      OpBuilder ob = once.getThenBodyBuilder();
      SmallVector<Value> oivs(rowIvs);
      oivs.push_back(zero);
      OpOperand &init = op.getDpsInitsMutable()[0];
      SmallVector<Value> idx =
          applyMap(ob, loc, op.getMatchingIndexingMap(&init), oivs);
      Value buffer = kval(ob, init.get());
      Value start = memref::LoadOp::create(ob, loc, buffer, idx);
      memref::StoreOp::create(ob, loc, combine(ob, c.op, start, total), buffer,
                              idx);
      return false;
    };
    // Row-stage indices of slot k: the row's and the slot's position.
    auto slotIvs = [&](int64_t k) {
      SmallVector<Value> kivs(rivs);
      kivs.push_back(positions[k]);
      return kivs;
    };
    // The element at slot k of a read-only operand (cached: loaded once
    // per kernel, a vector chunk at a time where row-contiguous), or null.
    // Without full rows only operands read through the stage's own loops
    // are cached, each load behind its bounds check.
    auto cachedElement = [&](linalg::GenericOp op, OpOperand &operand,
                             int64_t k) -> Value {
      Value buffer = operand.get();
      if (Value reg = rowRegister(op, operand))
        return reg;
      AffineMap map = op.getMatchingIndexingMap(&operand);
      if (!isa<MemRefType>(buffer.getType()) ||
          writtenInKernel.contains(buffer) || splatGlobal(buffer) ||
          (!fullRows && !map.isIdentity()))
        return Value();
      bool vector = vecWidth > 1 && rowContiguous(op, operand, vecWidth);
      int64_t chunk = vector ? k / vecWidth : k;
      auto key = std::make_tuple(buffer, map, chunk);
      Value loaded = cached.lookup(key);
      Type element = cast<MemRefType>(buffer.getType()).getElementType();
      if (!loaded && fullRows) {
        SmallVector<Value> idx = applyMap(b, loc, map, slotIvs(k));
        if (vector) {
          idx.back() = chunkStarts[chunk];
          loaded = vector::LoadOp::create(
              b, loc, VectorType::get({vecWidth}, element), kval(b, buffer),
              idx, /*nontemporal=*/false,
              llvm::MaybeAlign(vecWidth * element.getIntOrFloatBitWidth() / 8));
        } else {
          loaded = memref::LoadOp::create(b, loc, kval(b, buffer), idx);
        }
      } else if (!loaded) {
        auto guarded = scf::IfOp::create(b, loc, TypeRange{element}, valid[k],
                                         /*withElseRegion=*/true);
        OpBuilder tb = guarded.getThenBodyBuilder();
        scf::YieldOp::create(tb, loc,
                             ValueRange{memref::LoadOp::create(
                                 tb, loc, kval(tb, buffer), slotIvs(k))});
        OpBuilder eb = guarded.getElseBodyBuilder();
        // Never used: slots past the row end feed no stage.
        Value none = arith::ConstantOp::create(
            eb, loc, cast<TypedAttr>(eb.getZeroAttr(element)));
        scf::YieldOp::create(eb, loc, ValueRange{none});
        loaded = guarded.getResult(0);
      }
      cached[key] = loaded;
      if (!vector)
        return loaded;
      return vector::ExtractOp::create(b, loc, loaded,
                                       ArrayRef<int64_t>{k % vecWidth});
    };
    // Full rows: the outputs of a parallel stage, every slot computed,
    // stored for rows in range, a vector chunk at a time where
    // row-contiguous.
    auto storeSlots = [&](linalg::GenericOp op,
                          ArrayRef<SmallVector<Value>> values) {
      auto guard = scf::IfOp::create(b, loc, inRange, /*withElse=*/false);
      OpBuilder sb = guard.getThenBodyBuilder();
      for (auto [i, init] : llvm::enumerate(op.getDpsInitsMutable())) {
        if (vecWidth == 1 || !rowContiguous(op, init, vecWidth)) {
          for (int64_t k = 0; k < *slots; ++k) {
            SmallVector<Value> idx =
                applyMap(sb, loc, op.getMatchingIndexingMap(&init), slotIvs(k));
            memref::StoreOp::create(sb, loc, values[k][i], kval(sb, init.get()),
                                    idx);
          }
          continue;
        }
        Type element = values[0][i].getType();
        for (int64_t chunk = 0; chunk * vecWidth < *slots; ++chunk) {
          SmallVector<Value> lanes;
          for (int64_t e = 0; e < vecWidth; ++e)
            lanes.push_back(values[chunk * vecWidth + e][i]);
          Value vec = vector::FromElementsOp::create(
              sb, loc, VectorType::get({vecWidth}, element), lanes);
          SmallVector<Value> idx =
              applyMap(sb, loc, op.getMatchingIndexingMap(&init),
                       slotIvs(chunk * vecWidth));
          idx.back() = chunkStarts[chunk];
          vector::StoreOp::create(
              sb, loc, vec, kval(sb, init.get()), idx, /*nontemporal=*/false,
              llvm::MaybeAlign(vecWidth * element.getIntOrFloatBitWidth() / 8));
        }
      }
    };
    for (size_t i = 0; i < ops.size(); ++i) {
      linalg::GenericOp op = ops[i];
      // The barrier after this stage: the kernel's last stage needs none.
      bool last = i + 1 == ops.size();
      SmallVector<Value> ivs(rivs);
      if (slots && alongRow(op)) {
        // Each thread's slots, unrolled; inputs from registers when
        // cached, all of a stage's loads before its arithmetic.
        bool reduction =
            op.getIteratorTypesArray().back() == utils::IteratorType::reduction;
        SmallVector<SmallVector<Value>> given(*slots);
        for (int64_t k = 0; k < *slots; ++k) {
          given[k].resize(op.getNumDpsInputs());
          for (OpOperand *in : op.getDpsInputOperands())
            if (!op.getBody()->getArgument(in->getOperandNumber()).use_empty())
              given[k][in->getOperandNumber()] = cachedElement(op, *in, k);
        }
        std::optional<Combiner> c;
        Value acc;
        if (reduction) {
          c = matchCombiner(op);
          acc = arith::ConstantOp::create(b, loc, c->neutral);
        }
        SmallVector<SmallVector<Value>> values;
        for (int64_t k = 0; k < *slots; ++k) {
          if (fullRows) {
            // Rows out of range compute on the clamped row; nothing of
            // theirs is stored.
            SmallVector<Value> v =
                emitBody(b, op, slotIvs(k),
                         reduction ? ValueRange{acc} : ValueRange{}, given[k]);
            if (reduction)
              acc = v.front();
            else
              values.push_back(v);
          } else if (reduction) {
            auto step = scf::IfOp::create(b, loc, TypeRange{acc.getType()},
                                          valid[k], /*withElseRegion=*/true);
            OpBuilder tb = step.getThenBodyBuilder();
            SmallVector<Value> next =
                emitBody(tb, op, slotIvs(k), ValueRange{acc}, given[k]);
            scf::YieldOp::create(tb, loc, ValueRange{next.front()});
            OpBuilder eb = step.getElseBodyBuilder();
            scf::YieldOp::create(eb, loc, ValueRange{acc});
            acc = step.getResult(0);
          } else {
            auto step = scf::IfOp::create(b, loc, valid[k],
                                          /*withElseRegion=*/false);
            OpBuilder tb = step.getThenBodyBuilder();
            storeOutputs(tb, op, slotIvs(k),
                         emitBody(tb, op, slotIvs(k), {}, given[k]));
          }
        }
        if (fullRows && !reduction)
          storeSlots(op, values);
        // A reduction whose result every later stage reads from registers
        // needs no barrier (its scratch is its own).
        bool registers = reduction && finishReduction(i, *c, acc, ivs);
        if (!last && !registers)
          target.barrier(b, loc);
        continue;
      }
      if ((op.getNumLoops() == rows || unitRows.contains(op)) && slots) {
        // A rows-only stage (a fill, layer norm's rstd) in every thread,
        // from and into registers when what it reads is in them or not
        // written here; its first thread stores the result. No barrier:
        // later stages read the registers.
        SmallVector<Value> stageIvs(rivs);
        if (unitRows.contains(op))
          stageIvs.push_back(zero);
        SmallVector<Value> given(op.getNumDpsInputs());
        bool registers = op.getNumDpsInits() == 1;
        for (OpOperand *in : op.getDpsInputOperands()) {
          if (op.getBody()->getArgument(in->getOperandNumber()).use_empty())
            continue;
          given[in->getOperandNumber()] = rowRegister(op, *in);
          if (!given[in->getOperandNumber()] &&
              writtenInKernel.contains(bufferRoot(in->get())))
            registers = false;
        }
        OpOperand &out = op.getDpsInitsMutable()[0];
        auto [outBuffer, outMap] = rowAccess(op, out);
        if (registers && outMap &&
            op.getBody()->getArgument(op.getNumDpsInputs()).use_empty()) {
          SmallVector<Value> values = emitBody(b, op, stageIvs, {}, given);
          rowValues[outBuffer] = {*outMap, values.front()};
          auto once = scf::IfOp::create(b, loc, isFirst, /*withElse=*/false);
          OpBuilder ob = once.getThenBodyBuilder();
          storeOutputs(ob, op, stageIvs, values);
          // A later stage that reads the result through another map reads
          // the stored element: then the barrier stays.
          if (!last && !onlyRegisterReads(i, outBuffer, *outMap))
            target.barrier(b, loc);
          continue;
        }
      }
      if (op.getNumLoops() == rows) {
        auto once = scf::IfOp::create(b, loc, isFirst, /*withElse=*/false);
        OpBuilder ob = once.getThenBodyBuilder();
        storeOutputs(ob, op, ivs, emitBody(ob, op, ivs));
        if (!last)
          target.barrier(b, loc);
        continue;
      }
      Value length = kval(b, hostSizes[i].back());
      // Out-of-range rows loop over nothing.
      length = arith::SelectOp::create(b, loc, inRange, length, zero);
      if (op.getIteratorTypesArray().back() == utils::IteratorType::parallel) {
        auto loop = scf::ForOp::create(b, loc, lane, length, stride);
        OpBuilder lb = OpBuilder::atBlockBegin(loop.getBody());
        ivs.push_back(loop.getInductionVar());
        storeOutputs(lb, op, ivs, emitBody(lb, op, ivs));
        rowLoops.push_back(loop);
        if (!last)
          target.barrier(b, loc);
        continue;
      }
      Combiner c = *matchCombiner(op);
      Value neutral = arith::ConstantOp::create(b, loc, c.neutral);
      auto loop =
          scf::ForOp::create(b, loc, lane, length, stride, ValueRange{neutral});
      {
        OpBuilder lb = OpBuilder::atBlockBegin(loop.getBody());
        SmallVector<Value> livs(ivs);
        livs.push_back(loop.getInductionVar());
        SmallVector<Value> next =
            emitBody(lb, op, livs, loop.getRegionIterArgs());
        scf::YieldOp::create(lb, loc, next);
        rowLoops.push_back(loop);
      }
      finishReduction(i, c, loop.getResult(0), ivs);
      if (!last)
        target.barrier(b, loc);
    }
    if (nonEmpty)
      kb.setInsertionPointAfter(nonEmpty);
    // Four row elements per thread and iteration: their loads are
    // independent, so more of them are in flight (one load per thread at
    // a time leaves the memory system mostly idle).
    for (scf::ForOp loop : rowLoops)
      (void)loopUnrollByFactor(loop, 4);
    rowLoops.clear();
    finishKernel(
        kb, hb, loc,
        gridSize(hb, loc, product(hb, loc, hostRowSizes), rowsPerBlock),
        blockSize);
    if (vecWidth > 1) {
      // The widest vector access among the buffers read as vectors.
      unsigned vectorBytes = 0;
      for (linalg::GenericOp op : ops)
        for (OpOperand &operand : op->getOpOperands())
          if (alongRow(op) && rowContiguous(op, operand, vecWidth))
            vectorBytes = std::max<unsigned>(
                vectorBytes, vecWidth *
                                 cast<MemRefType>(operand.get().getType())
                                     .getElementTypeBitWidth() /
                                 8);
      ctx.lastLaunch->setAttr(tgc_gpu::TgcGpuDialect::kVectorAlignAttrName,
                              hb.getI64IntegerAttr(vectorBytes));
    }
    return success();
  }

private:
  /// The row loops built, unrolled when the kernel is finished.
  SmallVector<scf::ForOp> rowLoops;
};

} // namespace

LogicalResult gpu_kernels::emitRowKernel(KernelContext &ctx,
                                         ArrayRef<linalg::GenericOp> ops,
                                         tgc_gpu::StrategyAttr strategy) {
  return RowKernelEmitter(ctx, strategy).emitRowKernel(ops);
}
