// Element lifetime, copy counts, allocation counts and exception safety of tseq::rrb_vector.
// Links tseq_alloc_hook, which counts (and can fail) every global operator new.

#include <gtest/gtest.h>

#include <functional>
#include <new>
#include <random>
#include <string>
#include <vector>

#include "support/alloc_hook.hpp"
#include "support/counted.hpp"
#include "tseq/rrb_vector.hpp"

namespace {

using tseq_test::Counted;
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

TEST_F(Lifetime, EveryElementDestroyedExactlyOnce) {
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

TEST_F(Lifetime, EraseInABigVectorCopiesOneLeaf) {
  const V v = make<V>(1'000'000);
  Counted::copies = 0;
  const V e = v.erase(500'000);
  EXPECT_EQ(Counted::copies.load(), static_cast<long>(V::branching - 1));
  EXPECT_EQ(e[500'000].value(), 500'001);
  // After a random history the leaf may be under-full and rebalance with one sibling:
  // still bounded by two leaves, whatever n is.
  V w = v;
  std::mt19937_64 rng(3);
  for (int i = 0; i < 20000; ++i) w = std::move(w).erase(rng() % w.size());
  long worst = 0;
  for (int i = 0; i < 2000; ++i) {
    Counted::copies = 0;
    const V x = w.erase(rng() % w.size());
    worst = std::max(worst, Counted::copies.load());
  }
  EXPECT_LE(worst, static_cast<long>(2 * V::branching));
}

TEST_F(Lifetime, UpdatesCopyOnlyTheTouchedLeaves) {
  const V v = make<V>(100'000);
  const long B = static_cast<long>(V::branching);
  auto copies = [&](const std::function<V()>& f) {
    Counted::copies = 0;
    const V r = f();
    r.check_invariants();
    return Counted::copies.load();
  };
  EXPECT_LE(copies([&] { return v.set(54321, Counted(1)); }), B);
  EXPECT_LE(copies([&] { return v.insert(54321, Counted(1)); }), B);
  EXPECT_LE(copies([&] { return v.take(54321); }), B);
  EXPECT_LE(copies([&] { return v.drop(54321); }), 2 * B);
  EXPECT_LE(copies([&] { return v.drop(54321) + v.take(12345); }), 6 * B);
  EXPECT_LE(copies([&] { return v.erase(1000, 90000); }), 4 * B);
  EXPECT_LE(copies([&] { return v.push_back(Counted(1)); }), B);
}

TEST_F(Lifetime, EraseAllocatesLogarithmically) {
  const V v = make<V>(1'000'000);
  tseq_test::count_allocations c;
  const V e = v.erase(123'456);
  // The holder, plus one node per level of the path.
  EXPECT_LE(c.delta().allocations, static_cast<long>(v.height()) + 1);
  EXPECT_GE(c.delta().allocations, static_cast<long>(v.height()));
  EXPECT_EQ(e.size(), 999'999u);
}

TEST_F(Lifetime, InPlaceEraseAllocatesNothing) {
  V v = make<V>(1'000'000);
  tseq_test::count_allocations c;
  for (int i = 0; i < 1000; ++i) v = std::move(v).erase(static_cast<std::size_t>(i) * 997);
  EXPECT_LE(c.delta().allocations, 40) << "only rebalancing of under-full leaves allocates";
  v.check_invariants();
  EXPECT_EQ(v.size(), 999'000u);
}

TEST_F(Lifetime, InPlaceMatchesPersistent) {
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

// Runs op on a persistent input with the k-th copy (or allocation) failing, for every k until
// the op succeeds; each failure must leave the input as it was and leak nothing.
template <class Vec, class Inject>
void strong_guarantee(const Vec& input, const std::function<Vec(const Vec&)>& op, Inject inject,
                      const std::string& name) {
  const std::vector<int> before = values(input);
  for (long k = 1;; ++k) {
    const long live_before = Counted::live.load();
    bool threw = false;
    try {
      auto guard = inject(k);
      const Vec r = op(input);
      r.check_invariants();
    } catch (const tseq_test::copy_failure&) {
      threw = true;
    } catch (const std::bad_alloc&) {
      threw = true;
    }
    Counted::throw_on_copy = 0;
    ASSERT_EQ(values(input), before) << name << ": input changed by failure " << k;
    ASSERT_NO_THROW(input.check_invariants()) << name;
    ASSERT_EQ(Counted::live.load(), live_before) << name << ": leak after failure " << k;
    if (!threw) break;
    ASSERT_LT(k, 10000) << name << " never succeeds";
  }
}

struct copy_fault {
  explicit copy_fault(long k) { Counted::throw_on_copy = k; }
  ~copy_fault() { Counted::throw_on_copy = 0; }
};

TEST_F(Lifetime, StrongGuaranteeUnderThrowingCopiesAndAllocations) {
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
    for (const auto& [name, op] : ops) {
      strong_guarantee<V4>(
          input, op, [](long k) { return copy_fault(k); }, name + " (copy)");
      strong_guarantee<V4>(
          input, op, [](long k) { return tseq_test::fail_allocation_at(k); }, name + " (alloc)");
    }
  }
}

TEST_F(Lifetime, InPlaceFailureLeavesAnEmptyVectorAndNoLeak) {
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

}  // namespace
