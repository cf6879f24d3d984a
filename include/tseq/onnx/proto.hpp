#pragma once

/// @file
/// Conversions between ONNX protobuf messages (TensorProto, SequenceProto, OptionalProto,
/// TypeProto, ModelProto) and tseq values and models. Every malformed input (bad bytes, a data
/// field that does not match the dtype, an element count that does not match the dims, an
/// unknown dtype, external data) throws tseq::Error whose message starts with the given
/// context (a file name), never crashes or reads out of bounds.
///
/// Tensors read from protos are allocated from the given std::pmr::memory_resource (nullptr:
/// tseq::default_memory_resource()), which must outlive them. Writing a tensor whose payload
/// is not host-readable throws DeviceError.
///
/// This header declares protobuf's namespace ::onnx (its message classes), so where it is
/// included `onnx::` after `using namespace tseq;` is ambiguous: spell tseq::onnx in full
/// there. Reading values from bytes or files (parse_value, load_value, read_file) is in
/// tseq/onnx/value.hpp, and running models in tseq/onnx/executor.hpp; neither declares ::onnx.

#include <memory_resource>
#include <string>
#include <string_view>

#include "tseq/onnx/executor.hpp"
#include "tseq/onnx/value.hpp"

namespace onnx {
class ModelProto;
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

/// The model a ModelProto describes (the proto is copied: the model keeps its own), checked as
/// Model::load checks a file; `name` is used in error messages. options.max_file_bytes and the
/// pre-parse estimate do not apply; the other LoadOptions limits do. The initializers are
/// allocated from options.memory_resource. (Formerly Model::from_proto: a member would put
/// protobuf's namespace ::onnx into tseq/onnx/executor.hpp.)
[[nodiscard]] Model from_proto(const ::onnx::ModelProto& proto, std::string_view name, const LoadOptions& options);
/// Same, with the default LoadOptions and initializers allocated from `resource` (nullptr:
/// tseq::default_memory_resource()), which must outlive the model.
[[nodiscard]] Model from_proto(const ::onnx::ModelProto& proto, std::string_view name,
                               std::pmr::memory_resource* resource = nullptr);

}  // namespace tseq::onnx
