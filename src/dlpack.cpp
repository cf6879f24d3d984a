// DLPack import and export: both directions share the payload (docs/embedding.md).

#include "tseq/dlpack.hpp"

#include <climits>
#include <cstdint>
#include <cstring>
#include <memory>
#include <sstream>
#include <string>
#include <utility>

#include <boost/container/small_vector.hpp>

#if defined(DLPACK_MAJOR_VERSION) || (defined(DLPACK_VERSION) && DLPACK_VERSION >= 80)
#define TSEQ_DLPACK_HAS_BOOL 1  // kDLBool arrived in DLPack 0.8
#else
#define TSEQ_DLPACK_HAS_BOOL 0
#endif

namespace tseq {

namespace {

constexpr const char* kImport = "from_dlpack";

DLDataType dl(std::uint8_t code, std::uint8_t bits) noexcept { return DLDataType{code, bits, 1}; }

// DLDevice::device_type is read and written as the integer it is: a producer may send a code
// outside the DLPack version's enum (a newer device such as Hexagon = 16, or garbage), and
// loading such a value as DLDeviceType is undefined behaviour.
static_assert(sizeof(DLDeviceType) == sizeof(std::int32_t), "DLDeviceType is stored as a 32-bit integer");
std::int32_t device_code(const DLDevice& d) noexcept {
  std::int32_t c = 0;
  std::memcpy(&c, &d.device_type, sizeof c);
  return c;
}
void set_device_code(DLDevice& d, std::int32_t c) noexcept { std::memcpy(&d.device_type, &c, sizeof c); }

std::string code_name(std::uint8_t code) {
  switch (code) {
    case kDLInt:
      return "kDLInt";
    case kDLUInt:
      return "kDLUInt";
    case kDLFloat:
      return "kDLFloat";
    case kDLOpaqueHandle:
      return "kDLOpaqueHandle";
    case kDLBfloat:
      return "kDLBfloat";
    case kDLComplex:
      return "kDLComplex";
    case 6:
      return "kDLBool";
    default:
      return "unknown";
  }
}

// Devices whose `data` is an address (byte_offset can be folded into it), as opposed to an
// opaque handle (cl_mem, VkBuffer, MTLBuffer, ...). All device types, no default: -Wswitch
// names a new one here.
bool address_based(DeviceType t) noexcept {
  switch (t) {
    case DeviceType::Cpu:
    case DeviceType::Cuda:
    case DeviceType::CudaHost:
    case DeviceType::Rocm:
    case DeviceType::RocmHost:
    case DeviceType::CudaManaged:
    case DeviceType::OneApi:
      return true;
    case DeviceType::OpenCl:
    case DeviceType::Vulkan:
    case DeviceType::Metal:
    case DeviceType::Vpi:
    case DeviceType::ExtDev:
    case DeviceType::WebGpu:
    case DeviceType::Hexagon:
      return false;
  }
  return false;  // not a device type (from_dlpack checks is_valid first)
}

std::string dims_string(const std::int64_t* d, std::size_t n) {
  std::string r = "[";
  for (std::size_t i = 0; i < n; ++i) r += (i ? ", " : "") + std::to_string(d[i]);
  return r + "]";
}

// What to_dlpack hands out: one allocation holding the managed tensor, the handle it keeps
// alive and the strides it points to.
struct Export {
  DLManagedTensor managed{};
  Tensor tensor;
  boost::container::small_vector<std::int64_t, 6> strides;
};

void delete_export(DLManagedTensor* m) noexcept { delete static_cast<Export*>(m->manager_ctx); }

// Owner of an imported tensor: calls the producer's deleter once.
struct ManagedOwner {
  DLManagedTensor* m;
  explicit ManagedOwner(DLManagedTensor* p) noexcept : m(p) {}
  ManagedOwner(ManagedOwner&& o) noexcept : m(std::exchange(o.m, nullptr)) {}
  ManagedOwner(const ManagedOwner&) = delete;
  ManagedOwner& operator=(const ManagedOwner&) = delete;
  ManagedOwner& operator=(ManagedOwner&&) = delete;
  ~ManagedOwner() {
    if (m != nullptr && m->deleter != nullptr) m->deleter(m);
  }
};

// True if `m` is one of ours, exactly as to_dlpack made it.
bool unchanged_export(const DLManagedTensor* m) noexcept {
  if (m->deleter != &delete_export || m->manager_ctx == nullptr) return false;
  const auto* e = static_cast<const Export*>(m->manager_ctx);
  const DLTensor& d = m->dl_tensor;
  const Tensor& t = e->tensor;
  return &e->managed == m && d.data == t.data() && d.byte_offset == 0 &&
         device_code(d.device) == static_cast<std::int32_t>(t.device().type) && d.device.device_id == t.device().id &&
         d.ndim >= 0 && static_cast<std::size_t>(d.ndim) == t.rank() && d.shape == t.shape().dims().data() &&
         d.strides == e->strides.data();
}

}  // namespace

std::optional<DLDataType> to_dlpack_dtype(DataType t) noexcept {
  const detail::dtype_info* i = detail::find_dtype(t);
  if (i == nullptr) return std::nullopt;
  const auto bits = static_cast<std::uint8_t>(8 * i->size);
  switch (i->kind) {
    case DTypeKind::floating:
      return dl(kDLFloat, bits);
    case DTypeKind::signed_integer:
      return dl(kDLInt, bits);
    case DTypeKind::unsigned_integer:
      return dl(kDLUInt, bits);
    case DTypeKind::complex:
      return dl(kDLComplex, bits);
#if TSEQ_DLPACK_HAS_BOOL
    case DTypeKind::boolean:
      return dl(kDLBool, 8);
    case DTypeKind::string:
#else
    case DTypeKind::boolean:  // kDLBool arrived in DLPack 0.8
    case DTypeKind::string:
#endif
      return std::nullopt;
  }
  return std::nullopt;
}

DataType from_dlpack_dtype(DLDataType t) {
  if (t.lanes == 1) {
    for (DataType d : all_dtypes) {
      const auto x = to_dlpack_dtype(d);
      if (x && x->code == t.code && x->bits == t.bits) return d;
    }
  }
  const std::string what = "DLPack type (code " + std::to_string(t.code) + " " + code_name(t.code) + ", bits " +
                           std::to_string(t.bits) + ", lanes " + std::to_string(t.lanes) + ")";
  if (t.lanes != 1) {
    throw TypeError(std::string(kImport) + ": " + what + " is a vector type; only lanes == 1 is supported");
  }
  throw TypeError(std::string(kImport) + ": " + what +
                  " is not a sequence element type (supported: kDLFloat 16/32/64, kDLInt and kDLUInt 8/16/32/64, "
                  "kDLComplex 64/128" +
                  (TSEQ_DLPACK_HAS_BOOL ? ", kDLBool 8)" : ")"));
}

Tensor from_dlpack(DLManagedTensor* managed) {
  if (managed == nullptr) throw Error(std::string(kImport) + ": the DLManagedTensor pointer is null");
  if (unchanged_export(managed)) {  // our own export coming back: no allocation
    auto* e = static_cast<Export*>(managed->manager_ctx);
    Tensor t = std::move(e->tensor);
    delete e;
    return t;
  }
  const DLTensor& d = managed->dl_tensor;
  if (d.ndim < 0) throw ShapeError(std::string(kImport) + ": ndim is " + std::to_string(d.ndim) + "; it must be >= 0");
  const auto rank = static_cast<std::size_t>(d.ndim);
  if (rank > 0 && d.shape == nullptr) {
    throw ShapeError(std::string(kImport) + ": shape is null but ndim is " + std::to_string(d.ndim));
  }
  const DataType dtype = from_dlpack_dtype(d.dtype);
  const Device device{static_cast<DeviceType>(device_code(d.device)), d.device.device_id};
  if (!is_valid(device.type) || device.id < 0) {
    throw Error(std::string(kImport) + ": device (type " + std::to_string(static_cast<std::int32_t>(device.type)) +
                ", id " + std::to_string(device.id) + ") is not a DLPack device (types 1-4 and 7-16, id >= 0)");
  }
  // Dimensions and element count, checked before anything is built from them.
  std::int64_t n = 1;
  for (std::size_t i = 0; i < rank; ++i) {
    const std::int64_t x = d.shape[i];
    if (x < 0) {
      throw ShapeError(std::string(kImport) + ": dimension " + std::to_string(i) + " of shape " +
                       dims_string(d.shape, rank) + " is negative");
    }
    if (x != 0 && n > INT64_MAX / x) {
      throw ShapeError(std::string(kImport) + ": shape " + dims_string(d.shape, rank) +
                       " has more elements than fit in int64");
    }
    n *= x;
  }
  if (d.strides != nullptr && n != 0) {
    std::int64_t expected = 1;
    for (std::size_t i = rank; i-- > 0;) {
      if (d.shape[i] != 1 && d.strides[i] != expected) {
        throw ShapeError(std::string(kImport) + ": strides " + dims_string(d.strides, rank) + " of shape " +
                         dims_string(d.shape, rank) +
                         " are not compact row-major; tseq adopts only compact row-major tensors");
      }
      expected *= d.shape[i];
    }
  }
  if (d.data == nullptr && n != 0) {
    throw Error(std::string(kImport) + ": data is null but shape " + dims_string(d.shape, rank) + " has " +
                std::to_string(n) + " elements");
  }
  const void* data = d.data;
  if (d.byte_offset != 0) {
    if (!address_based(device.type)) {
      throw Error(std::string(kImport) + ": byte_offset " + std::to_string(d.byte_offset) + " on " + to_string(device) +
                  ", whose data is an opaque handle, is not supported (only 0)");
    }
    const auto base = reinterpret_cast<std::uintptr_t>(d.data);
    if (d.data == nullptr || d.byte_offset > UINTPTR_MAX - base) {
      throw Error(std::string(kImport) + ": byte_offset " + std::to_string(d.byte_offset) +
                  " does not fit the data pointer");
    }
    data = static_cast<const std::byte*>(d.data) + d.byte_offset;
  }
  Shape shape(std::span<const std::int64_t>(d.shape, rank));
  ManagedOwner owner(managed);
  try {
    return Tensor::adopt(dtype, std::move(shape), data, device, std::move(owner));
  } catch (...) {
    owner.m = nullptr;  // not taken: the caller still owns `managed`
    throw;
  }
}

DLManagedTensor* to_dlpack(Tensor t) {
  const auto code = to_dlpack_dtype(t.dtype());
  if (!code) {
    throw TypeError(t.dtype() == DataType::String
                        ? "to_dlpack: string tensors cannot travel through DLPack (their elements are std::string "
                          "objects, not plain memory)"
                        : "to_dlpack: " + dtype_name(t.dtype()) + " has no DLPack type code in DLPack " +
                              std::to_string(DLPACK_VERSION / 100) + "." + std::to_string(DLPACK_VERSION % 100 / 10) +
                              " (kDLBool arrived in 0.8)");
  }
  if (t.rank() > static_cast<std::size_t>(INT_MAX)) throw ShapeError("to_dlpack: rank does not fit DLPack's int ndim");
  auto owned = std::make_unique<Export>();  // released to the consumer at the end
  Export* e = owned.get();
  e->tensor = std::move(t);
  const Shape& shape = e->tensor.shape();
  e->strides.resize(shape.rank());
  // Row-major strides, a zero dimension counted as 1 (as numpy does). num_elements() fitting
  // int64 does not bound them when a dimension is 0 ([0, 2^40, 2^40]): checked.
  std::int64_t stride = 1;
  for (std::size_t i = shape.rank(); i-- > 0;) {
    e->strides[i] = stride;
    const std::int64_t extent = shape[i] == 0 ? 1 : shape[i];
    if (i > 0 && stride > INT64_MAX / extent) {
      throw ShapeError("to_dlpack: the row-major strides of shape " + to_string(shape) +
                       " do not fit int64 (DLPack's stride type)");
    }
    stride *= extent;
  }
  DLTensor& d = e->managed.dl_tensor;
  d.data = const_cast<void*>(e->tensor.data());
  d.device.device_id = e->tensor.device().id;
  set_device_code(d.device, static_cast<std::int32_t>(e->tensor.device().type));
  d.ndim = static_cast<int>(shape.rank());
  d.dtype = *code;
  d.shape = const_cast<std::int64_t*>(shape.dims().data());  // immutable; lives with the handle
  d.strides = e->strides.data();
  d.byte_offset = 0;
  e->managed.manager_ctx = e;
  e->managed.deleter = &delete_export;
  return &owned.release()->managed;
}

}  // namespace tseq
