//===- PlanTextLexer.cpp - the plan text's tokens -------------------------===//
//
// Splitting a line of the launch plan's text into words and quoted
// strings, and reading decimal integers: what GpuPlanParse.cpp's parser
// reads its lines with (declared in PlanText.h).
//
//===----------------------------------------------------------------------===//

#include "PlanText.h"

#include <limits>

using namespace tgc::runtime;
using namespace tgc::runtime::plan_text;

bool tgc::runtime::plan_text::tokenize(const std::string &line,
                                       std::vector<Token> &tokens,
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

bool tgc::runtime::plan_text::parseDecimal(const std::string &text,
                                           int64_t &value) {
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
