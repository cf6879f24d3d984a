// Sharing versions across threads: one base sequence, read by every thread, while each
// thread derives its own versions from it. Versions are immutable and reference counts are
// atomic, so no lock is needed around the sequences themselves.

#include <cstdio>
#include <thread>
#include <vector>

#include "tseq/ops.hpp"

int main() {
  using namespace tseq;
  std::vector<Tensor> tensors;
  for (int i = 0; i < 10000; ++i) tensors.push_back(Tensor::scalar(static_cast<float>(i)));
  const TensorSequence base(DataType::Float, tensors);

  constexpr int kThreads = 4;
  std::vector<TensorSequence> results(kThreads, TensorSequence(DataType::Float));
  std::vector<std::thread> pool;
  for (int t = 0; t < kThreads; ++t) {
    pool.emplace_back([&, t] {
      TensorSequence mine = base;  // one atomic increment
      for (int k = 0; k < 1000; ++k) {
        mine = ops::sequence_erase(std::move(mine), std::int64_t{t});  // only `mine` changes
      }
      results[static_cast<std::size_t>(t)] = std::move(mine);
    });
  }
  for (auto& th : pool) th.join();
  bool ok = base.size() == 10000 && base[0].value<float>(0) == 0.f;
  for (int t = 0; t < kThreads; ++t) {
    const TensorSequence& r = results[static_cast<std::size_t>(t)];
    std::printf("thread %d: %zu tensors, element %d is %g\n", t, r.size(), t,
                static_cast<double>(r[static_cast<std::size_t>(t)].value<float>(0)));
    ok = ok && r.size() == 9000 && r[static_cast<std::size_t>(t)].value<float>(0) == static_cast<float>(t + 1000);
  }
  std::printf("base still has %zu tensors\n", base.size());
  return ok ? 0 : 1;
}
