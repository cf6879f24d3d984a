// API behaviour of tseq::rrb_vector: construction, access, errors, iterators, persistence.

#include <gtest/gtest.h>

#include <algorithm>
#include <iterator>
#include <numeric>
#include <ranges>
#include <stdexcept>
#include <string>
#include <vector>

#include "tseq/rrb_vector.hpp"

namespace {

using tseq::rrb_vector;

template <class V>
std::vector<int> to_std(const V& v) {
  return std::vector<int>(v.begin(), v.end());
}

std::vector<int> iota(int n, int from = 0) {
  std::vector<int> r(static_cast<std::size_t>(n));
  std::iota(r.begin(), r.end(), from);
  return r;
}

template <class V>
V make(int n, int from = 0) {
  auto s = iota(n, from);
  return V(s.begin(), s.end());
}

static_assert(std::random_access_iterator<rrb_vector<int>::const_iterator>);
static_assert(std::ranges::random_access_range<rrb_vector<int>>);
static_assert(sizeof(rrb_vector<int>) == sizeof(void*), "a vector is one counted handle");

TEST(RrbVector, EmptyVector) {
  const rrb_vector<int> v;
  EXPECT_EQ(v.size(), 0u);
  EXPECT_TRUE(v.empty());
  EXPECT_EQ(v.begin(), v.end());
  EXPECT_EQ(v.height(), 0u);
  EXPECT_THROW((void)v.at(0), std::out_of_range);
  EXPECT_THROW((void)v.front(), std::out_of_range);
  EXPECT_THROW((void)v.back(), std::out_of_range);
  EXPECT_THROW((void)v.pop_back(), std::out_of_range);
  EXPECT_THROW((void)v.erase(0), std::out_of_range);
  EXPECT_EQ(v.take(5).size(), 0u);
  EXPECT_EQ(v.drop(5).size(), 0u);
  EXPECT_EQ(v, rrb_vector<int>{});
  v.check_invariants();
}

TEST(RrbVector, InitializerListAndRange) {
  const rrb_vector<int> a{1, 2, 3};
  EXPECT_EQ(to_std(a), (std::vector<int>{1, 2, 3}));
  for (int n : {1, 31, 32, 33, 64, 1000, 1025, 40000}) {
    auto v = make<rrb_vector<int>>(n);
    v.check_invariants();
    EXPECT_EQ(to_std(v), iota(n)) << n;
    EXPECT_EQ(v.front(), 0);
    EXPECT_EQ(v.back(), n - 1);
  }
}

TEST(RrbVector, IndexAndAt) {
  auto v = make<rrb_vector<int>>(5000);
  for (int i = 0; i < 5000; i += 7) {
    EXPECT_EQ(v[static_cast<std::size_t>(i)], i);
    EXPECT_EQ(v.at(static_cast<std::size_t>(i)), i);
  }
  try {
    (void)v.at(5000);
    FAIL() << "expected out_of_range";
  } catch (const std::out_of_range& e) {
    EXPECT_EQ(std::string(e.what()),
              "rrb_vector::at: index 5000 is out of range [0, 4999] for a vector of 5000 elements");
  }
}

TEST(RrbVector, CheckedUpdatesThrowAndLeaveInputAlone) {
  const auto v = make<rrb_vector<int>>(100);
  EXPECT_THROW((void)v.set(100, 1), std::out_of_range);
  EXPECT_THROW((void)v.insert(101, 1), std::out_of_range);
  EXPECT_THROW((void)v.erase(100), std::out_of_range);
  EXPECT_THROW((void)v.erase(5, 4), std::out_of_range);
  EXPECT_THROW((void)v.erase(5, 101), std::out_of_range);
  auto moved = v;
  EXPECT_THROW((void)std::move(moved).erase(100), std::out_of_range);
  EXPECT_EQ(moved.size(), 100u) << "argument errors are detected before anything is moved";
  EXPECT_EQ(to_std(v), iota(100));
  try {
    (void)v.insert(200, 0);
  } catch (const std::out_of_range& e) {
    EXPECT_EQ(std::string(e.what()),
              "rrb_vector::insert: position 200 is out of range [0, 100] for a vector of 100 elements");
  }
}

TEST(RrbVector, TakeAndDropClamp) {
  const auto v = make<rrb_vector<int>>(70);
  EXPECT_EQ(v.take(1000).size(), 70u);
  EXPECT_TRUE(v.take(1000).same_root(v));
  EXPECT_EQ(v.drop(1000).size(), 0u);
  EXPECT_TRUE(v.drop(0).same_root(v));
  EXPECT_EQ(to_std(v.take(40)), iota(40));
  EXPECT_EQ(to_std(v.drop(40)), iota(30, 40));
}

TEST(RrbVector, PersistentUpdatesLeaveEveryVersionIntact) {
  const auto v0 = make<rrb_vector<int>>(3000);
  const auto v1 = v0.push_back(-1);
  const auto v2 = v0.set(1500, -2);
  const auto v3 = v0.insert(10, -3);
  const auto v4 = v0.erase(2000);
  const auto v5 = v0.erase(100, 2900);
  const auto v6 = v0 + v0;
  const auto v7 = v0.pop_back();
  EXPECT_EQ(to_std(v0), iota(3000));
  EXPECT_EQ(v1.back(), -1);
  EXPECT_EQ(v1.size(), 3001u);
  EXPECT_EQ(v2[1500], -2);
  EXPECT_EQ(v3[10], -3);
  EXPECT_EQ(v3[11], 10);
  EXPECT_EQ(v4[2000], 2001);
  EXPECT_EQ(v5.size(), 200u);
  EXPECT_EQ(v5[100], 2900);
  EXPECT_EQ(v6.size(), 6000u);
  EXPECT_EQ(v6[3000], 0);
  EXPECT_EQ(v7.size(), 2999u);
  for (const auto* v : {&v1, &v2, &v3, &v4, &v5, &v6, &v7}) v->check_invariants();
}

TEST(RrbVector, InPlaceOverloadsMatchPersistentOnes) {
  auto base = make<rrb_vector<int>>(5000);
  auto a = base;  // shared: the && path must copy
  auto shared_result = std::move(a).erase(17);
  EXPECT_EQ(to_std(base), iota(5000));
  EXPECT_EQ(shared_result, base.erase(17));

  auto owned = make<rrb_vector<int>>(5000);  // owned alone: edited in place
  auto r = std::move(owned).erase(17).insert(3, 99).set(4000, 7).push_back(1).pop_back();
  auto expect = base.erase(17).insert(3, 99).set(4000, 7);
  EXPECT_EQ(r, expect);
  r.check_invariants();
}

// Regression: an rvalue operand aliasing the other operand must not be consumed first.
TEST(RrbVector, ConcatenationWithItselfAsAnRvalue) {
  auto v = make<rrb_vector<int>>(100);
  const auto expected = v + v;
  auto a = v;
  a = std::move(a) + a;
  EXPECT_EQ(a, expected);
  auto b = v;
  b = b + std::move(b);
  EXPECT_EQ(b, expected);
  auto c = v;
  c = std::move(c) + std::move(c);
  EXPECT_EQ(c, expected);
  EXPECT_EQ(to_std(v), iota(100));
}

TEST(RrbVector, SameRootIsStructuralIdentity) {
  const auto a = make<rrb_vector<int>>(10);
  const auto b = a;
  const auto c = make<rrb_vector<int>>(10);
  EXPECT_TRUE(a.same_root(b));
  EXPECT_FALSE(a.same_root(c));
  EXPECT_EQ(a, c);
  EXPECT_FALSE(a.same_root(a.set(0, 0)));
}

TEST(RrbVector, EqualityComparesValues) {
  const auto a = make<rrb_vector<int>>(100);
  EXPECT_EQ(a, a.erase(50).insert(50, 50));
  EXPECT_NE(a, a.set(99, 0));
  EXPECT_NE(a, a.pop_back());
}

TEST(RrbVector, IteratorIsRandomAccess) {
  const auto v = make<rrb_vector<int>>(10000).erase(5000).insert(0, -1);
  auto it = v.begin();
  EXPECT_EQ(*it, -1);
  it += 5000;
  EXPECT_EQ(*it, 4999);
  EXPECT_EQ(*(it + 1), 5001);
  EXPECT_EQ(it[2], 5002);
  --it;
  EXPECT_EQ(*it, 4998);
  EXPECT_EQ(v.end() - v.begin(), 10000);
  EXPECT_EQ(*(v.end() - 1), 9999);
  std::vector<int> rev(v.rbegin(), v.rend());
  std::reverse(rev.begin(), rev.end());
  EXPECT_EQ(rev, to_std(v));
  EXPECT_TRUE(std::is_sorted(v.begin() + 1, v.end()));
  EXPECT_EQ(std::lower_bound(v.begin() + 1, v.end(), 7000) - v.begin(), 7000);
}

TEST(RrbVector, ForEachChunkVisitsEverythingInOrder) {
  const auto v = make<rrb_vector<int>>(2000).erase(1000).insert(5, 5);
  std::vector<int> seen;
  std::size_t chunks = 0;
  v.for_each_chunk([&](const int* f, const int* l) {
    ++chunks;
    EXPECT_LE(l - f, 32);
    seen.insert(seen.end(), f, l);
  });
  EXPECT_EQ(seen, to_std(v));
  EXPECT_GE(chunks, 2000u / 32);
}

TEST(RrbVector, BuilderBatchesPushBack) {
  rrb_vector<int>::builder b;
  for (int i = 0; i < 100000; ++i) b.push_back(i);
  const auto v = b.persistent();
  b.push_back(-1);  // after persistent(): copy-on-write, v is unchanged
  EXPECT_EQ(v.size(), 100000u);
  EXPECT_EQ(to_std(v), iota(100000));
  const auto w = std::move(b).persistent();
  EXPECT_EQ(w.size(), 100001u);
  EXPECT_EQ(w.back(), -1);
  v.check_invariants();
  w.check_invariants();
}

TEST(RrbVector, PushBackBuildsADenseTree) {
  rrb_vector<int>::builder b;
  for (int i = 0; i < 32 * 32 * 32 + 32; ++i) b.push_back(i);
  const auto v = b.persistent();
  EXPECT_EQ(v.height(), 3u);  // 32^3 elements fill exactly three levels; the rest is the tail
  v.check_invariants();
}

TEST(RrbVector, HeightBoundIsLogarithmic) {
  using V = rrb_vector<int>;
  EXPECT_EQ(V::height_bound(0), 0u);
  EXPECT_EQ(V::height_bound(1), 1u);
  EXPECT_EQ(V::height_bound(16), 1u);
  EXPECT_EQ(V::height_bound(17), 2u);
  EXPECT_EQ(V::height_bound(256), 2u);
  EXPECT_EQ(V::height_bound(257), 3u);
  EXPECT_EQ(V::height_bound(1'000'000), 5u);
}

}  // namespace
