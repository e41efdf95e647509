// One OpenCL device: its capabilities (DeviceCaps), a context and an in-order queue, the q8
// program built from the embedded kernels (kernels/*.cl) with -D options, and buffers.
// `--device opencl[:N]` picks the N-th device over all platforms, in the order list_devices gives.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "engine/exec/backend.h"
#include "engine/ir/tensor.h"
#include "engine/opencl/mma_tile.h"
#include "engine/opencl/status.h"

namespace q8 {

struct DeviceCaps {
  std::string platform, name, vendor, driver, version, extensions;
  cl_uint compute_units = 0;
  size_t max_work_group = 0;
  cl_ulong local_memory = 0, global_memory = 0;
  bool nvidia = false;
  // CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT: float division can be built IEEE-exact
  // (-cl-fp32-correctly-rounded-divide-sqrt), which QuantizeLinear's x / s needs.
  bool exact_divide = false;
  // CL_FP_DENORM: float32 subnormals are kept, not flushed to zero, as on the host.
  bool denormals = false;
  // NVIDIA's compute capability × 10 (90 on Hopper; cl_nv_device_attribute_query), 0 elsewhere.
  int nv_sm = 0;

  // cl_khr_fp64: doubles (GlobalAveragePool's and Softmax's sums).
  bool doubles() const { return extensions.find("cl_khr_fp64") != std::string::npos; }
  // INT8 tensor cores through inline PTX (mma.sync m16n8k32): NVIDIA sm_80 and later.
  bool tensor_cores() const { return nvidia && nv_sm >= 80; }

  // "NVIDIA H200 (NVIDIA CUDA, driver 580.65, OpenCL 3.0 CUDA, 132 compute units)"
  std::string describe() const;
};

// Why a device declines a node for a capability it lacks (Backend::missing_capabilities): the
// only declines the cross-backend harness accepts.
inline constexpr const char* kNoDenormals = "the device flushes float32 subnormals (no CL_FP_DENORM)";
inline constexpr const char* kNoExactDivide = "the device's float division is not IEEE-exact (CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT)";
inline constexpr const char* kNoDoubles = "the device has no doubles (cl_khr_fp64)";
// And one that every OpenCL device lacks: a QConv or QConvTranspose on channels-last tensors, which
// only the CPU's layout pass makes (the OpenCL ops keep their own layouts on the device: channels_last.h).
inline constexpr const char* kNoChannelsLastQConv = "channels_last = 1 (QConv, QConvTranspose) is the CPU INT8 backend's layout (the CPU's layout pass)";

// Every device of every platform, in platform then device order; empty when there is no ICD or
// no platform.
std::vector<DeviceCaps> list_devices();

class OpenClDevice {
 public:
  // Opens the device of that index (list_devices order) with the tuning database's tuning (else
  // q8's entry, else the default); Error naming what is missing (no platform, index out of range)
  // or the build log when the kernels do not build. engine/runtime/devices.h opens each device
  // once per process and owns it: everything else asks there.
  static std::shared_ptr<OpenClDevice> create(int index);
  ~OpenClDevice();
  OpenClDevice(const OpenClDevice&) = delete;
  OpenClDevice& operator=(const OpenClDevice&) = delete;

  const DeviceCaps& caps() const { return caps_; }
  // qgemm_mma's tuning (mma_tuning.h): the device tile, which the program was built with, the
  // shape classes' tiles, and where they came from.
  const MmaTile& mma_tile() const { return tuning_.tile; }
  const MmaTuning& mma_tuning() const { return tuning_; }
  // Takes another tuning (`q8 tune`, a plan's device section). A new device tile builds the
  // program again; kernels taken before are released.
  void use_mma_tuning(const MmaTuning& tuning);
  // The memory name placement reports: "opencl:0".
  const std::string& memory_name() const { return memory_name_; }
  cl_kernel kernel(const std::string& name);
  // A qgemm_mma.cl kernel (`name`: qgemm_mma, qconv_implicit_mma) built for `tile`: the program's
  // own where tile is mma_tile(), else from a program built for that tile once (on first use),
  // named "NAME TILE" in timings.
  cl_kernel mma_kernel(const MmaTile& tile, const std::string& name = "qgemm_mma");
  // For libraries that enqueue on the same device (CLBlast).
  cl_device_id device() const { return device_; }
  cl_context context() const { return context_; }
  cl_command_queue queue() const { return queue_; }

