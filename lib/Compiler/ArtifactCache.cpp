//===- ArtifactCache.cpp - compiled artifacts on disk, by content ---------===//

#include "tgc/Compiler/ArtifactCache.h"

#include "tgc/Runtime/Checksum.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/TargetParser/Host.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"

#include <algorithm>
#include <cstring>
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <sys/stat.h>
#include <utime.h>
#include <unistd.h>

using namespace mlir::tgc;

namespace {

constexpr char kMagic[8] = {'T', 'G', 'C', 'C', 'A', 'C', 'H', 'E'};
constexpr uint32_t kFormatVersion = 1;
constexpr size_t kHeaderBytes = 24; // magic, version, key size, payload size

using ::tgc::runtime::putU32;
using ::tgc::runtime::putU64;
uint64_t getU(llvm::StringRef bytes, size_t at, int n) {
  return ::tgc::runtime::getLE(bytes.data() + at, n);
}

} // namespace

//===----------------------------------------------------------------------===//
// Keys
//===----------------------------------------------------------------------===//

std::string mlir::tgc::cacheKey(llvm::ArrayRef<std::string> parts) {
  llvm::SHA256 hash;
  for (const std::string &part : parts) {
    std::string size;
    putU64(size, part.size());
    hash.update(size);
    hash.update(part);
  }
  std::array<uint8_t, 32> digest = hash.final();
  return llvm::toHex(digest, /*LowerCase=*/true);
}

namespace {

/// The GNU build ID (the linker's hash of the binary's contents) of the
/// loaded object that holds `address`, as hex; "" without one.
std::string buildIdOf(const void *address) {
  Dl_info info;
  if (!dladdr(address, &info) || !info.dli_fbase)
    return "";
  struct Search {
    const void *base;
    std::string id;
  } search{info.dli_fbase, ""};
  dl_iterate_phdr(
      [](struct dl_phdr_info *object, size_t, void *data) -> int {
        auto *s = static_cast<Search *>(data);
        // The object whose first loaded segment is at `base`.
        bool found = false;
        for (int i = 0; i < object->dlpi_phnum && !found; ++i)
          found = object->dlpi_phdr[i].p_type == PT_LOAD &&
                  reinterpret_cast<const char *>(object->dlpi_addr +
                                                 object->dlpi_phdr[i].p_vaddr -
                                                 object->dlpi_phdr[i].p_offset) ==
                      s->base;
        if (!found)
          return 0;
        for (int i = 0; i < object->dlpi_phnum; ++i) {
          const ElfW(Phdr) &header = object->dlpi_phdr[i];
          if (header.p_type != PT_NOTE)
            continue;
          const char *note =
              reinterpret_cast<const char *>(object->dlpi_addr + header.p_vaddr);
          const char *end = note + header.p_memsz;
          while (note + sizeof(ElfW(Nhdr)) <= end) {
            auto *n = reinterpret_cast<const ElfW(Nhdr) *>(note);
            const char *name = note + sizeof(ElfW(Nhdr));
            const char *desc = name + ((n->n_namesz + 3) & ~3u);
            if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 &&
                std::memcmp(name, "GNU", 4) == 0 && desc + n->n_descsz <= end) {
              s->id = llvm::toHex(
                  llvm::StringRef(desc, n->n_descsz), /*LowerCase=*/true);
              return 1;
            }
            note = desc + ((n->n_descsz + 3) & ~3u);
          }
        }
        return 1;
      },
      &search);
  return search.id;
}

} // namespace

const std::string &mlir::tgc::compilerFingerprint() {
  static const std::string fingerprint = []() -> std::string {
    // The binaries that make code: TGC's (libtgc_capi.so, or a tool that
    // links TGC statically), LLVM's and MLIR's (the same binary in a static
    // build, shared libraries in a development build). Their build IDs are
    // hashes of their contents: equal on every machine with the same
    // build, different after any rebuild. Without one the cache is off.
    std::string text = "tgc " TGC_VERSION_STRING " llvm " LLVM_VERSION_STRING;
    const void *objects[] = {
        reinterpret_cast<const void *>(&compilerFingerprint),
        reinterpret_cast<const void *>(&llvm::sys::getHostCPUName),
        reinterpret_cast<const void *>(&mlir::parseSourceString<mlir::ModuleOp>)};
    std::vector<std::string> ids;
    for (const void *object : objects) {
      std::string id = buildIdOf(object);
      if (id.empty())
        return "";
      if (llvm::find(ids, id) == ids.end())
        ids.push_back(id);
    }
    for (const std::string &id : ids)
      text += " " + id;
    return text;
  }();
  return fingerprint;
}

