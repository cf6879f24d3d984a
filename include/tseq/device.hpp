#pragma once

/// @file
/// tseq::Device: where a tensor's payload lives, with DLPack's device type codes. tseq's own
/// tensors are always on the host; adopted tensors (Tensor::adopt, from_dlpack) carry the
/// device their owner names. docs/embedding.md has the rules.

#include <cstdint>
#include <iosfwd>
#include <string>

namespace tseq {

/// Device kinds, with the codes of DLPack's DLDeviceType (dlpack.h), so that a Device converts
/// to and from DLPack by value.
enum class DeviceType : std::int32_t {
  Cpu = 1,           ///< host memory
  Cuda = 2,          ///< CUDA device memory
  CudaHost = 3,      ///< CUDA pinned host memory (host-readable)
  OpenCl = 4,        ///< OpenCL buffer (an opaque cl_mem handle)
  Vulkan = 7,        ///< Vulkan buffer
  Metal = 8,         ///< Apple Metal buffer
  Vpi = 9,           ///< Verilog simulator buffer
  Rocm = 10,         ///< ROCm (HIP) device memory
  RocmHost = 11,     ///< ROCm pinned host memory (host-readable)
  ExtDev = 12,       ///< a reserved extension device
  CudaManaged = 13,  ///< CUDA managed (unified) memory
  OneApi = 14,       ///< oneAPI (SYCL) unified shared memory
  WebGpu = 15,       ///< WebGPU buffer
  Hexagon = 16,      ///< Qualcomm Hexagon DSP memory
};

/// True for the codes listed in DeviceType.
[[nodiscard]] constexpr bool is_valid(DeviceType t) noexcept {
  const auto c = static_cast<std::int32_t>(t);
  return (c >= 1 && c <= 4) || (c >= 7 && c <= 16);
}

/// A device: its kind and an ordinal (which GPU). The default is the host (cpu:0).
struct Device {
  DeviceType type = DeviceType::Cpu;
  std::int32_t id = 0;

  /// The host, where every tensor tseq creates lives.
  [[nodiscard]] static constexpr Device cpu() noexcept { return {}; }
  /// CUDA device `ordinal`.
  [[nodiscard]] static constexpr Device cuda(std::int32_t ordinal = 0) noexcept { return {DeviceType::Cuda, ordinal}; }

  /// True if the CPU may read this memory directly: cpu, cuda_host and rocm_host (pinned host
  /// memory). tseq reads or writes payloads only on such devices. Managed/unified memory is not
  /// counted (reading it from the host while a device kernel runs is undefined on some GPUs).
  [[nodiscard]] constexpr bool is_host_readable() const noexcept {
    return type == DeviceType::Cpu || type == DeviceType::CudaHost || type == DeviceType::RocmHost;
  }

  friend constexpr bool operator==(const Device&, const Device&) noexcept = default;
};

/// "cpu", "cuda", "cuda_host", "opencl", "vulkan", "metal", "vpi", "rocm", "rocm_host",
/// "ext_dev", "cuda_managed", "oneapi", "webgpu", "hexagon"; "device_type(N)" for another code.
[[nodiscard]] std::string device_type_name(DeviceType t);

/// "cuda:0", "cpu:0".
[[nodiscard]] std::string to_string(const Device& d);
std::ostream& operator<<(std::ostream& os, const Device& d);

}  // namespace tseq
