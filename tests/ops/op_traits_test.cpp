// Every registered op has traits (engine/ops/traits.inc), and in every layer a decision: the
// quantization rules (a rule of its own, a scale carrier by its traits, or its traits' reason for
// staying FP32), the lowering (the same), the OpenCL backend (a kernel, or why it runs on the CPU)
// and the CPU (a kernel: the op registry, or the INT8 reference for the q8 domain). A layer whose
// decision is missing fails here, naming the op and the layer. No traits or OpenCL line names an
// op q8 does not register.
#include <gtest/gtest.h>

#include <set>

#include "engine/exec/cpu_backend.h"
#include "engine/ops/traits.h"
#include "engine/plan/lower.h"
#include "engine/plan/reference/backend.h"
#include "quant/rules/rule.h"
#if Q8_WITH_OPENCL
#include "engine/opencl/ops/ops.h"
#endif

namespace q8 {
namespace {

std::vector<OpKey> every_registered_op() {
  std::vector<OpKey> ops = cpu_backend().op_types();
  for (const OpKey& op : int8_reference_backend().op_types()) ops.push_back(op);
  return ops;
}

TEST(OpTraits, EveryRegisteredOpHasADecisionInEveryLayer) {
  for (const OpKey& op : every_registered_op()) {
    SCOPED_TRACE(op.describe());
    const OpTraits* traits = find_traits(op.domain, op.op_type);
    ASSERT_NE(traits, nullptr) << op.describe() << " has no line in engine/ops/traits.inc";
    const bool stays_fp32 = !traits->fp32_reason.empty();
    const bool onnx = op.domain.empty();
    EXPECT_TRUE((onnx && has_own_rule(op.op_type)) || traits->commutes || stays_fp32)
        << op.describe() << ": the quantization layer has no rule (quant/rules/rules.inc), no carrier traits and no reason to stay FP32";
    EXPECT_TRUE((onnx && has_lowering_rule(op.op_type)) || traits->commutes || stays_fp32)
        << op.describe() << ": the lowering has no rule (engine/plan/rules/rules.inc), no carrier traits and no reason to stay FP32";
#if Q8_WITH_OPENCL
    EXPECT_TRUE(find_cl_op(op.domain, op.op_type) || cl_on_cpu(op.domain, op.op_type))
        << op.describe() << ": engine/opencl/ops/ops.inc has neither a kernel nor a reason it runs on the CPU";
#endif
  }
}

TEST(OpTraits, NoLineNamesAnOpQ8DoesNotRegister) {
  std::set<OpKey> registered;
  for (const OpKey& op : every_registered_op()) registered.insert(op);
  for (const OpTraits& t : op_traits())
    EXPECT_TRUE(registered.count({std::string(t.domain), std::string(t.op_type)})) << "traits.inc names " << t.op_type << ", which no registry holds";
#if Q8_WITH_OPENCL
  for (const ClOp& op : cl_ops())
    EXPECT_TRUE(registered.count({std::string(op.domain), std::string(op.op_type)})) << "the OpenCL registry runs " << op.op_type << ", which no registry holds";
  for (const ClOnCpu& op : cl_ops_on_cpu()) {
    EXPECT_TRUE(registered.count({std::string(op.domain), std::string(op.op_type)})) << "the OpenCL registry names " << op.op_type << ", which no registry holds";
    EXPECT_EQ(find_cl_op(op.domain, op.op_type), nullptr) << op.op_type << " has an OpenCL kernel and a reason it runs on the CPU";
  }
#endif
}

// The facts the layers used to keep in lists of their own, as the traits now state them once.
TEST(OpTraits, CarriersViewsAndDerivedObserversAreDecidedOnce) {
  const std::set<std::string> commuting = {"DepthToSpace", "Flatten", "Identity", "MaxPool", "Pad",  "Relu",      "Reshape", "Resize",
                                           "Slice",        "SpaceToDepth", "Squeeze", "Tile", "Transpose", "Trilu", "Unsqueeze"};
  const std::set<std::string> views = {"Flatten", "Identity", "Reshape", "Squeeze", "Unsqueeze"};
  const std::set<std::string> rearranging = {"DepthToSpace", "Flatten", "Identity", "Reshape", "SpaceToDepth",
                                             "Squeeze",      "Tile",    "Transpose", "Unsqueeze"};
  for (const OpTraits& t : op_traits()) {
    if (!t.domain.empty()) continue;
    const std::string op(t.op_type);
    EXPECT_EQ(t.commutes != nullptr, commuting.count(op) > 0) << op;
    EXPECT_EQ(t.view, views.count(op) > 0) << op;
    EXPECT_EQ(t.values == Values::Rearranged, rearranging.count(op) > 0) << op;
    EXPECT_EQ(t.values == Values::Relu, op == "Relu") << op;
    EXPECT_TRUE(!t.view || t.values == Values::Rearranged) << op << " is a view, so it moves values only";
  }
}

}  // namespace
}  // namespace q8
