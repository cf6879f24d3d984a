// Fault injection: the k-th allocation fails, for every k, inside the sequence operators. The
// inputs must be unchanged, the exception must reach the caller, and nothing may leak (the
// sanitizer run checks leaks).

#include <gtest/gtest.h>

#include <functional>
#include <new>
#include <string>
#include <vector>

#include "ops/helpers.hpp"
#include "support/alloc_hook.hpp"
#include "tseq/ops.hpp"

namespace {

using namespace tseq;
using namespace tseq::ops;

std::vector<float> values_of(const TensorSequence& s) {
  std::vector<float> r;
  for (const Tensor& t : s) {
    for (float v : t.values<float>()) r.push_back(v);
  }
  return r;
}

// Runs op with allocation k failing, for k = 1, 2, ... until it succeeds.
int fail_every_allocation(const std::string& name, const TensorSequence& input, const std::function<void()>& op) {
  const std::vector<float> before = values_of(input);
  for (int k = 1;; ++k) {
    bool threw = false;
    {
      tseq_test::fail_allocation_at fail(k);
      try {
        op();
      } catch (const std::bad_alloc&) {
        threw = true;
      }
      EXPECT_EQ(threw, fail.fired()) << name << ": failure " << k << " not reported";
    }
    EXPECT_EQ(values_of(input), before) << name << ": input changed by failure " << k;
    input.tensors().check_invariants();
    if (!threw) return k - 1;
    if (k > 100000) {
      ADD_FAILURE() << name << " never succeeds";
      return k;
    }
  }
}

TEST(OpsFaults, EveryAllocationFailureIsCleanlyReported) {
  for (int n : {3, 40, 2000}) {
    std::vector<Tensor> ts;
    for (int i = 0; i < n; ++i) ts.push_back(Tensor::from_values<float>(Shape{2}, {static_cast<float>(i), 0.f}));
    const TensorSequence s(DataType::Float, ts);
    const Tensor x = Tensor::from_values<float>(Shape{2}, {-1.f, -1.f});
    const auto mid = static_cast<std::int64_t>(n / 2);
    const Tensor pos = tseq_test::i64(mid);
    const Tensor big = Tensor::from_values<float>(Shape{static_cast<std::int64_t>(n), 2}, values_of(s));
    const std::vector<std::pair<std::string, std::function<void()>>> ops = {
        {"SequenceErase", [&] { (void)sequence_erase(s, pos); }},
        {"SequenceInsert", [&] { (void)sequence_insert(s, x, pos); }},
        {"SequenceAt", [&] { (void)sequence_at(s, pos); }},
        {"SequenceConstruct", [&] { (void)sequence_construct(ts); }},
        {"SplitToSequence", [&] { (void)split_to_sequence(big, {}, 0, 1); }},
        {"SplitToSequence(split)", [&] { (void)split_to_sequence(big, tseq_test::i64(3), 0); }},
        {"ConcatFromSequence", [&] { (void)concat_from_sequence(s, 0); }},
        {"ConcatFromSequence(stack)", [&] { (void)concat_from_sequence(s, 0, 1); }},
        {"take+drop", [&] { (void)(s.tensors().take(static_cast<std::size_t>(mid)) + s.tensors().drop(1)); }},
        {"in-place erase of a copy", [&] { (void)sequence_erase(TensorSequence(s), pos); }},
    };
    for (const auto& [name, op] : ops) {
      const int failures = fail_every_allocation(name + " n=" + std::to_string(n), s, op);
      if (name == "SequenceErase" || name == "SplitToSequence") {
        EXPECT_GT(failures, 0) << name;
      }
    }
  }
}

}  // namespace
