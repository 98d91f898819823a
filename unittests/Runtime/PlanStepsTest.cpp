//===- PlanStepsTest.cpp - what each launch-plan step does ----------------===//
//
// summarizePlanSteps: each step's strategy, launch and the bytes it moves
// for one call's sizes; formatProfileTable: the table tgc-run --profile and
// tgc-gpu-run --profile print.
//
//===----------------------------------------------------------------------===//

#include "tgc/Runtime/PlanSteps.h"

#include "gtest/gtest.h"

using namespace tgc::runtime;

namespace {

/// x: [m, n] f32, bias: [n] f32, w: [k, n] f16; a kernel reads x and the
/// bias broadcast over the rows and writes r0 in place of the arena; a
/// batched GEMM over a broadcast B; a copy, a memset and a check.
const char *const kPlan = R"plan(function net
arg 0 f32 2
arg 1 f32 1
arg 2 f16 2
expr 0 argdim 0 0
expr 1 argdim 0 1
expr 2 argdim 2 0
expr 3 const 0
expr 4 const 1
expr 5 const 3
expr 6 const 8
expr 7 mul n0 n1
expr 8 mul n7 n6
result 0 f32 2 n0 n1
arena n8
kernel net_warp_rows_0
kernel net_elementwise_12
kernel oddly_named
buffer arg 0
buffer arg 1
buffer arg 2
buffer result 0
buffer arena none
launch k0 grid n0 n4 n4 block n6 n4 n4 shmem none params i0 b0/2{n3;n0,n1;n1,n4}*4r b1/2{n3;n0,n1;n3,n4}*4r b3/2{n3;n0,n1;n1,n4}*4w
launch k1 grid n3 n4 n4 block n6 n4 n4 shmem none params b4/2{n3;n0,n1;n1,n4}*4rw
launch k2 grid n4 n4 n4 block n4 n4 n4 shmem none params b4/2{n3;n0,n1;n1,n4} b3/2{n3;n0,n1;n1,n4}*4w
launch k0 grid n4 n4 n4 block n4 n4 n4 shmem none params b0/2{n3;n0,n1;n1,n4}*4r b0/2{n3;n0,n1;n1,n4}*4r b3/2{n3;n0,n1;n1,n4}*4w b3/2{n3;n0,n1;n1,n4}*4r
gemm f16 out f32 m n0 n n1 k n2 batch n5 transa 0 transb 0 a b2 b b2 c b4 bias b1 epilogue bias_relu strides n7 n3 n7
copy dst b4 src b3 bytes n8
memset dst b4 bytes n3 value 0x0
check flag b4 when none "index out of range"
)plan";

Plan parsed() {
  Plan plan;
  std::string error;
  EXPECT_TRUE(parsePlan(kPlan, plan, error)) << error;
  return plan;
}

std::vector<StepSummary> summaries(const Plan &plan, int64_t m, int64_t n,
                                   int64_t k) {
  std::vector<int64_t> values;
  std::string error;
  EXPECT_TRUE(evaluatePlan(plan, {{m, n}, {n}, {k, n}}, values, error))
      << error;
  return summarizePlanSteps(plan, values);
}

TEST(PlanSteps, LaunchesCountEachBufferOnceAndInPlaceTwice) {
  std::vector<StepSummary> s = summaries(parsed(), 4, 16, 32);
  ASSERT_EQ(s.size(), 8u);
  EXPECT_EQ(s[0].kind, PlanStep::Launch);
  EXPECT_EQ(s[0].name, "net_warp_rows_0");
  EXPECT_EQ(s[0].strategy, "warp_rows");
  EXPECT_EQ(s[0].shape, "grid 4x1x1 block 8x1x1");
  // x read, the bias read once (row stride 0), r0 written: 64 + 16 + 64
  // floats.
  EXPECT_EQ(s[0].bytes, (64 + 16 + 64) * 4);
  EXPECT_FALSE(s[0].skipped);
  // Read and written in place: twice; a zero grid: skipped.
  EXPECT_EQ(s[1].strategy, "elementwise");
  EXPECT_EQ(s[1].bytes, 2 * 64 * 4);
  EXPECT_TRUE(s[1].skipped);
  // A parameter without an element size: not known.
  EXPECT_EQ(s[2].strategy, "oddly_named");
  EXPECT_EQ(s[2].bytes, -1);
  // x passed twice is read once; r0 written and read through two
  // parameters is one buffer read and written: 64 + 2 x 64 floats.
  EXPECT_EQ(s[3].bytes, (64 + 2 * 64) * 4);
}

