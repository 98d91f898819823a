//===- GpuPlanTest.cpp - Launch plans, guards, artifacts, executor --------===//
//
// The CPU side of the GPU runtime: the plan's text format (round trip and
// every kind of error, with line numbers), the evaluation of its nodes
// (floor semantics, overflow, zero divisors), its guards, and the artifact
// container (every corruption rejected, never a crash; the parser and the
// reader are fuzzed with truncations and random mutations). The executor
// part only checks what holds without a GPU; tgc-gpu-selftest covers the
// device (docs/gpu-runtime.md).
//
//
//===----------------------------------------------------------------------===//

#include "GpuPlanTestUtils.h"

using namespace gpu_plan_test;

namespace {

//===----------------------------------------------------------------------===//
// Text format
//===----------------------------------------------------------------------===//

TEST(GpuPlanText, RoundTrip) {
  Plan plan = parseOrDie(kFullPlan);
  EXPECT_EQ(plan.function, "forward pass");
  ASSERT_EQ(plan.args.size(), 3u);
  EXPECT_EQ(plan.args[1].dtype, TGC_DTYPE_F16);
  ASSERT_EQ(plan.results.size(), 2u);
  EXPECT_EQ(plan.results[0].sizes, (std::vector<int64_t>{0, 2}));
  EXPECT_EQ(plan.results[1].rank, 0);
  EXPECT_EQ(plan.exprs.size(), 15u);
  EXPECT_EQ(plan.exprs[5].kind, ExprKind::CeilDiv);
  EXPECT_EQ(plan.symbols[1].first, "s 1");
  ASSERT_EQ(plan.guards.size(), 10u);
  EXPECT_EQ(plan.guards[1].reason, "w: \"half\"\n\ttab\\ \x01");
  EXPECT_EQ(plan.guards[2].value, TGC_DEVICE_CUDA);
  EXPECT_EQ(plan.guards[4].hi, -1);
  EXPECT_EQ(plan.guards[9].kind, GuardKind::NoAlias);
  EXPECT_EQ(plan.guards[9].arg, 0);
  EXPECT_EQ(plan.guards[9].value, 2);
  EXPECT_EQ(plan.arenaBytes, 9);
  EXPECT_EQ(plan.kernels, (std::vector<std::string>{"fused_0", "odd name"}));
  ASSERT_EQ(plan.globals.size(), 1u);
  EXPECT_EQ(plan.globals[0].name, "__constant_4xf32");
  EXPECT_EQ(plan.globals[0].bytes, 16);
  ASSERT_EQ(plan.buffers.size(), 9u);
  EXPECT_EQ(plan.buffers[8].kind, BufferKind::Global);
  EXPECT_EQ(plan.buffers[8].index, 0);
  EXPECT_EQ(plan.buffers[8].offset, 7);
  EXPECT_EQ(plan.buffers[4].kind, BufferKind::Arena);
  EXPECT_EQ(plan.buffers[4].offset, -1);
  EXPECT_EQ(plan.buffers[6].kind, BufferKind::View);
  EXPECT_EQ(plan.buffers[6].index, 5);
  ASSERT_EQ(plan.steps.size(), 9u);
  const ConvStep &conv = plan.steps[8].conv;
  EXPECT_EQ(plan.steps[8].kind, PlanStep::Conv);
  EXPECT_TRUE(conv.tf32);
  EXPECT_EQ(conv.x.id, 0);
  EXPECT_EQ(conv.x.rank, 4);
  EXPECT_EQ(conv.w.offset, 7);
  EXPECT_EQ(conv.y.id, 5);
  EXPECT_EQ(conv.y.access, 2);
  EXPECT_EQ(conv.stride[0], 2);
  EXPECT_EQ(conv.padding[0], 1);
  EXPECT_EQ(conv.dilation[1], 3);
  EXPECT_EQ(conv.groups, 2);
  EXPECT_EQ(plan.steps[6].kind, PlanStep::Check);
  EXPECT_EQ(plan.steps[6].check.flag, 4);
  EXPECT_EQ(plan.steps[6].check.when, 0);
  EXPECT_TRUE(plan.steps[6].check.index);
  EXPECT_FALSE(plan.steps[7].check.index);
  EXPECT_EQ(plan.steps[6].check.message,
            "tgc.gather: index out of range at m.py:3");
  EXPECT_EQ(plan.steps[7].check.when, -1);
  const LaunchStep &launch = plan.steps[0].launch;
  ASSERT_EQ(launch.params.size(), 6u);
  EXPECT_EQ(launch.params[0].kind, KernelParam::Buffer);
  EXPECT_EQ(launch.params[0].sizeNode, 4);
  EXPECT_EQ(launch.params[0].rank, -1);
  EXPECT_EQ(launch.params[1].sizeNode, -1);
  EXPECT_EQ(launch.params[2].kind, KernelParam::Int);
  const KernelParam &ranked = launch.params[4];
  EXPECT_EQ(ranked.kind, KernelParam::Buffer);
  EXPECT_EQ(ranked.id, 6);
  EXPECT_EQ(ranked.rank, 2);
  EXPECT_EQ(ranked.offset, 7);
  EXPECT_EQ(ranked.sizes, (std::vector<int64_t>{0, 2}));
  EXPECT_EQ(ranked.strides, (std::vector<int64_t>{2, 6}));
  EXPECT_EQ(launch.params[5].rank, 0);
  EXPECT_EQ(launch.params[5].offset, -1);
  // Element sizes and accesses, for reports; none: not known.
  EXPECT_EQ(launch.params[0].elementBytes, 4);
  EXPECT_EQ(launch.params[0].access, 1);
  EXPECT_EQ(launch.params[1].elementBytes, 0);
  EXPECT_EQ(launch.params[1].access, 0);
  EXPECT_EQ(ranked.elementBytes, 4);
  EXPECT_EQ(ranked.access, 3);
  EXPECT_EQ(launch.params[5].elementBytes, 8);
  EXPECT_EQ(launch.params[5].access, 2);
  EXPECT_TRUE(launch.params[5].sizes.empty());
  EXPECT_EQ(launch.sharedBytes, -1);
  EXPECT_TRUE(plan.steps[1].launch.params.empty());
  const GemmStep &gemm = plan.steps[2].gemm;
  EXPECT_EQ(gemm.dtype, TGC_DTYPE_F16);
  EXPECT_EQ(gemm.cDtype, TGC_DTYPE_F32);
  EXPECT_EQ(plan.steps[3].gemm.cDtype, -1);
  EXPECT_FALSE(gemm.tf32);
  EXPECT_TRUE(plan.steps[3].gemm.tf32);
  EXPECT_TRUE(gemm.transB);
  EXPECT_FALSE(gemm.transA);
  EXPECT_EQ(gemm.epilogue, GemmStep::BiasRelu);
  EXPECT_EQ(gemm.bias, 2);
  EXPECT_EQ(gemm.residual, -1);
  EXPECT_EQ(plan.steps[3].gemm.residual, 7);
  EXPECT_EQ(plan.steps[3].gemm.strideB, 10);
  EXPECT_EQ(plan.steps[5].memset.value, 0xdeadbeefu);

  std::string text = serializePlan(plan);
  Plan again = parseOrDie(text);
  EXPECT_EQ(serializePlan(again), text);
}

TEST(GpuPlanText, ConvKinds) {
  // A forward conv line has no kind word; backward_data and backward_filter
  // follow tf32 and survive serialization.
  std::string text = kFullPlan;
  EXPECT_EQ(parseOrDie(text).steps[8].conv.kind, ConvStep::Forward);
  const std::pair<const char *, ConvStep::Kind> kinds[] = {
      {"backward_data", ConvStep::BackwardData},
      {"backward_filter", ConvStep::BackwardFilter}};
  for (auto [word, kind] : kinds) {
    std::string edited = text;
    size_t at = edited.find("conv f32 tf32 x");
    ASSERT_NE(at, std::string::npos);
    edited.replace(at, 15, std::string("conv f32 tf32 ") + word + " x");
    Plan plan = parseOrDie(edited);
    EXPECT_EQ(plan.steps[8].conv.kind, kind) << word;
    std::string again = serializePlan(plan);
    EXPECT_NE(again.find(std::string("tf32 ") + word + " x"), std::string::npos)
        << again;
    EXPECT_EQ(parseOrDie(again).steps[8].conv.kind, kind) << word;
  }
  std::string error = parseError(
      text.replace(text.find("conv f32 tf32 x"), 15, "conv f32 backward x"));
  EXPECT_NE(error.find("backward"), std::string::npos) << error;
}

TEST(GpuPlanText, SerializesInMemoryPlans) {
  Plan plan;
  plan.function = "f";
  plan.args.push_back({TGC_DTYPE_F32, 1, {}});
  plan.exprs.push_back({ExprKind::ArgDim, 0, 0});
  plan.exprs.push_back({ExprKind::Const, -5, 0});
  plan.exprs.push_back({ExprKind::FloorDiv, 0, 1});
  plan.symbols.emplace_back("s0", 0);
  PlanGuard guard;
  guard.kind = GuardKind::Range;
  guard.lhs = 0;
  guard.lo = 2;
  guard.text = "s0 >= 2";
  guard.reason = "say \"why\"";
  plan.guards.push_back(guard);
  plan.results.push_back({TGC_DTYPE_F32, 1, {0}});
  plan.kernels.emplace_back("k");
  plan.buffers.push_back({BufferKind::Arg, 0, -1});
  plan.buffers.push_back({BufferKind::Result, 0, -1});
  PlanStep step;
  step.kind = PlanStep::Launch;
  step.launch.kernel = 0;
  for (int i = 0; i < 3; ++i) {
    step.launch.grid[i] = 0;
    step.launch.block[i] = 0;
  }
  KernelParam buffer;
  buffer.kind = KernelParam::Buffer;
  buffer.id = 1;
  buffer.sizeNode = 0;
  step.launch.params.push_back(buffer);
  KernelParam scalar;
  scalar.kind = KernelParam::Int;
  scalar.id = 2;
  step.launch.params.push_back(scalar);
  KernelParam ranked;
  ranked.kind = KernelParam::Buffer;
  ranked.id = 0;
  ranked.rank = 1;
  ranked.sizes = {0};
  ranked.strides = {2};
  step.launch.params.push_back(ranked);
  plan.steps.push_back(step);

  std::string text = serializePlan(plan);
  EXPECT_NE(text.find("guard range n0 2 -1 \"s0 >= 2\" \"say \\\"why\\\"\""),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("launch k0 grid n0 n0 n0 block n0 n0 n0 shmem none "
                      "params b1:n0 i2 b0/1{none;n0;n2}"),
            std::string::npos)
      << text;
  Plan parsed = parseOrDie(text);
  EXPECT_EQ(serializePlan(parsed), text);

  // An inconsistent plan built in memory does not survive the round trip.
  plan.steps[0].launch.params[2].rank = 2;
  std::string error = parseError(serializePlan(plan));
  EXPECT_NE(error.find("rank 2 but 1 sizes"), std::string::npos) << error;
}

/// Plan text with `line` appended to a small valid prefix (lines 1-6).
std::string withLine(const std::string &line) {
  return "function f\n"
         "arg 0 f32 2\n"
         "expr 0 argdim 0 0\n"
         "expr 1 const 4\n"
         "kernel k\n"
         "buffer arg 0\n" +
         line + "\n";
}

TEST(GpuPlanText, ErrorsNameTheLine) {
  EXPECT_EQ(parseError(withLine("")), "");
  std::string error = parseError(withLine("expr 2 add n0 n5"));
  EXPECT_NE(error.find("line 7:"), std::string::npos) << error;
  EXPECT_NE(error.find("n5 does not exist"), std::string::npos) << error;

  // A node may only use earlier nodes, itself included.
  error = parseError(withLine("expr 2 mul n2 n0"));
  EXPECT_NE(error.find("line 7:"), std::string::npos) << error;
  EXPECT_NE(error.find("n2"), std::string::npos) << error;

  error = parseError(withLine("frobnicate 1 2"));
  EXPECT_NE(error.find("line 7: unknown keyword 'frobnicate'"),
            std::string::npos)
      << error;

  error = parseError(withLine("launch k0 grid n1 n1 n1 block n1 n1 n1 "
                              "shmem none params b0:n0 b3 i1"));
  EXPECT_NE(error.find("line 7:"), std::string::npos) << error;
  EXPECT_NE(error.find("b3 does not exist"), std::string::npos) << error;

  error = parseError(withLine("launch k1 grid n1 n1 n1 block n1 n1 n1 "
                              "shmem none params"));
  EXPECT_NE(error.find("k1 does not exist"), std::string::npos) << error;

  const char *const launchPrefix =
      "launch k0 grid n1 n1 n1 block n1 n1 n1 shmem none params ";
  EXPECT_EQ(parseError(withLine(std::string(launchPrefix) +
                                "b0/2{n1;n0,n1;n1,n1} b0/0{none;;} i0")),
            "");
  error = parseError(withLine(std::string(launchPrefix) + "b0/2{n1;n0;n1,n1}"));
  EXPECT_NE(error.find("rank 2 but 1 sizes"), std::string::npos) << error;
  error = parseError(withLine(std::string(launchPrefix) + "b0/1{n1;n0;n9}"));
  EXPECT_NE(error.find("n9 does not exist"), std::string::npos) << error;
  error = parseError(withLine(std::string(launchPrefix) + "b0/1{n1;n0}"));
  EXPECT_NE(error.find("expected {<offset>;<sizes>;<strides>}"),
            std::string::npos)
      << error;
  error = parseError(withLine(std::string(launchPrefix) + "b0/x{n1;n0;n0}"));
  EXPECT_NE(error.find("bad rank 'x'"), std::string::npos) << error;
  error =
      parseError(withLine(std::string(launchPrefix) + "b0/1{none;none;n0}"));
  EXPECT_NE(error.find("expected a size node"), std::string::npos) << error;
  error = parseError(withLine(std::string(launchPrefix) + "x5"));
  EXPECT_NE(error.find("bad parameter 'x5'"), std::string::npos) << error;
  for (const char *bad : {"b0*0", "b0*x", "b0*4q", "b0*-4", "b0*", "b0*65r"}) {
    error = parseError(withLine(std::string(launchPrefix) + bad));
    EXPECT_NE(error.find("bad element size"), std::string::npos)
        << bad << ": " << error;
  }
  EXPECT_EQ(parseError(withLine(std::string(launchPrefix) +
                                "b0*2 b0:n0*1rw b0/1{n1;n0;n1}*8w")),
            "");

  error = parseError(withLine("check flag b0 \"m\""));
  EXPECT_NE(error.find("line 7:"), std::string::npos) << error;
  error = parseError(withLine("check flag b1 when none \"m\""));
  EXPECT_NE(error.find("b1 does not exist"), std::string::npos) << error;
  EXPECT_EQ(parseError(withLine("check flag b0 when n1 \"m\"")), "");
  EXPECT_EQ(parseError(withLine("check flag b0 when n1 index \"m\"")), "");
  error = parseError(withLine("check flag b0 when n1 index"));
  EXPECT_NE(error.find("the check's message"), std::string::npos) << error;

  error = parseError(withLine("buffer global 0 none"));
  EXPECT_NE(error.find("line 7: global 0 does not exist (0 declared"),
            std::string::npos)
      << error;
  error = parseError(withLine("global c 0"));
  EXPECT_NE(error.find("line 7: global 'c' has size 0 (must be positive)"),
            std::string::npos)
      << error;
  EXPECT_EQ(parseError(withLine("global c 8\nbuffer global 0 n1")), "");
  error = parseError(withLine("global c 8\nglobal c 4"));
  EXPECT_NE(error.find("line 8: a second global named 'c'"), std::string::npos)
      << error;

  error = parseError(withLine("buffer view b1 none"));
  EXPECT_NE(error.find("line 7:"), std::string::npos) << error;
  EXPECT_NE(error.find("b1 does not exist"), std::string::npos) << error;

  error = parseError(withLine("buffer arena n1"));
  EXPECT_NE(error.find("without an earlier 'arena' line"), std::string::npos)
      << error;

  error = parseError(withLine("buffer arg 1"));
  EXPECT_NE(error.find("arg 1 does not exist"), std::string::npos) << error;

  error = parseError(withLine("expr 2 argdim 0 2"));
  EXPECT_NE(error.find("argument 0 has rank 2, no dimension 2"),
            std::string::npos)
      << error;

  error = parseError(withLine("expr 3 const 1"));
  EXPECT_NE(error.find("expected expr 2, got expr 3"), std::string::npos)
      << error;

  error = parseError(withLine("result 0 f32 2 n0"));
  EXPECT_NE(error.find("rank 2 but 1 size nodes"), std::string::npos) << error;

  error = parseError(withLine("result 0 f33 1 n0"));
  EXPECT_NE(error.find("unknown dtype 'f33'"), std::string::npos) << error;

  error = parseError(withLine("guard range n0 2 -1 \"unterminated"));
  EXPECT_NE(error.find("line 7: unterminated string"), std::string::npos)
      << error;

  error = parseError(withLine("guard range n0 2 -1 s0>=2 \"reason\""));
  EXPECT_NE(error.find("quoted string"), std::string::npos) << error;

  error = parseError(withLine(R"(guard divisible n0 0 "" "")"));
  EXPECT_NE(error.find("divisor must be positive"), std::string::npos) << error;

  error = parseError(withLine("gemm f32 m n0 n n0 k n0 batch none transa 0 "
                              "transb 0 a b0 b b0 c b0 bias none "
                              "epilogue bias_relu strides none none none"));
  EXPECT_NE(error.find("without a bias buffer"), std::string::npos) << error;

  error = parseError(withLine("gemm i32 m n0 n n0 k n0 batch none transa 0 "
                              "transb 0 a b0 b b0 c b0 bias none "
                              "epilogue none strides none none none"));
  EXPECT_NE(error.find("must be f32, f16, bf16 or f64"), std::string::npos)
      << error;

  // TF32 rounds f32 inputs only.
  error = parseError(withLine("gemm f16 tf32 m n0 n n0 k n0 batch none transa 0 "
                              "transb 0 a b0 b b0 c b0 bias none "
                              "epilogue none strides none none none"));
  EXPECT_NE(error.find("a tf32 gemm's dtype must be f32, got f16"),
            std::string::npos)
      << error;

  const std::string convParams =
      " x b0/4{none;n0,n0,n0,n0;n0,n0,n0,n0} w b0/4{none;n0,n0,n0,n0;n0,n0,"
      "n0,n0} y b0/4{none;n0,n0,n0,n0;n0,n0,n0,n0}";
  error = parseError(withLine("conv f16" + convParams +
                              " stride 1 1 padding 0 0 dilation 1 1 groups 1"));
  EXPECT_NE(error.find("a conv's dtype must be f32, got f16"),
            std::string::npos)
      << error;
  error = parseError(withLine("conv f32 x b0 w b0 y b0 stride 1 1 padding 0 0 "
                              "dilation 1 1 groups 1"));
  EXPECT_NE(error.find("a conv's x must be a rank-4 buffer parameter"),
            std::string::npos)
      << error;
  error = parseError(withLine("conv f32" + convParams +
                              " stride 0 1 padding 0 0 dilation 1 1 groups 1"));
  EXPECT_NE(error.find("a conv's stride must be in [1, 2^31), got 0"),
            std::string::npos)
      << error;
  error = parseError(withLine("conv f32" + convParams +
                              " stride 1 1 padding -1 0 dilation 1 1 groups 1"));
  EXPECT_NE(error.find("a conv's padding must be in [0, 2^31)"),
            std::string::npos)
      << error;
  error = parseError(withLine("conv f32" + convParams +
                              " stride 1 1 padding 0 0 dilation 1 1 groups 0"));
  EXPECT_NE(error.find("a conv's groups must be in [1, 2^31), got 0"),
            std::string::npos)
      << error;

  error = parseError(withLine("memset dst b0 bytes n1 value 0x123456789"));
  EXPECT_NE(error.find("32-bit value"), std::string::npos) << error;

  error = parseError(withLine("copy dst b0 src b0 bytes n1 extra"));
  EXPECT_NE(error.find("unexpected 'extra'"), std::string::npos) << error;

  error = parseError(withLine("expr 2 const 99999999999999999999"));
  EXPECT_NE(error.find("expected a constant"), std::string::npos) << error;

  error = parseError("arg 0 f32 1\n");
  EXPECT_NE(error.find("line 1: the first line must be 'function"),
            std::string::npos)
      << error;
  error = parseError("# only a comment\n");
  EXPECT_NE(error.find("without a 'function' line"), std::string::npos)
      << error;
  error = parseError("function f\nfunction g\n");
  EXPECT_NE(error.find("line 2: a second 'function' line"), std::string::npos)
      << error;
  const char withNul[] = "function f\nexpr 0 const 1\0\n";
  error = parseError(std::string(withNul, sizeof(withNul) - 1));
  EXPECT_NE(error.find("NUL"), std::string::npos) << error;
}

/// Random truncations and mutations of a valid plan: parsePlan never
/// crashes, and whatever it accepts serializes back to text it accepts.
TEST(GpuPlanText, Fuzz) {
  const std::string base = kFullPlan;
  std::mt19937 random(1234);
  const char alphabet[] = "n b k i 0 1 9 - \" \\ \n : x # expr guard none";
  int accepted = 0;
  for (size_t length = 0; length <= base.size(); ++length) {
    Plan plan;
    std::string error;
    if (parsePlan(base.substr(0, length), plan, error)) {
      ++accepted;
      Plan again;
      EXPECT_TRUE(parsePlan(serializePlan(plan), again, error)) << error;
    }
  }
  for (int iteration = 0; iteration < fuzzIterations(4000); ++iteration) {
    std::string text = base;
    int edits = 1 + int(random() % 4);
    for (int e = 0; e < edits; ++e) {
      size_t at = random() % text.size();
      switch (random() % 4) {
      case 0:
        text[at] = char(random() % 256);
        break;
      case 1:
        text[at] = alphabet[random() % (sizeof(alphabet) - 1)];
        break;
      case 2:
        text.erase(at, 1 + random() % 8);
        break;
      case 3:
        text.insert(at, 1, alphabet[random() % (sizeof(alphabet) - 1)]);
        break;
      }
      if (text.empty())
        text = "x";
    }
    Plan plan;
    std::string error;
    if (parsePlan(text, plan, error)) {
      ++accepted;
      Plan again;
      std::string serialized = serializePlan(plan);
      EXPECT_TRUE(parsePlan(serialized, again, error)) << error << "\n" << text;
      EXPECT_EQ(serializePlan(again), serialized);
    } else {
      EXPECT_EQ(error.rfind("line ", 0), 0u) << error;
    }
  }
  EXPECT_GT(accepted, 0);
}

//===----------------------------------------------------------------------===//
// Evaluation
//===----------------------------------------------------------------------===//

/// Evaluates `kind(a, b)` over two constants.
bool binary(ExprKind kind, int64_t a, int64_t b, int64_t &out,
            std::string &error) {
  Plan plan;
  plan.exprs = {{ExprKind::Const, a, 0}, {ExprKind::Const, b, 0}, {kind, 0, 1}};
  plan.symbols.emplace_back("q", 2);
  std::vector<int64_t> values;
  if (!evaluatePlan(plan, {}, values, error))
    return false;
  out = values[2];
  return true;
}

int64_t eval(ExprKind kind, int64_t a, int64_t b) {
  int64_t out = 0;
  std::string error;
  EXPECT_TRUE(binary(kind, a, b, out, error)) << error;
  return out;
}

TEST(GpuPlanEval, FloorCeilMod) {
  EXPECT_EQ(eval(ExprKind::FloorDiv, 7, 2), 3);
  EXPECT_EQ(eval(ExprKind::FloorDiv, -7, 2), -4);
  EXPECT_EQ(eval(ExprKind::FloorDiv, 7, -2), -4);
  EXPECT_EQ(eval(ExprKind::FloorDiv, -7, -2), 3);
  EXPECT_EQ(eval(ExprKind::FloorDiv, -8, 2), -4);
  EXPECT_EQ(eval(ExprKind::CeilDiv, 7, 2), 4);
  EXPECT_EQ(eval(ExprKind::CeilDiv, -7, 2), -3);
  EXPECT_EQ(eval(ExprKind::CeilDiv, 7, -2), -3);
  EXPECT_EQ(eval(ExprKind::CeilDiv, -7, -2), 4);
  EXPECT_EQ(eval(ExprKind::CeilDiv, 8, 2), 4);
  EXPECT_EQ(eval(ExprKind::CeilDiv, 0, 5), 0);
  EXPECT_EQ(eval(ExprKind::Mod, 7, 3), 1);
  EXPECT_EQ(eval(ExprKind::Mod, -7, 3), 2);
  EXPECT_EQ(eval(ExprKind::Mod, -6, 3), 0);
  EXPECT_EQ(eval(ExprKind::Mod, 7, -3), -2);
  EXPECT_EQ(eval(ExprKind::Mod, std::numeric_limits<int64_t>::min(), -1), 0);
  EXPECT_EQ(eval(ExprKind::Max, -3, 2), 2);
  EXPECT_EQ(eval(ExprKind::Min, -3, 2), -3);
  EXPECT_EQ(eval(ExprKind::Sub, 3, 5), -2);
  EXPECT_EQ(eval(ExprKind::FloorDiv, std::numeric_limits<int64_t>::min(), 2),
            std::numeric_limits<int64_t>::min() / 2);
}

TEST(GpuPlanEval, OverflowAndZeroDivisor) {
  const int64_t max = std::numeric_limits<int64_t>::max();
  const int64_t min = std::numeric_limits<int64_t>::min();
  int64_t out = 0;
  std::string error;
  EXPECT_FALSE(binary(ExprKind::Mul, max, 2, out, error));
  EXPECT_NE(error.find("overflow"), std::string::npos) << error;
  EXPECT_FALSE(binary(ExprKind::Add, max, 1, out, error));
  EXPECT_NE(error.find("overflow"), std::string::npos) << error;
  EXPECT_FALSE(binary(ExprKind::Sub, min, 1, out, error));
  EXPECT_NE(error.find("overflow"), std::string::npos) << error;
  EXPECT_FALSE(binary(ExprKind::FloorDiv, min, -1, out, error));
  EXPECT_NE(error.find("overflow"), std::string::npos) << error;
  EXPECT_FALSE(binary(ExprKind::CeilDiv, min, -1, out, error));
  EXPECT_NE(error.find("overflow"), std::string::npos) << error;

  for (ExprKind kind : {ExprKind::FloorDiv, ExprKind::CeilDiv, ExprKind::Mod}) {
    error.clear();
    EXPECT_FALSE(binary(kind, 5, 0, out, error));
    // The node and its symbol are named.
    EXPECT_NE(error.find("node n2 (q)"), std::string::npos) << error;
    EXPECT_NE(error.find("division by zero"), std::string::npos) << error;
  }
}

TEST(GpuPlanEval, ArgumentSizes) {
  Plan plan = parseOrDie(kFullPlan);
  std::vector<int64_t> values;
  std::string error;
  ASSERT_TRUE(evaluatePlan(plan, {{4, 64}, {64, 32}, {32}}, values, error))
      << error;
  EXPECT_EQ(values[0], 4);
  EXPECT_EQ(values[4], 128);
  EXPECT_EQ(values[5], 1);
  EXPECT_EQ(values[9], 1024);
  EXPECT_EQ(values[12], 0);

  EXPECT_FALSE(evaluatePlan(plan, {{4, 64}}, values, error));
  EXPECT_NE(error.find("argument 1 does not exist"), std::string::npos)
      << error;
  EXPECT_FALSE(evaluatePlan(plan, {{4}, {64, 32}, {32}}, values, error));
  EXPECT_NE(error.find("argument 0 has 1 dims, no dim 1"), std::string::npos)
      << error;

  // A plan built in memory is checked too.
  Plan bad;
  bad.exprs = {{ExprKind::Add, 0, 5}};
  EXPECT_FALSE(evaluatePlan(bad, {}, values, error));
  EXPECT_NE(error.find("not earlier nodes"), std::string::npos) << error;
}

//===----------------------------------------------------------------------===//
// Guards
//===----------------------------------------------------------------------===//

TEST(GpuPlanGuards, AllPass) {
  Plan plan = parseOrDie(kFullPlan);
  std::string message;
  EXPECT_EQ(check(plan, fullPlanArgs(), message), -1) << message;
  EXPECT_TRUE(message.empty());
}

TEST(GpuPlanGuards, EachKindFails) {
  Plan plan = parseOrDie(kFullPlan);
  std::string message;

  std::vector<Arg> args = fullPlanArgs();
  args[1].dtype = TGC_DTYPE_BF16;
  EXPECT_EQ(check(plan, args, message), 1);
  EXPECT_NE(message.find("guard 1 failed: dtype(w) == f16 (dtype = bf16); "
                         "reason: w:"),
            std::string::npos)
      << message;

  args = fullPlanArgs();
  args[0].device = TGC_DEVICE_CPU;
  EXPECT_EQ(check(plan, args, message), 2);
  // No text: a generated one.
  EXPECT_NE(message.find("guard 2 failed: device(arg 0) == cuda "
                         "(device = cpu)"),
            std::string::npos)
      << message;

  args = fullPlanArgs();
  args[0].strides = {1, 4};
  EXPECT_EQ(check(plan, args, message), 3);
  EXPECT_NE(message.find("sizes [4, 64], strides [1, 4]"), std::string::npos)
      << message;

  // Size-1 dims ignore their stride.
  args = fullPlanArgs();
  args[0] = Arg::dense({1, 64});
  args[0].strides = {12345, 1};
  EXPECT_EQ(check(plan, args, message), 4) << message; // s0 = 1 < 2
  EXPECT_NE(message.find("guard 4 failed: s0 >= 2 (s0 = 1); reason: tgc.topk "
                         "at model.py:12"),
            std::string::npos)
      << message;

  args = fullPlanArgs();
  args[0] = Arg::dense({4, 8192});
  args[1] = Arg::dense({8192, 32}, TGC_DTYPE_F16);
  EXPECT_EQ(check(plan, args, message), 5);
  EXPECT_NE(message.find("(s 1 = 8192)"), std::string::npos) << message;

  args = fullPlanArgs();
  args[1] = Arg::dense({48, 32}, TGC_DTYPE_F16);
  EXPECT_EQ(check(plan, args, message), 6);
  EXPECT_NE(message.find("(s 1 = 64, n2 = 32)"), std::string::npos) << message;

  args = fullPlanArgs();
  args[0] = Arg::dense({4, 60});
  args[1] = Arg::dense({60, 60}, TGC_DTYPE_F16);
  EXPECT_EQ(check(plan, args, message), 7);
  EXPECT_NE(message.find("s1 % 8 == 0 (s 1 = 60)"), std::string::npos)
      << message;

  args = fullPlanArgs();
  args[2].data = 0x20008;
  EXPECT_EQ(check(plan, args, message), 8);
  EXPECT_NE(message.find("data = 0x0000000000020008"), std::string::npos)
      << message;

  // bias starts inside x's 1024 bytes.
  args = fullPlanArgs();
  args[2].data = 0x10100;
  EXPECT_EQ(check(plan, args, message), 9);
  EXPECT_NE(message.find("guard 9 failed: no_alias(x, bias) (arg 0 spans "
                         "[0x0000000000010000, 0x0000000000010400), arg 2 "
                         "spans [0x0000000000010100, 0x0000000000010200)); "
                         "reason: out= buffer"),
            std::string::npos)
      << message;

  args = fullPlanArgs();
  args[0] = Arg::dense({4, 64, 1});
  EXPECT_EQ(check(plan, args, message), 0);
  EXPECT_NE(message.find("guard 0 failed: rank(x) == 2 (rank = 3); reason: x "
                         "is a matrix"),
            std::string::npos)
      << message;

  args.pop_back();
  EXPECT_EQ(check(plan, args, message), -2);
  EXPECT_NE(message.find("takes 3 arguments, got 2"), std::string::npos)
      << message;
}

TEST(GpuPlanGuards, RankFailsBeforeSizesAreRead) {
  // The range guard comes first, but its node reads arg 0's dim 1: the
  // rank guard after it must be the one reported, and no size read.
  Plan plan = parseOrDie("function f\n"
                         "arg 0 f32 2\n"
                         "expr 0 argdim 0 1\n"
                         "guard range n0 1 -1 \"s0 >= 1\" \"\"\n"
                         "guard rank 0 2 \"rank == 2\" \"matrix\"\n");
  Arg scalarLike;
  scalarLike.data = 0x1000;
  tgc_arg_desc desc = scalarLike.desc(); // rank 0, sizes == nullptr
  std::string message;
  EXPECT_EQ(checkPlanGuards(plan, &desc, 1, message), 1);
  EXPECT_NE(message.find("guard 1 failed: rank == 2 (rank = 0)"),
            std::string::npos)
      << message;

  // Without a rank guard, a wrong rank is a signature mismatch (-2).
  Plan noRank = parseOrDie("function f\n"
                           "arg 0 f32 2\n"
                           "expr 0 argdim 0 1\n"
                           "guard range n0 1 -1 \"s0 >= 1\" \"\"\n");
  EXPECT_EQ(checkPlanGuards(noRank, &desc, 1, message), -2);
  EXPECT_NE(message.find("argument 0 has rank 0, the plan expects 2"),
            std::string::npos)
      << message;

  // An evaluation error fails the guard that needed the values.
  Plan divide = parseOrDie("function f\n"
                           "arg 0 f32 1\n"
                           "expr 0 argdim 0 0\n"
                           "expr 1 const 10\n"
                           "expr 2 floordiv n1 n0\n"
                           "guard range n2 0 -1 \"q >= 0\" \"\"\n");
  Arg zero = Arg::dense({0});
  tgc_arg_desc zeroDesc = zero.desc();
  EXPECT_EQ(checkPlanGuards(divide, &zeroDesc, 1, message), 0);
  EXPECT_NE(message.find("division by zero"), std::string::npos) << message;
}

TEST(GpuPlanGuards, NoAliasComparesElementExtents) {
  Plan plan = parseOrDie("function f\n"
                         "arg 0 f32 2\n"
                         "arg 1 f32 1\n"
                         "guard no_alias 0 1 \"\" \"\"\n");
  std::string message;
  Arg a = Arg::dense({2, 8}); // [0x10000, 0x10040)
  Arg b = Arg::dense({4});
  b.data = 0x10040; // right after a: disjoint
  EXPECT_EQ(check(plan, {a, b}, message), -1) << message;
  b.data = 0x1003c; // a's last element
  EXPECT_EQ(check(plan, {a, b}, message), 0);
  EXPECT_NE(message.find("guard 0 failed: no_alias(arg 0, arg 1)"),
            std::string::npos)
      << message;
  // Only the elements count: a strided view skips the memory between its
  // rows' ends, but its extent spans them.
  a.strides = {16, 1}; // [0x10000, 0x10060)
  b.data = 0x10050;
  EXPECT_EQ(check(plan, {a, b}, message), 0);
  // A negative stride reaches below the data pointer.
  a.strides = {-8, 1}; // [0xffe0, 0x10020)
  b.data = 0xfff0;
  EXPECT_EQ(check(plan, {a, b}, message), 0);
  b.data = 0xffd0; // [0xffd0, 0xffe0)
  EXPECT_EQ(check(plan, {a, b}, message), -1) << message;
  // A tensor without elements overlaps nothing.
  Arg empty = Arg::dense({0});
  empty.data = a.data;
  EXPECT_EQ(check(plan, {a, empty}, message), -1) << message;

  EXPECT_NE(parseError("function f\narg 0 f32 1\narg 1 f32 1\n"
                       "guard no_alias 1 1 \"\" \"\"\n")
                .find("two different arguments"),
            std::string::npos);
}

TEST(GpuPlanGuards, NoAliasOutsSweepsSortedExtents) {
  // Args 0 and 2 are out buffers; 1 and 3 are read only.
  Plan plan = parseOrDie("function f\n"
                         "arg 0 f32 1\n"
                         "arg 1 f32 1\n"
                         "arg 2 f32 1\n"
                         "arg 3 f32 1\n"
                         "guard no_alias_outs 2 0 2 \"\" \"\"\n");
  std::string message;
  Arg a = Arg::dense({4}), b = Arg::dense({4}), c = Arg::dense({4}),
      d = Arg::dense({4});
  a.data = 0x1000;
  b.data = 0x2000;
  c.data = 0x3000;
  d.data = 0x4000;
  EXPECT_EQ(check(plan, {a, b, c, d}, message), -1) << message;
  // Two read-only arguments may share memory.
  d.data = b.data + 4;
  EXPECT_EQ(check(plan, {a, b, c, d}, message), -1) << message;
  // A read-only argument inside an out buffer (it starts after it).
  d.data = c.data + 8;
  EXPECT_EQ(check(plan, {a, b, c, d}, message), 0);
  EXPECT_NE(message.find(
                "guard 0 failed: no_alias_outs(arg 0, arg 2) (arg 2 "
                "spans [0x0000000000003000, 0x0000000000003010), arg 3 spans"),
            std::string::npos)
      << message;
  // An out buffer that starts inside a wide read-only argument whose range
  // covers a third, unrelated one in between (the sweep keeps the widest).
  Arg wide = Arg::dense({1024}); // [0x2000, 0x3000)
  wide.data = 0x2000;
  b.data = 0x2100;
  d.data = 0x5000;
  a.data = 0x2800;
  EXPECT_EQ(check(plan, {a, wide, c, d}, message), 0);
  EXPECT_EQ(check(plan, {a, b, c, d}, message), -1) << message;
  // Two out buffers that overlap each other.
  a.data = c.data + 12;
  EXPECT_EQ(check(plan, {a, b, c, d}, message), 0);
  // Empty tensors overlap nothing.
  Arg empty = Arg::dense({0});
  empty.data = c.data;
  EXPECT_EQ(check(plan, {empty, b, c, d}, message), -1) << message;

  EXPECT_NE(parseError("function f\narg 0 f32 1\narg 1 f32 1\n"
                       "guard no_alias_outs 2 1 1 \"\" \"\"\n")
                .find("lists argument 1 twice"),
            std::string::npos);
  EXPECT_NE(parseError("function f\narg 0 f32 1\n"
                       "guard no_alias_outs 0 \"\" \"\"\n")
                .find("no_alias_outs needs 1 to 1 arguments, got 0"),
            std::string::npos);
  // The printed plan parses back to the same guard.
  Plan again = parseOrDie(serializePlan(plan));
  ASSERT_EQ(again.guards.size(), 1u);
  EXPECT_EQ(again.guards[0].kind, GuardKind::NoAliasOuts);
  EXPECT_EQ(again.guards[0].args, (std::vector<int32_t>{0, 2}));
}

TEST(GpuPlanGuards, EmptyAndScalarTensorsAreContiguous) {
  Plan plan = parseOrDie("function f\n"
                         "arg 0 f32 2\n"
                         "arg 1 f32 0\n"
                         "guard contiguous 0 \"\" \"\"\n"
                         "guard contiguous 1 \"\" \"\"\n");
  Arg empty = Arg::dense({0, 5});
  empty.strides = {7, 3};
  Arg scalar;
  std::string message;
  EXPECT_EQ(check(plan, {empty, scalar}, message), -1) << message;
}

} // namespace
