// SplitToSequence and ConcatFromSequence: ONNX's cases, edge cases, every element type, errors.

#include <gtest/gtest.h>

#include <numeric>
#include <vector>

#include "ops/helpers.hpp"
#include "tseq/eigen.hpp"
#include "tseq/ops.hpp"

namespace {

using namespace tseq;
using namespace tseq::ops;
using tseq_test::expect_error;
using tseq_test::i64;

Tensor arange(Shape shape) {
  std::vector<float> v(static_cast<std::size_t>(shape.num_elements()));
  std::iota(v.begin(), v.end(), 0.f);
  return Tensor::from_values<float>(shape, v);
}

Tensor floats(Shape shape, std::vector<float> v) { return Tensor::from_values<float>(shape, v); }

void expect_tensors(const TensorSequence& s, const std::vector<Tensor>& expected) {
  ASSERT_EQ(s.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_TRUE(equal(s[i], expected[i])) << "tensor " << i << ": " << s[i] << " expected " << expected[i];
  }
}

TEST(SplitToSequence, NoSplitKeepdims) {
  const Tensor x = arange(Shape{3, 2});
  expect_tensors(split_to_sequence(x), {floats({1, 2}, {0, 1}), floats({1, 2}, {2, 3}), floats({1, 2}, {4, 5})});
  expect_tensors(split_to_sequence(x, {}, 0, 0), {floats({2}, {0, 1}), floats({2}, {2, 3}), floats({2}, {4, 5})});
  expect_tensors(split_to_sequence(x, {}, -1, 1), {floats({3, 1}, {0, 2, 4}), floats({3, 1}, {1, 3, 5})});
  expect_tensors(split_to_sequence(x, {}, 1, 0), {floats({3}, {0, 2, 4}), floats({3}, {1, 3, 5})});
}

TEST(SplitToSequence, ScalarSplit) {
  // Like ONNX's test_split_to_sequence_1: shape [3, 6], split 2, axis 1.
  const Tensor x = arange(Shape{3, 6});
  const TensorSequence s = split_to_sequence(x, i64(2), 1);
  expect_tensors(s, {floats({3, 2}, {0, 1, 6, 7, 12, 13}), floats({3, 2}, {2, 3, 8, 9, 14, 15}),
                     floats({3, 2}, {4, 5, 10, 11, 16, 17})});
  // The last piece holds the remainder; keepdims is ignored once a split is given.
  expect_tensors(split_to_sequence(x, Tensor::scalar<std::int32_t>(4), 1, 0),
                 {floats({3, 4}, {0, 1, 2, 3, 6, 7, 8, 9, 12, 13, 14, 15}), floats({3, 2}, {4, 5, 10, 11, 16, 17})});
}

TEST(SplitToSequence, ListSplit) {
  // Like ONNX's test_split_to_sequence_2: shape [3, 6], split [1, 2], axis 0.
  const Tensor x = arange(Shape{3, 6});
  const TensorSequence s = split_to_sequence(x, Tensor::from_values<std::int64_t>(Shape{2}, {1, 2}), 0);
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].shape(), (Shape{1, 6}));
  EXPECT_EQ(s[1].shape(), (Shape{2, 6}));
  EXPECT_FLOAT_EQ(s[1].value<float>(0), 6.f);
  EXPECT_FALSE(s[0].identical_to(x)) << "new payloads";
}

TEST(SplitToSequence, ZeroLengthPieces) {
  // ONNX's test_sequence_model8: an empty axis split [0, 0, 0] gives three empty tensors.
  const Tensor x = floats({0, 2}, {});
  const TensorSequence s = split_to_sequence(x, Tensor::from_values<std::int64_t>(Shape{3}, {0, 0, 0}));
  ASSERT_EQ(s.size(), 3u);
  for (const Tensor& t : s) EXPECT_EQ(t.shape(), (Shape{0, 2}));
  const TensorSequence m = split_to_sequence(arange(Shape{3}), Tensor::from_values<std::int64_t>(Shape{3}, {0, 3, 0}));
  expect_tensors(m, {floats({0}, {}), floats({3}, {0, 1, 2}), floats({0}, {})});
  const TensorSequence none = split_to_sequence(x);
  EXPECT_TRUE(none.empty());
  EXPECT_EQ(none.dtype(), DataType::Float);
  EXPECT_TRUE(split_to_sequence(x, Tensor::from_values<std::int64_t>(Shape{0}, std::vector<std::int64_t>{})).empty());
  EXPECT_TRUE(split_to_sequence(x, i64(3)).empty());
}

