// Fuzz target: rrb_vector operation scripts decoded from bytes, run against a std::vector
// model, with check_invariants() after every step. Branching 4, so that trees get deep with
// few elements. Keeps older versions and re-checks them at the end (persistence).

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "fuzz_input.hpp"
#include "tseq/rrb_vector.hpp"

namespace {

using V = tseq::rrb_vector<int, 2, 2>;  // leaves as wide as inner nodes: the deepest trees per element
using Model = std::vector<int>;

void same(const V& v, const Model& m) {
  if (v.size() != m.size() || !std::equal(v.begin(), v.end(), m.begin())) std::abort();
  std::size_t i = 0;
  v.for_each_chunk([&](const int* f, const int* l) {
    for (; f != l; ++f, ++i) {
      if (*f != m[i]) std::abort();
    }
  });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  tseq_fuzz::Input in(data, size);
  V v;
  Model m;
  V saved[4];
  Model saved_m[4];
  int next = 0;
  constexpr std::size_t kMax = 4000;
  for (int step = 0; step < 3000 && !in.empty(); ++step) {
    const std::uint8_t op = in.byte();
    const bool owned = (op & 0x80) != 0;  // use the && overloads
    const std::size_t n = m.size();
    auto apply = [&](auto&& f) { v = owned ? f(std::move(v)) : f(static_cast<const V&>(v)); };
    switch (op % 14) {
      case 0:
        if (n < kMax) {
          apply([&](auto&& s) { return std::forward<decltype(s)>(s).push_back(next); });
          m.push_back(next++);
        }
        break;
      case 1:
        if (n > 0) {
          apply([&](auto&& s) { return std::forward<decltype(s)>(s).pop_back(); });
          m.pop_back();
        }
        break;
      case 2:
        if (n > 0) {
          const std::size_t i = in.below(n);
          apply([&](auto&& s) { return std::forward<decltype(s)>(s).set(i, next); });
          m[i] = next++;
        }
        break;
      case 3:
        if (n < kMax) {
          const std::size_t i = in.below(n + 1);
          apply([&](auto&& s) { return std::forward<decltype(s)>(s).insert(i, next); });
          m.insert(m.begin() + static_cast<std::ptrdiff_t>(i), next++);
        }
        break;
      case 4:
        if (n > 0) {
          const std::size_t i = in.below(n);
          apply([&](auto&& s) { return std::forward<decltype(s)>(s).erase(i); });
          m.erase(m.begin() + static_cast<std::ptrdiff_t>(i));
        }
        break;
      case 5: {
        std::size_t a = in.below(n + 1);
        std::size_t b = in.below(n + 1);
        if (a > b) std::swap(a, b);
        apply([&](auto&& s) { return std::forward<decltype(s)>(s).erase(a, b); });
        m.erase(m.begin() + static_cast<std::ptrdiff_t>(a), m.begin() + static_cast<std::ptrdiff_t>(b));
        break;
      }
      case 6: {
        const std::size_t k = in.below(n + 2);
        apply([&](auto&& s) { return std::forward<decltype(s)>(s).take(k); });
        m.resize(std::min(k, n));
        break;
      }
      case 7: {
        const std::size_t k = in.below(n + 2);
        apply([&](auto&& s) { return std::forward<decltype(s)>(s).drop(k); });
        m.erase(m.begin(), m.begin() + static_cast<std::ptrdiff_t>(std::min(k, n)));
        break;
      }
      case 8: {  // concatenate with a saved version, on either side
        const std::size_t j = in.below(4);
        if (n + saved_m[j].size() > kMax) break;
        if (in.byte() % 2) {
          v = owned ? std::move(v) + saved[j] : v + saved[j];
          m.insert(m.end(), saved_m[j].begin(), saved_m[j].end());
        } else {
          v = owned ? saved[j] + std::move(v) : saved[j] + v;
          Model r = saved_m[j];
          r.insert(r.end(), m.begin(), m.end());
          m = std::move(r);
        }
        break;
      }
      case 9:
        if (2 * n <= kMax) {
          v = v + v;
          m.insert(m.end(), m.begin(), m.end());
        }
        break;
      case 10: {  // save this version
        const std::size_t j = in.below(4);
        saved[j] = v;
        saved_m[j] = m;
        break;
      }
      case 11: {  // a fresh vector from a range, then continue with it
        const std::size_t k = in.below(200);
        m.resize(k);
        for (auto& x : m) x = next++;
        v = V(m.begin(), m.end());
        break;
      }
      case 12: {  // random access
        if (n > 0) {
          const std::size_t i = in.below(n);
          if (v[i] != m[i] || v.at(i) != m[i]) std::abort();
          auto it = v.begin() + static_cast<std::ptrdiff_t>(i);
          if (*it != m[i]) std::abort();
        }
        break;
      }
      default: {  // builder
        V::builder b(v);
        const std::size_t k = in.below(100);
        for (std::size_t i = 0; i < k && m.size() < kMax; ++i) {
          b.push_back(next);
          m.push_back(next++);
        }
        v = std::move(b).persistent();
        break;
      }
    }
    v.check_invariants();  // throws std::logic_error: the fuzzer reports it
    if (m.size() < 64 || step % 16 == 0) same(v, m);
  }
  same(v, m);
  for (int j = 0; j < 4; ++j) {
    saved[j].check_invariants();
    same(saved[j], saved_m[j]);
  }
  return 0;
}
