//===- TgcGpuDialect.cpp - tgc_gpu dialect --------------------------------===//
//
// The attributes and their verifiers; the dialect also verifies the
// discardable attributes named after it wherever they are set.
//
//===----------------------------------------------------------------------===//

#include "tgc/Dialect/TgcGpu/IR/TgcGpuDialect.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tgc::tgc_gpu;

#include "tgc/Dialect/TgcGpu/IR/TgcGpuOpsDialect.cpp.inc"

#include "tgc/Dialect/TgcGpu/IR/TgcGpuEnums.cpp.inc"

/// `, epilogue = KIND` and `, tf32 = true` of a #tgc_gpu.gemm, each left
/// out at its default (unfused, false).
static ParseResult parseGemmOptions(AsmParser &parser, GemmEpilogue &epilogue,
                                    bool &tf32) {
  epilogue = GemmEpilogue::unfused;
  tf32 = false;
  while (succeeded(parser.parseOptionalComma())) {
    StringRef key;
    if (parser.parseKeyword(&key) || parser.parseEqual())
      return failure();
    if (key == "epilogue") {
      StringRef kind;
      SMLoc loc = parser.getCurrentLocation();
      if (parser.parseKeyword(&kind))
        return failure();
      std::optional<GemmEpilogue> value = symbolizeGemmEpilogue(kind);
      if (!value)
        return parser.emitError(loc) << "unknown GEMM epilogue '" << kind
                                     << "'";
      epilogue = *value;
    } else if (key == "tf32") {
      bool value = false;
      if (succeeded(parser.parseOptionalKeyword("true")))
        value = true;
      else if (parser.parseKeyword("false"))
        return failure();
      tf32 = value;
    } else {
      return parser.emitError(parser.getCurrentLocation())
             << "expected 'epilogue' or 'tf32', got '" << key << "'";
    }
  }
  return success();
}

static void printGemmOptions(AsmPrinter &printer, GemmEpilogue epilogue,
                             bool tf32) {
  if (epilogue != GemmEpilogue::unfused)
    printer << ", epilogue = " << stringifyGemmEpilogue(epilogue);
  if (tf32)
    printer << ", tf32 = true";
}

/// `, tf32 = true` and `, kind = backward_data` (either, both, in either
/// order) after a #tgc_gpu.conv's groups.
static ParseResult parseConvOptions(AsmParser &parser, bool &tf32,
                                    std::string &kind) {
  tf32 = false;
  kind = "forward";
  while (succeeded(parser.parseOptionalComma())) {
    StringRef key;
    if (parser.parseKeyword(&key) || parser.parseEqual())
      return failure();
    if (key == "kind") {
      StringRef value;
      if (parser.parseKeyword(&value))
        return failure();
      kind = value.str();
    } else if (key == "tf32") {
      if (succeeded(parser.parseOptionalKeyword("true")))
        tf32 = true;
      else if (parser.parseKeyword("false"))
        return failure();
    } else {
      return parser.emitError(parser.getCurrentLocation())
             << "expected 'tf32' or 'kind', got '" << key << "'";
    }
  }
  return success();
}

static void printConvOptions(AsmPrinter &printer, bool tf32, StringRef kind) {
  if (tf32)
    printer << ", tf32 = true";
  if (kind != "forward")
    printer << ", kind = " << kind;
}

#define GET_ATTRDEF_CLASSES
#include "tgc/Dialect/TgcGpu/IR/TgcGpuAttrs.cpp.inc"

void TgcGpuDialect::initialize() { registerAttributes(); }

void TgcGpuDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "tgc/Dialect/TgcGpu/IR/TgcGpuAttrs.cpp.inc"
      >();
}

