//===- GpuPlanParse.cpp - reading a launch plan's text --------------------===//
//
// parsePlan: the line-oriented text of serializePlan back into a Plan,
// checking every index (nodes refer to earlier nodes, steps to existing
// buffers, kernels and nodes) and reporting the first problem with its
// line number (docs/gpu-runtime.md).
//
//===----------------------------------------------------------------------===//

#include "PlanText.h"

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
// Reading
//===----------------------------------------------------------------------===//

/// Parses one line at a time into the plan, checking every reference
/// against what earlier lines declared.
class PlanParser {
public:
  explicit PlanParser(Plan &plan) : plan(plan) {}

  bool parse(const std::string &text, std::string &error);

private:
  bool parseLine();
  bool fail(const std::string &message) {
    error = "line " + std::to_string(lineNumber) + ": " + message;
    return false;
  }

  bool atEnd() const { return pos >= tokens.size(); }
  const std::string &peek() const { return tokens[pos].text; }
  bool expectEnd() {
    if (atEnd())
      return true;
    return fail("unexpected '" + peek() + "' at the end of the line");
  }
  bool next(const char *what, Token &token) {
    if (atEnd())
      return fail(std::string("expected ") + what + " at the end of the line");
    token = tokens[pos++];
    return true;
  }
  bool keyword(const char *word) {
    Token token;
    if (!next(word, token))
      return false;
    if (token.quoted || token.text != word)
      return fail(std::string("expected '") + word + "', got '" + token.text +
                  "'");
    return true;
  }
  bool integer(const char *what, int64_t &value) {
    Token token;
    if (!next(what, token))
      return false;
    if (token.quoted || !parseDecimal(token.text, value))
      return fail(std::string("expected ") + what + ", got '" + token.text +
                  "'");
    return true;
  }
  bool nonNegative(const char *what, int64_t &value) {
    if (!integer(what, value))
      return false;
    if (value < 0)
      return fail(std::string(what) + " must not be negative, got " +
                  num(value));
    return true;
  }
  bool word(const char *what, std::string &value) {
    Token token;
    if (!next(what, token))
      return false;
    if (!token.quoted && !isBareWord(token.text))
      return fail(std::string("expected ") + what + ", got '" + token.text +
                  "'");
    value = token.text;
    return true;
  }
  bool string(const char *what, std::string &value) {
    Token token;
    if (!next(what, token))
      return false;
    if (!token.quoted)
      return fail(std::string("expected ") + what +
                  " (a quoted string), got '" + token.text + "'");
    value = token.text;
    return true;
  }
  /// `<prefix><index>`, the index below `count`; `none` gives -1 when
  /// allowed.
  bool reference(char prefix, const char *what, int64_t count, bool allowNone,
                 int64_t &index) {
    Token token;
    if (!next(what, token))
      return false;
    if (!token.quoted && allowNone && token.text == "none") {
      index = -1;
      return true;
    }
    int64_t value = 0;
    if (token.quoted || token.text.size() < 2 || token.text[0] != prefix ||
        token.text[1] == '-' || !parseDecimal(token.text.substr(1), value))
      return fail(std::string("expected ") + what + " ('" + prefix +
                  "<index>'" + (allowNone ? " or 'none'" : "") + "), got '" +
                  token.text + "'");
    return checkIndex(prefix, what, value, count, index);
  }
  bool checkIndex(char prefix, const char *what, int64_t value, int64_t count,
                  int64_t &index) {
    if (value >= count) {
      std::string ref = std::string(1, prefix) + num(value);
      if (count == 0)
        return fail(std::string(what) + " " + ref + " does not exist (none " +
                    "declared before this line)");
      return fail(std::string(what) + " " + ref +
                  " does not exist (declared before this line: " + prefix +
                  "0.." + prefix + num(count - 1) + ")");
    }
    index = value;
    return true;
  }
  bool nodeRef(const char *what, bool allowNone, int64_t &index) {
    return reference('n', what, int64_t(plan.exprs.size()), allowNone, index);
  }
  bool bufferRef(const char *what, bool allowNone, int64_t &index) {
    return reference('b', what, int64_t(plan.buffers.size()), allowNone, index);
  }
  bool argIndex(int32_t &arg) {
    int64_t value = 0;
    if (!integer("an argument index", value))
      return false;
    if (value < 0 || value >= int64_t(plan.args.size()))
      return fail("argument " + num(value) + " does not exist (" +
                  num(int64_t(plan.args.size())) +
                  " declared before this line)");
    arg = int32_t(value);
    return true;
  }
  bool dtype(int32_t &value) {
    Token token;
    if (!next("a dtype", token))
      return false;
    if (token.quoted || !lookupDtype(token.text, value))
      return fail("unknown dtype '" + token.text +
                  "' (f32, f16, bf16, f64, i64, i32, i8, i1)");
    return true;
  }
  /// Text and reason of a guard.
  bool guardStrings(PlanGuard &guard) {
    return string("the guard's text", guard.text) &&
           string("the guard's reason", guard.reason);
  }

