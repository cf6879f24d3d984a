#pragma once

/// @file
/// Values that flow through an ONNX graph: a tensor, a sequence of tensors, or an optional of
/// either; and their declared types.

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <variant>

#include "tseq/sequence.hpp"
#include "tseq/tensor.hpp"

namespace tseq::onnx {

/// The largest rank of a tensor tseq::onnx reads from a protobuf, takes as a feed or lets an
/// operator make (numpy 2's NPY_MAXDIMS, so any such tensor can reach numpy). A rank-r shape
/// costs 8r bytes (and its strides as much again) while holding no elements: bounding the
/// rank keeps what a model or file chooses from costing memory no element limit sees.
inline constexpr std::size_t max_rank = 64;

/// A declared ONNX type: tensor(T), seq(tensor(T)) or optional(tensor(T) | seq(tensor(T))).
struct ValueType {
  enum class Kind { Tensor, Sequence, Optional };
  Kind kind = Kind::Tensor;
  DataType dtype = DataType::Float;  ///< the tensors' element type at the bottom
  Kind optional_of = Kind::Tensor;   ///< for Optional: what it may hold

  [[nodiscard]] static ValueType tensor(DataType t) { return {Kind::Tensor, t, Kind::Tensor}; }
  [[nodiscard]] static ValueType sequence(DataType t) { return {Kind::Sequence, t, Kind::Tensor}; }
  [[nodiscard]] static ValueType optional(Kind of, DataType t) { return {Kind::Optional, t, of}; }
  friend bool operator==(const ValueType&, const ValueType&) = default;
};

/// A name taken from a model or a file, fit for one line of a message: control characters,
/// single quotes, backslashes and bytes >= 0x7F as \n, \t, \', \\ or \xNN, and past `max_bytes` cut
/// with "...(N bytes)". Every name tseq::onnx puts in a message goes through this, so a name
/// holding a newline cannot forge a line of a report.
[[nodiscard]] std::string escape_name(std::string_view name, std::size_t max_bytes = 200);

/// "tensor(float)", "seq(tensor(int64))", "optional(seq(tensor(float)))".
[[nodiscard]] std::string to_string(const ValueType& t);

struct Value;

/// An optional value: empty, or holding a tensor or a sequence. `type` is its declared type
/// (kept for empty optionals).
struct OptionalValue {
  std::shared_ptr<const Value> element;  ///< null when empty
  ValueType type;
  [[nodiscard]] bool has_value() const noexcept { return element != nullptr; }
};

/// A graph value. Copying one shares its payloads (tensors and sequences are persistent).
struct Value : std::variant<Tensor, TensorSequence, OptionalValue> {
  using variant::variant;
  [[nodiscard]] bool is_tensor() const noexcept { return index() == 0; }
  [[nodiscard]] bool is_sequence() const noexcept { return index() == 1; }
  [[nodiscard]] bool is_optional() const noexcept { return index() == 2; }
  [[nodiscard]] const Tensor& tensor() const { return std::get<Tensor>(*this); }
  [[nodiscard]] const TensorSequence& sequence() const { return std::get<TensorSequence>(*this); }
  [[nodiscard]] const OptionalValue& optional() const { return std::get<OptionalValue>(*this); }
};

/// What kind of value v is ("tensor(float)", "seq(tensor(float))", "optional(...)", "empty optional").
[[nodiscard]] std::string describe(const Value& v);

/// Value equality as the ONNX backend tests compare: same kind; tensors of the same dtype and
/// shape with floating-point values within rtol/atol (|a - b| <= atol + rtol * |b|), integers,
/// bools and strings exactly; sequences by length and element by element; optionals by
/// presence and content. On a difference, returns false and describes it in `why`.
[[nodiscard]] bool all_close(const Value& actual, const Value& expected, double rtol, double atol,
                             std::string* why = nullptr);

}  // namespace tseq::onnx
