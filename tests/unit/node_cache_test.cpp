// The per-thread node cache (tseq/detail/node_cache.hpp): reuse without operator new, its
// byte budget, turning it off, release at thread exit, poisoning under AddressSanitizer, one
// cache per configuration. Builds with TSEQ_NODE_CACHE_BYTES=0 skip the tests that need it.
// Links tseq_alloc_hook; these tests read its raw counters (current_alloc_stats), which leave
// the cache on, unlike count_allocations.

#include <gtest/gtest.h>
#include <pthread.h>

#include <cstddef>
#include <memory>
#include <new>
#include <optional>
#include <type_traits>
#include <utility>

#include "support/alloc_hook.hpp"
#include "tseq/rrb_vector.hpp"

namespace {

using V = tseq::rrb_vector<int>;
using tseq::detail::node_cache;

V iota(int n) {
  V::builder b;
  for (int i = 0; i < n; ++i) b.push_back(i);
  return std::move(b).persistent();
}

long allocations() { return tseq_test::current_alloc_stats().allocations; }
long deallocations() { return tseq_test::current_alloc_stats().deallocations; }

// The tests of the cache's behaviour, skipped in builds with the cache off (the sanitize and
// clang presets; the sanitize build runs them again as cache_on.*, tests/CMakeLists.txt).
class NodeCache : public ::testing::Test {
 protected:
  void SetUp() override {
    (void)tseq::release_node_cache();
    if (node_cache::budget == 0) GTEST_SKIP() << "the node cache is off (TSEQ_NODE_CACHE_BYTES=0)";
  }
  void TearDown() override { (void)tseq::release_node_cache(); }
};

// Tests that hold with the cache on or off.
class NodeCacheConfigurations : public NodeCache {
 protected:
  void SetUp() override { (void)tseq::release_node_cache(); }
};

TEST_F(NodeCache, FreedNodesServeTheNextAllocationsWithoutOperatorNew) {
  {
    const V v = iota(1000);  // 32 leaves, 1 inner node, a header
    ASSERT_EQ(tseq::node_cache_bytes(), 0U);
  }
  const std::size_t held = tseq::node_cache_bytes();
  EXPECT_GT(held, 0U);
  const long before = allocations();
  {
    const V v = iota(1000);
    EXPECT_EQ(allocations() - before, 0) << "the same shape again must come from the cache";
    EXPECT_EQ(tseq::node_cache_bytes(), 0U) << "every cached block is of the sizes it asks for";
    EXPECT_EQ(v.size(), 1000U);
  }
  EXPECT_EQ(tseq::node_cache_bytes(), held);
}

TEST_F(NodeCache, PersistentEraseInALoopAllocatesNothingFromTheSecondRound) {
  const V v = iota(100000);
  long first_round = 0;
  for (int round = 0; round < 2; ++round) {
    const long before = allocations();
    for (std::size_t i = 0; i < 100; ++i) {
      const V w = v.erase(i * 997);
      ASSERT_EQ(w.size(), 99999U);
      ASSERT_EQ(w[i * 997], static_cast<int>(i * 997 + 1));
    }
    if (round == 0) {
      first_round = allocations() - before;
    } else {
      EXPECT_EQ(allocations() - before, 0) << "first round: " << first_round;
    }
  }
  EXPECT_GT(first_round, 0);
  EXPECT_LT(first_round, 100) << "each erase frees what the next one needs";
}

TEST_F(NodeCache, KeepsAtMostItsBudgetAndFreesTheRest) {
  const long frees_before = deallocations();
  std::size_t bytes = 0;
  {
    const V v = iota(200000);  // about 900 KiB of nodes, over the budget
    bytes = v.storage().bytes;
    ASSERT_GT(bytes, node_cache::budget + node_cache::max_block);
  }
  const std::size_t held = tseq::node_cache_bytes();
  EXPECT_LE(held, node_cache::budget);
  EXPECT_GT(held, node_cache::budget - node_cache::max_block) << "it fills up to its budget";
  EXPECT_GT(deallocations() - frees_before, 0) << "blocks beyond the budget go to operator delete";
  EXPECT_EQ(tseq::release_node_cache(), held);
  EXPECT_EQ(tseq::node_cache_bytes(), 0U);
}

// Regression: a cache filled to its budget by one size (a bulk destroy) kept it for good and
// sent every block of other sizes to operator delete, so a loop that followed allocated each of
// its nodes from operator new again.
TEST_F(NodeCache, AFullCacheMakesRoomForTheSizesFreedNext) {
  const V small = iota(20);        // a bare leaf: its erase copies 19 elements, a size not cached
  { const V big = iota(200000); }  // fills the cache with full leaves and inner nodes
  ASSERT_GT(tseq::node_cache_bytes(), node_cache::budget - node_cache::max_block);
  while (tseq::node_cache_bytes() + node_cache::granule <= node_cache::budget) {  // to the byte
    tseq::detail::cached_free(::operator new(node_cache::granule), node_cache::granule);
  }
  ASSERT_EQ(tseq::node_cache_bytes(), node_cache::budget);
  long second_round = -1;
  for (int round = 0; round < 2; ++round) {
    const long before = allocations();
    for (std::size_t i = 0; i < 100; ++i) {
      const V w = small.erase(i % 20);
      ASSERT_EQ(w.size(), 19U);
    }
    if (round == 1) second_round = allocations() - before;
  }
  EXPECT_EQ(second_round, 0) << "the freed copies must displace blocks of the sizes nobody asks for";
  EXPECT_LE(tseq::node_cache_bytes(), node_cache::budget);
}

TEST_F(NodeCache, TurnedOffItIsEmptyAndEveryNodeGoesThroughOperatorNewAndDelete) {
  { const V v = iota(1000); }
  ASSERT_GT(tseq::node_cache_bytes(), 0U);
  const bool was_on = tseq::detail::set_node_cache_enabled(false);
  EXPECT_TRUE(was_on);
  EXPECT_EQ(tseq::node_cache_bytes(), 0U) << "turning it off empties it";
  const long news = allocations();
  const long deletes = deallocations();
  { const V v = iota(1000); }
  const long made = allocations() - news;
  const long freed = deallocations() - deletes;
  EXPECT_EQ(made, 18);  // 15 full leaves of 64 ints, the tail (40 elements), one inner node, the header
  EXPECT_EQ(freed, 18);
  EXPECT_EQ(tseq::node_cache_bytes(), 0U);
  EXPECT_FALSE(tseq::detail::set_node_cache_enabled(true));
  { const V v = iota(1000); }
  EXPECT_GT(tseq::node_cache_bytes(), 0U);
}

TEST_F(NodeCache, CountingAndFailureInjectionTurnItOffForTheirLifetime) {
  { const V v = iota(1000); }
  ASSERT_GT(tseq::node_cache_bytes(), 0U);
  {
    const tseq_test::fail_allocation_at fail(1);
    EXPECT_EQ(tseq::node_cache_bytes(), 0U);
    EXPECT_THROW((void)iota(100), std::bad_alloc) << "a warm cache must not hide the injected failure";
    EXPECT_TRUE(fail.fired());
  }
  {
    const tseq_test::count_allocations c;
    { const V v = iota(1000); }
    EXPECT_EQ(c.delta().allocations, 18);  // as above
  }
  { const V v = iota(1000); }
  EXPECT_GT(tseq::node_cache_bytes(), 0U) << "on again after the scopes";
}

// Runs f on a new POSIX thread and joins it. (std::thread would free its own state on the new
// thread, which the per-thread counters would see.)
template <class F>
void on_new_thread(F f) {
  pthread_t t{};
  auto run = [](void* p) -> void* {
    (*static_cast<F*>(p))();
    return nullptr;
  };
  ASSERT_EQ(pthread_create(&t, nullptr, run, &f), 0);
  ASSERT_EQ(pthread_join(t, nullptr), 0);
}

// A thread_local destroyed after the thread's cache was released at its exit (constructed
// before the first free armed that release, so destroyed after it): it frees a vector of its
// own, which must go straight to operator delete, then records the thread's counters.
struct exit_probe {
  std::optional<V> late;
  long* unfreed = nullptr;
  std::size_t* held_after = nullptr;
  exit_probe() = default;
  exit_probe(const exit_probe&) = delete;
  exit_probe& operator=(const exit_probe&) = delete;
  ~exit_probe() {
    late.reset();
    if (unfreed != nullptr) *unfreed = allocations() - deallocations();
    if (held_after != nullptr) *held_after = tseq::node_cache_bytes();
  }
};

TEST_F(NodeCache, AThreadReleasesItsCacheWhenItExits) {
  long unfreed = -1;
  std::size_t held_during = 0;
  std::size_t held_after = 1;
  on_new_thread([&] {
    static thread_local exit_probe probe;
    probe.unfreed = &unfreed;
    probe.held_after = &held_after;
    probe.late = iota(1000);
    { const V v = iota(1000); }
    held_during = tseq::node_cache_bytes();
  });
  EXPECT_GT(held_during, 0U);
  EXPECT_EQ(unfreed, 0) << "every block the thread allocated was freed by the time it ended";
  EXPECT_EQ(held_after, 0U) << "a vector freed after the release must not refill the cache";
}

TEST_F(NodeCache, NodesFreedOnAnotherThreadAreCachedThere) {
  std::optional<V> v = iota(1000);
  std::size_t held_there = 0;
  on_new_thread([&] {
    v.reset();
    held_there = tseq::node_cache_bytes();
  });
  EXPECT_GT(held_there, 0U);
  EXPECT_EQ(tseq::node_cache_bytes(), 0U);
}

TEST_F(NodeCacheConfigurations, WithTheCacheOffEveryNodeGoesThroughOperatorNewAndDelete) {
  if (node_cache::budget != 0) GTEST_SKIP() << "the node cache is on";
  for (int round = 0; round < 2; ++round) {
    const long news = allocations();
    const long deletes = deallocations();
    { const V v = iota(1000); }
    EXPECT_EQ(allocations() - news, 18) << "round " << round;  // as with the cache turned off
    EXPECT_EQ(deallocations() - deletes, 18) << "round " << round;
    EXPECT_EQ(tseq::node_cache_bytes(), 0U);
  }
}

// Translation units built with another TSEQ_NODE_CACHE_BYTES, or with AddressSanitizer, use
// another instance of the cache (tests/mixed/asan_app.cpp runs such a program): its blocks
// never serve this one's allocations, and the thread-wide functions cover it too.
TEST_F(NodeCacheConfigurations, AnotherConfigurationHasItsOwnCacheWhichTheThreadFunctionsCover) {
  using other = tseq::detail::basic_node_cache<4096, false>;
  static_assert(!std::is_same_v<other, node_cache>);
  void* const block = ::operator new(64);
  other::deallocate(block, 64);
  EXPECT_EQ(tseq::node_cache_bytes(), 64U) << "node_cache_bytes() counts every configuration's cache";
  long news = allocations();
  void* const mine = tseq::detail::cached_allocate(64);
  EXPECT_EQ(allocations() - news, 1) << "this configuration's cache is empty";
  EXPECT_NE(mine, block);
  tseq::detail::cached_free(mine, 64);
  news = allocations();
  void* const again = other::allocate(60);  // the same size class
  EXPECT_EQ(allocations() - news, 0);
  EXPECT_EQ(again, block);
  other::deallocate(again, 60);
  EXPECT_EQ(tseq::node_cache_bytes(), node_cache::budget > 0 ? 128U : 64U);
  EXPECT_EQ(tseq::release_node_cache(), node_cache::budget > 0 ? 128U : 64U);
  EXPECT_EQ(tseq::node_cache_bytes(), 0U);

  ASSERT_TRUE(tseq::detail::set_node_cache_enabled(false));
  const long deletes = deallocations();
  other::deallocate(other::allocate(64), 64);
  EXPECT_EQ(deallocations() - deletes, 1) << "turned off for the thread, every configuration's cache is";
  EXPECT_EQ(tseq::node_cache_bytes(), 0U);
  EXPECT_FALSE(tseq::detail::set_node_cache_enabled(true));
  other::deallocate(other::allocate(64), 64);
  EXPECT_EQ(tseq::node_cache_bytes(), 64U);
}

#if defined(TSEQ_ASAN)
TEST_F(NodeCache, CachedBlocksArePoisonedUnderAddressSanitizer) {
  const int* first = nullptr;
  {
    const V v = iota(10);  // one leaf
    first = &v[0];
  }
  EXPECT_TRUE(__asan_address_is_poisoned(first)) << "a use after free of a cached node must be reported";
  const V w = iota(10);
  EXPECT_EQ(&w[0], first) << "the same block, taken from the cache";
  EXPECT_FALSE(__asan_address_is_poisoned(first));
}
#endif

}  // namespace
