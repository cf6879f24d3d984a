// TensorSequence's own interface: construction checks, checked access, non-negative updates,
// equality and printing.

#include <gtest/gtest.h>

#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "tseq/sequence.hpp"

namespace {

using namespace tseq;

Tensor f(float v) { return Tensor::scalar(v); }

TEST(TensorSequence, KeepsItsElementTypeWhenEmpty) {
  const TensorSequence e(DataType::Int64);
  EXPECT_TRUE(e.empty());
  EXPECT_EQ(e.elem_type(), DataType::Int64);
  EXPECT_THROW(TensorSequence(static_cast<DataType>(0)), TypeError);
  EXPECT_THROW(TensorSequence(static_cast<DataType>(16)), TypeError);
}

TEST(TensorSequence, UpdatesCheckTypesAndPositions) {
  const TensorSequence s(DataType::Float, std::vector<Tensor>{f(1), f(2)});
  const TensorSequence a = s.push_back(f(3));
  EXPECT_EQ(a.size(), 3u);
  EXPECT_EQ(a[2].value<float>(0), 3.f);
  const TensorSequence b = s.insert(0, f(0));
  EXPECT_EQ(b[0].value<float>(0), 0.f);
  EXPECT_EQ(b[1].value<float>(0), 1.f);
  const TensorSequence c = s.erase(1);
  EXPECT_EQ(c.size(), 1u);
  EXPECT_EQ(s.size(), 2u) << "the input is unchanged";
  EXPECT_THROW((void)s.push_back(Tensor::scalar<std::int32_t>(1)), TypeError);
  EXPECT_THROW((void)s.insert(0, Tensor::scalar(1.0)), TypeError);
  try {
    (void)s.insert(3, f(9));
    FAIL();
  } catch (const IndexError& e) {
    EXPECT_STREQ(e.what(), "TensorSequence::insert: position 3 is out of range [0, 2]");
  }
  try {
    (void)s.erase(2);
    FAIL();
  } catch (const IndexError& e) {
    EXPECT_STREQ(e.what(), "TensorSequence::at: index 2 is out of range [0, 1] for a sequence of 2 tensors");
  }
  try {
    (void)TensorSequence(DataType::Float).at(0);
    FAIL();
  } catch (const IndexError& e) {
    EXPECT_STREQ(e.what(), "TensorSequence::at: index 0 on an empty sequence");
  }
  // The && forms give the same results and leave other holders alone.
  TensorSequence owned = s;
  owned = std::move(owned).push_back(f(3));
  owned = std::move(owned).insert(0, f(0));
  owned = std::move(owned).erase(1);
  ASSERT_EQ(owned.size(), 3u);
  EXPECT_EQ(owned[0].value<float>(0), 0.f);
  EXPECT_EQ(owned[1].value<float>(0), 2.f);
  EXPECT_EQ(s.size(), 2u);
  EXPECT_THROW((void)std::move(owned).push_back(Tensor::scalar(true)), TypeError);
  EXPECT_THROW((void)std::move(owned).insert(9, f(1)), IndexError);
  EXPECT_THROW((void)std::move(owned).erase(9), IndexError);
  EXPECT_EQ(owned.size(), 3u) << "arguments are checked before anything is moved";
}

TEST(TensorSequence, EqualityAndIdentity) {
  const TensorSequence s(DataType::Float, std::vector<Tensor>{f(1), f(2)});
  const TensorSequence copy = s;
  const TensorSequence same_values(DataType::Float, std::vector<Tensor>{f(1), f(2)});
  EXPECT_TRUE(s.same_root(copy));
  EXPECT_FALSE(s.same_root(same_values));
  EXPECT_TRUE(equal(s, same_values));
  EXPECT_FALSE(equal(s, s.erase(0)));
  EXPECT_FALSE(
      equal(s, TensorSequence(DataType::Double, std::vector<Tensor>{Tensor::scalar(1.0), Tensor::scalar(2.0)})));
  EXPECT_FALSE(equal(s, TensorSequence(DataType::Float, std::vector<Tensor>{f(1), f(3)})));
  const TensorSequence nan(DataType::Float, std::vector<Tensor>{f(std::numeric_limits<float>::quiet_NaN())});
  EXPECT_FALSE(equal(nan, nan)) << "NaN is never equal, also in the same sequence";
}

TEST(TensorSequence, Printing) {
  std::vector<Tensor> v;
  for (int i = 0; i < 6; ++i) v.push_back(f(static_cast<float>(i)));
  EXPECT_EQ(to_string(TensorSequence(DataType::Float, v)),
            "seq(float)[6]{float[]{0}, float[]{1}, float[]{2}, float[]{3}, ...}");
  EXPECT_EQ(to_string(TensorSequence(DataType::String)), "seq(string)[0]{}");
  std::ostringstream os;
  os << TensorSequence(DataType::Bool, std::vector<Tensor>{Tensor::scalar(true)});
  EXPECT_EQ(os.str(), "seq(bool)[1]{bool[]{true}}");
}

}  // namespace
