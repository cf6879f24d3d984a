// Exception guarantees of tseq::rrb_vector (the class notes in tseq/rrb_vector.hpp), swept over
// every failure point: each update, with its operands held in each way, fails at the k-th
// element copy, the k-th element move and the k-th allocation, for k = 1, 2, ... until it
// completes.
//  - `const&` updates: the strong guarantee (the operand still equals its model and passes
//    check_invariants()).
//  - `&&` updates: the moved-from vector is left empty, every other version sharing its nodes
//    is unchanged, and nothing leaks or is destroyed twice (live objects counted).
//  - Whatever the failure, the update that finally completes returns the model's result.
//  - builder::push_back and persistent() &&: the builder is left empty, and stays usable.
// Element types: tseq_test::ThrowingMove (its moves may throw, so rrb_vector cannot take its
// nothrow-move shortcuts) and tseq_test::Counted (only copies may throw), at branching 4 and 32,
// on a bare leaf, a full bare leaf, trees of 1, 2 and 3 levels, and a root of B leaves (one with
// room) with a full tail. Each sweep reports its first
// broken guarantee, naming the update, how its operands were held, the fault and k. The sweep
// (failure injection, leak and double-destruction counts) is support/exception_sweep.hpp's.
// Links tseq_alloc_hook, which fails the k-th operator new on request.

#include <gtest/gtest.h>

#include <cstddef>
#include <functional>
#include <numeric>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "support/counted.hpp"
#include "support/exception_sweep.hpp"
#include "tseq/rrb_vector.hpp"

namespace {

using tseq_test::attempt_result;
using tseq_test::Counted;
using tseq_test::fails_at;
using tseq_test::fault;
using tseq_test::fault_name;
using tseq_test::faults_of;
using tseq_test::findings;
using tseq_test::mismatch;
using tseq_test::show;
using tseq_test::ThrowingMove;
using Model = std::vector<int>;

// How the update's operand is held.
enum class held {
  by_const_ref,   // the const& overload: strong guarantee
  alone,          // && on a vector holding all its nodes alone (edited in place)
  shared,         // && on a copy of another version (every node shared)
  partly_shared,  // && on a version sharing all but one path with another
};

const char* held_name(held h) {
  switch (h) {
    case held::by_const_ref:
      return "const&";
    case held::alone:
      return "&& (held alone)";
    case held::shared:
      return "&& (a copy of another version)";
    default:
      return "&& (sharing all but one path)";
  }
}

constexpr held all_held[] = {held::by_const_ref, held::alone, held::shared, held::partly_shared};
constexpr held rvalue_held[] = {held::alone, held::shared, held::partly_shared};

template <class T, unsigned Bits>
struct config {
  using elem = T;
  using vec = tseq::rrb_vector<T, Bits>;
};

// The vectors the updates run on: built by push_back and, when they have a tree, one element
// more erased in place so that the tree is not purely dense. `levels` is what levels() must be.
struct shape {
  unsigned levels;
  std::size_t n;  // elements after the erase
};

template <class Vec>
std::vector<shape> shapes() {
  constexpr std::size_t B = Vec::branching;
  constexpr std::size_t BL = Vec::leaf_capacity;
  return {
      {0, B / 2 + 1},              // a bare leaf
      {0, B},                      // a full bare leaf: growing it makes a tree
      {1, B + B / 2 + 1},          // a tree of one leaf, and the tail
      {2, 4 * B + B / 2},          // a root over leaves
      {3, B * B + 2 * B + B / 2},  // a root over inner nodes over leaves
      // A root of B leaves, one with room, and a full tail: an insert into the tail moves its
      // first element into the tree (spread through the root) where it would split the root.
      {2, B * BL + BL - 1},
  };
}

template <class Vec>
bool relaxed(std::size_t n) {
  return n > Vec::branching;
}

template <class Vec>
Model model_of(std::size_t n) {
  Model m(relaxed<Vec>(n) ? n + 1 : n);
  std::iota(m.begin(), m.end(), 0);
  if (relaxed<Vec>(n)) m.erase(m.begin() + static_cast<std::ptrdiff_t>((n + 1) / 3));
  return m;
}

template <class Vec>
Vec build(std::size_t n) {
  using T = typename Vec::value_type;
  typename Vec::builder b;
  const std::size_t built = relaxed<Vec>(n) ? n + 1 : n;
  for (std::size_t i = 0; i < built; ++i) b.push_back(T(static_cast<int>(i)));
  Vec v = std::move(b).persistent();
  if (!relaxed<Vec>(n)) return v;
  return std::move(v).erase((n + 1) / 3);
}

// The operand of an update, held as `how`, and the other version it shares nodes with.
template <class Vec>
struct operand {
  Vec v;
  std::optional<Vec> other;

