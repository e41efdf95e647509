#include "engine/opencl/device.h"

#include <algorithm>
#include <iterator>

#include "engine/ir/error.h"
#include "engine/opencl/kernel_sources.h"
#include "engine/opencl/mma_tuning.h"
#include "engine/opencl/program_cache.h"
#include "engine/opencl/select.h"

namespace q8 {

namespace {

// A string property through clGetPlatformInfo or clGetDeviceInfo; "" when the query fails.
template <typename Handle, typename Info>
std::string info_string(cl_int (*get)(Handle, Info, size_t, void*, size_t*), Handle h, Info what) {
  size_t size = 0;
  if (get(h, what, 0, nullptr, &size) != CL_SUCCESS) return "";
  std::string s(size, '\0');
  get(h, what, size, s.data(), nullptr);
  return s.c_str();
}

std::string platform_info(cl_platform_id p, cl_platform_info what) { return info_string(clGetPlatformInfo, p, what); }
std::string device_info(cl_device_id d, cl_device_info what) { return info_string(clGetDeviceInfo, d, what); }

template <typename T>
T device_value(cl_device_id d, cl_device_info what) {
  T v{};
  clGetDeviceInfo(d, what, sizeof v, &v, nullptr);
  return v;
}

struct Found {
  cl_platform_id platform;
  cl_device_id device;
  DeviceCaps caps;
};

std::vector<Found> find_devices() {
  cl_uint platforms = 0;
  if (clGetPlatformIDs(0, nullptr, &platforms) != CL_SUCCESS || platforms == 0) return {};
  std::vector<cl_platform_id> ids(platforms);
  clGetPlatformIDs(platforms, ids.data(), nullptr);
  std::vector<Found> found;
  for (cl_platform_id p : ids) {
    cl_uint count = 0;
    if (clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, nullptr, &count) != CL_SUCCESS || count == 0) continue;
    std::vector<cl_device_id> devices(count);
    clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, count, devices.data(), nullptr);
    for (cl_device_id d : devices) {
      DeviceCaps c;
      c.platform = platform_info(p, CL_PLATFORM_NAME);
      c.name = device_info(d, CL_DEVICE_NAME);
      c.vendor = device_info(d, CL_DEVICE_VENDOR);
      c.driver = device_info(d, CL_DRIVER_VERSION);
      c.version = device_info(d, CL_DEVICE_VERSION);
      c.extensions = device_info(d, CL_DEVICE_EXTENSIONS);
      c.compute_units = device_value<cl_uint>(d, CL_DEVICE_MAX_COMPUTE_UNITS);
      c.max_work_group = device_value<size_t>(d, CL_DEVICE_MAX_WORK_GROUP_SIZE);
      c.local_memory = device_value<cl_ulong>(d, CL_DEVICE_LOCAL_MEM_SIZE);
      c.global_memory = device_value<cl_ulong>(d, CL_DEVICE_GLOBAL_MEM_SIZE);
      c.nvidia = c.vendor.find("NVIDIA") != std::string::npos;
      if (c.nvidia && c.extensions.find("cl_nv_device_attribute_query") != std::string::npos)
        c.nv_sm = int(10 * device_value<cl_uint>(d, 0x4000) + device_value<cl_uint>(d, 0x4001));  // CL_DEVICE_COMPUTE_CAPABILITY_{MAJOR,MINOR}_NV
      const auto fp = device_value<cl_device_fp_config>(d, CL_DEVICE_SINGLE_FP_CONFIG);
      c.exact_divide = (fp & CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT) != 0;
      c.denormals = (fp & CL_FP_DENORM) != 0;
      found.push_back({p, d, c});
    }
  }
  return found;
}

// The program's source: the files others use first, in this order (abi.h's constants, the
// epilogue's arithmetic, exp, GELU, the weighted kernels' epilogue), then every other kernel file.
std::string program_source() {
  static const char* const kFirst[] = {"abi", "requantize", "exp", "gelu", "epilogue_activation", "epilogue"};
  std::string first[std::size(kFirst)], rest;
  for (const auto& [name, body] : kernel_sources) {
    const auto* at = std::find(std::begin(kFirst), std::end(kFirst), std::string_view(name));
    (at == std::end(kFirst) ? rest : first[at - std::begin(kFirst)]) += std::string(body) + "\n";
  }
  std::string source;
  for (const std::string& part : first) source += part;
  return source + rest;
}

}  // namespace

std::string DeviceCaps::describe() const {
  return name + " (" + platform + ", driver " + driver + ", " + version + ", " + std::to_string(compute_units) + " compute units)";
}

