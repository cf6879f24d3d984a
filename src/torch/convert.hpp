// Internal to libtseq_torch: the conversions the TorchScript library shares with convert.cpp.
#pragma once

#include <ATen/core/Tensor.h>

#include <optional>
#include <string_view>

#include "tseq/tensor.hpp"

namespace tseq::torch::detail {

// from_torch, with `what` starting error messages; `as` (when not nullopt) reads the memory as
// that ONNX type instead, which must have torch's element size (uint32 saved as int32).
Tensor from_torch(const at::Tensor& t, std::string_view what, std::optional<DataType> as = std::nullopt);

// to_torch, reading uint16/uint32/uint64 as int16/int32/int64 (for saving: torch 1.13 has no
// unsigned types past uint8). TypeError for strings.
at::Tensor to_torch_bits(const Tensor& t);

// The signed type of the same size for uint16/32/64; t itself otherwise.
DataType storage_dtype(DataType t) noexcept;

}  // namespace tseq::torch::detail
