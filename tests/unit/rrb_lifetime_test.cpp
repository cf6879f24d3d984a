// Element lifetime, copy counts, allocation counts and exception safety of tseq::rrb_vector.
// Links tseq_alloc_hook, which counts (and can fail) every global operator new.

#include <gtest/gtest.h>

#include <functional>
#include <new>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "support/alloc_hook.hpp"
#include "support/counted.hpp"
#include "support/exception_sweep.hpp"
#include "tseq/rrb_vector.hpp"

namespace {

using tseq_test::attempt_result;
using tseq_test::Counted;
using tseq_test::fault;
using V = tseq::rrb_vector<Counted>;
using V4 = tseq::rrb_vector<Counted, 2>;

template <class Vec>
Vec make(int n) {
  typename Vec::builder b;
  for (int i = 0; i < n; ++i) b.push_back(Counted(i));
  return std::move(b).persistent();
}

template <class Vec>
std::vector<int> values(const Vec& v) {
  std::vector<int> r;
  for (const auto& c : v) r.push_back(c.value());
  return r;
}

class Lifetime : public ::testing::Test {
 protected:
  void SetUp() override { Counted::reset(); }
  void TearDown() override {
    EXPECT_EQ(Counted::live.load(), 0) << "elements leaked or destroyed twice";
    EXPECT_EQ(Counted::bad_destructions.load(), 0) << "an element was destroyed twice";
  }
};

TEST_F(Lifetime, EveryElementIsDestroyedExactlyOnceAcrossARandomHistory) {
  {
    std::mt19937_64 rng(7);
    std::vector<V4> versions{make<V4>(500)};
    for (int s = 0; s < 3000; ++s) {
      V4 v = versions[rng() % versions.size()];
      const std::size_t n = v.size();
      switch (rng() % 7) {
        case 0:
          v = std::move(v).push_back(Counted(s));
          break;
        case 1:
          if (n) v = v.erase(rng() % n);
          break;
        case 2:
          v = std::move(v).insert(rng() % (n + 1), Counted(s));
          break;
        case 3:
          v = v.take(rng() % (n + 1));
          break;
        case 4:
          v = std::move(v).drop(rng() % (n + 1));
          break;
        case 5:
          v = v + versions[rng() % versions.size()];
          break;
        default:
          if (n) v = std::move(v).set(rng() % n, Counted(-s));
          break;
      }
      if (v.size() > 4000) v = v.take(1000);
      v.check_invariants();
      if (versions.size() < 40)
        versions.push_back(v);
      else
        versions[rng() % 40] = v;
    }
    EXPECT_GT(Counted::live.load(), 0);
  }
}

// A persistent erase copies the other elements of its leaf (B - 1 in a full one) and, when
// that leaf falls below min_fill, the sibling it merges with (at most B): 2B - 1 in all,
// whatever n is.
TEST_F(Lifetime, EraseCopiesTheRestOfItsLeafAndAtMostOneSibling) {
  const long B = static_cast<long>(V::branching);
  const long m = static_cast<long>(V::min_fill);
  const V v = make<V>(1'000'000);
  Counted::copies = 0;
  const V e = v.erase(500'000);
  EXPECT_EQ(Counted::copies.load(), B - 1) << "a full leaf: its other B - 1 elements";
  EXPECT_EQ(e[500'000].value(), 500'001);

  // A leaf brought down to exactly m elements (in place, which copies nothing); erasing one
  // more copies its other m - 1 and, as it then merges with its full left sibling, B more.
  V w = make<V>(20 * V::branching);
  const std::size_t first = 5 * V::branching;  // the sixth leaf
  Counted::copies = 0;
  for (long i = 0; i < B - m; ++i) w = std::move(w).erase(first);
  EXPECT_EQ(Counted::copies.load(), 0) << "in-place erases move, never copy";
  const V x = w.erase(first);
  EXPECT_EQ(Counted::copies.load(), (m - 1) + B);
  x.check_invariants();
  EXPECT_EQ(x[first].value(), static_cast<int>(first) + static_cast<int>(B - m) + 1);

  // After a random history that leaves many leaves near m, no erase copies more than 2B - 1;
  // some must have rebalanced (more than B - 1 copies), or this part tests nothing.
  V h = make<V>(20'000);
  std::mt19937_64 rng(3);
  for (int i = 0; i < 9'000; ++i) h = std::move(h).erase(rng() % h.size());
  long worst = 0;
  for (int i = 0; i < 2'000; ++i) {
    Counted::copies = 0;
    const V y = h.erase(rng() % h.size());
    worst = std::max(worst, Counted::copies.load());
  }
  EXPECT_LE(worst, 2 * B - 1);
  EXPECT_GT(worst, B - 1) << "no erase rebalanced: the history did not make under-full leaves";
}

// Element copies of each persistent update on a dense vector (full leaves of B = 32): exactly
// the elements of the leaves at the cut or the edit, never more (the new value itself is moved).
TEST_F(Lifetime, UpdatesCopyOnlyTheTouchedLeaves) {
  const V v = make<V>(100'000);  // 3125 full leaves; the last is the tail
  const long B = static_cast<long>(V::branching);
  const long m = static_cast<long>(V::min_fill);
  auto copies = [&](const std::function<V()>& f) {
    Counted::copies = 0;
    const V r = f();
    r.check_invariants();
    return Counted::copies.load();
  };
  const long take_cut = 54321 % B;         // 17 elements before the cut in its leaf
  const long drop_cut = B - 54321 % B;     // 15 after it: fewer than m, which the new first
  ASSERT_LT(drop_cut, m);                  // leaf may hold on the leftmost path (I3L)
  const long take_small = 12345 % B;       // 25
  const long range_left = 1000 % B;        // 8 before the cut at 1000
  const long range_right = B - 90000 % B;  // 16 after the cut at 90000: not under-full
  ASSERT_GE(range_right, m);
  // set: the leaf's other B - 1 elements.
  EXPECT_EQ(copies([&] { return v.set(54321, Counted(1)); }), B - 1);
  // insert into a full leaf: all of its B elements, into the two leaves it splits into.
  EXPECT_EQ(copies([&] { return v.insert(54321, Counted(1)); }), B);
  // take / drop: the cut leaf's kept part, and nothing else (no sibling is borrowed from).
  EXPECT_EQ(copies([&] { return v.take(54321); }), take_cut);
  EXPECT_EQ(copies([&] { return v.drop(54321); }), drop_cut);
  // Concatenation of the two: only the slices copy; the seam's leaves are full and are shared,
  // and the short first leaf stays first.
  EXPECT_EQ(copies([&] { return v.drop(54321) + v.take(12345); }), drop_cut + take_small);
  // The other way round the short leaf meets the seam, where (I3) holds: the two seam leaves
  // (25 + 15 elements) both hold BL/4 or more and are kept as they are (until 2026-12-07 they
  // were laid out again as two of 20, moved from the slices held alone: no copy either).
  EXPECT_EQ(copies([&] { return v.take(12345) + v.drop(54321); }), take_small + drop_cut);
  // erase of a range (a take, a drop and their concatenation): the two cut leaves' kept
  // parts; at the seam they (8 and 16 of 32, both >= BL/4) are kept as they are.
  EXPECT_EQ(copies([&] { return v.erase(1000, 90000); }), range_left + range_right);
  // push_back onto a full tail: the tail joins the tree as it is; the new tail holds the value.
  EXPECT_EQ(copies([&] { return v.push_back(Counted(1)); }), 0);
  // push_back onto a shared tail of one element: that element.
  const V one = v.push_back(Counted(1));
  EXPECT_EQ(copies([&] { return one.push_back(Counted(2)); }), 1);
}

TEST_F(Lifetime, PersistentEraseAllocatesOneNodePerLevelAndAHeader) {
  const V v = make<V>(1'000'000);
  ASSERT_EQ(v.levels(), 4u);
  tseq_test::count_allocations c;
  const V e = v.erase(123'456);
  // A copy of each node on the path to the element (levels() of them: three inner nodes and
  // the leaf, which stays at least half full, so nothing rebalances), and the new vector's
  // header. Nothing else: the size tables are in the nodes.
  EXPECT_EQ(c.delta().allocations, static_cast<long>(v.levels()) + 1);
  EXPECT_EQ(c.delta().deallocations, 0);
  EXPECT_EQ(e.size(), 999'999u);
}

// Node sizes (docs/design.md, section 1): a persistent update's copies are allocated for what
// they hold; an in-place update that must grow such a node moves it once to a full-width one.
TEST_F(Lifetime, PersistentCopiesAreAllocatedForWhatTheyHold) {
  using U = tseq::detail::rrb_unchecked;
  tseq_test::count_allocations build;
  const V v = make<V>(10'000);
  // storage() counts what the nodes' allocations hold (the builder allocates nothing else).
  EXPECT_EQ(v.storage().bytes, build.delta().bytes);
  const std::size_t i = 4'321;
  ASSERT_EQ(U::leaf_capacity(v, i), V::branching);  // built: full width
  tseq_test::count_allocations c;
  const V e = v.erase(i);
  const std::size_t bytes = c.delta().bytes;
  // The leaf lost one element and was copied with room for exactly B - 1; each inner node on
  // the path was copied with room for its children only, the header is the header.
  EXPECT_EQ(U::leaf_capacity(e, i), V::branching - 1);
  using Inner = tseq::detail::inner_node<Counted, 5>;
  using Leaf = tseq::detail::leaf_node<Counted, 5>;
  using Header = tseq::detail::header_node<Counted, 5>;
  const std::size_t full = (e.levels() - 1) * Inner::bytes(V::branching) + Leaf::bytes(V::branching) + Header::bytes();
  EXPECT_LT(bytes, full);
  // 10,000 = 312 full leaves and a tail of 16; the root holds 10 inner nodes, the one on the
  // path is full.
  ASSERT_EQ(e.levels(), 3u);
  EXPECT_EQ(bytes, Inner::bytes(10) + Inner::bytes(V::branching) + Leaf::bytes(V::branching - 1) + Header::bytes());
  e.check_invariants();
}

TEST_F(Lifetime, InPlaceInsertIntoAnExactlySizedLeafMovesItOnceThenEditsInPlace) {
  using U = tseq::detail::rrb_unchecked;
  const std::size_t i = 4'321;
  const V built = make<V>(10'000);
  V v = built.erase(i);  // persistent: the leaf holding i has B - 1 elements, room for B - 1
  ASSERT_EQ(U::leaf_capacity(v, i), V::branching - 1);
  tseq_test::count_allocations c;
  v = std::move(v).insert(i, Counted(-1));  // no room: moved to a leaf with room for B
  const tseq_test::alloc_stats first = c.delta();
  // The leaf only: the inner nodes on the path gain no child, so they keep their size.
  EXPECT_EQ(first.allocations, 1);
  EXPECT_EQ(first.deallocations, 1);
  EXPECT_EQ(U::leaf_capacity(v, i), V::branching);
  const Counted* leaf = &v[i];
  tseq_test::count_allocations again;
  v = std::move(v).erase(i + 1);
  v = std::move(v).insert(i, Counted(-2));  // room now: in place
  const tseq_test::alloc_stats second = again.delta();
  EXPECT_EQ(second.allocations, 0);
  EXPECT_EQ(&v[i + 1], leaf + 1) << "the leaf was moved again";
  v.check_invariants();
  EXPECT_EQ(v[i].value(), -2);
  EXPECT_EQ(v[i + 1].value(), -1);
}

TEST_F(Lifetime, InPlacePushBackOntoAnExactlySizedTailMovesItOnce) {
  using U = tseq::detail::rrb_unchecked;
  const V built = make<V>(1'000);
  V v = built.take(990);  // persistent: the cut leaf becomes the tail, sized for its 30 elements
  ASSERT_EQ(U::leaf_capacity(v, 989), 30u);
  tseq_test::count_allocations c;
  for (int k = 0; k < 2; ++k) v = std::move(v).push_back(Counted(k));
  const tseq_test::alloc_stats d = c.delta();
  EXPECT_EQ(d.allocations, 1);  // the first append moves the tail to a full-width leaf
  EXPECT_EQ(d.deallocations, 1);
  EXPECT_EQ(U::leaf_capacity(v, 991), V::branching);
  v.check_invariants();
  EXPECT_EQ(v.size(), 992u);
  EXPECT_EQ(v[991].value(), 1);
}

// push_back in place of 100,000 elements from empty: every allocation is a node the final tree
// holds (3,125 leaves with the tail, 98 + 4 + 1 inner nodes, the header) and nothing is freed
// on the way. (The general join allocates the same nodes: this bounds the work, it does not
// tell the in-place flush from the join.)
TEST_F(Lifetime, InPlacePushBackAllocatesOnlyTheNodesItKeeps) {
  tseq_test::count_allocations c;
  V v;
  for (int i = 0; i < 100'000; ++i) v = std::move(v).push_back(Counted(i));
  const tseq_test::alloc_stats d = c.delta();
  EXPECT_EQ(d.allocations, 3'125 + 98 + 4 + 1 + 1);
  EXPECT_EQ(d.deallocations, 0);
  EXPECT_EQ(v.storage().leaves, 3'125u);
  v.check_invariants();
  EXPECT_EQ(v[99'999].value(), 99'999);
}

// A concatenation can leave the rightmost path with exactly sized nodes of few children under
// a node with room. The in-place flush must then grow the lowest node that is not full (here
// through the general path), never hang a new chain above it: that node would be left off the
// rightmost path with fewer than min_fill entries. Found by RrbModel (branching 4, seed
// 1000026) while the flush fast path was written; this is the shortest script a search found.
TEST_F(Lifetime, InPlacePushBackAfterASelfConcatenationKeepsTheOldSpineFilled) {
  V4 v;
  for (int i = 0; i < 23; ++i) v = std::move(v).push_back(Counted(i));
  v = v.insert(3, Counted(-1)).erase(17);
  v = v + v;
  std::vector<int> model = values(v);
  for (int k = 0; k < 8; ++k) {
    v = std::move(v).push_back(Counted(100 + k));
    model.push_back(100 + k);
    ASSERT_NO_THROW(v.check_invariants()) << "push " << k;
  }
  EXPECT_EQ(values(v), model);
}

// The same in-place flush on trees whose rightmost path is not a plain radix spine: relaxed
// nodes, exactly sized nodes, a short last leaf (B = 4: every level fills within a few pushes).
TEST_F(Lifetime, InPlacePushBackOnAnEditedTreeKeepsTheInvariants) {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 20; ++round) {
    V4 v = make<V4>(200 + round * 37);
    std::vector<int> model = values(v);
    for (int k = 0; k < 200; ++k) {  // persistent edits: relaxed, exactly sized copies
      const std::size_t i = rng() % model.size();
      if (k % 2 == 0) {
        v = v.insert(i, Counted(-k));
        model.insert(model.begin() + static_cast<std::ptrdiff_t>(i), -k);
      } else {
        v = v.erase(i);
        model.erase(model.begin() + static_cast<std::ptrdiff_t>(i));
      }
    }
    if (round % 2 == 1) {  // a take leaves a short last leaf and a cut rightmost path
      const std::size_t k = model.size() - 1 - rng() % 7;
      v = v.take(k);
      model.resize(k);
    }
    for (int k = 0; k < 300; ++k) {
      v = std::move(v).push_back(Counted(10'000 + k));
      model.push_back(10'000 + k);
      ASSERT_NO_THROW(v.check_invariants()) << "round " << round << ", push " << k;
    }
    EXPECT_EQ(values(v), model) << "round " << round;
  }
}

TEST_F(Lifetime, UpdatesThatLeaveASmallVectorEmptyAllocateNothing) {
  const V one = make<V>(1);
  const V few = make<V>(5);
  tseq_test::count_allocations c;
  const V a = one.erase(0);
  const V b = one.pop_back();
  const V d = few.take(0);
  const V e = few.drop(5);
  const V f = few.erase(0, 5);
  const tseq_test::alloc_stats s = c.delta();
  EXPECT_EQ(s.allocations, 0);
  EXPECT_EQ(s.deallocations, 0);
  for (const V* v : {&a, &b, &d, &e, &f}) EXPECT_TRUE(v->empty());
  EXPECT_EQ(one.size(), 1u);
  EXPECT_EQ(few.size(), 5u);
}

TEST_F(Lifetime, InPlaceErasesThatKeepLeavesHalfFullAllocateNothing) {
  V v = make<V>(1'000'000);
  tseq_test::count_allocations c;
  // Erases 997 apart (more than B): each leaf loses at most one of its 32 elements and stays
  // above min_fill, so nothing rebalances, and every node is ours alone: edited in place, the
  // header reused. Only rebalancing would allocate.
  for (int i = 0; i < 1000; ++i) v = std::move(v).erase(static_cast<std::size_t>(i) * 997);
  EXPECT_EQ(c.delta().allocations, 0);
  EXPECT_EQ(c.delta().deallocations, 0);
  v.check_invariants();
  EXPECT_EQ(v.size(), 999'000u);
}

TEST_F(Lifetime, InPlaceEraseThatUnderfillsALeafAllocatesOnlyTheRebalancedPair) {
  const long B = static_cast<long>(V::branching);
  const long m = static_cast<long>(V::min_fill);
  V v = make<V>(20 * V::branching);
  const std::size_t first = 5 * V::branching;  // the sixth leaf
  tseq_test::count_allocations c;
  for (long i = 0; i < B - m; ++i) v = std::move(v).erase(first);  // down to m: in place
  EXPECT_EQ(c.delta().allocations, 0);
  // One more leaves m - 1 < m: the leaf and its full left sibling (m - 1 + B elements) are
  // rebuilt as two new leaves (24 and 23); the old two are freed.
  v = std::move(v).erase(first);
  EXPECT_EQ(c.delta().allocations, 2);
  EXPECT_EQ(c.delta().deallocations, 2);
  v.check_invariants();
  EXPECT_EQ(v.size(), static_cast<std::size_t>(20 * B - (B - m) - 1));
}

TEST_F(Lifetime, InPlaceHistoryGivesTheSameValuesAsThePersistentOne) {
  const V base = make<V>(20000);
  std::mt19937_64 rng(5);
  V owned = make<V>(20000);
  V persistent = base;
  for (int s = 0; s < 2000; ++s) {
    const std::size_t n = persistent.size();
    const std::size_t i = rng() % n;
    switch (s % 3) {
      case 0:
        owned = std::move(owned).erase(i);
        persistent = persistent.erase(i);
        break;
      case 1:
        owned = std::move(owned).insert(i, Counted(s));
        persistent = persistent.insert(i, Counted(s));
        break;
      default:
        owned = std::move(owned).set(i, Counted(-s));
        persistent = persistent.set(i, Counted(-s));
        break;
    }
  }
  EXPECT_EQ(values(owned), values(persistent));
  owned.check_invariants();
  EXPECT_EQ(values(base), values(make<V>(20000)));
}

// Sweeps op on a persistent input with the k-th copy, and then the k-th allocation, failing,
// for every k until op completes: each failure must leave the input as it was and leak
// nothing, and the op that completes must give what it gives without failures.
template <class Vec>
void strong_guarantee(tseq_test::findings& out, const Vec& input, const std::function<Vec(const Vec&)>& op,
                      const std::string& name) {
  const std::vector<int> before = values(input);
  const std::vector<int> expected = values(op(input));
  for (const fault f : {fault::copy, fault::allocation}) {
    tseq_test::sweep<Counted>(
        out, [&](long k) { return name + ", " + tseq_test::fault_name(f) + " failure " + std::to_string(k); },
        [&](long k) {
          std::optional<Vec> r;
          const bool failed = tseq_test::fails_at<Counted>(f, k, [&] { r = op(input); });
          if (auto e = tseq_test::mismatch(input, before); !e.empty())
            return attempt_result{failed, "input changed: " + e};
          if (!failed) {
            if (auto e = tseq_test::mismatch(*r, expected); !e.empty())
              return attempt_result{false, "wrong result: " + e};
          }
          return attempt_result{failed, {}};
        });
  }
}

TEST_F(Lifetime, ConstRefUpdatesLeaveTheInputUnchangedWhenACopyOrAllocationThrows) {
  tseq_test::findings out;
  for (int n : {5, 40, 3000}) {
    const V4 input = make<V4>(n).erase(static_cast<std::size_t>(n / 2));
    const V4 other = make<V4>(n / 3 + 1);
    const std::size_t mid = input.size() / 2;
    const std::vector<std::pair<std::string, std::function<V4(const V4&)>>> ops = {
        {"erase", [&](const V4& v) { return v.erase(mid); }},
        {"erase_range", [&](const V4& v) { return v.erase(mid / 2, mid + 1); }},
        {"insert", [&](const V4& v) { return v.insert(mid, Counted(-1)); }},
        {"set", [&](const V4& v) { return v.set(mid, Counted(-1)); }},
        {"push_back", [&](const V4& v) { return v.push_back(Counted(-1)); }},
        {"pop_back", [&](const V4& v) { return v.pop_back(); }},
        {"take", [&](const V4& v) { return v.take(mid + 1); }},
        {"drop", [&](const V4& v) { return v.drop(mid + 1); }},
        {"concat", [&](const V4& v) { return v + other; }},
        {"concat_left", [&](const V4& v) { return other + v; }},
    };
    for (const auto& [name, op] : ops) strong_guarantee<V4>(out, input, op, name + ", n " + std::to_string(n));
  }
  out.expect_clean(100);
}

// The in-place flush that needs a chain (a full height-1 node under a root with room) makes
// exactly two allocations with the new tail; when the chain's fails, the vector is left empty
// (as by every failed && update) and no element or node leaks (TearDown counts the elements,
// the sanitizer build the nodes).
TEST_F(Lifetime, InPlaceFlushFailingToAllocateItsChainLeavesAnEmptyVectorAndNoLeak) {
  const int B = static_cast<int>(V::branching);
  const int n = 2 * B * B + B;  // the root over two full height-1 nodes, and a full tail
  const auto pushed = [&] {
    V v;
    for (int i = 0; i < n; ++i) v = std::move(v).push_back(Counted(i));
    return v;
  };
  {
    V v = pushed();
    ASSERT_EQ(v.levels(), 3u);
    tseq_test::count_allocations c;
    v = std::move(v).push_back(Counted(-1));
    EXPECT_EQ(c.delta().allocations, 2);  // the chain's node, then the new tail
    EXPECT_EQ(c.delta().deallocations, 0);
    v.check_invariants();
    EXPECT_EQ(v[static_cast<std::size_t>(n)].value(), -1);
  }
  V v = pushed();
  {
    tseq_test::fail_allocation_at fail(1);
    EXPECT_THROW((void)std::move(v).push_back(Counted(-1)), std::bad_alloc);
    EXPECT_TRUE(fail.fired());
  }
  EXPECT_TRUE(v.empty());
  v.check_invariants();
}

TEST_F(Lifetime, InPlaceInsertFailingToAllocateLeavesAnEmptyVectorAndNoLeak) {
  V4 v = make<V4>(1000);
  {
    // Inserting into a full leaf must allocate; the owned vector is consumed by the failure.
    V4 w = make<V4>(64);
    tseq_test::fail_allocation_at fail(1);
    EXPECT_THROW((void)std::move(w).insert(3, Counted(1)), std::bad_alloc);
    EXPECT_TRUE(fail.fired());
    EXPECT_TRUE(w.empty());
    w.check_invariants();
  }
  v = std::move(v).erase(3);
  EXPECT_EQ(v.size(), 999u);
}

// absorb_split, the inner-node counterpart of fill rule F. At B = 4, 32 elements build a root
// over a full height-1 node (four full leaves) and one with three leaves, and a full tail. An
// insert at 1 finds no leaf with room within three slots, so its leaf splits, and then its full
// parent: the parent's two halves and the neighbour with room are laid out again over two
// nodes, so the root still has two children (three inner nodes; the split alone makes four).
TEST_F(Lifetime, InsertThatSplitsAFullParentSharesItsChildrenWithANeighbourWithRoom) {
  const V4 v = make<V4>(32);
  ASSERT_EQ(v.levels(), 3u);
  ASSERT_EQ(v.storage().inner_nodes, 3u);
  std::vector<int> model = values(v);
  model.insert(model.begin() + 1, -1);
  {
    tseq_test::count_allocations c;
    const V4 w = v.insert(1, Counted(-1));
    // The header, the root, the parent, two leaves for the split one, the parent's right half
    // and the second of the two rebuilt nodes (the first reuses the parent's).
    EXPECT_EQ(c.delta().allocations, 7);
    w.check_invariants();
    EXPECT_EQ(values(w), model);
    EXPECT_EQ(w.levels(), 3u);
    EXPECT_EQ(w.storage().inner_nodes, 3u);
  }
  EXPECT_EQ(values(v), values(make<V4>(32)));  // the input is unchanged
  v.check_invariants();
  V4 x = make<V4>(32);
  x = std::move(x).insert(1, Counted(-1));
  x.check_invariants();
  EXPECT_EQ(values(x), model);
  EXPECT_EQ(x.storage().inner_nodes, 3u);
}

// Every allocation of that insert failing in turn: the const& form leaves its input as it was,
// the && form an empty vector, and nothing leaks (TearDown counts the elements, the sanitizer
// build the nodes).
TEST_F(Lifetime, InsertSharingASplitParentsChildrenKeepsItsGuaranteesWhenAnAllocationFails) {
  const std::vector<int> before = values(make<V4>(32));
  std::vector<int> model = before;
  model.insert(model.begin() + 1, -1);
  const auto where = [](const char* how) {
    return [how](long k) { return std::string("insert, ") + how + ", allocation " + std::to_string(k); };
  };
  tseq_test::findings by_ref;
  tseq_test::sweep<Counted>(by_ref, where("const&"), [&](long k) {
    const V4 v = make<V4>(32);
    std::optional<V4> w;
    const bool failed = tseq_test::fails_at<Counted>(fault::allocation, k, [&] { w = v.insert(1, Counted(-1)); });
    if (auto e = tseq_test::mismatch(v, before); !e.empty()) return attempt_result{failed, "input changed: " + e};
    return attempt_result{failed, failed ? std::string() : tseq_test::mismatch(*w, model)};
  });
  by_ref.expect_clean(7);
  EXPECT_EQ(by_ref.injected, 7) << "seven allocations, each failed once";
  tseq_test::findings by_move;
  tseq_test::sweep<Counted>(by_move, where("&&"), [&](long k) {
    V4 x = make<V4>(32);
    const bool failed =
        tseq_test::fails_at<Counted>(fault::allocation, k, [&] { x = std::move(x).insert(1, Counted(-1)); });
    return attempt_result{failed, tseq_test::mismatch(x, failed ? std::vector<int>{} : model)};  // in place: fewer
  });
  by_move.expect_clean(1);
}

}  // namespace
