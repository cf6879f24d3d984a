// tseq against the ways runtimes hold tensor sequences today. See docs/performance.md.
//
// Implementations (the `impl` part of each name):
//   tseq        persistent: the input stays alive (the ONNX case: the old value may be used later)
//   tseq_move   in place: the input is moved in and owned alone (an executor's last use)
//   naive       copy the std::vector<Tensor> of handles, then edit (ONNX Runtime's TensorSeq)
//   deep        copy every payload too, then edit (a value-semantics runtime)
//   std_vector  edit one mutable std::vector<Tensor> in place (the floor; not persistent)
// Elements are float tensors of shape [payload]; a sequence of n holds handles to
// min(n, pool) distinct tensors (pool = 4096 for payload 16, 64 for payload 65536) so that
// large n fit in memory. `allocs` is the number of heap allocations per operation with the
// node cache off (see run()); the timed loops run with it on, as a program does.
//
// The runtime boundary (n:1, one tensor per operation, payload 16 or 65536 floats):
//   TensorImport/-/tseq     Tensor::adopt of the runtime's memory (owner: a std::shared_ptr)
//   TensorImport/-/deep     Tensor::from_values: copying the payload in
//   DLPackImport/-/tseq     from_dlpack of a producer's DLManagedTensor, then its release
//   DLPackExport/-/tseq     to_dlpack of a tensor, then the consumer's deleter call
//   DLPack*/-/deep          the copying alternative: from_values of the same payload
//
// Flags (after Google Benchmark's own): --full runs n = 10^7 and every payload; the default
// is the quick set that scripts/bench runs.

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "support/alloc_hook.hpp"
#include "support/history_probe.hpp"
#include "tseq/dlpack.hpp"
#include "tseq/ops.hpp"

namespace {

using namespace tseq;
using Handles = std::vector<Tensor>;

struct Fixture {
  std::vector<Tensor> pool;
  TensorSequence seq{DataType::Float};
  Handles vec;
};

std::size_t pool_size(std::int64_t payload) { return payload <= 16 ? 4096 : 64; }

// Cached inputs: building 10^7-element sequences once per (n, payload) is enough.
const Fixture& fixture(std::size_t n, std::int64_t payload) {
  static std::map<std::pair<std::size_t, std::int64_t>, Fixture> cache;
  auto [it, fresh] = cache.try_emplace({n, payload});
  Fixture& f = it->second;
  if (fresh) {
    const std::size_t p = std::min(n, pool_size(payload));
    std::vector<float> values(static_cast<std::size_t>(payload));
    for (std::size_t i = 0; i < p; ++i) {
      values[0] = static_cast<float>(i);
      f.pool.push_back(Tensor::from_values<float>(Shape{payload}, values));
    }
    TensorSequence::container_type::builder b;
    f.vec.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
      b.push_back(f.pool[i % p]);
      f.vec.push_back(f.pool[i % p]);
    }
    f.seq = TensorSequence(DataType::Float, std::move(b).persistent());
  }
  return f;
}

// The fixture after 10^5 random persistent edits (erase at a random position, then insert
// pool[0] at another: the length stays n), the previous version dropped each time: a relaxed
// tree as a long-running graph leaves it. `vec` holds the same tensors in the same order.
const Fixture& edited_fixture(std::size_t n) {
  static std::map<std::size_t, Fixture> cache;
  auto [it, fresh] = cache.try_emplace(n);
  Fixture& e = it->second;
  if (fresh) {
    const Fixture& f = fixture(n, 16);
    e.pool = f.pool;
    TensorSequence s = f.seq;
    std::mt19937_64 rng(3);
    for (int k = 0; k < 100000; ++k) {
      const auto p = static_cast<std::int64_t>(rng() % s.size());
      s = (k % 2 == 0) ? ops::sequence_erase(s, p) : ops::sequence_insert(s, f.pool[0], p);
    }
    e.vec.assign(s.begin(), s.end());
    e.seq = std::move(s);
  }
  return e;
}

// Reads a handle without following it (what a traversal of "handles only" costs).
std::uintptr_t bits_of(const Tensor& t) noexcept {
  std::uintptr_t x = 0;
  static_assert(sizeof(Tensor) >= sizeof x);
  std::memcpy(&x, &t, sizeof x);
  return x;
}

