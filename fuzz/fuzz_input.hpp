#pragma once

// Reads typed values from a fuzzer's byte string; past its end every read returns zero.

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace tseq_fuzz {

class Input {
 public:
  Input(const std::uint8_t* data, std::size_t size) : p_(data), end_(data + size) {}

  bool empty() const noexcept { return p_ == end_; }
  std::size_t left() const noexcept { return static_cast<std::size_t>(end_ - p_); }

  std::uint8_t byte() noexcept { return p_ == end_ ? 0 : *p_++; }

  template <class T>
  T value() noexcept {
    T v{};
    const std::size_t n = left() < sizeof(T) ? left() : sizeof(T);
    std::memcpy(&v, p_, n);
    p_ += n;
    return v;
  }

  // A number in [0, bound) (0 when bound is 0).
  std::size_t below(std::size_t bound) noexcept { return bound == 0 ? 0 : value<std::uint32_t>() % bound; }

  // The rest of the input.
  const std::uint8_t* rest(std::size_t& n) noexcept {
    n = left();
    const std::uint8_t* r = p_;
    p_ = end_;
    return r;
  }

 private:
  const std::uint8_t* p_;
  const std::uint8_t* end_;
};

}  // namespace tseq_fuzz
