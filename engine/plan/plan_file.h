// Plan files (docs/plan.md): a checked container of named sections, and the plan it holds — the
// lowered graph (fused integer ops, int8 weights, int32 biases, multipliers, scales), the
// lowering report and the memory plan. The same QDQ model and shapes give byte-identical plans.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/ir/graph.h"
#include "engine/exec/memory_plan.h"

namespace q8 {

inline constexpr char kPlanMagic[8] = {'Q', '8', 'P', 'L', 'A', 'N', '\x1a', '\n'};
inline constexpr uint32_t kPlanVersion = 1;

struct PlanSection {
  std::string name;  // at most 15 ASCII characters
  std::string bytes;
};

// The container: header, section table, payloads, each section and the whole file hashed.
std::string write_plan_container(const std::vector<PlanSection>& sections);
// Verifies everything the container promises; Error naming what is wrong and where.
std::vector<PlanSection> read_plan_container(const std::string& bytes);
// Whether bytes start with the plan magic.
bool is_plan(const std::string& bytes);

struct Plan {
  Graph graph;                          // the lowered graph
  std::string source_sha256;            // of the QDQ model it was built from
  std::string lowering_report;          // format_lowering_report's text
  std::string shapes;                   // the input shapes the memory plan is for ("x=1x3x32x32")
  std::vector<BufferLifetime> buffers;  // every intermediate value at those shapes
  MemoryPlan memory;
  std::string device;                   // the device section: a device's tuning (q8 build --device;
                                        // engine/opencl/mma_tuning.h), "" for none
};

std::string serialize_plan(const Plan& plan);
// what names the origin in errors ("model.q8plan").
Plan parse_plan(const std::string& bytes, const std::string& what);

}  // namespace q8
