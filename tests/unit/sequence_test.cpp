// TensorSequence's own interface: construction checks, checked access, non-negative updates,
// equality and printing.

#include <gtest/gtest.h>

#include <cstdio>
#include <limits>
#include <random>
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
  EXPECT_EQ(e.dtype(), DataType::Int64);
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
    EXPECT_STREQ(e.what(), "TensorSequence::insert: position 3 is out of range [0, 2] for a sequence of 2 tensors");
  }
  try {
    (void)s.erase(2);
    FAIL();
  } catch (const IndexError& e) {
    EXPECT_STREQ(e.what(), "TensorSequence::erase: index 2 is out of range [0, 1] for a sequence of 2 tensors");
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

// Every update names itself, the bad value and the valid range; nothing is moved on error.
TEST(TensorSequence, EachUpdateReportsItsOwnNameAndRange) {
  const TensorSequence s(DataType::Float, std::vector<Tensor>{f(1), f(2)});
  const TensorSequence e(DataType::Float);
  const auto what = [](auto&& op) {
    try {
      (void)op();
    } catch (const Error& x) {
      return std::string(x.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(what([&] { return s.set(2, f(0)); }),
            "TensorSequence::set: index 2 is out of range [0, 1] for a sequence of 2 tensors");
  EXPECT_EQ(what([&] { return s.set(0, Tensor::scalar(1.0)); }),
            "TensorSequence::set: a double tensor cannot join a sequence of float tensors");
  EXPECT_EQ(what([&] { return e.pop_back(); }), "TensorSequence::pop_back: index 0 on an empty sequence");
  EXPECT_EQ(what([&] { return e.back(); }), "TensorSequence::back: index 0 on an empty sequence");
  EXPECT_EQ(what([&] { return e.front(); }), "TensorSequence::front: index 0 on an empty sequence");
  EXPECT_EQ(what([&] { return s + TensorSequence(DataType::Int64); }),
            "TensorSequence::operator+: a sequence of int64 tensors cannot follow a sequence of float tensors");
  TensorSequence owned = s;
  EXPECT_EQ(what([&] { return std::move(owned).set(5, f(0)); }).substr(0, 21), "TensorSequence::set: ");
  EXPECT_EQ(what([&] { return std::move(owned) + TensorSequence(DataType::Bool); }).substr(0, 26),
            "TensorSequence::operator+:");
  EXPECT_EQ(owned.size(), 2u) << "arguments are checked before anything is moved";
  EXPECT_TRUE(owned.identical_to(s));
}

// Random scripts of every update, const& and && forms, checked against a std::vector of the
// same tensor handles; every earlier version must keep its contents.
TEST(TensorSequence, RandomUpdateScriptsMatchAVectorModel) {
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    std::mt19937_64 rng(seed);
    std::vector<Tensor> pool;
    for (int i = 0; i < 64; ++i) pool.push_back(f(static_cast<float>(i)));
    TensorSequence cur(DataType::Float);
    std::vector<Tensor> model;
    std::vector<std::pair<TensorSequence, std::vector<Tensor>>> kept;
    for (int step = 0; step < 3000; ++step) {
      const bool in_place = (rng() & 1) != 0;
      const Tensor& t = pool[rng() % pool.size()];
      const std::size_t n = model.size();
      const std::size_t i = n == 0 ? 0 : rng() % n;
      auto run = [&](auto op) { cur = in_place ? op(std::move(cur)) : op(std::as_const(cur)); };
      switch (n == 0 ? 0 : rng() % 9) {
        case 0:
          run([&](auto&& x) { return std::forward<decltype(x)>(x).push_back(t); });
          model.push_back(t);
          break;
        case 1:
          run([&](auto&& x) { return std::forward<decltype(x)>(x).pop_back(); });
          model.pop_back();
          break;
        case 2:
          run([&](auto&& x) { return std::forward<decltype(x)>(x).set(i, t); });
          model[i] = t;
          break;
        case 3:
          run([&](auto&& x) { return std::forward<decltype(x)>(x).insert(i, t); });
          model.insert(model.begin() + static_cast<std::ptrdiff_t>(i), t);
          break;
        case 4:
          run([&](auto&& x) { return std::forward<decltype(x)>(x).erase(i); });
          model.erase(model.begin() + static_cast<std::ptrdiff_t>(i));
          break;
        case 5: {
          const std::size_t k = rng() % (n + 2);
          run([&](auto&& x) { return std::forward<decltype(x)>(x).take(k); });
          model.resize(std::min(k, n));
          break;
        }
        case 6: {
          const std::size_t k = rng() % (n / 4 + 2);
          run([&](auto&& x) { return std::forward<decltype(x)>(x).drop(k); });
          model.erase(model.begin(), model.begin() + static_cast<std::ptrdiff_t>(std::min(k, n)));
          break;
        }
        case 7: {
          const std::size_t a = rng() % (n + 1);
          const std::size_t b = a + rng() % (n + 2);
          run([&](auto&& x) { return std::forward<decltype(x)>(x).slice(a, b); });
          const std::size_t last = std::min(b, n);
          const std::size_t first = std::min(a, last);
          model = std::vector<Tensor>(model.begin() + static_cast<std::ptrdiff_t>(first),
                                      model.begin() + static_cast<std::ptrdiff_t>(last));
          break;
        }
        default: {  // concatenation with an earlier version (or itself)
          const auto& other = kept.empty() ? std::pair{cur, model} : kept[rng() % kept.size()];
          const auto rhs = other;
          if (in_place) {
            cur = std::move(cur) + rhs.first;
          } else {
            cur = std::as_const(cur) + rhs.first;
          }
          model.insert(model.end(), rhs.second.begin(), rhs.second.end());
          break;
        }
      }
      ASSERT_EQ(cur.size(), model.size()) << "seed " << seed << " step " << step;
      if (step % 97 == 0) {
        for (std::size_t k = 0; k < model.size(); ++k) {
          ASSERT_TRUE(cur[k].identical_to(model[k])) << "seed " << seed << " step " << step << " at " << k;
        }
        cur.tensors().check_invariants();
        if (kept.size() < 16) kept.emplace_back(cur, model);
      }
      if (model.size() > 4000) {
        cur = cur.take(100);
        model.resize(100);
      }
    }
    for (const auto& [seq, m] : kept) {
      ASSERT_EQ(seq.size(), m.size()) << "seed " << seed << ": an earlier version changed";
      for (std::size_t k = 0; k < m.size(); ++k) ASSERT_TRUE(seq[k].identical_to(m[k])) << "seed " << seed;
    }
  }
}

TEST(TensorSequence, EqualityAndIdentity) {
  const TensorSequence s(DataType::Float, std::vector<Tensor>{f(1), f(2)});
  const TensorSequence copy = s;
  const TensorSequence same_values(DataType::Float, std::vector<Tensor>{f(1), f(2)});
  EXPECT_TRUE(s.identical_to(copy));
  EXPECT_FALSE(s.identical_to(same_values));
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

namespace {

// Debug-build checks (tseq/detail/assert.hpp): a broken precondition stops the program with a
// message naming it, instead of reading past a leaf. Compiled out in Release builds.
#if TSEQ_ASSERTIONS
TEST(Assertions, IndexingPastTheEndAbortsNamingThePrecondition) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const TensorSequence s(DataType::Float, std::vector<Tensor>{f(1), f(2)});
  EXPECT_DEATH((void)s[2], "tseq assertion failed: rrb_vector: index out of range");
  const std::vector<int> sevens(100, 7);
  const rrb_vector<int> v(sevens.begin(), sevens.end());
  EXPECT_DEATH((void)v[100], "operator\\[\\] precondition");
  EXPECT_DEATH((void)*v.end(), "iterator dereferenced out of range");
  EXPECT_EQ(v[99], 7) << "in range, nothing fires";
}
#else
TEST(Assertions, IndexingPastTheEndAbortsNamingThePrecondition) {
  GTEST_SKIP() << "assertions are compiled out (NDEBUG without TSEQ_ASSERTIONS)";
}
#endif

}  // namespace
