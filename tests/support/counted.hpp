#pragma once

// An element type that counts its constructions, copies and destructions, detects double
// destruction, and can be told to throw on the k-th copy (after Abseil's InstanceTracker idea).

#include <atomic>
#include <cstdint>
#include <stdexcept>

namespace tseq_test {

struct copy_failure : std::runtime_error {
  copy_failure() : std::runtime_error("injected copy failure") {}
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

}  // namespace tseq_test
