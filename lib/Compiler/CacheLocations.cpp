//===- CacheLocations.cpp - compile-cache keys without source lines -------===//
//
// See CacheLocations.h.
//
//===----------------------------------------------------------------------===//

#include "tgc/Compiler/CacheLocations.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir::tgc;
using llvm::StringRef;

namespace {

/// The end of the string literal that starts at `at` (the index past its
/// closing quote), or npos where it does not close.
size_t literalEnd(StringRef text, size_t at) {
  for (size_t i = at + 1; i < text.size(); ++i) {
    if (text[i] == '\\')
      ++i;
    else if (text[i] == '"')
      return i + 1;
  }
  return StringRef::npos;
}

/// The end of the digits that start at `at` (`at` where there are none).
size_t digitsEnd(StringRef text, size_t at) {
  while (at < text.size() && llvm::isDigit(text[at]))
    ++at;
  return at;
}

/// The end of `:line:col` at `at`, or npos.
size_t lineColEnd(StringRef text, size_t at) {
  if (at >= text.size() || text[at] != ':')
    return StringRef::npos;
  size_t line = digitsEnd(text, at + 1);
  if (line == at + 1 || line >= text.size() || text[line] != ':')
    return StringRef::npos;
  size_t col = digitsEnd(text, line + 1);
  return col == line + 1 ? StringRef::npos : col;
}

/// A string literal's content as MLIR's parser reads it (`\\`, `\"`, `\n`,
/// `\t` and `\XX` in hex).
std::string unescape(StringRef s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\\' || i + 1 == s.size()) {
      out += s[i];
      continue;
    }
    char c = s[++i];
    if (c == 'n')
      out += '\n';
    else if (c == 't')
      out += '\t';
    else if (i + 1 < s.size() && llvm::isHexDigit(c) &&
             llvm::isHexDigit(s[i + 1])) {
      out += static_cast<char>(llvm::hexFromNibbles(c, s[i + 1]));
      ++i;
    } else {
      out += c;
    }
  }
  return out;
}

struct Parsed {
  std::string escapedFile, file, line, col;
};

/// `"file":line:col` into its parts; none if it is not one.
std::optional<Parsed> parse(StringRef token) {
  if (token.empty() || token[0] != '"')
    return std::nullopt;
  size_t close = literalEnd(token, 0);
  if (close == StringRef::npos || lineColEnd(token, close) != token.size())
    return std::nullopt;
  Parsed p;
  p.file = unescape(token.slice(1, close - 1));
  // As MLIR prints it (text the compiler printed: the guard code), which
  // can differ from how the caller wrote it (raw UTF-8, `\n`).
  llvm::raw_string_ostream os(p.escapedFile);
  llvm::printEscapedString(p.file, os);
  StringRef rest = token.drop_front(close + 1);
  auto [line, col] = rest.split(':');
  p.line = line.str();
  p.col = col.str();
  return p;
}

} // namespace

NumberedLocations mlir::tgc::numberLocations(StringRef text) {
  NumberedLocations result;
  llvm::StringMap<size_t> numbers;
  std::string &out = result.text;
  out.reserve(text.size());
  size_t pos = 0;
  while (pos < text.size()) {
    size_t quote = text.find('"', pos);
    if (quote == StringRef::npos) {
      out.append(text.substr(pos));
      break;
    }
    out.append(text.slice(pos, quote));
    size_t close = literalEnd(text, quote);
    if (close == StringRef::npos) {
      out.append(text.substr(quote));
      break;
    }
    size_t end = lineColEnd(text, close);
    if (end == StringRef::npos) {
      out.append(text.slice(quote, close));
      pos = close;
      continue;
    }
    StringRef token = text.slice(quote, end);
    auto [it, inserted] = numbers.try_emplace(token, result.locations.size());
    if (inserted)
      result.locations.push_back(token.str());
    out += "@" + std::to_string(it->second);
    pos = end;
  }
  return result;
}

