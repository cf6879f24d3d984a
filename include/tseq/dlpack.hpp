#pragma once

/// @file
/// Zero-copy exchange of tensors with other frameworks through DLPack (dlpack/dlpack.h, the
/// version Debian's libdlpack-dev ships: 0.6). Both directions share the payload: no element
/// is copied, the data pointer stays the same. docs/embedding.md has the ownership rules.
///
/// Element types: float16/32/64, int8/16/32/64, uint8/16/32/64 and complex64/128 map to
/// DLPack's kDLFloat/kDLInt/kDLUInt/kDLComplex with lanes == 1. bool maps to kDLBool only
/// with a dlpack.h that defines it (0.8 or later); with 0.6 a bool tensor cannot travel.
/// string tensors never can (DLPack describes plain memory).

#include <dlpack/dlpack.h>

#include <optional>

#include "tseq/tensor.hpp"

namespace tseq {

/// The DLPack type of an element type, or nullopt when DLPack (this header version) cannot
/// express it (string; bool before DLPack 0.8).
[[nodiscard]] std::optional<DLDataType> to_dlpack_dtype(DataType t) noexcept;

/// The element type of a DLPack type. Throws TypeError naming the code, bits and lanes when
/// it is not one of the element types above (bfloat16, opaque handles, lanes != 1, bits that
/// do not match the code).
[[nodiscard]] DataType from_dlpack_dtype(DLDataType t);

/// Takes a DLManagedTensor from its producer, without copying: the Tensor views
/// `dl_tensor.data + byte_offset` on `dl_tensor.device`, and `managed->deleter(managed)` is
/// called exactly once, when the last handle sharing the payload goes, on whichever thread
/// drops it (never if the deleter is null). One allocation (the tensor header); none when
/// `managed` came from to_dlpack and is unchanged (the original tensor comes back).
///
/// Accepted: strides null or compact row-major (a dimension of extent 1, and any tensor with
/// no elements, may have any stride); any byte_offset on host-readable and address-based
/// devices (cpu, cuda*, rocm*, oneapi), only 0 on handle-based ones (opencl, vulkan, metal,
/// vpi, ext_dev, webgpu, hexagon). Throws, naming the field and value: Error for a null
/// `managed`, a null data pointer with elements, an unknown device, a bad byte_offset or
/// misaligned host data; ShapeError for ndim < 0, a null shape, negative dims, an element
/// count that overflows, or other strides; TypeError for an element type as above.
///
/// On any throw nothing was taken: the caller still owns `managed` and must call its deleter.
/// The payload is treated as read-only (into_buffer copies it).
[[nodiscard]] Tensor from_dlpack(DLManagedTensor* managed);

/// A DLManagedTensor sharing t's payload (the data pointer is t.data()), with t's device,
/// shape and explicit row-major strides, byte_offset 0. Its deleter releases the one handle
/// it holds (and so, maybe, the payload and its owner); the consumer must call it exactly
/// once. The consumer must not write through `data`: tseq tensors are immutable. One
/// allocation. Throws TypeError for a string tensor, or a bool tensor with DLPack 0.6.
[[nodiscard]] DLManagedTensor* to_dlpack(Tensor t);

}  // namespace tseq
