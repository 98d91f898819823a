//===- GpuPlan.cpp - Launch plans: writing, evaluation, guards, artifacts -===//
//
// The plan's text form is line-oriented: one item per line, every reference
// to an earlier line (nodes, buffers, kernels, arguments), so the parser
// checks each index as it reads it and reports the first problem with its
// line number. Nothing here trusts its input: the parser, the evaluator,
// the guard checker and the artifact reader bound every index and every
// length, and never abort. The format is documented in docs/gpu-runtime.md.
//
//===----------------------------------------------------------------------===//

#include "tgc/Runtime/GpuPlan.h"

#include "PlanText.h"

#include "tgc/Runtime/Checksum.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <limits>
#include <utility>

using namespace tgc::runtime;
using namespace tgc::runtime::plan_text;

namespace {

//===----------------------------------------------------------------------===//
// Evaluation helpers
//===----------------------------------------------------------------------===//

/// "n5" or "n5 (s1)" for messages.
std::string describeNode(const Plan &plan, int64_t index) {
  std::string text = "n" + num(index);
  for (const auto &symbol : plan.symbols)
    if (symbol.second == index)
      return text + " (" + symbol.first + ")";
  return text;
}

/// The symbol naming a node, else "n<index>".
std::string nodeLabel(const Plan &plan, int64_t index) {
  for (const auto &symbol : plan.symbols)
    if (symbol.second == index)
      return symbol.first;
  return "n" + num(index);
}

bool floorDiv(int64_t a, int64_t b, int64_t &out) {
  if (b == -1) {
    if (a == std::numeric_limits<int64_t>::min())
      return false;
    out = -a;
    return true;
  }
  int64_t q = a / b;
  if (a % b != 0 && ((a < 0) != (b < 0)))
    --q;
  out = q;
  return true;
}

bool ceilDiv(int64_t a, int64_t b, int64_t &out) {
  if (b == -1) {
    if (a == std::numeric_limits<int64_t>::min())
      return false;
    out = -a;
    return true;
  }
  int64_t q = a / b;
  if (a % b != 0 && ((a < 0) == (b < 0)))
    ++q;
  out = q;
  return true;
}

int64_t floorMod(int64_t a, int64_t b) {
  if (b == -1)
    return 0;
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0)))
    r += b;
  return r;
}

//===----------------------------------------------------------------------===//
// Artifact helpers
//===----------------------------------------------------------------------===//

constexpr char kMagic[8] = {'T', 'G', 'C', 'G', 'P', 'U', 'A', '\0'};
constexpr size_t kHeaderBytes = 24;
constexpr size_t kSectionHeaderBytes = 16;

enum SectionKind : uint32_t {
  SectionPlan = 1,
  SectionCubin = 2,
  SectionPtx = 3,
  SectionMetadata = 4,
  SectionChip = 5,
};

const char *sectionName(uint32_t kind) {
  switch (kind) {
  case SectionPlan:
    return "plan";
  case SectionCubin:
    return "cubin";
  case SectionPtx:
    return "ptx";
  case SectionMetadata:
    return "metadata";
  case SectionChip:
    return "chip";
  }
  return "unknown";
}


std::string hex64(uint64_t value) {
  char buffer[24];
  std::snprintf(buffer, sizeof(buffer), "0x%016" PRIx64, value);
  return buffer;
}

} // namespace

//===----------------------------------------------------------------------===//
// Text
//===----------------------------------------------------------------------===//

