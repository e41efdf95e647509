#include "engine/runtime/backends.h"

#include "engine/plan/cpu_int8/backend.h"
#include "engine/plan/reference/backend.h"
#include "engine/runtime/devices.h"
#if Q8_WITH_OPENCL
#include "engine/opencl/mma_tuning.h"
#endif

namespace q8 {

namespace {
[[maybe_unused]] [[noreturn]] void no_opencl(const std::string& device) {
  throw Error("--device " + device + ": this q8 was built without OpenCL (-DQ8_OPENCL=OFF)");
}
}  // namespace

int device_index(const std::string& device) {
  if (device == "cpu") return -1;
  if (device == "cpu-reference") return kCpuReference;
  if (device == "opencl") return 0;
  check(device.rfind("opencl:", 0) == 0 && device.size() > 7 && device.size() < 12 &&
            device.find_first_not_of("0123456789", 7) == std::string::npos,
        "--device " + device + ": expected cpu, cpu-reference, opencl or opencl:N");
  return std::stoi(device.substr(7));
}

BackendList backends_for(const std::string& device) {
  const int index = device_index(device);
  if (index == kCpuReference) return {&int8_reference_backend(), &cpu_backend()};
  if (index < 0) return {&cpu_int8_backend(), &int8_reference_backend(), &cpu_backend()};
#if Q8_WITH_OPENCL
  return {&opencl_backend(index), &cpu_int8_backend(), &int8_reference_backend(), &cpu_backend()};
#else
  no_opencl(device);
#endif
}

std::string describe_device(const std::string& device) {
#if Q8_WITH_OPENCL
  if (is_opencl_device(device)) {
    const int index = device_index(device);
    if (size_t(index) < list_devices().size()) {
      const OpenClDevice& d = opencl_device(index);
      std::string text = "opencl:" + std::to_string(index) + ": " + d.caps().describe();
      if (d.caps().tensor_cores()) text += "; qgemm_mma tiles " + d.mma_tuning().describe() + " (" + d.mma_tuning().source + ")";
      return text;
    }
  }
#endif
  return device;
}

std::string device_section(const std::string& device, bool required) {
  const int index = device_index(device);
  if (index < 0) return "";
#if Q8_WITH_OPENCL
  const std::vector<DeviceCaps> devices = list_devices();
  check(size_t(index) < devices.size(), "--device " + device + ": OpenCL device " + std::to_string(index) + " does not exist (" +
                                            std::to_string(devices.size()) + " found)");
  const DeviceCaps& caps = devices[size_t(index)];
  if (!required && !caps.tensor_cores()) return "";
  check(caps.tensor_cores(), "--device " + device + ": " + caps.describe() + " has no tuned kernel to record (qgemm_mma needs NVIDIA sm_80 or later)");
  return mma_tuning_section(caps, opencl_device(index).mma_tuning());
#else
  no_opencl(device);
#endif
}

}  // namespace q8