  bool parseFunction();
  bool parseTensor(bool isResult);
  bool parseExpr();
  bool parseSymbol();
  bool parseGuard();
  bool parseArena();
  bool parseKernel();
  bool parseGlobal();
  bool parseBuffer();
  bool parseLaunch();
  bool parseParam(const Token &token, KernelParam &param);
  bool paramNode(const std::string &text, const std::string &param,
                 const char *what, bool allowNone, int64_t &index);
  bool parseGemm();
  bool parseConv();
  bool parseCopy();
  bool parseMemset();
  bool parseCheck();

  Plan &plan;
  std::vector<Token> tokens;
  size_t pos = 0;
  int64_t lineNumber = 0;
  bool sawFunction = false;
  bool sawArena = false;
  std::string error;
};

bool PlanParser::parse(const std::string &text, std::string &errorOut) {
  plan = Plan();
  size_t begin = 0;
  while (begin <= text.size()) {
    size_t end = text.find('\n', begin);
    if (end == std::string::npos)
      end = text.size();
    ++lineNumber;
    std::string line = text.substr(begin, end - begin);
    begin = end + 1;
    if (line.find('\0') != std::string::npos) {
      fail("NUL character in the plan text");
      errorOut = error;
      return false;
    }
    std::string tokenError;
    if (!tokenize(line, tokens, tokenError)) {
      fail(tokenError);
      errorOut = error;
      return false;
    }
    pos = 0;
    if (tokens.empty() || (!tokens[0].quoted && tokens[0].text[0] == '#'))
      continue;
    if (!parseLine()) {
      errorOut = error;
      return false;
    }
    if (end == text.size())
      break;
  }
  if (!sawFunction) {
    error = "line " + std::to_string(lineNumber) +
            ": end of plan without a 'function' line";
    errorOut = error;
    return false;
  }
  return true;
}

bool PlanParser::parseLine() {
  const Token &head = tokens[pos++];
  if (head.quoted)
    return fail("expected a keyword, got a string");
  const std::string &key = head.text;
  if (key != "function" && !sawFunction)
    return fail("the first line must be 'function <name>', got '" + key + "'");
  if (key == "function")
    return parseFunction();
  if (key == "arg")
    return parseTensor(false);
  if (key == "result")
    return parseTensor(true);
  if (key == "expr")
    return parseExpr();
  if (key == "symbol")
    return parseSymbol();
  if (key == "guard")
    return parseGuard();
  if (key == "arena")
    return parseArena();
  if (key == "kernel")
    return parseKernel();
  if (key == "global")
    return parseGlobal();
  if (key == "buffer")
    return parseBuffer();
  if (key == "launch")
    return parseLaunch();
  if (key == "gemm")
    return parseGemm();
  if (key == "conv")
    return parseConv();
  if (key == "copy")
    return parseCopy();
  if (key == "memset")
    return parseMemset();
  if (key == "check")
    return parseCheck();
  return fail("unknown keyword '" + key + "'");
}

bool PlanParser::parseFunction() {
  if (sawFunction)
    return fail("a second 'function' line");
  sawFunction = true;
  return word("the function's name", plan.function) && expectEnd();
}