TEST(SplitToSequence, Errors) {
  const Tensor x = arange(Shape{3, 6});
  expect_error<ShapeError>([&] { (void)split_to_sequence(Tensor::scalar(1.f)); },
                           "SplitToSequence: the input is a scalar (shape []); it has no axis to split");
  expect_error<IndexError>([&] { (void)split_to_sequence(x, {}, 2); },
                           "SplitToSequence: axis 2 is out of range [-2, 1] for an input of shape [3, 6]");
  expect_error<IndexError>([&] { (void)split_to_sequence(x, {}, -3); },
                           "SplitToSequence: axis -3 is out of range [-2, 1] for an input of shape [3, 6]");
  expect_error<ShapeError>([&] { (void)split_to_sequence(x, i64(0)); }, "SplitToSequence: scalar split 0 must be > 0");
  expect_error<ShapeError>([&] { (void)split_to_sequence(x, i64(-2)); },
                           "SplitToSequence: scalar split -2 must be > 0");
  expect_error<ShapeError>(
      [&] {
        (void)split_to_sequence(x, Tensor::from_values<std::int64_t>(Shape{2}, {4, -1}));
      },
      "SplitToSequence: split entry 1 is -1; entries must be >= 0");
  expect_error<ShapeError>(
      [&] {
        (void)split_to_sequence(x, Tensor::from_values<std::int64_t>(Shape{2}, {1, 1}));
      },
      "SplitToSequence: split entries sum to 2 but axis 0 of shape [3, 6] has length 3");
  expect_error<ShapeError>(
      [&] { (void)split_to_sequence(x, Tensor::from_values<std::int64_t>(Shape{0}, std::vector<std::int64_t>{})); },
      "SplitToSequence: split is empty but axis 0 has length 3");
  expect_error<ShapeError>(
      [&] {
        (void)split_to_sequence(x, Tensor::from_values<std::int64_t>(Shape{1, 1}, {3}));
      },
      "SplitToSequence: split must be a scalar or 1-D, got shape [1, 1]");
  expect_error<TypeError>([&] { (void)split_to_sequence(x, Tensor::scalar(1.f)); },
                          "SplitToSequence: split must be an int32 or int64 tensor, got float");
}

TEST(ConcatFromSequence, ConcatAndStack) {
  const TensorSequence s = split_to_sequence(arange(Shape{2, 6}), i64(2), 1);  // 3 x [2, 2]
  // ONNX's test_sequence_model4 concatenates along axis 1.
  EXPECT_TRUE(equal(concat_from_sequence(s, 1), arange(Shape{2, 6})));
  EXPECT_TRUE(equal(concat_from_sequence(s, -1), arange(Shape{2, 6})));
  EXPECT_TRUE(equal(concat_from_sequence(s, 0), floats({6, 2}, {0, 1, 6, 7, 2, 3, 8, 9, 4, 5, 10, 11})));
  // ONNX's test_sequence_model5: stacking along a new last axis.
  const Tensor st = concat_from_sequence(s, -1, 1);
  EXPECT_EQ(st.shape(), (Shape{2, 2, 3}));
  EXPECT_TRUE(equal(st, floats({2, 2, 3}, {0, 2, 4, 1, 3, 5, 6, 8, 10, 7, 9, 11})));
  EXPECT_EQ(concat_from_sequence(s, 0, 1).shape(), (Shape{3, 2, 2}));
  EXPECT_EQ(concat_from_sequence(s, 2, 1).shape(), (Shape{2, 2, 3}));
  EXPECT_EQ(concat_from_sequence(s, -3, 1).shape(), (Shape{3, 2, 2}));
  // Scalars can be stacked, not concatenated.
  const TensorSequence scalars = sequence_construct(std::vector<Tensor>{Tensor::scalar(1.f), Tensor::scalar(2.f)});
  EXPECT_TRUE(equal(concat_from_sequence(scalars, 0, 1), floats({2}, {1, 2})));
  EXPECT_TRUE(equal(concat_from_sequence(scalars, -1, 1), floats({2}, {1, 2})));
  // Pieces of different lengths along the axis, including empty ones.
  const TensorSequence ragged =
      split_to_sequence(arange(Shape{5, 2}), Tensor::from_values<std::int64_t>(Shape{4}, {2, 0, 3, 0}));
  EXPECT_TRUE(equal(concat_from_sequence(ragged, 0), arange(Shape{5, 2})));
}

