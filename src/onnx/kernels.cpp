// The executor's kernels for tensors and sequences, and the kernel table the loader resolves
// every node against (control flow is in control_flow.cpp).

#include <algorithm>
#include <limits>
#include <type_traits>

#include <Eigen/Core>

#include "graph.hpp"
#include "tseq/detail/checked.hpp"
#include "tseq/onnx/proto.hpp"
#include "tseq/ops.hpp"

namespace tseq::onnx::detail {

// ---- helpers -----------------------------------------------------------------------------------

const ::onnx::AttributeProto* attribute(const Node& n, std::string_view name) {
  for (const auto& a : n.proto->attribute()) {
    if (a.name() == name) return &a;
  }
  return nullptr;
}

std::int64_t int_attribute(const Node& n, std::string_view name, std::optional<std::int64_t> fallback) {
  const auto* a = attribute(n, name);
  if (a == nullptr) {
    if (!fallback) throw Error("attribute '" + std::string(name) + "' is required");
    return *fallback;
  }
  return a->i();
}

const Graph& subgraph(const Node& n, const std::string& name) {
  auto it = n.subgraphs.find(name);
  if (it == n.subgraphs.end()) throw Error("graph attribute '" + name + "' is required");
  return *it->second;
}

Value& required(Inputs& in, std::size_t j) {
  if (j >= in.size() || !in[j]) throw Error("input " + std::to_string(j) + " is required");
  return *in[j];
}

const Tensor& tensor_input(Inputs& in, std::size_t j) {
  Value& v = required(in, j);
  if (!v.is_tensor()) throw TypeError("input " + std::to_string(j) + " must be a tensor, got " + describe(v));
  return v.tensor();
}

std::optional<Tensor> optional_tensor(Inputs& in, std::size_t j) {
  if (j >= in.size() || !in[j]) return std::nullopt;
  return tensor_input(in, j);
}

TensorSequence take_sequence(Inputs& in, std::size_t j) {
  Value& v = required(in, j);
  if (!v.is_sequence()) throw TypeError("input " + std::to_string(j) + " must be a sequence, got " + describe(v));
  return std::move(std::get<TensorSequence>(v));
}

// Kernels read payloads only on the host (docs/embedding.md).
void check_host(const Tensor& t, const std::string& what) {
  if (!t.device().is_host_readable()) tseq::detail::throw_not_host("", what, t.device());
}

std::int64_t string_chars(const Tensor& t) {
  if (t.dtype() != DataType::String || !t.device().is_host_readable()) return 0;
  std::int64_t n = 0;
  for (const std::string& x : t.values<std::string>()) n += static_cast<std::int64_t>(x.size());  // < 2^63: in memory
  return n;
}

bool bool_scalar(const Tensor& t, const char* what) {
  if (t.dtype() != DataType::Bool || t.size() != 1) {
    throw TypeError(std::string(what) + " must be a one-element bool tensor, got " + dtype_name(t.dtype()) +
                    " of shape " + to_string(t.shape()));
  }
  check_host(t, what);
  return tseq::detail::bool_byte(t.data(), 0);  // a byte: adopted memory may hold any
}

std::vector<std::int64_t> int_list(const Tensor& t, const char* what) {
  if (t.dtype() != DataType::Int64 && t.dtype() != DataType::Int32) {
    throw TypeError(std::string(what) + " must be an int32 or int64 tensor, got " + dtype_name(t.dtype()));
  }
  check_host(t, what);
  std::vector<std::int64_t> r(t.size());
  for (std::size_t i = 0; i < r.size(); ++i) {
    r[i] = t.dtype() == DataType::Int64 ? t.value<std::int64_t>(i) : t.value<std::int32_t>(i);
  }
  return r;
}

DataType sequence_empty_dtype(const Node& n) {
  const std::int64_t d = int_attribute(n, "dtype", 1);
  if (!is_dtype_code(d)) {
    throw TypeError("SequenceEmpty: dtype " + std::to_string(d) +
                    " is not a sequence element type (valid: " + valid_dtypes() + ")");
  }
  return static_cast<DataType>(d);
}

Values one(Value v) {
  Values r;
  r.push_back(std::move(v));
  return r;
}

namespace {

// Row-major strides of s; all zero for a shape without elements (whose other dims may be
// huge: no element is ever addressed).
std::vector<std::int64_t> strides_of(const Shape& s) {
  std::vector<std::int64_t> st(s.rank(), 0);
  if (s.num_elements() == 0) return st;
  std::int64_t m = 1;
  for (std::size_t d = s.rank(); d-- > 0;) {
    st[d] = m;
    m *= s[d];  // at most num_elements(): fits
  }
  return st;
}

// Copies elements of `src` picked by an affine index map into a new tensor of shape `out`:
// element (i0, i1, ...) of the result is src at offset base + sum(i_d * step[d]).
//
// The walk is over the axes that matter: extent-1 axes are dropped and an axis that continues
// its inner neighbour (step == inner step * inner extent) is merged into it, so the odometer
// costs O(1) per element whatever the rank (an Unsqueeze to rank 64 is one flat copy). The
// deadline is checked every 2^16 elements. Bools are copied as bytes (adopted memory may hold
// any byte; copying it as bool would be undefined).
Tensor gather(const Tensor& src, const Shape& out, std::int64_t base, const std::vector<std::int64_t>& step,
              const Context& cx, std::string_view op) {
  TensorBuffer b(src.dtype(), out, cx.resource);
  const auto total = static_cast<std::size_t>(out.num_elements());
  if (total == 0) return std::move(b).freeze();
  std::vector<std::int64_t> ext;  // outermost first
  std::vector<std::int64_t> st;
  for (std::size_t d = 0; d < out.rank(); ++d) {
    if (out[d] == 1) continue;
    if (!ext.empty() && st.back() == step[d] * out[d]) {  // the outer axis continues this one
      ext.back() *= out[d];                               // at most total: fits
      st.back() = step[d];
      continue;
    }
    ext.push_back(out[d]);
    st.push_back(step[d]);
  }
  const std::size_t r = ext.size();
  visit_dtype(src.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    using E = std::conditional_t<std::is_same_v<T, bool>, unsigned char, T>;
    const E* from = static_cast<const E*>(src.data());
    E* to = static_cast<E*>(b.data());
    std::vector<std::int64_t> idx(r, 0);
    std::int64_t off = base;
    for (std::size_t i = 0; i < total; ++i) {
      if ((i & 0xFFFF) == 0xFFFF && cx.stoppable) cx.check_stop(op);
      to[i] = from[static_cast<std::size_t>(off)];
      for (std::size_t d = r; d-- > 0;) {  // odometer increment
        if (++idx[d] < ext[d]) {
          off += st[d];
          break;
        }
        off -= st[d] * (idx[d] - 1);
        idx[d] = 0;
      }
    }
  });
  return std::move(b).freeze();
}

Tensor with_shape(const Tensor& t, const Shape& s, const Context& cx, std::string_view op) {
  return gather(t, s, 0, strides_of(s), cx, op);  // same row-major order, new dims: one flat copy
}

Shape broadcast_shape(const Shape& a, const Shape& b) {
  const std::size_t r = std::max(a.rank(), b.rank());
  std::vector<std::int64_t> d(r);
  for (std::size_t i = 0; i < r; ++i) {
    const std::int64_t x = i < r - a.rank() ? 1 : a[i - (r - a.rank())];
    const std::int64_t y = i < r - b.rank() ? 1 : b[i - (r - b.rank())];
    if (x != y && x != 1 && y != 1) {
      throw ShapeError("shapes " + to_string(a) + " and " + to_string(b) + " cannot be broadcast");
    }
    d[i] = x == 1 ? y : x;
  }
  return Shape(std::span<const std::int64_t>(d));
}

// Strides of `s` seen as broadcast to rank r (0 along broadcast dimensions).
std::vector<std::int64_t> broadcast_strides(const Shape& s, const Shape& out) {
  const std::size_t r = out.rank();
  const auto own = strides_of(s);
  std::vector<std::int64_t> st(r, 0);
  for (std::size_t i = 0; i < s.rank(); ++i) {
    const std::size_t o = r - s.rank() + i;
    st[o] = s[i] == 1 && out[o] != 1 ? 0 : own[i];
  }
  return st;
}

// Integer addition wraps (two's complement, as ONNX Runtime and numpy do), computed in the
// unsigned type: no signed overflow.
template <class T>
T add_values(T a, T b) {
  if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
  } else {
    return static_cast<T>(a + b);
  }
}