bool PlanParser::parseTensor(bool isResult) {
  std::vector<PlanTensor> &list = isResult ? plan.results : plan.args;
  const char *what = isResult ? "result" : "arg";
  int64_t index = 0;
  if (!integer(isResult ? "a result index" : "an argument index", index))
    return false;
  if (index != int64_t(list.size()))
    return fail(std::string("expected ") + what + " " +
                num(int64_t(list.size())) + ", got " + what + " " + num(index) +
                " (they are numbered in order from 0)");
  PlanTensor tensor;
  int64_t rank = 0;
  if (!dtype(tensor.dtype) || !nonNegative("a rank", rank))
    return false;
  if (rank > std::numeric_limits<int32_t>::max())
    return fail("rank " + num(rank) + " is too large");
  tensor.rank = int32_t(rank);
  if (isResult) {
    for (int64_t i = 0; i < rank; ++i) {
      int64_t size = 0;
      if (atEnd())
        return fail("result " + num(index) + " has rank " + num(rank) +
                    " but " + num(i) + " size nodes");
      if (!nodeRef("a size node", false, size))
        return false;
      tensor.sizes.push_back(size);
    }
  }
  if (!expectEnd())
    return false;
  list.push_back(std::move(tensor));
  return true;
}

bool PlanParser::parseExpr() {
  int64_t index = 0;
  if (!integer("a node index", index))
    return false;
  if (index != int64_t(plan.exprs.size()))
    return fail("expected expr " + num(int64_t(plan.exprs.size())) +
                ", got expr " + num(index) +
                " (nodes are numbered in order from 0)");
  Token kindToken;
  if (!next("an expression kind", kindToken))
    return false;
  PlanExpr expr;
  bool known = false;
  for (const KindName &entry : kExprNames)
    if (!kindToken.quoted && kindToken.text == entry.name) {
      expr.kind = entry.kind;
      known = true;
    }
  if (!known)
    return fail("unknown expression kind '" + kindToken.text + "'");
  switch (expr.kind) {
  case ExprKind::Const:
    if (!integer("a constant", expr.a))
      return false;
    break;
  case ExprKind::ArgDim: {
    int32_t arg = 0;
    if (!argIndex(arg) || !nonNegative("a dimension", expr.b))
      return false;
    expr.a = arg;
    if (expr.b >= plan.args[arg].rank)
      return fail("argument " + num(arg) + " has rank " +
                  num(plan.args[arg].rank) + ", no dimension " + num(expr.b));
    break;
  }
  default:
    if (!nodeRef("an operand node", false, expr.a) ||
        !nodeRef("an operand node", false, expr.b))
      return false;
  }
  if (!expectEnd())
    return false;
  plan.exprs.push_back(expr);
  return true;
}

bool PlanParser::parseSymbol() {
  std::string symbol;
  int64_t index = 0;
  if (!word("a symbol name", symbol) || !nodeRef("a node", false, index) ||
      !expectEnd())
    return false;
  plan.symbols.emplace_back(std::move(symbol), index);
  return true;
}