Tensor deep_copy(const Tensor& t) { return Tensor::from_values<float>(t.shape(), t.values<float>()); }

Handles deep_copy(const Handles& v) {
  Handles r;
  r.reserve(v.size());
  for (const Tensor& t : v) r.push_back(deep_copy(t));
  return r;
}

// Positions chosen per iteration so that the tree shape does not repeat trivially.
struct Positions {
  std::mt19937_64 rng{42};
  enum { front, back, middle } where;
  Positions(std::mt19937_64 r, const std::string& w)
      : rng(r),
        where(w == "front"  ? front
              : w == "back" ? back
                            : middle) {}
  std::size_t operator()(std::size_t n, std::size_t i) {
    if (where == front) return i % std::min<std::size_t>(n, 16);
    if (where == back) return n - 1 - i % std::min<std::size_t>(n, 16);
    return n / 4 + rng() % std::max<std::size_t>(n / 2, 1);
  }
};

// Runs body once per iteration, as in use (the node cache on), then reports the heap
// allocations per operation of up to 8 further untimed calls with the cache off
// (count_allocations turns it off): `allocs` counts every node an operation asks for, whether
// or not the cache would have served it.
template <class Body>
void run(benchmark::State& state, Body&& body) {
  std::size_t i = 0;
  for (auto _ : state) body(i++);
  const std::size_t k = std::clamp<std::size_t>(i, 1, 8);
  const tseq_test::count_allocations c;
  for (std::size_t j = 0; j < k; ++j) body(i++);
  state.counters["allocs"] = benchmark::Counter(static_cast<double>(c.delta().allocations) / static_cast<double>(k));
}

void erase_or_insert(benchmark::State& state, const std::string& op, const std::string& impl, const std::string& where,
                     std::size_t n, std::int64_t payload) {
  const Fixture& f = fixture(n, payload);
  const Tensor extra = f.pool[0];
  Positions pos(std::mt19937_64{42}, where);
  const bool erase = op == "erase";
  if (impl == "tseq") {
    run(state, [&](std::size_t i) {
      const auto p = static_cast<std::int64_t>(pos(n, i));
      TensorSequence r = erase ? ops::sequence_erase(f.seq, p) : ops::sequence_insert(f.seq, extra, p);
      benchmark::DoNotOptimize(r);
    });
  } else if (impl == "tseq_move") {
    // The sequence is owned alone and moved into each op; a second in-place op (push_back or
    // pop_back, amortised O(1)) keeps its length at n. Reported per pair.
    TensorSequence w = TensorSequence(DataType::Float, TensorSequence::container_type(f.vec.begin(), f.vec.end()));
    run(state, [&](std::size_t i) {
      const auto p = static_cast<std::int64_t>(pos(n, i));
      if (erase) {
        w = ops::sequence_erase(std::move(w), p);
        w = ops::sequence_insert(std::move(w), extra);
      } else {
        w = ops::sequence_insert(std::move(w), extra, p);
        w = ops::sequence_erase(std::move(w));
      }
      benchmark::DoNotOptimize(w);
    });
  } else if (impl == "naive" || impl == "deep") {
    const bool deep = impl == "deep";
    run(state, [&](std::size_t i) {
      const auto p = static_cast<std::ptrdiff_t>(pos(n, i));
      Handles c = deep ? deep_copy(f.vec) : f.vec;
      if (erase) {
        c.erase(c.begin() + p);
      } else {
        c.insert(c.begin() + p, deep ? deep_copy(extra) : extra);
      }
      benchmark::DoNotOptimize(c.data());
    });
  } else {  // std_vector: one mutable vector, kept at length n
    Handles w = f.vec;
    run(state, [&](std::size_t i) {
      const auto p = static_cast<std::ptrdiff_t>(pos(n, i));
      if (erase) {
        w.erase(w.begin() + p);
        w.push_back(extra);
      } else {
        w.insert(w.begin() + p, extra);
        w.pop_back();
      }
      benchmark::DoNotOptimize(w.data());
    });
  }
}