std::vector<DeviceCaps> list_devices() {
  std::vector<DeviceCaps> caps;
  for (const Found& f : find_devices()) caps.push_back(f.caps);
  return caps;
}

std::shared_ptr<OpenClDevice> OpenClDevice::create(int index) {
  const std::vector<Found> found = find_devices();
  check(!found.empty(), "no OpenCL platform or device found (install an ICD, e.g. Debian's pocl-opencl-icd)");
  check(index >= 0 && size_t(index) < found.size(), "OpenCL device " + std::to_string(index) + " does not exist (" +
                                                        std::to_string(found.size()) + " found)");
  const Found& f = found[size_t(index)];
  return std::shared_ptr<OpenClDevice>(new OpenClDevice(f.platform, f.device, f.caps, index));
}

OpenClDevice::OpenClDevice(cl_platform_id platform, cl_device_id device, DeviceCaps caps, int index)
    : device_(device), caps_(std::move(caps)), memory_name_("opencl:" + std::to_string(index)) {
  const cl_context_properties props[] = {CL_CONTEXT_PLATFORM, cl_context_properties(platform), 0};
  cl_int status = CL_SUCCESS;
  context_ = clCreateContext(props, 1, &device_, nullptr, nullptr, &status);
  cl_check(status, "creating an OpenCL context on " + caps_.name);
  queue_ = clCreateCommandQueue(context_, device_, CL_QUEUE_PROFILING_ENABLE, &status);  // for begin_timing
  cl_check(status, "creating an OpenCL queue on " + caps_.name);
  tuning_ = caps_.nvidia ? device_mma_tuning(caps_, tuning_db_path()) : MmaTuning{kMmaTile, {}, "default"};
  build();
}

cl_program OpenClDevice::build_for(const MmaTile& tile) {
  // IEEE arithmetic: no -cl-fast-relaxed-math, no -cl-mad-enable (docs/opencl.md).
  const std::string identity = caps_.platform + '\0' + caps_.name + '\0' + caps_.vendor + '\0' + caps_.driver + '\0' + caps_.version;
  try {
    return build_program(context_, device_, program_source(), "-cl-std=CL1.2" + program_defines(caps_, tile), identity, opencl_cache_dir())
        .program;
  } catch (const Error& e) {
    throw Error(std::string(e.what()) + " (device " + caps_.name + ")");
  }
}

void OpenClDevice::build() { program_ = build_for(tuning_.tile); }

cl_kernel OpenClDevice::mma_kernel(const MmaTile& tile, const std::string& function) {
  if (tile == mma_tile()) return kernel(function);
  const std::string name = function + " " + tile.name();
  std::lock_guard<std::mutex> lock(mutex_);
  if (auto it = kernels_.find(name); it != kernels_.end()) return it->second;
  check_mma_tile(tile, caps_);
  cl_program& program = tile_programs_[tile.name()];
  if (!program) program = build_for(tile);
  cl_int status = CL_SUCCESS;
  cl_kernel k = clCreateKernel(program, function.c_str(), &status);
  cl_check(status, "OpenCL kernel " + name);
  kernel_names_[k] = name;
  return kernels_[name] = k;
}

void OpenClDevice::use_mma_tuning(const MmaTuning& tuning) {
  std::lock_guard<std::mutex> lock(mutex_);
  const bool rebuild = tuning.tile != tuning_.tile;
  tuning_ = tuning;
  if (!rebuild) return;
  finish();
  for (auto& [name, k] : kernels_) clReleaseKernel(k);
  kernels_.clear();
  kernel_names_.clear();
  clReleaseProgram(program_);
  program_ = nullptr;
  build();
}

OpenClDevice::~OpenClDevice() {
  if (queue_) release_staging();
  for (auto& [name, k] : kernels_) clReleaseKernel(k);
  for (auto& [name, p] : tile_programs_) clReleaseProgram(p);
  if (program_) clReleaseProgram(program_);
  if (queue_) clReleaseCommandQueue(queue_);
  if (context_) clReleaseContext(context_);
}

cl_kernel OpenClDevice::kernel(const std::string& name) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (auto it = kernels_.find(name); it != kernels_.end()) return it->second;
  cl_int status = CL_SUCCESS;
  cl_kernel k = clCreateKernel(program_, name.c_str(), &status);
  cl_check(status, "OpenCL kernel " + name);
  kernel_names_[k] = name;
  return kernels_[name] = k;
}

OpenClDevice::BufferPool::~BufferPool() {
  for (auto& [bytes, buffers] : idle)
    for (cl_mem m : buffers) clReleaseMemObject(m);
}

