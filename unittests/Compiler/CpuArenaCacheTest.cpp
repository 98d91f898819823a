//===- CpuArenaCacheTest.cpp - the runtime's per-thread arena cache -------===//
//
// tgc-lower-arena takes a call's arena from tgc_arena_acquire and gives it
// back with tgc_arena_release: a thread keeps its last arena, so repeated
// calls reuse memory that is already mapped (no page faults per call).
//
//===----------------------------------------------------------------------===//

#include "gtest/gtest.h"

#include <cstdint>
#include <cstdlib>
#include <thread>

extern "C" void *tgc_arena_acquire(int64_t bytes);
extern "C" void tgc_arena_release(void *arena);

namespace {

bool aligned64(void *p) { return reinterpret_cast<uintptr_t>(p) % 64 == 0; }

TEST(CpuArenaCache, ReleasedArenaIsHandedOutAgainWhenLargeEnough) {
  // On a thread of its own: the cache is per thread, empty at its start.
  std::thread([] {
    void *a = tgc_arena_acquire(100000);
    ASSERT_NE(a, nullptr);
    EXPECT_TRUE(aligned64(a));
    tgc_arena_release(a);
    EXPECT_EQ(tgc_arena_acquire(50000), a); // kept, large enough
    void *b = tgc_arena_acquire(50000);     // the cache is empty now
    ASSERT_NE(b, nullptr);
    EXPECT_NE(b, a);
    // Both back: the larger is kept, the other freed.
    tgc_arena_release(b);
    tgc_arena_release(a);
    EXPECT_EQ(tgc_arena_acquire(90000), a);
    // Too small a kept arena: a new one.
    tgc_arena_release(a);
    void *c = tgc_arena_acquire(1 << 22);
    ASSERT_NE(c, nullptr);
    EXPECT_TRUE(aligned64(c));
    tgc_arena_release(c);
    EXPECT_EQ(tgc_arena_acquire(1 << 22), c);
    // Arenas are the C allocator's memory: free may release them.
    std::free(c);
  }).join();
}

TEST(CpuArenaCache, ZeroAndInvalidSizes) {
  std::thread([] {
    void *z = tgc_arena_acquire(0);
    EXPECT_NE(z, nullptr);
    tgc_arena_release(z);
    EXPECT_EQ(tgc_arena_acquire(-1), nullptr); // an overflowed size
    tgc_arena_release(nullptr);                // no-op
  }).join();
}

TEST(CpuArenaCache, ThreadsKeepTheirOwn) {
  void *mine = tgc_arena_acquire(4096);
  tgc_arena_release(mine);
  void *theirs = nullptr;
  std::thread([&] { theirs = tgc_arena_acquire(4096); tgc_arena_release(theirs); })
      .join();
  EXPECT_NE(theirs, mine);
  EXPECT_EQ(tgc_arena_acquire(4096), mine);
  std::free(mine);
}

} // namespace
