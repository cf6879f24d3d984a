// Device names: device_type_name and the text of a tseq::Device.

#include "tseq/device.hpp"

#include <cstdint>
#include <ostream>
#include <string>

namespace tseq {

std::string device_type_name(DeviceType t) {
  switch (t) {
    case DeviceType::Cpu:
      return "cpu";
    case DeviceType::Cuda:
      return "cuda";
    case DeviceType::CudaHost:
      return "cuda_host";
    case DeviceType::OpenCl:
      return "opencl";
    case DeviceType::Vulkan:
      return "vulkan";
    case DeviceType::Metal:
      return "metal";
    case DeviceType::Vpi:
      return "vpi";
    case DeviceType::Rocm:
      return "rocm";
    case DeviceType::RocmHost:
      return "rocm_host";
    case DeviceType::ExtDev:
      return "ext_dev";
    case DeviceType::CudaManaged:
      return "cuda_managed";
    case DeviceType::OneApi:
      return "oneapi";
    case DeviceType::WebGpu:
      return "webgpu";
    case DeviceType::Hexagon:
      return "hexagon";
  }
  return "device_type(" + std::to_string(static_cast<std::int32_t>(t)) + ")";
}

std::string to_string(const Device& d) { return device_type_name(d.type) + ":" + std::to_string(d.id); }

std::ostream& operator<<(std::ostream& os, const Device& d) { return os << to_string(d); }

}  // namespace tseq
