// Exception guarantees of tseq::rrb_vector (the class notes in tseq/rrb_vector.hpp), swept over
// every failure point: each update, with its operands held in each way, fails at the k-th
// element copy, the k-th element move and the k-th allocation, for k = 1, 2, ... until it
// completes.
//  - `const&` updates: the strong guarantee (the operand still equals its model and passes
//    check_invariants()).
//  - `&&` updates: the moved-from vector is left in a valid state, every other version sharing
//    its nodes is unchanged, and nothing leaks or is destroyed twice (live objects counted).
//  - Whatever the failure, the update that finally completes returns the model's result.
// Element types: tseq_test::ThrowingMove (its moves may throw, so rrb_vector cannot take its
// nothrow-move shortcuts) and tseq_test::Counted (only copies may throw), at branching 4 and 32,
// on a bare leaf, a full bare leaf, and trees of 1, 2 and 3 levels. Each sweep reports its first
// broken guarantee, naming the update, how its operands were held, the fault and k.
// Links tseq_alloc_hook, which fails the k-th operator new on request.

#include <gtest/gtest.h>

#include <cstddef>
#include <functional>
#include <new>
#include <numeric>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "support/alloc_hook.hpp"
#include "support/counted.hpp"
#include "tseq/rrb_vector.hpp"

namespace {

using tseq_test::Counted;
using tseq_test::ThrowingMove;
using Model = std::vector<int>;

enum class fault { copy, move, allocation };

const char* fault_name(fault f) {
  switch (f) {
    case fault::copy:
      return "copy";
    case fault::move:
      return "move";
    default:
      return "allocation";
  }
}

template <class T>
constexpr bool moves_can_throw = requires {
  T::throw_on_move;
};

template <class T>
std::vector<fault> faults_of() {
  if constexpr (moves_can_throw<T>) {
    return {fault::copy, fault::move, fault::allocation};
  } else {
    return {fault::copy, fault::allocation};
  }
}

// While alive (or until disarm()), the k-th copy, move or allocation on this thread throws.
// Disarmed before any check: GoogleTest and std::string allocate too.
template <class T>
class armed {
 public:
  armed(fault f, long k) {
    if (f == fault::copy) T::throw_on_copy = k;
    if constexpr (moves_can_throw<T>) {
      if (f == fault::move) T::throw_on_move = k;
    }
    if (f == fault::allocation) alloc_.emplace(k);
  }
  armed(const armed&) = delete;
  armed& operator=(const armed&) = delete;
  ~armed() { disarm(); }
  void disarm() noexcept {
    T::throw_on_copy = 0;
    if constexpr (moves_can_throw<T>) T::throw_on_move = 0;
    alloc_.reset();
  }