std::string tgc::runtime::serializePlan(const Plan &plan) {
  std::string out;
  auto line = [&](const std::string &text) {
    out += text;
    out += '\n';
  };
  line("function " + name(plan.function));
  for (size_t i = 0; i < plan.args.size(); ++i)
    line("arg " + num(int64_t(i)) + " " + dtypeText(plan.args[i].dtype) + " " +
         num(plan.args[i].rank));
  for (size_t i = 0; i < plan.exprs.size(); ++i) {
    const PlanExpr &expr = plan.exprs[i];
    const char *kind = exprName(expr.kind);
    std::string text = "expr " + num(int64_t(i)) + " " +
                       (kind ? kind : num(int64_t(expr.kind)));
    if (expr.kind == ExprKind::Const)
      text += " " + num(expr.a);
    else if (expr.kind == ExprKind::ArgDim)
      text += " " + num(expr.a) + " " + num(expr.b);
    else
      text += " " + node(expr.a) + " " + node(expr.b);
    line(text);
  }
  for (const auto &symbol : plan.symbols)
    line("symbol " + name(symbol.first) + " " + node(symbol.second));
  for (size_t i = 0; i < plan.results.size(); ++i) {
    const PlanTensor &result = plan.results[i];
    std::string text = "result " + num(int64_t(i)) + " " +
                       dtypeText(result.dtype) + " " + num(result.rank);
    for (int64_t size : result.sizes)
      text += " " + node(size);
    line(text);
  }
  for (const PlanGuard &guard : plan.guards) {
    std::string text = "guard ";
    switch (guard.kind) {
    case GuardKind::Rank:
      text += "rank " + num(guard.arg) + " " + num(guard.value);
      break;
    case GuardKind::Dtype:
      text += "dtype " + num(guard.arg) + " " + dtypeText(guard.value);
      break;
    case GuardKind::Device:
      text += "device " + num(guard.arg) + " " + deviceName(guard.value);
      break;
    case GuardKind::Contiguous:
      text += "contiguous " + num(guard.arg);
      break;
    case GuardKind::Range:
      text += "range " + node(guard.lhs) + " " + num(guard.lo) + " " +
              num(guard.hi);
      break;
    case GuardKind::Equal:
      text += "equal " + node(guard.lhs) + " " + node(guard.rhs);
      break;
    case GuardKind::Divisible:
      text += "divisible " + node(guard.lhs) + " " + num(guard.value);
      break;
    case GuardKind::Aligned:
      text += "aligned " + num(guard.arg) + " " + num(guard.value);
      break;
    case GuardKind::NoAlias:
      text += "no_alias " + num(guard.arg) + " " + num(guard.value);
      break;
    case GuardKind::NoAliasOuts:
      text += "no_alias_outs " + num(int64_t(guard.args.size()));
      for (int32_t a : guard.args)
        text += " " + num(int64_t(a));
      break;
    }
    if (guard.kind > GuardKind::NoAliasOuts) // invalid: the parser rejects it
      text += num(int64_t(guard.kind));
    line(text + " " + quote(guard.text) + " " + quote(guard.reason));
  }
  if (plan.arenaBytes >= 0)
    line("arena " + node(plan.arenaBytes));
  for (const std::string &kernel : plan.kernels)
    line("kernel " + name(kernel));
  for (const PlanGlobal &global : plan.globals)
    line("global " + name(global.name) + " " + num(global.bytes));
  for (const PlanBuffer &buffer : plan.buffers) {
    switch (buffer.kind) {
    case BufferKind::Arg:
      line("buffer arg " + num(buffer.index));
      break;
    case BufferKind::Result:
      line("buffer result " + num(buffer.index));
      break;
    case BufferKind::Arena:
      line("buffer arena " + node(buffer.offset));
      break;
    case BufferKind::View:
      line("buffer view b" + num(buffer.index) + " " + node(buffer.offset));
      break;
    case BufferKind::Global:
      line("buffer global " + num(buffer.index) + " " + node(buffer.offset));
      break;
    }
    if (buffer.kind > BufferKind::Global) // invalid: the parser rejects it
      line("buffer " + num(int64_t(buffer.kind)));
  }
  auto paramText = [&](const KernelParam &param) {
    std::string text;
    if (param.kind == KernelParam::Int) {
      text += "i" + num(param.id);
    } else if (param.rank < 0) {
      text += "b" + num(param.id);
      if (param.sizeNode >= 0)
        text += ":n" + num(param.sizeNode);
    } else {
      text += "b" + num(param.id) + "/" + num(param.rank) + "{" +
              node(param.offset) + ";";
      for (size_t i = 0; i < param.sizes.size(); ++i)
        text += (i ? "," : "") + node(param.sizes[i]);
      text += ";";
      for (size_t i = 0; i < param.strides.size(); ++i)
        text += (i ? "," : "") + node(param.strides[i]);
      text += "}";
    }
    if (param.kind == KernelParam::Buffer && param.elementBytes > 0)
      text += "*" + num(param.elementBytes) + (param.access & 1 ? "r" : "") +
              (param.access & 2 ? "w" : "");
    return text;
  };
  for (const PlanStep &step : plan.steps) {
    switch (step.kind) {
    case PlanStep::Launch: {
      const LaunchStep &launch = step.launch;
      std::string text = "launch k" + num(launch.kernel) + " grid";
      for (int64_t dim : launch.grid)
        text += " " + node(dim);
      text += " block";
      for (int64_t dim : launch.block)
        text += " " + node(dim);
      text += " shmem " + node(launch.sharedBytes) + " params";
      for (const KernelParam &param : launch.params)
        text += " " + paramText(param);
      line(text);
      break;
    }
    case PlanStep::Gemm: {
      const GemmStep &gemm = step.gemm;
      auto buffer = [](int64_t index) {
        return index < 0 ? std::string("none") : "b" + num(index);
      };
      int32_t epilogue = int32_t(gemm.epilogue);
      line("gemm " + dtypeText(gemm.dtype) +
           (gemm.cDtype != -1 ? " out " + dtypeText(gemm.cDtype) : "") +
           (gemm.tf32 ? " tf32" : "") + " m " + node(gemm.m) + " n " +
           node(gemm.n) + " k " + node(gemm.k) + " batch " + node(gemm.batch) +
           " transa " + (gemm.transA ? "1" : "0") + " transb " +
           (gemm.transB ? "1" : "0") + " a " + buffer(gemm.a) + " b " +
           buffer(gemm.b) + " c " + buffer(gemm.c) + " bias " +
           buffer(gemm.bias) +
           (gemm.residual >= 0 ? " residual " + buffer(gemm.residual)
                               : std::string()) +
           " epilogue " +
           (epilogue >= 0 && epilogue < kNumEpilogues ? kEpilogueNames[epilogue]
                                                      : num(epilogue).c_str()) +
           " strides " + node(gemm.strideA) + " " + node(gemm.strideB) + " " +
           node(gemm.strideC));
      break;
    }
    case PlanStep::Copy:
      line("copy dst b" + num(step.copy.dst) + " src b" + num(step.copy.src) +
           " bytes " + node(step.copy.bytes));
      break;
    case PlanStep::Memset: {
      char value[16];
      std::snprintf(value, sizeof(value), "0x%08x",
                    unsigned(step.memset.value));
      line("memset dst b" + num(step.memset.dst) + " bytes " +
           node(step.memset.bytes) + " value " + value);
      break;
    }
    case PlanStep::Check:
      line("check flag b" + num(step.check.flag) + " when " +
           node(step.check.when) + (step.check.index ? " index " : " ") +
           quote(step.check.message));
      break;
    case PlanStep::Conv: {
      const ConvStep &conv = step.conv;
      auto pair = [](const int64_t *v) {
        return num(v[0]) + " " + num(v[1]);
      };
      const char *kind = conv.kind == ConvStep::BackwardData ? " backward_data"
                         : conv.kind == ConvStep::BackwardFilter
                             ? " backward_filter"
                             : "";
      line("conv " + dtypeText(conv.dtype) + (conv.tf32 ? " tf32" : "") + kind +
           " x " + paramText(conv.x) + " w " + paramText(conv.w) + " y " +
           paramText(conv.y) + " stride " + pair(conv.stride) + " padding " +
           pair(conv.padding) + " dilation " + pair(conv.dilation) +
           " groups " + num(conv.groups));
      break;
    }
    }
    if (step.kind > PlanStep::Conv) // invalid: the parser rejects it
      line("step " + num(int64_t(step.kind)));
  }
  return out;
}