void at_random(benchmark::State& state, const std::string& impl, std::size_t n) {
  const Fixture& f = fixture(n, 16);
  std::mt19937_64 rng(7);
  if (impl == "tseq") {
    run(state, [&](std::size_t) {
      Tensor t = ops::sequence_at(f.seq, static_cast<std::int64_t>(rng() % n));
      benchmark::DoNotOptimize(t);
    });
  } else {
    run(state, [&](std::size_t) {
      Tensor t = f.vec[rng() % n];
      benchmark::DoNotOptimize(t);
    });
  }
}

// Touches every element (its payload pointer) in order.
void iterate(benchmark::State& state, const std::string& impl, std::size_t n, bool edited) {
  const bool is_tseq = impl == "tseq";
  const bool is_tseq_iter = impl == "tseq_iter";
  const Fixture& f = edited ? edited_fixture(n) : fixture(n, 16);
  const TensorSequence& s = f.seq;
  const Handles& v = f.vec;  // the baseline visits the same tensors in the same order
  run(state, [&](std::size_t) {
    std::uintptr_t acc = 0;
    if (is_tseq) {
      s.tensors().for_each_chunk([&](const Tensor* a, const Tensor* b) {
        std::uintptr_t local = 0;
        for (; a != b; ++a) local ^= reinterpret_cast<std::uintptr_t>(a->values<float>().data());
        acc ^= local;
      });
    } else if (is_tseq_iter) {
      for (const Tensor& t : s) acc ^= reinterpret_cast<std::uintptr_t>(t.values<float>().data());
    } else {
      for (const Tensor& t : v) acc ^= reinterpret_cast<std::uintptr_t>(t.values<float>().data());
    }
    benchmark::DoNotOptimize(acc);
  });
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(n));
  const StorageStats st = s.tensors().storage();
  state.counters["elements_per_leaf"] = static_cast<double>(s.size()) / static_cast<double>(st.leaves);
}

// A traversal that reads only the handles (no tensor is followed).
void iterate_handles(benchmark::State& state, const std::string& impl, std::size_t n, bool edited) {
  const bool is_tseq = impl == "tseq";
  const Fixture& f = edited ? edited_fixture(n) : fixture(n, 16);
  run(state, [&](std::size_t) {
    std::uintptr_t acc = 0;
    if (is_tseq) {
      f.seq.tensors().for_each_chunk([&](const Tensor* a, const Tensor* b) {
        std::uintptr_t local = 0;
        for (; a != b; ++a) local += bits_of(*a);
        acc += local;
      });
    } else {
      for (const Tensor& t : f.vec) acc += bits_of(t);
    }
    benchmark::DoNotOptimize(acc);
  });
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(n));
}

// Random index, reading the handle only, on the fresh or the edited fixture.
void index_random(benchmark::State& state, const std::string& impl, std::size_t n, bool edited) {
  const Fixture& f = edited ? edited_fixture(n) : fixture(n, 16);
  std::mt19937_64 rng(11);
  std::uintptr_t acc = 0;
  if (impl == "tseq") {
    const auto& v = f.seq.tensors();
    run(state, [&](std::size_t) { acc += bits_of(v[rng() % n]); });
  } else {
    run(state, [&](std::size_t) { acc += bits_of(f.vec[rng() % n]); });
  }
  benchmark::DoNotOptimize(acc);
}

// push_back of n tensors in place into an empty sequence, per element (the vector is moved in
// and owned alone; std::vector without reserve).
void push_back_n(benchmark::State& state, const std::string& impl, std::size_t n) {
  const Fixture& f = fixture(4096, 16);
  run(state, [&](std::size_t) {
    if (impl == "tseq") {
      TensorSequence::container_type v;
      for (std::size_t i = 0; i < n; ++i) v = std::move(v).push_back(f.pool[i & 4095]);
      benchmark::DoNotOptimize(v);
    } else {
      Handles v;
      for (std::size_t i = 0; i < n; ++i) v.push_back(f.pool[i & 4095]);
      benchmark::DoNotOptimize(v.data());
    }
  });
}

// ---- the container with int elements, beside std::vector<int> ------------------------------

using IntVec = rrb_vector<int>;
struct IntFixture {
  IntVec v, edited;
  std::vector<int> vec, edited_vec;
};