Values add(const Node&, Inputs& in, const Scope&, Context& cx) {
  const Tensor& a = tensor_input(in, 0);
  const Tensor& b = tensor_input(in, 1);
  if (a.dtype() != b.dtype()) {
    throw TypeError("Add: operands have types " + dtype_name(a.dtype()) + " and " + dtype_name(b.dtype()));
  }
  if (a.dtype() == DataType::String || a.dtype() == DataType::Bool) {
    throw TypeError("Add: " + dtype_name(a.dtype()) + " tensors cannot be added");
  }
  check_host(a, "Add: input 0");
  check_host(b, "Add: input 1");
  const Shape out = broadcast_shape(a.shape(), b.shape());
  cx.check_tensor(out, a.dtype(), "Add");
  // Two broadcast copies and the result (their size fits: check_tensor multiplied it out).
  const std::int64_t bytes = out.num_elements() * static_cast<std::int64_t>(dtype_size(a.dtype()));
  cx.check_run_bytes(tseq::detail::checked_mul(bytes, 3, "Add", "the operands' and the result's bytes"), "Add");
  const Tensor x = gather(a, out, 0, broadcast_strides(a.shape(), out), cx, "Add");
  const Tensor y = gather(b, out, 0, broadcast_strides(b.shape(), out), cx, "Add");
  TensorBuffer r(a.dtype(), out, cx.resource);
  visit_dtype(a.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (!std::is_same_v<T, std::string> && !std::is_same_v<T, bool>) {
      const auto p = x.values<T>();
      const auto q = y.values<T>();
      auto o = r.values<T>();
      for (std::size_t i = 0; i < o.size(); ++i) {
        if ((i & 0xFFFF) == 0xFFFF && cx.stoppable) cx.check_stop("Add");
        o[i] = add_values<T>(p[i], q[i]);
      }
    }
  });
  return one(std::move(r).freeze());
}

