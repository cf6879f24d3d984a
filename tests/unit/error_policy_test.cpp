// The precondition and error policy of the containers (docs/embedding.md, "Preconditions and
// errors"), row by row, for rrb_vector<int> and TensorSequence side by side:
// - operator[] is a precondition (noexcept, checked by TSEQ_ASSERT in assertion builds);
// - every other call that takes a position throws tseq::IndexError naming the call, the
//   position and the valid range, and leaves its input unchanged;
// - counts and slice bounds (take, drop, slice) are clamped, never an error;
// - a result longer than max_size() is a tseq::LengthError.

#include <gtest/gtest.h>

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "support/error_of.hpp"
#include "tseq/rrb_vector.hpp"
#include "tseq/sequence.hpp"

namespace {

using tseq::IndexError;
using tseq::Tensor;
using tseq::TensorSequence;
using tseq_test::error_of;
using V = tseq::rrb_vector<int>;

constexpr std::size_t n = 40;  // a tree and a tail at B = 32

V vec() {
  std::vector<int> xs(n);
  for (std::size_t i = 0; i < n; ++i) xs[i] = static_cast<int>(i);
  return V(xs.begin(), xs.end());
}

TensorSequence seq() {
  std::vector<Tensor> ts;
  for (std::size_t i = 0; i < n; ++i) ts.push_back(Tensor::scalar<float>(static_cast<float>(i)));
  return TensorSequence(tseq::DataType::Float, ts);
}

std::vector<int> values(const V& v) { return {v.begin(), v.end()}; }
std::vector<int> values(const TensorSequence& s) {
  std::vector<int> r;
  for (const Tensor& t : s) r.push_back(static_cast<int>(t.values<float>()[0]));
  return r;
}

std::vector<int> iota(std::size_t first, std::size_t last) {
  std::vector<int> r;
  for (std::size_t i = first; i < last; ++i) r.push_back(static_cast<int>(i));
  return r;
}

// One row: a call with a bad position on both containers, and the message each must give.
struct Row {
  const char* call;
  std::function<void(const V&)> on_vector;
  std::function<void(const TensorSequence&)> on_sequence;
  std::string vector_message;
  std::string sequence_message;
};

const std::string N = std::to_string(n);
const std::string index_range = " is out of range [0, " + std::to_string(n - 1) + "] for a ";
const std::string position_range = " is out of range [0, " + N + "] for a ";
const Tensor x = Tensor::scalar<float>(1);

TEST(ErrorPolicy, EveryBadPositionIsAnIndexErrorNamingTheCallThePositionAndTheRange) {
  const std::vector<Row> rows = {
      {"at", [](const V& v) { (void)v.at(n); }, [](const TensorSequence& s) { (void)s.at(n); },
       "rrb_vector::at: index " + N + index_range + "vector of " + N + " elements",
       "TensorSequence::at: index " + N + index_range + "sequence of " + N + " tensors"},
      {"set", [](const V& v) { (void)v.set(n, 1); }, [](const TensorSequence& s) { (void)s.set(n, x); },
       "rrb_vector::set: index " + N + index_range + "vector of " + N + " elements",
       "TensorSequence::set: index " + N + index_range + "sequence of " + N + " tensors"},
      {"erase", [](const V& v) { (void)v.erase(n); }, [](const TensorSequence& s) { (void)s.erase(n); },
       "rrb_vector::erase: index " + N + index_range + "vector of " + N + " elements",
       "TensorSequence::erase: index " + N + index_range + "sequence of " + N + " tensors"},
      {"insert", [](const V& v) { (void)v.insert(n + 1, 1); },
       [](const TensorSequence& s) { (void)s.insert(n + 1, x); },
       "rrb_vector::insert: position " + std::to_string(n + 1) + position_range + "vector of " + N + " elements",
       "TensorSequence::insert: position " + std::to_string(n + 1) + position_range + "sequence of " + N + " tensors"},
  };
  for (const Row& r : rows) {
    SCOPED_TRACE(r.call);
    const V v = vec();
    const TensorSequence s = seq();
    EXPECT_EQ(error_of<IndexError>([&] { r.on_vector(v); }), r.vector_message);
    EXPECT_EQ(error_of<IndexError>([&] { r.on_sequence(s); }), r.sequence_message);
    EXPECT_EQ(values(v), iota(0, n));  // the input is unchanged
    EXPECT_EQ(values(s), iota(0, n));
  }
}

TEST(ErrorPolicy, CallsOnAnEmptyContainerAreIndexErrors) {
  const V v;
  const TensorSequence s(tseq::DataType::Float);
  EXPECT_EQ(error_of<IndexError>([&] { (void)v.front(); }), "rrb_vector::front: index 0 on an empty vector");
  EXPECT_EQ(error_of<IndexError>([&] { (void)v.back(); }), "rrb_vector::back: index 0 on an empty vector");
  EXPECT_EQ(error_of<IndexError>([&] { (void)v.pop_back(); }), "rrb_vector::pop_back: index 0 on an empty vector");
  EXPECT_EQ(error_of<IndexError>([&] { (void)s.front(); }), "TensorSequence::front: index 0 on an empty sequence");
  EXPECT_EQ(error_of<IndexError>([&] { (void)s.back(); }), "TensorSequence::back: index 0 on an empty sequence");
  EXPECT_EQ(error_of<IndexError>([&] { (void)s.pop_back(); }),
            "TensorSequence::pop_back: index 0 on an empty sequence");
}

TEST(ErrorPolicy, TheMovedFormsCheckBeforeTakingTheirInput) {
  V v = vec();
  TensorSequence s = seq();
  EXPECT_THROW((void)std::move(v).erase(n), IndexError);
  EXPECT_THROW((void)std::move(s).erase(n), IndexError);
  EXPECT_THROW((void)std::move(v).insert(n + 1, 1), IndexError);
  EXPECT_THROW((void)std::move(s).insert(n + 1, x), IndexError);
  EXPECT_EQ(values(v), iota(0, n));  // NOLINT(bugprone-use-after-move): the policy under test
  EXPECT_EQ(values(s), iota(0, n));  // NOLINT(bugprone-use-after-move)
}

TEST(ErrorPolicy, AnInvalidRangeIsAnIndexError) {
  const V v = vec();
  EXPECT_EQ(error_of<IndexError>([&] { (void)v.erase(5, 4); }),
            "rrb_vector::erase: range [5, 4) is not within [0, " + N + "]");
  EXPECT_EQ(error_of<IndexError>([&] { (void)v.erase(5, n + 1); }),
            "rrb_vector::erase: range [5, " + std::to_string(n + 1) + ") is not within [0, " + N + "]");
  EXPECT_EQ(values(v.erase(5, 5)), iota(0, n));  // an empty range is valid
}

TEST(ErrorPolicy, CountsAndSliceBoundsAreClamped) {
  const V v = vec();
  const TensorSequence s = seq();
  EXPECT_EQ(values(v.take(n + 5)), iota(0, n));
  EXPECT_EQ(values(s.take(n + 5)), iota(0, n));
  EXPECT_EQ(values(v.drop(n + 5)), iota(0, 0));
  EXPECT_EQ(values(s.drop(n + 5)), iota(0, 0));
  EXPECT_EQ(values(s.slice(5, n + 100)), iota(5, n));
  EXPECT_EQ(values(s.slice(30, 10)), iota(0, 0));  // first is clamped to last
}

TEST(ErrorPolicy, IndexingIsAPreconditionNotAnError) {
  const V v = vec();
  const TensorSequence s = seq();
  static_assert(noexcept(v[0]));
  static_assert(noexcept(s[0]));
  static_assert(!noexcept(v.at(0)));
  static_assert(!noexcept(s.at(0)));
  EXPECT_EQ(v[n - 1], static_cast<int>(n - 1));
}

}  // namespace