std::optional<Relocation>
mlir::tgc::Relocation::between(llvm::ArrayRef<std::string> from,
                               llvm::ArrayRef<std::string> to) {
  if (from.size() != to.size())
    return std::nullopt;
  Relocation r;
  bool identity = true;
  for (size_t i = 0; i < from.size(); ++i) {
    std::optional<Parsed> a = parse(from[i]), b = parse(to[i]);
    if (!a || !b)
      return std::nullopt;
    identity = identity && from[i] == to[i];
    for (bool escaped : {false, true}) {
      const std::string &file = escaped ? a->escapedFile : a->file;
      if (escaped && file == a->file)
        continue;
      auto [it, inserted] = r.lines.try_emplace({file, a->line});
      Target &t = it->second;
      if (inserted) {
        t.file = b->file;
        t.escapedFile = b->escapedFile;
        t.line = b->line;
        if (llvm::find(r.needles, std::make_pair(file, escaped)) ==
            r.needles.end())
          r.needles.push_back({file, escaped});
      } else if (t.file != b->file || t.line != b->line) {
        // One line of `from` would go to two: text without columns could
        // not say which.
        return std::nullopt;
      }
      t.columns.push_back({a->col, b->col});
    }
  }
  if (identity) {
    r.lines.clear();
    r.needles.clear();
  }
  return r;
}

std::string mlir::tgc::Relocation::apply(StringRef text) const {
  if (lines.empty())
    return text.str();
  std::string out;
  out.reserve(text.size());
  // The next occurrence of each needle at or after `pos`.
  std::vector<size_t> next(needles.size(), 0);
  bool started = false;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t best = StringRef::npos, which = 0;
    for (size_t k = 0; k < needles.size(); ++k) {
      if (!started || (next[k] != StringRef::npos && next[k] < pos))
        next[k] = text.find(needles[k].first, pos);
      // The earliest; of two at one place, the longer (a path that ends
      // with another).
      if (next[k] < best ||
          (next[k] == best && next[k] != StringRef::npos &&
           needles[k].first.size() > needles[which].first.size())) {
        best = next[k];
        which = k;
      }
    }
    started = true;
    if (best == StringRef::npos)
      break;
    const auto &[needle, escaped] = needles[which];
    size_t at = best + needle.size();
    // A file name starts where a name cannot go on (`net.py` is not the
    // end of `/other/net.py`).
    auto continuesName = [](char ch) {
      return llvm::isAlnum(ch) || StringRef("/._-~\\").contains(ch);
    };
    bool boundary = best == 0 || !continuesName(text[best - 1]);
    bool quoted = at < text.size() && text[at] == '"';
    size_t colon = quoted ? at + 1 : at;
    size_t lineEnd = colon < text.size() && text[colon] == ':'
                         ? digitsEnd(text, colon + 1)
                         : colon;
    auto target =
        boundary && lineEnd > colon + 1 && colon < text.size()
            ? lines.find({needle, text.slice(colon + 1, lineEnd).str()})
            : lines.end();
    if (target == lines.end()) {
      out.append(text.slice(pos, best + 1));
      pos = best + 1;
      continue;
    }
    const Target &t = target->second;
    out.append(text.slice(pos, best));
    out += escaped ? t.escapedFile : t.file;
    if (quoted)
      out += '"';
    out += ':';
    out += t.line;
    pos = lineEnd;
    // The column, where it is one of the location's.
    if (pos < text.size() && text[pos] == ':') {
      size_t colEnd = digitsEnd(text, pos + 1);
      StringRef col = text.slice(pos + 1, colEnd);
      for (const auto &[before, after] : t.columns)
        if (colEnd > pos + 1 && col == before) {
          out += ':' + after;
          pos = colEnd;
          break;
        }
    }
  }
  if (pos < text.size())
    out.append(text.substr(pos));
  return out;
}
