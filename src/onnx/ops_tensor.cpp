// The tensor operators (Add, Slice, Unsqueeze, Constant, Identity, Not, Shape): their kernels
// and registry records.

#include <algorithm>
#include <limits>
#include <type_traits>

#include <Eigen/Core>

#include "../indices.hpp"
#include "kernel_support.hpp"
#include "registry.hpp"
#include "tseq/detail/checked.hpp"
#include "tseq/onnx/proto.hpp"
#include "tseq/ops.hpp"

namespace tseq::onnx::detail {

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
    const std::size_t a = tseq::detail::normalize_axis("Slice", axes[i], data.rank());
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
  for (auto& a : axes)
    a = static_cast<std::int64_t>(tseq::detail::normalize_axis("Unsqueeze", a, static_cast<std::size_t>(r)));
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

// ---- checks and type inference ----

std::vector<MaybeType> same_as_input0(const InferContext& c) { return first_output(c, c.input(0)); }
std::vector<MaybeType> bool_tensor(const InferContext& c) { return first_output(c, ValueType::tensor(DataType::Bool)); }
std::vector<MaybeType> int64_tensor(const InferContext& c) {
  return first_output(c, ValueType::tensor(DataType::Int64));
}

// Exactly one value attribute, and not sparse_value.
void check_constant(const CheckContext& c) {
  int values = 0;
  for (const auto& a : c.proto.attribute()) {
    if (a.name() == "sparse_value") c.fail("sparse_value is not supported (sparse tensors)");
    if (a.name().rfind("value", 0) == 0) ++values;
  }
  if (values != 1) {
    c.fail("needs exactly one value attribute (value, value_float(s), value_int(s), value_string(s)), got " +
           std::to_string(values));
  }
}

std::vector<MaybeType> constant_type(const InferContext& c) {
  MaybeType t;
  for (const auto& a : c.node.proto->attribute()) {
    const std::string_view k = a.name();
    if (k == "value") t = ValueType::tensor(static_cast<DataType>(a.t().data_type()));
    if (k == "value_float" || k == "value_floats") t = ValueType::tensor(DataType::Float);
    if (k == "value_int" || k == "value_ints") t = ValueType::tensor(DataType::Int64);
    if (k == "value_string" || k == "value_strings") t = ValueType::tensor(DataType::String);
  }
  return first_output(c, t);
}

}  // namespace

// Opset-dependent forms (Slice before 10, Unsqueeze before 13) are separate records; find_op
// picks by the model's opset.
const std::vector<OpInfo>& tensor_ops() {
  static const std::vector<OpInfo> ops = {
      {.name = "Add", .kernel = add, .min_inputs = 2, .max_inputs = 2, .infer = same_as_input0},
      {.name = "Constant", .kernel = constant, .check = check_constant, .infer = constant_type},
      {.name = "Identity", .kernel = identity, .min_inputs = 1, .max_inputs = 1, .infer = same_as_input0},
      {.name = "Not", .kernel = logical_not, .min_inputs = 1, .max_inputs = 1, .infer = bool_tensor},
      {.name = "Shape", .kernel = shape, .min_inputs = 1, .max_inputs = 1, .infer = int64_tensor},
      {.name = "Slice",
       .until = 9,
       .kernel = slice,
       .min_inputs = 1,
       .max_inputs = 1,
       .required_attributes = {"starts", "ends"},
       .infer = same_as_input0},
      {.name = "Slice", .since = 10, .kernel = slice, .min_inputs = 3, .max_inputs = 5, .infer = same_as_input0},
      {.name = "Unsqueeze",
       .until = 12,
       .kernel = unsqueeze,
       .min_inputs = 1,
       .max_inputs = 1,
       .required_attributes = {"axes"},
       .infer = same_as_input0},
      {.name = "Unsqueeze",
       .since = 13,
       .kernel = unsqueeze,
       .min_inputs = 2,
       .max_inputs = 2,
       .infer = same_as_input0},
  };
  return ops;
}

}  // namespace tseq::onnx::detail
