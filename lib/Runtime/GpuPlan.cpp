//===- GpuPlan.cpp - Launch plans: text, evaluation, guards, artifacts ----===//
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

#include "tgc/Runtime/Checksum.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <limits>
#include <utility>

using namespace tgc::runtime;

namespace {

//===----------------------------------------------------------------------===//
// Names
//===----------------------------------------------------------------------===//

const char *const kDtypeNames[] = {"f32", "f16", "bf16", "f64",
                                   "i64", "i32", "i8",   "i1"};
constexpr int32_t kNumDtypes = 8;

const char *const kDeviceNames[] = {"cpu", "cuda"};
constexpr int32_t kNumDevices = 2;

/// A dtype code as plan text: its name, or the number when unknown.
std::string dtypeText(int64_t dtype) {
  if (dtype >= 0 && dtype < kNumDtypes)
    return kDtypeNames[dtype];
  return std::to_string(dtype);
}

std::string deviceName(int64_t device) {
  if (device >= 0 && device < kNumDevices)
    return kDeviceNames[device];
  return std::to_string(device);
}

bool lookupDtype(const std::string &name, int32_t &dtype) {
  for (int32_t i = 0; i < kNumDtypes; ++i)
    if (name == kDtypeNames[i]) {
      dtype = i;
      return true;
    }
  return false;
}

bool lookupDevice(const std::string &name, int64_t &device) {
  for (int32_t i = 0; i < kNumDevices; ++i)
    if (name == kDeviceNames[i]) {
      device = i;
      return true;
    }
  return false;
}

struct KindName {
  ExprKind kind;
  const char *name;
};
const KindName kExprNames[] = {
    {ExprKind::Const, "const"},     {ExprKind::ArgDim, "argdim"},
    {ExprKind::Add, "add"},         {ExprKind::Sub, "sub"},
    {ExprKind::Mul, "mul"},         {ExprKind::FloorDiv, "floordiv"},
    {ExprKind::CeilDiv, "ceildiv"}, {ExprKind::Mod, "mod"},
    {ExprKind::Max, "max"},         {ExprKind::Min, "min"},
};

const char *exprName(ExprKind kind) {
  for (const KindName &entry : kExprNames)
    if (entry.kind == kind)
      return entry.name;
  return nullptr;
}

const char *const kEpilogueNames[] = {"none",      "bias", "relu",
                                      "bias_relu", "gelu", "bias_gelu"};
constexpr int32_t kNumEpilogues = 6;

bool epilogueHasBias(GemmStep::Epilogue epilogue) {
  return epilogue == GemmStep::Bias || epilogue == GemmStep::BiasRelu ||
         epilogue == GemmStep::BiasGelu;
}

//===----------------------------------------------------------------------===//
// Writing
//===----------------------------------------------------------------------===//

/// A name that needs no quotes: letters, digits and `_.$-`, not empty.
bool isBareWord(const std::string &text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '$' ||
           c == '-';
  });
}

std::string quote(const std::string &text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    switch (c) {
    case '"':
      out += "\\\"";
      break;
    case '\\':
      out += "\\\\";
      break;
    case '\n':
      out += "\\n";
      break;
    case '\t':
      out += "\\t";
      break;
    case '\r':
      out += "\\r";
      break;
    default:
      if (c < 0x20 || c == 0x7f) {
        char buffer[8];
        std::snprintf(buffer, sizeof(buffer), "\\x%02x", c);
        out += buffer;
      } else {
        out += static_cast<char>(c);
      }
    }
  }
  out += '"';
  return out;
}

std::string name(const std::string &text) {
  return isBareWord(text) ? text : quote(text);
}

std::string node(int64_t index) {
  return index < 0 ? "none" : "n" + std::to_string(index);
}

std::string num(int64_t value) { return std::to_string(value); }

//===----------------------------------------------------------------------===//
// Reading
//===----------------------------------------------------------------------===//

struct Token {
  std::string text;
  bool quoted = false;
};

