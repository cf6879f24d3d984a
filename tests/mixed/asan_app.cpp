// An application compiled with -fsanitize=address that links the normally built (uninstrumented)
// tseq library: the mixed build of a runtime that sanitizes its own code against an installed
// tseq. Both sides free and allocate tree nodes on the same thread: the library in
// TensorSequence's members and tseq::ops (src/), the application in rrb_vector<Tensor> updates
// instantiated here. Each side has its own node cache (tseq/detail/node_cache.hpp), so a block
// this side poisoned is never handed to the library without being unpoisoned. Registered by
// tests/CMakeLists.txt as unit.node_cache_mixed_asan, which fails on any AddressSanitizer report.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <utility>
#include <vector>

#include "tseq/ops.hpp"
#include "tseq/rrb_vector.hpp"
#include "tseq/sequence.hpp"
#include "tseq/tensor.hpp"

namespace {

int failures = 0;

void check(bool ok, const char* what, long i) {
  if (!ok) {
    std::fprintf(stderr, "node_cache_mixed_asan: %s (at %ld)\n", what, i);
    ++failures;
  }
}

float value_of(const tseq::Tensor& t) { return t.values<float>()[0]; }

}  // namespace

int main() {
  using tseq::Tensor;
  using tseq::TensorSequence;
  using V = tseq::rrb_vector<Tensor>;

  std::vector<Tensor> init;
  for (int i = 0; i < 2000; ++i) init.push_back(Tensor::scalar(static_cast<float>(i)));
  TensorSequence s = tseq::ops::sequence_construct(init);  // the library allocates the nodes
  for (long round = 0; round < 50; ++round) {
    // The application: persistent updates here (instrumented) free the previous version's
    // copied nodes into this side's cache and allocate from it.
    V v = s.tensors();
    for (long i = 0; i < 40; ++i) {
      const auto at = static_cast<std::size_t>((round * 131 + i * 37) % static_cast<long>(v.size()));
      v = v.set(at, Tensor::scalar(-1.0F));
      v = v.erase(at).insert(at, Tensor::scalar(static_cast<float>(at)));
      v = v.push_back(Tensor::scalar(0.0F)).pop_back();
    }
    // The library (uninstrumented): its updates free and allocate nodes on the same thread,
    // in code the application does not instantiate (slicing, concatenation, the builder).
    for (long i = 0; i < 40; ++i) {
      const auto at = static_cast<std::size_t>((round * 71 + i * 53) % static_cast<long>(s.size()));
      s = s.take(at) + s.drop(at);
      s = s.slice(0, at) + s.slice(at, s.size());
    }
    if (round % 10 == 0) s = tseq::ops::sequence_construct(std::vector<Tensor>(s.begin(), s.end()));
    // Reads from this side of nodes the library allocated, and of the application's own.
    for (std::size_t i = 0; i < s.size(); ++i) {
      check(value_of(s[i]) == static_cast<float>(i), "library version holds the wrong value", static_cast<long>(i));
      check(value_of(v[i]) == static_cast<float>(i), "application version holds the wrong value", static_cast<long>(i));
    }
    check(s.size() == 2000 && v.size() == 2000, "size changed", round);
  }
  const V w = s.tensors();
  for (std::size_t i = 0; i < w.size(); ++i) {
    check(value_of(w[i]) == static_cast<float>(i), "final value", static_cast<long>(i));
  }
  // The library's cache and this side's are both the thread's: one call reports and frees both.
  const std::size_t held = tseq::node_cache_bytes();
  check(held > 0 || tseq::detail::node_cache::budget == 0, "nothing cached", 0);
  check(tseq::release_node_cache() == held, "release_node_cache() freed another amount", static_cast<long>(held));
  check(tseq::node_cache_bytes() == 0, "blocks left after release_node_cache()", 0);
  std::printf("node_cache_mixed_asan: %s\n", failures == 0 ? "ok" : "FAILED");
  return failures == 0 ? 0 : 1;
}
