#include "engine/runtime/devices.h"

#include <map>
#include <mutex>

#if Q8_WITH_OPENCL
#include "engine/opencl/opencl_backend.h"
#endif

namespace q8 {

#if Q8_WITH_OPENCL
namespace {

struct Opened {
  std::shared_ptr<OpenClDevice> device;
  std::unique_ptr<Backend> backend;
};

std::mutex& registry_mutex() {
  static std::mutex mutex;
  return mutex;
}

// Every device opened so far, by index: never released before the process ends.
Opened& opened(int index) {
  static std::map<int, Opened> devices;
  std::lock_guard<std::mutex> lock(registry_mutex());
  Opened& o = devices[index];
  if (!o.device) {
    std::shared_ptr<OpenClDevice> device = OpenClDevice::create(index);
    o.backend = make_opencl_backend(device);
    o.device = std::move(device);
  }
  return o;
}

}  // namespace

OpenClDevice& opencl_device(int index) { return *opened(index).device; }

const Backend& opencl_backend(int index) { return *opened(index).backend; }

void use_tuning(int index, const MmaTuning& tuning) { opened(index).device->use_mma_tuning(tuning); }
#endif

}  // namespace q8