  // A device tensor of dtype × dims (at least one byte, so empty tensors have a buffer too).
  Tensor allocate(DType dtype, const Dims& dims);
  Tensor upload(const Tensor& host);
  // A device tensor of dtype × dims whose bytes `fill` writes on the host, into pinned memory the
  // device keeps mapped (CL_MEM_ALLOC_HOST_PTR), which it reads by DMA at full speed where a
  // pageable buffer goes through a driver copy first. `fill(base, begin, end)` writes elements
  // [begin, end) of the tensor whose first byte is base; it is called chunk by chunk, and each
  // chunk's copy is enqueued as soon as it is written, so the host fills the next while the device
  // copies (no host wait). One staging area per device, grown as needed; an upload waits for the
  // last one's copies before writing into it.
  using Fill = std::function<void(std::byte* base, int64_t begin, int64_t end)>;
  Tensor upload_filled(DType dtype, const Dims& dims, const Fill& fill);
  Tensor download(const Tensor& on_device);
  // Enqueues kernel over the global range (each axis at least 1), in order on the queue.
  void launch(cl_kernel kernel, std::vector<size_t> global, std::vector<size_t> local = {});
  // Device-side copy of all of from into to (same size), and zero fill.
  void copy(const Tensor& from, Tensor& to);
  void zero(Tensor& t);
  // The event out-parameter for a library's command on queue() (CLBlast's), so it counts as
  // kernel time (under `name`) while timing; nullptr otherwise.
  cl_event* library_event(const char* name) { return event_slot(Command::Kernel, 0, name); }
  void finish();
  // Records every command's profiling event until end_timing, which waits for them and sums.
  void begin_timing();
  DeviceTimes end_timing();

 private:
  OpenClDevice(cl_platform_id platform, cl_device_id device, DeviceCaps caps, int index);
  // Builds program_ for caps_ and mma_tile_.
  void build();
  cl_program build_for(const MmaTile& tile);

  cl_device_id device_ = nullptr;
  cl_context context_ = nullptr;
  cl_command_queue queue_ = nullptr;
  cl_program program_ = nullptr;
  DeviceCaps caps_;
  MmaTuning tuning_;
  std::mutex staging_mutex_;
  cl_mem staging_ = nullptr;  // upload_filled's pinned memory, mapped at staging_host_
  void* staging_host_ = nullptr;
  size_t staging_bytes_ = 0;
  cl_event staging_copied_ = nullptr;  // the last upload_filled's copies are done
  void release_staging();
  std::string memory_name_;
  std::mutex mutex_;
  // Buffers of dead tensors, by size, for the next allocation of that size: on NVIDIA, releasing
  // device memory waits for the device, so allocating and releasing per node ran the host in
  // lockstep with it. Shared with the tensors' deleters, which may outlive the device.
  struct BufferPool {
    std::mutex mutex;
    std::map<size_t, std::vector<cl_mem>> idle;
    size_t idle_bytes = 0;
    ~BufferPool();
  };
  std::shared_ptr<BufferPool> pool_ = std::make_shared<BufferPool>();
  std::map<std::string, cl_kernel> kernels_;
  std::map<std::string, cl_program> tile_programs_;  // by tile name: qgemm_mma at other tiles (mma_kernel)
  std::map<cl_kernel, std::string> kernel_names_;
  enum class Command { Kernel, Upload, Download };
  struct Timed {
    Command what;
    cl_event event;
    size_t bytes;
    const char* name;  // a kernel's function name (kernel_names_ owns it), or a command's
    std::string global;  // a kernel's global size, "12544x6144"
  };
  bool timing_ = false;
  std::vector<Timed> timed_;
  // The event out-parameter of an enqueue: an event to keep while timing, else none.
  cl_event* event_slot(Command what, size_t bytes, const char* name, std::string global = "");
};

// The cl_mem of a device tensor.
inline cl_mem buffer_of(const Tensor& t) { return static_cast<cl_mem>(t.device_handle()); }

}  // namespace q8
