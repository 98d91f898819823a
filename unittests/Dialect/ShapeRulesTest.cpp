//===- ShapeRulesTest.cpp - PyTorch shape rules ---------------------------===//

#include "tgc/Dialect/Tgc/IR/ShapeRules.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::tgc;

static constexpr int64_t D = ShapedType::kDynamic;

TEST(BroadcastShapes, StaticRules) {
  EXPECT_EQ(*broadcastShapes({{4, 1}, {1, 5}}).shape, (Shape{4, 5}));
  EXPECT_EQ(*broadcastShapes({{3, 1, 7}, {5, 1}}).shape, (Shape{3, 5, 7}));
  EXPECT_EQ(*broadcastShapes({{}, {2, 3}}).shape, (Shape{2, 3}));
  EXPECT_EQ(*broadcastShapes({{0}, {1}}).shape, (Shape{0}));
  EXPECT_EQ(*broadcastShapes({{2, 1}, {1, 3}, {4, 1, 1}}).shape,
            (Shape{4, 2, 3}));
}

TEST(BroadcastShapes, Incompatible) {
  ShapeResult r = broadcastShapes({{3, 4}, {5, 4}});
  ASSERT_FALSE(r);
  EXPECT_NE(r.error.find("not broadcast-compatible"), std::string::npos);
  EXPECT_NE(r.error.find("[3, 4]"), std::string::npos);
  EXPECT_NE(r.error.find("[5, 4]"), std::string::npos);
  EXPECT_FALSE(broadcastShapes({{2}, {0}}));
}

TEST(BroadcastShapes, Dynamic) {
  // ? against a static n != 1 must be n at run time (or 1).
  EXPECT_EQ(*broadcastShapes({{D, 4}, {3, 4}}).shape, (Shape{3, 4}));
  EXPECT_EQ(*broadcastShapes({{3, 4}, {D, 4}}).shape, (Shape{3, 4}));
  // ? against 1 or ? stays ?.
  EXPECT_EQ(*broadcastShapes({{D, 4}, {1, 4}}).shape, (Shape{D, 4}));
  EXPECT_EQ(*broadcastShapes({{D}, {D}}).shape, (Shape{D}));
  EXPECT_EQ(*broadcastShapes({{D}, {}}).shape, (Shape{D}));
}

TEST(MatmulShape, TorchRankRules) {
  EXPECT_EQ(*matmulShape({3}, {3}).shape, (Shape{}));
  EXPECT_EQ(*matmulShape({2, 3}, {3}).shape, (Shape{2}));
  EXPECT_EQ(*matmulShape({3}, {3, 4}).shape, (Shape{4}));
  EXPECT_EQ(*matmulShape({2, 3}, {3, 4}).shape, (Shape{2, 4}));
  EXPECT_EQ(*matmulShape({8, 1, 4, 5}, {3, 5, 6}).shape,
            (Shape{8, 3, 4, 6}));
  EXPECT_EQ(*matmulShape({D, 64}, {64, 32}).shape, (Shape{D, 32}));
  EXPECT_EQ(*matmulShape({7, 2, 3}, {3}).shape, (Shape{7, 2}));
}

TEST(MatmulShape, Errors) {
  ShapeResult r = matmulShape({2, 3}, {4, 5});
  ASSERT_FALSE(r);
  EXPECT_NE(r.error.find("contracts 3 with 4"), std::string::npos);
  EXPECT_FALSE(matmulShape({}, {3}));
  EXPECT_FALSE(matmulShape({2, 2, 3}, {3, 3, 4}));
  // A dynamic contraction size is accepted (a constraint at run time).
  EXPECT_TRUE(matmulShape({2, D}, {3, 4}));
}

TEST(ReduceShape, DimsAndKeepdim) {
  EXPECT_EQ(*reduceShape({4, 5, 6}, {1}, false).shape, (Shape{4, 6}));
  EXPECT_EQ(*reduceShape({4, 5, 6}, {0, 2}, true).shape, (Shape{1, 5, 1}));
  EXPECT_EQ(*reduceShape({4, D}, {0, 1}, false).shape, (Shape{}));
  EXPECT_EQ(*reduceShape({}, {0}, false).shape, (Shape{}));
  EXPECT_FALSE(reduceShape({4, 5}, {2}, false));
  EXPECT_FALSE(reduceShape({4, 5}, {-1}, false));
  EXPECT_FALSE(reduceShape({4, 5}, {1, 1}, false));
  EXPECT_FALSE(reduceShape({4, 5}, {}, false));
}

TEST(WindowOutputSize, MatchesPyTorch) {
  std::string err;
  // conv: 32 + 2*1 - 3 + 1 = 32
  EXPECT_EQ(windowOutputSize(32, 3, 1, 1, 1, false, err), 32);
  // stride 2: floor((32 - 3) / 2) + 1 = 15
  EXPECT_EQ(windowOutputSize(32, 3, 2, 0, 1, false, err), 15);
  // ceil mode: ceil((32 - 3) / 2) + 1 = 16
  EXPECT_EQ(windowOutputSize(32, 3, 2, 0, 1, true, err), 16);
  // ceil mode where the last window would start in the right padding:
  // in=5, k=2, s=2, p=1 -> ceil((5+2-2)/2)+1 = 4, but (4-1)*2 = 6 >= 5+1.
  EXPECT_EQ(windowOutputSize(5, 2, 2, 1, 1, true, err), 3);
  // dilation 2: effective kernel 5: 10 - 5 + 1 = 6
  EXPECT_EQ(windowOutputSize(10, 3, 1, 0, 2, false, err), 6);
  EXPECT_EQ(windowOutputSize(D, 3, 1, 1, 1, false, err), D);
  EXPECT_FALSE(windowOutputSize(2, 5, 1, 0, 1, false, err));
  EXPECT_NE(err.find("does not fit"), std::string::npos);
  EXPECT_FALSE(windowOutputSize(8, 3, 0, 0, 1, false, err));
}

TEST(SliceSize, PythonSemantics) {
  EXPECT_EQ(sliceSize(10, 0, 4, 1), 4);
  EXPECT_EQ(sliceSize(10, 0, 10, 3), 4);
  EXPECT_EQ(sliceSize(10, -3, INT64_MAX, 1), 3);
  EXPECT_EQ(sliceSize(10, 2, -2, 1), 6);
  EXPECT_EQ(sliceSize(10, 8, 2, 1), 0);
  EXPECT_EQ(sliceSize(10, -100, 100, 1), 10);
  EXPECT_EQ(sliceSize(D, 0, 4, 1), D);
}

TEST(FormatShape, PrintsDynamicAsQuestionMark) {
  EXPECT_EQ(formatShape({4, D, 8}), "[4, ?, 8]");
  EXPECT_EQ(formatShape({}), "[]");
}
