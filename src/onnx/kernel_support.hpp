#pragma once

// Helpers the kernels share (not installed): attributes, inputs, and their checks.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "graph.hpp"

namespace tseq::onnx::detail {

[[nodiscard]] const ::onnx::AttributeProto* attribute(const Node& n, std::string_view name);
[[nodiscard]] std::int64_t int_attribute(const Node& n, std::string_view name, std::optional<std::int64_t> fallback);
[[nodiscard]] const Graph& subgraph(const Node& n, const std::string& name);
[[nodiscard]] Value& required(Inputs& in, std::size_t j);
[[nodiscard]] const Tensor& tensor_input(Inputs& in, std::size_t j);
[[nodiscard]] std::optional<Tensor> optional_tensor(Inputs& in, std::size_t j);
[[nodiscard]] TensorSequence take_sequence(Inputs& in, std::size_t j);
void check_host(const Tensor& t, const std::string& what);
[[nodiscard]] bool bool_scalar(const Tensor& t, const char* what);
// The characters of a host string tensor's elements (0 for other tensors). O(elements).
[[nodiscard]] std::int64_t string_chars(const Tensor& t);
[[nodiscard]] std::vector<std::int64_t> int_list(const Tensor& t, const char* what);
[[nodiscard]] Values one(Value v);
// The type of a value: a tensor's or sequence's element type, an optional's declared type. O(1).
[[nodiscard]] ValueType type_of(const Value& v);
// SequenceEmpty's dtype attribute (default float); TypeError naming the value if not 1..15.
[[nodiscard]] DataType sequence_empty_dtype(const Node& n);

}  // namespace tseq::onnx::detail