// Elements along one axis of a slice with start b (clamped) and end e (clamped), step s != 0.
std::int64_t slice_count(std::int64_t b, std::int64_t e, std::int64_t s) {
  // b and e lie in [-1, dim], so their difference cannot overflow; the step's magnitude is
  // taken in uint64 (INT64_MIN has no int64 negation).
  if (s > 0) return e > b ? (e - b - 1) / s + 1 : 0;
  const std::uint64_t step = std::uint64_t{0} - static_cast<std::uint64_t>(s);
  return b > e ? static_cast<std::int64_t>((static_cast<std::uint64_t>(b - e) - 1) / step + 1) : 0;
}

Values slice(const Node& n, Inputs& in, const Scope&, Context& cx) {
  const Tensor& data = tensor_input(in, 0);
  check_host(data, "Slice: input 0");
  std::vector<std::int64_t> starts;
  std::vector<std::int64_t> ends;
  std::vector<std::int64_t> axes;
  std::vector<std::int64_t> steps;
  if (n.opset >= 10) {
    starts = int_list(tensor_input(in, 1), "Slice starts");
    ends = int_list(tensor_input(in, 2), "Slice ends");
    if (auto a = optional_tensor(in, 3)) axes = int_list(*a, "Slice axes");
    if (auto s = optional_tensor(in, 4)) steps = int_list(*s, "Slice steps");
  } else {  // opset 1-9: attributes
    auto list = [&](const char* name) {
      std::vector<std::int64_t> v;
      if (const auto* a = attribute(n, name)) v.assign(a->ints().begin(), a->ints().end());
      return v;
    };
    starts = list("starts");
    ends = list("ends");
    axes = list("axes");
  }
  const auto r = static_cast<std::int64_t>(data.rank());
  if (starts.size() != ends.size()) throw ShapeError("Slice: starts and ends have different lengths");
  if (axes.empty()) {
    for (std::size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<std::int64_t>(i));
  }
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (axes.size() != starts.size() || steps.size() != starts.size()) {
    throw ShapeError("Slice: starts, ends, axes and steps must have the same length");
  }
  std::vector<std::int64_t> first(data.rank(), 0);
  std::vector<std::int64_t> step(data.rank(), 1);
  std::vector<std::int64_t> dims(data.shape().begin(), data.shape().end());
  for (std::size_t i = 0; i < axes.size(); ++i) {
    std::int64_t ax = axes[i];
    if (ax < -r || ax >= r) {
      throw IndexError("Slice: axis " + std::to_string(ax) + " is out of range [" + std::to_string(-r) + ", " +
                       std::to_string(r - 1) + "]");
    }
    if (ax < 0) ax += r;
    const auto a = static_cast<std::size_t>(ax);
    const std::int64_t dim = data.shape()[a];
    const std::int64_t s = steps[i];
    if (s == 0) throw Error("Slice: step 0 is invalid");
    std::int64_t b = starts[i];
    std::int64_t e = ends[i];
    if (b < 0) b += dim;  // b < 0 <= dim: no overflow
    if (e < 0) e += dim;
    if (s > 0) {
      b = std::clamp<std::int64_t>(b, 0, dim);
      e = std::clamp<std::int64_t>(e, 0, dim);
    } else if (dim == 0) {  // [0, dim - 1] is empty: std::clamp's hi < lo would be undefined
      b = 0;
      e = 0;
    } else {
      b = std::clamp<std::int64_t>(b, 0, dim - 1);
      e = std::clamp<std::int64_t>(e, -1, dim - 1);
    }
    dims[a] = slice_count(b, e, s);
    first[a] = b;
    step[a] = s;
  }
  const Shape out{std::span<const std::int64_t>(dims)};
  cx.check_tensor(out, data.dtype(), "Slice");
  if (out.num_elements() == 0) return one(TensorBuffer(data.dtype(), out, cx.resource).freeze());
  const auto st = strides_of(data.shape());
  std::int64_t base = 0;
  std::vector<std::int64_t> istep(data.rank(), 0);
  for (std::size_t d = 0; d < data.rank(); ++d) {
    base += first[d] * st[d];  // an element's offset: fits
    // Applied only between elements, so only when the axis has more than one: then
    // |step| * stride * (count - 1) stays inside the tensor and fits.
    if (dims[d] > 1) istep[d] = step[d] * st[d];
  }
  return one(gather(data, out, base, istep, cx, "Slice"));
}

