// Fuzz target: TensorSequence and tseq::ops with arbitrary positions, element types, shapes,
// splits and axes. Every error must be a tseq::Error (anything else escapes and is reported);
// SequenceInsert/Erase/At results are checked against a std::vector model of the handles.
// SequenceInsert/Erase take their sequence in one of three ways: by const& (the persistent
// path: the input must not change), by rvalue from the fuzzer's own sequence (the in-place
// path: the result is checked against the model, never the moved-from value; while no other
// version shares it, the touched leaf must be edited where it is, not copied), or by rvalue
// from a copy (the && path on shared nodes: the original must not change). A snapshot of an
// older version, taken and dropped by the input, must never change either. Argument errors
// must leave every input unchanged. Some tensors are adopted, some of those "on a GPU".

#include <cstdint>
#include <cstdlib>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "fuzz_input.hpp"
#include "tseq/eigen.hpp"
#include "tseq/ops.hpp"

namespace {

using namespace tseq;

Tensor make_tensor(tseq_fuzz::Input& in, DataType t, std::size_t max_rank) {
  std::vector<std::int64_t> dims(in.below(max_rank + 1));
  for (auto& d : dims) d = static_cast<std::int64_t>(in.below(4));
  const Shape shape{std::span<const std::int64_t>(dims)};
  TensorBuffer b(t, shape);
  visit_dtype(t, [&](auto tag) {
    using T = typename decltype(tag)::type;
    for (T& x : b.values<T>()) {
      if constexpr (std::is_same_v<T, std::string>) {
        x = std::string(in.below(4), static_cast<char>('a' + in.below(26)));
      } else if constexpr (std::is_same_v<T, bool>) {
        x = in.byte() % 2 == 1;
      } else if constexpr (std::is_same_v<T, Eigen::half>) {
        x = Eigen::numext::bit_cast<Eigen::half>(in.value<std::uint16_t>());
      } else if constexpr (std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>>) {
        x = T(in.value<typename T::value_type>(), in.value<typename T::value_type>());
      } else {
        x = in.value<T>();
      }
    }
  });
  Tensor made = std::move(b).freeze();
  // Sometimes adopted instead (host, or host memory labelled as a GPU: payload reads must then
  // be DeviceErrors), its owner keeping the tseq-made original alive.
  const std::uint8_t how = in.byte();
  if (how % 4 == 0 && t != DataType::String) {
    const Device d = how % 8 == 0 ? Device::cuda(0) : Device::cpu();
    return Tensor::adopt(t, made.shape(), made.data(), d, std::make_shared<const Tensor>(made));
  }
  return made;
}

// A position near the valid range [-n, n] most of the time, anything sometimes.
std::int64_t position(tseq_fuzz::Input& in, std::size_t n) {
  switch (in.byte() % 4) {
    case 0:
      return in.value<std::int64_t>();
    case 1:
      return in.byte() % 2 ? std::numeric_limits<std::int64_t>::min() : std::numeric_limits<std::int64_t>::max();
    default:
      return static_cast<std::int64_t>(in.below(2 * n + 5)) - static_cast<std::int64_t>(n) - 2;
  }
}

// The position as a tensor in one of the accepted forms, or a malformed one; `valid` says
// whether it is a well-formed position tensor.
Tensor position_tensor(tseq_fuzz::Input& in, std::int64_t p, bool& valid) {
  valid = true;
  switch (in.byte() % 6) {
    case 0:
      return Tensor::scalar<std::int32_t>(static_cast<std::int32_t>(p));
    case 1:
      return Tensor::from_values<std::int64_t>(Shape{1}, {p});
    case 2:
      valid = false;
      return Tensor::from_values<std::int64_t>(Shape{2}, {p, p});
    case 3:
      valid = false;
      return Tensor::scalar(static_cast<float>(p));
    default:
      return Tensor::scalar<std::int64_t>(p);
  }
}

bool same(const TensorSequence& s, const std::vector<Tensor>& m) {
  if (s.size() != m.size()) return false;
  for (std::size_t i = 0; i < m.size(); ++i) {
    if (!s[i].identical_to(m[i])) return false;
  }
  return true;
}

// How SequenceInsert/Erase get their sequence.
enum class Held { const_ref, moved, moved_copy };

Held held_of(std::uint8_t op) {
  switch (op >> 6) {
    case 2:
      return Held::moved;
    case 3:
      return Held::moved_copy;
    default:
      return Held::const_ref;
  }
}

// The leaf holding position i of s (for i == size(): the last, where an append goes), where
// an in-place update must leave it; empty when it may legitimately move: an update that
// splits, merges or rebalances the leaf, or changes whether the vector has a tree at all.
struct Slot {
  const Tensor* first_element = nullptr;  // address of the leaf's first element
  std::size_t first = 0;                  // its index
};

std::optional<Slot> stable_leaf(const TensorSequence& s, std::size_t i, bool erasing) {
  using V = TensorSequence::container_type;
  const std::size_t n = s.size();
  const std::size_t after = erasing ? n - 1 : n + 1;
  if ((n <= V::branching) != (after <= V::branching)) return std::nullopt;
  std::vector<Slot> leaves;
  std::vector<std::size_t> counts;
  std::size_t at = 0;
  s.tensors().for_each_chunk([&](const Tensor* f, const Tensor* l) {
    leaves.push_back(Slot{f, at});
    counts.push_back(static_cast<std::size_t>(l - f));
    at += counts.back();
  });
  for (std::size_t c = 0; c < leaves.size(); ++c) {
    const bool last = c + 1 == leaves.size();  // the tail
    const std::size_t end = leaves[c].first + counts[c];
    if (i < leaves[c].first || (i >= end && !(last && !erasing && i == n))) continue;
    // Erase: at least two elements stay in the tail, more than min_fill in a tree leaf (no
    // rebalancing). Insert: room for one more in its allocation (no split, no sharing with a
    // sibling, no move to a bigger leaf).
    // (A leaf made by a persistent update has room for just its elements.)
    const bool keeps = erasing ? (last ? counts[c] >= 2 : counts[c] > V::min_fill)
                               : counts[c] < tseq::detail::rrb_unchecked::leaf_capacity(s.tensors(), leaves[c].first);
    if (keeps) return leaves[c];
    return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  tseq_fuzz::Input in(data, size);
  const DataType t = all_dtypes[in.below(15)];
  TensorSequence s(t);  // held alone, except while the snapshot shares it
  std::vector<Tensor> m;
  std::optional<TensorSequence> snap;  // an older version, and its model
  std::vector<Tensor> snap_m;
  for (int step = 0; step < 300 && !in.empty(); ++step) {
    const std::size_t n = m.size();
    const std::uint8_t op = in.byte();
    const Held held = held_of(op);
    // The update's result from s given as `held`; the input must be unchanged unless moved.
    auto update = [&](auto&& f, std::optional<Slot> in_place) {
      TensorSequence r(t);
      if (held == Held::moved) {
        r = f(std::move(s));  // s is moved-from now: the model is what r is checked against
      } else if (held == Held::moved_copy) {
        TensorSequence copy = s;
        r = f(std::move(copy));
        if (!same(s, m)) std::abort();  // a shared sequence was changed through a copy
      } else {
        r = f(std::as_const(s));
        if (!same(s, m)) std::abort();  // the persistent path changed its input
      }
      return std::pair(std::move(r), in_place);
    };
    // After an in-place update of a sequence held alone, the touched leaf is where it was.
    auto check_in_place = [&](const TensorSequence& r, const std::optional<Slot>& slot) {
      if (slot && &r[slot->first] != slot->first_element) std::abort();  // copied, not edited in place
    };
    const bool alone = held == Held::moved && !snap;
    try {
      switch ((op & 0x3F) % 10) {
        case 0: {  // SequenceInsert
          const bool other_type = in.byte() % 16 == 0;
          const Tensor x = make_tensor(in, other_type ? all_dtypes[in.below(15)] : t, 3);
          const bool defaulted = in.byte() % 4 == 0;
          const std::int64_t p = position(in, n);
          bool valid = true;
          const std::optional<Tensor> pos =
              defaulted ? std::nullopt : std::optional<Tensor>(position_tensor(in, p, valid));
          const std::int64_t e = pos && pos->dtype() == DataType::Int32 ? static_cast<std::int32_t>(p) : p;
          const bool in_range = defaulted || (e >= -static_cast<std::int64_t>(n) && e <= static_cast<std::int64_t>(n));
          const bool ok = x.dtype() == t && valid && in_range;
          const std::size_t i = defaulted ? n : static_cast<std::size_t>(e < 0 ? e + static_cast<std::int64_t>(n) : e);
          auto [r, slot] = update([&](auto&& q) { return ops::sequence_insert(std::forward<decltype(q)>(q), x, pos); },
                                  alone && ok ? stable_leaf(s, i, false) : std::nullopt);
          if (!ok) std::abort();  // must have thrown
          m.insert(m.begin() + static_cast<std::ptrdiff_t>(i), x);
          check_in_place(r, slot);
          s = std::move(r);
          break;
        }
        case 1: {  // SequenceErase
          const bool defaulted = in.byte() % 4 == 0;
          const std::int64_t p = defaulted ? -1 : position(in, n);
          bool valid = true;
          const std::optional<Tensor> pos =
              defaulted ? std::nullopt : std::optional<Tensor>(position_tensor(in, p, valid));
          const std::int64_t e = pos && pos->dtype() == DataType::Int32 ? static_cast<std::int32_t>(p) : p;
          const bool ok = valid && e >= -static_cast<std::int64_t>(n) && e < static_cast<std::int64_t>(n);
          const std::size_t i = ok ? static_cast<std::size_t>(e < 0 ? e + static_cast<std::int64_t>(n) : e) : 0;
          auto [r, slot] = update([&](auto&& q) { return ops::sequence_erase(std::forward<decltype(q)>(q), pos); },
                                  alone && ok ? stable_leaf(s, i, true) : std::nullopt);
          if (!ok) std::abort();
          m.erase(m.begin() + static_cast<std::ptrdiff_t>(i));
          check_in_place(r, slot);
          s = std::move(r);
          break;
        }
        case 2: {  // SequenceAt
          const std::int64_t p = position(in, n);
          const Tensor x = ops::sequence_at(s, p);
          if (p < -static_cast<std::int64_t>(n) || p >= static_cast<std::int64_t>(n)) std::abort();
          if (!x.identical_to(m[static_cast<std::size_t>(p < 0 ? p + static_cast<std::int64_t>(n) : p)])) std::abort();
          break;
        }
        case 3:
          if (ops::sequence_length(s).value<std::int64_t>(0) != static_cast<std::int64_t>(n)) std::abort();
          break;
        case 4: {  // SequenceConstruct, maybe of mixed types
          std::vector<Tensor> xs(in.below(4));
          for (auto& x : xs) x = make_tensor(in, in.byte() % 8 == 0 ? all_dtypes[in.below(15)] : t, 3);
          const TensorSequence c = ops::sequence_construct(xs);
          for (const Tensor& x : xs) {
            if (x.dtype() != xs[0].dtype()) std::abort();
          }
          if (!same(c, xs)) std::abort();
          break;
        }
        case 5: {  // SplitToSequence
          const Tensor x = make_tensor(in, t, 4);
          std::optional<Tensor> split;
          switch (in.byte() % 4) {
            case 0:
              break;
            case 1:
              split = Tensor::scalar<std::int64_t>(static_cast<std::int64_t>(in.below(5)) - 1);
              break;
            case 2: {
              std::vector<std::int64_t> parts(in.below(5));
              for (auto& p : parts) p = static_cast<std::int64_t>(in.below(5)) - 1;
              split = Tensor::from_values<std::int64_t>(Shape{static_cast<std::int64_t>(parts.size())}, parts);
              break;
            }
            default:
              split = make_tensor(in, in.byte() % 2 ? DataType::Int32 : DataType::Float, 2);
              break;
          }
          const auto axis = static_cast<std::int64_t>(in.below(11)) - 5;
          const auto keep = static_cast<std::int64_t>(in.below(3));
          const TensorSequence pieces = ops::split_to_sequence(x, split, axis, keep);
          std::int64_t total = 0;
          for (const Tensor& p : pieces) {
            if (p.dtype() != t) std::abort();
            total += static_cast<std::int64_t>(p.size());
          }
          if (total != static_cast<std::int64_t>(x.size())) std::abort();  // pieces hold every element once
          break;
        }
        case 6: {  // ConcatFromSequence of the current sequence
          const auto axis = static_cast<std::int64_t>(in.below(11)) - 5;
          const auto new_axis = static_cast<std::int64_t>(in.below(3));
          const Tensor c = ops::concat_from_sequence(s, axis, new_axis);
          std::size_t total = 0;
          for (const Tensor& x : s) total += x.size();
          if (c.size() != total || c.dtype() != t) std::abort();
          break;
        }
        case 7:  // SequenceEmpty with any code
          (void)ops::sequence_empty(static_cast<DataType>(in.value<std::int32_t>() % 20));
          break;
        case 8: {  // a new sequence from the model (shapes may differ), held alone, maybe longer
          const std::size_t more = in.byte() % 2 ? in.below(200) : 0;  // past one leaf, or three
          for (std::size_t k = 0; k < more; ++k) m.push_back(make_tensor(in, t, 1));
          s = TensorSequence(t, m);
          break;
        }
        default:  // keep this version as the snapshot (it now shares s's nodes), or drop it
          if (in.byte() % 2 == 0) {
            snap = s;
            snap_m = m;
          } else {
            snap.reset();
            snap_m.clear();
          }
          break;
      }
    } catch (const tseq::Error&) {
      // expected for bad arguments, detected before anything is moved: s is unchanged
    }
    if (!same(s, m)) std::abort();
    if (snap && !same(*snap, snap_m)) std::abort();  // an older version changed
  }
  s.tensors().check_invariants();
  if (snap) snap->tensors().check_invariants();
  return 0;
}