bool PlanParser::parseGuard() {
  Token kindToken;
  if (!next("a guard kind", kindToken))
    return false;
  const std::string &kind = kindToken.quoted ? std::string() : kindToken.text;
  PlanGuard guard;
  if (kind == "rank") {
    guard.kind = GuardKind::Rank;
    if (!argIndex(guard.arg) || !nonNegative("a rank", guard.value))
      return false;
  } else if (kind == "dtype") {
    guard.kind = GuardKind::Dtype;
    int32_t dtypeValue = 0;
    if (!argIndex(guard.arg) || !dtype(dtypeValue))
      return false;
    guard.value = dtypeValue;
  } else if (kind == "device") {
    guard.kind = GuardKind::Device;
    Token device;
    if (!argIndex(guard.arg) || !next("a device", device))
      return false;
    if (device.quoted || !lookupDevice(device.text, guard.value))
      return fail("unknown device '" + device.text + "' (cpu, cuda)");
  } else if (kind == "contiguous") {
    guard.kind = GuardKind::Contiguous;
    if (!argIndex(guard.arg))
      return false;
  } else if (kind == "range") {
    guard.kind = GuardKind::Range;
    if (!nodeRef("a node", false, guard.lhs) ||
        !integer("a lower bound", guard.lo) ||
        !integer("an upper bound", guard.hi))
      return false;
  } else if (kind == "equal") {
    guard.kind = GuardKind::Equal;
    if (!nodeRef("a node", false, guard.lhs) ||
        !nodeRef("a node", false, guard.rhs))
      return false;
  } else if (kind == "divisible") {
    guard.kind = GuardKind::Divisible;
    if (!nodeRef("a node", false, guard.lhs) ||
        !integer("a divisor", guard.value))
      return false;
    if (guard.value <= 0)
      return fail("the divisor must be positive, got " + num(guard.value));
  } else if (kind == "aligned") {
    guard.kind = GuardKind::Aligned;
    if (!argIndex(guard.arg) || !integer("an alignment", guard.value))
      return false;
    if (guard.value <= 0)
      return fail("the alignment must be positive, got " + num(guard.value));
  } else if (kind == "no_alias") {
    guard.kind = GuardKind::NoAlias;
    int32_t other = -1;
    if (!argIndex(guard.arg) || !argIndex(other))
      return false;
    if (other == guard.arg)
      return fail("no_alias needs two different arguments, got " +
                  num(other) + " twice");
    guard.value = other;
  } else if (kind == "no_alias_outs") {
    guard.kind = GuardKind::NoAliasOuts;
    int64_t count = 0;
    if (!integer("a count of out arguments", count))
      return false;
    if (count <= 0 || count > int64_t(plan.args.size()))
      return fail("no_alias_outs needs 1 to " + num(int64_t(plan.args.size())) +
                  " arguments, got " + num(count));
    for (int64_t k = 0; k < count; ++k) {
      int32_t arg = -1;
      if (!argIndex(arg))
        return false;
      if (std::find(guard.args.begin(), guard.args.end(), arg) !=
          guard.args.end())
        return fail("no_alias_outs lists argument " + num(int64_t(arg)) +
                    " twice");
      guard.args.push_back(arg);
    }
  } else {
    return fail("unknown guard kind '" + kindToken.text +
                "' (rank, dtype, device, contiguous, range, equal, "
                "divisible, aligned, no_alias, no_alias_outs)");
  }
  if (!guardStrings(guard) || !expectEnd())
    return false;
  plan.guards.push_back(std::move(guard));
  return true;
}

bool PlanParser::parseArena() {
  if (sawArena)
    return fail("a second 'arena' line");
  sawArena = true;
  return nodeRef("the arena size node", false, plan.arenaBytes) && expectEnd();
}

bool PlanParser::parseKernel() {
  std::string kernel;
  if (!word("a kernel name", kernel) || !expectEnd())
    return false;
  plan.kernels.push_back(std::move(kernel));
  return true;
}

bool PlanParser::parseGlobal() {
  PlanGlobal global;
  if (!word("a global's name", global.name) ||
      !integer("the global's size in bytes", global.bytes))
    return false;
  if (global.bytes <= 0)
    return fail("global '" + global.name + "' has size " +
                num(global.bytes) + " (must be positive)");
  for (const PlanGlobal &other : plan.globals)
    if (other.name == global.name)
      return fail("a second global named '" + global.name + "'");
  if (!expectEnd())
    return false;
  plan.globals.push_back(std::move(global));
  return true;
}

