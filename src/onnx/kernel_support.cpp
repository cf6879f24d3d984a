// Helpers the kernels share: attributes, inputs, and their checks.

#include "kernel_support.hpp"

#include "../indices.hpp"

#include "tseq/detail/checked.hpp"
#include "tseq/onnx/proto.hpp"

namespace tseq::onnx::detail {

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
  return tseq::detail::int64_values(t);
}

DataType sequence_empty_dtype(const Node& n) {
  const std::int64_t d = int_attribute(n, "dtype", 1);
  if (!is_dtype_code(d)) {
    throw TypeError("SequenceEmpty: dtype " + std::to_string(d) +
                    " is not a sequence element type (valid: " + valid_dtypes() + ")");
  }
  return static_cast<DataType>(d);
}

ValueType type_of(const Value& v) {
  if (v.is_tensor()) return ValueType::tensor(v.tensor().dtype());
  if (v.is_sequence()) return ValueType::sequence(v.sequence().dtype());
  return v.optional().type;
}

Values one(Value v) {
  Values r;
  r.push_back(std::move(v));
  return r;
}

}  // namespace tseq::onnx::detail