int hexDigit(char c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

/// Splits a line at blanks; "..." is one token with C-like escapes.
bool tokenize(const std::string &line, std::vector<Token> &tokens,
              std::string &error) {
  tokens.clear();
  size_t i = 0, size = line.size();
  while (true) {
    while (i < size && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r'))
      ++i;
    if (i == size)
      return true;
    Token token;
    if (line[i] != '"') {
      size_t begin = i;
      while (i < size && line[i] != ' ' && line[i] != '\t' && line[i] != '\r')
        ++i;
      token.text = line.substr(begin, i - begin);
      if (token.text.find('"') != std::string::npos) {
        error = "stray quote in '" + token.text + "'";
        return false;
      }
      tokens.push_back(std::move(token));
      continue;
    }
    token.quoted = true;
    ++i;
    bool closed = false;
    while (i < size) {
      char c = line[i++];
      if (c == '"') {
        closed = true;
        break;
      }
      if (c != '\\') {
        token.text += c;
        continue;
      }
      if (i == size)
        break;
      char escape = line[i++];
      switch (escape) {
      case '"':
      case '\\':
        token.text += escape;
        break;
      case 'n':
        token.text += '\n';
        break;
      case 't':
        token.text += '\t';
        break;
      case 'r':
        token.text += '\r';
        break;
      case 'x': {
        int hi = i < size ? hexDigit(line[i]) : -1;
        int lo = i + 1 < size ? hexDigit(line[i + 1]) : -1;
        if (hi < 0 || lo < 0) {
          error = "bad \\x escape in a string";
          return false;
        }
        token.text += static_cast<char>(hi * 16 + lo);
        i += 2;
        break;
      }
      default:
        error = std::string("unknown escape '\\") + escape + "' in a string";
        return false;
      }
    }
    if (!closed) {
      error = "unterminated string";
      return false;
    }
    if (i < size && line[i] != ' ' && line[i] != '\t' && line[i] != '\r') {
      error = "expected a blank after a string";
      return false;
    }
    tokens.push_back(std::move(token));
  }
}

/// A decimal integer, optionally negative, that fits in int64.
bool parseDecimal(const std::string &text, int64_t &value) {
  size_t i = 0;
  bool negative = false;
  if (i < text.size() && text[i] == '-') {
    negative = true;
    ++i;
  }
  if (i == text.size())
    return false;
  uint64_t magnitude = 0;
  const uint64_t limit = negative
                             ? uint64_t(std::numeric_limits<int64_t>::max()) + 1
                             : uint64_t(std::numeric_limits<int64_t>::max());
  for (; i < text.size(); ++i) {
    char c = text[i];
    if (c < '0' || c > '9')
      return false;
    uint64_t digit = uint64_t(c - '0');
    if (magnitude > (limit - digit) / 10)
      return false;
    magnitude = magnitude * 10 + digit;
  }
  value = negative ? int64_t(0 - magnitude) : int64_t(magnitude);
  if (negative && magnitude == limit)
    value = std::numeric_limits<int64_t>::min();
  return true;
}

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
  } else {
    return fail("unknown guard kind '" + kindToken.text +
                "' (rank, dtype, device, contiguous, range, equal, "
                "divisible, aligned, no_alias)");
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
/// commas).
bool PlanParser::parseParam(const Token &token, KernelParam &param) {
  const std::string &text = token.text;
  const char *forms = " (i<node>, b<buffer>, b<buffer>:n<node> or "
                      "b<buffer>/<rank>{<offset>;<sizes>;<strides>})";
  if (token.quoted || text.size() < 2 || (text[0] != 'i' && text[0] != 'b'))
    return fail("bad parameter '" + text + "'" + forms);
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
      !keyword("bias") || !bufferRef("the bias buffer", true, gemm.bias) ||
      !keyword("epilogue"))
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
      !keyword("when") || !nodeRef("the when node", true, step.check.when) ||
      !string("the check's message", step.check.message) || !expectEnd())
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

void putU32(std::string &out, uint32_t value) {
  for (int i = 0; i < 4; ++i)
    out += char((value >> (8 * i)) & 0xff);
}

void putU64(std::string &out, uint64_t value) {
  for (int i = 0; i < 8; ++i)
    out += char((value >> (8 * i)) & 0xff);
}

uint32_t getU32(const std::string &in, size_t at) {
  uint32_t value = 0;
  for (int i = 0; i < 4; ++i)
    value |= uint32_t(uint8_t(in[at + i])) << (8 * i);
  return value;
}

uint64_t getU64(const std::string &in, size_t at) {
  uint64_t value = 0;
  for (int i = 0; i < 8; ++i)
    value |= uint64_t(uint8_t(in[at + i])) << (8 * i);
  return value;
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
    }
    if (guard.kind > GuardKind::NoAlias) // invalid: the parser rejects it
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
      for (const KernelParam &param : launch.params) {
        if (param.kind == KernelParam::Int) {
          text += " i" + num(param.id);
        } else if (param.rank < 0) {
          text += " b" + num(param.id);
          if (param.sizeNode >= 0)
            text += ":n" + num(param.sizeNode);
        } else {
          text += " b" + num(param.id) + "/" + num(param.rank) + "{" +
                  node(param.offset) + ";";
          for (size_t i = 0; i < param.sizes.size(); ++i)
            text += (i ? "," : "") + node(param.sizes[i]);
          text += ";";
          for (size_t i = 0; i < param.strides.size(); ++i)
            text += (i ? "," : "") + node(param.strides[i]);
          text += "}";
        }
      }
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
           (gemm.cDtype != -1 ? " out " + dtypeText(gemm.cDtype) : "") + " m " +
           node(gemm.m) + " n " + node(gemm.n) + " k " + node(gemm.k) +
           " batch " + node(gemm.batch) + " transa " +
           (gemm.transA ? "1" : "0") + " transb " + (gemm.transB ? "1" : "0") +
           " a " + buffer(gemm.a) + " b " + buffer(gemm.b) + " c " +
           buffer(gemm.c) + " bias " + buffer(gemm.bias) + " epilogue " +
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
           node(step.check.when) + " " + quote(step.check.message));
      break;
    }
    if (step.kind > PlanStep::Check) // invalid: the parser rejects it
      line("step " + num(int64_t(step.kind)));
  }
  return out;
}

