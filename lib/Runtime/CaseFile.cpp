//===- CaseFile.cpp - One call of a compiled GPU function, on disk --------===//

#include "tgc/Runtime/CaseFile.h"

#include "tgc/Runtime/GpuPlan.h"

#include <cstring>

using namespace tgc::runtime;

namespace {

constexpr char kMagic[8] = {'T', 'G', 'C', 'C', 'A', 'S', 'E', '1'};
constexpr uint32_t kNoReference = 0xFFFFFFFFu;
constexpr int32_t kNoData = 0x100;

void put(std::string &out, const void *p, size_t n) {
  out.append(static_cast<const char *>(p), n);
}

void putTensor(std::string &out, const CaseTensor &t) {
  int32_t dtype = t.dtype | (t.hasData ? 0 : kNoData);
  int32_t rank = static_cast<int32_t>(t.sizes.size());
  put(out, &dtype, 4);
  put(out, &rank, 4);
  for (int64_t d : t.sizes)
    put(out, &d, 8);
  if (t.hasData)
    out += t.bytes;
}

struct Reader {
  const std::string &data;
  size_t pos = 0;
  std::string error;

  bool take(void *dst, size_t n) {
    if (pos + n > data.size()) {
      error = "truncated";
      return false;
    }
    std::memcpy(dst, data.data() + pos, n);
    pos += n;
    return true;
  }

  bool tensor(CaseTensor &t) {
    int32_t dtype = 0, rank = 0;
    if (!take(&dtype, 4) || !take(&rank, 4))
      return false;
    t.hasData = !(dtype & kNoData);
    t.dtype = dtype & ~kNoData;
    if (rank < 0 || rank > 16 || dtypeBytes(t.dtype) <= 0) {
      error = "a bad tensor header";
      return false;
    }
    uint64_t n = 1;
    for (int32_t i = 0; i < rank; ++i) {
      int64_t d;
      if (!take(&d, 8))
        return false;
      if (d < 0 || (d > 0 && n > (uint64_t(1) << 40) / uint64_t(d))) {
        error = "a bad size";
        return false;
      }
      t.sizes.push_back(d);
      n *= uint64_t(d);
    }
    if (!t.hasData)
      return true;
    size_t bytes = n * size_t(dtypeBytes(t.dtype));
    if (pos + bytes > data.size()) {
      error = "truncated";
      return false;
    }
    t.bytes = data.substr(pos, bytes);
    pos += bytes;
    return true;
  }

  bool tensors(uint32_t count, std::vector<CaseTensor> &out) {
    for (uint32_t i = 0; i < count; ++i) {
      out.emplace_back();
      if (!tensor(out.back()))
        return false;
    }
    return true;
  }
};

} // namespace

std::string tgc::runtime::writeCaseFile(const CaseFile &file) {
  std::string out(kMagic, sizeof(kMagic));
  uint32_t header[3] = {file.spec, static_cast<uint32_t>(file.args.size()),
                        file.reference
                            ? static_cast<uint32_t>(file.expected.size())
                            : kNoReference};
  put(out, header, sizeof(header));
  for (const CaseTensor &t : file.args)
    putTensor(out, t);
  if (file.reference) {
    for (const CaseTensor &t : file.expected)
      putTensor(out, t);
    for (const CaseTensor &t : file.expectedArgs)
      putTensor(out, t);
  }
  return out;
}

bool tgc::runtime::readCaseFile(const std::string &bytes, CaseFile &file,
                                std::string &error) {
  file = CaseFile();
  if (bytes.size() < sizeof(kMagic) ||
      std::memcmp(bytes.data(), kMagic, sizeof(kMagic)) != 0) {
    error = "not a TGC case file";
    return false;
  }
  Reader r{bytes, sizeof(kMagic), ""};
  uint32_t header[3];
  bool ok = r.take(header, sizeof(header));
  if (ok) {
    file.spec = header[0];
    file.reference = header[2] != kNoReference;
    ok = r.tensors(header[1], file.args) &&
         (!file.reference || (r.tensors(header[2], file.expected) &&
                              r.tensors(header[1], file.expectedArgs)));
  }
  if (ok && r.pos != bytes.size()) {
    r.error = "trailing bytes";
    ok = false;
  }
  if (!ok)
    error = r.error;
  return ok;
}
