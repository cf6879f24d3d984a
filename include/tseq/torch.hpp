// tseq inside PyTorch (docs/torch.md): at::Tensor <-> tseq::Tensor without copying, and the
// TorchScript class torch.classes.tseq.TensorSequence with the operators torch.ops.tseq.*
// (registered by libtseq_torch when it is loaded: linked into a program, or
// torch.ops.load_library / `import tseq.torch` from Python).
//
// Built when CMake finds Torch (TSEQ_WITH_TORCH; Debian: libtorch-dev); target tseq::torch,
// always a shared library (TorchScript loads it at run time).
#pragma once

#include <ATen/core/Tensor.h>
#include <ATen/core/ivalue.h>
#include <c10/core/ScalarType.h>
#include <torch/custom_class.h>

#include <optional>
#include <string_view>

#include "tseq/device.hpp"
#include "tseq/dtype.hpp"
#include "tseq/sequence.hpp"
#include "tseq/tensor.hpp"

namespace tseq::torch {

/// The qualified TorchScript name of the sequence class (what schemas and
/// c10::IValue::type() say).
inline constexpr std::string_view script_class_name = "__torch__.torch.classes.tseq.TensorSequence";

/// torch's element type for `t`; nullopt for the ONNX types PyTorch 1.13 lacks (uint16,
/// uint32, uint64, string). O(1), no allocation.
[[nodiscard]] std::optional<c10::ScalarType> torch_dtype(DataType t) noexcept;

/// tseq's element type for `t`; nullopt for torch types without an ONNX counterpart
/// (bfloat16, quantized types, complex32, ...). O(1), no allocation.
[[nodiscard]] std::optional<DataType> dtype_from_torch(c10::ScalarType t) noexcept;

/// The tseq device of a torch device (cpu -> cpu, cuda:N -> cuda:N, hip:N -> rocm:N, ...).
/// Throws DeviceError for a torch device with no DLPack counterpart (meta, xla, ...).
[[nodiscard]] Device device_from_torch(c10::Device d);

/// A tseq tensor viewing `t`'s memory: no payload copy, one small allocation (the tensor
/// header). The header holds a handle to `t` (so the same at::Tensor, autograd state included,
/// comes back from to_torch) and to its storage; both are released exactly once, when the last
/// tseq handle goes, on the thread that drops it. While held, the storage is made
/// non-resizable (torch then refuses resize_ past its size, as numpy refuses to resize an
/// array whose memory is exported): tseq's view can never dangle. The device is kept.
///
/// Throws TypeError for an element type with no ONNX counterpart, a layout other than
/// strided (sparse, mkldnn), a tensor without storage, or a pending negation/conjugation
/// bit; ShapeError (naming the sizes and strides) for memory that is not C-contiguous
/// (call .contiguous() first: a copy the caller chooses); DeviceError for a device with no
/// DLPack code; Error for host bool elements other than the bytes 0 and 1 (checked: O(size)
/// for bool tensors only) or for misaligned data. `t` is never modified except for the
/// resizable flag.
[[nodiscard]] Tensor from_torch(const at::Tensor& t);

/// An at::Tensor viewing `t`'s memory: no payload copy. For a tensor made by from_torch this
/// is the original at::Tensor (the same TensorImpl) unless its sizes or memory were changed
/// since (set_, a shrinking resize_); otherwise a new tensor whose deleter holds a handle to
/// `t` (released exactly once, when torch drops the storage). A default-constructed tseq
/// tensor gives an empty float tensor of shape [0]. torch has no read-only tensors:
/// writing into the result changes the payload every sequence holding it sees (clone() first).
///
/// Throws TypeError for uint16, uint32, uint64 and string tensors (no PyTorch 1.13 type), and
/// whatever torch throws for a device it was not built for (as c10::Error).
[[nodiscard]] at::Tensor to_torch(const Tensor& t);

/// What TorchScript holds: one immutable tseq::TensorSequence. Copying the sequence out is
/// O(1) (one reference count).
class ScriptSequence final : public ::torch::CustomClassHolder {
 public:
  /// An empty sequence of floats (ONNX SequenceEmpty's default).
  ScriptSequence() : value_(DataType::Float) {}
  explicit ScriptSequence(TensorSequence s) noexcept : value_(std::move(s)) {}

  /// The sequence. Lives as long as this object.
  [[nodiscard]] const TensorSequence& value() const noexcept { return value_; }

  /// Replaces the sequence: only for an object nothing else references (the operators do it
  /// when the interpreter hands over its last reference).
  void reset(TensorSequence s) noexcept { value_ = std::move(s); }
  /// Moves the sequence out (leaving it empty): as for reset.
  [[nodiscard]] TensorSequence take() noexcept { return std::move(value_); }

 private:
  TensorSequence value_;
};

/// A new TorchScript object holding `s` (shares its tree: O(1), one allocation).
[[nodiscard]] c10::intrusive_ptr<ScriptSequence> to_script(TensorSequence s);

/// The same, as an IValue of type torch.classes.tseq.TensorSequence (what torch::jit::Module
/// methods take and return).
[[nodiscard]] c10::IValue to_ivalue(TensorSequence s);

/// The sequence inside an IValue of type torch.classes.tseq.TensorSequence (shares its tree:
/// O(1)). Throws TypeError naming the IValue's type for anything else.
[[nodiscard]] TensorSequence from_ivalue(const c10::IValue& v);

/// Makes sure the TorchScript class and operators are registered (they are, as soon as the
/// library is loaded): call it from a program that uses only torch::jit APIs, so that the
/// linker keeps libtseq_torch. Idempotent, thread-safe, never throws.
void register_library() noexcept;

}  // namespace tseq::torch