  operand(held how, std::size_t n, const Model& m) {
    using T = typename Vec::value_type;
    if (how == held::shared || how == held::partly_shared) {
      other.emplace(build<Vec>(n));
      v = how == held::shared ? *other : other->set(0, T(m[0]));
    } else {
      v = build<Vec>(n);
    }
  }

  // What is wrong with the operand and its other version after the update; `failed`: the
  // update threw. Guarantees: the other version never changes; a const& operand never
  // changes; a moved-from operand is left empty by a failure (and passes check_invariants()).
  std::string check(held how, const Model& m, bool failed) const {
    if (other) {
      if (auto e = mismatch(*other, m); !e.empty()) return "another version sharing its nodes changed: " + e;
    }
    if (how == held::by_const_ref) {
      if (auto e = mismatch(v, m); !e.empty()) return "the const& operand changed: " + e;
    } else if (failed) {
      if (auto e = mismatch(v, Model{}); !e.empty()) return "the moved-from vector was not left empty: " + e;
    }
    return {};
  }
};

template <class Vec>
struct update {
  std::string name;
  std::function<Vec(const Vec&)> by_ref;
  std::function<Vec(Vec&&)> by_move;
  std::function<Model(Model)> model;
};

// f: a generic lambda calling the update on a forwarded vector.
template <class Vec, class F, class M>
update<Vec> make_update(std::string name, F f, M model) {
  return {std::move(name), [f](const Vec& v) -> Vec { return f(v); }, [f](Vec&& v) -> Vec { return f(std::move(v)); },
          std::function<Model(Model)>(model)};
}

template <class Vec>
std::vector<update<Vec>> updates_of(std::size_t n) {
  using T = typename Vec::value_type;
  const std::size_t mid = n / 2;
  const std::size_t lo = n / 4;
  const std::size_t hi = 3 * n / 4 + 1;
  const auto at = [](std::size_t i) { return static_cast<std::ptrdiff_t>(i); };
  std::vector<update<Vec>> r;
  r.push_back(make_update<Vec>(
      "push_back", [](auto&& v) { return std::forward<decltype(v)>(v).push_back(T(-1)); },
      [](Model m) {
        m.push_back(-1);
        return m;
      }));
  r.push_back(make_update<Vec>(
      "pop_back", [](auto&& v) { return std::forward<decltype(v)>(v).pop_back(); },
      [](Model m) {
        m.pop_back();
        return m;
      }));
  r.push_back(make_update<Vec>(
      "set", [=](auto&& v) { return std::forward<decltype(v)>(v).set(mid, T(-2)); },
      [=](Model m) {
        m[mid] = -2;
        return m;
      }));
  r.push_back(make_update<Vec>(
      "insert", [=](auto&& v) { return std::forward<decltype(v)>(v).insert(mid, T(-3)); },
      [=](Model m) {
        m.insert(m.begin() + at(mid), -3);
        return m;
      }));
  r.push_back(make_update<Vec>(
      "insert at 0", [](auto&& v) { return std::forward<decltype(v)>(v).insert(0, T(-4)); },
      [](Model m) {
        m.insert(m.begin(), -4);
        return m;
      }));
  r.push_back(make_update<Vec>(
      "insert before the last", [=](auto&& v) { return std::forward<decltype(v)>(v).insert(n - 1, T(-5)); },
      [=](Model m) {
        m.insert(m.begin() + at(n - 1), -5);
        return m;
      }));
  r.push_back(make_update<Vec>(
      "erase", [=](auto&& v) { return std::forward<decltype(v)>(v).erase(mid); },
      [=](Model m) {
        m.erase(m.begin() + at(mid));
        return m;
      }));
  r.push_back(make_update<Vec>(
      "erase at 0", [](auto&& v) { return std::forward<decltype(v)>(v).erase(0); },
      [](Model m) {
        m.erase(m.begin());
        return m;
      }));
  r.push_back(make_update<Vec>(
      "erase of a range", [=](auto&& v) { return std::forward<decltype(v)>(v).erase(lo, hi); },
      [=](Model m) {
        m.erase(m.begin() + at(lo), m.begin() + at(hi));
        return m;
      }));
  r.push_back(make_update<Vec>(
      "take", [=](auto&& v) { return std::forward<decltype(v)>(v).take(mid + 1); },
      [=](Model m) {
        m.resize(mid + 1);
        return m;
      }));
  r.push_back(make_update<Vec>(
      "drop", [=](auto&& v) { return std::forward<decltype(v)>(v).drop(mid + 1); },
      [=](Model m) {
        m.erase(m.begin(), m.begin() + at(mid + 1));
        return m;
      }));
  return r;
}

template <class C>
class RrbExceptions : public ::testing::Test {
 protected:
  using T = typename C::elem;
  using Vec = typename C::vec;