const IntFixture& int_fixture(std::size_t n) {
  static std::map<std::size_t, IntFixture> cache;
  auto [it, fresh] = cache.try_emplace(n);
  IntFixture& f = it->second;
  if (fresh) {
    for (std::size_t i = 0; i < n; ++i) f.vec.push_back(static_cast<int>(i));
    f.v = IntVec(f.vec.begin(), f.vec.end());
    IntVec e = f.v;  // 10^5 random persistent edits, as edited_fixture
    std::mt19937_64 rng(3);
    for (int k = 0; k < 100000; ++k) {
      const std::size_t p = rng() % e.size();
      e = (k % 2 == 0) ? e.erase(p) : e.insert(p, -1);
    }
    f.edited_vec.assign(e.begin(), e.end());
    f.edited = std::move(e);
  }
  return f;
}

void int_op(benchmark::State& state, const std::string& op, const std::string& impl, std::size_t n) {
  const bool is_tseq = impl == "tseq";
  const IntFixture& f = int_fixture(n);
  std::mt19937_64 rng(42);
  auto middle = [&] { return n / 4 + rng() % std::max<std::size_t>(n / 2, 1); };
  const auto d = [](std::size_t i) { return static_cast<std::ptrdiff_t>(i); };
  if (op == "erase" || op == "insert") {
    const bool erase = op == "erase";
    if (is_tseq) {
      run(state, [&](std::size_t) {
        IntVec r = erase ? f.v.erase(middle()) : f.v.insert(middle(), -1);
        benchmark::DoNotOptimize(r);
      });
    } else if (impl == "tseq_move") {
      IntVec w = IntVec(f.vec.begin(), f.vec.end());
      run(state, [&](std::size_t) {
        w = erase ? std::move(w).erase(middle()).push_back(-1) : std::move(w).insert(middle(), -1).pop_back();
        benchmark::DoNotOptimize(w);
      });
    } else {  // naive: copy, then edit
      run(state, [&](std::size_t) {
        std::vector<int> c = f.vec;
        if (erase) {
          c.erase(c.begin() + d(middle()));
        } else {
          c.insert(c.begin() + d(middle()), -1);
        }
        benchmark::DoNotOptimize(c.data());
      });
    }
  } else if (op == "take" || op == "drop") {
    const bool take = op == "take";
    run(state, [&](std::size_t) {
      const std::size_t k = rng() % n;
      if (is_tseq) {
        IntVec r = take ? f.v.take(k) : f.v.drop(k);
        benchmark::DoNotOptimize(r);
      } else {
        std::vector<int> r = take ? std::vector<int>(f.vec.begin(), f.vec.begin() + d(k))
                                  : std::vector<int>(f.vec.begin() + d(k), f.vec.end());
        benchmark::DoNotOptimize(r.data());
      }
    });
  } else if (op == "concat") {
    const IntVec a = f.v.take(n / 2), b = f.v.drop(n / 2);
    const std::vector<int> va(f.vec.begin(), f.vec.begin() + d(n / 2)), vb(f.vec.begin() + d(n / 2), f.vec.end());
    run(state, [&](std::size_t) {
      if (is_tseq) {
        IntVec r = a + b;
        benchmark::DoNotOptimize(r);
      } else {
        std::vector<int> r;
        r.reserve(n);
        r.insert(r.end(), va.begin(), va.end());
        r.insert(r.end(), vb.begin(), vb.end());
        benchmark::DoNotOptimize(r.data());
      }
    });
  } else if (op == "index_fresh" || op == "index_edited") {
    const bool e = op == "index_edited";
    const IntVec& v = e ? f.edited : f.v;
    const std::vector<int>& vec = e ? f.edited_vec : f.vec;
    long acc = 0;
    if (is_tseq) {
      run(state, [&](std::size_t) { acc += v[rng() % n]; });
    } else {
      run(state, [&](std::size_t) { acc += vec[rng() % n]; });
    }
    benchmark::DoNotOptimize(acc);
  } else {  // iterate_fresh / iterate_edited
    const bool e = op == "iterate_edited";
    const IntVec& v = e ? f.edited : f.v;
    const std::vector<int>& vec = e ? f.edited_vec : f.vec;
    run(state, [&](std::size_t) {
      long acc = 0;
      if (is_tseq) {
        v.for_each_chunk([&](const int* a, const int* b) {
          long local = 0;
          for (; a != b; ++a) local += *a;
          acc += local;
        });
      } else {
        for (int x : vec) acc += x;
      }
      benchmark::DoNotOptimize(acc);
    });
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(n));
  }
}

