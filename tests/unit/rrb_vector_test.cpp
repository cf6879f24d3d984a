// API behaviour of tseq::rrb_vector: construction, access, errors, iterators, persistence.
// Typed tests, run at branching 4, 8 and 32 (Bits 2, 3, 5) with leaves as wide as the inner
// nodes, and at 4 with leaves of 16 and 32 with int's default leaves of 64: sizes are computed
// from V::branching and V::leaf_capacity so that every test works on trees of several levels
// in each configuration.

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstddef>
#include <iterator>
#include <limits>
#include <numeric>
#include <random>
#include <ranges>
#include <stdexcept>
#include <string>
#include <vector>

#include "support/error_of.hpp"
#include "tseq/rrb_vector.hpp"

namespace {

using tseq::rrb_vector;
using tseq_test::error_of;

template <class V>
std::vector<int> to_std(const V& v) {
  return std::vector<int>(v.begin(), v.end());
}

std::vector<int> iota(std::size_t n, int from = 0) {
  std::vector<int> r(n);
  std::iota(r.begin(), r.end(), from);
  return r;
}

template <class V>
V make(std::size_t n, int from = 0) {
  auto s = iota(n, from);
  return V(s.begin(), s.end());
}

int as_int(std::size_t i) { return static_cast<int>(i); }
std::ptrdiff_t as_diff(std::size_t i) { return static_cast<std::ptrdiff_t>(i); }

// Element counts for a vector built from a range (full leaves, the last 1..BL elements in the
// tail) whose tree has exactly `levels` levels: more than BL * B^(levels-2) elements in the
// tree, at most BL * B^(levels-1); `extra` more in the tail.
template <class V>
constexpr std::size_t with_levels(unsigned levels, std::size_t extra) {
  std::size_t tree = V::leaf_capacity;
  for (unsigned l = 1; l < levels; ++l) tree *= V::branching;
  return tree + extra;
}

template <class V>
struct sizes {
  static constexpr std::size_t B = V::branching;
  static constexpr std::size_t BL = V::leaf_capacity;
  // Three levels in every configuration: 3 BL B elements in the tree, BL/2 in the tail.
  static constexpr std::size_t n3 = 3 * BL * B + BL / 2;
  // Four levels: BL B^2 + BL elements in the tree.
  static constexpr std::size_t n4 = with_levels<V>(3, 2 * BL + BL / 2);
};

template <unsigned Bits, unsigned LBits = Bits>
struct bits {
  static constexpr unsigned value = Bits;
  static constexpr unsigned leaf = LBits;
};

template <class P>
class RrbVector : public ::testing::Test {
 protected:
  using V = rrb_vector<int, P::value, P::leaf>;
  static_assert(std::random_access_iterator<typename V::const_iterator>);
  static_assert(std::ranges::random_access_range<V>);
  static_assert(sizeof(V) == sizeof(void*), "a vector is one counted handle");
};

using Branchings = ::testing::Types<bits<2>, bits<3>, bits<5>, bits<2, 4>, bits<5, 6>>;
static_assert(std::is_same_v<rrb_vector<int>, rrb_vector<int, 5, 6>>, "int's default leaves hold 64");

class BranchingName {
 public:
  template <class P>
  static std::string GetName(int) {
    std::string name = "B" + std::to_string(1u << P::value);
    if (P::leaf != P::value) name += "L" + std::to_string(1u << P::leaf);
    return name;
  }
};

TYPED_TEST_SUITE(RrbVector, Branchings, BranchingName);

TYPED_TEST(RrbVector, EmptyVectorHasNoElementsAndCheckedAccessThrows) {
  using V = typename TestFixture::V;
  const V v;
  EXPECT_EQ(v.size(), 0u);
  EXPECT_TRUE(v.empty());
  EXPECT_EQ(v.begin(), v.end());
  EXPECT_EQ(v.levels(), 0u);
  EXPECT_THROW((void)v.at(0), tseq::IndexError);
  EXPECT_THROW((void)v.front(), tseq::IndexError);
  EXPECT_THROW((void)v.back(), tseq::IndexError);
  EXPECT_THROW((void)v.pop_back(), tseq::IndexError);
  EXPECT_THROW((void)v.erase(0), tseq::IndexError);
  EXPECT_EQ(error_of<tseq::IndexError>([&] { (void)v.at(3); }), "rrb_vector::at: index 3 on an empty vector");
  EXPECT_EQ(v.take(5).size(), 0u);
  EXPECT_EQ(v.drop(5).size(), 0u);
  EXPECT_EQ(v, V{});
  v.check_invariants();
}

TYPED_TEST(RrbVector, RangeConstructionKeepsOrderAtEveryLevelCount) {
  using V = typename TestFixture::V;
  constexpr std::size_t B = V::branching;
  constexpr std::size_t BL = V::leaf_capacity;
  const V a{1, 2, 3};
  EXPECT_EQ(to_std(a), (std::vector<int>{1, 2, 3}));
  // Around each boundary: one leaf, a tree of one leaf, of one level of inner nodes, of two.
  const std::size_t ns[] = {1, BL - 1, BL, BL + 1, 2 * BL, BL * B, BL * B + 1, BL * B + BL + 1, sizes<V>::n4};
  for (std::size_t n : ns) {
    const auto v = make<V>(n);
    v.check_invariants();
    EXPECT_EQ(to_std(v), iota(n)) << n;
    EXPECT_EQ(v.front(), 0);
    EXPECT_EQ(v.back(), as_int(n) - 1);
    EXPECT_LE(v.levels(), V::levels_bound(n));
  }
  EXPECT_EQ(make<V>(BL).levels(), 0u) << "BL elements are one leaf, the tail";
  EXPECT_EQ(make<V>(BL + 1).levels(), 1u);
  EXPECT_EQ(make<V>(BL * B + 1).levels(), 2u);
  EXPECT_EQ(make<V>(BL * B + BL + 1).levels(), 3u);
  EXPECT_EQ(make<V>(sizes<V>::n4).levels(), 4u);
}

TYPED_TEST(RrbVector, IndexAndAtReturnEveryElementAndAtNamesTheBadIndex) {
  using V = typename TestFixture::V;
  constexpr std::size_t n = sizes<V>::n3;
  const auto v = make<V>(n);
  ASSERT_EQ(v.levels(), 3u);
  for (std::size_t i = 0; i < n; ++i) {
    ASSERT_EQ(v[i], as_int(i));
    ASSERT_EQ(v.at(i), as_int(i));
  }
  EXPECT_EQ(error_of<tseq::IndexError>([&] { (void)v.at(n); }),
            "rrb_vector::at: index " + std::to_string(n) + " is out of range [0, " + std::to_string(n - 1) +
                "] for a vector of " + std::to_string(n) + " elements");
  EXPECT_EQ(error_of<tseq::IndexError>([&] { (void)v.at(static_cast<std::size_t>(-1)); }),
            "rrb_vector::at: index " + std::to_string(static_cast<std::size_t>(-1)) + " is out of range [0, " +
                std::to_string(n - 1) + "] for a vector of " + std::to_string(n) + " elements");
}

// Every checked update, const& and &&, throws tseq::IndexError with its message and leaves
// its input as it was (for &&: "argument errors are detected before anything is moved").
TYPED_TEST(RrbVector, CheckedUpdatesThrowTheirMessageAndLeaveTheInputUnchanged) {
  using V = typename TestFixture::V;
  constexpr std::size_t n = sizes<V>::n3;
  const auto v = make<V>(n);
  ASSERT_EQ(v.levels(), 3u);
  const std::string N = std::to_string(n);
  const std::string index_error =
      " is out of range [0, " + std::to_string(n - 1) + "] for a vector of " + N + " elements";
  EXPECT_EQ(error_of<tseq::IndexError>([&] { (void)v.set(n, 1); }), "rrb_vector::set: index " + N + index_error);
  EXPECT_EQ(error_of<tseq::IndexError>([&] { (void)v.erase(n); }), "rrb_vector::erase: index " + N + index_error);
  EXPECT_EQ(error_of<tseq::IndexError>([&] { (void)v.insert(n + 1, 0); }),
            "rrb_vector::insert: position " + std::to_string(n + 1) + " is out of range [0, " + N +
                "] for a vector of " + N + " elements");
  EXPECT_EQ(error_of<tseq::IndexError>([&] { (void)v.erase(5, 4); }),
            "rrb_vector::erase: range [5, 4) is not within [0, " + N + "]");
  EXPECT_EQ(error_of<tseq::IndexError>([&] { (void)v.erase(5, n + 1); }),
            "rrb_vector::erase: range [5, " + std::to_string(n + 1) + ") is not within [0, " + N + "]");
  EXPECT_EQ(error_of<tseq::IndexError>([&] { (void)V().pop_back(); }),
            "rrb_vector::pop_back: index 0 on an empty vector");
  EXPECT_EQ(to_std(v), iota(n));

  auto moved = v;  // the && overloads, on a vector sharing its nodes with v
  EXPECT_THROW((void)std::move(moved).set(n, 1), tseq::IndexError);
  EXPECT_THROW((void)std::move(moved).insert(n + 1, 1), tseq::IndexError);
  EXPECT_THROW((void)std::move(moved).erase(n), tseq::IndexError);
  EXPECT_THROW((void)std::move(moved).erase(1, n + 1), tseq::IndexError);
  EXPECT_TRUE(moved.identical_to(v)) << "argument errors are detected before anything is moved";
  auto alone = make<V>(n);  // and on one holding its nodes alone
  EXPECT_THROW((void)std::move(alone).erase(n), tseq::IndexError);
  EXPECT_THROW((void)std::move(alone).set(n, 1), tseq::IndexError);
  EXPECT_EQ(to_std(alone), iota(n));
  alone.check_invariants();
  V empty;
  EXPECT_THROW((void)std::move(empty).pop_back(), tseq::IndexError);
  EXPECT_TRUE(empty.empty());
  EXPECT_EQ(to_std(v), iota(n));
}

TYPED_TEST(RrbVector, TakeAndDropClampTheCountAndReturnTheSameVersionWhenNothingChanges) {
  using V = typename TestFixture::V;
  constexpr std::size_t n = sizes<V>::n3;
  constexpr std::size_t cut = n / 2 + 3;
  const auto v = make<V>(n);
  ASSERT_EQ(v.levels(), 3u);
  EXPECT_EQ(v.take(n + 1000).size(), n);
  EXPECT_TRUE(v.take(n).identical_to(v));
  EXPECT_TRUE(v.take(n + 1000).identical_to(v));
  EXPECT_EQ(v.drop(n + 1000).size(), 0u);
  EXPECT_EQ(v.drop(n).size(), 0u);
  EXPECT_TRUE(v.drop(0).identical_to(v));
  EXPECT_EQ(to_std(v.take(cut)), iota(cut));
  EXPECT_EQ(to_std(v.drop(cut)), iota(n - cut, as_int(cut)));
  v.take(cut).check_invariants();
  v.drop(cut).check_invariants();
}

TYPED_TEST(RrbVector, PersistentUpdatesLeaveEveryVersionIntact) {
  using V = typename TestFixture::V;
  constexpr std::size_t n = sizes<V>::n3;
  const auto v0 = make<V>(n);
  ASSERT_EQ(v0.levels(), 3u);
  const std::size_t a = n / 2;
  const std::size_t b = 2 * n / 3;
  const std::size_t lo = n / 30;
  const std::size_t hi = n - n / 30;
  const auto v1 = v0.push_back(-1);
  const auto v2 = v0.set(a, -2);
  const auto v3 = v0.insert(10, -3);
  const auto v4 = v0.erase(b);
  const auto v5 = v0.erase(lo, hi);
  const auto v6 = v0 + v0;
  const auto v7 = v0.pop_back();
  EXPECT_EQ(to_std(v0), iota(n));
  EXPECT_EQ(v1.back(), -1);
  EXPECT_EQ(v1.size(), n + 1);
  EXPECT_EQ(v2[a], -2);
  EXPECT_EQ(v2[a + 1], as_int(a + 1));
  EXPECT_EQ(v3[10], -3);
  EXPECT_EQ(v3[11], 10);
  EXPECT_EQ(v4[b], as_int(b + 1));
  EXPECT_EQ(v5.size(), n - (hi - lo));
  EXPECT_EQ(v5[lo], as_int(hi));
  EXPECT_EQ(v6.size(), 2 * n);
  EXPECT_EQ(v6[n], 0);
  EXPECT_EQ(v7.size(), n - 1);
  for (const auto* v : {&v0, &v1, &v2, &v3, &v4, &v5, &v6, &v7}) v->check_invariants();
}

TYPED_TEST(RrbVector, InPlaceOverloadsGiveTheSameValuesAsPersistentOnes) {
  using V = typename TestFixture::V;
  constexpr std::size_t n = sizes<V>::n3;
  const auto base = make<V>(n);
  auto a = base;  // shared: the && path must copy
  auto shared_result = std::move(a).erase(17);
  EXPECT_EQ(to_std(base), iota(n));
  EXPECT_EQ(shared_result, base.erase(17));

  auto owned = make<V>(n);  // owned alone: edited in place
  const std::size_t far = 4 * n / 5;
  auto r = std::move(owned).erase(17).insert(3, 99).set(far, 7).push_back(1).pop_back().drop(5).take(n - 20);
  auto expect = base.erase(17).insert(3, 99).set(far, 7).drop(5).take(n - 20);
  EXPECT_EQ(r, expect);
  r.check_invariants();
}

// The lifetime rule of rrb_vector.hpp: no const& update changes what a reference refers to;
// an && update edits in place only the nodes the moved vector holds alone, so a reference
// taken from it may see the new value (here it does: same address, 999), while a reference
// into a version sharing those nodes keeps its value. Positions in the tree and in the tail.
TYPED_TEST(RrbVector, ReferencesFollowTheLifetimeRuleOfConstAndRvalueUpdates) {
  using V = typename TestFixture::V;
  constexpr std::size_t n = sizes<V>::n3;
  for (const std::size_t i : {std::size_t{0}, n / 2, n - 1}) {
    const int before = as_int(i);
    {  // const&: the input and every reference into it are unchanged
      const auto v = make<V>(n);
      const int* r = &v[i];
      const auto w = v.set(i, 999);
      EXPECT_EQ(*r, before) << i;
      EXPECT_EQ(w[i], 999) << i;
      EXPECT_NE(&w[i], r) << i;
    }
    {  // && on a vector sharing its nodes with u: u's references are unaffected
      auto v = make<V>(n);
      const auto u = v;
      const int* r = &u[i];
      const auto w = std::move(v).set(i, 999);
      EXPECT_EQ(*r, before) << i;
      EXPECT_EQ(u[i], before) << i;
      EXPECT_EQ(w[i], 999) << i;
    }
    {  // && on a vector held alone: edited in place, its reference sees the new value
      auto v = make<V>(n);
      const int* r = &v[i];
      const auto w = std::move(v).set(i, 999);
      EXPECT_EQ(&w[i], r) << i;
      EXPECT_EQ(*r, 999) << i;
    }
  }
}

// Regression: an rvalue operand aliasing the other operand must not be consumed first.
TYPED_TEST(RrbVector, RvalueConcatenationWithItselfDoesNotConsumeTheRightOperand) {
  using V = typename TestFixture::V;
  constexpr std::size_t n = sizes<V>::n3;
  auto v = make<V>(n);
  const auto expected = v + v;
  ASSERT_EQ(expected.size(), 2 * n);
  auto a = v;
  a = std::move(a) + a;
  EXPECT_EQ(a, expected);
  auto b = v;
  b = b + std::move(b);
  EXPECT_EQ(b, expected);
  auto c = v;
  c = std::move(c) + std::move(c);
  EXPECT_EQ(c, expected);
  EXPECT_EQ(to_std(v), iota(n));
}

TYPED_TEST(RrbVector, IdenticalToIsVersionIdentityNotValueEquality) {
  using V = typename TestFixture::V;
  const auto a = make<V>(sizes<V>::n3);
  const auto b = a;
  const auto c = make<V>(sizes<V>::n3);
  EXPECT_TRUE(a.identical_to(b));
  EXPECT_FALSE(a.identical_to(c));
  EXPECT_EQ(a, c);
  EXPECT_FALSE(a.identical_to(a.set(0, 0)));
  EXPECT_TRUE(V().identical_to(V()));
}

TYPED_TEST(RrbVector, EqualityComparesValuesWhateverTheTreeShape) {
  using V = typename TestFixture::V;
  constexpr std::size_t n = sizes<V>::n3;
  const auto a = make<V>(n);
  const auto reshaped = a.erase(n / 2).insert(n / 2, as_int(n / 2));
  EXPECT_EQ(a, reshaped);
  EXPECT_EQ(a, a.take(n / 3) + a.drop(n / 3));
  EXPECT_NE(a, a.set(n - 1, 0));
  EXPECT_NE(a, a.pop_back());
}

TYPED_TEST(RrbVector, IteratorSupportsRandomAccessAcrossLeaves) {
  using V = typename TestFixture::V;
  constexpr std::size_t n = sizes<V>::n4;
  const auto v = make<V>(n).erase(n / 2).insert(0, -1);  // -1, 0, ..., n/2 - 1, n/2 + 1, ..., n - 1
  ASSERT_EQ(v.levels(), 4u);
  const std::size_t h = n / 2;
  auto it = v.begin();
  EXPECT_EQ(*it, -1);
  it += as_diff(h);
  EXPECT_EQ(*it, as_int(h) - 1);
  EXPECT_EQ(*(it + 1), as_int(h) + 1);
  EXPECT_EQ(it[2], as_int(h) + 2);
  --it;
  EXPECT_EQ(*it, as_int(h) - 2);
  EXPECT_EQ(it.index(), h - 1);
  EXPECT_EQ(v.end() - v.begin(), as_diff(n));
  EXPECT_EQ(*(v.end() - 1), as_int(n) - 1);
  std::vector<int> rev(v.rbegin(), v.rend());
  std::reverse(rev.begin(), rev.end());
  EXPECT_EQ(rev, to_std(v));
  EXPECT_TRUE(std::is_sorted(v.begin() + 1, v.end()));
  const std::size_t q = 3 * n / 4;
  EXPECT_EQ(std::lower_bound(v.begin() + 1, v.end(), as_int(q)) - v.begin(), as_diff(q));
  // Stepping backwards over every leaf boundary.
  std::vector<int> back;
  for (auto j = v.end(); j != v.begin();) back.push_back(*--j);
  std::reverse(back.begin(), back.end());
  EXPECT_EQ(back, to_std(v));
}

// One chunk per leaf (the tail included), each the leaf's own storage: no run split or copied.
TYPED_TEST(RrbVector, ForEachChunkVisitsEachLeafInPlaceInOrder) {
  using V = typename TestFixture::V;
  constexpr std::size_t BL = V::leaf_capacity;
  constexpr std::size_t n = sizes<V>::n3;
  const auto v = make<V>(n).erase(n / 2).insert(5, 5);
  std::vector<int> seen;
  std::size_t chunks = 0;
  v.for_each_chunk([&](const int* f, const int* l) {
    ++chunks;
    EXPECT_GE(l - f, 1);
    EXPECT_LE(static_cast<std::size_t>(l - f), BL);
    EXPECT_EQ(f, &v[seen.size()]) << "chunk " << chunks << " is not the leaf's storage";
    seen.insert(seen.end(), f, l);
  });
  EXPECT_EQ(seen, to_std(v));
  EXPECT_EQ(chunks, v.storage().leaves);
}

// The walk of a dense leaf parent hands f runs of BL of fixed length but for its last leaf
// (for_each_leaf's visit_full): built trees of 1 to B + 2 leaves (a lone leaf, one leaf
// parent, two under a root), of three and four levels, and of more than 8,192 `int`s (over
// 32 KB: walked with the prefetch window inside each node, smaller ones without), every leaf
// full, then the tail; the same with an element of the tree's last leaf erased (a dense leaf
// parent whose last leaf is short); and a join of two. Each is seen whole, in order, in each
// leaf's storage.
TYPED_TEST(RrbVector, ForEachChunkWalksBuiltTreesLeafByLeaf) {
  using V = typename TestFixture::V;
  constexpr std::size_t B = V::branching;
  constexpr std::size_t BL = V::leaf_capacity;
  std::vector<std::size_t> ns;
  for (std::size_t leaves = 1; leaves <= B + 2; ++leaves) ns.push_back(leaves * BL + BL / 2);
  ns.push_back(with_levels<V>(3, 1));
  ns.push_back(with_levels<V>(4, BL - 1));
  ns.push_back((20000 / BL) * BL + BL / 2);  // 32 KB of ints: cached_walk_bytes
  for (const std::size_t n : ns) {
    for (int shape = 0; shape < 3; ++shape) {
      // The tail holds fewer than BL (n % BL != 0 above), so element n - BL is in the tree's
      // last leaf.
      std::vector<int> want = iota(n);
      V v = make<V>(n);
      if (shape == 1) {
        v = v.erase(n - BL);
        want.erase(want.end() - as_diff(BL));
      } else if (shape == 2) {
        v = make<V>(n / 3) + make<V>(n - n / 3, as_int(n / 3));
      }
      std::vector<int> seen;
      std::vector<std::size_t> lens;
      v.for_each_chunk([&](const int* f, const int* l) {
        EXPECT_EQ(f, &v[seen.size()]) << "n " << n << ": chunk " << lens.size() << " is not the leaf's storage";
        lens.push_back(static_cast<std::size_t>(l - f));
        seen.insert(seen.end(), f, l);
      });
      ASSERT_EQ(seen, want) << "n " << n << ", shape " << shape;
      EXPECT_EQ(lens.size(), v.storage().leaves) << "n " << n;
      if (shape == 0) {
        // Built: the leaves of the tree all full, then the tail.
        for (std::size_t k = 0; k + 1 < lens.size(); ++k) EXPECT_EQ(lens[k], BL) << "n " << n << ", leaf " << k;
      }
    }
  }
}

TYPED_TEST(RrbVector, BuilderSnapshotsAreUnaffectedByLaterPushes) {
  using V = typename TestFixture::V;
  constexpr std::size_t n = sizes<V>::n4;
  typename V::builder b;
  for (std::size_t i = 0; i < n; ++i) b.push_back(as_int(i));
  EXPECT_EQ(b.size(), n);
  const auto v = b.persistent();
  b.push_back(-1);  // after persistent(): copy-on-write, v is unchanged
  EXPECT_EQ(v.size(), n);
  EXPECT_EQ(to_std(v), iota(n));
  const auto w = std::move(b).persistent();
  EXPECT_EQ(w.size(), n + 1);
  EXPECT_EQ(w.back(), -1);
  v.check_invariants();
  w.check_invariants();
  // A builder started from a vector shares it until changed.
  typename V::builder c(v);
  c.push_back(-2);
  EXPECT_EQ(to_std(v), iota(n));
  EXPECT_EQ(std::move(c).persistent(), v.push_back(-2));
}

TYPED_TEST(RrbVector, BuilderFillsLevelsDenselyBToTheKElementsPlusATailAreKLevels) {
  using V = typename TestFixture::V;
  constexpr std::size_t BL = V::leaf_capacity;
  for (unsigned k = 1; k <= 3; ++k) {
    typename V::builder b;
    const std::size_t n = with_levels<V>(k, BL);  // BL B^(k-1) in the tree, the last BL in the tail
    for (std::size_t i = 0; i < n; ++i) b.push_back(as_int(i));
    const auto v = b.persistent();
    EXPECT_EQ(v.levels(), k) << n << " elements";
    v.check_invariants();
    EXPECT_EQ(v.push_back(0).levels(), k + 1) << "one more leaf needs another level";
  }
}

// One edit of v and of its model m: element p erased, or x inserted before it; persistent, or
// in place (v moved in).
template <class V>
void edit_both(V& v, std::vector<int>& m, bool erase, std::size_t p, int x, bool in_place = false) {
  if (erase) {
    v = in_place ? std::move(v).erase(p) : v.erase(p);
    m.erase(m.begin() + as_diff(p));
  } else {
    v = in_place ? std::move(v).insert(p, x) : v.insert(p, x);
    m.insert(m.begin() + as_diff(p), x);
  }
}

// A tree of about n4 elements after `edits` random persistent (or, with in_place, in-place)
// erases and inserts (relaxed nodes at every level), with its model.
template <class V>
std::pair<V, std::vector<int>> edited(std::size_t edits, unsigned seed, bool in_place = false) {
  V v = make<V>(sizes<V>::n4);
  std::vector<int> m = to_std(v);
  std::mt19937 rng(seed);
  for (std::size_t k = 0; k < edits; ++k) {
    edit_both(v, m, k % 2 == 0, rng() % m.size(), -as_int(k), in_place);
  }
  return {std::move(v), std::move(m)};
}

// A relaxed root of few children (at most B / 4) finds its child by counting the size-table
// entries the index has passed (relaxed_child_few), a larger one by the hint's guess: reads
// are right through relaxed roots of 2 to about B children, after random persistent edits of
// trees of two levels of inner nodes, and the test sees both kinds of root.
TYPED_TEST(RrbVector, LookUpsAreRightThroughARelaxedRootOfAnyChildCount) {
  using V = typename TestFixture::V;
  using U = tseq::detail::rrb_unchecked;
  constexpr std::size_t B = sizes<V>::B;
  constexpr std::size_t BL = sizes<V>::BL;
  std::size_t few = 0;  // relaxed roots of at most B / 4 children read through, and of more
  std::size_t many = 0;
  std::mt19937 rng(23);
  for (std::size_t c = 2; c <= B; ++c) {
    // c leaf parents' worth, less a sixth: a root of about c children once edits relax it.
    const std::size_t n = c * BL * B - c * BL * B / 6;
    V v = make<V>(n);
    std::vector<int> m = to_std(v);
    for (std::size_t k = 0; k < 2 * B; ++k) {
      edit_both(v, m, k % 2 == 0, rng() % m.size(), -as_int(k));
    }
    const auto root = U::root_shape(v);
    SCOPED_TRACE("n " + std::to_string(n) + ", root of " + std::to_string(root.children) + " children" +
                 (root.relaxed ? " (relaxed)" : " (dense)"));
    if (root.relaxed) ++(root.children <= B / 4 ? few : many);
    for (std::size_t i = 0; i < m.size(); ++i) ASSERT_EQ(v[i], m[i]) << "index " << i;
  }
  if (B / 4 >= 2) {
    EXPECT_GE(few, 1u) << "no relaxed root of at most B / 4 children was read through";
  }
  EXPECT_GE(many, 1u) << "no relaxed root of more than B / 4 children was read through";
}

// An int that is not trivially copyable, with moves that never throw (as a tensor handle's):
// updates take the general path (no packed roots) and its nothrow-move steps.
struct Handle {
  int v = 0;
  Handle() = default;
  Handle(int x) : v(x) {}  // NOLINT(google-explicit-constructor)
  Handle(const Handle& o) : v(o.v) {}
  Handle(Handle&& o) noexcept : v(o.v) {}
  Handle& operator=(const Handle& o) {
    v = o.v;
    return *this;
  }
  Handle& operator=(Handle&& o) noexcept {
    v = o.v;
    return *this;
  }
  ~Handle() = default;
};

template <class V>
std::vector<int> values_of(const V& v) {
  std::vector<int> r;
  for (const Handle& h : v) r.push_back(h.v);
  return r;
}

// A root of B leaves with room in them keeps its height when an insert overflows the full
// tail: the tail's first element goes to the end of the tree (into the last leaf, or spread
// from it through the whole root) instead of joining it as leaf B + 1, which would split the
// root. Without room, the root splits. The operand is unchanged either way.
TYPED_TEST(RrbVector, AnInsertOverflowingTheTailKeepsARootOfBLeavesWithRoomAtItsHeight) {
  using P = TypeParam;
  using V = rrb_vector<Handle, P::value, P::leaf>;
  static_assert(!tseq::detail::rrb_unchecked::packs<V>);
  constexpr std::size_t B = sizes<V>::B;
  constexpr std::size_t BL = sizes<V>::BL;
  const std::vector<int> full_m = iota(B * BL + BL);  // B full leaves and a full tail
  const V full(full_m.begin(), full_m.end());
  ASSERT_EQ(full.levels(), 2u);
  for (const std::size_t hole : {std::size_t{0}, B * BL / 2, B * BL - 1}) {  // the leaf given room: first, middle, last
    SCOPED_TRACE("erased at " + std::to_string(hole));
    std::vector<int> m = full_m;
    m.erase(m.begin() + as_diff(hole));
    const V roomy = full.erase(hole);
    ASSERT_EQ(roomy.levels(), 2u);
    for (const std::size_t at : {m.size() - BL, m.size() - 1}) {  // before the tail's first element, and inside it
      std::vector<int> want = m;
      want.insert(want.begin() + as_diff(at), -1);
      const V r = roomy.insert(at, -1);
      r.check_invariants();
      EXPECT_EQ(r.levels(), 2u) << "insert at " << at;
      EXPECT_EQ(values_of(r), want) << "insert at " << at;
      EXPECT_EQ(values_of(roomy), m) << "the operand changed";
      V alone(full_m.begin(), full_m.end());
      const V moved = std::move(alone).erase(hole).insert(at, -1);  // its own nodes, edited in place
      moved.check_invariants();
      EXPECT_EQ(moved.levels(), 2u) << "in place, insert at " << at;
      EXPECT_EQ(values_of(moved), want) << "in place, insert at " << at;
    }
  }
  // No room: the root splits.
  std::vector<int> want = full_m;
  want.insert(want.end() - 1, -1);
  const V r = full.insert(full_m.size() - 1, -1);
  r.check_invariants();
  EXPECT_EQ(r.levels(), 3u);
  EXPECT_EQ(values_of(r), want);
  EXPECT_EQ(values_of(full), full_m);
}

// So a tree of up to B * BL elements stays one leaf parent under random persistent edits (as
// a graph executor's sequence of a thousand tensors does): a full leaf spreads through the
// whole root (spread_insert), and the tail overflows into it (above). Checked after every
// edit, with the model.
TYPED_TEST(RrbVector, PersistentRandomEditsKeepATreeThatFitsOneLeafParentAtOneLevel) {
  using P = TypeParam;
  using V = rrb_vector<Handle, P::value, P::leaf>;
  constexpr std::size_t B = sizes<V>::B;
  constexpr std::size_t BL = sizes<V>::BL;
  std::vector<int> m = iota(B * BL);
  V v(m.begin(), m.end());
  std::mt19937 rng(31);
  for (int k = 0; k < 4000; ++k) {
    const std::size_t p = rng() % m.size();
    edit_both(v, m, k % 2 == 0, p, -k);
    ASSERT_LE(v.levels(), 2u) << "edit " << k << " at " << p << ", size " << m.size();
  }
  v.check_invariants();
  EXPECT_EQ(values_of(v), m);
}

// The hint (I6) only says where a look-up starts in a size table: with every inner node's hint
// set to a wrong value (0: child 0, 0xFFFF: past the last, 1.0: the radix guess), indexing,
// iteration and updates still give the model's elements, and the updates' copies of those
// nodes (which keep the wrong hint) too. The tree (about 2^15 elements at B = 32) is within
// bucket_lookup_max, so above the leaf parents a node of more than B / 4 children goes through
// relaxed_child_near, whose guess moved by one is then still wrong for most calls, and its
// loops find the child (counted in a scratch build of this tree, 2026-12-07, one pass of
// reads: 23,133 to 29,950 of 32,832 calls at B = 32 by the hint; 189 to 348 of 531 at B = 8;
// 0 to 34 of 146 at B = 4). A node of fewer children (the root here) counts its table and
// reads no hint.
TYPED_TEST(RrbVector, LookUpsAndUpdatesAreRightFromAnyHint) {
  using V = typename TestFixture::V;
  using U = tseq::detail::rrb_unchecked;
  auto edit = edited<V>(3 * sizes<V>::n3, 17);
  V& v = edit.first;
  const std::vector<int>& m = edit.second;
  ASSERT_GE(v.levels(), 3u);
  const std::size_t n = m.size();
  for (const std::uint16_t hint :
       {std::uint16_t{0}, std::uint16_t{1}, std::uint16_t{1u << 11}, std::uint16_t{1u << 12}, std::uint16_t{0xFFFF}}) {
    SCOPED_TRACE("hint " + std::to_string(hint));
    U::set_hints(v, hint);
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(v[i], m[i]) << "index " << i;
    EXPECT_EQ(to_std(v), m);
    for (const std::size_t p : {std::size_t{0}, n / 3, n / 2, n - 1}) {
      std::vector<int> e = m;
      e.erase(e.begin() + as_diff(p));
      EXPECT_EQ(to_std(v.erase(p)), e) << "erase at " << p;
      std::vector<int> in = m;
      in.insert(in.begin() + as_diff(p), 7);
      EXPECT_EQ(to_std(v.insert(p, 7)), in) << "insert at " << p;
      EXPECT_EQ(to_std(v.take(p)), std::vector<int>(m.begin(), m.begin() + as_diff(p))) << "take " << p;
      EXPECT_EQ(to_std(v.drop(p)), std::vector<int>(m.begin() + as_diff(p), m.end())) << "drop " << p;
    }
  }
}

// check_invariants names a node whose hint is not what its sizes give.
TYPED_TEST(RrbVector, InvariantCheckNamesAWrongHint) {
  using V = typename TestFixture::V;
  const V v = edited<V>(sizes<V>::n3, 5).first;  // (no structured binding: clang 14 cannot capture one)
  v.check_invariants();
  tseq::detail::rrb_unchecked::set_hints(v, 0);
  const std::string e = error_of<std::logic_error>([&] { v.check_invariants(); });
  EXPECT_NE(e.find("rrb_vector invariant broken: node at root"), std::string::npos) << e;
  EXPECT_NE(e.find(" has hint 0, not "), std::string::npos) << e;
}

// check_invariants names a bucket table entry that is not what the sizes give (I6): a stale
// table would give wrong elements, not only slower look-ups. Edited in place: a persistent
// edit of `int`s may lay its leaf parent out dense again (packed leaf parents), and with
// B = 8 none was left bucketed.
TYPED_TEST(RrbVector, InvariantCheckNamesAWrongBucket) {
  using V = typename TestFixture::V;
  using U = tseq::detail::rrb_unchecked;
  const V v = edited<V>(3 * sizes<V>::n3, 17, true).first;
  v.check_invariants();
  ASSERT_GT(U::lookup_shape(v).bucketed, 0u) << "no bucketed node after random edits";
  ASSERT_TRUE(U::break_bucket(v));
  const std::string e = error_of<std::logic_error>([&] { v.check_invariants(); });
  EXPECT_NE(e.find(" has bucket 0 at child 1, not 0"), std::string::npos) << e;
}

// Only leaf parents may be bucketed (I6: above them the hint's guess is cheaper), and the check
// says so of a relaxed root above them, whatever its table holds.
TYPED_TEST(RrbVector, InvariantCheckNamesABucketedNodeAboveTheLeafParents) {
  using V = typename TestFixture::V;
  using U = tseq::detail::rrb_unchecked;
  const V v = edited<V>(3 * sizes<V>::n3, 17).first;
  v.check_invariants();
  ASSERT_EQ(U::lookup_shape(v).bucketed, U::lookup_shape(v).leaf_parents_bucketed);
  ASSERT_TRUE(U::bucket_root(v)) << "the root is dense or a leaf parent";
  const std::string e = error_of<std::logic_error>([&] { v.check_invariants(); });
  EXPECT_NE(e.find("rrb_vector invariant broken: node at root is bucketed and may not be"), std::string::npos) << e;
}

// A tree built by push_back, by the builder, or cut by take from one is regular (I4): its
// look-ups take the radix path, reading no node's header. An edit in the middle leaves a short
// leaf inside, and the flag goes; each look-up is still right either way.
TYPED_TEST(RrbVector, BuiltTreesAreRegularAndAnEditInsideIsNot) {
  using V = typename TestFixture::V;
  using U = tseq::detail::rrb_unchecked;
  const std::size_t n = 3 * sizes<V>::n3;
  V pushed;
  typename V::builder b;
  for (std::size_t i = 0; i < n; ++i) {
    pushed = std::move(pushed).push_back(as_int(i));
    b.push_back(as_int(i));
  }
  const V built = std::move(b).persistent();
  ASSERT_GE(pushed.levels(), 3u);
  EXPECT_TRUE(U::root_regular(pushed));
  EXPECT_TRUE(U::root_regular(built));
  const V cut = pushed.take(n / 2 + 1);
  EXPECT_TRUE(U::root_regular(cut));
  const V edited_inside = pushed.erase(n / 3);
  EXPECT_FALSE(U::root_regular(edited_inside));
  edited_inside.check_invariants();
  for (std::size_t i = 0; i < n; ++i) {
    ASSERT_EQ(pushed[i], as_int(i)) << "index " << i;
    ASSERT_EQ(built[i], as_int(i)) << "index " << i;
    if (i + 1 < n) {
      ASSERT_EQ(edited_inside[i], as_int(i < n / 3 ? i : i + 1)) << "index " << i;
    }
  }
}

// A tree of one leaf parent (levels() == 2) of small trivially copyable elements stays
// regular through persistent erases and inserts anywhere: each lays the leaves out full again
// from the edited one (tree::repack_root), so a look-up goes down by radix as in a tree just
// built. Also from a root that is not dense (after a drop, whose first leaf is short): the
// first edit repacks from leaf 0. The operands are unchanged, and an in-place (&&) edit of a
// root held alone keeps the general path (it does not repack). Random script, seed printed.
TYPED_TEST(RrbVector, PersistentEditsKeepATreeOfOneLeafParentRegular) {
  using V = typename TestFixture::V;
  using U = tseq::detail::rrb_unchecked;
  constexpr std::size_t B = V::branching;
  constexpr std::size_t BL = V::leaf_capacity;
  const std::size_t n = B * BL * 3 / 4;  // the tree never fills its root
  const unsigned seed = 20261207;
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 rng(seed);
  V v = make<V>(n);
  std::vector<int> m = to_std(v);
  ASSERT_EQ(v.levels(), 2u);
  for (int k = 0; k < 600; ++k) {
    SCOPED_TRACE("step " + std::to_string(k));
    std::size_t p = rng() % m.size();
    if (k % 100 == 50) {  // a short first leaf, then a point edit in a later leaf of the tree
      p = BL + 1;
      v = v.drop(1).push_back(-1);
      m.erase(m.begin());
      m.push_back(-1);
      ASSERT_FALSE(U::root_regular(v));
    }
    const V before = v;
    const std::vector<int> mb = m;
    edit_both(v, m, k % 2 == 0, p, -k);
    v.check_invariants();
    ASSERT_EQ(to_std(before), mb) << "the operand changed";
    ASSERT_EQ(v.levels(), 2u);
    ASSERT_TRUE(U::root_regular(v)) << "edit at " << p;
    ASSERT_EQ(to_std(v), m);
  }
  // In place: the general path, which leaves the edited leaf short.
  V w = make<V>(n);
  w = std::move(w).erase(BL / 2);
  EXPECT_FALSE(U::root_regular(w));
  w.check_invariants();
}

// Below the root, a persistent erase or insert of small trivially copyable elements lays the
// edited leaf parent out full again from the edited leaf (tree::repack_leaf_parent), when the
// result keeps m..B leaves; otherwise the general path. A random script over a tree of 3 and
// more levels: runs of erases inside one leaf parent (to below m leaves: the general path
// and its rebalancing), runs of inserts at one place (a leaf parent of B full leaves: the
// general insert splits it), single edits (the evened-out end: a remainder under BL / 2 shares
// the last full leaf's elements). Every step: the invariants (hint_of included), the model,
// the operand unchanged. At the end the leaf parents' guesses are right for >= 93% of
// look-ups.
TYPED_TEST(RrbVector, PersistentEditsBelowTheRootKeepLeafParentsPacked) {
  using V = typename TestFixture::V;
  using U = tseq::detail::rrb_unchecked;
  constexpr std::size_t B = V::branching;
  constexpr std::size_t BL = V::leaf_capacity;
  const std::size_t n = B * BL * 6;  // 6 leaf parents: 3 levels or more
  const unsigned seed = 20261208;
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 rng(seed);
  V v = make<V>(n);
  std::vector<int> m = to_std(v);
  ASSERT_GE(v.levels(), 3u);
  int k = 0;
  const auto edit = [&](bool erase, std::size_t p) {
    SCOPED_TRACE("step " + std::to_string(k) + (erase ? ": erase at " : ": insert at ") + std::to_string(p));
    const V before = v;
    const std::vector<int> mb = m;
    edit_both(v, m, erase, p, -k);
    ++k;
    v.check_invariants();
    ASSERT_EQ(to_std(before), mb) << "the operand changed";
    ASSERT_EQ(to_std(v), m);
  };
  for (int round = 0; round < 12; ++round) {  // 3 runs of erases at most: m.size() >= 3 * B * BL
    const std::size_t at = rng() % (m.size() - B * BL);
    const std::size_t run = 1 + rng() % (B * BL);
    const int kind = round % 4;
    for (std::size_t j = 0; j < (kind == 3 ? 8 : run); ++j) {
      if (kind == 0) edit(true, at);                      // a run of erases in one place
      if (kind == 1) edit(false, at);                     // a run of inserts in one place
      if (kind >= 2) edit(j % 2 == 0, rng() % m.size());  // single edits anywhere
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
  // Then single edits only: each leaves its leaf parent dense or full but its last two
  // leaves, both guessed by radix, unless the general path took it.
  for (int j = 0; j < 400 && !::testing::Test::HasFatalFailure(); ++j) edit(j % 2 == 0, rng() % m.size());
  std::mt19937_64 r64(seed);
  const auto t = U::leaf_parent_guesses(v, r64, 4000);
  std::printf("B = %zu, BL = %zu: leaf parents %.3f dense, %.3f guessed exactly\n", B, BL, t.dense, t.exact);
  // Measured (seed above): 0.942 / 0.967 / 0.983 / 0.958 / 0.994 at B4 / B8 / B32 / B4L16 /
  // B32L64; the general path alone 0.899 / 0.847 / 0.783 / 0.913 / 0.836.
  EXPECT_GE(t.exact, 0.93);
}

// The ends of a repacked root's layout: an erase that leaves one full leaf (the root becomes
// that leaf), one that leaves every element in the tail (no tree), an insert into a root of
// B full leaves with a full tail, which needs B + 1 leaves and so takes the general path (the
// root splits), and the erases after it, which bring the two levels back to one leaf parent
// once they fit. The operands are unchanged.
TYPED_TEST(RrbVector, RepackingASmallRootCollapsesOrDefersToTheGeneralPath) {
  using V = typename TestFixture::V;
  constexpr std::size_t B = V::branching;
  constexpr std::size_t BL = V::leaf_capacity;
  const auto expect_model = [](const V& v, const std::vector<int>& m, unsigned levels) {
    v.check_invariants();
    EXPECT_EQ(to_std(v), m);
    EXPECT_EQ(v.levels(), levels);
  };
  // Two full leaves and a tail of one: erase(0) leaves BL + BL elements, one leaf and a tail.
  const V two = make<V>(2 * BL + 1);
  ASSERT_EQ(two.levels(), 2u);
  std::vector<int> m = iota(2 * BL + 1);
  m.erase(m.begin());
  expect_model(two.erase(0), m, 1u);
  expect_model(two, iota(2 * BL + 1), 2u);
  // Leaves of one element each and a tail of one (a drop leaves the first leaf short; in
  // place, the general path leaves the rightmost leaf short): erase(0) leaves 2 elements, all
  // in the tail.
  V small = make<V>(3 * BL + 1).drop(2 * BL - 1);  // leaves of 1 and BL
  for (std::size_t k = 0; k + 1 < BL; ++k) small = std::move(small).erase(1);
  ASSERT_EQ(small.levels(), 2u);
  ASSERT_EQ(small.size(), 3u);
  const std::vector<int> sm = to_std(small);
  std::vector<int> want = sm;
  want.erase(want.begin());
  expect_model(small.erase(0), want, 0u);
  expect_model(small, sm, 2u);
  // B full leaves and a full tail: no room for an insert in one leaf parent.
  const V full = make<V>(B * BL + BL);
  ASSERT_EQ(full.levels(), 2u);
  std::vector<int> fm = iota(B * BL + BL);
  fm.insert(fm.begin() + 1, -1);
  V grown = full.insert(1, -1);
  expect_model(grown, fm, 3u);
  expect_model(full, iota(B * BL + BL), 2u);
  {
    // At B * BL + BL elements, two levels, an erase near the end keeps the full leaves before
    // it, across leaf parents, under one new root.
    const V at_limit = grown.erase(0);
    std::vector<int> lm = fm;
    lm.erase(lm.begin());
    ASSERT_EQ(at_limit.levels(), 3u);
    const std::size_t p = lm.size() - BL - 2;
    const V packed = at_limit.erase(p);
    lm.erase(lm.begin() + as_diff(p));
    expect_model(packed, lm, 2u);
    EXPECT_TRUE(tseq::detail::rrb_unchecked::root_regular(packed));
  }
  // Two levels again fit in one leaf parent once an erase leaves B * BL + BL - 1 elements:
  // the first erase (B * BL + BL left) takes the general path, the second is laid out as one
  // leaf parent of full leaves again.
  for (int k = 0; k < 2; ++k) {
    const V before = grown;
    const std::vector<int> mb = fm;
    grown = grown.erase(0);
    fm.erase(fm.begin());
    expect_model(before, mb, 3u);
  }
  expect_model(grown, fm, 2u);
  EXPECT_TRUE(tseq::detail::rrb_unchecked::root_regular(grown));
}

// check_invariants names a root marked regular that is not.
TYPED_TEST(RrbVector, InvariantCheckNamesAWrongRegularFlag) {
  using V = typename TestFixture::V;
  const V v = edited<V>(sizes<V>::n3, 5).first;
  ASSERT_FALSE(tseq::detail::rrb_unchecked::root_regular(v));
  tseq::detail::rrb_unchecked::mark_root_regular(v);
  const std::string e = error_of<std::logic_error>([&] { v.check_invariants(); });
  EXPECT_NE(e.find("rrb_vector invariant broken: node at root marked regular but is not"), std::string::npos) << e;
}

// levels_bound(n): height h >= 2 needs n > f(h) = m^(h-2) * u, u = min(m, BL/4), the fewest
// elements under a node of height h - 2 off the outer paths (I3: inner nodes >= m, leaves
// >= BL/4); height 1 needs n > 1. So levels_bound(f(h)) = h and levels_bound(f(h) + 1) = h + 1.
TYPED_TEST(RrbVector, LevelsBoundFollowsTheSmallestSubtreeOffTheOuterPaths) {
  using V = typename TestFixture::V;
  constexpr std::size_t m = V::min_fill;
  constexpr std::size_t u = std::min(m, V::leaf_capacity / 4);
  EXPECT_EQ(V::levels_bound(0), 0u);
  EXPECT_EQ(V::levels_bound(1), 1u);
  std::size_t f = u;  // f(2)
  for (unsigned h = 2; h <= 7; ++h, f *= m) {
    if (f >= 2) {
      EXPECT_EQ(V::levels_bound(f), h) << f;
    }
    EXPECT_EQ(V::levels_bound(f + 1), h + 1) << f + 1;
  }
  // No overflow at the top: the bound's height H has f(H) < 2^64 - 1 and f(H + 1) beyond it.
  constexpr std::size_t top = std::numeric_limits<std::size_t>::max();
  const unsigned levels = V::levels_bound(top);
  ASSERT_GE(levels, 3u);
  std::size_t fh = u;  // f(2), then up to f(H)
  for (unsigned h = 2; h < levels - 1; ++h) {
    ASSERT_LE(fh, top / m) << "f(" << h + 1 << ") overflows below the bound's height";
    fh *= m;
  }
  EXPECT_LT(fh, top);
  EXPECT_TRUE(fh > top / m || fh * m >= top) << "f(H + 1) < 2^64 - 1: the bound is one level short";
  if constexpr (V::branching == 32 && V::leaf_capacity == 32) {  // u = 8: f(h) = 8 * 16^(h-2)
    EXPECT_EQ(V::levels_bound(8), 2u);
    EXPECT_EQ(V::levels_bound(9), 3u);
    EXPECT_EQ(V::levels_bound(128), 3u);
    EXPECT_EQ(V::levels_bound(129), 4u);
    EXPECT_EQ(V::levels_bound(1'000'000), 7u);  // 8 * 16^4 < 10^6 <= 8 * 16^5
  }
  if constexpr (V::branching == 4 && V::leaf_capacity == 16) {  // u = min(2, 4) = 2 = m
    EXPECT_EQ(V::levels_bound(2), 2u);
    EXPECT_EQ(V::levels_bound(3), 3u);
    EXPECT_EQ(V::levels_bound(4), 3u);
    EXPECT_EQ(V::levels_bound(5), 4u);
  }
  if constexpr (V::branching == 32 && V::leaf_capacity == 64) {
    EXPECT_EQ(V::levels_bound(1'000'000), 6u);  // 16^4 < 10^6 <= 16^5
  }
}

}  // namespace
