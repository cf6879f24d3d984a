// Checked int64 arithmetic (tseq/detail/checked.hpp): the portable forms, which compilers
// without overflow builtins use (tseq/detail/config.hpp), give the builtins' results.

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "tseq/detail/checked.hpp"
#include "tseq/error.hpp"

namespace {

using tseq::detail::add_overflow;
using tseq::detail::mul_overflow;
using tseq::detail::portable_add_overflow;
using tseq::detail::portable_mul_overflow;
using tseq::detail::portable_sub_overflow;
using tseq::detail::sub_overflow;

constexpr std::int64_t max = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t min = std::numeric_limits<std::int64_t>::min();

// Operands around every boundary: 0, +-1, +-2, the square root of the range, half, the ends.
std::vector<std::int64_t> edges() {
  std::vector<std::int64_t> v;
  for (const std::int64_t x :
       {std::int64_t{0}, std::int64_t{1}, std::int64_t{2}, std::int64_t{3}, std::int64_t{3037000499},
        std::int64_t{3037000500}, max / 2, max / 2 + 1, max - 1, max}) {
    v.push_back(x);
    v.push_back(-x);
  }
  v.push_back(min);
  v.push_back(min + 1);
  v.push_back(min / 2);
  v.push_back(min / 2 - 1);
  return v;
}

TEST(Checked, PortableFormsOverflowExactlyAtTheEndsOfTheRange) {
  std::int64_t r = 0;
  EXPECT_FALSE(portable_add_overflow(max - 1, 1, r));
  EXPECT_EQ(r, max);
  EXPECT_TRUE(portable_add_overflow(max, 1, r));
  EXPECT_FALSE(portable_add_overflow(min + 1, -1, r));
  EXPECT_EQ(r, min);
  EXPECT_TRUE(portable_add_overflow(min, -1, r));
  EXPECT_FALSE(portable_sub_overflow(min + 1, 1, r));
  EXPECT_EQ(r, min);
  EXPECT_TRUE(portable_sub_overflow(min, 1, r));
  EXPECT_TRUE(portable_sub_overflow(0, min, r));
  EXPECT_FALSE(portable_sub_overflow(-1, min, r));
  EXPECT_EQ(r, max);
  EXPECT_FALSE(portable_mul_overflow(3037000499, 3037000499, r));
  EXPECT_EQ(r, std::int64_t{3037000499} * 3037000499);
  EXPECT_TRUE(portable_mul_overflow(3037000500, 3037000500, r));
  EXPECT_TRUE(portable_mul_overflow(min, -1, r));
  EXPECT_TRUE(portable_mul_overflow(-1, min, r));
  EXPECT_FALSE(portable_mul_overflow(min, 1, r));
  EXPECT_EQ(r, min);
  EXPECT_FALSE(portable_mul_overflow(min / 2, 2, r));
  EXPECT_EQ(r, min);
  EXPECT_TRUE(portable_mul_overflow(min / 2 - 1, 2, r));
  EXPECT_FALSE(portable_mul_overflow(0, min, r));
  EXPECT_EQ(r, 0);
}

TEST(Checked, PortableFormsAgreeWithTheCompilersOnEveryPairOfEdgeOperands) {
  const std::vector<std::int64_t> v = edges();
  for (const std::int64_t a : v) {
    for (const std::int64_t b : v) {
      std::int64_t want = 0;
      std::int64_t got = 0;
      const bool add = add_overflow(a, b, want);
      ASSERT_EQ(portable_add_overflow(a, b, got), add) << a << " + " << b;
      if (!add) {
        ASSERT_EQ(got, want) << a << " + " << b;
      }
      const bool sub = sub_overflow(a, b, want);
      ASSERT_EQ(portable_sub_overflow(a, b, got), sub) << a << " - " << b;
      if (!sub) {
        ASSERT_EQ(got, want) << a << " - " << b;
      }
      const bool mul = mul_overflow(a, b, want);
      ASSERT_EQ(portable_mul_overflow(a, b, got), mul) << a << " * " << b;
      if (!mul) {
        ASSERT_EQ(got, want) << a << " * " << b;
      }
    }
  }
}

TEST(Checked, CheckedMulThrowsAShapeErrorNamingTheOperationAndTheOperands) {
  EXPECT_EQ(tseq::detail::checked_mul(-4, 5, "Test", "a product"), -20);
  try {
    (void)tseq::detail::checked_mul(max, 2, "Test", "a product");
    FAIL() << "no exception";
  } catch (const tseq::ShapeError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("Test"), std::string::npos) << what;
    EXPECT_NE(what.find("a product"), std::string::npos) << what;
    EXPECT_NE(what.find(std::to_string(max)), std::string::npos) << what;
  }
}

}  // namespace