//===----------------------------------------------------------------------===//
// Evaluation
//===----------------------------------------------------------------------===//

/// evaluatePlan over any holder of the call's sizes: `sizesOf(i)` is
/// argument i's sizes as a SizesRef (a call evaluates its plan twice, for
/// the guards and to run, and must not copy its sizes either time).
template <typename SizesOf>
static bool evaluateNodes(const Plan &plan, int64_t numArgs, SizesOf sizesOf,
                          std::vector<int64_t> &values, std::string &error) {
  values.assign(plan.exprs.size(), 0);
  for (size_t i = 0; i < plan.exprs.size(); ++i) {
    const PlanExpr &expr = plan.exprs[i];
    int64_t &out = values[i];
    auto fail = [&](const std::string &message) {
      const char *kind = exprName(expr.kind);
      error = "node " + describeNode(plan, int64_t(i)) + " (" +
              (kind ? kind : "unknown kind") + "): " + message;
      return false;
    };
    if (expr.kind == ExprKind::Const) {
      out = expr.a;
      continue;
    }
    if (expr.kind == ExprKind::ArgDim) {
      if (expr.a < 0 || expr.a >= numArgs)
        return fail("argument " + num(expr.a) + " does not exist (" +
                    num(numArgs) + " arguments)");
      SizesRef sizes = sizesOf(expr.a);
      if (expr.b < 0 || expr.b >= sizes.rank)
        return fail("argument " + num(expr.a) + " has " + num(sizes.rank) +
                    " dims, no dim " + num(expr.b));
      out = sizes.sizes[expr.b];
      continue;
    }
    if (expr.a < 0 || expr.a >= int64_t(i) || expr.b < 0 ||
        expr.b >= int64_t(i))
      return fail("operands n" + num(expr.a) + ", n" + num(expr.b) +
                  " are not earlier nodes");
    int64_t a = values[expr.a], b = values[expr.b];
    switch (expr.kind) {
    case ExprKind::Add:
      if (__builtin_add_overflow(a, b, &out))
        return fail("signed overflow in " + num(a) + " + " + num(b));
      break;
    case ExprKind::Sub:
      if (__builtin_sub_overflow(a, b, &out))
        return fail("signed overflow in " + num(a) + " - " + num(b));
      break;
    case ExprKind::Mul:
      if (__builtin_mul_overflow(a, b, &out))
        return fail("signed overflow in " + num(a) + " * " + num(b));
      break;
    case ExprKind::FloorDiv:
    case ExprKind::CeilDiv:
    case ExprKind::Mod:
      if (b == 0)
        return fail("division by zero (" + num(a) + " by n" + num(expr.b) +
                    " = 0)");
      if (expr.kind == ExprKind::Mod) {
        out = floorMod(a, b);
      } else if (!(expr.kind == ExprKind::FloorDiv ? floorDiv(a, b, out)
                                                   : ceilDiv(a, b, out))) {
        return fail("signed overflow in " + num(a) + " / " + num(b));
      }
      break;
    case ExprKind::Max:
      out = a > b ? a : b;
      break;
    case ExprKind::Min:
      out = a < b ? a : b;
      break;
    default:
      return fail("unknown expression kind " + num(int64_t(expr.kind)));
    }
  }
  return true;
}

