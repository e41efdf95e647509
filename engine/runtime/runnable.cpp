#include "engine/runtime/runnable.h"

#include "engine/io/atomic_write.h"
#include "engine/io/log.h"
#include "engine/onnx/import.h"
#include "engine/plan/build_plan.h"
#include "engine/runtime/backends.h"
#include "engine/runtime/devices.h"
#if Q8_WITH_OPENCL
#include "engine/opencl/mma_tuning.h"
#endif

namespace q8 {

namespace {

// Gives the OpenCL device a plan runs on the tuning of the plan's device section, where the
// section is that device's.
void use_device_section(const Plan& plan, const std::string& device, const std::string& what) {
  if (plan.device.empty() || device_index(device) < 0) return;
#if Q8_WITH_OPENCL
  const int index = device_index(device);
  if (const std::optional<MmaTuning> tuning = parse_mma_tuning_section(plan.device, opencl_device(index).caps(), what)) {
    use_tuning(index, *tuning);
    log::info("tuning:     qgemm_mma tiles %s (the plan's device section)\n", tuning->describe().c_str());
  } else {
    log::info("tuning:     the plan's device section is another device's or driver's: this device's own tuning runs\n");
  }
#endif
}

}  // namespace

Runnable plan_runnable(Plan plan, const std::string& device, const std::string& what) {
  use_device_section(plan, device, what);
  Runnable r;
  r.graph = std::move(plan.graph);
  r.plan = std::move(plan);
  return r;
}

Runnable load_runnable(const std::string& path, bool int8, std::string* lowering_report, const std::string& device) {
  const std::string bytes = read_file(path);
  Runnable r;
  if (is_plan(bytes)) return plan_runnable(parse_plan(bytes, path), device, path);
  if (!int8) {
    r.graph = load_model_bytes(bytes, path);  // read once (a BERT-base file is 440 MB)
    return r;
  }
  Lowered lowered = lower_qdq(load_model_bytes(bytes, path));
  if (lowering_report) *lowering_report = format_lowering_report(lowered);
  r.graph = std::move(lowered.graph);
  return r;
}

std::unique_ptr<Executor> make_executor(Runnable runnable, const std::string& device, std::string* note) {
  auto exec = std::make_unique<Executor>(std::move(runnable.graph), backends_for(device));
  if (!runnable.plan) return exec;
  if (runnable.plan->shapes.empty()) {
    if (note) *note = "planned on the first run: the plan was built without input shapes";
    return exec;
  }
  const Plan& plan = *runnable.plan;
  const InputDescs shapes = parse_shapes(plan.shapes, exec->graph(), "the plan's memory section");
  std::vector<TensorDesc> descs;
  for (const ValueInfo& v : exec->graph().inputs) descs.push_back(shapes.count(v.name) ? shapes.at(v.name) : TensorDesc{});
  const bool used = shapes.size() == exec->graph().inputs.size() && exec->use_memory_plan(descs, plan.buffers, plan.memory);
  if (note)
    *note = used ? "the plan's, for " + plan.shapes + " (" + std::to_string(plan.buffers.size()) + " buffers in " +
                       std::to_string(plan.memory.arena_bytes) + " bytes)"
                 : "planned on the first run: the plan's is for other backends or a rewritten graph";
  return exec;
}

}  // namespace q8
