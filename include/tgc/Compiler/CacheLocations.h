//===- CacheLocations.h - compile-cache keys without source lines -*- C++
//-*-===//
//
// The compile cache's key must not change when only the model's source
// lines move (an edit above the model, the same model compiled from
// another line): the compiled code is the same. But the code does hold
// those lines, in its messages (a data check's "at model.py:12", a
// guard's origin) and in what it reports (the kernel map, the loop text).
//
// So the key is taken over the module text with each source location
// (`"file":line:col`, as MLIR prints a FileLineColLoc) replaced by its
// number in order of first appearance, and an entry keeps the locations it
// was compiled with. A hit whose locations differ rewrites the entry's text
// (and, on the CPU, each message the compiled code reports) from the
// stored locations to the caller's, location by location
// (docs/compile-cache.md, "Keys and source lines").
//
//===----------------------------------------------------------------------===//

#ifndef TGC_COMPILER_CACHELOCATIONS_H
#define TGC_COMPILER_CACHELOCATIONS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace mlir::tgc {

/// A module text with its source locations numbered.
struct NumberedLocations {
  /// The text, each `"file":line:col` replaced by `@N`: its number among
  /// the distinct locations in order of first appearance.
  std::string text;
  /// The distinct locations, as printed (`"model.py":12:0`), by number.
  std::vector<std::string> locations;
};

/// Numbers the locations of `moduleText` (any `"..."` string literal
/// followed by `:line:col`; other literals are copied as they are).
NumberedLocations numberLocations(llvm::StringRef moduleText);

/// Rewrites text made for one list of locations into the text for another
/// of the same numbering: every `file:line` (also `"file":line`, and
/// `:col` after it where the column was the location's) of a location of
/// the first list becomes the same-numbered location of the second, in
/// one pass (two lines that swap places swap in the text).
class Relocation {
public:
  /// The rewrite from `from` to `to` (lists of numberLocations, the same
  /// length). None when it cannot be told apart: two locations on one line
  /// of `from` that go to two different lines, or lists of two lengths.
  static std::optional<Relocation> between(llvm::ArrayRef<std::string> from,
                                           llvm::ArrayRef<std::string> to);

  /// Whether it changes nothing (the same locations).
  bool isIdentity() const { return lines.empty(); }

  std::string apply(llvm::StringRef text) const;
  void applyInPlace(std::string &text) const { text = apply(text); }

private:
  struct Target {
    std::string file, escapedFile;
    std::string line;
    /// Old column to new one.
    std::vector<std::pair<std::string, std::string>> columns;
  };
  /// (old file as printed or unescaped, old line) -> where it goes; the
  /// escaped form of a file is a key as well as its plain form.
  std::map<std::pair<std::string, std::string>, Target> lines;
  /// Old file names, each with whether it is the escaped form.
  std::vector<std::pair<std::string, bool>> needles;
};

} // namespace mlir::tgc

#endif // TGC_COMPILER_CACHELOCATIONS_H
