// Building a plan from a QDQ model: lower it, place its nodes on the backends it will run on, and
// work out at the given input shapes, from shapes alone (the executor's size trace: nothing runs),
// the arena those backends' executor places its own buffers in. The plan stores that memory plan,
// and a run at the same shapes on the same backends uses it (engine/runtime/runnable.h).
#pragma once

#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "engine/exec/executor.h"
#include "engine/plan/lower.h"
#include "engine/plan/plan_file.h"

namespace q8 {

struct BuiltPlan {
  Plan plan;
  Lowered lowered;                          // its report, for printing
  std::vector<std::string_view> placement;  // per node of plan.graph: the backend it runs on
  std::vector<bool> shape_work;             // per node: Executor::shape_work
  std::string placement_report;             // node by node, with the reasons of declining backends
  std::string fallbacks;                    // the lines of placement_report for nodes a backend declined
  SizeTrace sizes;                          // every value's size and lifetime at the plan's shapes
};

// The input shapes a plan is built for, by graph input name.
using InputDescs = std::map<std::string, TensorDesc>;

// inputs: every graph input's type and shape, the shapes the memory plan is for (empty: no memory
// plan, the executor plans at the first run); backends: those the plan will run on
// (engine/runtime/backends.h), whose placement the plan reports. On the CPU INT8 backend the
// memory plan is that of the graph after its layout pass (optimize_for_inference's cpu_int8), as
// it runs there; the plan's graph stays as the lowering made it.
BuiltPlan build_plan(const Graph& qdq, const std::string& source_sha256, const InputDescs& inputs, const BackendList& backends);

// Every graph input's type and shape for a plan: the dims `fixed` gives (by input name), else the
// declared ones with dynamic dims at 1; inputs in `given` are left out. Errors name `what` (the
// option the dims came from) for an unknown name, an input without a declared shape, or dims
// past the memory limit.
InputDescs plan_input_descs(const Graph& graph, const std::map<std::string, Dims>& fixed, const std::string& what = "--shape",
                            const std::set<std::string>& given = {});

// build_plan at `inputs`, except that a graph with dynamic inputs whose dims at their default of 1
// do not fit it (a window longer than one step of audio), when no shape was asked for, gets a
// plan without a memory plan, which the first run makes; `deferred` then says why.
BuiltPlan build_plan_or_defer_memory(const Graph& qdq, const std::string& source_sha256, const InputDescs& inputs,
                                     bool shapes_asked, const BackendList& backends, std::string& deferred);

// "x=1x1x28x28,y=…": the shapes of inputs, in name order.
std::string describe_shapes(const InputDescs& inputs);
std::string describe_shapes(const TensorMap& inputs);
// Back: the shapes a plan records, by input name; Error naming `what` for text that is not one.
InputDescs parse_shapes(const std::string& text, const Graph& graph, const std::string& what);

}  // namespace q8