bool PlanParser::parseBuffer() {
  Token kindToken;
  if (!next("a buffer kind", kindToken))
    return false;
  const std::string &kind = kindToken.quoted ? std::string() : kindToken.text;
  PlanBuffer buffer;
  if (kind == "arg" || kind == "result" || kind == "global") {
    // An index into what earlier lines declared; a global takes an offset.
    bool isArg = kind == "arg", isGlobal = kind == "global";
    buffer.kind = isArg      ? BufferKind::Arg
                  : isGlobal ? BufferKind::Global
                             : BufferKind::Result;
    int64_t count = int64_t(isArg      ? plan.args.size()
                            : isGlobal ? plan.globals.size()
                                       : plan.results.size());
    if (!integer(isArg      ? "an argument index"
                 : isGlobal ? "a global index"
                            : "a result index",
                 buffer.index))
      return false;
    if (buffer.index < 0 || buffer.index >= count)
      return fail(kind + " " + num(buffer.index) + " does not exist (" +
                  num(count) + " declared before this line)");
    if (isGlobal && !nodeRef("an offset node", true, buffer.offset))
      return false;
  } else if (kind == "arena") {
    buffer.kind = BufferKind::Arena;
    if (!sawArena)
      return fail("an arena buffer without an earlier 'arena' line");
    if (!nodeRef("an offset node", true, buffer.offset))
      return false;
  } else if (kind == "view") {
    buffer.kind = BufferKind::View;
    if (!bufferRef("a base buffer", false, buffer.index) ||
        !nodeRef("an offset node", true, buffer.offset))
      return false;
  } else {
    return fail("unknown buffer kind '" + kindToken.text +
                "' (arg, result, arena, view, global)");
  }
  if (!expectEnd())
    return false;
  plan.buffers.push_back(buffer);
  return true;
}

bool PlanParser::parseLaunch() {
  PlanStep step;
  step.kind = PlanStep::Launch;
  LaunchStep &launch = step.launch;
  int64_t kernel = 0;
  if (!reference('k', "a kernel", int64_t(plan.kernels.size()), false, kernel))
    return false;
  launch.kernel = int32_t(kernel);
  if (!keyword("grid"))
    return false;
  for (int64_t &dim : launch.grid)
    if (!nodeRef("a grid node", false, dim))
      return false;
  if (!keyword("block"))
    return false;
  for (int64_t &dim : launch.block)
    if (!nodeRef("a block node", false, dim))
      return false;
  if (!keyword("shmem") ||
      !nodeRef("a shared-memory node", true, launch.sharedBytes) ||
      !keyword("params"))
    return false;
  while (!atEnd()) {
    KernelParam param;
    if (!parseParam(tokens[pos++], param))
      return false;
    launch.params.push_back(std::move(param));
  }
  plan.steps.push_back(std::move(step));
  return true;
}

/// A node in a parameter token: "n<index>", or "none" when allowed.
bool PlanParser::paramNode(const std::string &text, const std::string &param,
                           const char *what, bool allowNone, int64_t &index) {
  if (allowNone && text == "none") {
    index = -1;
    return true;
  }
  int64_t value = 0;
  if (text.size() < 2 || text[0] != 'n' || text[1] == '-' ||
      !parseDecimal(text.substr(1), value))
    return fail("bad parameter '" + param + "': expected " + what +
                " ('n<index>'" + (allowNone ? " or 'none'" : "") + "), got '" +
                text + "'");
  return checkIndex('n', what, value, int64_t(plan.exprs.size()), index);
}