const std::string &mlir::tgc::hostCpuFingerprint() {
  static const std::string fingerprint = [] {
    std::string text = llvm::sys::getProcessTriple() + " " +
                       llvm::sys::getHostCPUName().str();
    llvm::StringMap<bool> features = llvm::sys::getHostCPUFeatures();
    std::vector<std::string> on;
    for (const auto &f : features)
      if (f.getValue())
        on.push_back(f.getKey().str());
    std::sort(on.begin(), on.end());
    for (const std::string &f : on)
      text += " +" + f;
    return text;
  }();
  return fingerprint;
}

//===----------------------------------------------------------------------===//
// Records
//===----------------------------------------------------------------------===//

void CacheRecord::set(llvm::StringRef name, llvm::StringRef bytes) {
  fields[name.str()] = bytes.str();
}
void CacheRecord::setInt(llvm::StringRef name, int64_t value) {
  fields[name.str()] = std::to_string(value);
}
void CacheRecord::setLines(llvm::StringRef name,
                           const std::vector<std::string> &lines) {
  std::string text;
  for (const std::string &line : lines)
    text += line + "\n";
  fields[name.str()] = text;
}
std::vector<std::string> CacheRecord::getLines(llvm::StringRef name) const {
  llvm::SmallVector<llvm::StringRef> parts;
  std::string text = get(name);
  llvm::StringRef(text).split(parts, '\n', -1, /*KeepEmpty=*/false);
  return std::vector<std::string>(parts.begin(), parts.end());
}
std::string CacheRecord::get(llvm::StringRef name) const {
  auto it = fields.find(name.str());
  return it == fields.end() ? std::string() : it->second;
}
int64_t CacheRecord::getInt(llvm::StringRef name) const {
  int64_t v = 0;
  return llvm::StringRef(get(name)).getAsInteger(10, v) ? 0 : v;
}

std::string CacheRecord::serialize() const {
  std::string out;
  putU32(out, uint32_t(fields.size()));
  for (const auto &[name, bytes] : fields) {
    putU32(out, uint32_t(name.size()));
    out += name;
    putU64(out, bytes.size());
    out += bytes;
  }
  return out;
}

bool CacheRecord::parse(llvm::StringRef bytes, CacheRecord &out,
                        std::string &error) {
  out.fields.clear();
  size_t at = 0;
  auto need = [&](uint64_t n) {
    if (n > bytes.size() - at) {
      error = "the payload is truncated";
      return false;
    }
    return true;
  };
  if (!need(4))
    return false;
  uint64_t count = getU(bytes, at, 4);
  at += 4;
  for (uint64_t i = 0; i < count; ++i) {
    if (!need(4))
      return false;
    uint64_t nameSize = getU(bytes, at, 4);
    at += 4;
    if (!need(nameSize))
      return false;
    std::string name = bytes.substr(at, nameSize).str();
    at += nameSize;
    if (!need(8))
      return false;
    uint64_t size = getU(bytes, at, 8);
    at += 8;
    if (!need(size))
      return false;
    out.fields[name] = bytes.substr(at, size).str();
    at += size;
  }
  if (at != bytes.size()) {
    error = "the payload has trailing bytes";
    return false;
  }
  return true;
}

//===----------------------------------------------------------------------===//
// Entries
//===----------------------------------------------------------------------===//

ArtifactCache::ArtifactCache(std::string dir, uint64_t maxBytes)
    : dir(std::move(dir)), maxBytes(maxBytes) {}

std::string ArtifactCache::pathOf(llvm::StringRef key) const {
  llvm::SmallString<256> path(dir);
  llvm::sys::path::append(path, key.take_front(2), key.str() + ".tgcc");
  return path.str().str();
}

std::string ArtifactCache::encode(llvm::StringRef key,
                                  llvm::StringRef payload) {
  std::string out(kMagic, sizeof(kMagic));
  putU32(out, kFormatVersion);
  putU32(out, uint32_t(key.size()));
  putU64(out, payload.size());
  out += key;
  out += payload;
  putU64(out, ::tgc::runtime::fnv1a64(out.data(), out.size()));
  return out;
}

