#pragma once

/// @file
/// Values that flow through an ONNX graph: a tensor, a sequence of tensors, or an optional of
/// either; their declared types; and reading them from serialized protobuf bytes and files
/// (parse_value, load_value), within ReadLimits. Declares nothing outside namespace tseq (no
/// protobuf type: tseq/onnx/proto.hpp converts protobuf messages).

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <memory>
#include <memory_resource>
#include <span>
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

/// Bounds on reading a value from protobuf bytes (parse_value, load_value). Each is checked
/// before the memory it guards is allocated: the file's size before it is read, the memory
/// parsing would take by a walk over the bytes before protobuf parses them, and each tensor's
/// rank, elements and bytes before it is built. The defaults bound only what protobuf itself
/// cannot do (a file of 2 GiB or more). Going over a limit is a tseq::Error naming the file,
/// the value and the limit. SessionOptions::read_limits() gives a run's limits in this form.
struct ReadLimits {
  /// Bytes of the file or buffer (protobuf parses at most 2 GiB - 1).
  std::int64_t max_file_bytes = std::numeric_limits<std::int32_t>::max();
  /// Estimated memory of the parsed message and the value built from it.
  std::int64_t max_bytes = std::numeric_limits<std::int64_t>::max();
  /// Elements of one tensor.
  std::int64_t max_tensor_elements = std::numeric_limits<std::int64_t>::max();
  /// Bytes of one tensor (string characters included).
  std::int64_t max_tensor_bytes = std::numeric_limits<std::int64_t>::max();
  /// Tensors in one sequence.
  std::int64_t max_sequence_length = std::numeric_limits<std::int64_t>::max();
};

/// Parses serialized bytes as the message that `type` calls for (TensorProto, SequenceProto or
/// OptionalProto) and converts it, within `limits`. Bytes holding fields the message does not
/// have are refused (a TensorProto where a SequenceProto is declared would otherwise parse as
/// an empty sequence). std::bad_alloc becomes an Error naming the context.
[[nodiscard]] Value parse_value(std::span<const std::byte> bytes, const ValueType& type, std::string_view context,
                                const ReadLimits& limits, std::pmr::memory_resource* resource = nullptr);
/// Same, with the default ReadLimits.
[[nodiscard]] Value parse_value(std::span<const std::byte> bytes, const ValueType& type, std::string_view context,
                                std::pmr::memory_resource* resource = nullptr);

/// Reads a .pb file (read_file) and parses it as parse_value does; the file name is the error
/// context.
[[nodiscard]] Value load_value(const std::filesystem::path& file, const ValueType& type, const ReadLimits& limits,
                               std::pmr::memory_resource* resource = nullptr);
/// Same, with the default ReadLimits.
[[nodiscard]] Value load_value(const std::filesystem::path& file, const ValueType& type,
                               std::pmr::memory_resource* resource = nullptr);

/// The whole content of a regular file of at most `max_bytes` bytes. The file is opened
/// without blocking and checked before anything is read: a FIFO, a device (/dev/zero), a
/// folder or a file over `max_bytes` is an Error naming the file and the reason, as is a file
/// that cannot be opened or read, or changes size while read. Symbolic links are followed.
[[nodiscard]] std::string read_file(const std::filesystem::path& file,
                                    std::int64_t max_bytes = std::numeric_limits<std::int32_t>::max());

}  // namespace tseq::onnx
