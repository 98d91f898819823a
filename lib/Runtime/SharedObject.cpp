//===- SharedObject.cpp - sealed CPU shared objects -----------------------===//
//
// The trailer (32 bytes, little-endian) at the end of the file:
//   "TGCSEAL1"   magic and version
//   u64          size of the ELF part (everything before the trailer)
//   u64          FNV-1a 64 of the ELF part
//   "TGCSEAL1"   magic again (a trailer is found from the end)
//
//===----------------------------------------------------------------------===//

#include "tgc/Runtime/SharedObject.h"

#include "tgc/Runtime/Checksum.h"
#include "tgc/Runtime/tgc_runtime.h"

#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <dlfcn.h>
#include <fstream>
#include <sstream>
#include <sys/mman.h>
#include <unistd.h>

using namespace tgc::runtime;

namespace {
constexpr char kMagic[8] = {'T', 'G', 'C', 'S', 'E', 'A', 'L', '1'};
constexpr size_t kTrailerBytes = 32;


std::string hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof(buf), "0x%016" PRIx64, v);
  return buf;
}
} // namespace

std::string tgc::runtime::sealSharedObject(const std::string &elf) {
  std::string out = elf;
  out.append(kMagic, sizeof(kMagic));
  putU64(out, elf.size());
  putU64(out, fnv1a64(elf.data(), elf.size()));
  out.append(kMagic, sizeof(kMagic));
  return out;
}

bool tgc::runtime::verifySharedObject(const std::string &bytes,
                                      size_t &elfSize, std::string &error) {
  if (bytes.size() < kTrailerBytes ||
      std::memcmp(bytes.data() + bytes.size() - 8, kMagic, 8) != 0) {
    error = "no TGC seal at the end of the file (not written by "
            "tgc-translate --tgc-to-shared-object, or truncated)";
    return false;
  }
  const char *trailer = bytes.data() + bytes.size() - kTrailerBytes;
  uint64_t size = getLE(trailer + 8, 8), stored = getLE(trailer + 16, 8);
  if (std::memcmp(trailer, kMagic, 8) != 0 ||
      size != bytes.size() - kTrailerBytes) {
    error = "the seal records an ELF part of " + std::to_string(size) +
            " bytes, the file has " +
            std::to_string(bytes.size() - kTrailerBytes) +
            " (truncated or extended)";
    return false;
  }
  uint64_t computed = fnv1a64(bytes.data(), size);
  if (computed != stored) {
    error = "checksum mismatch (stored " + hex(stored) + ", computed " +
            hex(computed) + "): the file is corrupted";
    return false;
  }
  if (size < 4 || std::memcmp(bytes.data(), "\x7f" "ELF", 4) != 0) {
    error = "the sealed part is not an ELF file";
    return false;
  }
  elfSize = size;
  return true;
}

//===----------------------------------------------------------------------===//
// C API
//===----------------------------------------------------------------------===//

struct tgc_shared_object {
  void *handle = nullptr;
  int fd = -1;
};

static thread_local std::string sharedObjectError;

tgc_shared_object *tgc_shared_object_open(const char *path) {
  sharedObjectError.clear();
  std::string where = path ? path : "(null)";
  std::ifstream file(where, std::ios::binary);
  if (!path || !file) {
    sharedObjectError = "cannot read '" + where + "'";
    return nullptr;
  }
  std::ostringstream contents;
  contents << file.rdbuf();
  std::string bytes = contents.str();
  size_t elfSize = 0;
  std::string error;
  if (!verifySharedObject(bytes, elfSize, error)) {
    sharedObjectError = "'" + where + "': " + error;
    return nullptr;
  }
  // The verified bytes are what is loaded: a file changed after the check
  // cannot slip in (an anonymous in-memory file, loaded by its fd path).
  int fd = memfd_create("tgc-shared-object", MFD_CLOEXEC);
  if (fd < 0) {
    sharedObjectError = "'" + where + "': memfd_create failed";
    return nullptr;
  }
  for (size_t written = 0; written < elfSize;) {
    ssize_t n = write(fd, bytes.data() + written, elfSize - written);
    if (n <= 0) {
      close(fd);
      sharedObjectError = "'" + where + "': cannot copy it for loading";
      return nullptr;
    }
    written += size_t(n);
  }
  std::string fdPath = "/proc/self/fd/" + std::to_string(fd);
  void *handle = dlopen(fdPath.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char *why = dlerror();
    close(fd);
    sharedObjectError = "'" + where + "': dlopen failed: " +
                        std::string(why ? why : "unknown error");
    return nullptr;
  }
  auto *object = new tgc_shared_object;
  object->handle = handle;
  object->fd = fd;
  return object;
}

void *tgc_shared_object_symbol(tgc_shared_object *object, const char *name) {
  sharedObjectError.clear();
  if (!object || !name) {
    sharedObjectError = "tgc_shared_object_symbol: invalid arguments";
    return nullptr;
  }
  void *symbol = dlsym(object->handle, name);
  if (!symbol)
    sharedObjectError = std::string("no symbol '") + name + "'";
  return symbol;
}

void tgc_shared_object_close(tgc_shared_object *object) {
  if (!object)
    return;
  dlclose(object->handle);
  close(object->fd);
  delete object;
}

const char *tgc_shared_object_last_error(void) {
  return sharedObjectError.c_str();
}
