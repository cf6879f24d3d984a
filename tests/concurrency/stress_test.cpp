// Versions shared across threads: threads take versions from a shared pool, derive new ones
// (erase, insert, set, concat, take, drop; persistent and in place), read them, check them
// against their own model and put them back, dropping other versions that may be the last
// reference to nodes that other threads are reading. Run under ThreadSanitizer by
// `scripts/test --tsan`. At the end every element must have been destroyed exactly once.

#include <gtest/gtest.h>

#include <atomic>
#include <cstddef>
#include <memory>
#include <mutex>
#include <numeric>
#include <random>
#include <thread>
#include <utility>
#include <vector>

#include "support/counted.hpp"
#include "tseq/dlpack.hpp"
#include "tseq/ops.hpp"
#include "tseq/rrb_vector.hpp"

namespace {

using tseq_test::Counted;

template <unsigned Bits>
void stress(int threads, int steps) {
  using V = tseq::rrb_vector<Counted, Bits>;
  Counted::reset();
  {
    struct Slot {
      V v;
      std::vector<int> model;
    };
    std::vector<Slot> pool(16);
    std::mutex m;
    for (std::size_t i = 0; i < pool.size(); ++i) {
      for (int k = 0; k < 300; ++k) {
        pool[i].v = std::move(pool[i].v).push_back(Counted(k));
        pool[i].model.push_back(k);
      }
    }
    std::vector<std::thread> ts;
    std::vector<int> failures(static_cast<std::size_t>(threads), 0);
    for (int t = 0; t < threads; ++t) {
      ts.emplace_back([&, t] {
        std::mt19937_64 rng(static_cast<std::uint64_t>(t) * 7919u + 1);
        for (int s = 0; s < steps; ++s) {
          Slot a;
          Slot b;
          {
            std::lock_guard<std::mutex> lock(m);
            a = pool[rng() % pool.size()];  // a shared copy: one increment
            b = pool[rng() % pool.size()];
          }
          const std::size_t n = a.model.size();
          const int x = static_cast<int>(rng() % 1000);
          switch (rng() % 7) {
            case 0:
              if (n > 0) {
                const std::size_t i = rng() % n;
                a.v = a.v.erase(i);
                a.model.erase(a.model.begin() + static_cast<std::ptrdiff_t>(i));
              }
              break;
            case 1: {
              const std::size_t i = rng() % (n + 1);
              a.v = std::move(a.v).insert(i, Counted(x));  // shared with the pool: copies
              a.model.insert(a.model.begin() + static_cast<std::ptrdiff_t>(i), x);
              break;
            }
            case 2:
              if (n > 0) {
                const std::size_t i = rng() % n;
                a.v = a.v.set(i, Counted(x));
                a.model[i] = x;
              }
              break;
            case 3:
              if (n + b.model.size() < 3000) {
                a.v = a.v + b.v;
                a.model.insert(a.model.end(), b.model.begin(), b.model.end());
              }
              break;
            case 4: {
              const std::size_t k = rng() % (n + 1);
              a.v = a.v.take(k);
              a.model.resize(k);
              break;
            }
            case 5: {
              const std::size_t k = rng() % (n + 1);
              a.v = std::move(a.v).drop(k);
              a.model.erase(a.model.begin(), a.model.begin() + static_cast<std::ptrdiff_t>(k));
              break;
            }
            default:
              a.v = std::move(a.v).push_back(Counted(x));
              a.model.push_back(x);
              break;
          }
          // Read everything (possibly while other threads drop versions sharing these nodes).
          std::size_t i = 0;
          bool ok = a.v.size() == a.model.size();
          for (const Counted& c : a.v) ok = ok && c.value() == a.model[i++];
          ok = ok && b.v.size() == b.model.size();
          if (!ok) ++failures[static_cast<std::size_t>(t)];
          if (s % 64 == 0) a.v.check_invariants();
          {
            std::lock_guard<std::mutex> lock(m);
            pool[rng() % pool.size()] = std::move(a);  // may drop the last reference to a version
          }
        }
      });
    }
    for (auto& th : ts) th.join();
    for (int f : failures) EXPECT_EQ(f, 0);
    for (const Slot& s : pool) {
      s.v.check_invariants();
      ASSERT_TRUE(
          std::equal(s.v.begin(), s.v.end(), s.model.begin(), [](const Counted& c, int v) { return c.value() == v; }));
    }
  }
  EXPECT_EQ(Counted::live.load(), 0) << "every element destroyed exactly once";
  EXPECT_EQ(Counted::bad_destructions.load(), 0);
}

TEST(Concurrency, SharedVersionsBranching32) { stress<5>(4, 20000); }
TEST(Concurrency, SharedVersionsBranching4) { stress<2>(4, 20000); }

// The same with tensors and sequence operators: payloads shared across threads.
TEST(Concurrency, TensorSequencesAcrossThreads) {
  using namespace tseq;
  std::vector<Tensor> tensors;
  for (int i = 0; i < 64; ++i) tensors.push_back(Tensor::scalar(static_cast<float>(i)));
  const TensorSequence base(DataType::Float, tensors);
  std::vector<std::thread> ts;
  std::vector<int> bad(4, 0);
  for (int t = 0; t < 4; ++t) {
    ts.emplace_back([&, t] {
      std::mt19937_64 rng(static_cast<std::uint64_t>(t) + 11);
      TensorSequence mine = base;
      std::vector<float> model(64);  // what mine must hold: the value of each position
      std::iota(model.begin(), model.end(), 0.f);
      const auto matches = [&] {
        if (mine.size() != model.size()) return false;
        std::size_t i = 0;
        for (const Tensor& x : mine) {
          if (x.value<float>(0) != model[i++]) return false;
        }
        return true;
      };
      for (int s = 0; s < 4000; ++s) {
        if (rng() % 2 && !mine.empty()) {
          const std::size_t i = rng() % mine.size();
          mine = ops::sequence_erase(std::move(mine), static_cast<std::int64_t>(i));
          model.erase(model.begin() + static_cast<std::ptrdiff_t>(i));
        } else {
          const std::size_t k = rng() % tensors.size();
          const std::size_t i = rng() % (mine.size() + 1);
          mine = ops::sequence_insert(mine, tensors[k], static_cast<std::int64_t>(i));
          model.insert(model.begin() + static_cast<std::ptrdiff_t>(i), static_cast<float>(k));
        }
        if (ops::sequence_length(base).value<std::int64_t>(0) != 64) ++bad[static_cast<std::size_t>(t)];
        if (s % 256 == 0 && !matches()) ++bad[static_cast<std::size_t>(t)];
      }
      if (!matches()) ++bad[static_cast<std::size_t>(t)];
    });
  }
  for (auto& th : ts) th.join();
  for (int b : bad) EXPECT_EQ(b, 0);
  for (std::size_t i = 0; i < tensors.size(); ++i) EXPECT_EQ(base[i].value<float>(0), static_cast<float>(i));
  for (const Tensor& x : tensors) EXPECT_EQ(x.use_count(), 2u) << "the pool and base only";
}

// Adopted payloads whose last handles go on different threads: every owner is released
// exactly once, by whichever thread drops the last handle (some through DLPack exports that
// another thread deletes).
TEST(Concurrency, AdoptedTensorsReleasedFromManyThreads) {
  using namespace tseq;
  constexpr std::size_t n = 2000;
  std::vector<float> arena(n * 4, 1.0f);
  auto releases = std::make_unique<std::atomic<int>[]>(n);
  struct Lease {
    std::atomic<int>* count;
    explicit Lease(std::atomic<int>* c) noexcept : count(c) {}
    Lease(Lease&& o) noexcept : count(std::exchange(o.count, nullptr)) {}
    ~Lease() {
      if (count != nullptr) count->fetch_add(1, std::memory_order_relaxed);
    }
  };
  std::vector<DLManagedTensor*> exported;
  std::mutex m;
  {
    TensorSequence::container_type::builder b;
    for (std::size_t i = 0; i < n; ++i) {
      b.push_back(Tensor::adopt(DataType::Float, Shape{4}, arena.data() + 4 * i, Device::cuda(0), Lease(&releases[i])));
    }
    TensorSequence all(DataType::Float, std::move(b).persistent());
    std::vector<std::thread> ts;
    for (int t = 0; t < 4; ++t) {
      ts.emplace_back([&, t, mine = all] {
        std::mt19937_64 rng(static_cast<std::uint64_t>(t) + 5);
        TensorSequence s = mine;
        std::vector<Tensor> kept;
        for (int k = 0; k < 3000; ++k) {
          const auto i = static_cast<std::int64_t>(rng() % s.size());
          if (rng() % 3 == 0) kept.push_back(ops::sequence_at(s, i));
          s = ops::sequence_erase(std::move(s), i);
          if (s.size() < 100) s = mine;
          if (k % 500 == 0) {
            std::lock_guard<std::mutex> g(m);
            exported.push_back(to_dlpack(ops::sequence_at(s, 0)));
          }
        }
      });
    }
    all = TensorSequence(DataType::Float);  // the main thread lets go early
    for (auto& th : ts) th.join();
  }
  // The exports are still alive: deleting them from two threads releases the rest.
  std::thread a([&] {
    for (std::size_t i = 0; i < exported.size(); i += 2) exported[i]->deleter(exported[i]);
  });
  std::thread c([&] {
    for (std::size_t i = 1; i < exported.size(); i += 2) exported[i]->deleter(exported[i]);
  });
  a.join();
  c.join();
  for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(releases[i].load(), 1) << "tensor " << i;
}

}  // namespace
