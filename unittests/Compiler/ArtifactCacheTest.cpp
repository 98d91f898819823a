//===- ArtifactCacheTest.cpp - the compile cache's entries and records ----===//
//
// Entries round-trip and every damage is caught (decode); stores are atomic
// and bounded (store, evictTo); records round-trip; keys separate their
// parts. The Python tests (python/test/test_cache.py) cover the same across
// processes.
//
//===----------------------------------------------------------------------===//

#include "tgc/Compiler/ArtifactCache.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <string>

#include <utime.h>

using namespace mlir::tgc;

namespace {

const std::string kKey(64, 'a');

std::string readFile(const std::string &path) {
  auto buffer = llvm::MemoryBuffer::getFile(path);
  return buffer ? (*buffer)->getBuffer().str() : std::string();
}

void writeFile(const std::string &path, const std::string &bytes) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  ASSERT_FALSE(ec) << ec.message();
  os << bytes;
}

struct TempDir {
  llvm::SmallString<128> path;
  TempDir() { EXPECT_FALSE(llvm::sys::fs::createUniqueDirectory("tgc-cache", path)); }
  ~TempDir() { llvm::sys::fs::remove_directories(path); }
};

TEST(ArtifactCache, EntriesRoundTripAndDamageIsCaught) {
  std::string payload = "the payload \0 with a NUL";
  std::string bytes = ArtifactCache::encode(kKey, payload);
  std::string out, error;
  ASSERT_TRUE(ArtifactCache::decode(bytes, kKey, out, error)) << error;
  EXPECT_EQ(out, payload);

  auto rejects = [&](std::string damaged, llvm::StringRef key,
                     llvm::StringRef why) {
    error.clear();
    EXPECT_FALSE(ArtifactCache::decode(damaged, key, out, error));
    EXPECT_NE(error.find(why.str()), std::string::npos) << error;
  };
  std::string flipped = bytes;
  flipped[30] ^= 1;
  rejects(flipped, kKey, "checksum mismatch");
  rejects(bytes.substr(0, bytes.size() - 1), kKey, "truncated");
  rejects(bytes.substr(0, 10), kKey, "truncated");
  rejects(bytes + "x", kKey, "truncated or extended");
  std::string magic = bytes;
  magic[0] = 'X';
  rejects(magic, kKey, "bad magic");
  std::string version = bytes;
  version[8] = 7;
  rejects(version, kKey, "cache format version 7");
  rejects(bytes, std::string(64, 'b'), "another key");
  // Any key: the stored one is returned.
  std::string stored;
  ASSERT_TRUE(ArtifactCache::decode(bytes, "", out, error, &stored));
  EXPECT_EQ(stored, kKey);
}

TEST(ArtifactCache, StoreLoadAndRejectOnDisk) {
  TempDir dir;
  ArtifactCache cache(dir.path.str().str(), 1 << 20);
  std::string warning;
  EXPECT_FALSE(cache.load(kKey, warning).has_value()); // a miss
  EXPECT_TRUE(warning.empty());
  ASSERT_TRUE(cache.store(kKey, "compiled code", warning)) << warning;
  std::optional<std::string> got = cache.load(kKey, warning);
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(*got, "compiled code");
  // A damaged entry: rejected with a warning and removed.
  std::string path = cache.pathOf(kKey);
  std::string bytes = readFile(path);
  bytes[bytes.size() / 2] ^= 0x40;
  writeFile(path, bytes);
  EXPECT_FALSE(cache.load(kKey, warning).has_value());
  EXPECT_NE(warning.find("checksum mismatch"), std::string::npos) << warning;
  EXPECT_FALSE(llvm::sys::fs::exists(path));
  // No temporary file is left behind by a store.
  ASSERT_TRUE(cache.store(kKey, "again", warning));
  std::error_code ec;
  int files = 0;
  for (llvm::sys::fs::recursive_directory_iterator it(dir.path, ec), end;
       it != end && !ec; it.increment(ec))
    files += it->type() == llvm::sys::fs::file_type::regular_file;
  EXPECT_EQ(files, 1);
}

TEST(ArtifactCache, TheBoundEvictsTheOldest) {
  TempDir dir;
  ArtifactCache roomy(dir.path.str().str(), 1 << 20);
  std::string warning;
  std::string big(1000, 'z');
  // Three entries of about 1 KB, the first the least recently used.
  for (char c : {'1', '2', '3'}) {
    std::string key(64, c);
    ASSERT_TRUE(roomy.store(key, big, warning)) << warning;
    struct utimbuf times = {1000000000 + (c - '0') * 100,
                            1000000000 + (c - '0') * 100};
    ASSERT_EQ(::utime(roomy.pathOf(key).c_str(), &times), 0);
  }
  // A fourth does not fit in 3500 bytes: the first goes.
  ArtifactCache tight(dir.path.str().str(), 3500);
  ASSERT_TRUE(tight.store(std::string(64, '4'), big, warning)) << warning;
  EXPECT_FALSE(llvm::sys::fs::exists(tight.pathOf(std::string(64, '1'))));
  for (char c : {'2', '3', '4'})
    EXPECT_TRUE(llvm::sys::fs::exists(tight.pathOf(std::string(64, c)))) << c;
  tight.evictTo(0);
  EXPECT_FALSE(tight.load(std::string(64, '4'), warning).has_value());
}

TEST(ArtifactCache, RecordsRoundTripAndRejectMalformedBytes) {
  CacheRecord record;
  record.set("object", std::string("\x7f" "ELF\0\1", 6));
  record.setInt("kernels", -3);
  record.set("empty", "");
  CacheRecord back;
  std::string error;
  ASSERT_TRUE(CacheRecord::parse(record.serialize(), back, error)) << error;
  EXPECT_EQ(back.get("object"), std::string("\x7f" "ELF\0\1", 6));
  EXPECT_EQ(back.getInt("kernels"), -3);
  EXPECT_TRUE(back.has("empty"));
  EXPECT_FALSE(back.has("missing"));
  std::string bytes = record.serialize();
  EXPECT_FALSE(CacheRecord::parse(bytes.substr(0, bytes.size() - 2), back,
                                  error));
  EXPECT_FALSE(CacheRecord::parse(bytes + "!", back, error));
}

TEST(ArtifactCache, KeysSeparateTheirParts) {
  EXPECT_NE(cacheKey({"ab", "c"}), cacheKey({"a", "bc"}));
  EXPECT_EQ(cacheKey({"ab", "c"}), cacheKey({"ab", "c"}));
  EXPECT_EQ(cacheKey({}).size(), 64u);
  EXPECT_NE(compilerFingerprint().find("tgc "), std::string::npos);
  EXPECT_FALSE(hostCpuFingerprint().empty());
}

} // namespace