  void SetUp() override { T::reset(); }
  void TearDown() override {
    EXPECT_EQ(T::live.load(), 0) << "elements leaked or destroyed twice";
    EXPECT_EQ(T::bad_destructions.load(), 0) << "an element was destroyed twice";
  }

  static std::string where(const std::string& what, held how, fault f, long k, const shape& s) {
    return what + ", " + held_name(how) + ", " + fault_name(f) + " failure " + std::to_string(k) + ", levels " +
           std::to_string(s.levels) + ", n " + std::to_string(s.n) + ", B " + std::to_string(Vec::branching);
  }

  // Sweeps the failure point of one update, its operand held as `how`.
  static void sweep(const update<Vec>& u, held how, fault f, const shape& s, const Model& m, findings& out) {
    const Model expected = u.model(m);
    tseq_test::sweep<T>(
        out, [&](long k) { return where(u.name, how, f, k, s); },
        [&](long k) {
          operand<Vec> x(how, s.n, m);
          if (x.v.levels() != s.levels) return attempt_result{false, "the input has the wrong shape"};
          Vec r;
          const bool failed =
              fails_at<T>(f, k, [&] { r = how == held::by_const_ref ? u.by_ref(x.v) : u.by_move(std::move(x.v)); });
          std::string e = x.check(how, m, failed);
          if (e.empty() && !failed) {
            if (auto d = mismatch(r, expected); !d.empty()) e = "wrong result: " + d;
          }
          return attempt_result{failed, e};
        });
  }

  static findings sweep_updates(std::span<const held> modes) {
    findings out;
    for (const shape& s : shapes<Vec>()) {
      const Model m = model_of<Vec>(s.n);
      for (const update<Vec>& u : updates_of<Vec>(s.n)) {
        for (held how : modes) {
          for (fault f : faults_of<T>()) sweep(u, how, f, s, m, out);
        }
      }
    }
    return out;
  }
};

using Configs =
    ::testing::Types<config<ThrowingMove, 2>, config<ThrowingMove, 5>, config<Counted, 2>, config<Counted, 5>>;

class ConfigName {
 public:
  template <class C>
  static std::string GetName(int) {
    return std::string(std::is_same_v<typename C::elem, ThrowingMove> ? "ThrowingMove" : "Counted") + "_B" +
           std::to_string(C::vec::branching);
  }
};

TYPED_TEST_SUITE(RrbExceptions, Configs, ConfigName);

TYPED_TEST(RrbExceptions, ConstRefUpdatesGiveTheStrongGuarantee) {
  const held modes[] = {held::by_const_ref};
  TestFixture::sweep_updates(modes).expect_clean(50);
}

// The && overloads (the class notes): a failure leaves the moved-from vector empty, other
// versions sharing its nodes unchanged, and leaks nothing.
TYPED_TEST(RrbExceptions, RvalueUpdatesLeakNothingAndLeaveOtherVersionsUnchanged) {
  TestFixture::sweep_updates(rvalue_held).expect_clean(50);
}

// operator+ in its four overloads (each operand const& or &&, the && ones held alone, as a
// copy of another version, or sharing all but one path), on operands of different heights.
TYPED_TEST(RrbExceptions, ConcatenationInEveryOverloadKeepsItsGuarantees) {
  using T = typename TestFixture::T;
  using Vec = typename TestFixture::Vec;
  findings out;
  for (const shape& s : shapes<Vec>()) {
    const shape other{0, s.n / 2 + 1};
    const Model ma = model_of<Vec>(s.n);
    const Model mb = model_of<Vec>(other.n);
    Model expected = ma;
    expected.insert(expected.end(), mb.begin(), mb.end());
    for (held ha : all_held) {
      for (held hb : all_held) {
        for (fault f : faults_of<T>()) {
          const std::string name = std::string("operator+ with a right operand held as ") + held_name(hb);
          tseq_test::sweep<T>(
              out, [&](long k) { return TestFixture::where(name, ha, f, k, s); },
              [&](long k) {
                operand<Vec> a(ha, s.n, ma);
                operand<Vec> b(hb, other.n, mb);
                Vec r;
                const bool failed = fails_at<T>(f, k, [&] {
                  const bool ra = ha != held::by_const_ref;
                  const bool rb = hb != held::by_const_ref;
                  if (ra && rb) {
                    r = std::move(a.v) + std::move(b.v);
                  } else if (ra) {
                    r = std::move(a.v) + std::as_const(b.v);
                  } else if (rb) {
                    r = std::as_const(a.v) + std::move(b.v);
                  } else {
                    r = std::as_const(a.v) + std::as_const(b.v);
                  }
                });
                std::string e = a.check(ha, ma, failed);
                if (e.empty()) {
                  e = b.check(hb, mb, failed);
                  if (!e.empty()) e = "right operand: " + e;
                }
                if (e.empty() && !failed) {
                  if (auto d = mismatch(r, expected); !d.empty()) e = "wrong result: " + d;
                }
                return attempt_result{failed, e};
              });
        }
      }
    }
  }
  out.expect_clean(50);
}

// The builder's guarantee (its notes in tseq/rrb_vector.hpp): a push_back or persistent() &&
// that throws leaves the builder empty, and nothing leaks. It stays usable (its size() that of
// what persistent() gives, further push_backs build a valid vector); other versions never change.
enum class builder_start { fresh, from_vector, after_snapshot };

const char* start_name(builder_start b) {
  switch (b) {
    case builder_start::fresh:
      return "a builder of its own elements";
    case builder_start::from_vector:
      return "a builder started from a vector";
    default:
      return "a builder after persistent()";
  }
}

template <class Vec>
struct builder_case {
  using T = typename Vec::value_type;
  typename Vec::builder b;
  std::optional<Vec> other;  // the version sharing the builder's nodes, if any