Values unsqueeze(const Node& n, Inputs& in, const Scope&, Context& cx) {
  const Tensor& data = tensor_input(in, 0);
  std::vector<std::int64_t> axes;
  if (n.opset >= 13) {
    axes = int_list(tensor_input(in, 1), "Unsqueeze axes");
  } else if (const auto* a = attribute(n, "axes")) {
    axes.assign(a->ints().begin(), a->ints().end());
  }
  check_host(data, "Unsqueeze: input 0");
  const auto r = static_cast<std::int64_t>(data.rank() + axes.size());
  if (r > static_cast<std::int64_t>(max_rank)) {  // before the axes are sorted and the dims built
    throw Error("Unsqueeze: the result would have rank " + std::to_string(r) + ", over tseq::onnx's max_rank of " +
                std::to_string(max_rank));
  }
  for (auto& a : axes) {
    if (a < -r || a >= r) {
      throw IndexError("Unsqueeze: axis " + std::to_string(a) + " is out of range [" + std::to_string(-r) + ", " +
                       std::to_string(r - 1) + "]");
    }
    if (a < 0) a += r;
  }
  std::sort(axes.begin(), axes.end());
  if (std::adjacent_find(axes.begin(), axes.end()) != axes.end()) throw Error("Unsqueeze: repeated axis");
  std::vector<std::int64_t> dims;
  std::size_t src = 0;
  for (std::int64_t i = 0; i < r; ++i) {
    if (std::binary_search(axes.begin(), axes.end(), i)) {
      dims.push_back(1);
    } else {
      dims.push_back(data.shape()[src++]);
    }
  }
  const Shape out(std::span<const std::int64_t>{dims});
  cx.check_tensor(out, data.dtype(), "Unsqueeze");
  return one(with_shape(data, out, cx, "Unsqueeze"));
}

