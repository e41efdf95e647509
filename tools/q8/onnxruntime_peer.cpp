#include "tools/q8/onnxruntime_peer.h"

#include <dlfcn.h>

#include <cstdint>

#include "engine/ir/dtype.h"
#include "engine/ir/error.h"

namespace q8::cli {

namespace {

// Positions in ONNX Runtime's OrtApi, its C API's table of function pointers (onnxruntime_c_api.h):
// the table only grows at its end, so these hold for every version since the first.
enum Slot : size_t {
  kGetErrorMessage = 2,
  kCreateEnv = 3,
  kCreateSession = 7,
  kRun = 9,
  kCreateSessionOptions = 10,
  kSetSessionExecutionMode = 13,
  kSetSessionGraphOptimizationLevel = 23,
  kSetIntraOpNumThreads = 24,
  kSetInterOpNumThreads = 25,
  kSessionGetInputCount = 30,
  kSessionGetOutputCount = 31,
  kSessionGetInputName = 36,
  kSessionGetOutputName = 37,
  kCreateTensorWithDataAsOrtValue = 49,
  kGetTensorMutableData = 51,
  kGetTensorElementType = 60,
  kGetDimensionsCount = 61,
  kGetDimensions = 62,
  kGetTensorTypeAndShape = 65,
  kCreateCpuMemoryInfo = 69,
  kAllocatorFree = 76,
  kGetAllocatorWithDefaultOptions = 78,
  kReleaseEnv = 92,
  kReleaseStatus = 93,
  kReleaseMemoryInfo = 94,
  kReleaseSession = 95,
  kReleaseValue = 96,
  kReleaseTensorTypeAndShapeInfo = 99,
  kReleaseSessionOptions = 100,
};

// The C API's enumerations, by their documented values.
constexpr int kLoggingLevelError = 3;      // ORT_LOGGING_LEVEL_ERROR
constexpr int kExecutionSequential = 0;    // ORT_SEQUENTIAL
constexpr int kArenaAllocator = 1;         // OrtArenaAllocator
constexpr int kMemTypeDefault = 0;         // OrtMemTypeDefault
constexpr uint32_t kApiVersion = 1;        // every slot above exists from version 1 on

// GraphOptimizationLevel for q8's level names (ORT_DISABLE_ALL, ORT_ENABLE_EXTENDED, ORT_ENABLE_ALL).
int ort_optimization_level(const std::string& level) {
  if (level == "disable") return 0;
  if (level == "extended") return 2;
  return 99;
}

using Status = void*;  // OrtStatus*, null for success

struct ApiBase {  // OrtApiBase
  const void* const* (*get_api)(uint32_t version);
  const char* (*get_version_string)();
};

}  // namespace

template <typename Fn>
Fn OnnxRuntimePeer::call(size_t slot) const {
  return reinterpret_cast<Fn>(const_cast<void*>(api_[slot]));
}

void OnnxRuntimePeer::check(void* status, const std::string& what) const {
  if (status == nullptr) return;
  const std::string message = call<const char* (*)(const void*)>(kGetErrorMessage)(status);
  call<void (*)(void*)>(kReleaseStatus)(status);
  throw Error("ONNX Runtime " + version_ + " (" + library_ + "): " + what + ": " + message);
}

OnnxRuntimePeer::OnnxRuntimePeer(const std::string& library) : library_(library) {
  handle_ = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle_ == nullptr) {
    const char* why = dlerror();
    throw Error("--peer ort: cannot load ONNX Runtime's library '" + library + "' (" + (why ? why : "unknown reason") +
                "); give its path with --ort-library");
  }
  using GetApiBase = const ApiBase* (*)();
  const auto get_api_base = reinterpret_cast<GetApiBase>(dlsym(handle_, "OrtGetApiBase"));
  const ApiBase* base = get_api_base ? get_api_base() : nullptr;
  api_ = base ? base->get_api(kApiVersion) : nullptr;
  if (api_ == nullptr) {
    dlclose(handle_);
    throw Error("--peer ort: '" + library + "' is not ONNX Runtime's library (no OrtGetApiBase with its C API)");
  }
  version_ = base->get_version_string();
  check(call<Status (*)(int, const char*, void**)>(kCreateEnv)(kLoggingLevelError, "q8-bench-peer", &env_), "creating its environment");
}

OnnxRuntimePeer::~OnnxRuntimePeer() {
  if (env_) call<void (*)(void*)>(kReleaseEnv)(env_);
  // The library stays loaded: ONNX Runtime's threads and static objects outlive a dlclose.
}