bool tgc::runtime::evaluatePlan(
    const Plan &plan, const std::vector<std::vector<int64_t>> &argSizes,
    std::vector<int64_t> &values, std::string &error) {
  return evaluateNodes(
      plan, int64_t(argSizes.size()),
      [&](int64_t i) {
        return SizesRef{argSizes[i].data(), int64_t(argSizes[i].size())};
      },
      values, error);
}

bool tgc::runtime::evaluatePlan(const Plan &plan, const SizesRef *argSizes,
                                size_t numArgs, std::vector<int64_t> &values,
                                std::string &error) {
  return evaluateNodes(
      plan, int64_t(numArgs), [&](int64_t i) { return argSizes[i]; }, values,
      error);
}

//===----------------------------------------------------------------------===//
// Guards
//===----------------------------------------------------------------------===//

int64_t tgc::runtime::dtypeBytes(int32_t dtype) {
  switch (dtype) {
  case TGC_DTYPE_F32:
  case TGC_DTYPE_I32:
    return 4;
  case TGC_DTYPE_F16:
  case TGC_DTYPE_BF16:
    return 2;
  case TGC_DTYPE_F64:
  case TGC_DTYPE_I64:
    return 8;
  case TGC_DTYPE_I8:
  case TGC_DTYPE_I1:
  case TGC_DTYPE_U8:
    return 1;
  }
  return 0;
}

int32_t tgc::runtime::storageDtype(int32_t dtype) {
  return dtype == TGC_DTYPE_U8 ? TGC_DTYPE_I8 : dtype;
}

