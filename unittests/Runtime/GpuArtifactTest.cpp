//===- GpuArtifactTest.cpp - artifacts and the executor without a GPU -----===//
//
// The artifact format (round trip, every header and section error, flipped
// bytes, truncation, fuzzing) and the executor on a machine without a
// device. Helpers in GpuPlanTestUtils.h.
//
//===----------------------------------------------------------------------===//

#include "GpuPlanTestUtils.h"

using namespace gpu_plan_test;

namespace {

//===----------------------------------------------------------------------===//
// Artifacts
//===----------------------------------------------------------------------===//

TEST(GpuArtifact, RoundTrip) {
  GpuArtifact artifact = sampleArtifact();
  std::string bytes = writeGpuArtifact(artifact);
  ASSERT_GE(bytes.size(), 24u);
  EXPECT_EQ(bytes.substr(0, 8), std::string("TGCGPUA\0", 8));
  EXPECT_EQ(uint8_t(bytes[8]), kGpuArtifactVersion);

  GpuArtifact read;
  std::string error;
  ASSERT_TRUE(readGpuArtifact(bytes, read, error)) << error;
  EXPECT_EQ(serializePlan(read.plan), serializePlan(artifact.plan));
  EXPECT_EQ(read.module, artifact.module);
  EXPECT_FALSE(read.isPtx);
  EXPECT_EQ(read.chip, "sm_90a");
  EXPECT_EQ(read.metadata, artifact.metadata);

  artifact.isPtx = true;
  artifact.module = ".version 8.0\n.target sm_90\n";
  ASSERT_TRUE(readGpuArtifact(writeGpuArtifact(artifact), read, error))
      << error;
  EXPECT_TRUE(read.isPtx);
  EXPECT_EQ(read.module, artifact.module);
}

TEST(GpuArtifact, HeaderErrors) {
  std::string bytes = writeGpuArtifact(sampleArtifact());
  GpuArtifact read;
  std::string error;

  std::string other = bytes;
  other[8] = 1; // before kernel parameters said their element size
  EXPECT_FALSE(readGpuArtifact(other, read, error));
  EXPECT_NE(error.find("artifact format version 1, this runtime reads 2"),
            std::string::npos)
      << error;

  other = bytes;
  other[0] = 'X';
  EXPECT_FALSE(readGpuArtifact(other, read, error));
  EXPECT_NE(error.find("bad magic"), std::string::npos) << error;

  EXPECT_FALSE(readGpuArtifact("", read, error));
  EXPECT_NE(error.find("bad magic"), std::string::npos) << error;

  other = bytes;
  other[bytes.size() - 3] ^= 0x40;
  EXPECT_FALSE(readGpuArtifact(other, read, error));
  EXPECT_NE(error.find("checksum mismatch"), std::string::npos) << error;
}

TEST(GpuArtifact, SectionErrors) {
  std::string plan = serializePlan(parseOrDie(kFullPlan));
  GpuArtifact read;
  std::string error;
  auto reject = [&](const std::string &bytes, const char *expected) {
    error.clear();
    EXPECT_FALSE(readGpuArtifact(bytes, read, error)) << expected;
    EXPECT_NE(error.find(expected), std::string::npos) << error;
  };
  EXPECT_TRUE(readGpuArtifact(assemble({{1, plan}, {2, "cubin"}, {5, "sm_90"}}),
                              read, error))
      << error;
  EXPECT_TRUE(read.metadata.empty());
  reject(assemble({{1, plan}, {2, "cubin"}, {5, "sm_90"}, {9, "?"}}),
         "unknown kind 9");
  reject(assemble({{1, plan}, {2, "cubin"}, {5, "sm_90"}, {5, "sm_80"}}),
         "duplicate chip section");
  reject(assemble({{2, "cubin"}, {5, "sm_90"}}), "missing plan section");
  reject(assemble({{1, plan}, {5, "sm_90"}}), "missing module section");
  reject(assemble({{1, plan}, {2, "cubin"}}), "missing chip section");
  reject(assemble({{1, plan}, {2, "cubin"}, {3, "ptx"}, {5, "sm_90"}}),
         "both a cubin and a ptx section");
  reject(assemble({{1, plan}, {2, "cubin"}, {5, "sm_90"}}, kGpuArtifactVersion, 7),
         "reserved field");
  reject(assemble({{1, plan}, {2, "cubin"}, {5, "sm_90"}}, kGpuArtifactVersion, 0, "xx"),
         "2 trailing bytes");
  reject(assemble({{1, "function f\nbogus\n"}, {2, "cubin"}, {5, "sm_90"}}),
         "plan section: line 2: unknown keyword 'bogus'");
}

TEST(GpuArtifact, EveryFlippedByteIsRejected) {
  std::string bytes = writeGpuArtifact(sampleArtifact());
  GpuArtifact read;
  for (size_t i = 0; i < bytes.size(); ++i) {
    for (uint8_t mask : {uint8_t(0x01), uint8_t(0x80), uint8_t(0xff)}) {
      std::string other = bytes;
      other[i] = char(uint8_t(other[i]) ^ mask);
      std::string error;
      EXPECT_FALSE(readGpuArtifact(other, read, error)) << "byte " << i;
      EXPECT_EQ(error.rfind("invalid GPU artifact: ", 0), 0u) << error;
      if (i < 8)
        EXPECT_NE(error.find("bad magic"), std::string::npos) << error;
      else if (i >= 24 && error.find("checksum") == std::string::npos)
        // A changed section header may be caught as a structural error
        // before the checksum is computed.
        EXPECT_TRUE(error.find("truncated") != std::string::npos ||
                    error.find("trailing") != std::string::npos ||
                    error.find("reserved") != std::string::npos)
            << "byte " << i << ": " << error;
    }
  }
}

TEST(GpuArtifact, EveryTruncationIsRejected) {
  std::string bytes = writeGpuArtifact(sampleArtifact());
  GpuArtifact read;
  for (size_t length = 0; length < bytes.size(); ++length) {
    std::string error;
    EXPECT_FALSE(readGpuArtifact(bytes.substr(0, length), read, error))
        << "length " << length;
    EXPECT_FALSE(error.empty());
    if (length >= 24)
      EXPECT_NE(error.find("truncated"), std::string::npos) << error;
  }
}

TEST(GpuArtifact, Fuzz) {
  std::string base = writeGpuArtifact(sampleArtifact());
  std::mt19937 random(99);
  for (int iteration = 0; iteration < fuzzIterations(3000); ++iteration) {
    std::string bytes = base;
    int edits = 1 + int(random() % 6);
    for (int e = 0; e < edits && !bytes.empty(); ++e) {
      size_t at = random() % bytes.size();
      switch (random() % 3) {
      case 0:
        bytes[at] = char(random() % 256);
        break;
      case 1:
        bytes.erase(at, 1 + random() % 16);
        break;
      case 2:
        bytes.insert(at, 1 + random() % 4, char(random() % 256));
        break;
      }
    }
    GpuArtifact read;
    std::string error;
    if (readGpuArtifact(bytes, read, error)) {
      // Only a change that left the bytes as they were can be accepted.
      EXPECT_EQ(bytes, base);
    } else {
      EXPECT_FALSE(error.empty());
    }
  }
  // Random sections behind a valid header and checksum, so the section
  // walk and the plan parser see them.
  const char *const planLines[] = {"function f\n",
                                   "arg 0 f32 1\n",
                                   "expr 0 argdim 0 0\n",
                                   "kernel k\n",
                                   "buffer arg 0\n",
                                   "bogus\n",
                                   ("launch k0 grid n0 n0 n0 block n0 n0 "
                                    "n0 shmem none params b0:n0 i0\n")};
  for (int iteration = 0; iteration < fuzzIterations(2000); ++iteration) {
    std::vector<std::pair<uint32_t, std::string>> sections;
    int count = int(random() % 6);
    for (int i = 0; i < count; ++i) {
      uint32_t kind = 1 + uint32_t(random() % 6);
      std::string content;
      int lines = int(random() % 6);
      for (int l = 0; l < lines; ++l)
        content += kind == 1 ? planLines[random() % 7]
                             : std::string(1, char(random() % 256));
      sections.emplace_back(kind, content);
    }
    GpuArtifact read;
    std::string error;
    if (!readGpuArtifact(assemble(sections), read, error))
      EXPECT_FALSE(error.empty());
  }
}

//===----------------------------------------------------------------------===//
// Executor without a device
//===----------------------------------------------------------------------===//

TEST(GpuExecutor, DeviceAvailabilityHasAReason) {
  std::string why;
  bool available = cudaDeviceAvailable(why);
  if (!available)
    EXPECT_FALSE(why.empty());
  // The answer is stable.
  std::string again;
  EXPECT_EQ(cudaDeviceAvailable(again), available);
  EXPECT_FALSE(deviceName().empty());
}

TEST(GpuExecutor, LoadWithoutDeviceNamesTheDriver) {
  std::string why;
  if (cudaDeviceAvailable(why))
    GTEST_SKIP() << "a CUDA device is available: " << deviceName();
  GpuArtifact artifact = sampleArtifact();
  std::string error;
  std::unique_ptr<GpuFunction> function = GpuFunction::load(artifact, error);
  EXPECT_TRUE(function == nullptr);
  EXPECT_NE(error.find("libcuda"), std::string::npos) << error;

  uint64_t ptr = 1;
  error.clear();
  EXPECT_FALSE(deviceAlloc(64, ptr, error));
  EXPECT_EQ(ptr, 0u);
  EXPECT_NE(error.find("libcuda"), std::string::npos) << error;
  deviceFree(0);
  EXPECT_FALSE(deviceSynchronize(error));
  EXPECT_NE(deviceName().find("no CUDA device"), std::string::npos);
}

TEST(GpuExecutor, LoadRejectsInvalidPlans) {
  // Checked before the driver is touched, so this holds on any machine.
  GpuArtifact artifact = sampleArtifact();
  artifact.plan.steps[0].launch.params[0].id = 42;
  std::string error;
  EXPECT_TRUE(GpuFunction::load(artifact, error) == nullptr);
  EXPECT_NE(error.find("invalid plan for forward pass"), std::string::npos)
      << error;
  EXPECT_NE(error.find("b42 does not exist"), std::string::npos) << error;
}

} // namespace