Values constant(const Node& n, Inputs&, const Scope&, Context& cx) {
  std::pmr::memory_resource* r = cx.resource;
  for (const auto& a : n.proto->attribute()) {
    const std::string& k = a.name();
    if (k == "value") return one(from_proto(a.t(), "Constant value", r));
    if (k == "value_float") return one(Tensor::scalar(a.f(), r));
    if (k == "value_int") return one(Tensor::scalar<std::int64_t>(a.i(), r));
    if (k == "value_string") return one(Tensor::scalar(a.s(), r));
    if (k == "value_floats") {
      std::vector<float> v(a.floats().begin(), a.floats().end());
      return one(Tensor::from_values<float>(Shape{static_cast<std::int64_t>(v.size())}, v, r));
    }
    if (k == "value_ints") {
      std::vector<std::int64_t> v(a.ints().begin(), a.ints().end());
      return one(Tensor::from_values<std::int64_t>(Shape{static_cast<std::int64_t>(v.size())}, v, r));
    }
    if (k == "value_strings") {
      std::vector<std::string> v(a.strings().begin(), a.strings().end());
      return one(Tensor::from_values<std::string>(Shape{static_cast<std::int64_t>(v.size())}, v, r));
    }
  }
  throw Error("Constant: no value attribute");  // the loader checks this
}

Values identity(const Node&, Inputs& in, const Scope&, Context&) { return one(std::move(required(in, 0))); }

Values sequence_empty(const Node& n, Inputs&, const Scope&, Context&) {
  return one(ops::sequence_empty(sequence_empty_dtype(n)));
}

Values sequence_construct(const Node&, Inputs& in, const Scope&, Context& cx) {
  cx.check_sequence(static_cast<std::int64_t>(in.size()), "SequenceConstruct");
  std::vector<Tensor> ts;
  ts.reserve(in.size());
  for (std::size_t j = 0; j < in.size(); ++j) ts.push_back(tensor_input(in, j));
  return one(ops::sequence_construct(ts));
}

Values sequence_insert(const Node&, Inputs& in, const Scope&, Context& cx) {
  const Tensor t = tensor_input(in, 1);
  const auto pos = optional_tensor(in, 2);
  TensorSequence s = take_sequence(in, 0);
  cx.check_sequence(static_cast<std::int64_t>(s.size()) + 1, "SequenceInsert");
  return one(ops::sequence_insert(std::move(s), t, pos));
}

Values sequence_erase(const Node&, Inputs& in, const Scope&, Context&) {
  const auto pos = optional_tensor(in, 1);
  return one(ops::sequence_erase(take_sequence(in, 0), pos));
}

Values sequence_at(const Node&, Inputs& in, const Scope&, Context&) {
  return one(ops::sequence_at(take_sequence(in, 0), tensor_input(in, 1)));
}

Values sequence_length(const Node&, Inputs& in, const Scope&, Context& cx) {
  return one(ops::sequence_length(take_sequence(in, 0), cx.resource));
}

Values split_to_sequence(const Node& n, Inputs& in, const Scope&, Context& cx) {
  const Tensor& x = tensor_input(in, 0);
  const auto split = optional_tensor(in, 1);
  const std::int64_t axis = int_attribute(n, "axis", 0);
  const std::int64_t keepdims = int_attribute(n, "keepdims", 1);
  // Limits first: how many pieces, and what they cost, before anything is made.
  const Shape& s = x.shape();
  if (s.rank() > 0 && axis >= -static_cast<std::int64_t>(s.rank()) && axis < static_cast<std::int64_t>(s.rank())) {
    const std::int64_t dim = s[static_cast<std::size_t>(axis < 0 ? axis + static_cast<std::int64_t>(s.rank()) : axis)];
    std::int64_t pieces = dim;
    if (split && split->rank() <= 1 && split->device().is_host_readable() &&
        (split->dtype() == DataType::Int64 || split->dtype() == DataType::Int32)) {
      if (split->rank() == 1) {
        pieces = static_cast<std::int64_t>(split->size());
      } else if (split->size() == 1) {
        const std::int64_t c = int_list(*split, "SplitToSequence split")[0];
        if (c > 0) pieces = dim / c + (dim % c != 0 ? 1 : 0);
      }
    }
    cx.check_sequence(pieces, "SplitToSequence");
    const std::int64_t payload =
        tseq::detail::checked_mul(static_cast<std::int64_t>(x.size()), static_cast<std::int64_t>(dtype_size(x.dtype())),
                                  "SplitToSequence", "the pieces' bytes");
    // Each piece is a block of its own: a header (TensorStorage::header_bytes) and its part of
    // the payload with the colour slack, which summed stays within slack_bound(payload).
    constexpr auto header = static_cast<std::int64_t>(tseq::detail::TensorStorage::header_bytes());
    const auto slack =
        static_cast<std::int64_t>(tseq::detail::TensorStorage::slack_bound(static_cast<std::size_t>(payload)));
    const std::int64_t headers = tseq::detail::checked_mul(pieces, header, "SplitToSequence", "the pieces' bytes");
    const std::int64_t blocks = tseq::detail::checked_add(payload, slack, "SplitToSequence", "the pieces' bytes");
    cx.check_run_bytes(tseq::detail::checked_add(headers, blocks, "SplitToSequence", "the pieces' bytes"),
                       "SplitToSequence");
  }
  return one(ops::split_to_sequence(x, split, axis, keepdims, cx.resource));
}

