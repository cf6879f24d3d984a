#pragma once

// An input iterator over tensors that checks each one's element type as it is read, so that
// building a sequence from a span reads every tensor once: the type check and the handle copy
// touch the same tensor header.

#include <cstddef>
#include <iterator>

#include "tseq/tensor.hpp"

namespace tseq::detail {

// OnMismatch(index, tensor) throws.
template <class OnMismatch>
class type_checked_input {
 public:
  using iterator_category = std::input_iterator_tag;
  using value_type = Tensor;
  using difference_type = std::ptrdiff_t;
  using pointer = const Tensor*;
  using reference = const Tensor&;

  type_checked_input(const Tensor* p, const Tensor* base, DataType dtype, const OnMismatch* on_mismatch) noexcept
      : p_(p), base_(base), dtype_(dtype), on_mismatch_(on_mismatch) {}

  [[nodiscard]] const Tensor& operator*() const {
    if (p_->dtype() != dtype_) (*on_mismatch_)(static_cast<std::size_t>(p_ - base_), *p_);
    return *p_;
  }
  type_checked_input& operator++() noexcept {
    ++p_;
    return *this;
  }
  [[nodiscard]] bool operator==(const type_checked_input& o) const noexcept { return p_ == o.p_; }
  [[nodiscard]] bool operator!=(const type_checked_input& o) const noexcept { return p_ != o.p_; }

 private:
  const Tensor* p_;
  const Tensor* base_;
  DataType dtype_;
  const OnMismatch* on_mismatch_;
};

// The tensors of `in` as an rrb_vector, each checked to have element type `dtype` as it is
// copied in (one pass).
template <class V, class OnMismatch>
V checked_copy(std::span<const Tensor> in, DataType dtype, const OnMismatch& on_mismatch) {
  using It = type_checked_input<OnMismatch>;
  const Tensor* b = in.data();
  return V(It(b, b, dtype, &on_mismatch), It(b + in.size(), b, dtype, &on_mismatch));
}

}  // namespace tseq::detail
