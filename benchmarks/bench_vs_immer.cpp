// tseq's rrb_vector against immer's flex_vector, side by side in one program: the same
// operations, element types, sizes and random positions, each benchmark registered for both
// and run interleaved (scripts/bench --vs-immer DIR; docs/performance.md, "Against immer").
// immer is not part of tseq: this program is built only when the CMake cache variable
// TSEQ_IMMER_DIR names an immer checkout (its include folder holds immer/flex_vector.hpp), and
// its code never enters the repository.
//
// Names: Immer/<op>/<elem>/<impl>/n:<N>, elem int or tensor (tseq::Tensor handles to a pool of
// 4,096 float tensors), impl tseq or immer. Both use their defaults (tseq B = 32; immer
// B = 32 with leaves sized by sizeof(T), its default memory policy with its free list).
//   erase, insert      persistent, at a random position in the middle half (the input kept)
//   inplace            erase then push_back on a vector moved in and owned alone
//   take, drop         persistent, at a random cut in the middle half
//   concat             the two halves of the vector, a + b (both kept)
//   index_fresh        one random element read (a handle's bits for tensors), on the vector as
//   index_edited       built, and after 10^5 random persistent edits (erase at a random
//                      position, insert at another; each version dropped once the next exists);
//                      the positions cycle through 65,536 (with 4,096 the branch predictor
//                      learnt each look-up's branches: docs/decisions.md, "Look-ups")
//                      from a function of its own (read_at, below)
//   iterate_fresh      the whole vector by for_each_chunk, per vector, each run summed into a
//                      local (docs/decisions.md, "Traversal"), from a function of its own
//                      aligned to 64 bytes (below); fresh and edited
//   iterate_edited
//   push_back          n elements appended one by one to an empty vector moved in each time
//   builder            n elements through tseq's builder / immer's transient, then persistent()
//   memory             node bytes per element after the edits (counters; immer counted through
//                      a heap policy without its free list, tseq from storage())

#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <immer/algorithm.hpp>
#include <immer/flex_vector.hpp>
#include <immer/flex_vector_transient.hpp>
#include <immer/heap/heap_policy.hpp>
#include <immer/memory_policy.hpp>

#include "tseq/rrb_vector.hpp"
#include "tseq/tensor.hpp"

