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

// The two element types, one template: Moves == nothrow_moves is Counted (moves never throw and
// leave the value), Moves == throwing_moves is ThrowingMove: its move constructor and move
// assignment are noexcept(false), so rrb_vector cannot take its nothrow-move shortcuts
// (sharing elements between leaves in place, filling a leaf without a guard); the k-th move
// (construction or assignment) throws when throw_on_move is set to k, the k-th copy when
// throw_on_copy is (the two count down separately); a moved-from object holds kMovedFrom, so
// that a vector showing one (an element moved out of a node another version still reads)
// differs from its model. Each instantiation has its own counters.
enum class moves_may_throw : bool { no, yes };

template <moves_may_throw Moves>
class basic_counted {
  static constexpr bool nothrow_moves = Moves == moves_may_throw::no;

 public:
  static constexpr int kMovedFrom = -2'000'000'000;

  // Atomic, so that the concurrency tests can count across threads.
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

  basic_counted(int v = 0) : v_(v) { ++live; }  // NOLINT(google-explicit-constructor)
  basic_counted(const basic_counted& o) : v_(o.v_) {
    count_copy();
    ++live;
  }
  basic_counted(basic_counted&& o) noexcept(nothrow_moves)
      : v_(o.v_) {  // NOLINT(performance-noexcept-move-constructor)
    count_move(o);
    ++live;
  }
  basic_counted& operator=(const basic_counted& o) {
    if (this != &o) {
      count_copy();
      v_ = o.v_;
    }
    return *this;
  }
  basic_counted& operator=(basic_counted&& o) noexcept(
      nothrow_moves) {  // NOLINT(performance-noexcept-move-constructor)
    const int v = o.v_;
    count_move(o);
    v_ = v;
    return *this;
  }
  ~basic_counted() {
    if (magic_ != kAlive) ++bad_destructions;
    magic_ = kDead;
    --live;
  }
  int value() const noexcept { return v_; }
  friend bool operator==(const basic_counted& a, const basic_counted& b) noexcept { return a.v_ == b.v_; }

 private:
  static constexpr std::uint32_t kAlive = 0x5EC0A11Eu;
  static constexpr std::uint32_t kDead = 0xDEADBEEFu;
  int v_;
  std::uint32_t magic_ = kAlive;

  static void count_copy() {
    if (throw_on_copy > 0 && --throw_on_copy == 0) throw copy_failure();
    ++copies;
  }
  static void count_move(basic_counted& from) noexcept(nothrow_moves) {
    if constexpr (!nothrow_moves) {
      if (throw_on_move > 0 && --throw_on_move == 0) throw move_failure();
      from.v_ = kMovedFrom;
    }
    ++moves;
  }
};

using Counted = basic_counted<moves_may_throw::no>;
using ThrowingMove = basic_counted<moves_may_throw::yes>;

static_assert(std::is_nothrow_move_constructible_v<Counted>);
static_assert(!std::is_nothrow_move_constructible_v<ThrowingMove>);
static_assert(!std::is_nothrow_move_assignable_v<ThrowingMove>);

}  // namespace tseq_test
