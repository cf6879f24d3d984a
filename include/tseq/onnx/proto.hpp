#pragma once

/// @file
/// Conversions between ONNX protobuf messages (TensorProto, SequenceProto, OptionalProto,
/// TypeProto) and tseq values. Every malformed input (bad bytes, a data field that does not
/// match the dtype, an element count that does not match the dims, an unknown dtype, external
/// data) throws tseq::Error whose message starts with the given context (a file name), never
/// crashes or reads out of bounds.
///
/// Tensors read from protos are allocated from the given std::pmr::memory_resource (nullptr:
/// tseq::default_memory_resource()), which must outlive them. Writing a tensor whose payload
/// is not host-readable throws DeviceError.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <memory_resource>
#include <span>
#include <string>
#include <string_view>

#include "tseq/onnx/value.hpp"

namespace onnx {
class TensorProto;
class SequenceProto;
class OptionalProto;
class TypeProto;
}  // namespace onnx

namespace tseq::onnx {

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

/// The tensor a TensorProto describes (raw_data or the typed field for its dtype).
[[nodiscard]] Tensor from_proto(const ::onnx::TensorProto& p, std::string_view context,
                                std::pmr::memory_resource* resource = nullptr);
/// A TensorProto holding t (raw_data for numeric types, string_data for strings). Throws
/// DeviceError if t is not host-readable.
void to_proto(const Tensor& t, ::onnx::TensorProto& out, const std::string& name = {});

/// The sequence a SequenceProto describes; `declared` gives the element type, needed when the
/// sequence is empty (the bytes alone do not tell).
[[nodiscard]] TensorSequence from_proto(const ::onnx::SequenceProto& p, DataType declared, std::string_view context,
                                        std::pmr::memory_resource* resource = nullptr);
void to_proto(const TensorSequence& s, ::onnx::SequenceProto& out, const std::string& name = {});

/// The optional an OptionalProto describes, of declared type `declared`.
[[nodiscard]] OptionalValue from_proto(const ::onnx::OptionalProto& p, const ValueType& declared,
                                       std::string_view context, std::pmr::memory_resource* resource = nullptr);

/// The ValueType of a TypeProto; throws Error for types tseq does not support (maps, sparse
/// tensors, sequences of sequences, ...).
[[nodiscard]] ValueType from_proto(const ::onnx::TypeProto& p, std::string_view context);

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