// The history probe (tests/support/history_probe.hpp): 10^5 steps of random slice, splice and
// concatenation between versions of 10^5..10^6 ints; reports the final tree's shape.
void history(benchmark::State& state, std::size_t lo, std::size_t hi) {
  for (auto _ : state) {
    std::vector<int> init(lo);
    for (std::size_t i = 0; i < lo; ++i) init[i] = static_cast<int>(i);
    IntVec cur(init.begin(), init.end());
    std::vector<IntVec> versions(8, cur);
    std::vector<std::size_t> sizes(8, cur.size());
    std::mt19937_64 rng(17);
    unsigned worst_levels = 0, worst_excess = 0;
    constexpr int steps = 100000;
    for (int k = 0; k < steps; ++k) {
      const auto x = tseq_test::next_action(rng, cur.size(), sizes, lo, hi);
      cur = tseq_test::apply_action(cur, versions, x);
      const std::size_t slot = rng() % versions.size();
      versions[slot] = cur;
      sizes[slot] = cur.size();
      const StorageStats st = cur.storage();
      worst_levels = std::max(worst_levels, st.levels);
      const unsigned bound = IntVec::levels_bound(st.tree_elements);
      if (st.levels > bound) worst_excess = std::max(worst_excess, st.levels - bound);
    }
    const StorageStats st = cur.storage();
    state.counters["size"] = static_cast<double>(cur.size());
    state.counters["levels"] = st.levels;
    state.counters["levels_bound"] = IntVec::levels_bound(st.tree_elements);
    state.counters["worst_levels"] = worst_levels;
    state.counters["levels_over_bound"] = worst_excess;
    state.counters["elements_per_leaf"] = static_cast<double>(cur.size()) / static_cast<double>(st.leaves);
    state.counters["bytes_per_element"] = static_cast<double>(st.bytes) / static_cast<double>(cur.size());
    state.counters["steps"] = steps;
  }
}

void concat_halves(benchmark::State& state, const std::string& impl, std::size_t n) {
  const Fixture& f = fixture(n, 16);
  const auto h = static_cast<std::ptrdiff_t>(n / 2);
  if (impl == "tseq") {
    const auto a = f.seq.tensors().take(n / 2);
    const auto b = f.seq.tensors().drop(n / 2);
    run(state, [&](std::size_t) {
      auto r = a + b;
      benchmark::DoNotOptimize(r);
    });
  } else {
    const Handles a(f.vec.begin(), f.vec.begin() + h);
    const Handles b(f.vec.begin() + h, f.vec.end());
    run(state, [&](std::size_t) {
      Handles r;
      r.reserve(a.size() + b.size());
      r.insert(r.end(), a.begin(), a.end());
      r.insert(r.end(), b.begin(), b.end());
      benchmark::DoNotOptimize(r.data());
    });
  }
}

void slice(benchmark::State& state, const std::string& impl, std::size_t n, bool take) {
  const bool is_tseq = impl == "tseq";
  const Fixture& f = fixture(n, 16);
  std::mt19937_64 rng(5);
  run(state, [&](std::size_t) {
    const std::size_t k = rng() % n;
    if (is_tseq) {
      auto r = take ? f.seq.tensors().take(k) : f.seq.tensors().drop(k);
      benchmark::DoNotOptimize(r);
    } else {
      const auto kk = static_cast<std::ptrdiff_t>(k);
      Handles r = take ? Handles(f.vec.begin(), f.vec.begin() + kk) : Handles(f.vec.begin() + kk, f.vec.end());
      benchmark::DoNotOptimize(r.data());
    }
  });
}

void construct(benchmark::State& state, const std::string& impl, std::size_t n) {
  const bool is_tseq = impl == "tseq";
  const Fixture& f = fixture(n, 16);
  run(state, [&](std::size_t) {
    if (is_tseq) {
      TensorSequence s = ops::sequence_construct(f.vec);
      benchmark::DoNotOptimize(s);
    } else {
      Handles r(f.vec.begin(), f.vec.end());
      benchmark::DoNotOptimize(r.data());
    }
  });
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(n));
}

