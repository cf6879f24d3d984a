#pragma once

// Shared helpers for the operator tests.

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "tseq/eigen.hpp"
#include "tseq/ops.hpp"

namespace tseq_test {

inline tseq::Tensor i64(std::int64_t v) { return tseq::Tensor::scalar<std::int64_t>(v); }
inline tseq::Tensor i32(std::int32_t v) { return tseq::Tensor::scalar<std::int32_t>(v); }

// A tensor of type t and shape [2] whose values encode `id` (so tensors can be told apart).
inline tseq::Tensor tagged(tseq::DataType t, int id) {
  return tseq::visit_dtype(t, [&](auto tag) {
    using T = typename decltype(tag)::type;
    std::vector<T> v(2);
    if constexpr (std::is_same_v<T, std::string>) {
      v = {"t" + std::to_string(id), "x"};
    } else if constexpr (std::is_same_v<T, bool>) {
      v = {(id & 1) != 0, (id & 2) != 0};
    } else if constexpr (std::is_same_v<T, Eigen::half>) {
      v = {Eigen::half(static_cast<float>(id)), Eigen::half(0.5f)};
    } else if constexpr (std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>>) {
      using R = typename T::value_type;
      v = {T(static_cast<R>(id), static_cast<R>(-id)), T(0, 1)};
    } else {
      v = {static_cast<T>(id), static_cast<T>(id + 1)};
    }
    return tseq::Tensor::from_values<T>(tseq::Shape{2}, v);
  });
}

// Runs f, expecting an exception of type E whose message is exactly `message`.
template <class E>
void expect_error(const std::function<void()>& f, const std::string& message) {
  try {
    f();
    ADD_FAILURE() << "expected an exception: " << message;
  } catch (const E& e) {
    EXPECT_EQ(std::string(e.what()), message);
  } catch (const std::exception& e) {
    ADD_FAILURE() << "wrong exception type: " << e.what();
  }
}

// The sequence's tensors, as handles (to compare identity with identical_to).
inline std::vector<tseq::Tensor> handles(const tseq::TensorSequence& s) { return {s.begin(), s.end()}; }

inline void expect_same_tensors(const tseq::TensorSequence& s, const std::vector<tseq::Tensor>& expected) {
  ASSERT_EQ(s.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_TRUE(s[i].identical_to(expected[i])) << "tensor " << i << " is " << s[i];
  }
}

}  // namespace tseq_test
