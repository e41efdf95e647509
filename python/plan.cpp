// q8.build, q8.load_plan and Plan: a QDQ model lowered into the INT8 engine's fused integer ops
// for a device ("cpu", "opencl[:N]"), as `q8 build` makes it, run from numpy like `q8 run PLAN`.
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include "engine/io/atomic_write.h"
#include "engine/io/sha256.h"
#include "engine/onnx/export.h"
#include "engine/passes/optimize_for_inference.h"
#include "engine/plan/build_plan.h"
#include "engine/runtime/backends.h"
#include "engine/runtime/runnable.h"
#include "python/arrays.h"
#include "python/bindings.h"

namespace q8::python {

namespace {

struct PlanObject {
  std::shared_ptr<const Plan> plan;
  std::string device;
  std::string placement;  // which backend runs each node, and why others declined
  std::shared_ptr<Executor> executor;
  std::shared_ptr<std::mutex> running = std::make_shared<std::mutex>();
};

PlanObject build(const Model& qdq, const std::string& device, const std::map<std::string, std::vector<int64_t>>& shapes) {
  PlanObject p;
  p.device = device;
  {
    py::gil_scoped_release release;
    const std::string sha = qdq.sha256.empty() ? sha256_hex(serialize_model(*qdq.graph, "the QDQ model")) : qdq.sha256;
    const std::map<std::string, Dims> fixed(shapes.begin(), shapes.end());
    std::string deferred;
    BuiltPlan b = build_plan_or_defer_memory(*qdq.graph, sha, plan_input_descs(*qdq.graph, fixed, "shapes"), !shapes.empty(),
                                             backends_for(device), deferred);
    b.plan.device = device_section(device, false);  // a device without tuned kernels runs its own
    p.placement = placement_summary(b.placement, b.shape_work) + "\n" + b.placement_report;
    p.plan = std::make_shared<const Plan>(std::move(b.plan));
  }
  return p;
}

PlanObject load_plan(const std::filesystem::path& file, const std::string& device) {
  PlanObject p;
  p.device = device;
  p.plan = std::make_shared<const Plan>(parse_plan(read_file(file.string()), file.string()));
  return p;
}

py::dict run(PlanObject& p, const py::dict& inputs) {
  TensorMap tensors = to_tensor_map(inputs, "inputs");
  TensorMap outputs;
  {
    py::gil_scoped_release release;
    std::lock_guard<std::mutex> lock(*p.running);
    if (!p.executor) {  // as q8 run runs it: at graph optimization level "all"
      Runnable runnable = plan_runnable(*p.plan, p.device, "the plan");
      optimize_for_inference(runnable.graph, GraphOptimizationLevel::All, runs_cpu_int8(p.device));
      p.executor = make_executor(std::move(runnable), p.device);
    }
    outputs = p.executor->run(tensors);
  }
  return to_dict(std::move(outputs));
}

}  // namespace

void bind_plan(py::module_& m) {
  py::class_<PlanObject>(m, "Plan", "A QDQ model lowered into fused INT8 ops for a device (q8.build, q8.load_plan)")
      .def("run", &run, py::arg("inputs"), "Runs the plan: {input name: array} in, {output name: array} out")
      .def("save", [](const PlanObject& p, const std::filesystem::path& f) { write_file_atomically(f.string(), serialize_plan(*p.plan)); },
           py::arg("path"), "Writes the plan file `q8 run` and `q8 bench` read")
      .def_property_readonly("device", [](const PlanObject& p) { return p.device; })
      .def_property_readonly("shapes", [](const PlanObject& p) { return p.plan->shapes; }, "the input shapes its memory plan is for")
      .def_property_readonly("lowering_report", [](const PlanObject& p) { return p.plan->lowering_report; })
      .def_property_readonly("placement", [](const PlanObject& p) { return p.placement; }, "where each node runs (q8.build's plans)")
      .def("__repr__", [](const PlanObject& p) {
        return "<q8.Plan for " + p.device + ": " + std::to_string(p.plan->graph.nodes.size()) + " nodes, shapes " +
               (p.plan->shapes.empty() ? std::string("planned at the first run") : p.plan->shapes) + ">";
      });
  m.def("build", &build, py::arg("qdq"), py::kw_only(), py::arg("device") = "cpu",
        py::arg("shapes") = std::map<std::string, std::vector<int64_t>>{},
        "Lowers a QDQ model into the INT8 engine's fused integer ops and plans its memory at `shapes` ({input: dims}; dynamic "
        "dims default to 1); device 'opencl[:N]' places nodes on that device and records its tuning where it has tuned kernels "
        "(NVIDIA sm_80+), as q8 build --device");
  m.def("load_plan", &load_plan, py::arg("path"), py::kw_only(), py::arg("device") = "cpu", "Reads a plan file q8 build wrote");
}

}  // namespace q8::python
