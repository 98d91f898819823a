//===- TuningCacheTest.cpp - library choices kept on disk -----------------===//
//
// A choice recorded by one "process" is found by the next (the map is
// dropped by switching folders); damaged or torn lines are skipped, never
// used; without a folder nothing is kept; each library (kind) has its own
// choices.
//
//===----------------------------------------------------------------------===//

#include "TuningCache.h"

#include "gtest/gtest.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <unistd.h>

using namespace tgc::runtime;

namespace {

std::string tempDir() {
  char pattern[] = "/tmp/tgc-tuning-XXXXXX";
  const char *dir = mkdtemp(pattern);
  EXPECT_NE(dir, nullptr);
  return dir ? dir : "";
}

TEST(TuningCache, ChoicesSurviveTheProcess) {
  std::string dir = tempDir();
  const std::string device = "NVIDIA H100 80GB HBM3; cuBLASLt 130100";
  const std::vector<int64_t> shape = {64, 128, 256, 1, 0, -1, 0, 1, 1};
  setTuningCacheDir(dir);
  EXPECT_EQ(lookupTuning("gemm", device, shape), -1);
  recordTuning("gemm", device, shape, 3);
  recordTuning("gemm", device, {1, 2, 3}, 0);
  EXPECT_EQ(lookupTuning("gemm", device, shape), 3);
  // Another process: the choices come from the file.
  setTuningCacheDir("");
  EXPECT_EQ(lookupTuning("gemm", device, shape), -1); // no folder, nothing kept
  setTuningCacheDir(dir);
  EXPECT_EQ(lookupTuning("gemm", device, shape), 3);
  EXPECT_EQ(lookupTuning("gemm", device, {1, 2, 3}), 0);
  EXPECT_EQ(lookupTuning("gemm", "another GPU", shape), -1);
  // Another library's choice for the same numbers is its own.
  EXPECT_EQ(lookupTuning("cudnn", device, shape), -1);
  recordTuning("cudnn", device, shape, 5);
  EXPECT_EQ(lookupTuning("cudnn", device, shape), 5);
  EXPECT_EQ(lookupTuning("gemm", device, shape), 3);
  EXPECT_NE(tuningFile("cudnn", device), tuningFile("gemm", device));

  // A damaged line and a torn one are skipped; the good ones stay.
  std::string file = tuningFile("gemm", device);
  std::string text;
  {
    std::ifstream in(file);
    std::getline(in, text); // the first line: "64,128,... 3 <checksum>"
  }
  std::string damaged = text;
  damaged[0] = '9';
  {
    std::ofstream out(file, std::ios::app);
    out << damaged << "\n" << text.substr(0, text.size() / 2);
  }
  setTuningCacheDir("");
  setTuningCacheDir(dir);
  EXPECT_EQ(lookupTuning("gemm", device, shape), 3);
  std::vector<int64_t> wrong = shape;
  wrong[0] = 94;
  EXPECT_EQ(lookupTuning("gemm", device, wrong), -1);
  std::string cleanup = "rm -rf " + dir;
  EXPECT_EQ(std::system(cleanup.c_str()), 0);
  setTuningCacheDir("");
}

} // namespace