/// `i<node>`, `b<buffer>`, `b<buffer>:n<size node>` or the ranked form
/// `b<buffer>/<rank>{<offset>;<sizes>;<strides>}` (node lists separated by
/// commas); a buffer form may end in `*<element bytes>` and `r`, `w` or
/// `rw` (read, written or both by the kernel).
bool PlanParser::parseParam(const Token &token, KernelParam &param) {
  std::string text = token.text;
  const char *forms = " (i<node>, b<buffer>, b<buffer>:n<node> or "
                      "b<buffer>/<rank>{<offset>;<sizes>;<strides>}, a "
                      "buffer optionally followed by *<element bytes> and "
                      "r, w or rw)";
  if (token.quoted || text.size() < 2 || (text[0] != 'i' && text[0] != 'b'))
    return fail("bad parameter '" + text + "'" + forms);
  if (size_t star = text.rfind('*');
      text[0] == 'b' && star != std::string::npos) {
    int64_t bytes = 0;
    std::string bytesText = text.substr(star + 1);
    // `r`, `w` or `rw`: how the kernel uses the buffer.
    if (bytesText.size() >= 2 && bytesText.compare(bytesText.size() - 2, 2,
                                                   "rw") == 0) {
      param.access = 3;
      bytesText.resize(bytesText.size() - 2);
    } else if (!bytesText.empty() &&
               (bytesText.back() == 'r' || bytesText.back() == 'w')) {
      param.access = bytesText.back() == 'r' ? 1 : 2;
      bytesText.pop_back();
    }
    if (bytesText.empty() || bytesText[0] == '-' ||
        !parseDecimal(bytesText, bytes) || bytes < 1 || bytes > 64)
      return fail("bad parameter '" + text + "': bad element size '" +
                  bytesText + "' (1 to 64 bytes)");
    param.elementBytes = int32_t(bytes);
    text.resize(star);
  }
  if (text[0] == 'i') {
    param.kind = KernelParam::Int;
    return paramNode("n" + text.substr(1), text, "an int parameter's node",
                     false, param.id);
  }
  param.kind = KernelParam::Buffer;
  size_t end = text.find_first_of(":/", 1);
  std::string bufferText =
      text.substr(1, end == std::string::npos ? std::string::npos : end - 1);
  int64_t value = 0;
  if (bufferText.empty() || bufferText[0] == '-' ||
      !parseDecimal(bufferText, value))
    return fail("bad parameter '" + text + "'" + forms);
  if (!checkIndex('b', "a buffer parameter's buffer", value,
                  int64_t(plan.buffers.size()), param.id))
    return false;
  if (end == std::string::npos)
    return true;
  if (text[end] == ':')
    return paramNode(text.substr(end + 1), text,
                     "a buffer parameter's size node", false, param.sizeNode);

  // The ranked form.
  size_t open = text.find('{', end);
  if (open == std::string::npos || text.back() != '}')
    return fail("bad parameter '" + text + "'" + forms);
  int64_t rank = 0;
  std::string rankText = text.substr(end + 1, open - end - 1);
  if (rankText.empty() || rankText[0] == '-' || !parseDecimal(rankText, rank) ||
      rank > 1024)
    return fail("bad parameter '" + text + "': bad rank '" + rankText + "'");
  param.rank = int32_t(rank);
  std::vector<std::string> parts(1);
  for (size_t i = open + 1; i + 1 < text.size(); ++i) {
    if (text[i] == ';')
      parts.emplace_back();
    else
      parts.back() += text[i];
  }
  if (parts.size() != 3)
    return fail("bad parameter '" + text +
                "': expected {<offset>;<sizes>;<strides>}");
  if (!paramNode(parts[0], text, "an offset node", true, param.offset))
    return false;
  for (int list = 1; list <= 2; ++list) {
    std::vector<int64_t> &nodes = list == 1 ? param.sizes : param.strides;
    const std::string &part = parts[list];
    size_t begin = 0;
    while (!part.empty() && begin <= part.size()) {
      size_t comma = part.find(',', begin);
      if (comma == std::string::npos)
        comma = part.size();
      int64_t node = 0;
      if (!paramNode(part.substr(begin, comma - begin), text,
                     list == 1 ? "a size node" : "a stride node", false, node))
        return false;
      nodes.push_back(node);
      begin = comma + 1;
    }
    if (int64_t(nodes.size()) != rank)
      return fail("bad parameter '" + text + "': rank " + num(rank) + " but " +
                  num(int64_t(nodes.size())) +
                  (list == 1 ? " sizes" : " strides"));
  }
  return true;
}

