//===- CacheLocationsTest.cpp - cache keys without source lines -----------===//
//
// numberLocations: the same graph at other lines numbers alike, and a graph
// whose ops share lines differently does not; string literals that are no
// locations stay. Relocation: every form the compiled code's text uses
// (MLIR's `"file":line:col`, formatLocation's `file:line:col`, the kernel
// map's `scope@file:line`) is rewritten, in one pass, and ambiguous lists
// are refused. python/test/test_cache.py covers it through tgc.compile.
//
//===----------------------------------------------------------------------===//

#include "tgc/Compiler/CacheLocations.h"

#include "gtest/gtest.h"

#include <string>

using namespace mlir::tgc;

namespace {

std::string graph(int first, int second, const char *file = "/m/net.py") {
  std::string f = std::string("\"") + file + "\"";
  return "func.func @f(%arg0: tensor<4xf32> loc(\"x\")) -> tensor<4xf32> {\n"
         "  %0 = \"tgc.exp\"(%arg0) : (tensor<4xf32>) -> tensor<4xf32> loc(" +
         f + ":" + std::to_string(first) +
         ":0)\n"
         "  %1 = tgc.add %0, %0 : tensor<4xf32> loc(\"self.fc (Linear)\"(" +
         f + ":" + std::to_string(second) +
         ":0))\n"
         "  return %1 : tensor<4xf32>\n}\n";
}

TEST(CacheLocationsTest, MovedLinesNumberAlike) {
  NumberedLocations a = numberLocations(graph(9, 10));
  NumberedLocations b = numberLocations(graph(19, 27, "/other/net.py"));
  EXPECT_EQ(a.text, b.text);
  ASSERT_EQ(a.locations.size(), 2u);
  EXPECT_EQ(a.locations[0], "\"/m/net.py\":9:0");
  EXPECT_EQ(a.locations[1], "\"/m/net.py\":10:0");
  EXPECT_EQ(b.locations[1], "\"/other/net.py\":27:0");
  // Literals that are no location stay, names included.
  EXPECT_NE(a.text.find("\"tgc.exp\"("), std::string::npos);
  EXPECT_NE(a.text.find("loc(\"x\")"), std::string::npos);
  EXPECT_NE(a.text.find("loc(\"self.fc (Linear)\"(@1))"), std::string::npos);
  // Two ops on one line are another key than two lines.
  EXPECT_NE(numberLocations(graph(9, 9)).text, a.text);
  // Any other change to the text is too.
  std::string other = graph(9, 10);
  other.replace(other.find("tgc.add"), 7, "tgc.mul");
  EXPECT_NE(numberLocations(other).text, a.text);
}

TEST(CacheLocationsTest, EscapesAndUnclosedLiterals) {
  NumberedLocations n =
      numberLocations("a loc(\"q\\\"x.py\":3:0) \"b\\\\\":1 \"open");
  ASSERT_EQ(n.locations.size(), 1u);
  EXPECT_EQ(n.locations[0], "\"q\\\"x.py\":3:0");
  EXPECT_EQ(n.text, "a loc(@0) \"b\\\\\":1 \"open");
}

TEST(CacheLocationsTest, RelocationRewritesEveryForm) {
  NumberedLocations a = numberLocations(graph(9, 10));
  NumberedLocations b = numberLocations(graph(19, 9, "/n/net.py"));
  std::optional<Relocation> r = Relocation::between(a.locations, b.locations);
  ASSERT_TRUE(r);
  EXPECT_FALSE(r->isIdentity());
  // MLIR's printed form, the messages' form, the kernel map's.
  EXPECT_EQ(r->apply("loc(\"/m/net.py\":9:0) loc(\"/m/net.py\":10:0)"),
            "loc(\"/n/net.py\":19:0) loc(\"/n/net.py\":9:0)");
  EXPECT_EQ(r->apply("index out of range at /m/net.py:10:0; again /m/net.py:9"),
            "index out of range at /n/net.py:9:0; again /n/net.py:19");
  EXPECT_EQ(r->apply("self.fc (Linear)@/m/net.py:10|/m/net.py:9"),
            "self.fc (Linear)@/n/net.py:9|/n/net.py:19");
  // Other lines, other files and longer numbers stay.
  EXPECT_EQ(r->apply("/m/net.py:90 /m/net.py:11 /m/other.py:9 net.py"),
            "/m/net.py:90 /m/net.py:11 /m/other.py:9 net.py");
  EXPECT_EQ(r->apply(""), "");
}

TEST(CacheLocationsTest, SameLocationsAreTheIdentity) {
  NumberedLocations a = numberLocations(graph(9, 10));
  std::optional<Relocation> r = Relocation::between(a.locations, a.locations);
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->isIdentity());
  EXPECT_EQ(r->apply("/m/net.py:9"), "/m/net.py:9");
}

TEST(CacheLocationsTest, AmbiguousListsAreRefused) {
  // Two columns of one line going to two lines: a message without its
  // column could not say which.
  EXPECT_FALSE(Relocation::between({"\"a.py\":3:0", "\"a.py\":3:4"},
                                   {"\"a.py\":5:0", "\"a.py\":6:0"}));
  EXPECT_FALSE(Relocation::between({"\"a.py\":3:0"}, {}));
  EXPECT_FALSE(Relocation::between({"not a location"}, {"\"a.py\":3:0"}));
  // Two columns of one line that stay on one line: the columns follow.
  std::optional<Relocation> r = Relocation::between(
      {"\"a.py\":3:0", "\"a.py\":3:4"}, {"\"a.py\":7:0", "\"a.py\":7:8"});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->apply("a.py:3:4 \"a.py\":3:0 a.py:3"),
            "a.py:7:8 \"a.py\":7:0 a.py:7");
}

TEST(CacheLocationsTest, NonAsciiFilesInBothSpellings) {
  // The caller writes UTF-8 as it is; MLIR prints it escaped (the guard
  // code). Both are rewritten, each in its own spelling.
  std::optional<Relocation> r = Relocation::between({"\"/m/\xC3\xBC.py\":3:0"},
                                                    {"\"/n/\xC3\xBC.py\":5:0"});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->apply("at /m/\xC3\xBC.py:3:0"), "at /n/\xC3\xBC.py:5:0");
  EXPECT_EQ(r->apply("loc(\"/m/\\C3\\BC.py\":3:0)"),
            "loc(\"/n/\\C3\\BC.py\":5:0)");
}

TEST(CacheLocationsTest, FileNamesStartAtABoundary) {
  std::optional<Relocation> r =
      Relocation::between({"\"net.py\":1:0"}, {"\"net.py\":2:0"});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->apply("/other/net.py:1 my_net.py:1 net.py:1 (net.py:1:0)"),
            "/other/net.py:1 my_net.py:1 net.py:2 (net.py:2:0)");
}

TEST(CacheLocationsTest, LongestFileWins) {
  std::optional<Relocation> r =
      Relocation::between({"\"net.py\":1:0", "\"/x/net.py\":1:0"},
                          {"\"net.py\":2:0", "\"/x/net.py\":3:0"});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->apply("/x/net.py:1 net.py:1"), "/x/net.py:3 net.py:2");
}

} // namespace