void length(benchmark::State& state, const std::string& impl, std::size_t n) {
  const bool is_tseq = impl == "tseq";
  const Fixture& f = fixture(n, 16);
  run(state, [&](std::size_t) {
    if (is_tseq) {
      Tensor t = ops::sequence_length(f.seq);
      benchmark::DoNotOptimize(t);
    } else {
      Tensor t = Tensor::scalar(static_cast<std::int64_t>(f.vec.size()));
      benchmark::DoNotOptimize(t);
    }
  });
}

// SplitToSequence of an [n, 16] tensor into n pieces, and ConcatFromSequence back.
void split_concat(benchmark::State& state, const std::string& op, std::size_t n) {
  std::vector<float> values(n * 16, 1.f);
  const Tensor input = Tensor::from_values<float>(Shape{static_cast<std::int64_t>(n), 16}, values);
  const TensorSequence pieces = ops::split_to_sequence(input, {}, 0, 1);
  run(state, [&](std::size_t) {
    if (op == "split") {
      TensorSequence s = ops::split_to_sequence(input, {}, 0, 1);
      benchmark::DoNotOptimize(s);
    } else {
      Tensor t = ops::concat_from_sequence(pieces, 0);
      benchmark::DoNotOptimize(t);
    }
  });
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(n * 16 * 4));
}

// Memory: node bytes per element of a sequence of n, and the extra bytes held by 1,000
// versions derived from it by erase (against 1,000 naive copies, computed from one).
void memory(benchmark::State& state, std::size_t n) {
  const Fixture& f = fixture(n, 16);
  for (auto _ : state) {
    tseq_test::count_allocations build;
    TensorSequence s = TensorSequence(DataType::Float, TensorSequence::container_type(f.vec.begin(), f.vec.end()));
    const double node_bytes = static_cast<double>(build.delta().bytes);
    std::mt19937_64 rng(9);
    std::vector<TensorSequence> versions;
    tseq_test::count_allocations derived;
    for (int i = 0; i < 1000; ++i) versions.push_back(ops::sequence_erase(s, static_cast<std::int64_t>(rng() % n)));
    const double version_bytes = static_cast<double>(derived.delta().bytes);
    tseq_test::count_allocations one;
    Handles copy = f.vec;
    copy.erase(copy.begin());
    const double naive_bytes = 1000.0 * static_cast<double>(one.delta().bytes);
    state.counters["node_bytes_per_elem"] = node_bytes / static_cast<double>(n);
    state.counters["vector_bytes_per_elem"] = static_cast<double>(sizeof(Tensor));
    state.counters["versions_bytes"] = version_bytes;
    state.counters["naive_versions_bytes"] = naive_bytes;
    state.counters["versions_over_naive_pct"] = 100.0 * version_bytes / naive_bytes;
    // After 10^5 random persistent edits (edited_fixture): storage, fill, height.
    const StorageStats e = edited_fixture(n).seq.tensors().storage();
    state.counters["edited_node_bytes_per_elem"] = static_cast<double>(e.bytes) / static_cast<double>(n);
    state.counters["edited_elements_per_leaf"] = static_cast<double>(n) / static_cast<double>(e.leaves);
    state.counters["edited_levels"] = e.levels;
    state.counters["edited_levels_bound"] = TensorSequence::container_type::levels_bound(e.tree_elements);
  }
}

// One tensor across the runtime boundary per iteration.
void boundary(benchmark::State& state, const std::string& op, const std::string& impl, std::int64_t payload) {
  auto memory = std::make_shared<std::vector<float>>(static_cast<std::size_t>(payload), 1.f);
  const std::shared_ptr<void> owner = memory;
  const std::span<const float> values(memory->data(), memory->size());
  std::int64_t dims[1] = {payload};
  int deleted = 0;
  DLManagedTensor producer{};
  producer.dl_tensor = DLTensor{memory->data(), DLDevice{kDLCPU, 0}, 1, DLDataType{kDLFloat, 32, 1}, dims, nullptr, 0};
  producer.manager_ctx = &deleted;
  producer.deleter = [](DLManagedTensor* m) { ++*static_cast<int*>(m->manager_ctx); };
  const Tensor exported = Tensor::adopt(DataType::Float, Shape{payload}, memory->data(), Device::cpu(), owner);
  int calls = 0;  // run() makes untimed calls after the timed loop too
  run(state, [&](std::size_t) {
    ++calls;
    if (impl == "deep") {
      Tensor t = Tensor::from_values<float>(Shape{payload}, values);
      benchmark::DoNotOptimize(t);
    } else if (op == "TensorImport") {
      Tensor t = Tensor::adopt(DataType::Float, Shape{payload}, memory->data(), Device::cpu(), owner);
      benchmark::DoNotOptimize(t);
    } else if (op == "DLPackImport") {
      Tensor t = from_dlpack(&producer);  // the deleter runs when t goes: the producer is reusable
      benchmark::DoNotOptimize(t);
    } else {
      DLManagedTensor* m = to_dlpack(exported);
      benchmark::DoNotOptimize(m);
      m->deleter(m);
    }
  });
  if (op == "DLPackImport" && impl == "tseq" && deleted != calls) {
    state.SkipWithError("the DLPack deleter did not run once per import");
  }
}

