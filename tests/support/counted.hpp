#pragma once

// Element types that count their constructions, copies and destructions, detect double
// destruction, and can be told to throw on the k-th copy (after Abseil's InstanceTracker idea):
// Counted, whose moves never throw, and ThrowingMove, whose moves may.

#include <atomic>
#include <cstdint>
#include <stdexcept>
#include <type_traits>

namespace tseq_test {

struct copy_failure : std::runtime_error {
  copy_failure() : std::runtime_error("injected copy failure") {}
};

struct move_failure : std::runtime_error {
  move_failure() : std::runtime_error("injected move failure") {}
};

class Counted {
 public:
  // Atomic, so that the concurrency tests can count across threads.
  static inline std::atomic<long> live{0};
  static inline std::atomic<long> copies{0};
  static inline std::atomic<long> moves{0};
  static inline std::atomic<long> bad_destructions{0};
  static inline std::atomic<long> throw_on_copy{0};  // > 0: the copy that brings it to 0 throws

  static void reset() noexcept {
    live = 0;
    copies = 0;
    moves = 0;
    bad_destructions = 0;
    throw_on_copy = 0;
  }

  Counted(int v = 0) : v_(v) { ++live; }  // NOLINT(google-explicit-constructor)
  Counted(const Counted& o) : v_(o.v_) {
    if (throw_on_copy > 0 && --throw_on_copy == 0) throw copy_failure();
    ++copies;
    ++live;
  }
  Counted(Counted&& o) noexcept : v_(o.v_) {
    ++moves;
    ++live;
  }
  Counted& operator=(const Counted& o) {
    if (throw_on_copy > 0 && --throw_on_copy == 0) throw copy_failure();
    ++copies;
    v_ = o.v_;
    return *this;
  }
  Counted& operator=(Counted&& o) noexcept {
    ++moves;
    v_ = o.v_;
    return *this;
  }
  ~Counted() {
    if (magic_ != kAlive) ++bad_destructions;
    magic_ = kDead;
    --live;
  }
  int value() const noexcept { return v_; }
  friend bool operator==(const Counted& a, const Counted& b) noexcept { return a.v_ == b.v_; }

 private:
  static constexpr std::uint32_t kAlive = 0x5EC0A11Eu;
  static constexpr std::uint32_t kDead = 0xDEADBEEFu;
  int v_;
  std::uint32_t magic_ = kAlive;
};

// An element type whose moves may throw: its move constructor and move assignment are
// noexcept(false), so rrb_vector cannot take its nothrow-move shortcuts (sharing elements
// between leaves in place, filling a leaf without a guard). The k-th move (construction or
// assignment) throws when throw_on_move is set to k, the k-th copy when throw_on_copy is; the
// two count down separately. A moved-from object holds kMovedFrom, so that a vector showing
// one (an element moved out of a node another version still reads) differs from its model.
// Counts live objects and detects double destruction as Counted does.
class ThrowingMove {
 public:
  static constexpr int kMovedFrom = -2'000'000'000;

  static inline std::atomic<long> live{0};
  static inline std::atomic<long> copies{0};
  static inline std::atomic<long> moves{0};
  static inline std::atomic<long> bad_destructions{0};
  static inline std::atomic<long> throw_on_copy{0};  // > 0: the copy that brings it to 0 throws
  static inline std::atomic<long> throw_on_move{0};  // > 0: the move that brings it to 0 throws

  static void reset() noexcept {
    live = 0;
    copies = 0;
    moves = 0;
    bad_destructions = 0;
    throw_on_copy = 0;
    throw_on_move = 0;
  }

  ThrowingMove(int v = 0) : v_(v) { ++live; }  // NOLINT(google-explicit-constructor)
  ThrowingMove(const ThrowingMove& o) : v_(o.v_) {
    if (throw_on_copy > 0 && --throw_on_copy == 0) throw copy_failure();
    ++copies;
    ++live;
  }
  ThrowingMove(ThrowingMove&& o) noexcept(false) : v_(o.v_) {  // NOLINT(performance-noexcept-move-constructor)
    if (throw_on_move > 0 && --throw_on_move == 0) throw move_failure();
    o.v_ = kMovedFrom;
    ++moves;
    ++live;
  }
  ThrowingMove& operator=(const ThrowingMove& o) {
    if (throw_on_copy > 0 && --throw_on_copy == 0) throw copy_failure();
    ++copies;
    v_ = o.v_;
    return *this;
  }
  ThrowingMove& operator=(ThrowingMove&& o) noexcept(false) {  // NOLINT(performance-noexcept-move-constructor)
    if (throw_on_move > 0 && --throw_on_move == 0) throw move_failure();
    ++moves;
    const int v = o.v_;
    o.v_ = kMovedFrom;
    v_ = v;
    return *this;
  }
  ~ThrowingMove() {
    if (magic_ != kAlive) ++bad_destructions;
    magic_ = kDead;
    --live;
  }
  int value() const noexcept { return v_; }
  friend bool operator==(const ThrowingMove& a, const ThrowingMove& b) noexcept { return a.v_ == b.v_; }

 private:
  static constexpr std::uint32_t kAlive = 0x7A11AB1Eu;
  static constexpr std::uint32_t kDead = 0xDEADBEEFu;
  int v_;
  std::uint32_t magic_ = kAlive;
};

static_assert(std::is_nothrow_move_constructible_v<Counted>);
static_assert(!std::is_nothrow_move_constructible_v<ThrowingMove>);
static_assert(!std::is_nothrow_move_assignable_v<ThrowingMove>);

}  // namespace tseq_test