std::unique_ptr<OnnxRuntimePeer::Session> OnnxRuntimePeer::open(const std::string& model, const TensorMap& inputs, int threads,
                                                                const std::string& graph_optimization) const {
  std::unique_ptr<Session> s(new Session());
  s->peer_ = this;
  void* options = nullptr;
  check(call<Status (*)(void**)>(kCreateSessionOptions)(&options), "creating session options");
  struct ReleaseOptions {
    const OnnxRuntimePeer* peer;
    void* options;
    ~ReleaseOptions() { peer->call<void (*)(void*)>(kReleaseSessionOptions)(options); }
  } release_options{this, options};
  check(call<Status (*)(void*, int)>(kSetIntraOpNumThreads)(options, threads), "setting the intra-op threads");
  check(call<Status (*)(void*, int)>(kSetInterOpNumThreads)(options, 1), "setting the inter-op threads");
  check(call<Status (*)(void*, int)>(kSetSessionExecutionMode)(options, kExecutionSequential), "setting sequential execution");
  check(call<Status (*)(void*, int)>(kSetSessionGraphOptimizationLevel)(options, ort_optimization_level(graph_optimization)),
        "setting the graph optimization level");
  check(call<Status (*)(void*, const char*, void*, void**)>(kCreateSession)(env_, model.c_str(), options, &s->session_),
        "loading " + model);
  check(call<Status (*)(int, int, void**)>(kCreateCpuMemoryInfo)(kArenaAllocator, kMemTypeDefault, &s->memory_info_),
        "describing CPU memory");

  void* allocator = nullptr;
  check(call<Status (*)(void**)>(kGetAllocatorWithDefaultOptions)(&allocator), "getting its allocator");
  const auto names = [&](size_t count_slot, size_t name_slot, std::vector<std::string>& out) {
    size_t count = 0;
    check(call<Status (*)(const void*, size_t*)>(count_slot)(s->session_, &count), "listing " + model + "'s inputs and outputs");
    for (size_t i = 0; i < count; ++i) {
      char* name = nullptr;
      check(call<Status (*)(const void*, size_t, void*, char**)>(name_slot)(s->session_, i, allocator, &name), "naming a value");
      out.emplace_back(name);
      check(call<Status (*)(void*, void*)>(kAllocatorFree)(allocator, name), "freeing a name");
    }
  };
  names(kSessionGetInputCount, kSessionGetInputName, s->input_names_);
  names(kSessionGetOutputCount, kSessionGetOutputName, s->output_names_);

  for (const std::string& name : s->input_names_) {
    const auto it = inputs.find(name);
    q8::check(it != inputs.end(), "ONNX Runtime's session on " + model + " takes input '" + name + "', which the benchmark's inputs lack");
    const Tensor& t = it->second;
    void* value = nullptr;
    check(call<Status (*)(const void*, void*, size_t, const int64_t*, size_t, int, void**)>(kCreateTensorWithDataAsOrtValue)(
              s->memory_info_, const_cast<std::byte*>(t.raw()), t.nbytes(), t.dims().data(), t.rank(), dtype_to_onnx(t.dtype()), &value),
          "wrapping input '" + name + "'");
    s->input_values_.push_back(value);
  }
  return s;
}

OnnxRuntimePeer::Session::~Session() {
  for (void* v : input_values_) peer_->call<void (*)(void*)>(kReleaseValue)(v);
  if (memory_info_) peer_->call<void (*)(void*)>(kReleaseMemoryInfo)(memory_info_);
  if (session_) peer_->call<void (*)(void*)>(kReleaseSession)(session_);
}

TensorMap OnnxRuntimePeer::Session::run(bool keep_outputs) {
  std::vector<const char*> in_names, out_names;
  for (const std::string& n : input_names_) in_names.push_back(n.c_str());
  for (const std::string& n : output_names_) out_names.push_back(n.c_str());
  std::vector<void*> outputs(output_names_.size(), nullptr);
  using Run = Status (*)(void*, const void*, const char* const*, const void* const*, size_t, const char* const*, size_t, void**);
  struct ReleaseOutputs {
    const OnnxRuntimePeer* peer;
    std::vector<void*>& values;
    ~ReleaseOutputs() {
      for (void* v : values)
        if (v) peer->call<void (*)(void*)>(kReleaseValue)(v);
    }
  } release_outputs{peer_, outputs};
  peer_->check(peer_->call<Run>(kRun)(session_, nullptr, in_names.data(), input_values_.data(), input_values_.size(), out_names.data(),
                                      out_names.size(), outputs.data()),
               "running");
  TensorMap result;
  if (!keep_outputs) return result;
  for (size_t i = 0; i < outputs.size(); ++i) {
    void* info = nullptr;
    peer_->check(peer_->call<Status (*)(const void*, void**)>(kGetTensorTypeAndShape)(outputs[i], &info), "reading an output's shape");
    int type = 0;
    size_t rank = 0;
    Status status = peer_->call<Status (*)(const void*, int*)>(kGetTensorElementType)(info, &type);
    if (!status) status = peer_->call<Status (*)(const void*, size_t*)>(kGetDimensionsCount)(info, &rank);
    Dims dims(rank);
    if (!status) status = peer_->call<Status (*)(const void*, int64_t*, size_t)>(kGetDimensions)(info, dims.data(), rank);
    peer_->call<void (*)(void*)>(kReleaseTensorTypeAndShapeInfo)(info);
    peer_->check(status, "reading output '" + output_names_[i] + "'");
    if (type != dtype_to_onnx(DType::Float32)) continue;  // only float32 outputs are compared
    Tensor t(DType::Float32, dims);
    void* data = nullptr;
    peer_->check(peer_->call<Status (*)(void*, void**)>(kGetTensorMutableData)(outputs[i], &data), "reading output data");
    copy_bytes(t.raw(), data, t.nbytes());
    result.emplace(output_names_[i], std::move(t));
  }
  return result;
}

}  // namespace q8::cli