Values concat_from_sequence(const Node& n, Inputs& in, const Scope&, Context& cx) {
  const TensorSequence s = take_sequence(in, 0);
  const std::int64_t new_axis = int_attribute(n, "new_axis", 0);
  if (!s.empty() && s[0].rank() + (new_axis != 0 ? 1 : 0) > max_rank) {
    throw Error("ConcatFromSequence: the result would have rank " +
                std::to_string(s[0].rank() + (new_axis != 0 ? 1 : 0)) + ", over tseq::onnx's max_rank of " +
                std::to_string(max_rank));
  }
  std::int64_t total = 0;
  std::int64_t chars = 0;  // string elements: their characters, copied from the global heap
  for (const Tensor& t : s) {
    total = tseq::detail::checked_add(total, static_cast<std::int64_t>(t.size()), "ConcatFromSequence",
                                      "the result's element count");
    chars = tseq::detail::checked_add(chars, string_chars(t), "ConcatFromSequence", "the result's characters");
  }
  cx.check_tensor(total, s.dtype(), "ConcatFromSequence", chars);
  return one(ops::concat_from_sequence(s, int_attribute(n, "axis", std::nullopt), new_axis, cx.resource));
}

Values optional(const Node& n, Inputs& in, const Scope&, Context&) {
  if (!in.empty() && in[0]) {
    Value v = std::move(*in[0]);
    if (v.is_optional()) throw TypeError("Optional: the input is already an optional");
    const ValueType t = v.is_tensor() ? ValueType::optional(ValueType::Kind::Tensor, v.tensor().dtype())
                                      : ValueType::optional(ValueType::Kind::Sequence, v.sequence().dtype());
    return one(OptionalValue{std::make_shared<const Value>(std::move(v)), t});
  }
  const auto* a = attribute(n, "type");
  if (a == nullptr) throw Error("Optional: without an input the 'type' attribute is required");
  const ValueType elem = from_proto(a->tp(), "Optional type");
  if (elem.kind == ValueType::Kind::Optional) throw TypeError("Optional: an optional cannot hold an optional");
  return one(OptionalValue{nullptr, ValueType::optional(elem.kind, elem.dtype)});
}

Values optional_has_element(const Node&, Inputs& in, const Scope&, Context& cx) {
  bool has = false;
  if (!in.empty() && in[0]) has = !in[0]->is_optional() || in[0]->optional().has_value();
  return one(Tensor::scalar(has, cx.resource));
}

Values optional_get_element(const Node&, Inputs& in, const Scope&, Context&) {
  Value& v = required(in, 0);
  if (!v.is_optional()) return one(std::move(v));
  if (!v.optional().has_value()) throw Error("OptionalGetElement: the optional is empty");
  return one(*v.optional().element);
}

Values logical_not(const Node&, Inputs& in, const Scope&, Context& cx) {
  Tensor x = tensor_input(in, 0);
  if (x.dtype() != DataType::Bool) throw TypeError("Not: the input must be bool, got " + dtype_name(x.dtype()));
  check_host(x, "Not: input 0");
  in[0].reset();  // at the input's last use x is now its only handle: into_buffer reuses its memory
  TensorBuffer b = std::move(x).into_buffer(cx.resource);
  // Read and written as bytes (adopted memory may hold any byte; the result holds 0 and 1).
  auto* bytes = static_cast<unsigned char*>(b.data());
  for (std::size_t i = 0; i < b.size(); ++i) bytes[i] = bytes[i] == 0 ? 1 : 0;
  return one(std::move(b).freeze());
}

