// Building a plan from a QDQ model: lower it, work out every intermediate's size and lifetime at
// the given input shapes from shapes alone (the executor's size trace: nothing runs), and plan
// memory from that liveness.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "engine/exec/executor.h"
#include "engine/plan/lower.h"
#include "engine/plan/plan_file.h"

namespace q8 {

// The backends a plan runs on, in order of preference: for device "cpu", the INT8 reference, then
// the CPU ops; for "opencl[:N]", that OpenCL device first. Error for another device, or for
// OpenCL in a build without it.
BackendList plan_backends(const std::string& device = "cpu");
// -1 for "cpu", N for "opencl" (0) or "opencl:N"; Error for anything else.
int device_index(const std::string& device);
// "cpu", or the OpenCL device's description ("opencl:0: NVIDIA H200 (…)").
std::string describe_device(const std::string& device);

struct BuiltPlan {
  Plan plan;
  Lowered lowered;                         // its report, for printing
  std::vector<std::string_view> placement;  // per node of plan.graph: the backend it runs on
  std::string placement_report;             // node by node, with the reasons of declining backends
  std::string fallbacks;                    // the lines of placement_report for nodes a backend declined
  std::vector<std::string> unsized;         // values whose size only running tells: left out of the memory plan
};

// The input shapes a plan is built for, by graph input name.
using InputDescs = std::map<std::string, TensorDesc>;

// inputs: every graph input's type and shape, the shapes the memory plan is for.
BuiltPlan build_plan(const Graph& qdq, const std::string& source_sha256, const InputDescs& inputs);

// What q8 run and q8 bench execute from a file: a plan as it is; an ONNX model as it is, or, with
// int8, lowered (lowering_report, when given, receives the report then). A plan run on the OpenCL
// device its device section names (name and driver) runs that section's tuning there.
Graph load_runnable(const std::string& path, bool int8, std::string* lowering_report = nullptr, const std::string& device = "cpu");

// The device section `q8 build --device` writes into a plan: "" for "cpu"; for "opencl[:N]",
// that device's tuning (its database entry, else q8's entry, else the default), recorded so that
// the plan runs the same tiles there whatever the database later holds. Error for a device with
// no tuned kernel.
std::string device_section(const std::string& device);

// "cpu 7 nodes; int8-reference 7 nodes": how many nodes each backend runs.
std::string placement_summary(const std::vector<std::string_view>& placement);

// "x=1x1x28x28,y=…": the shapes of inputs, in name order.
std::string describe_shapes(const InputDescs& inputs);
std::string describe_shapes(const TensorMap& inputs);

}  // namespace q8