bool PlanParser::parseGemm() {
  PlanStep step;
  step.kind = PlanStep::Gemm;
  GemmStep &gemm = step.gemm;
  if (!dtype(gemm.dtype))
    return false;
  auto isFloat = [](int32_t dtype) {
    return dtype == TGC_DTYPE_F32 || dtype == TGC_DTYPE_F16 ||
           dtype == TGC_DTYPE_BF16 || dtype == TGC_DTYPE_F64;
  };
  if (!isFloat(gemm.dtype))
    return fail("a gemm's dtype must be f32, f16, bf16 or f64, got " +
                dtypeText(gemm.dtype));
  // `out <dtype>`: C and the bias in another type (f16 x f16 -> f32).
  if (!atEnd() && !tokens[pos].quoted && peek() == "out") {
    ++pos;
    if (!dtype(gemm.cDtype))
      return false;
    if (!isFloat(gemm.cDtype))
      return fail("a gemm's output dtype must be f32, f16, bf16 or f64, got " +
                  dtypeText(gemm.cDtype));
  }
  // `tf32`: an f32 product that may round its inputs to TF32.
  if (!atEnd() && !tokens[pos].quoted && peek() == "tf32") {
    ++pos;
    if (gemm.dtype != TGC_DTYPE_F32)
      return fail("a tf32 gemm's dtype must be f32, got " +
                  dtypeText(gemm.dtype));
    gemm.tf32 = true;
  }
  int64_t transA = 0, transB = 0;
  if (!keyword("m") || !nodeRef("the m node", false, gemm.m) || !keyword("n") ||
      !nodeRef("the n node", false, gemm.n) || !keyword("k") ||
      !nodeRef("the k node", false, gemm.k) || !keyword("batch") ||
      !nodeRef("the batch node", true, gemm.batch) || !keyword("transa") ||
      !integer("0 or 1", transA) || !keyword("transb") ||
      !integer("0 or 1", transB))
    return false;
  if ((transA != 0 && transA != 1) || (transB != 0 && transB != 1))
    return fail("transa and transb must be 0 or 1");
  gemm.transA = transA == 1;
  gemm.transB = transB == 1;
  if (!keyword("a") || !bufferRef("the a buffer", false, gemm.a) ||
      !keyword("b") || !bufferRef("the b buffer", false, gemm.b) ||
      !keyword("c") || !bufferRef("the c buffer", false, gemm.c) ||
      !keyword("bias") || !bufferRef("the bias buffer", true, gemm.bias))
    return false;
  // `residual bN`: added to the product before the epilogue (beta = 1).
  if (!atEnd() && !tokens[pos].quoted && peek() == "residual") {
    ++pos;
    if (!bufferRef("the residual buffer", false, gemm.residual))
      return false;
  }
  if (!keyword("epilogue"))
    return false;
  Token epilogue;
  if (!next("an epilogue", epilogue))
    return false;
  bool known = false;
  for (int32_t i = 0; i < kNumEpilogues; ++i)
    if (!epilogue.quoted && epilogue.text == kEpilogueNames[i]) {
      gemm.epilogue = GemmStep::Epilogue(i);
      known = true;
    }
  if (!known)
    return fail("unknown epilogue '" + epilogue.text +
                "' (none, bias, relu, bias_relu, gelu, bias_gelu)");
  if (epilogueHasBias(gemm.epilogue) != (gemm.bias >= 0))
    return fail(gemm.bias >= 0
                    ? "a bias buffer with an epilogue that adds no bias"
                    : "epilogue '" + epilogue.text + "' without a bias buffer");
  if (!keyword("strides") ||
      !nodeRef("the a stride node", true, gemm.strideA) ||
      !nodeRef("the b stride node", true, gemm.strideB) ||
      !nodeRef("the c stride node", true, gemm.strideC) || !expectEnd())
    return false;
  plan.steps.push_back(std::move(step));
  return true;
}

