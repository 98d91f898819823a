//===- GemmTuningCacheTest.cpp - cuBLASLt choices kept on disk ------------===//
//
// A choice recorded by one "process" is found by the next (the map is
// dropped by switching folders); damaged or torn lines are skipped, never
// used; without a folder nothing is kept.
//
//===----------------------------------------------------------------------===//

#include "GemmTuningCache.h"

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

TEST(GemmTuningCache, ChoicesSurviveTheProcess) {
  std::string dir = tempDir();
  const std::string device = "NVIDIA H100 80GB HBM3; cuBLASLt 130100";
  const std::vector<int64_t> shape = {64, 128, 256, 1, 0, -1, 0, 1, 1};
  setGemmTuningCacheDir(dir);
  EXPECT_EQ(lookupGemmTuning(device, shape), -1);
  recordGemmTuning(device, shape, 3);
  recordGemmTuning(device, {1, 2, 3}, 0);
  EXPECT_EQ(lookupGemmTuning(device, shape), 3);
  // Another process: the choices come from the file.
  setGemmTuningCacheDir("");
  EXPECT_EQ(lookupGemmTuning(device, shape), -1); // no folder, nothing kept
  setGemmTuningCacheDir(dir);
  EXPECT_EQ(lookupGemmTuning(device, shape), 3);
  EXPECT_EQ(lookupGemmTuning(device, {1, 2, 3}), 0);
  EXPECT_EQ(lookupGemmTuning("another GPU", shape), -1);

  // A damaged line and a torn one are skipped; the good ones stay.
  std::string file = gemmTuningFile(device);
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
  setGemmTuningCacheDir("");
  setGemmTuningCacheDir(dir);
  EXPECT_EQ(lookupGemmTuning(device, shape), 3);
  std::vector<int64_t> wrong = shape;
  wrong[0] = 94;
  EXPECT_EQ(lookupGemmTuning(device, wrong), -1);
  std::string cleanup = "rm -rf " + dir;
  EXPECT_EQ(std::system(cleanup.c_str()), 0);
  setGemmTuningCacheDir("");
}

} // namespace
