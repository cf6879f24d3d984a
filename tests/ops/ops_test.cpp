// SequenceEmpty/Construct/Insert/Erase/At/Length: ONNX examples, every element type, boundary
// positions, every error with its message, persistence and the absence of payload copies.

#include <gtest/gtest.h>

#include <optional>
#include <vector>

#include "ops/helpers.hpp"
#include "support/alloc_hook.hpp"
#include "tseq/ops.hpp"

namespace {

using namespace tseq;
using namespace tseq::ops;
using tseq_test::expect_error;
using tseq_test::expect_same_tensors;
using tseq_test::handles;
using tseq_test::i32;
using tseq_test::i64;
using tseq_test::tagged;

Tensor f23(std::vector<float> v) { return Tensor::from_values<float>(Shape{2, 3}, v); }

// ../shared/reference/SequenceErase.md, its three worked examples verbatim.
struct EraseExample : ::testing::Test {
  const Tensor input_seq = f23({-1.f, 0.f, 1.5f, -2.25f, 3.5f, -4.75f});
  const Tensor input_1 = f23({0, 1, 2, 3, 4, 5});
  const Tensor input_2 = f23({6, 7, 8, 9, 10, 11});
  const TensorSequence seq = sequence_construct(std::vector<Tensor>{input_seq, input_1, input_2});
};

TEST_F(EraseExample, test_cc_sequence_erase_default) {
  const TensorSequence out = sequence_erase(seq);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_TRUE(equal(out[0], f23({-1.f, 0.f, 1.5f, -2.25f, 3.5f, -4.75f})));
  EXPECT_TRUE(equal(out[1], f23({0, 1, 2, 3, 4, 5})));
  EXPECT_EQ(out.dtype(), DataType::Float);
}

TEST_F(EraseExample, test_cc_sequence_erase_neg) {
  const TensorSequence out = sequence_erase(seq, i64(-2));
  ASSERT_EQ(out.size(), 2u);
  EXPECT_TRUE(equal(out[0], f23({-1.f, 0.f, 1.5f, -2.25f, 3.5f, -4.75f})));
  EXPECT_TRUE(equal(out[1], f23({6, 7, 8, 9, 10, 11})));
}

TEST_F(EraseExample, test_cc_sequence_erase_pos1) {
  const TensorSequence out = sequence_erase(seq, i64(1));
  ASSERT_EQ(out.size(), 2u);
  EXPECT_TRUE(equal(out[0], f23({-1.f, 0.f, 1.5f, -2.25f, 3.5f, -4.75f})));
  EXPECT_TRUE(equal(out[1], f23({6, 7, 8, 9, 10, 11})));
  EXPECT_EQ(seq.size(), 3u) << "the input is unchanged";
}

// Position tensors in each accepted form: int64 scalar, int32 scalar, int64 of shape [1].
std::vector<Tensor> position_forms(std::int64_t p) {
  return {i64(p), i32(static_cast<std::int32_t>(p)), Tensor::from_values<std::int64_t>(Shape{1}, {p})};
}

class EveryType : public ::testing::TestWithParam<DataType> {
 protected:
  DataType t = GetParam();
  std::vector<Tensor> x = {tagged(t, 0), tagged(t, 1), tagged(t, 2)};
  TensorSequence s = sequence_construct(x);
};

TEST_P(EveryType, EmptyConstructLength) {
  const TensorSequence e = sequence_empty(t);
  EXPECT_TRUE(e.empty());
  EXPECT_EQ(e.dtype(), t);
  EXPECT_EQ(s.dtype(), t);
  expect_same_tensors(s, x);
  EXPECT_EQ(sequence_length(s).value<std::int64_t>(0), 3);
  EXPECT_EQ(sequence_length(s).rank(), 0u);
  EXPECT_EQ(sequence_length(e).value<std::int64_t>(0), 0);
}

TEST_P(EveryType, EraseAtBoundaries) {
  const std::vector<std::pair<std::int64_t, std::vector<int>>> cases = {{-3, {1, 2}}, {-1, {0, 1}}, {0, {1, 2}},
                                                                        {2, {0, 1}},  {1, {0, 2}},  {-2, {0, 2}}};
  for (const auto& [p, keep] : cases) {
    for (const Tensor& pos : position_forms(p)) {
      const TensorSequence out = sequence_erase(s, pos);
      std::vector<Tensor> expected;
      for (int k : keep) expected.push_back(x[static_cast<std::size_t>(k)]);
      expect_same_tensors(out, expected);
      EXPECT_EQ(out.dtype(), t);
    }
  }
  expect_same_tensors(sequence_erase(s), {x[0], x[1]});
  const TensorSequence one = sequence_construct(std::vector<Tensor>{x[0]});
  const TensorSequence none = sequence_erase(one);
  EXPECT_TRUE(none.empty());
  EXPECT_EQ(none.dtype(), t) << "erasing the only tensor keeps the element type";
  expect_same_tensors(s, x);
}

TEST_P(EveryType, InsertAtBoundaries) {
  const Tensor y = tagged(t, 9);
  const std::vector<std::pair<std::int64_t, std::vector<int>>> cases = {
      {-3, {9, 0, 1, 2}}, {0, {9, 0, 1, 2}}, {3, {0, 1, 2, 9}}, {-1, {0, 1, 9, 2}}, {1, {0, 9, 1, 2}}};
  auto pick = [&](int k) { return k == 9 ? y : x[static_cast<std::size_t>(k)]; };
  for (const auto& [p, order] : cases) {
    for (const Tensor& pos : position_forms(p)) {
      std::vector<Tensor> expected;
      for (int k : order) expected.push_back(pick(k));
      expect_same_tensors(sequence_insert(s, y, pos), expected);
    }
  }
  expect_same_tensors(sequence_insert(s, y), {x[0], x[1], x[2], y});
  const TensorSequence e = sequence_empty(t);
  expect_same_tensors(sequence_insert(e, y), {y});
  expect_same_tensors(sequence_insert(e, y, i64(0)), {y});
  expect_same_tensors(s, x);
}

TEST_P(EveryType, AtBoundaries) {
  const std::vector<std::pair<std::int64_t, int>> cases = {{-3, 0}, {-1, 2}, {0, 0}, {2, 2}, {1, 1}};
  for (const auto& [p, k] : cases) {
    for (const Tensor& pos : position_forms(p)) {
      EXPECT_TRUE(sequence_at(s, pos).identical_to(x[static_cast<std::size_t>(k)]));
    }
  }
}

TEST_P(EveryType, InPlaceOverloadsGiveTheSameResult) {
  const Tensor y = tagged(t, 9);
  TensorSequence owned = sequence_construct(x);
  owned = sequence_insert(std::move(owned), y, i64(1));
  owned = sequence_erase(std::move(owned), i64(-1));
  owned = sequence_insert(std::move(owned), y);
  owned = sequence_erase(std::move(owned));
  expect_same_tensors(owned, {x[0], y, x[1]});
  expect_same_tensors(sequence_erase(sequence_insert(s, y, i64(1)), i64(-1)), {x[0], y, x[1]});
}

INSTANTIATE_TEST_SUITE_P(Ops, EveryType, ::testing::ValuesIn(all_dtypes),
                         [](const auto& info) { return dtype_name(info.param); });

// Every error of the semantics reference, with its type and message.
TEST(OpsErrors, PositionsOutOfRange) {
  const TensorSequence s = sequence_construct(
      std::vector<Tensor>{tagged(DataType::Float, 0), tagged(DataType::Float, 1), tagged(DataType::Float, 2)});
  const TensorSequence e = sequence_empty(DataType::Float);
  const Tensor f = tagged(DataType::Float, 5);
  expect_error<IndexError>([&] { (void)sequence_erase(s, i64(5)); },
                           "SequenceErase: position 5 is out of range [-3, 2] for a sequence of 3 tensors");
  expect_error<IndexError>([&] { (void)sequence_erase(s, i64(3)); },
                           "SequenceErase: position 3 is out of range [-3, 2] for a sequence of 3 tensors");
  expect_error<IndexError>([&] { (void)sequence_erase(s, i32(-4)); },
                           "SequenceErase: position -4 is out of range [-3, 2] for a sequence of 3 tensors");
  expect_error<IndexError>([&] { (void)sequence_erase(e); },
                           "SequenceErase: position -1 (the default) is out of range for an empty sequence "
                           "(no position is valid)");
  expect_error<IndexError>([&] { (void)sequence_erase(e, i64(0)); },
                           "SequenceErase: position 0 is out of range for an empty sequence (no position is valid)");
  expect_error<IndexError>([&] { (void)sequence_at(s, i64(3)); },
                           "SequenceAt: position 3 is out of range [-3, 2] for a sequence of 3 tensors");
  expect_error<IndexError>([&] { (void)sequence_at(s, i64(-4)); },
                           "SequenceAt: position -4 is out of range [-3, 2] for a sequence of 3 tensors");
  expect_error<IndexError>([&] { (void)sequence_at(e, i64(0)); },
                           "SequenceAt: position 0 is out of range for an empty sequence (no position is valid)");
  expect_error<IndexError>([&] { (void)sequence_insert(s, f, i64(4)); },
                           "SequenceInsert: position 4 is out of range [-3, 3] for a sequence of 3 tensors");
  expect_error<IndexError>([&] { (void)sequence_insert(s, f, i64(-4)); },
                           "SequenceInsert: position -4 is out of range [-3, 3] for a sequence of 3 tensors");
  expect_error<IndexError>([&] { (void)sequence_insert(e, f, i64(1)); },
                           "SequenceInsert: position 1 is out of range for an empty sequence (only 0 is valid)");
  const TensorSequence one = sequence_construct(std::vector<Tensor>{f});
  expect_error<IndexError>([&] { (void)sequence_erase(one, i64(1)); },
                           "SequenceErase: position 1 is out of range [-1, 0] for a sequence of 1 tensor");
  expect_same_tensors(s, handles(s));
  EXPECT_EQ(s.size(), 3u);
}

TEST(OpsErrors, BadPositionTensors) {
  const TensorSequence s = sequence_construct(std::vector<Tensor>{tagged(DataType::Int64, 0)});
  expect_error<TypeError>([&] { (void)sequence_erase(s, Tensor::scalar(0.f)); },
                          "SequenceErase: position must be an int32 or int64 tensor, got float");
  expect_error<TypeError>([&] { (void)sequence_at(s, Tensor::scalar<std::int16_t>(0)); },
                          "SequenceAt: position must be an int32 or int64 tensor, got int16");
  expect_error<ShapeError>(
      [&] {
        (void)sequence_insert(s, tagged(DataType::Int64, 1), Tensor::from_values<std::int64_t>(Shape{2}, {0, 1}));
      },
      "SequenceInsert: position must hold exactly one value (a scalar or shape [1]), got shape [2]");
  expect_error<ShapeError>(
      [&] { (void)sequence_at(s, Tensor::from_values<std::int64_t>(Shape{0}, std::vector<std::int64_t>{})); },
      "SequenceAt: position must hold exactly one value (a scalar or shape [1]), got shape [0]");
}

TEST(OpsErrors, ElementTypes) {
  const TensorSequence e = sequence_empty(DataType::Float);
  expect_error<TypeError>([&] { (void)sequence_insert(e, tagged(DataType::Int64, 1)); },
                          "SequenceInsert: a int64 tensor cannot be inserted into a sequence of float tensors");
  expect_error<TypeError>(
      [&] {
        (void)sequence_construct(
            std::vector<Tensor>{tagged(DataType::Float, 0), tagged(DataType::Float, 1), tagged(DataType::Double, 2)});
      },
      "SequenceConstruct: input 2 has type double but input 0 has type float; all inputs must share one element type");
  expect_error<Error>(
      [&] { (void)sequence_construct(std::vector<Tensor>{}); },
      "SequenceConstruct: needs at least 1 input tensor, got 0 (use SequenceEmpty for an empty sequence)");
  expect_error<TypeError>([&] { (void)sequence_empty(static_cast<DataType>(16)); },
                          "SequenceEmpty: element type code 16 is not a sequence element type (valid: 1..15: float, "
                          "uint8, int8, uint16, int16, int32, int64, string, bool, float16, double, uint32, uint64, "
                          "complex64, complex128)");
  expect_error<TypeError>([&] { (void)TensorSequence(DataType::Float).push_back(tagged(DataType::Bool, 1)); },
                          "TensorSequence::push_back: a bool tensor cannot join a sequence of float tensors");
  const std::vector<Tensor> mixed{tagged(DataType::Float, 0), tagged(DataType::Int8, 1)};
  expect_error<TypeError>([&] { (void)TensorSequence(DataType::Float, mixed); },
                          "TensorSequence: tensor 1 has type int8 but the sequence holds float tensors");
}

TEST(OpsErrors, AreCatchableAsStdException) {
  try {
    (void)sequence_erase(sequence_empty());
  } catch (const std::exception& e) {
    EXPECT_NE(dynamic_cast<const tseq::Error*>(&e), nullptr);
    return;
  }
  FAIL();
}

TEST(OpsErrors, FailedInPlaceOpLeavesTheInputUsable) {
  TensorSequence s = sequence_construct(std::vector<Tensor>{tagged(DataType::Float, 0)});
  EXPECT_THROW((void)sequence_erase(std::move(s), i64(4)), IndexError);
  EXPECT_THROW((void)sequence_insert(std::move(s), tagged(DataType::Double, 1)), TypeError);
  EXPECT_EQ(s.size(), 1u);  // NOLINT(bugprone-use-after-move): validated before moving
}

// One erase in a 10^6-element sequence: no payload copy, O(log n) node allocations.
TEST(OpsCost, EraseInAMillionCopiesNoPayload) {
  TensorSequence::container_type::builder b;
  const Tensor shared = tagged(DataType::Float, 1);
  for (int i = 0; i < 1'000'000; ++i) b.push_back(i % 1000 == 0 ? tagged(DataType::Float, i) : shared);
  const TensorSequence s = TensorSequence(DataType::Float, std::move(b).persistent());
  const std::size_t uses = shared.use_count();
  const Tensor mid = i64(500'000);
  const Tensor back7 = i64(-7);
  const Tensor last = i64(-1);
  tseq_test::count_allocations c;
  const TensorSequence out = sequence_erase(s, mid);
  const long allocations = c.delta().allocations;
  EXPECT_LE(allocations, static_cast<long>(s.tensors().levels()) + 1) << "path nodes and the holder only";
  EXPECT_EQ(out.size(), 999'999u);
  // Handles to the leaf's other 31 tensors were copied; no tensor payload was.
  EXPECT_LE(shared.use_count(), uses + 31);
  EXPECT_TRUE(out[0].identical_to(s[0]));
  EXPECT_TRUE(out[500'000].identical_to(s[500'001]));
  EXPECT_TRUE(out[999'998].identical_to(s[999'999]));

  tseq_test::count_allocations c2;
  const TensorSequence ins = sequence_insert(s, shared, back7);
  EXPECT_LE(c2.delta().allocations, 2 * static_cast<long>(s.tensors().levels()) + 2);
  tseq_test::count_allocations c3;
  const Tensor at = sequence_at(s, last);
  EXPECT_EQ(c3.delta().allocations, 0);
  EXPECT_TRUE(at.identical_to(s[999'999]));
}

TEST(OpsCost, InPlaceEraseAllocatesNothing) {
  TensorSequence s = sequence_construct(std::vector<Tensor>(100'000, tagged(DataType::Int32, 3)));
  tseq_test::count_allocations c;
  for (std::int64_t i = 0; i < 100; ++i) s = sequence_erase(std::move(s), 1000 * i);
  EXPECT_EQ(c.delta().allocations, 0);
  EXPECT_EQ(s.size(), 99'900u);
}

// SplitToSequence and ConcatFromSequence derive a shape per piece: up to Shape::inline_rank
// dims that takes no allocation (a std::vector temporary once did).
TEST(OpsCost, ShapeInsertedAndRemovedAllocateNothingUpToTheInlineRank) {
  const Shape five{2, 3, 4, 5, 6};
  tseq_test::count_allocations c;
  const Shape six = five.inserted(2, 9);
  const Shape four = five.removed(0);
  EXPECT_EQ(c.delta().allocations, 0);
  EXPECT_EQ(six, (Shape{2, 3, 9, 4, 5, 6}));
  EXPECT_EQ(four, (Shape{3, 4, 5, 6}));
  EXPECT_EQ(six.inserted(6, 1), (Shape{2, 3, 9, 4, 5, 6, 1})) << "past the inline rank: one allocation, same values";
  EXPECT_EQ(six.inserted(6, 1).removed(6), six);
}

}  // namespace
