#pragma once

// A long random history of slicing, splicing and concatenation between versions: the workload
// under which RRB trees degrade when nothing repairs their edges (Clojure's core.rrb-vector
// grew without bound under it). The property test replays it against a std::vector model at
// a size CI affords; the benchmark runs 10^5 steps on 10^5..10^6 elements and reports the
// tree's shape. Each step picks a target size in [lo, hi] and an action that reaches it.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

namespace tseq_test {

struct history_action {
  enum kind_t { slice, splice, concat } kind;
  std::size_t i = 0, j = 0;  // slice: keep [i, j); splice: remove [i, j)
  std::size_t src = 0;       // the version a piece comes from
  std::size_t a = 0, b = 0;  // the piece: [a, b) of that version
  bool front = false;        // concat: the piece goes before the current value
};

// Picks the next action for a current value of `size` elements and versions of the given
// sizes; the result has a size in [lo, hi] when size is.
inline history_action next_action(std::mt19937_64& rng, std::size_t size, const std::vector<std::size_t>& sizes,
                                  std::size_t lo, std::size_t hi) {
  auto pick = [&](std::size_t n) { return n == 0 ? std::size_t{0} : static_cast<std::size_t>(rng() % n); };
  const std::size_t target = lo + pick(hi - lo + 1);
  history_action x{history_action::splice};
  x.src = pick(sizes.size());
  const std::size_t avail = sizes[x.src];
  const auto kind = pick(3);
  if (kind == 0 && target < size) {
    x.kind = history_action::slice;
    x.i = pick(size - target + 1);
    x.j = x.i + target;
    return x;
  }
  if (kind == 1 && target > size && avail > 0) {
    x.kind = history_action::concat;
    const std::size_t p = std::min(target - size, avail);
    x.a = pick(avail - p + 1);
    x.b = x.a + p;
    x.front = (rng() & 1) != 0;
    return x;
  }
  // splice: remove r elements at i, insert a piece of p, staying within [lo, hi]
  const std::size_t r = pick(std::min(size > lo ? size - lo : 0, size / 2) + 1);
  x.i = pick(size - r + 1);
  x.j = x.i + r;
  const std::size_t room = hi - (size - r);
  const std::size_t p = pick(std::min(room, avail) + 1);
  x.a = pick(avail - p + 1);
  x.b = x.a + p;
  return x;
}

// The action on a persistent vector (take, drop and operator+ only).
template <class V>
V apply_action(const V& cur, const std::vector<V>& versions, const history_action& x) {
  if (x.kind == history_action::slice) return cur.take(x.j).drop(x.i);
  const V piece = versions[x.src].take(x.b).drop(x.a);
  if (x.kind == history_action::concat) return x.front ? piece + cur : cur + piece;
  return cur.take(x.i) + piece + cur.drop(x.j);
}

// The same action on a std::vector model.
template <class T>
std::vector<T> apply_action(const std::vector<T>& cur, const std::vector<std::vector<T>>& versions,
                            const history_action& x) {
  using D = std::ptrdiff_t;
  if (x.kind == history_action::slice) return {cur.begin() + D(x.i), cur.begin() + D(x.j)};
  const std::vector<T>& v = versions[x.src];
  std::vector<T> out;
  if (x.kind == history_action::concat) {
    if (x.front) out.insert(out.end(), v.begin() + D(x.a), v.begin() + D(x.b));
    out.insert(out.end(), cur.begin(), cur.end());
    if (!x.front) out.insert(out.end(), v.begin() + D(x.a), v.begin() + D(x.b));
    return out;
  }
  out.insert(out.end(), cur.begin(), cur.begin() + D(x.i));
  out.insert(out.end(), v.begin() + D(x.a), v.begin() + D(x.b));
  out.insert(out.end(), cur.begin() + D(x.j), cur.end());
  return out;
}

}  // namespace tseq_test
