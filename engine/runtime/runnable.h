// What q8 run, bench and compare execute from a file, and the executor that runs it: a plan as it
// is, with its device section's tuning given to the device it runs on (where the section is that
// device's) and its memory plan placing the executor's buffers (where the plan was built for the
// same backends); an ONNX model as it is, or, with int8, lowered.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "engine/exec/executor.h"
#include "engine/plan/plan_file.h"

namespace q8 {

struct Runnable {
  Graph graph;
  std::optional<Plan> plan;  // when the file is a plan (its graph moved into `graph`)
};

// A plan to run on device: its device section's tuning given to that device where the section is
// that device's (`what` names the plan in messages).
Runnable plan_runnable(Plan plan, const std::string& device, const std::string& what);

// lowering_report, when given, receives the lowering's report of a QDQ model run with int8.
Runnable load_runnable(const std::string& path, bool int8, std::string* lowering_report = nullptr, const std::string& device = "cpu");

// An executor over the runnable's graph on device's backends; for a plan, its memory plan placed
// where it fits (at the plan's shapes, on the backends it was built for). `note`, when given,
// receives what happened to the memory plan.
std::unique_ptr<Executor> make_executor(Runnable runnable, const std::string& device, std::string* note = nullptr);

}  // namespace q8