LogicalResult GemmAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                               ArrayRef<int64_t> batch, ArrayRef<int64_t> m,
                               int64_t n, int64_t k, bool transA, bool transB,
                               GemmEpilogue epilogue, bool tf32) {
  if (m.empty())
    return emitError() << "a GEMM needs at least one m loop";
  SmallVector<int64_t> all(batch);
  llvm::append_range(all, m);
  all.push_back(n);
  all.push_back(k);
  llvm::SmallBitVector seen(all.size());
  for (int64_t d : all) {
    if (d < 0 || d >= static_cast<int64_t>(all.size()))
      return emitError() << "GEMM loop " << d << " is not one of its "
                         << all.size() << " loops";
    if (seen.test(d))
      return emitError() << "GEMM loop " << d << " has two roles";
    seen.set(d);
  }
  return success();
}

Value mlir::tgc::tgc_gpu::getConvInput(linalg::GenericOp op) {
  Value input;
  bool several = false;
  auto note = [&](Value source) {
    if (op->isAncestor(source.getParentBlock()->getParentOp()))
      return;
    several |= input && input != source;
    input = source;
  };
  op.getBody()->walk([&](Operation *inner) {
    if (auto load = dyn_cast<memref::LoadOp>(inner))
      note(load.getMemRef());
    else if (auto extract = dyn_cast<tensor::ExtractOp>(inner))
      note(extract.getTensor());
  });
  return several ? Value() : input;
}

mlir::tgc::tgc_gpu::ConvOperands
mlir::tgc::tgc_gpu::getConvOperands(linalg::GenericOp op, ConvAttr attr) {
  ConvOperands roles;
  Value body = getConvInput(op);
  if (!body || op.getDpsInputs().size() != 1 || op.getDpsInits().size() != 1)
    return roles;
  Value in = op.getDpsInputs()[0], init = op.getDpsInits()[0];
  // A grouped backward-data generic reads the weight as [G, O/G, C/G, kH,
  // kW]: the buffer is the one it expands.
  if (auto expand = in.getDefiningOp<memref::ExpandShapeOp>())
    in = expand.getSrc();
  else if (auto expand = in.getDefiningOp<tensor::ExpandShapeOp>())
    in = expand.getSrc();
  StringRef kind = attr.getKind();
  if (kind == "backward_data") {
    roles = {init, in, body};
    roles.written = 0;
  } else if (kind == "backward_filter") {
    roles = {body, init, in};
    roles.written = 1;
  } else {
    roles = {body, in, init};
    roles.written = 2;
  }
  return roles;
}

LogicalResult ConvAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                               ArrayRef<int64_t> stride,
                               ArrayRef<int64_t> padding,
                               ArrayRef<int64_t> dilation, int64_t groups,
                               bool tf32, StringRef kind) {
  if (kind != "forward" && kind != "backward_data" && kind != "backward_filter")
    return emitError() << "kind must be forward, backward_data or "
                          "backward_filter, got '"
                       << kind << "'";
  if (stride.size() != 2 || padding.size() != 2 || dilation.size() != 2)
    return emitError() << "a 2-d convolution has two strides, paddings and "
                          "dilations";
  for (int i = 0; i < 2; ++i) {
    if (stride[i] < 1 || dilation[i] < 1)
      return emitError() << "strides and dilations must be positive";
    if (padding[i] < 0)
      return emitError() << "paddings must be non-negative";
  }
  if (groups < 1)
    return emitError() << "groups must be positive, got " << groups;
  return success();
}

LogicalResult StrategyAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                   StrategyKind kind, int64_t kernel,
                                   int64_t threads, int64_t vector,
                                   bool vectors, bool registers) {
  if (kernel < 0)
    return emitError() << "kernel number must be non-negative, got " << kernel;
  if (threads < 32 || threads > 1024 || threads % 32 != 0)
    return emitError() << "threads must be a multiple of 32 in [32, 1024], "
                          "got "
                       << threads;
  if (kind == StrategyKind::flat) {
    if (vector != 2 && vector != 4 && vector != 8)
      return emitError() << "a flat kernel reads 16-byte vectors of 2, 4 or "
                            "8 elements, got vector = "
                         << vector;
  } else if (vector != 0) {
    return emitError() << "only flat kernels have a vector width";
  }
  if (vectors && kind != StrategyKind::row && kind != StrategyKind::tree)
    return emitError() << "only row and tree kernels choose their vectors";
  if (registers && kind != StrategyKind::row)
    return emitError() << "only row kernels keep rows in registers";
  return success();
}