/// `conv f32 [tf32] [backward_data | backward_filter] x <param> w <param>
/// y <param> stride S S padding P P dilation D D groups G`; the params in
/// the ranked form, rank 4.
bool PlanParser::parseConv() {
  PlanStep step;
  step.kind = PlanStep::Conv;
  ConvStep &conv = step.conv;
  if (!dtype(conv.dtype))
    return false;
  if (conv.dtype != TGC_DTYPE_F32)
    return fail("a conv's dtype must be f32, got " + dtypeText(conv.dtype));
  if (pos < tokens.size() && !tokens[pos].quoted && tokens[pos].text == "tf32") {
    ++pos;
    conv.tf32 = true;
  }
  if (pos < tokens.size() && !tokens[pos].quoted) {
    if (tokens[pos].text == "backward_data")
      conv.kind = ConvStep::BackwardData;
    else if (tokens[pos].text == "backward_filter")
      conv.kind = ConvStep::BackwardFilter;
    if (conv.kind != ConvStep::Forward)
      ++pos;
  }
  const char *names[3] = {"x", "w", "y"};
  KernelParam *params[3] = {&conv.x, &conv.w, &conv.y};
  for (int i = 0; i < 3; ++i) {
    if (!keyword(names[i]))
      return false;
    Token token;
    if (!next("a ranked buffer parameter", token) ||
        !parseParam(token, *params[i]))
      return false;
    if (params[i]->kind != KernelParam::Buffer || params[i]->rank != 4)
      return fail(std::string("a conv's ") + names[i] +
                  " must be a rank-4 buffer parameter, got '" + token.text +
                  "'");
  }
  struct Pair {
    const char *name;
    int64_t *values;
    int64_t min;
  } pairs[3] = {{"stride", conv.stride, 1},
                {"padding", conv.padding, 0},
                {"dilation", conv.dilation, 1}};
  for (Pair &p : pairs) {
    if (!keyword(p.name))
      return false;
    for (int i = 0; i < 2; ++i) {
      if (!integer(p.name, p.values[i]))
        return false;
      if (p.values[i] < p.min || p.values[i] > INT32_MAX)
        return fail(std::string("a conv's ") + p.name + " must be in [" +
                    num(p.min) + ", 2^31), got " + num(p.values[i]));
    }
  }
  if (!keyword("groups") || !integer("the groups", conv.groups))
    return false;
  if (conv.groups < 1 || conv.groups > INT32_MAX)
    return fail("a conv's groups must be in [1, 2^31), got " +
                num(conv.groups));
  if (!expectEnd())
    return false;
  plan.steps.push_back(std::move(step));
  return true;
}

bool PlanParser::parseCopy() {
  PlanStep step;
  step.kind = PlanStep::Copy;
  if (!keyword("dst") || !bufferRef("the destination", false, step.copy.dst) ||
      !keyword("src") || !bufferRef("the source", false, step.copy.src) ||
      !keyword("bytes") || !nodeRef("the byte count", false, step.copy.bytes) ||
      !expectEnd())
    return false;
  plan.steps.push_back(std::move(step));
  return true;
}

bool PlanParser::parseCheck() {
  PlanStep step;
  step.kind = PlanStep::Check;
  if (!keyword("flag") || !bufferRef("the flag", false, step.check.flag) ||
      !keyword("when") || !nodeRef("the when node", true, step.check.when))
    return false;
  // `index`: an index range check (a device assert with device asserts on).
  if (!atEnd() && !tokens[pos].quoted && peek() == "index") {
    ++pos;
    step.check.index = true;
  }
  if (!string("the check's message", step.check.message) || !expectEnd())
    return false;
  plan.steps.push_back(std::move(step));
  return true;
}

bool PlanParser::parseMemset() {
  PlanStep step;
  step.kind = PlanStep::Memset;
  if (!keyword("dst") ||
      !bufferRef("the destination", false, step.memset.dst) ||
      !keyword("bytes") ||
      !nodeRef("the byte count", false, step.memset.bytes) || !keyword("value"))
    return false;
  Token value;
  if (!next("a 32-bit value", value))
    return false;
  const std::string &text = value.text;
  uint64_t pattern = 0;
  bool ok = !value.quoted && text.size() > 2 && text.size() <= 10 &&
            text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
  for (size_t i = 2; ok && i < text.size(); ++i) {
    int digit = hexDigit(text[i]);
    ok = digit >= 0;
    pattern = pattern * 16 + uint64_t(digit < 0 ? 0 : digit);
  }
  if (!ok)
    return fail("expected a 32-bit value in hex (0x0 .. 0xffffffff), got '" +
                text + "'");
  step.memset.value = uint32_t(pattern);
  if (!expectEnd())
    return false;
  plan.steps.push_back(std::move(step));
  return true;
}

} // namespace

bool tgc::runtime::parsePlan(const std::string &text, Plan &plan,
                             std::string &error) {
  Plan parsed;
  PlanParser parser(parsed);
  if (!parser.parse(text, error))
    return false;
  plan = std::move(parsed);
  return true;
}
