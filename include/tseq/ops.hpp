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

#include <cstdint>
#include <optional>
#include <span>

#include "tseq/sequence.hpp"
#include "tseq/tensor.hpp"

namespace tseq::ops {

/// SequenceEmpty: an empty sequence of `dtype`. O(1), no allocation. Throws TypeError for a
/// code that is not one of the 15 element types.
TensorSequence sequence_empty(DataType dtype = DataType::Float);

/// SequenceConstruct: the inputs, in order, sharing their payloads. O(n). Throws Error for no
/// input, TypeError (naming the index) when the element types differ.
TensorSequence sequence_construct(std::span<const Tensor> inputs);

/// SequenceInsert: `t` placed at `position` (int32/int64, one element; default: append), in
/// [-n, n], negative counting from the back. O(log n); only `t`'s handle is added. Throws
/// TypeError if t's type is not the sequence's, IndexError outside the range.
TensorSequence sequence_insert(const TensorSequence& s, const Tensor& t, const std::optional<Tensor>& position = {});
TensorSequence sequence_insert(TensorSequence&& s, const Tensor& t, const std::optional<Tensor>& position = {});
TensorSequence sequence_insert(const TensorSequence& s, const Tensor& t, std::int64_t position);
TensorSequence sequence_insert(TensorSequence&& s, const Tensor& t, std::int64_t position);

/// SequenceErase: the sequence without the tensor at `position` (default: the last), in
/// [-n, n-1]. O(log n); no payload is copied. Throws IndexError outside the range, including
/// any position on an empty sequence.
TensorSequence sequence_erase(const TensorSequence& s, const std::optional<Tensor>& position = {});
TensorSequence sequence_erase(TensorSequence&& s, const std::optional<Tensor>& position = {});
TensorSequence sequence_erase(const TensorSequence& s, std::int64_t position);
TensorSequence sequence_erase(TensorSequence&& s, std::int64_t position);

/// SequenceAt: the tensor at `position`, in [-n, n-1] (shares its payload). O(log n).
/// Throws IndexError outside the range, including any position on an empty sequence.
Tensor sequence_at(const TensorSequence& s, const Tensor& position);
Tensor sequence_at(const TensorSequence& s, std::int64_t position);

/// SequenceLength: n as an int64 scalar. O(1).
Tensor sequence_length(const TensorSequence& s);

/// SplitToSequence: `input` cut along `axis` (in [-r, r-1]) into new tensors. Without
/// `split`: pieces of length 1, the axis removed when keepdims == 0. A scalar split s > 0:
/// pieces of s (the last holds the remainder). A 1-D split: one piece per entry (>= 0, zero
/// gives an empty piece), the entries summing to the axis length; keepdims is then ignored.
/// Copies the payload once (O(size of input)). Throws ShapeError for a scalar input, a split
/// that does not add up, a non-positive scalar split, a negative entry or a split of rank
/// >= 2; IndexError for the axis; TypeError for a split that is not int32/int64.
TensorSequence split_to_sequence(const Tensor& input, const std::optional<Tensor>& split = {}, std::int64_t axis = 0,
                                 std::int64_t keepdims = 1);

/// ConcatFromSequence: the tensors joined along `axis` (new_axis == 0, axis in [-r, r-1]; all
/// shapes equal but along axis) or stacked along a new axis (new_axis == 1, axis in
/// [-r-1, r] of the output; all shapes equal). Copies every payload once. Throws Error for an
/// empty sequence or a new_axis other than 0/1, IndexError for the axis, ShapeError (naming
/// the first mismatching tensor) for incompatible shapes.
Tensor concat_from_sequence(const TensorSequence& s, std::int64_t axis, std::int64_t new_axis = 0);

}  // namespace tseq::ops
