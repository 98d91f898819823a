//===- PlanText.h - names and spellings of the plan text (private) -*- C++ -*-===//
//
// What writing and reading the plan's text share: the names of dtypes,
// devices, expression kinds and GEMM epilogues, and how words, strings and
// node references are spelled. Private to lib/Runtime (GpuPlan.cpp,
// GpuPlanParse.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef TGC_LIB_RUNTIME_PLANTEXT_H
#define TGC_LIB_RUNTIME_PLANTEXT_H

#include "tgc/Runtime/GpuPlan.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace tgc::runtime::plan_text {

//===----------------------------------------------------------------------===//
// Tokens (PlanTextLexer.cpp)
//===----------------------------------------------------------------------===//

/// A word, or a "..." string with its escapes resolved.
struct Token {
  std::string text;
  bool quoted = false;
};

/// The value of a hexadecimal digit, or -1.
inline int hexDigit(char c) {
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
              std::string &error);

/// A decimal integer, optionally negative, that fits in int64.
bool parseDecimal(const std::string &text, int64_t &value);

//===----------------------------------------------------------------------===//
// Names
//===----------------------------------------------------------------------===//

inline const char *const kDtypeNames[] = {"f32", "f16", "bf16", "f64",
                                   "i64", "i32", "i8",   "i1",
                                   "u8"};
constexpr int32_t kNumDtypes = 9;

inline const char *const kDeviceNames[] = {"cpu", "cuda"};
constexpr int32_t kNumDevices = 2;

/// A dtype code as plan text: its name, or the number when unknown.
inline std::string dtypeText(int64_t dtype) {
  if (dtype >= 0 && dtype < kNumDtypes)
    return kDtypeNames[dtype];
  return std::to_string(dtype);
}

inline std::string deviceName(int64_t device) {
  if (device >= 0 && device < kNumDevices)
    return kDeviceNames[device];
  return std::to_string(device);
}

inline bool lookupDtype(const std::string &name, int32_t &dtype) {
  for (int32_t i = 0; i < kNumDtypes; ++i)
    if (name == kDtypeNames[i]) {
      dtype = i;
      return true;
    }
  return false;
}

inline bool lookupDevice(const std::string &name, int64_t &device) {
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
inline const KindName kExprNames[] = {
    {ExprKind::Const, "const"},     {ExprKind::ArgDim, "argdim"},
    {ExprKind::Add, "add"},         {ExprKind::Sub, "sub"},
    {ExprKind::Mul, "mul"},         {ExprKind::FloorDiv, "floordiv"},
    {ExprKind::CeilDiv, "ceildiv"}, {ExprKind::Mod, "mod"},
    {ExprKind::Max, "max"},         {ExprKind::Min, "min"},
};

inline const char *exprName(ExprKind kind) {
  for (const KindName &entry : kExprNames)
    if (entry.kind == kind)
      return entry.name;
  return nullptr;
}

inline const char *const kEpilogueNames[] = {"none",      "bias", "relu",
                                      "bias_relu", "gelu", "bias_gelu"};
constexpr int32_t kNumEpilogues = 6;

inline bool epilogueHasBias(GemmStep::Epilogue epilogue) {
  return epilogue == GemmStep::Bias || epilogue == GemmStep::BiasRelu ||
         epilogue == GemmStep::BiasGelu;
}

//===----------------------------------------------------------------------===//
// Writing
//===----------------------------------------------------------------------===//

/// A name that needs no quotes: letters, digits and `_.$-`, not empty.
inline bool isBareWord(const std::string &text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '$' ||
           c == '-';
  });
}

inline std::string quote(const std::string &text) {
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

inline std::string name(const std::string &text) {
  return isBareWord(text) ? text : quote(text);
}

inline std::string node(int64_t index) {
  return index < 0 ? "none" : "n" + std::to_string(index);
}

inline std::string num(int64_t value) { return std::to_string(value); }

} // namespace tgc::runtime::plan_text

#endif // TGC_LIB_RUNTIME_PLANTEXT_H