bool ArtifactCache::decode(llvm::StringRef bytes, llvm::StringRef key,
                           std::string &payload, std::string &error,
                           std::string *storedKey) {
  if (bytes.size() < kHeaderBytes + 8 ||
      std::memcmp(bytes.data(), kMagic, sizeof(kMagic)) != 0) {
    error = bytes.size() < kHeaderBytes + 8 ? "truncated (" +
                                                  std::to_string(bytes.size()) +
                                                  " bytes)"
                                            : "not a TGC cache entry (bad magic)";
    return false;
  }
  uint64_t version = getU(bytes, 8, 4);
  if (version != kFormatVersion) {
    error = "cache format version " + std::to_string(version) +
            ", this TGC reads " + std::to_string(kFormatVersion);
    return false;
  }
  uint64_t keySize = getU(bytes, 12, 4), payloadSize = getU(bytes, 16, 8);
  uint64_t body = bytes.size() - kHeaderBytes - 8;
  if (keySize > body || payloadSize != body - keySize) {
    error = "truncated or extended: the header says " +
            std::to_string(keySize + payloadSize) + " bytes of key and "
            "payload, the file has " + std::to_string(body);
    return false;
  }
  uint64_t stored = getU(bytes, bytes.size() - 8, 8);
  uint64_t computed = ::tgc::runtime::fnv1a64(bytes.data(), bytes.size() - 8);
  if (stored != computed) {
    error = "checksum mismatch (corrupted)";
    return false;
  }
  llvm::StringRef entryKey = bytes.substr(kHeaderBytes, keySize);
  if (storedKey)
    *storedKey = entryKey.str();
  if (!key.empty() && entryKey != key) {
    error = "it holds the entry of another key (" + entryKey.str() + ")";
    return false;
  }
  payload = bytes.substr(kHeaderBytes + keySize, payloadSize).str();
  return true;
}

std::optional<std::string>
ArtifactCache::load(llvm::StringRef key, std::string &warning) const {
  std::string path = pathOf(key);
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer)
    return std::nullopt; // a miss
  std::string payload, error;
  if (!decode((*buffer)->getBuffer(), key, payload, error)) {
    warning = "ignored the cache entry " + path + ": " + error +
              "; compiling again";
    llvm::sys::fs::remove(path);
    return std::nullopt;
  }
  // Recently used: eviction keeps it.
  ::utime(path.c_str(), nullptr);
  return payload;
}

bool ArtifactCache::store(llvm::StringRef key, llvm::StringRef payload,
                          std::string &warning) const {
  std::string path = pathOf(key);
  llvm::StringRef folder = llvm::sys::path::parent_path(path);
  if (std::error_code ec = llvm::sys::fs::create_directories(folder)) {
    warning = "cannot create the cache folder " + folder.str() + ": " +
              ec.message();
    return false;
  }
  std::string bytes = encode(key, payload);
  // A new file of this writer's own (created exclusively): writers never
  // share a temporary file.
  int fd = -1;
  llvm::SmallString<256> temporaryPath;
  if (std::error_code ec = llvm::sys::fs::createUniqueFile(
          path + ".tmp-%%%%%%%%%%%%", fd, temporaryPath)) {
    warning = "cannot create a file in " + folder.str() + ": " + ec.message();
    return false;
  }
  std::string temporary = temporaryPath.str().str();
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << bytes;
    os.close();
    if (os.has_error()) {
      warning = "cannot write " + temporary + ": " + os.error().message();
      os.clear_error();
      llvm::sys::fs::remove(temporary);
      return false;
    }
  }
  if (std::error_code ec = llvm::sys::fs::rename(temporary, path)) {
    warning = "cannot rename " + temporary + " to " + path + ": " +
              ec.message();
    llvm::sys::fs::remove(temporary);
    return false;
  }
  evictTo(maxBytes, path);
  return true;
}

void ArtifactCache::evictTo(uint64_t bound, llvm::StringRef keep) const {
  struct Entry {
    std::string path;
    uint64_t bytes;
    std::chrono::system_clock::time_point time;
  };
  std::vector<Entry> entries;
  uint64_t total = 0;
  std::error_code ec;
  auto now = std::chrono::system_clock::now();
  for (llvm::sys::fs::recursive_directory_iterator it(dir, ec), end;
       it != end && !ec; it.increment(ec)) {
    llvm::StringRef name = llvm::sys::path::filename(it->path());
    llvm::sys::fs::file_status status;
    if (llvm::sys::fs::status(it->path(), status))
      continue;
    // A temporary file a writer left when it died, a day ago or more.
    if (name.contains(".tmp-") &&
        now - status.getLastModificationTime() > std::chrono::hours(24)) {
      llvm::sys::fs::remove(it->path());
      continue;
    }
    if (!name.ends_with(".tgcc") || it->path() == keep)
      continue;
    entries.push_back(
        {it->path(), status.getSize(), status.getLastModificationTime()});
    total += status.getSize();
  }
  llvm::sys::fs::file_status kept;
  if (!keep.empty() && !llvm::sys::fs::status(keep, kept))
    total += kept.getSize();
  if (total <= bound)
    return;
  std::stable_sort(
      entries.begin(), entries.end(),
      [](const Entry &a, const Entry &b) { return a.time < b.time; });
  for (const Entry &e : entries) {
    if (total <= bound)
      break;
    if (!llvm::sys::fs::remove(e.path))
      total -= e.bytes;
  }
}