LogicalResult TgcGpuDialect::verifyOperationAttribute(Operation *op,
                                                      NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  if (name == kGemmAttrName) {
    auto gemm = dyn_cast<GemmAttr>(attr.getValue());
    if (!gemm)
      return op->emitOpError() << "'" << name << "' must be a #tgc_gpu.gemm";
    auto generic = dyn_cast<linalg::GenericOp>(op);
    if (!generic)
      return op->emitOpError()
             << "'" << name << "' is set on a linalg.generic only";
    unsigned roles = gemm.getBatch().size() + gemm.getM().size() + 2;
    if (generic.getNumLoops() != roles)
      return op->emitOpError() << "has " << generic.getNumLoops()
                               << " loops but its GEMM roles " << roles;
    if (generic.getNumDpsInputs() != 2 || generic.getNumDpsInits() != 1)
      return op->emitOpError() << "is a GEMM without two inputs and an output";
    return success();
  }
  if (name == kConvAttrName) {
    if (!isa<ConvAttr>(attr.getValue()))
      return op->emitOpError() << "'" << name << "' must be a #tgc_gpu.conv";
    auto generic = dyn_cast<linalg::GenericOp>(op);
    if (!generic)
      return op->emitOpError()
             << "'" << name << "' is set on a linalg.generic only";
    if (generic.getNumLoops() != 7 || generic.getNumDpsInputs() != 1 ||
        generic.getNumDpsInits() != 1 || generic.getNumReductionLoops() != 3)
      return op->emitOpError()
             << "is a convolution without 7 loops (3 of them reductions), a "
                "weight and an output";
    return success();
  }
  if (name == kGemmEpilogueOfAttrName) {
    if (!isa<UnitAttr>(attr.getValue()) || !isa<linalg::GenericOp>(op))
      return op->emitOpError()
             << "'" << name << "' is a unit attribute of a linalg.generic";
    return success();
  }
  if (name == kStrategyAttrName) {
    auto strategy = dyn_cast<StrategyAttr>(attr.getValue());
    if (!strategy)
      return op->emitOpError()
             << "'" << name << "' must be a #tgc_gpu.strategy";
    bool loop = strategy.getKind() == StrategyKind::loop;
    if (loop ? !isa<scf::ForOp>(op) : !isa<linalg::GenericOp>(op))
      return op->emitOpError()
             << "'" << name << "' of kind "
             << stringifyStrategyKind(strategy.getKind()) << " is set on "
             << (loop ? "an scf.for" : "a linalg.generic") << " only";
    return success();
  }
  if (name == kVectorAlignAttrName) {
    auto align = dyn_cast<IntegerAttr>(attr.getValue());
    if (!align || !isa<gpu::LaunchFuncOp>(op) || align.getInt() <= 0 ||
        !llvm::isPowerOf2_64(align.getInt()) || align.getInt() > 16)
      return op->emitOpError()
             << "'" << name
             << "' is a power of two up to 16 on a gpu.launch_func";
    return success();
  }
  if (name == kOperandAccessAttrName) {
    auto access = dyn_cast<DenseI32ArrayAttr>(attr.getValue());
    auto launch = dyn_cast<gpu::LaunchFuncOp>(op);
    if (!access || !launch)
      return op->emitOpError()
             << "'" << name << "' is an array<i32> on a gpu.launch_func";
    if (access.size() != static_cast<int64_t>(launch.getNumKernelOperands()))
      return op->emitOpError()
             << "'" << name << "' has " << access.size()
             << " entries for " << launch.getNumKernelOperands()
             << " kernel operands";
    for (int32_t a : access.asArrayRef())
      if (a < 0 || a > (kAccessRead | kAccessWrite))
        return op->emitOpError() << "'" << name << "' entry " << a
                                 << " is not 0 to 3 (1 read, 2 written)";
    return success();
  }
  return op->emitOpError() << "has an unknown tgc_gpu attribute '" << name
                           << "'";
}