Values shape(const Node& n, Inputs& in, const Scope&, Context& cx) {
  const Tensor& x = tensor_input(in, 0);
  const auto r = static_cast<std::int64_t>(x.rank());
  std::int64_t b = int_attribute(n, "start", 0);
  std::int64_t e = int_attribute(n, "end", r);
  if (b < 0) b = b < -r ? 0 : b + r;
  if (e < 0) e = e < -r ? 0 : e + r;
  b = std::clamp<std::int64_t>(b, 0, r);
  e = std::clamp<std::int64_t>(e, 0, r);
  std::vector<std::int64_t> dims;
  for (std::int64_t i = b; i < e; ++i) dims.push_back(x.shape()[static_cast<std::size_t>(i)]);
  return one(Tensor::from_values<std::int64_t>(Shape{static_cast<std::int64_t>(dims.size())}, dims, cx.resource));
}

constexpr int kAny = -1;

// The operators tseq runs. Opset-dependent forms (Slice before 10, Unsqueeze before 13) are
// separate rows; find_op picks by the model's opset.
struct Row {
  OpInfo info;
  int since;  // first opset of this form
  int until;  // last opset of this form
};

const std::vector<Row>& table() {
  static const std::vector<Row> rows = {
      {{"Add", add, 2, 2, {}, {}, {}}, 1, kMaxOpset},
      {{"ConcatFromSequence", concat_from_sequence, 1, 1, {}, {"axis"}, {}}, 11, kMaxOpset},
      {{"Constant", constant, 0, 0, {}, {}, {}}, 1, kMaxOpset},
      {{"Identity", identity, 1, 1, {}, {}, {}}, 1, kMaxOpset},
      {{"If", run_if, 1, 1, {}, {}, {"then_branch", "else_branch"}}, 1, kMaxOpset},
      {{"Loop", run_loop, 2, kAny, {0, 1}, {}, {"body"}}, 1, kMaxOpset},
      {{"Not", logical_not, 1, 1, {}, {}, {}}, 1, kMaxOpset},
      {{"Optional", optional, 0, 1, {}, {}, {}}, 15, kMaxOpset},
      {{"OptionalGetElement", optional_get_element, 1, 1, {}, {}, {}}, 15, kMaxOpset},
      {{"OptionalHasElement", optional_has_element, 0, 1, {}, {}, {}}, 15, kMaxOpset},
      {{"SequenceAt", sequence_at, 2, 2, {}, {}, {}}, 11, kMaxOpset},
      {{"SequenceConstruct", sequence_construct, 1, kAny, {}, {}, {}}, 11, kMaxOpset},
      {{"SequenceEmpty", sequence_empty, 0, 0, {}, {}, {}}, 11, kMaxOpset},
      {{"SequenceErase", sequence_erase, 1, 2, {}, {}, {}}, 11, kMaxOpset},
      {{"SequenceInsert", sequence_insert, 2, 3, {}, {}, {}}, 11, kMaxOpset},
      {{"SequenceLength", sequence_length, 1, 1, {}, {}, {}}, 11, kMaxOpset},
      {{"SequenceMap", run_sequence_map, 1, kAny, {}, {}, {"body"}}, 17, kMaxOpset},
      {{"Shape", shape, 1, 1, {}, {}, {}}, 1, kMaxOpset},
      {{"Slice", slice, 1, 1, {}, {"starts", "ends"}, {}}, 1, 9},
      {{"Slice", slice, 3, 5, {}, {}, {}}, 10, kMaxOpset},
      {{"SplitToSequence", split_to_sequence, 1, 2, {}, {}, {}}, 11, kMaxOpset},
      {{"Unsqueeze", unsqueeze, 1, 1, {}, {"axes"}, {}}, 1, 12},
      {{"Unsqueeze", unsqueeze, 2, 2, {}, {}, {}}, 13, kMaxOpset},
  };
  return rows;
}

}  // namespace

const OpInfo* find_op(std::string_view op, int opset) {
  for (const Row& r : table()) {
    if (r.info.name == op && opset >= r.since && opset <= r.until) return &r.info;
  }
  return nullptr;
}

bool known_op(std::string_view op) {
  for (const Row& r : table()) {
    if (r.info.name == op) return true;
  }
  return false;
}

}  // namespace tseq::onnx::detail