Tensor OpenClDevice::allocate(DType dtype, const Dims& dims) {
  const size_t bytes = std::max<size_t>(checked_bytes(dtype, dims), 1);
  cl_mem mem = nullptr;
  {
    std::lock_guard<std::mutex> lock(pool_->mutex);
    if (auto it = pool_->idle.find(bytes); it != pool_->idle.end() && !it->second.empty()) {
      mem = it->second.back();
      it->second.pop_back();
      pool_->idle_bytes -= bytes;
    }
  }
  if (!mem) {
    cl_int status = CL_SUCCESS;
    mem = clCreateBuffer(context_, CL_MEM_READ_WRITE, bytes, nullptr, &status);
    cl_check(status, "allocating " + std::to_string(bytes) + " bytes on " + caps_.name);
  }
  // Back to the pool when the tensor dies; the queue is in order, so whoever takes it next runs
  // after every command that used it. Past a quarter of the device's memory, released outright.
  const size_t keep = size_t(caps_.global_memory / 4);
  return Tensor::on_device(dtype, dims, std::shared_ptr<void>(mem, [pool = pool_, bytes, keep](void* m) {
                             {
                               std::lock_guard<std::mutex> lock(pool->mutex);
                               if (pool->idle_bytes + bytes <= keep) {
                                 pool->idle[bytes].push_back(static_cast<cl_mem>(m));
                                 pool->idle_bytes += bytes;
                                 return;
                               }
                             }
                             clReleaseMemObject(static_cast<cl_mem>(m));
                           }));
}

Tensor OpenClDevice::upload(const Tensor& host) {
  Tensor t = allocate(host.dtype(), host.dims());
  if (host.nbytes()) cl_check(clEnqueueWriteBuffer(queue_, buffer_of(t), CL_TRUE, 0, host.nbytes(), host.raw(), 0, nullptr,
                                                   event_slot(Command::Upload, host.nbytes(), "upload")),
                              "copying " + std::to_string(host.nbytes()) + " bytes to " + caps_.name);
  return t;
}

Tensor OpenClDevice::upload_filled(DType dtype, const Dims& dims, const Fill& fill) {
  Tensor t = allocate(dtype, dims);
  const size_t bytes = checked_bytes(dtype, dims);
  if (!bytes) return t;
  std::lock_guard<std::mutex> lock(staging_mutex_);
  if (staging_copied_) {  // the staging area is free once the last upload's copies are done
    const cl_int waited = clWaitForEvents(1, &staging_copied_);
    clReleaseEvent(staging_copied_);
    staging_copied_ = nullptr;
    cl_check(waited, "waiting for a copy to " + caps_.name);
  }
  if (staging_bytes_ < bytes) {
    release_staging();
    cl_int status = CL_SUCCESS;
    staging_ = clCreateBuffer(context_, CL_MEM_ALLOC_HOST_PTR | CL_MEM_READ_ONLY, bytes, nullptr, &status);
    cl_check(status, "allocating " + std::to_string(bytes) + " bytes of pinned host memory for " + caps_.name);
    staging_host_ = clEnqueueMapBuffer(queue_, staging_, CL_TRUE, CL_MAP_WRITE, 0, bytes, 0, nullptr, nullptr, &status);
    cl_check(status, "mapping " + std::to_string(bytes) + " bytes of pinned host memory for " + caps_.name);
    staging_bytes_ = bytes;
  }
  // Chunks of about 2 MiB: the host writes one while the device copies the one before.
  const int64_t count = numel(dims), size = int64_t(dtype_size(dtype)), chunk = std::max<int64_t>(1, (int64_t(2) << 20) / size);
  std::byte* base = static_cast<std::byte*>(staging_host_);
  const auto mark = [&] { cl_check(clEnqueueMarkerWithWaitList(queue_, 0, nullptr, &staging_copied_), "marking a copy to " + caps_.name); };
  try {
    for (int64_t begin = 0; begin < count; begin += chunk) {
      const int64_t end = std::min(count, begin + chunk);
      fill(base, begin, end);
      const size_t offset = size_t(begin * size), length = size_t((end - begin) * size);
      cl_check(clEnqueueWriteBuffer(queue_, buffer_of(t), CL_FALSE, offset, length, base + offset, 0, nullptr,
                                    event_slot(Command::Upload, length, "upload")),
               "copying " + std::to_string(length) + " bytes to " + caps_.name);
    }
  } catch (...) {  // a fill that stops (a bad index) leaves the copies already enqueued to finish first
    mark();
    throw;
  }
  mark();
  return t;
}

