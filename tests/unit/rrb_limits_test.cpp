// Limits: a sequence of 10^8 elements, and sizes that would overflow size_type.

#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "support/error_of.hpp"
#include "tseq/rrb_vector.hpp"

namespace {

using V = tseq::rrb_vector<std::int32_t>;

TEST(Limits, HundredMillionElementsBuildEraseAndSliceWithinTheLevelsBound) {
  constexpr std::size_t n = 100'000'000;
  V::builder b;
  for (std::size_t i = 0; i < n; ++i) b.push_back(static_cast<std::int32_t>(i));
  const V v = std::move(b).persistent();
  ASSERT_EQ(v.size(), n);
  EXPECT_LE(v.levels(), V::levels_bound(n));
  const V e = v.erase(n / 2);
  EXPECT_EQ(e.size(), n - 1);
  EXPECT_EQ(e[n / 2], static_cast<std::int32_t>(n / 2 + 1));
  EXPECT_EQ(v[n / 2], static_cast<std::int32_t>(n / 2));
  const V cut = v.erase(1000, n - 1000);
  EXPECT_EQ(cut.size(), 2000u);
  EXPECT_EQ(cut[1000], static_cast<std::int32_t>(n - 1000));
  cut.check_invariants();
}

// Doubling by self-concatenation shares every node, so sizes near 2^61 cost kilobytes; the
// concatenation that would pass max_size() is an error, never a wrap-around.
TEST(Limits, ConcatenationPastMaxSizeThrowsLengthErrorNamingBothSizes) {
  V v{7, 8};
  for (int i = 0; i < 59; ++i) v = v + v;  // 2^60 elements
  ASSERT_EQ(v.size(), std::size_t{1} << 60);
  EXPECT_EQ(v[(std::size_t{1} << 60) - 1], 8);
  EXPECT_EQ(v[(std::size_t{1} << 59) + 2], 7);
  EXPECT_LE(v.levels(), V::levels_bound(v.size()));
  const V w = v.erase(std::size_t{1} << 59);  // still O(log n)
  EXPECT_EQ(w.size(), (std::size_t{1} << 60) - 1);
  ASSERT_GT(v.size() + v.size(), V::max_size());
  EXPECT_EQ(tseq_test::error_of<tseq::LengthError>([&] { (void)(v + v); }),
            "rrb_vector::operator+: 1152921504606846976 + 1152921504606846976 elements "
            "exceed max_size() 2305843009213693951");
  EXPECT_NO_THROW((void)(v + w));  // 2^61 - 1: exactly max_size()
  V owned = v;
  EXPECT_THROW((void)(std::move(owned) + v), tseq::LengthError);
  EXPECT_TRUE(owned.identical_to(v)) << "checked before anything is moved";
  V right = v;
  EXPECT_THROW((void)(v + std::move(right)), tseq::LengthError);
  EXPECT_TRUE(right.identical_to(v));
  V both = v;
  EXPECT_THROW((void)(std::move(owned) + std::move(both)), tseq::LengthError);
  EXPECT_TRUE(owned.identical_to(v));
  EXPECT_TRUE(both.identical_to(v));
}

}  // namespace