bool tgc::runtime::parsePlan(const std::string &text, Plan &plan,
                             std::string &error) {
  Plan parsed;
  PlanParser parser(parsed);
  if (!parser.parse(text, error))
    return false;
  plan = std::move(parsed);
  return true;
}

//===----------------------------------------------------------------------===//
// Evaluation
//===----------------------------------------------------------------------===//

bool tgc::runtime::evaluatePlan(
    const Plan &plan, const std::vector<std::vector<int64_t>> &argSizes,
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
      if (expr.a < 0 || expr.a >= int64_t(argSizes.size()))
        return fail("argument " + num(expr.a) + " does not exist (" +
                    num(int64_t(argSizes.size())) + " arguments)");
      const std::vector<int64_t> &sizes = argSizes[expr.a];
      if (expr.b < 0 || expr.b >= int64_t(sizes.size()))
        return fail("argument " + num(expr.a) + " has " +
                    num(int64_t(sizes.size())) + " dims, no dim " +
                    num(expr.b));
      out = sizes[expr.b];
      continue;
    }
    if (expr.a < 0 || expr.a >= int64_t(i) || expr.b < 0 ||
        expr.b >= int64_t(i))
      return fail("operands n" + num(expr.a) + ", n" + num(expr.b) +
                  " are not earlier nodes");
    int64_t a = values[expr.a], b = values[expr.b];
    std::string operands = " (" + num(a) + ", " + num(b) + ")";
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
    return 1;
  }
  return 0;
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
    std::vector<std::vector<int64_t>> argSizes(numArgs);
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
      if (arg.rank > 0)
        argSizes[a].assign(arg.sizes, arg.sizes + arg.rank);
    }
    std::string evalError;
    if (!evaluatePlan(plan, argSizes, values, evalError)) {
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
    if (guard.kind > GuardKind::NoAlias) {
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
      std::string generated = "contiguous(" + argLabel(guard.arg) + ")";
      if (!argOk(guard)) {
        message = describe(index, guard, generated, "no such argument");
        return index;
      }
      const tgc_arg_desc &arg = args[guard.arg];
      if (arg.rank <= 0)
        break; // a scalar or a rank-0 tensor is contiguous
      if (!arg.sizes || !arg.strides) {
        message = describe(index, guard, generated, "no sizes or strides");
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
            describe(index, guard, generated, sizes + "], " + strides + "]");
        return index;
      }
      break;
    }
    case GuardKind::Aligned: {
      std::string generated =
          "aligned(" + argLabel(guard.arg) + ", " + num(guard.value) + ")";
      if (!argOk(guard) || guard.value <= 0) {
        message = describe(index, guard, generated,
                           argOk(guard) ? "bad alignment" : "no such argument");
        return index;
      }
      uint64_t address = uint64_t(uintptr_t(args[guard.arg].data));
      if (address % uint64_t(guard.value) != 0) {
        message = describe(index, guard, generated, "data = " + hex64(address));
        return index;
      }
      break;
    }
    case GuardKind::NoAlias: {
      std::string generated = "no_alias(" + argLabel(guard.arg) + ", " +
                              argLabel(int32_t(guard.value)) + ")";
      if (!argOk(guard) || guard.value < 0 || guard.value >= numArgs) {
        message = describe(index, guard, generated, "no such argument");
        return index;
      }
      auto a = argExtent(args[guard.arg]);
      auto b = argExtent(args[guard.value]);
      if (a.first < a.second && b.first < b.second && a.first < b.second &&
          b.first < a.second) {
        auto span = [](std::pair<uint64_t, uint64_t> e) {
          return "[" + hex64(e.first) + ", " + hex64(e.second) + ")";
        };
        message = describe(index, guard, generated,
                           argLabel(guard.arg) + " spans " + span(a) + ", " +
                               argLabel(int32_t(guard.value)) + " spans " +
                               span(b));
        return index;
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
      std::string lhsName = nodeLabel(plan, guard.lhs);
      if (guard.kind == GuardKind::Range) {
        if (lhs < guard.lo || (guard.hi >= 0 && lhs > guard.hi)) {
          std::string generated =
              guard.hi >= 0
                  ? num(guard.lo) + " <= " + lhsName + " <= " + num(guard.hi)
                  : lhsName + " >= " + num(guard.lo);
          message = describe(index, guard, generated, nodeValue(guard.lhs));
          return index;
        }
      } else if (guard.kind == GuardKind::Equal) {
        if (lhs != values[guard.rhs]) {
          message = describe(
              index, guard, lhsName + " == " + nodeLabel(plan, guard.rhs),
              nodeValue(guard.lhs) + ", " + nodeValue(guard.rhs));
          return index;
        }
      } else {
        if (guard.value <= 0 || floorMod(lhs, guard.value) != 0) {
          message = describe(index, guard,
                             lhsName + " % " + num(guard.value) + " == 0",
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
