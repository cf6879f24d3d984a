// at::Tensor <-> tseq::Tensor without copying (tseq/torch.hpp, docs/torch.md).

#include "convert.hpp"

#include <ATen/ops/from_blob.h>
#include <c10/core/Storage.h>

#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "tseq/error.hpp"
#include "tseq/torch.hpp"

namespace tseq::torch {

namespace {

// The owner of a payload tseq took from torch: the at::Tensor itself (returned by to_torch)
// and its storage (which a later set_ on the tensor cannot take away). The storage is made
// non-resizable while held, so its memory cannot be reallocated under tseq's view.
struct TorchOwner {
  at::Tensor tensor;
  c10::Storage storage;
};
static_assert(std::is_nothrow_move_constructible_v<TorchOwner> && std::is_nothrow_destructible_v<TorchOwner>);

std::string sizes_text(c10::IntArrayRef v) {
  return to_string(Shape(std::span<const std::int64_t>(v.data(), v.size())));
}

c10::Device torch_device(Device d, std::string_view what) {
  const auto index = static_cast<c10::DeviceIndex>(d.id);
  if (d.id > std::numeric_limits<c10::DeviceIndex>::max()) {
    throw DeviceError(std::string(what) + ": device " + to_string(d) + " has an ordinal torch cannot hold (at most " +
                      std::to_string(std::numeric_limits<c10::DeviceIndex>::max()) + ")");
  }
  switch (d.type) {
    case DeviceType::Cpu:
    case DeviceType::CudaHost:  // pinned host memory: a CPU tensor to torch
    case DeviceType::RocmHost:
      return c10::Device(c10::DeviceType::CPU);
    case DeviceType::Cuda:
    case DeviceType::CudaManaged:
      return c10::Device(c10::DeviceType::CUDA, index);
    case DeviceType::Rocm:
      return c10::Device(c10::DeviceType::HIP, index);
    case DeviceType::Vulkan:
      return c10::Device(c10::DeviceType::Vulkan, index);
    case DeviceType::Metal:
      return c10::Device(c10::DeviceType::Metal, index);
    case DeviceType::OneApi:
      return c10::Device(c10::DeviceType::XPU, index);
    case DeviceType::OpenCl:  // all device types, no default: -Wswitch names a new one here
    case DeviceType::Vpi:
    case DeviceType::ExtDev:
    case DeviceType::WebGpu:
    case DeviceType::Hexagon:
      break;
  }
  throw DeviceError(std::string(what) + ": a tensor on " + to_string(d) + " has no torch device");
}

}  // namespace

// The ONNX types with a torch 1.13 counterpart, both ways (uint16/32/64 and string have none).
constexpr std::pair<DataType, c10::ScalarType> dtype_pairs[] = {
    {DataType::Float, c10::ScalarType::Float},
    {DataType::Uint8, c10::ScalarType::Byte},
    {DataType::Int8, c10::ScalarType::Char},
    {DataType::Int16, c10::ScalarType::Short},
    {DataType::Int32, c10::ScalarType::Int},
    {DataType::Int64, c10::ScalarType::Long},
    {DataType::Bool, c10::ScalarType::Bool},
    {DataType::Float16, c10::ScalarType::Half},
    {DataType::Double, c10::ScalarType::Double},
    {DataType::Complex64, c10::ScalarType::ComplexFloat},
    {DataType::Complex128, c10::ScalarType::ComplexDouble},
};

std::optional<c10::ScalarType> torch_dtype(DataType t) noexcept {
  for (const auto& [onnx, st] : dtype_pairs) {
    if (onnx == t) return st;
  }
  return std::nullopt;
}

std::optional<DataType> dtype_from_torch(c10::ScalarType t) noexcept {
  for (const auto& [onnx, st] : dtype_pairs) {
    if (st == t) return onnx;
  }
  return std::nullopt;
}

Device device_from_torch(c10::Device d) {
  const std::int32_t id = d.has_index() ? d.index() : 0;
  switch (d.type()) {
    case c10::DeviceType::CPU:
      return Device::cpu();
    case c10::DeviceType::CUDA:
      return Device{DeviceType::Cuda, id};
    case c10::DeviceType::HIP:
      return Device{DeviceType::Rocm, id};
    case c10::DeviceType::Vulkan:
      return Device{DeviceType::Vulkan, id};
    case c10::DeviceType::Metal:
      return Device{DeviceType::Metal, id};
    case c10::DeviceType::XPU:
      return Device{DeviceType::OneApi, id};
    default:
      throw DeviceError("from_torch: torch device '" + d.str() +
                        "' has no DLPack device (tseq holds cpu, cuda, hip, vulkan, metal and xpu tensors)");
  }
}

namespace detail {

// All 15 cases, no default: -Wswitch names a new element type here.
DataType storage_dtype(DataType t) noexcept {
  switch (t) {
    case DataType::Uint16:
      return DataType::Int16;
    case DataType::Uint32:
      return DataType::Int32;
    case DataType::Uint64:
      return DataType::Int64;
    case DataType::Float:
    case DataType::Uint8:
    case DataType::Int8:
    case DataType::Int16:
    case DataType::Int32:
    case DataType::Int64:
    case DataType::String:
    case DataType::Bool:
    case DataType::Float16:
    case DataType::Double:
    case DataType::Complex64:
    case DataType::Complex128:
      return t;
  }
  return t;
}

Tensor from_torch(const at::Tensor& t, std::string_view what, std::optional<DataType> as) {
  const std::string w(what);
  if (!t.defined()) throw TypeError(w + ": the at::Tensor is undefined (it holds no tensor)");
  if (t.layout() != c10::kStrided) {
    std::ostringstream os;
    os << w << ": layout " << t.layout() << " is not supported (only strided tensors; call .to_dense() first)";
    throw TypeError(os.str());
  }
  if (!t.has_storage()) throw TypeError(w + ": the tensor has no storage (a wrapper or nested tensor)");
  if (t.is_neg() || t.is_conj()) {
    throw TypeError(w + ": the tensor has a pending " + (t.is_neg() ? "negation" : "conjugation") +
                    " bit (call resolve_neg() / resolve_conj() first)");
  }
  const auto own = dtype_from_torch(t.scalar_type());
  if (!own) {
    throw TypeError(w + ": element type " + std::string(c10::toString(t.scalar_type())) +
                    " has no ONNX counterpart (tseq takes float, double, float16, int8/16/32/64, uint8, "
                    "bool, complex64 and complex128 tensors)");
  }
  const DataType dtype = as ? *as : *own;
  if (as && storage_dtype(*as) != *own) {
    throw TypeError(w + ": a " + dtype_name(*as) + " tensor is stored as " + dtype_name(storage_dtype(*as)) + ", not " +
                    dtype_name(*own));
  }
  const Device device = device_from_torch(t.device());
  if (!t.is_contiguous()) {
    throw ShapeError(w + ": the tensor (sizes " + sizes_text(t.sizes()) + ", strides " + sizes_text(t.strides()) +
                     ") is not C-contiguous; tseq takes compact row-major memory only (call .contiguous() first)");
  }
  Shape shape(std::span<const std::int64_t>(t.sizes().data(), t.sizes().size()));
  const void* data = t.numel() == 0 ? nullptr : t.data_ptr();
  if (dtype == DataType::Bool && device.is_host_readable() && data != nullptr) {
    tseq::detail::check_bool_bytes(data, static_cast<std::size_t>(t.numel()), w);
  }
  c10::StorageImpl* impl = t.storage().unsafeGetStorageImpl();
  Tensor out = Tensor::adopt(dtype, std::move(shape), data, device, TorchOwner{t, t.storage()});
  // tseq's view must not dangle. Written only while still set: threads inserting the same
  // tensor again then only read the flag.
  if (impl->resizable()) impl->set_resizable(false);
  return out;
}

at::Tensor to_torch_bits(const Tensor& t) {
  const auto st = torch_dtype(storage_dtype(t.dtype()));
  if (!st) {
    throw TypeError("to_torch: a " + dtype_name(t.dtype()) +
                    " tensor has no PyTorch type (PyTorch 1.13 has no uint16, uint32, uint64 or string tensors)");
  }
  if (const auto* o = t.owner<TorchOwner>()) {
    // The original at::Tensor, unless torch changed it since (set_, resize_, a storage swap).
    const at::Tensor& a = o->tensor;
    const void* data = a.numel() == 0 ? nullptr : a.data_ptr();
    if (a.scalar_type() == *st && data == (t.size() == 0 ? nullptr : t.data()) && a.is_contiguous() &&
        a.sizes().size() == t.rank() && std::equal(a.sizes().begin(), a.sizes().end(), t.shape().dims().begin())) {
      return a;
    }
  }
  std::vector<std::int64_t> sizes(t.shape().dims().begin(), t.shape().dims().end());
  const auto options = at::TensorOptions().dtype(*st).device(torch_device(t.device(), "to_torch"));
  // The deleter's context: one more handle to t's payload, released when torch frees the storage
  // (context() owns it from here on, also if make_tensor throws).
  auto* handle = new Tensor(t);
  return at::for_blob(const_cast<void*>(t.data()), sizes)
      .context(handle, [](void* p) { delete static_cast<Tensor*>(p); })
      .options(options)
      .make_tensor();
}

}  // namespace detail

Tensor from_torch(const at::Tensor& t) { return detail::from_torch(t, "from_torch"); }

at::Tensor to_torch(const Tensor& t) {
  if (detail::storage_dtype(t.dtype()) != t.dtype()) {
    throw TypeError("to_torch: a " + dtype_name(t.dtype()) +
                    " tensor has no PyTorch type (PyTorch 1.13 has no uint16, uint32, uint64 or string tensors)");
  }
  return detail::to_torch_bits(t);
}

}  // namespace tseq::torch