void OpenClDevice::release_staging() {
  if (staging_copied_) clWaitForEvents(1, &staging_copied_), clReleaseEvent(staging_copied_), staging_copied_ = nullptr;
  if (!staging_) return;
  clEnqueueUnmapMemObject(queue_, staging_, staging_host_, 0, nullptr, nullptr);
  clFinish(queue_);
  clReleaseMemObject(staging_);
  staging_ = nullptr, staging_host_ = nullptr, staging_bytes_ = 0;
}

Tensor OpenClDevice::download(const Tensor& on_device) {
  Tensor t = Tensor::uninitialized(on_device.dtype(), on_device.dims());
  if (t.nbytes()) cl_check(clEnqueueReadBuffer(queue_, buffer_of(on_device), CL_TRUE, 0, t.nbytes(), t.raw(), 0, nullptr,
                                               event_slot(Command::Download, t.nbytes(), "download")),
                           "copying " + std::to_string(t.nbytes()) + " bytes from " + caps_.name);
  return t;
}

void OpenClDevice::launch(cl_kernel kernel, std::vector<size_t> global, std::vector<size_t> local) {
  for (size_t& g : global) g = std::max<size_t>(g, 1);
  for (size_t a = 0; a < local.size(); ++a) global[a] = (global[a] + local[a] - 1) / local[a] * local[a];  // whole work-groups
  const auto name = kernel_names_.find(kernel);
  std::string size;
  if (timing_)
    for (size_t g : global) size += (size.empty() ? "" : "x") + std::to_string(g);
  cl_check(clEnqueueNDRangeKernel(queue_, kernel, cl_uint(global.size()), nullptr, global.data(), local.empty() ? nullptr : local.data(), 0, nullptr,
                                  event_slot(Command::Kernel, 0, name == kernel_names_.end() ? "kernel" : name->second.c_str(), size)),
           "running an OpenCL kernel on " + caps_.name);
}

void OpenClDevice::copy(const Tensor& from, Tensor& to) {
  check(from.nbytes() == to.nbytes(), "device copy of " + std::to_string(from.nbytes()) + " bytes into " + std::to_string(to.nbytes()));
  if (from.nbytes())
    cl_check(clEnqueueCopyBuffer(queue_, buffer_of(from), buffer_of(to), 0, 0, from.nbytes(), 0, nullptr, event_slot(Command::Kernel, 0, "copy")),
             "copying " + std::to_string(from.nbytes()) + " bytes on " + caps_.name);
}

void OpenClDevice::zero(Tensor& t) {
  const cl_uchar zero = 0;
  if (t.nbytes())
    cl_check(clEnqueueFillBuffer(queue_, buffer_of(t), &zero, 1, 0, t.nbytes(), 0, nullptr, event_slot(Command::Kernel, 0, "fill")),
             "zeroing " + std::to_string(t.nbytes()) + " bytes on " + caps_.name);
}

void OpenClDevice::finish() { cl_check(clFinish(queue_), "waiting for " + caps_.name); }

cl_event* OpenClDevice::event_slot(Command what, size_t bytes, const char* name, std::string global) {
  if (!timing_) return nullptr;
  timed_.push_back({what, nullptr, bytes, name, std::move(global)});
  return &timed_.back().event;
}

void OpenClDevice::begin_timing() {
  finish();
  timing_ = true;
}

DeviceTimes OpenClDevice::end_timing() {
  finish();
  timing_ = false;
  DeviceTimes t;
  for (const Timed& c : timed_) {
    cl_ulong start = 0, end = 0;
    if (c.event) {
      clGetEventProfilingInfo(c.event, CL_PROFILING_COMMAND_START, sizeof start, &start, nullptr);
      clGetEventProfilingInfo(c.event, CL_PROFILING_COMMAND_END, sizeof end, &end, nullptr);
      clReleaseEvent(c.event);
    }
    const double ms = end > start ? double(end - start) / 1e6 : 0.0;
    if (c.what == Command::Kernel) {
      t.kernel_ms += ms, ++t.kernels;
      DeviceTimes::PerKernel& k = t.per_kernel[c.name];
      ++k.launches, k.ms += ms;
      DeviceTimes::PerKernel& l = t.per_launch[c.global.empty() ? std::string(c.name) : std::string(c.name) + " " + c.global];
      ++l.launches, l.ms += ms;
    }
    if (c.what == Command::Upload) t.upload_ms += ms, ++t.uploads, t.upload_bytes += c.bytes;
    if (c.what == Command::Download) t.download_ms += ms, ++t.downloads, t.download_bytes += c.bytes;
  }
  timed_.clear();
  return t;
}

}  // namespace q8