/// The bytes from an argument's lowest to its highest element address
/// (past its last byte); empty for a tensor without elements or a scalar.
static std::pair<uint64_t, uint64_t> argExtent(const tgc_arg_desc &arg) {
  uint64_t start = uint64_t(uintptr_t(arg.data));
  int64_t bytes = dtypeBytes(arg.dtype);
  if (arg.rank < 0 || !arg.data || bytes <= 0)
    return {start, start};
  __int128 low = 0, high = 0, expected = 1;
  for (int64_t d = arg.rank - 1; d >= 0; --d) {
    int64_t size = arg.sizes ? arg.sizes[d] : 0;
    if (size <= 0)
      return {start, start};
    __int128 stride = arg.strides ? arg.strides[d] : expected;
    __int128 reach = __int128(size - 1) * stride;
    (reach < 0 ? low : high) += reach;
    expected *= size;
  }
  __int128 from = __int128(start) + low * bytes;
  __int128 to = __int128(start) + (high + 1) * bytes;
  auto clamp = [](__int128 v) {
    return v < 0 ? uint64_t(0)
                 : v > __int128(UINT64_MAX) ? UINT64_MAX : uint64_t(v);
  };
  return {clamp(from), clamp(to)};
}

int32_t tgc::runtime::checkPlanGuards(const Plan &plan,
                                      const tgc_arg_desc *args, int32_t numArgs,
                                      std::string &message) {
  message.clear();
  if (numArgs != int64_t(plan.args.size()) || (numArgs > 0 && !args)) {
    message = plan.function + " takes " + num(int64_t(plan.args.size())) +
              " arguments, got " + num(numArgs);
    return -2;
  }
  bool evaluated = false;
  std::vector<int64_t> values;

  auto describe = [&](int32_t index, const PlanGuard &guard,
                      const std::string &generated, const std::string &actual) {
    std::string text = "guard " + num(index) + " failed: ";
    text += guard.text.empty() ? generated : guard.text;
    if (!actual.empty())
      text += " (" + actual + ")";
    if (!guard.reason.empty())
      text += "; reason: " + guard.reason;
    return text;
  };
  auto argOk = [&](const PlanGuard &guard) {
    return guard.arg >= 0 && guard.arg < numArgs;
  };
  auto argLabel = [](int32_t arg) { return "arg " + num(arg); };

  // A rank guard, checked before any size is read.
  auto rankFails = [&](const PlanGuard &guard) {
    return !argOk(guard) || args[guard.arg].rank != guard.value;
  };
  auto rankMessage = [&](int32_t index, const PlanGuard &guard) {
    std::string generated =
        "rank(" + argLabel(guard.arg) + ") == " + num(guard.value);
    std::string actual = argOk(guard) ? "rank = " + num(args[guard.arg].rank)
                                      : "no such argument";
    return describe(index, guard, generated, actual);
  };

  // Evaluates the nodes once, after every rank guard passed and every
  // argument has the rank the plan declares, so ArgDim reads valid dims.
  auto evaluate = [&](int32_t index) -> int32_t {
    for (size_t g = 0; g < plan.guards.size(); ++g) {
      const PlanGuard &guard = plan.guards[g];
      if (guard.kind == GuardKind::Rank && rankFails(guard)) {
        message = rankMessage(int32_t(g), guard);
        return int32_t(g);
      }
    }
    for (int32_t a = 0; a < numArgs; ++a) {
      const tgc_arg_desc &arg = args[a];
      if (arg.rank != plan.args[a].rank) {
        message = plan.function + ": argument " + num(a) + " has rank " +
                  num(arg.rank) + ", the plan expects " +
                  num(plan.args[a].rank);
        return -2;
      }
      if (arg.rank > 0 && !arg.sizes) {
        message = plan.function + ": argument " + num(a) + " has no sizes";
        return -2;
      }
    }
    std::string evalError;
    auto sizesOf = [&](int64_t a) {
      return SizesRef{args[a].sizes, std::max<int64_t>(args[a].rank, 0)};
    };
    if (!evaluateNodes(plan, numArgs, sizesOf, values, evalError)) {
      message = "guard " + num(index) +
                " failed: cannot evaluate the sizes: " + evalError;
      return index;
    }
    evaluated = true;
    return -1;
  };
  auto nodeOk = [&](int64_t node) {
    return node >= 0 && node < int64_t(values.size());
  };
  auto nodeValue = [&](int64_t node) {
    return nodeLabel(plan, node) + " = " + num(values[node]);
  };

  for (size_t g = 0; g < plan.guards.size(); ++g) {
    const PlanGuard &guard = plan.guards[g];
    int32_t index = int32_t(g);
    if (guard.kind > GuardKind::NoAliasOuts) {
      message = "guard " + num(index) + " failed: unknown guard kind " +
                num(int64_t(guard.kind));
      return index;
    }
    switch (guard.kind) {
    case GuardKind::Rank:
      if (rankFails(guard)) {
        message = rankMessage(index, guard);
        return index;
      }
      break;
    case GuardKind::Dtype:
      if (!argOk(guard) || args[guard.arg].dtype != guard.value) {
        message = describe(
            index, guard,
            "dtype(" + argLabel(guard.arg) + ") == " + dtypeText(guard.value),
            argOk(guard) ? "dtype = " + dtypeText(args[guard.arg].dtype)
                         : "no such argument");
        return index;
      }
      break;
    case GuardKind::Device:
      if (!argOk(guard) || args[guard.arg].device_type != guard.value) {
        message = describe(
            index, guard,
            "device(" + argLabel(guard.arg) + ") == " + deviceName(guard.value),
            argOk(guard) ? "device = " + deviceName(args[guard.arg].device_type)
                         : "no such argument");
        return index;
      }
      break;
    case GuardKind::Contiguous: {
      // (Messages are built on failure only: a call checks every
      // argument's guards, and a step over 593 arguments has thousands.)
      auto generated = [&] {
        return "contiguous(" + argLabel(guard.arg) + ")";
      };
      if (!argOk(guard)) {
        message = describe(index, guard, generated(), "no such argument");
        return index;
      }
      const tgc_arg_desc &arg = args[guard.arg];
      if (arg.rank <= 0)
        break; // a scalar or a rank-0 tensor is contiguous
      if (!arg.sizes || !arg.strides) {
        message = describe(index, guard, generated(), "no sizes or strides");
        return index;
      }
      bool empty = false;
      for (int64_t d = 0; d < arg.rank; ++d)
        empty |= arg.sizes[d] == 0;
      if (empty)
        break;
      int64_t expected = 1;
      bool ok = true;
      for (int64_t d = arg.rank - 1; d >= 0; --d) {
        if (arg.sizes[d] != 1 && arg.strides[d] != expected)
          ok = false;
        if (__builtin_mul_overflow(expected, arg.sizes[d], &expected))
          expected = -1;
      }
      if (!ok) {
        std::string sizes = "sizes [", strides = "strides [";
        for (int64_t d = 0; d < arg.rank; ++d) {
          sizes += (d ? ", " : "") + num(arg.sizes[d]);
          strides += (d ? ", " : "") + num(arg.strides[d]);
        }
        message =
            describe(index, guard, generated(), sizes + "], " + strides + "]");
        return index;
      }
      break;
    }
    case GuardKind::Aligned: {
      auto generated = [&] {
        return "aligned(" + argLabel(guard.arg) + ", " + num(guard.value) + ")";
      };
      if (!argOk(guard) || guard.value <= 0) {
        message = describe(index, guard, generated(),
                           argOk(guard) ? "bad alignment" : "no such argument");
        return index;
      }
      uint64_t address = uint64_t(uintptr_t(args[guard.arg].data));
      if (address % uint64_t(guard.value) != 0) {
        message =
            describe(index, guard, generated(), "data = " + hex64(address));
        return index;
      }
      break;
    }
    case GuardKind::NoAlias: {
      auto generated = [&] {
        return "no_alias(" + argLabel(guard.arg) + ", " +
               argLabel(int32_t(guard.value)) + ")";
      };
      if (!argOk(guard) || guard.value < 0 || guard.value >= numArgs) {
        message = describe(index, guard, generated(), "no such argument");
        return index;
      }
      auto a = argExtent(args[guard.arg]);
      auto b = argExtent(args[guard.value]);
      if (a.first < a.second && b.first < b.second && a.first < b.second &&
          b.first < a.second) {
        auto span = [](std::pair<uint64_t, uint64_t> e) {
          return "[" + hex64(e.first) + ", " + hex64(e.second) + ")";
        };
        message =
            describe(index, guard, generated(),
                     argLabel(guard.arg) + " spans " + span(a) + ", " +
                         argLabel(int32_t(guard.value)) + " spans " + span(b));
        return index;
      }
      break;
    }
    case GuardKind::NoAliasOuts: {
      // The non-empty ranges sorted by start, swept once: a range overlaps
      // an earlier one exactly when it starts before the largest end so
      // far (of any range, for an out buffer; of the out buffers', for
      // another argument).
      auto generated = [&] {
        std::string text = "no_alias_outs(";
        for (int32_t a : guard.args)
          text += (text.back() == '(' ? "" : ", ") + argLabel(a);
        return text + ")";
      };
      std::vector<char> out(size_t(std::max(numArgs, 0)), 0);
      for (int32_t a : guard.args) {
        if (a < 0 || a >= numArgs) {
          message = describe(index, guard, generated(), "no such argument");
          return index;
        }
        out[size_t(a)] = 1;
      }
      struct Span {
        uint64_t start, end;
        int32_t arg;
      };
      std::vector<Span> spans;
      spans.reserve(size_t(std::max(numArgs, 0)));
      for (int32_t a = 0; a < numArgs; ++a) {
        auto e = argExtent(args[a]);
        if (e.first < e.second)
          spans.push_back({e.first, e.second, a});
      }
      std::sort(spans.begin(), spans.end(), [](const Span &l, const Span &r) {
        return l.start < r.start || (l.start == r.start && l.arg < r.arg);
      });
      const Span *widest = nullptr, *widestOut = nullptr;
      for (const Span &s : spans) {
        const Span *hit = out[size_t(s.arg)] ? widest : widestOut;
        if (hit && s.start < hit->end) {
          auto span = [](const Span &e) {
            return "[" + hex64(e.start) + ", " + hex64(e.end) + ")";
          };
          message = describe(index, guard, generated(),
                             argLabel(hit->arg) + " spans " + span(*hit) +
                                 ", " + argLabel(s.arg) + " spans " + span(s));
          return index;
        }
        if (!widest || s.end > widest->end)
          widest = &s;
        if (out[size_t(s.arg)] && (!widestOut || s.end > widestOut->end))
          widestOut = &s;
      }
      break;
    }
    case GuardKind::Range:
    case GuardKind::Equal:
    case GuardKind::Divisible: {
      if (!evaluated) {
        int32_t failed = evaluate(index);
        if (failed != -1)
          return failed;
      }
      if (!nodeOk(guard.lhs) ||
          (guard.kind == GuardKind::Equal && !nodeOk(guard.rhs))) {
        message = "guard " + num(index) + " failed: it refers to a node " +
                  "that does not exist";
        return index;
      }
      int64_t lhs = values[guard.lhs];
      auto lhsName = [&] { return nodeLabel(plan, guard.lhs); };
      if (guard.kind == GuardKind::Range) {
        if (lhs < guard.lo || (guard.hi >= 0 && lhs > guard.hi)) {
          std::string generated =
              guard.hi >= 0
                  ? num(guard.lo) + " <= " + lhsName() + " <= " + num(guard.hi)
                  : lhsName() + " >= " + num(guard.lo);
          message = describe(index, guard, generated, nodeValue(guard.lhs));
          return index;
        }
      } else if (guard.kind == GuardKind::Equal) {
        if (lhs != values[guard.rhs]) {
          message = describe(
              index, guard, lhsName() + " == " + nodeLabel(plan, guard.rhs),
              nodeValue(guard.lhs) + ", " + nodeValue(guard.rhs));
          return index;
        }
      } else {
        if (guard.value <= 0 || floorMod(lhs, guard.value) != 0) {
          message = describe(index, guard,
                             lhsName() + " % " + num(guard.value) + " == 0",
                             nodeValue(guard.lhs));
          return index;
        }
      }
      break;
    }
    }
  }
  return -1;
}