TEST(PlanSteps, GemmsCountTheirMatricesAndFlops) {
  std::vector<StepSummary> s = summaries(parsed(), 4, 16, 32);
  const StepSummary &g = s[4];
  EXPECT_EQ(g.kind, PlanStep::Gemm);
  EXPECT_EQ(g.strategy, "cuBLASLt + bias_relu");
  EXPECT_EQ(g.shape, "m 4 n 16 k 32 batch 3 f16->f32");
  // A: 3 batches of 4x32 f16; B: one 32x16 f16 matrix (batch stride 0);
  // C: 3 x 4x16 f32; the bias: 16 f32.
  EXPECT_EQ(g.bytes, 3 * 4 * 32 * 2 + 32 * 16 * 2 + 3 * 4 * 16 * 4 + 16 * 4);
  EXPECT_EQ(g.flops, 2 * 4 * 16 * 32 * 3);
}

TEST(PlanSteps, CopiesMemsetsAndChecks) {
  std::vector<StepSummary> s = summaries(parsed(), 4, 16, 32);
  EXPECT_EQ(s[5].name, "copy");
  EXPECT_EQ(s[5].bytes, 2 * 4 * 16 * 8); // read and written
  EXPECT_EQ(s[6].name, "memset");
  EXPECT_TRUE(s[6].skipped); // 0 bytes
  EXPECT_EQ(s[7].name, "check");
  EXPECT_EQ(s[7].shape, "index out of range");
}

TEST(PlanSteps, TextAndSizesThatDoNotEvaluate) {
  Plan plan = parsed();
  std::string text = describePlanSteps(plan, {{4, 16}, {16}, {32, 16}});
  EXPECT_NE(text.find("launch\tnet_warp_rows_0\twarp_rows\tgrid 4x1x1 block "
                      "8x1x1\t576\t0\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("gemm\tgemm\tcuBLASLt + bias_relu\t"), std::string::npos)
      << text;
  EXPECT_NE(text.find("(skipped)"), std::string::npos) << text;
  // A missing argument: the plan does not evaluate.
  EXPECT_EQ(describePlanSteps(plan, {{4, 16}}), "");
}

TEST(PlanSteps, ProfileTable) {
  PlanProfile profile;
  for (const StepSummary &s : summaries(parsed(), 4, 16, 32))
    profile.steps.push_back({s, -1});
  // Untimed: no time columns.
  std::string table = formatProfileTable(profile, 0);
  EXPECT_NE(table.find("bytes"), std::string::npos) << table;
  EXPECT_EQ(table.find("bandwidth"), std::string::npos) << table;
  EXPECT_NE(table.find("576 B"), std::string::npos) << table;
  // 576 bytes in 1 us: 0.576 GB/s, 50% of a 1.152 GB/s peak.
  profile.steps[0].ms = 1e-3;
  profile.steps[4].ms = 0.5;
  profile.callMs = 2;
  profile.repeat = 10;
  table = formatProfileTable(profile, 1.152);
  EXPECT_NE(table.find("1.0 us"), std::string::npos) << table;
  EXPECT_NE(table.find("1 GB/s (50%)"), std::string::npos) << table;
  EXPECT_NE(table.find("TFLOP/s"), std::string::npos) << table;
  EXPECT_NE(table.find("call: 2.000 ms per run (10 runs back to back); the "
                       "steps alone: 501.0 us"),
            std::string::npos)
      << table;
}

} // namespace
