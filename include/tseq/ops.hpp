#pragma once

/// @file
/// The ONNX sequence operators (opset 11+) on tseq::TensorSequence. Semantics, errors and
/// differences from ONNX Runtime and the ONNX reference: docs/ops.md.
///
/// Every operator leaves its inputs unchanged, also when it throws. Operators returning a
/// sequence have an overload taking the sequence by rvalue: a caller that gives up its
/// sequence (a graph executor at the value's last use) gets the update in place, without
/// allocation where the tree allows. Errors are tseq::TypeError, ShapeError, IndexError or
/// Error, with a message naming the operator, the bad value and the valid range.
///
/// Devices: the operators that only move handles (SequenceEmpty/Construct/Insert/Erase/At/
/// Length) accept tensors on any device, and one sequence may mix devices. Those that read
/// payload (SplitToSequence, ConcatFromSequence, and the position tensors of Insert/Erase/At)
/// throw DeviceError naming the operator and the device for memory the host cannot read.
/// Tensors an operator creates come from the given std::pmr::memory_resource (nullptr:
/// default_memory_resource()), which must outlive them.

#include <cstdint>
#include <memory_resource>
#include <optional>
#include <span>

#include "tseq/sequence.hpp"
#include "tseq/tensor.hpp"

namespace tseq::ops {

/// SequenceEmpty: an empty sequence of `dtype`. O(1), no allocation. Throws TypeError for a
/// code that is not one of the 15 element types.
[[nodiscard]] TensorSequence sequence_empty(DataType dtype = DataType::Float);

/// SequenceConstruct: the inputs, in order, sharing their payloads. O(n). Throws Error for no
/// input, TypeError (naming the index) when the element types differ.
[[nodiscard]] TensorSequence sequence_construct(std::span<const Tensor> inputs);

/// SequenceInsert: `t` placed at `position` (int32/int64, one element; default: append), in
/// [-n, n], negative counting from the back. O(log n); only `t`'s handle is added. Throws
/// TypeError if t's type is not the sequence's, IndexError outside the range.
[[nodiscard]] TensorSequence sequence_insert(const TensorSequence& s, const Tensor& t,
                                             const std::optional<Tensor>& position = {});
[[nodiscard]] TensorSequence sequence_insert(TensorSequence&& s, const Tensor& t,
                                             const std::optional<Tensor>& position = {});
[[nodiscard]] TensorSequence sequence_insert(const TensorSequence& s, const Tensor& t, std::int64_t position);
[[nodiscard]] TensorSequence sequence_insert(TensorSequence&& s, const Tensor& t, std::int64_t position);

/// SequenceErase: the sequence without the tensor at `position` (default: the last), in
/// [-n, n-1]. O(log n); no payload is copied. Throws IndexError outside the range, including
/// any position on an empty sequence.
[[nodiscard]] TensorSequence sequence_erase(const TensorSequence& s, const std::optional<Tensor>& position = {});
[[nodiscard]] TensorSequence sequence_erase(TensorSequence&& s, const std::optional<Tensor>& position = {});
[[nodiscard]] TensorSequence sequence_erase(const TensorSequence& s, std::int64_t position);
[[nodiscard]] TensorSequence sequence_erase(TensorSequence&& s, std::int64_t position);

/// SequenceAt: the tensor at `position`, in [-n, n-1] (shares its payload). O(log n).
/// Throws IndexError outside the range, including any position on an empty sequence.
[[nodiscard]] Tensor sequence_at(const TensorSequence& s, const Tensor& position);
[[nodiscard]] Tensor sequence_at(const TensorSequence& s, std::int64_t position);

/// SequenceLength: n as an int64 scalar (allocated from `resource`). O(1).
[[nodiscard]] Tensor sequence_length(const TensorSequence& s, std::pmr::memory_resource* resource = nullptr);

/// SplitToSequence: `input` cut along `axis` (in [-r, r-1]) into new tensors. Without
/// `split`: pieces of length 1, the axis removed when keepdims == 0. A scalar split s > 0:
/// pieces of s (the last holds the remainder). A 1-D split: one piece per entry (>= 0, zero
/// gives an empty piece), the entries summing to the axis length; keepdims is then ignored.
/// Copies the payload once (O(size of input)). Throws ShapeError for a scalar input, a split
/// that does not add up, a non-positive scalar split, a negative entry or a split of rank
/// >= 2; IndexError for the axis; TypeError for a split that is not int32/int64;
/// DeviceError if the input or split is not host-readable. The pieces come from `resource`.
[[nodiscard]] TensorSequence split_to_sequence(const Tensor& input, const std::optional<Tensor>& split = {},
                                               std::int64_t axis = 0, std::int64_t keepdims = 1,
                                               std::pmr::memory_resource* resource = nullptr);

/// ConcatFromSequence: the tensors joined along `axis` (new_axis == 0, axis in [-r, r-1]; all
/// shapes equal but along axis) or stacked along a new axis (new_axis == 1, axis in
/// [-r-1, r] of the output; all shapes equal). Copies every payload once. Throws Error for an
/// empty sequence or a new_axis other than 0/1, IndexError for the axis, ShapeError (naming
/// the first mismatching tensor) for incompatible shapes, DeviceError (naming the tensor)
/// for a tensor that is not host-readable. The result comes from `resource`.
[[nodiscard]] Tensor concat_from_sequence(const TensorSequence& s, std::int64_t axis, std::int64_t new_axis = 0,
                                          std::pmr::memory_resource* resource = nullptr);

}  // namespace tseq::ops
