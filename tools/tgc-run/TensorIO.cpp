//===- TensorIO.cpp - tgc-run's inputs: .npy files and random data --------===//

#include "TensorIO.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <cstring>

using namespace mlir;
using namespace tgc_run;
using llvm::StringRef;

uint64_t tgc_run::tensorBytes(uint64_t elementBytes, ArrayRef<int64_t> shape) {
  uint64_t bytes = elementBytes;
  for (int64_t d : shape) {
    uint64_t n = static_cast<uint64_t>(d);
    bytes = (n != 0 && bytes > UINT64_MAX / n) ? UINT64_MAX : bytes * n;
  }
  return bytes;
}

//===----------------------------------------------------------------------===//
// .npy input
//===----------------------------------------------------------------------===//

std::optional<ref::DType> tgc_run::npyDType(StringRef descr) {
  descr = descr.drop_front(descr.size() && (descr[0] == '<' ||
                                            descr[0] == '|' ||
                                            descr[0] == '='));
  if (descr == "f4")
    return ref::DType::F32;
  if (descr == "f2")
    return ref::DType::F16;
  if (descr == "f8")
    return ref::DType::F64;
  if (descr == "i8")
    return ref::DType::I64;
  if (descr == "i4")
    return ref::DType::I32;
  if (descr == "i1")
    return ref::DType::I8;
  if (descr == "b1")
    return ref::DType::I1;
  return std::nullopt;
}

ref::HostTensor tgc_run::readNpy(StringRef path) {
  auto file = llvm::MemoryBuffer::getFile(path);
  if (!file)
    fail("cannot read input file '" + path + "': " +
         file.getError().message());
  StringRef data = (*file)->getBuffer();
  if (!data.starts_with("\x93NUMPY") || data.size() < 10)
    fail("'" + path + "' is not a .npy file");
  uint8_t major = data[6], minor = data[7];
  // Versions 1.0, 2.0 (4-byte header length) and 3.0 (UTF-8 header): the
  // ones numpy writes. Another version may mean another layout.
  if (major < 1 || major > 3 || minor != 0)
    fail("'" + path + "': .npy format version " + std::to_string(major) + "." +
         std::to_string(minor) + " is not supported (1.0, 2.0 and 3.0 are)");
  size_t headerLen, headerStart;
  if (major == 1) {
    headerLen = uint8_t(data[8]) | (uint8_t(data[9]) << 8);
    headerStart = 10;
  } else {
    if (data.size() < 12)
      fail("'" + path + "': truncated .npy header");
    headerLen = uint8_t(data[8]) | (uint8_t(data[9]) << 8) |
                (uint32_t(uint8_t(data[10])) << 16) |
                (uint32_t(uint8_t(data[11])) << 24);
    headerStart = 12;
  }
  if (headerStart + headerLen > data.size())
    fail("'" + path + "': truncated .npy header");
  StringRef header = data.substr(headerStart, headerLen);
  auto field = [&](StringRef key) -> StringRef {
    size_t k = header.find("'" + key.str() + "'");
    if (k == StringRef::npos)
      fail("'" + path + "': .npy header has no '" + key + "'");
    StringRef rest = header.substr(k + key.size() + 2).ltrim();
    rest = rest.drop_front(rest.starts_with(":")).ltrim();
    return rest;
  };
  StringRef descr = field("descr");
  descr = descr.drop_front().take_until([](char c) { return c == '\''; });
  std::optional<ref::DType> dtype = npyDType(descr);
  if (!dtype)
    fail("'" + path + "': unsupported .npy dtype '" + descr + "'");
  if (field("fortran_order").starts_with("True"))
    fail("'" + path + "': Fortran-ordered arrays are not supported");
  StringRef shapeText = field("shape");
  shapeText = shapeText.drop_front().take_until([](char c) { return c == ')'; });
  std::vector<int64_t> shape;
  SmallVector<StringRef> parts;
  shapeText.split(parts, ',');
  for (StringRef p : parts) {
    if (p.trim().empty())
      continue;
    int64_t d;
    if (p.trim().getAsInteger(10, d) || d < 0)
      fail("'" + path + "': bad .npy shape");
    shape.push_back(d);
  }
  // The header's sizes are checked against the data before anything is
  // allocated (a corrupt header must not ask for 10^14 elements).
  uint64_t expected = tensorBytes(ref::elementBytes(*dtype), shape);
  size_t offset = headerStart + headerLen;
  if (data.size() - offset != expected)
    fail("'" + path + "': expected " + llvm::Twine(expected) +
         " bytes of data, the file has " + llvm::Twine(data.size() - offset));
  ref::HostTensor t(*dtype, shape);
  std::memcpy(t.data(), data.data() + offset, t.byteSize());
  return t;
}

//===----------------------------------------------------------------------===//
// Inputs
//===----------------------------------------------------------------------===//