//===----------------------------------------------------------------------===//
// Artifacts
//===----------------------------------------------------------------------===//

std::string tgc::runtime::writeGpuArtifact(const GpuArtifact &artifact) {
  std::string body;
  uint32_t count = 0;
  auto section = [&](uint32_t kind, const std::string &bytes) {
    putU32(body, kind);
    putU32(body, 0);
    putU64(body, uint64_t(bytes.size()));
    body += bytes;
    ++count;
  };
  section(SectionPlan, serializePlan(artifact.plan));
  section(artifact.isPtx ? SectionPtx : SectionCubin, artifact.module);
  section(SectionMetadata, artifact.metadata);
  section(SectionChip, artifact.chip);

  std::string out(kMagic, sizeof(kMagic));
  putU32(out, kGpuArtifactVersion);
  putU32(out, count);
  putU64(out, fnv1a64(body.data(), body.size()));
  out += body;
  return out;
}

bool tgc::runtime::readGpuArtifact(const std::string &bytes,
                                   GpuArtifact &artifact, std::string &error) {
  auto fail = [&](const std::string &message) {
    error = "invalid GPU artifact: " + message;
    return false;
  };
  if (bytes.size() < sizeof(kMagic) ||
      std::memcmp(bytes.data(), kMagic, sizeof(kMagic)) != 0)
    return fail(R"(bad magic (not a TGC GPU artifact, expected "TGCGPUA\0"))");
  if (bytes.size() < kHeaderBytes)
    return fail("truncated header (" + num(int64_t(bytes.size())) + " of " +
                num(int64_t(kHeaderBytes)) + " bytes)");
  uint32_t version = getU32(bytes, 8);
  if (version != kGpuArtifactVersion)
    return fail("artifact format version " + num(version) +
                ", this runtime reads " + num(kGpuArtifactVersion));
  uint32_t count = getU32(bytes, 12);
  uint64_t stored = getU64(bytes, 16);

  // The structure first (bounded reads), so truncation has its own message;
  // then the checksum; then the contents.
  struct Section {
    uint32_t kind;
    size_t offset;
    size_t size;
  };
  std::vector<Section> sections;
  size_t at = kHeaderBytes;
  for (uint32_t i = 0; i < count; ++i) {
    size_t left = bytes.size() - at;
    if (left < kSectionHeaderBytes)
      return fail("truncated: section " + num(i) + " of " + num(count) +
                  " starts at byte " + num(int64_t(at)) + " but only " +
                  num(int64_t(left)) + " bytes are left");
    uint32_t kind = getU32(bytes, at);
    uint32_t reserved = getU32(bytes, at + 4);
    uint64_t size = getU64(bytes, at + 8);
    at += kSectionHeaderBytes;
    left -= kSectionHeaderBytes;
    if (size > left)
      return fail(
          "truncated: section " + num(i) + " (" + sectionName(kind) + ") has " +
          num(int64_t(size > uint64_t(INT64_MAX) ? INT64_MAX : int64_t(size))) +
          " bytes but only " + num(int64_t(left)) + " are left");
    if (reserved != 0)
      return fail("section " + num(i) + " has reserved field " + num(reserved) +
                  ", expected 0");
    sections.push_back({kind, at, size_t(size)});
    at += size_t(size);
  }
  if (at != bytes.size())
    return fail(num(int64_t(bytes.size() - at)) +
                " trailing bytes after the last section");
  uint64_t computed =
      fnv1a64(bytes.data() + kHeaderBytes, bytes.size() - kHeaderBytes);
  if (computed != stored)
    return fail("checksum mismatch (stored " + hex64(stored) + ", computed " +
                hex64(computed) + "): the file is corrupt");

  GpuArtifact result;
  bool seen[6] = {};
  std::string planText;
  for (size_t i = 0; i < sections.size(); ++i) {
    const Section &section = sections[i];
    if (section.kind < SectionPlan || section.kind > SectionChip)
      return fail("section " + num(int64_t(i)) + " has unknown kind " +
                  num(section.kind));
    if (seen[section.kind])
      return fail("duplicate " + std::string(sectionName(section.kind)) +
                  " section");
    seen[section.kind] = true;
    std::string content = bytes.substr(section.offset, section.size);
    switch (section.kind) {
    case SectionPlan:
      planText = std::move(content);
      break;
    case SectionCubin:
    case SectionPtx:
      result.module = std::move(content);
      result.isPtx = section.kind == SectionPtx;
      break;
    case SectionMetadata:
      result.metadata = std::move(content);
      break;
    case SectionChip:
      result.chip = std::move(content);
      break;
    }
  }
  if (!seen[SectionPlan])
    return fail("missing plan section");
  if (seen[SectionCubin] && seen[SectionPtx])
    return fail("both a cubin and a ptx section");
  if (!seen[SectionCubin] && !seen[SectionPtx])
    return fail("missing module section (cubin or ptx)");
  if (!seen[SectionChip])
    return fail("missing chip section");
  std::string planError;
  if (!parsePlan(planText, result.plan, planError))
    return fail("plan section: " + planError);
  artifact = std::move(result);
  return true;
}

const char *tgc::runtime::dtypeName(int32_t dtype) {
  return dtype >= 0 && dtype < kNumDtypes ? kDtypeNames[dtype] : nullptr;
}