 private:
  std::optional<tseq_test::fail_allocation_at> alloc_;
};

// Runs f; true if it threw one of the injected failures (any other exception escapes).
template <class F>
bool injected_failure(F&& f) {
  try {
    f();
  } catch (const tseq_test::copy_failure&) {
    return true;
  } catch (const tseq_test::move_failure&) {
    return true;
  } catch (const std::bad_alloc&) {
    return true;
  }
  return false;
}

template <class Vec>
Model values(const Vec& v) {
  Model r;
  r.reserve(v.size());
  for (const auto& x : v) r.push_back(x.value());
  return r;
}

std::string show(const Model& m) {
  std::string r = std::to_string(m.size()) + " elements {";
  for (std::size_t i = 0; i < m.size() && i < 8; ++i) r += (i ? ", " : "") + std::to_string(m[i]);
  return r + (m.size() > 8 ? ", ...}" : "}");
}

// Empty when v passes check_invariants() and holds exactly m; else what is wrong.
template <class Vec>
std::string mismatch(const Vec& v, const Model& m) {
  try {
    v.check_invariants();
  } catch (const std::logic_error& e) {
    return e.what();
  }
  const Model got = values(v);
  if (got != m) return "holds " + show(got) + " instead of " + show(m);
  return {};
}

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
  return {
      {0, B / 2 + 1},              // a bare leaf
      {0, B},                      // a full bare leaf: growing it makes a tree
      {1, B + B / 2 + 1},          // a tree of one leaf, and the tail
      {2, 4 * B + B / 2},          // a root over leaves
      {3, B * B + 2 * B + B / 2},  // a root over inner nodes over leaves
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
  // changes; a moved-from operand is valid after a failure: left empty or, when the failure
  // came before the update took it, unchanged; with `require_empty`, empty (as documented).
  std::string check(held how, const Model& m, bool failed, bool require_empty) const {
    if (other) {
      if (auto e = mismatch(*other, m); !e.empty()) return "another version sharing its nodes changed: " + e;
    }
    if (how == held::by_const_ref) {
      if (auto e = mismatch(v, m); !e.empty()) return "the const& operand changed: " + e;
    } else if (failed) {
      if (auto e = mismatch(v, Model{}); e.empty()) return {};
      if (require_empty) return "the moved-from vector was not left empty: " + mismatch(v, Model{});
      if (auto e = mismatch(v, m); !e.empty()) return "the moved-from vector is neither empty nor unchanged: " + e;
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

// What a test's sweeps found: the first broken guarantee of each, and how many failures were
// injected in all (so that a sweep that never fails anything does not pass unnoticed).
struct findings {
  std::vector<std::string> broken;
  long injected = 0;
  long sweeps = 0;

  static constexpr std::size_t kShown = 12;

  void expect_clean(long min_injected) const {
    std::string all;
    for (std::size_t i = 0; i < broken.size() && i < kShown; ++i) all += "\n  " + broken[i];
    if (broken.size() > kShown) all += "\n  ... and " + std::to_string(broken.size() - kShown) + " more";
    EXPECT_TRUE(broken.empty()) << broken.size() << " of " << sweeps << " sweeps broke a guarantee:" << all;
    // (A sweep stops at its first broken guarantee, so the count means something only if none broke.)
    if (broken.empty()) {
      EXPECT_GE(injected, min_injected) << "the sweeps injected too few failures to test anything";
    }
  }
};

constexpr long kMaxFailurePoint = 100'000;

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

  // Sweeps the failure point of one update, its operand held as `how`; returns the first
  // broken guarantee (empty if none).
  static std::string sweep(const update<Vec>& u, held how, fault f, const shape& s, const Model& m, findings& out,
                           bool require_empty = false) {
    const Model expected = u.model(m);
    for (long k = 1; k <= kMaxFailurePoint; ++k) {
      const long live_before = T::live.load();
      bool failed = false;
      std::string e;
      {
        operand<Vec> x(how, s.n, m);
        if (x.v.levels() != s.levels) return where(u.name, how, f, k, s) + ": the input has the wrong shape";
        Vec r;
        {
          armed<T> guard(f, k);
          failed = injected_failure([&] { r = how == held::by_const_ref ? u.by_ref(x.v) : u.by_move(std::move(x.v)); });
          guard.disarm();
        }
        e = x.check(how, m, failed, require_empty);
        if (e.empty() && !failed) {
          if (auto d = mismatch(r, expected); !d.empty()) e = "wrong result: " + d;
        }
      }
      if (e.empty() && T::live.load() != live_before) {
        e = std::to_string(T::live.load() - live_before) + " elements leaked (negative: destroyed twice)";
      }
      if (e.empty() && T::bad_destructions.load() != 0) e = "an element was destroyed twice";
      if (!e.empty()) return where(u.name, how, f, k, s) + ": " + e;
      if (!failed) return {};
      ++out.injected;
    }
    return where(u.name, how, f, kMaxFailurePoint, s) + ": never completes";
  }

  static findings sweep_updates(std::span<const held> modes, bool require_empty = false,
                                std::optional<unsigned> only_levels = std::nullopt) {
    findings out;
    for (const shape& s : shapes<Vec>()) {
      if (only_levels && s.levels != *only_levels) continue;
      const Model m = model_of<Vec>(s.n);
      for (const update<Vec>& u : updates_of<Vec>(s.n)) {
        for (held how : modes) {
          for (fault f : faults_of<T>()) {
            ++out.sweeps;
            if (auto e = sweep(u, how, f, s, m, out, require_empty); !e.empty()) out.broken.push_back(e);
          }
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

// Safety of the && overloads: other versions untouched, the moved-from vector valid, no leak.
TYPED_TEST(RrbExceptions, RvalueUpdatesLeakNothingAndLeaveOtherVersionsUnchanged) {
  TestFixture::sweep_updates(rvalue_held).expect_clean(50);
}

// The letter of the class notes: "the moved-from vector is left empty".
TYPED_TEST(RrbExceptions, RvalueUpdatesLeaveTheMovedFromVectorEmptyOnFailure) {
  const held modes[] = {held::alone};
  TestFixture::sweep_updates(modes, true, 2u).expect_clean(5);
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
          ++out.sweeps;
          const std::string name = std::string("operator+ with a right operand held as ") + held_name(hb);
          for (long k = 1;; ++k) {
            if (k > kMaxFailurePoint) {
              out.broken.push_back(TestFixture::where(name, ha, f, k, s) + ": never completes");
              break;
            }
            const long live_before = T::live.load();
            bool failed = false;
            std::string e;
            {
              operand<Vec> a(ha, s.n, ma);
              operand<Vec> b(hb, other.n, mb);
              Vec r;
              {
                armed<T> guard(f, k);
                failed = injected_failure([&] {
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
                guard.disarm();
              }
              e = a.check(ha, ma, failed, false);
              if (e.empty()) {
                e = b.check(hb, mb, failed, false);
                if (!e.empty()) e = "right operand: " + e;
              }
              if (e.empty() && !failed) {
                if (auto d = mismatch(r, expected); !d.empty()) e = "wrong result: " + d;
              }
            }
            if (e.empty() && T::live.load() != live_before) {
              e = std::to_string(T::live.load() - live_before) + " elements leaked (negative: destroyed twice)";
            }
            if (!e.empty()) {
              out.broken.push_back(TestFixture::where(name, ha, f, k, s) + ": " + e);
              break;
            }
            if (!failed) break;
            ++out.injected;
          }
        }
      }
    }
  }
  out.expect_clean(50);
}

// The builder has no documented exception guarantee; it must at least stay usable: after a
// failed push_back its size() is that of what persistent() gives, which is either what it held
// or nothing, and further push_backs build a valid vector. Other versions never change.
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
    Model held_now = values(now);
    if (failed) {
      if (!held_now.empty() && held_now != m)
        return "the builder holds neither its elements nor none: " + show(held_now);
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
      for (fault f : faults_of<T>()) {
        ++out.sweeps;
        for (long k = 1;; ++k) {
          const std::string name = std::string("builder::push_back on ") + start_name(start);
          if (k > kMaxFailurePoint) {
            out.broken.push_back(TestFixture::where(name, held::alone, f, k, s) + ": never completes");
            break;
          }
          const long live_before = T::live.load();
          bool failed = false;
          std::string e;
          {
            builder_case<Vec> c(start, s.n);
            {
              armed<T> guard(f, k);
              failed = injected_failure([&] { c.b.push_back(T(-1)); });
              guard.disarm();
            }
            e = c.check(m, failed, expected);
          }
          if (e.empty() && T::live.load() != live_before) {
            e = std::to_string(T::live.load() - live_before) + " elements leaked (negative: destroyed twice)";
          }
          if (!e.empty()) {
            out.broken.push_back(TestFixture::where(name, held::alone, f, k, s) + ": " + e);
            break;
          }
          if (!failed) break;
          ++out.injected;
        }
      }
    }
  }
  out.expect_clean(10);
}

// persistent() && allocates the vector's header (for more than B elements); if that fails the
// builder must still be consistent.
TYPED_TEST(RrbExceptions, BuilderStaysConsistentWhenPersistentFails) {
  using T = typename TestFixture::T;
  using Vec = typename TestFixture::Vec;
  findings out;
  for (const shape& s : shapes<Vec>()) {
    const Model m = model_of<Vec>(s.n);
    for (builder_start start : {builder_start::fresh, builder_start::from_vector, builder_start::after_snapshot}) {
      ++out.sweeps;
      for (long k = 1;; ++k) {
        const std::string name = std::string("builder::persistent() && on ") + start_name(start);
        const long live_before = T::live.load();
        bool failed = false;
        std::string e;
        {
          builder_case<Vec> c(start, s.n);
          Vec r;
          {
            armed<T> guard(fault::allocation, k);
            failed = injected_failure([&] { r = std::move(c.b).persistent(); });
            guard.disarm();
          }
          if (failed) {
            e = c.check(m, true, m);
          } else if (auto d = mismatch(r, m); !d.empty()) {
            e = "wrong result: " + d;
          }
        }
        if (e.empty() && T::live.load() != live_before) {
          e = std::to_string(T::live.load() - live_before) + " elements leaked (negative: destroyed twice)";
        }
        if (!e.empty()) {
          out.broken.push_back(TestFixture::where(name, held::alone, fault::allocation, k, s) + ": " + e);
          break;
        }
        if (!failed) break;
        ++out.injected;
      }
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

}  // namespace