std::vector<ref::HostTensor> tgc_run::randomInputs(func::FuncOp f, const Shapes &shapes,
                                          std::mt19937_64 &rng) {
  std::vector<ref::HostTensor> args;
  for (unsigned i = 0; i < f.getNumArguments(); ++i) {
    auto type = cast<RankedTensorType>(f.getArgumentTypes()[i]);
    std::optional<ref::DType> dtype = ref::dtypeOf(type.getElementType());
    if (!dtype)
      fail("argument " + llvm::Twine(i) + " has an unsupported element type");
    double lo = -1, hi = 1;
    if (!isa<FloatType>(type.getElementType())) {
      lo = 0;
      hi = type.getElementType().isInteger(1) ? 2 : 10;
    }
    if (auto r = f.getArgAttrOfType<DenseF64ArrayAttr>(i, "tgc.input_range");
        r && r.size() == 2) {
      lo = r[0];
      hi = r[1];
    } else if (auto r =
                   f.getArgAttrOfType<DenseI64ArrayAttr>(i, "tgc.input_range");
               r && r.size() == 2) {
      lo = r[0];
      hi = r[1];
    }
    args.push_back(ref::HostTensor::random(*dtype, shapes[i], rng, lo, hi));
  }
  return args;
}

std::vector<ref::HostTensor> tgc_run::copyTensors(ArrayRef<ref::HostTensor> in) {
  std::vector<ref::HostTensor> out;
  for (const ref::HostTensor &t : in) {
    ref::HostTensor c(t.dtype(), t.shape());
    std::memcpy(c.data(), t.data(), t.byteSize());
    out.push_back(std::move(c));
  }
  return out;
}

std::optional<std::vector<int64_t>> tgc_run::parseDims(StringRef text) {
  std::vector<int64_t> dims;
  if (text.trim().empty())
    return dims; // rank 0
  SmallVector<StringRef> parts;
  text.split(parts, 'x');
  for (StringRef p : parts) {
    int64_t d;
    if (p.trim().getAsInteger(10, d) || d < 0)
      return std::nullopt;
    dims.push_back(d);
  }
  return dims;
}

std::string tgc_run::formatDims(ArrayRef<int64_t> dims) {
  std::string s;
  llvm::raw_string_ostream os(s);
  llvm::interleave(dims, os, [&](int64_t d) {
    if (ShapedType::isDynamic(d))
      os << "?";
    else
      os << d;
  }, "x");
  return s;
}

CheckResult tgc_run::checkAgainstReference(ArrayRef<ref::HostTensor> results,
                                  ArrayRef<ref::HostTensor> expected,
                                  ArrayRef<ref::HostTensor> runArgs,
                                  ArrayRef<ref::HostTensor> refArgs,
                                  size_t call, std::optional<double> rtolOpt,
                                  std::optional<double> atolOpt) {
  CheckResult out;
  auto check = [&](const ref::HostTensor &actual, const ref::HostTensor &want,
                   const std::string &what) {
    auto [rtol, atol] = ref::defaultTolerances(want.dtype());
    if (rtolOpt)
      rtol = *rtolOpt;
    if (atolOpt)
      atol = *atolOpt;
    ref::Comparison c = ref::compare(actual, want, rtol, atol);
    out.maxAbs = std::max(out.maxAbs, c.maxAbsErr);
    out.maxRel = std::max(out.maxRel, c.maxRelErr);
    if (!c.ok) {
      out.ok = false;
      llvm::errs() << "tgc-run: mismatch in " << what << " of call " << call
                   << ": " << c.message << "\n";
    }
  };
  if (results.size() != expected.size())
    fail("the compiled function returned " + std::to_string(results.size()) +
         " results, the reference " + std::to_string(expected.size()));
  for (size_t i = 0; i < results.size(); ++i)
    check(results[i], expected[i], "result " + std::to_string(i));
  for (size_t i = 0; i < runArgs.size(); ++i)
    check(runArgs[i], refArgs[i], "argument " + std::to_string(i));
  return out;
}

double tgc_run::median(std::vector<double> v) {
  if (v.empty())
    return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

::tgc::runtime::CaseTensor tgc_run::caseTensor(const ref::HostTensor &t,
                                               bool data) {
  ::tgc::runtime::CaseTensor c;
  c.dtype = static_cast<int32_t>(t.dtype());
  c.sizes.assign(t.shape().begin(), t.shape().end());
  c.hasData = data;
  if (data)
    c.bytes.assign(static_cast<const char *>(t.data()), t.byteSize());
  return c;
}

void tgc_run::summarize(llvm::raw_ostream &os, const ref::HostTensor &t) {
  os << "tensor<";
  for (int64_t d : t.shape())
    os << d << "x";
  os << ref::dtypeName(t.dtype()) << ">: ";
  if (t.numel() == 0) {
    os << "empty";
    return;
  }
  double lo = INFINITY, hi = -INFINITY, sum = 0;
  int64_t nans = 0;
  for (int64_t i = 0; i < t.numel(); ++i) {
    double v = t.getFloat(i);
    if (std::isnan(v)) {
      ++nans;
      continue;
    }
    lo = std::min(lo, v);
    hi = std::max(hi, v);
    sum += v;
  }
  if (nans == t.numel()) {
    os << "all NaN";
    return;
  }
  os << llvm::format("min %.6g, max %.6g, mean %.6g", lo, hi,
                     sum / static_cast<double>(t.numel() - nans));
  if (nans)
    os << ", " << nans << " NaN";
}
