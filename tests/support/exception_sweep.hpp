#pragma once

// Failure-point sweeps for exception-safety tests: an operation runs with its k-th element
// copy, element move or allocation failing, for k = 1, 2, ... until it completes, and the
// guarantees are checked after every attempt; the sweep itself checks that no element leaked
// or was destroyed twice. Element types: those of support/counted.hpp. Allocation faults need
// tseq_alloc_hook linked in.

#include <gtest/gtest.h>

#include <cstddef>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "support/alloc_hook.hpp"
#include "support/counted.hpp"

namespace tseq_test {

enum class fault { copy, move, allocation };

inline const char* fault_name(fault f) {
  switch (f) {
    case fault::copy:
      return "copy";
    case fault::move:
      return "move";
    default:
      return "allocation";
  }
}

// ThrowingMove's moves can be made to fail; Counted's never throw.
template <class T>
constexpr bool moves_can_throw = !std::is_nothrow_move_constructible_v<T>;

// The faults T can be made to fail with.
template <class T>
std::vector<fault> faults_of() {
  if constexpr (moves_can_throw<T>) {
    return {fault::copy, fault::move, fault::allocation};
  } else {
    return {fault::copy, fault::allocation};
  }
}

// While alive, the k-th copy, move or allocation on this thread throws.
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
  ~armed() {
    T::throw_on_copy = 0;
    T::throw_on_move = 0;
  }

 private:
  std::optional<fail_allocation_at> alloc_;
};

// Runs op with the k-th fault f of T armed (disarmed again before returning, so that checks
// may copy and allocate); true if op threw the injected failure. Any other exception escapes.
template <class T, class Op>
bool fails_at(fault f, long k, Op&& op) {
  armed<T> guard(f, k);
  try {
    op();
  } catch (const copy_failure&) {
    return true;
  } catch (const move_failure&) {
    return true;
  } catch (const std::bad_alloc&) {
    return true;
  }
  return false;
}

// The elements of a vector of counted elements, and a short description of them.
template <class Vec>
std::vector<int> values_of(const Vec& v) {
  std::vector<int> r;
  r.reserve(v.size());
  for (const auto& x : v) r.push_back(x.value());
  return r;
}

inline std::string show(const std::vector<int>& m) {
  std::string r = std::to_string(m.size()) + " elements {";
  for (std::size_t i = 0; i < m.size() && i < 8; ++i) r += (i ? ", " : "") + std::to_string(m[i]);
  return r + (m.size() > 8 ? ", ...}" : "}");
}

// Empty when v passes check_invariants() and holds exactly m; else what is wrong.
template <class Vec>
std::string mismatch(const Vec& v, const std::vector<int>& m) {
  try {
    v.check_invariants();
  } catch (const std::logic_error& e) {
    return e.what();
  }
  const std::vector<int> got = values_of(v);
  if (got != m) return "holds " + show(got) + " instead of " + show(m);
  return {};
}

// One attempt of an operation: whether the injected failure fired, and the first guarantee it
// broke (empty if none).
struct attempt_result {
  bool failed = false;
  std::string broken;
};

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

inline constexpr long max_failure_point = 100'000;

// Sweeps the failure point of one operation on elements of type T. attempt(k) -> attempt_result
// builds the operands, runs the operation through fails_at<T>(f, k, ...) and checks the
// guarantees; its locals die before it returns, so that the sweep can then count the elements
// that leaked or were destroyed twice. The sweep stops at the operation's first completion or
// at the first broken guarantee, which goes to out.broken as where(k) + ": " + what.
template <class T, class Where, class Attempt>
void sweep(findings& out, Where&& where, Attempt&& attempt) {
  ++out.sweeps;
  for (long k = 1; k <= max_failure_point; ++k) {
    const long live_before = T::live.load();
    const long bad_before = T::bad_destructions.load();
    attempt_result r = attempt(k);
    if (r.broken.empty() && T::live.load() != live_before) {
      r.broken = std::to_string(T::live.load() - live_before) + " elements leaked (negative: destroyed twice)";
    }
    if (r.broken.empty() && T::bad_destructions.load() != bad_before) r.broken = "an element was destroyed twice";
    if (!r.broken.empty()) {
      out.broken.push_back(where(k) + ": " + r.broken);
      return;
    }
    if (!r.failed) return;
    ++out.injected;
  }
  out.broken.push_back(where(max_failure_point) + ": never completes");
}

}  // namespace tseq_test