TEST(ConcatFromSequence, Errors) {
  const TensorSequence s = split_to_sequence(arange(Shape{2, 6}), i64(2), 1);
  expect_error<Error>(
      [&] { (void)concat_from_sequence(sequence_empty(), 0); },
      "ConcatFromSequence: the sequence is empty; at least 1 tensor is needed to know the output shape");
  expect_error<Error>([&] { (void)concat_from_sequence(s, 0, 2); },
                      "ConcatFromSequence: new_axis 2 is invalid; it must be 0 or 1");
  expect_error<IndexError>([&] { (void)concat_from_sequence(s, 2); },
                           "ConcatFromSequence: axis 2 is out of range [-2, 1] for tensors of shape [2, 2]");
  expect_error<IndexError>([&] { (void)concat_from_sequence(s, -4, 1); },
                           "ConcatFromSequence: axis -4 is out of range [-3, 2] for stacking tensors of rank 2 "
                           "(output rank 3)");
  const TensorSequence scalars = sequence_construct(std::vector<Tensor>{Tensor::scalar(1.f)});
  expect_error<IndexError>([&] { (void)concat_from_sequence(scalars, 0); },
                           "ConcatFromSequence: axis 0 is invalid: there is no axis in tensors of shape []");
  const TensorSequence mixed = sequence_construct(std::vector<Tensor>{arange(Shape{2, 2}), arange(Shape{3, 3})});
  expect_error<ShapeError>([&] { (void)concat_from_sequence(mixed, 0); },
                           "ConcatFromSequence: tensor 1 has shape [3, 3], incompatible with tensor 0's shape [2, 2] "
                           "(only axis 0 may differ)");
  const TensorSequence rows = sequence_construct(std::vector<Tensor>{arange(Shape{2, 2}), arange(Shape{3, 2})});
  EXPECT_EQ(concat_from_sequence(rows, 0).shape(), (Shape{5, 2}));
  expect_error<ShapeError>([&] { (void)concat_from_sequence(rows, 0, 1); },
                           "ConcatFromSequence: tensor 1 has shape [3, 2], incompatible with tensor 0's shape [2, 2] "
                           "(stacking needs equal shapes)");
  const TensorSequence ranks = sequence_construct(std::vector<Tensor>{arange(Shape{2}), arange(Shape{2, 1})});
  EXPECT_THROW((void)concat_from_sequence(ranks, 0), ShapeError);
}

// Split then concat gives the input back, for every element type.
TEST(SplitConcat, RoundTripEveryType) {
  for (DataType t : all_dtypes) {
    const Tensor x = visit_dtype(t, [&](auto tag) {
      using T = typename decltype(tag)::type;
      std::vector<T> v(24);
      for (std::size_t i = 0; i < v.size(); ++i) {
        if constexpr (std::is_same_v<T, std::string>) {
          v[i] = std::string(i % 5, 'a') + std::to_string(i);
        } else if constexpr (std::is_same_v<T, bool>) {
          v[i] = i % 3 == 0;
        } else if constexpr (std::is_same_v<T, Eigen::half>) {
          v[i] = Eigen::half(static_cast<float>(i));
        } else if constexpr (std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>>) {
          v[i] = T(static_cast<typename T::value_type>(i), 1);
        } else {
          v[i] = static_cast<T>(static_cast<int>(i));
        }
      }
      return Tensor::from_values<T>(Shape{2, 3, 4}, v);
    });
    for (std::int64_t axis : {0, 1, 2, -1}) {
      const TensorSequence pieces = split_to_sequence(x, {}, axis, 1);
      EXPECT_EQ(pieces.dtype(), t);
      EXPECT_TRUE(equal(concat_from_sequence(pieces, axis), x)) << dtype_name(t) << " axis " << axis;
      const TensorSequence squeezed = split_to_sequence(x, {}, axis, 0);
      EXPECT_TRUE(equal(concat_from_sequence(squeezed, axis, 1), x)) << dtype_name(t) << " axis " << axis;
      const TensorSequence twos = split_to_sequence(x, i64(2), axis);
      EXPECT_TRUE(equal(concat_from_sequence(twos, axis), x)) << dtype_name(t) << " axis " << axis;
    }
  }
}

}  // namespace