namespace {

using tseq::Tensor;

constexpr int kEdits = 100000;

// Reads a tensor handle without following it.
std::uintptr_t bits_of(const Tensor& t) noexcept {
  std::uintptr_t x = 0;
  static_assert(sizeof(Tensor) >= sizeof x);
  std::memcpy(&x, &t, sizeof x);
  return x;
}
std::uintptr_t bits_of(int x) noexcept { return static_cast<std::uintptr_t>(x); }

template <class E>
E element(std::size_t i);
template <>
int element<int>(std::size_t i) {
  return static_cast<int>(i);
}
template <>
Tensor element<Tensor>(std::size_t i) {
  static const std::vector<Tensor> pool = [] {
    std::vector<Tensor> p;
    for (int k = 0; k < 4096; ++k)
      p.push_back(Tensor::from_values<float>(tseq::Shape{16}, std::vector<float>(16, 1.0F * static_cast<float>(k))));
    return p;
  }();
  return pool[i % pool.size()];
}

// immer's heap without a free list, counting the bytes its nodes hold (for `memory` only).
struct counting_heap {
  static inline std::int64_t live = 0;
  template <class... Tags>
  static void* allocate(std::size_t size, Tags...) {
    live += static_cast<std::int64_t>(size);
    return ::operator new(size);
  }
  template <class... Tags>
  static void deallocate(std::size_t size, void* p, Tags...) {
    live -= static_cast<std::int64_t>(size);
    ::operator delete(p);
  }
};
using counting_policy =
    immer::memory_policy<immer::heap_policy<counting_heap>, immer::refcount_policy, immer::spinlock_policy>;

// The same random positions for both implementations: a fixed sequence per n.
const std::vector<std::size_t>& middle_positions(std::size_t n) {
  static std::map<std::size_t, std::vector<std::size_t>> cache;
  auto [it, fresh] = cache.try_emplace(n);
  if (fresh) {
    std::mt19937_64 rng(42);
    for (int k = 0; k < 4096; ++k) it->second.push_back(n / 4 + rng() % std::max<std::size_t>(n / 2, 1));
  }
  return it->second;
}
constexpr std::size_t kAnyPositions = 65536;  // a power of two
const std::vector<std::size_t>& any_positions(std::size_t n) {
  static std::map<std::size_t, std::vector<std::size_t>> cache;
  auto [it, fresh] = cache.try_emplace(n);
  if (fresh) {
    std::mt19937_64 rng(11);
    for (std::size_t k = 0; k < kAnyPositions; ++k) it->second.push_back(rng() % n);
  }
  return it->second;
}

template <class V, class E>
V build(std::size_t n) {
  V v;
  for (std::size_t i = 0; i < n; ++i) v = std::move(v).push_back(element<E>(i));
  return v;
}

// 10^5 random persistent edits, the length kept at n.
template <class V, class E>
V edited(const V& fresh) {
  V v = fresh;
  std::mt19937_64 rng(3);
  for (int k = 0; k < kEdits; ++k) {
    const std::size_t p = rng() % v.size();
    v = (k % 2 == 0) ? v.erase(p) : v.insert(p, element<E>(p));
  }
  return v;
}

template <class V, class E>
struct Fixture {
  V fresh, edit;
};

template <class V, class E>
const Fixture<V, E>& fixture(std::size_t n) {
  static std::map<std::size_t, Fixture<V, E>> cache;
  auto [it, fresh] = cache.try_emplace(n);
  if (fresh) {
    it->second.fresh = build<V, E>(n);
    it->second.edit = edited<V, E>(it->second.fresh);
  }
  return it->second;
}

// Called, never inlined, and starting a 64-byte line: where its loops fall against cache
// lines then depends on its own code only, not on the rest of run_op. Inlined into run_op, an
// unrelated change elsewhere in the program moved the loop over a 10-element chunk across a
// line and the walk of 10 tensors from 2.8 to 5.8 ns, in both libraries' turn (perf annotate,
// 2026-12-07; docs/performance.md, "Against immer").
template <class V, class E>
[[gnu::noinline, gnu::aligned(64)]] void for_each_chunk(const V& v, std::uintptr_t& acc) {
  const auto sum = [&](const E* a, const E* b) {
    std::uintptr_t s = 0;
    for (; a != b; ++a) s += bits_of(*a);
    acc += s;
  };
  if constexpr (requires { v.for_each_chunk(sum); }) {
    v.for_each_chunk(sum);
  } else {
    immer::for_each_chunk(v, sum);
  }
}

// The look-up loop, in a function of its own for the same reason, and so that the sum stays in
// a register: inlined into run_op, whose other branches make calls, gcc kept tseq's sum on the
// stack, and each read's add waited on the previous one's store (2.1 ns a read of 10 ints,
// 5.6 cycles at 2.6 GHz, against immer's 1.0, whose sum had a register; perf annotate,
// 2026-12-07).
template <class V>
[[gnu::noinline, gnu::aligned(64)]] std::uintptr_t read_at(benchmark::State& state, const V& v,
                                                           const std::vector<std::size_t>& any) {
  std::uintptr_t acc = 0;
  std::size_t k = 0;
  for (auto _ : state) acc += bits_of(v[any[k++ & (kAnyPositions - 1)]]);
  return acc;
}

template <class V, class E>
void run_op(benchmark::State& state, const std::string& op, std::size_t n) {
  const auto& f = fixture<V, E>(n);
  const auto& mid = middle_positions(n);
  const auto& any = any_positions(n);
  std::size_t k = 0;
  const E x = element<E>(7);
  if (op == "erase") {
    for (auto _ : state) {
      V r = f.fresh.erase(mid[k++ & 4095]);
      benchmark::DoNotOptimize(r);
    }
  } else if (op == "insert") {
    for (auto _ : state) {
      V r = f.fresh.insert(mid[k++ & 4095], x);
      benchmark::DoNotOptimize(r);
    }
  } else if (op == "inplace") {
    V w = build<V, E>(n);  // held alone
    for (auto _ : state) {
      w = std::move(w).erase(mid[k++ & 4095]).push_back(x);
      benchmark::DoNotOptimize(w);
    }
  } else if (op == "take" || op == "drop") {
    const bool take = op == "take";
    for (auto _ : state) {
      V r = take ? f.fresh.take(mid[k++ & 4095]) : f.fresh.drop(mid[k++ & 4095]);
      benchmark::DoNotOptimize(r);
    }
  } else if (op == "concat") {
    const V a = f.fresh.take(n / 2);
    const V b = f.fresh.drop(n / 2);
    for (auto _ : state) {
      V r = a + b;
      benchmark::DoNotOptimize(r);
    }
  } else if (op == "index_fresh" || op == "index_edited") {
    const V& v = op == "index_fresh" ? f.fresh : f.edit;
    const std::uintptr_t acc = read_at(state, v, any);
    benchmark::DoNotOptimize(acc);
  } else if (op == "iterate_fresh" || op == "iterate_edited") {
    const V& v = op == "iterate_fresh" ? f.fresh : f.edit;
    std::uintptr_t acc = 0;
    for (auto _ : state) for_each_chunk<V, E>(v, acc);
    benchmark::DoNotOptimize(acc);
  } else if (op == "push_back") {
    for (auto _ : state) {
      V v;
      for (std::size_t i = 0; i < n; ++i) v = std::move(v).push_back(x);
      benchmark::DoNotOptimize(v);
    }
  } else if (op == "builder") {
    for (auto _ : state) {
      if constexpr (requires { typename V::builder; }) {
        typename V::builder b;
        for (std::size_t i = 0; i < n; ++i) b.push_back(x);
        V v = std::move(b).persistent();
        benchmark::DoNotOptimize(v);
      } else {
        auto t = V{}.transient();
        for (std::size_t i = 0; i < n; ++i) t.push_back(x);
        V v = std::move(t).persistent();
        benchmark::DoNotOptimize(v);
      }
    }
  }
}

// Node bytes per element after the edits; reported as counters, one iteration.
template <class E>
void memory(benchmark::State& state, bool is_tseq, std::size_t n) {
  for (auto _ : state) {
    if (is_tseq) {
      const auto& e = fixture<tseq::rrb_vector<E>, E>(n).edit;
      state.counters["bytes_per_elem"] = static_cast<double>(e.storage().bytes) / static_cast<double>(n);
    } else {
      using C = immer::flex_vector<E, counting_policy>;
      const std::int64_t before = counting_heap::live;
      const C e = edited<C, E>(build<C, E>(n));  // the fresh vector and the versions between die
      state.counters["bytes_per_elem"] = static_cast<double>(counting_heap::live - before) / static_cast<double>(n);
      benchmark::DoNotOptimize(e);
    }
  }
}

template <class E>
void register_all(const std::string& elem, const std::vector<std::size_t>& ns) {
  const char* ops[] = {"erase",       "insert",       "inplace",       "take",           "drop",      "concat",
                       "index_fresh", "index_edited", "iterate_fresh", "iterate_edited", "push_back", "builder"};
  for (const std::string op : ops) {
    for (const std::size_t n : ns) {
      const std::string tail = "/n:" + std::to_string(n);
      benchmark::RegisterBenchmark(("Immer/" + op + "/" + elem + "/tseq" + tail).c_str(),
                                   [op, n](benchmark::State& s) { run_op<tseq::rrb_vector<E>, E>(s, op, n); });
      benchmark::RegisterBenchmark(("Immer/" + op + "/" + elem + "/immer" + tail).c_str(),
                                   [op, n](benchmark::State& s) { run_op<immer::flex_vector<E>, E>(s, op, n); });
    }
  }
  for (const std::size_t n : ns) {
    for (const bool t : {true, false}) {
      benchmark::RegisterBenchmark(
          ("Immer/memory/" + elem + "/" + (t ? "tseq" : "immer") + "/n:" + std::to_string(n)).c_str(),
          [t, n](benchmark::State& s) { memory<E>(s, t, n); })
          ->Iterations(1);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::size_t> ns = {10, 1000, 100000, 1000000};
  register_all<int>("int", ns);
  register_all<Tensor>("tensor", ns);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
