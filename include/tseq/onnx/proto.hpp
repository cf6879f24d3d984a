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
#include <filesystem>
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
/// OptionalProto) and converts it.
[[nodiscard]] Value parse_value(std::span<const std::byte> bytes, const ValueType& type, std::string_view context,
                                std::pmr::memory_resource* resource = nullptr);

/// Reads a .pb file and parses it as parse_value does; the file name is the error context.
[[nodiscard]] Value load_value(const std::filesystem::path& file, const ValueType& type,
                               std::pmr::memory_resource* resource = nullptr);

/// The whole content of a file. Throws Error naming the file if it cannot be read.
[[nodiscard]] std::string read_file(const std::filesystem::path& file);

}  // namespace tseq::onnx