using Fn = std::function<void(benchmark::State&)>;

// heavy: a fixed 3 iterations (or `iterations`) instead of Google Benchmark's calibration.
void add(const std::string& name, Fn fn, bool heavy = false, int iterations = 3) {
  auto* b = benchmark::RegisterBenchmark(name.c_str(), [fn](benchmark::State& s) { fn(s); });
  b->Unit(benchmark::kNanosecond);
  if (heavy) b->Iterations(iterations);
}

std::string n_label(std::size_t n) { return std::to_string(n); }

}  // namespace

int main(int argc, char** argv) {
  bool full = false;
  std::vector<char*> args;
  for (int i = 0; i < argc; ++i) {
    if (std::strcmp(argv[i], "--full") == 0) {
      full = true;
    } else {
      args.push_back(argv[i]);
    }
  }
  std::vector<std::size_t> ns = {10, 100, 1000, 10000, 100000, 1000000};
  if (full) ns.push_back(10000000);
  const std::vector<std::string> impls = {"tseq", "tseq_move", "naive", "deep", "std_vector"};

  for (const std::string op : {"erase", "insert"}) {
    const std::vector<std::string> wheres =
        op == "erase" ? std::vector<std::string>{"front", "middle", "back"} : std::vector<std::string>{"middle"};
    for (const std::string& where : wheres) {
      for (std::int64_t payload : {std::int64_t{16}, std::int64_t{65536}}) {
        if (payload != 16 && (where != "middle" || (!full && op != "erase"))) continue;
        for (const std::string& impl : impls) {
          for (std::size_t n : ns) {
            const double elems = static_cast<double>(n) * static_cast<double>(payload);
            if (impl == "deep" && elems > (full ? 1e8 : 2e7)) continue;        // copies every payload
            if ((impl == "naive" || impl == "deep") && n > 1000000) continue;  // ~0.1 s per op
            if (n > 1000000 && payload != 16) continue;
            add(
                "Sequence" + std::string(op == "erase" ? "Erase" : "Insert") + "/" + where + "/" + impl +
                    "/payload:" + std::to_string(payload) + "/n:" + n_label(n),
                [=](benchmark::State& s) { erase_or_insert(s, op, impl, where, n, payload); },
                (impl == "naive" || impl == "deep") && elems * (impl == "deep" ? 1 : 0.01) > 1e6);
          }
        }
      }
    }
  }
  for (std::size_t n : ns) {
    for (const std::string impl : {"tseq", "std_vector"}) {
      add("SequenceAt/random/" + impl + "/payload:16/n:" + n_label(n),
          [=](benchmark::State& s) { at_random(s, impl, n); });
      add("SequenceLength/-/" + impl + "/payload:16/n:" + n_label(n), [=](benchmark::State& s) { length(s, impl, n); });
      add("Concat/halves/" + std::string(impl == "tseq" ? "tseq" : "naive") + "/payload:16/n:" + n_label(n),
          [=](benchmark::State& s) { concat_halves(s, impl == "tseq" ? "tseq" : "naive", n); });
      add("Take/random/" + std::string(impl == "tseq" ? "tseq" : "naive") + "/payload:16/n:" + n_label(n),
          [=](benchmark::State& s) { slice(s, impl == "tseq" ? "tseq" : "naive", n, true); });
      add("Drop/random/" + std::string(impl == "tseq" ? "tseq" : "naive") + "/payload:16/n:" + n_label(n),
          [=](benchmark::State& s) { slice(s, impl == "tseq" ? "tseq" : "naive", n, false); });
      add("SequenceConstruct/-/" + std::string(impl == "tseq" ? "tseq" : "naive") + "/payload:16/n:" + n_label(n),
          [=](benchmark::State& s) { construct(s, impl == "tseq" ? "tseq" : "naive", n); });
    }
    for (const std::string impl : {"tseq", "std_vector"}) {
      for (const bool edited : {false, true}) {
        if (edited && n < 100000) continue;
        const std::string w = edited ? "edited" : "fresh";
        add("Index/" + w + "/" + impl + "/payload:16/n:" + n_label(n),
            [=](benchmark::State& s) { index_random(s, impl, n, edited); });
        add("IterateHandles/" + w + "/" + impl + "/payload:16/n:" + n_label(n),
            [=](benchmark::State& s) { iterate_handles(s, impl, n, edited); });
      }
    }
    for (const std::string impl : {"tseq", "tseq_iter", "std_vector"}) {
      add("Iterate/fresh/" + impl + "/payload:16/n:" + n_label(n),
          [=](benchmark::State& s) { iterate(s, impl, n, false); });
      if (n >= 100000) {
        add("Iterate/edited/" + impl + "/payload:16/n:" + n_label(n),
            [=](benchmark::State& s) { iterate(s, impl, n, true); });
      }
    }
    if (n <= 100000) {
      add("SplitToSequence/-/tseq/payload:16/n:" + n_label(n),
          [=](benchmark::State& s) { split_concat(s, "split", n); });
      add("ConcatFromSequence/-/tseq/payload:16/n:" + n_label(n),
          [=](benchmark::State& s) { split_concat(s, "concat", n); });
    }
  }
  add(
      "Memory/-/tseq/payload:16/n:1000000", [](benchmark::State& s) { memory(s, 1000000); }, true);
  for (const std::size_t n : {std::size_t{10000}, std::size_t{10000000}}) {
    for (const std::string impl : {"tseq", "std_vector"}) {
      add(
          "PushBack/-/" + impl + "/payload:16/n:" + n_label(n), [=](benchmark::State& s) { push_back_n(s, impl, n); },
          n > 100000);
    }
  }
  for (const std::size_t n : {std::size_t{10}, std::size_t{100}, std::size_t{10000}, std::size_t{1000000}}) {
    const std::pair<const char*, const char*> int_ops[] = {{"IntErase/middle", "erase"},
                                                           {"IntInsert/middle", "insert"},
                                                           {"IntTake/random", "take"},
                                                           {"IntDrop/random", "drop"},
                                                           {"IntConcat/halves", "concat"},
                                                           {"IntIndex/fresh", "index_fresh"},
                                                           {"IntIndex/edited", "index_edited"},
                                                           {"IntIterate/fresh", "iterate_fresh"},
                                                           {"IntIterate/edited", "iterate_edited"}};
    for (const auto& [name, op] : int_ops) {
      const std::string o = op;
      const bool reads = o.rfind("index", 0) == 0 || o.rfind("iterate", 0) == 0;
      if (o.find("edited") != std::string::npos && n < 100000) continue;
      std::vector<std::string> int_impls = {"tseq", reads ? "std_vector" : "naive"};
      if (o == "erase") int_impls.emplace_back("tseq_move");
      for (const std::string& impl : int_impls) {
        add(std::string(name) + "/" + impl + "/payload:0/n:" + n_label(n),
            [=](benchmark::State& s) { int_op(s, o, impl, n); });
      }
    }
  }
  add(
      "History/-/tseq/payload:0/n:1000000", [](benchmark::State& s) { history(s, 100000, 1000000); }, true, 1);
  for (const std::string op : {"TensorImport", "DLPackImport", "DLPackExport"}) {
    for (const std::string impl : {"tseq", "deep"}) {
      for (std::int64_t payload : {std::int64_t{16}, std::int64_t{65536}}) {
        add(op + "/-/" + impl + "/payload:" + std::to_string(payload) + "/n:1",
            [=](benchmark::State& s) { boundary(s, op, impl, payload); });
      }
    }
  }

  int bargc = static_cast<int>(args.size());
  benchmark::Initialize(&bargc, args.data());
  if (benchmark::ReportUnrecognizedArguments(bargc, args.data())) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