  builder_case(builder_start start, std::size_t n) {
    if (start == builder_start::from_vector) {
      other.emplace(build<Vec>(n));
      b = typename Vec::builder(*other);
      return;
    }
    const Vec v = build<Vec>(n);
    for (const auto& x : v) b.push_back(T(x.value()));
    if (start == builder_start::after_snapshot) other.emplace(b.persistent());
  }

  // What is wrong after a push_back (or persistent()) that failed or not.
  std::string check(const Model& m, bool failed, const Model& expected) {
    if (other) {
      if (auto e = mismatch(*other, m); !e.empty()) return "the vector sharing the builder's nodes changed: " + e;
    }
    const Vec now = b.persistent();  // const&: leaves the builder as it is
    if (now.size() != b.size()) {
      return "builder::size() is " + std::to_string(b.size()) + " but persistent() holds " +
             std::to_string(now.size()) + " elements";
    }
    Model held_now = tseq_test::values_of(now);
    if (failed) {
      if (!held_now.empty()) return "the builder was not left empty: it holds " + show(held_now);
    } else if (auto e = mismatch(now, expected); !e.empty()) {
      return "wrong result: " + e;
    }
    if (auto e = mismatch(now, held_now); !e.empty()) return e;
    // Still usable: more than a leaf of further elements.
    for (std::size_t i = 0; i <= Vec::branching; ++i) {
      b.push_back(T(-100 - static_cast<int>(i)));
      held_now.push_back(-100 - static_cast<int>(i));
    }
    if (b.size() != held_now.size()) return "builder::size() wrong after further push_backs";
    if (auto e = mismatch(std::move(b).persistent(), held_now); !e.empty()) return "after further push_backs: " + e;
    return {};
  }
};

TYPED_TEST(RrbExceptions, BuilderStaysConsistentWhenPushBackFails) {
  using T = typename TestFixture::T;
  using Vec = typename TestFixture::Vec;
  findings out;
  for (const shape& s : shapes<Vec>()) {
    const Model m = model_of<Vec>(s.n);
    Model expected = m;
    expected.push_back(-1);
    for (builder_start start : {builder_start::fresh, builder_start::from_vector, builder_start::after_snapshot}) {
      const std::string name = std::string("builder::push_back on ") + start_name(start);
      for (fault f : faults_of<T>()) {
        tseq_test::sweep<T>(
            out, [&](long k) { return TestFixture::where(name, held::alone, f, k, s); },
            [&](long k) {
              builder_case<Vec> c(start, s.n);
              const bool failed = fails_at<T>(f, k, [&] { c.b.push_back(T(-1)); });
              return attempt_result{failed, c.check(m, failed, expected)};
            });
      }
    }
  }
  out.expect_clean(10);
}

// persistent() && allocates the vector's header (for more than B elements); if that fails the
// builder is left empty and still usable.
TYPED_TEST(RrbExceptions, BuilderStaysConsistentWhenPersistentFails) {
  using T = typename TestFixture::T;
  using Vec = typename TestFixture::Vec;
  findings out;
  for (const shape& s : shapes<Vec>()) {
    const Model m = model_of<Vec>(s.n);
    for (builder_start start : {builder_start::fresh, builder_start::from_vector, builder_start::after_snapshot}) {
      const std::string name = std::string("builder::persistent() && on ") + start_name(start);
      tseq_test::sweep<T>(
          out, [&](long k) { return TestFixture::where(name, held::alone, fault::allocation, k, s); },
          [&](long k) {
            builder_case<Vec> c(start, s.n);
            Vec r;
            const bool failed = fails_at<T>(fault::allocation, k, [&] { r = std::move(c.b).persistent(); });
            if (failed) return attempt_result{true, c.check(m, true, m)};
            if (auto d = mismatch(r, m); !d.empty()) return attempt_result{false, "wrong result: " + d};
            return attempt_result{};
          });
    }
  }
  out.expect_clean(1);
}

// The smallest cases of what the sweeps above find, one assertion each.
class RrbExceptionCases : public ::testing::Test {
 protected:
  void SetUp() override {
    Counted::reset();
    ThrowingMove::reset();
  }
  void TearDown() override {
    EXPECT_EQ(ThrowingMove::bad_destructions.load(), 0);
    EXPECT_EQ(Counted::bad_destructions.load(), 0);
  }
};

// In place, inserting into a leaf with room move-constructs its last element one slot further,
// shifts the others by move assignment, then moves the value in; the third move throws here.
TEST_F(RrbExceptionCases, InPlaceInsertIntoALeafWithRoomLeaksNoElementWhenAShiftingMoveThrows) {
  {
    tseq::rrb_vector<ThrowingMove, 2> v{0, 1, 2};  // a bare leaf of 3, room for 4
    ThrowingMove::throw_on_move = 3;  // 1: the argument into the update, 2: element 2 to slot 3, 3: the shift
    EXPECT_THROW((void)std::move(v).insert(1, ThrowingMove(-1)), tseq_test::move_failure);
    ThrowingMove::throw_on_move = 0;
    EXPECT_TRUE(v.empty());
  }
  EXPECT_EQ(ThrowingMove::live.load(), 0) << "elements never destroyed";
}

// builder::push_back on a builder sharing its tail with a vector copies the tail; when that
// copy throws, the builder must still describe what it holds.
TEST_F(RrbExceptionCases, BuilderSizeMatchesItsContentsAfterAFailedPushBack) {
  {
    const tseq::rrb_vector<Counted> v{0, 1, 2};
    tseq::rrb_vector<Counted>::builder b(v);
    Counted::throw_on_copy = 1;
    EXPECT_THROW(b.push_back(Counted(3)), tseq_test::copy_failure);
    Counted::throw_on_copy = 0;
    EXPECT_EQ(b.size(), b.persistent().size()) << "size() and the contents disagree";
    EXPECT_EQ(v.size(), 3u);
  }
  EXPECT_EQ(Counted::live.load(), 0);
}

// An erase (or insert of -1) at `at` of v (elements mv) with allocation k failing, for k = 1,
// 2, ... until one completes: each time the operand is unchanged and valid; the completed
// result is valid, holds `want`, and took at least min_allocations allocations. Returns it.
template <class V>
std::optional<V> edit_under_every_failure(const V& v, const std::vector<int>& mv, bool erase, std::size_t at,
                                          long min_allocations) {
  std::vector<int> want = mv;
  if (erase) {
    want.erase(want.begin() + static_cast<std::ptrdiff_t>(at));
  } else {
    want.insert(want.begin() + static_cast<std::ptrdiff_t>(at), -1);
  }
  for (long k = 1;; ++k) {
    SCOPED_TRACE(std::string(erase ? "erase" : "insert") + " at " + std::to_string(at) + " of " +
                 std::to_string(mv.size()) + ", allocation " + std::to_string(k) + " fails");
    std::optional<V> r;
    bool fired = false;
    {
      tseq_test::fail_allocation_at fail(k);
      try {
        r.emplace(erase ? v.erase(at) : v.insert(at, -1));
      } catch (const std::bad_alloc&) {
      }
      fired = fail.fired();
    }
    EXPECT_EQ(std::vector<int>(v.begin(), v.end()), mv) << "the operand changed";
    v.check_invariants();
    if (fired) {
      EXPECT_FALSE(r.has_value());
      if (::testing::Test::HasFailure()) return std::nullopt;
      continue;
    }
    EXPECT_TRUE(r.has_value());
    if (!r.has_value()) return std::nullopt;
    r->check_invariants();
    EXPECT_EQ(std::vector<int>(r->begin(), r->end()), want);
    // The first k past the last allocation completes.
    EXPECT_GT(k, min_allocations) << "fewer allocations than the repacked layout needs";
    return r;
  }
}

// A persistent erase or insert in a tree of one leaf parent of `int`s lays the leaves out
// again from the edited one (tree::repack_root), and so does one in a tree of two levels that
// fits one leaf parent (repack_two_levels). Whichever allocation fails, the operand is
// unchanged; the sanitizer build checks that nothing leaks. (The sweeps above use element
// types that count their copies, which are not trivially copyable and so never take this
// path.)
TEST_F(RrbExceptionCases, RepackingARootOfIntsGivesTheStrongGuaranteeWhenAnAllocationFails) {
  using V = tseq::rrb_vector<int, 2>;  // B = 4, leaves of 8
  std::vector<int> m(20);
  std::iota(m.begin(), m.end(), 0);
  const V one(m.begin(), m.end());
  ASSERT_EQ(one.levels(), 2u);
  // Two levels holding B * BL + BL = 40: a root of 4 full leaves and a full tail split by an
  // insert, then one element erased.
  std::vector<int> m2(40);
  std::iota(m2.begin(), m2.end(), 0);
  const V two = V(m2.begin(), m2.end()).insert(1, -1).erase(0);
  m2.insert(m2.begin() + 1, -1);
  m2.erase(m2.begin());
  ASSERT_EQ(two.levels(), 3u);
  struct edit {
    const V* v;
    const std::vector<int>* m;
    bool erase;
    std::size_t at;
    long min_allocations;  // the repacked layout's
  };
  // one: two leaves, the root, the tail, the header; two: at least one leaf (39 elements
  // are four full leaves and a tail of 7, of which those before the edited one are kept),
  // the root, the tail, the header.
  const edit edits[] = {{&one, &m, true, 1, 5}, {&one, &m, false, 1, 5}, {&two, &m2, true, 30, 4}};
  for (const edit& e : edits) {
    const std::optional<V> r = edit_under_every_failure(*e.v, *e.m, e.erase, e.at, e.min_allocations);
    ASSERT_TRUE(r.has_value());
    EXPECT_EQ(r->levels(), 2u);
    EXPECT_TRUE(tseq::detail::rrb_unchecked::root_regular(*r));
  }
}

// Below the root (tree::repack_leaf_parent): an erase in the first leaf of a middle leaf
// parent of 4 full leaves lays out 4 (31 elements: 3 full and 7), and an insert into that
// result 4 (32: 4 full), each with the leaf parent, the path above it and the header. Whichever
// allocation fails, the operand is unchanged and nothing leaks (sanitizer build).
TEST_F(RrbExceptionCases, RepackingALeafParentOfIntsGivesTheStrongGuaranteeWhenAnAllocationFails) {
  using V = tseq::rrb_vector<int, 2>;  // B = 4, leaves of 8
  std::vector<int> m(400);
  std::iota(m.begin(), m.end(), 0);
  const V fresh(m.begin(), m.end());
  ASSERT_GE(fresh.levels(), 4u);
  const V erased = fresh.erase(160);
  std::vector<int> m_erased = m;
  m_erased.erase(m_erased.begin() + 160);
  for (const bool erase : {true, false}) {
    const V& v = erase ? fresh : erased;
    const std::vector<int>& mv = erase ? m : m_erased;
    const std::size_t at = erase ? 161 : 162;  // in the first leaf of the leaf parent of 160..191
    // 4 leaves, the leaf parent, the 2 nodes above it and the header: 8 (the general path
    // makes 5: one leaf).
    EXPECT_TRUE(edit_under_every_failure(v, mv, erase, at, 8).has_value());
  }
}

}  // namespace
