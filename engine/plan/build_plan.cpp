#include "engine/plan/build_plan.h"

#include "engine/io/atomic_write.h"
#include "engine/io/log.h"
#include "engine/onnx/import.h"
#include "engine/plan/reference/backend.h"
#if Q8_WITH_OPENCL
#include "engine/opencl/device.h"
#include "engine/opencl/mma_tuning.h"
#include "engine/opencl/opencl_backend.h"
#endif

namespace q8 {

int device_index(const std::string& device) {
  if (device == "cpu") return -1;
  if (device == "opencl") return 0;
  check(device.rfind("opencl:", 0) == 0 && device.size() > 7 && device.size() < 12 &&
            device.find_first_not_of("0123456789", 7) == std::string::npos,
        "--device " + device + ": expected cpu, opencl or opencl:N");
  return std::stoi(device.substr(7));
}

BackendList plan_backends(const std::string& device) {
  const int index = device_index(device);
  if (index < 0) return {&int8_reference_backend(), &cpu_backend()};
#if Q8_WITH_OPENCL
  return {&opencl_backend(index), &int8_reference_backend(), &cpu_backend()};
#else
  throw Error("--device " + device + ": this q8 was built without OpenCL (-DQ8_OPENCL=OFF)");
#endif
}

std::string describe_device(const std::string& device) {
#if Q8_WITH_OPENCL
  if (device != "cpu") {
    const int index = device_index(device);
    const std::vector<DeviceCaps> devices = list_devices();
    if (size_t(index) < devices.size()) {
      const DeviceCaps& caps = devices[size_t(index)];
      std::string text = "opencl:" + std::to_string(index) + ": " + caps.describe();
      if (caps.tensor_cores()) {
        const MmaTuning tuning = device_mma_tuning(caps, tuning_db_path());
        text += "; qgemm_mma tiles " + tuning.describe() + " (" + tuning.source + ")";
      }
      return text;
    }
  }
#endif
  return device;
}

std::string device_section(const std::string& device) {
  const int index = device_index(device);
  if (index < 0) return "";
#if Q8_WITH_OPENCL
  const std::vector<DeviceCaps> devices = list_devices();
  check(size_t(index) < devices.size(), "--device " + device + ": OpenCL device " + std::to_string(index) + " does not exist (" +
                                            std::to_string(devices.size()) + " found)");
  const DeviceCaps& caps = devices[size_t(index)];
  check(caps.tensor_cores(), "--device " + device + ": " + caps.describe() +
                                                     " has no tuned kernel to record (qgemm_mma needs NVIDIA sm_80 or later)");
  return mma_tuning_section(caps, device_mma_tuning(caps, tuning_db_path()));
#else
  throw Error("--device " + device + ": this q8 was built without OpenCL (-DQ8_OPENCL=OFF)");
#endif
}

namespace {

// Gives the OpenCL device a plan runs on the tuning of the plan's device section, where the
// section is that device's.
void use_device_section(const Plan& plan, const std::string& device, const std::string& what) {
  if (plan.device.empty() || device_index(device) < 0) return;
#if Q8_WITH_OPENCL
  const std::shared_ptr<OpenClDevice> cl = OpenClDevice::open(device_index(device));
  if (const std::optional<MmaTuning> tuning = parse_mma_tuning_section(plan.device, cl->caps(), what)) {
    cl->use_mma_tuning(*tuning);
    log::info("tuning:     qgemm_mma tiles %s (the plan's device section)\n", tuning->describe().c_str());
  } else {
    log::info("tuning:     the plan's device section is another device's or driver's: this device's own tuning runs\n");
  }
#endif
}

}  // namespace

Graph load_runnable(const std::string& path, bool int8, std::string* lowering_report, const std::string& device) {
  const std::string bytes = read_file(path);
  if (is_plan(bytes)) {
    Plan plan = parse_plan(bytes, path);
    use_device_section(plan, device, path);
    return std::move(plan.graph);
  }
  if (!int8) return load_model(path);
  Lowered lowered = lower_qdq(load_model(path));
  if (lowering_report) *lowering_report = format_lowering_report(lowered);
  return std::move(lowered.graph);
}

std::string placement_summary(const std::vector<std::string_view>& placement) {
  std::map<std::string_view, int> placed;
  for (std::string_view p : placement) ++placed[p];
  std::string s;
  for (const auto& [backend, count] : placed) s += (s.empty() ? "" : "; ") + std::string(backend) + " " + std::to_string(count) + " nodes";
  return s;
}

std::string describe_shapes(const InputDescs& inputs) {
  std::string s;
  for (const auto& [name, d] : inputs) {
    std::string dims;
    for (size_t i = 0; i < d.dims.size(); ++i) dims += (i ? "x" : "") + std::to_string(d.dims[i]);
    s += (s.empty() ? "" : ",") + name + "=" + dims;
  }
  return s;
}

std::string describe_shapes(const TensorMap& inputs) {
  InputDescs descs;
  for (const auto& [name, t] : inputs) descs[name] = t.desc();
  return describe_shapes(descs);
}

BuiltPlan build_plan(const Graph& qdq, const std::string& source_sha256, const InputDescs& inputs) {
  BuiltPlan b;
  b.lowered = lower_qdq(qdq);
  b.plan.graph = b.lowered.graph;
  b.plan.source_sha256 = source_sha256;
  b.plan.lowering_report = format_lowering_report(b.lowered);
  b.plan.shapes = describe_shapes(inputs);

  // Sizes and lifetimes of every intermediate at these shapes, from shapes alone.
  Executor exec(b.plan.graph, plan_backends());
  b.placement = exec.placement();
  b.placement_report = exec.placement_report();
  b.fallbacks = exec.placement_report(true);
  std::vector<TensorDesc> descs;
  for (const ValueInfo& v : b.plan.graph.inputs) {
    const auto it = inputs.find(v.name);
    check(it != inputs.end(), "input '" + v.name + "' has no shape to build the plan for");
    descs.push_back(it->second);
  }
  SizeTrace trace = exec.trace_sizes(descs);
  b.plan.buffers = std::move(trace.values);
  b.unsized = std::move(trace.unsized);
  b.plan.memory = plan_memory(b.plan.buffers);
  return b;
}

}  // namespace q8
