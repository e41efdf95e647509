// The cross-backend harness: every backend under test (the INT8 reference, the CPU INT8 backend,
// each OpenCL device)
// runs every case of the registry (tests/cases/) for every op type it registers, as the executor
// would run the node, and must give what the case expects: the formula's bits for the q8 ops, the
// CPU op's bits for the rest (a NaN matching any NaN), a float GEMM within the dot product's
// bound. Coverage, not counts: a registered op without cases fails, and a backend may decline a
// case only for a capability it lacks (Backend::missing_capabilities). A failure names the
// backend, the case and the first differing index. With no OpenCL device the device test skips.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <set>

#include "engine/exec/cpu_backend.h"
#include "engine/exec/node_runner.h"
#include "engine/cpu/int8_primitive.h"
#include "engine/plan/cpu_int8/backend.h"
#include "engine/plan/reference/backend.h"
#include "tests/cases/op_case.h"
#include "tests/cases/qweighted_cases.h"
#if Q8_WITH_OPENCL
#include "engine/opencl/device.h"
#include "engine/runtime/devices.h"
#endif

namespace q8 {
namespace {

// The first difference between got and what the case expects, or "".
std::string difference(const OpCase& c, const Tensor& got, const Tensor& want, size_t output) {
  if (got.dims() != want.dims()) return "dims " + dims_to_string(got.dims()) + ", expected " + dims_to_string(want.dims());
  if (got.dtype() != want.dtype())
    return "type " + std::string(dtype_name(got.dtype())) + ", expected " + std::string(dtype_name(want.dtype()));
  if (got.dtype() != DType::Float32) {
    for (size_t i = 0; i < want.nbytes(); ++i)
      if (got.raw()[i] != want.raw()[i]) return "first difference at byte " + std::to_string(i);
    return "";
  }
  for (int64_t i = 0; i < got.numel(); ++i) {
    const float g = got.data<float>()[i], w = want.data<float>()[i];
    // A NaN matches any NaN (IEEE leaves its sign and payload free), within a bound or not; an
    // infinity only the same one.
    const bool same = (std::isnan(g) && std::isnan(w)) || (c.expect == Expect::Within && output == 0
                                                              ? g == w || std::fabs(double(g) - double(w)) <= c.tolerance[size_t(i)]
                                                              : std::memcmp(&g, &w, sizeof g) == 0);
    if (!same) return "element " + std::to_string(i) + " is " + std::to_string(g) + ", expected " + std::to_string(w);
  }
  return "";
}

struct Coverage {
  int cases = 0, declined = 0;
  std::set<std::string> reasons;
};

// Every case of every op type backend registers.
Coverage check_backend(const Backend& backend) {
  Coverage coverage;
  const std::vector<std::string> lacks = backend.missing_capabilities();
  for (const OpKey& op : backend.op_types()) {
    const std::vector<OpCase> cases = cases_for(op);
    EXPECT_FALSE(cases.empty()) << backend.name() << " registers " << op.describe() << " but tests/cases/cases.inc has no case for it";
    for (const OpCase& c : cases) {
      const Inputs in = c.args();
      const Support support = backend.supports(node_view(c.node, in, c.constant, c.opset));
      if (!support.ok) {
        EXPECT_NE(std::find(lacks.begin(), lacks.end(), support.reason), lacks.end())
            << backend.name() << " declines '" << c.name << "' (" << op.describe() << "): '" << support.reason
            << "', which is no capability it lacks";
        ++coverage.declined, coverage.reasons.insert(support.reason);
        continue;
      }
      const std::vector<Tensor> want = c.expect == Expect::Bits ? c.expected : run_node(cpu_backend(), c.node, in, c.constant, c.opset);
      // Inputs where the executor hands them (a plan's entry quantized on the host), then, on a
      // device, all in its memory (the kernels that path leaves out).
      for (bool upload_all : {false, true}) {
        if (upload_all && backend.memory() == kHostMemory) continue;
        const std::vector<Tensor> got = run_node(backend, c.node, in, c.constant, c.opset, upload_all);
        for (size_t k = 0; k < want.size(); ++k) {
          const std::string why = difference(c, got.at(k), want[k], k);
          EXPECT_EQ(why, "") << backend.name() << ": '" << c.name << "' output " << k << (upload_all ? ", inputs in the device's memory" : "");
          if (!why.empty()) return coverage;
        }
      }
      ++coverage.cases;
    }
  }
  std::printf("%s: %d cases of %zu op types as expected, %d declined for what the device lacks\n", std::string(backend.name()).c_str(),
              coverage.cases, backend.op_types().size(), coverage.declined);
  for (const std::string& r : coverage.reasons) std::printf("  declined: %s\n", r.c_str());
  return coverage;
}

TEST(BackendHarness, Int8ReferenceMatchesTheFormula) {
  const Coverage c = check_backend(int8_reference_backend());
  EXPECT_EQ(c.declined, 0);
}

// The CPU INT8 backend under the ISA setting the test runs with (ctest runs it under each one
// oneDNN and q8 accept): s8 sources with VNNI or AMX, u8 ones summed by sign below them; it must
// take every case and match the formula's bytes under each.
TEST(BackendHarness, CpuInt8MatchesTheFormula) {
  std::printf("oneDNN's instruction set: %s (%s)\n", onednn_isa_name().c_str(), onednn_int8_vnni() ? "s8 sources" : "u8 sources, summed by sign");
  const Coverage c = check_backend(cpu_int8_backend());
  EXPECT_EQ(c.declined, 0);
}

#if Q8_WITH_OPENCL
TEST(BackendHarness, EveryOpenClDeviceMatchesTheCpuAndTheFormula) {
  const size_t devices = list_devices().size();
  if (devices == 0) GTEST_SKIP() << "no OpenCL device: the device backends are not checked here";
  for (size_t i = 0; i < devices; ++i) {
    SCOPED_TRACE("opencl:" + std::to_string(i) + " " + list_devices()[i].describe());
    check_backend(opencl_backend(int(i)));
  }
}
#endif

// Every family in cases.inc is an op some backend under test registers, so none is dead.
TEST(BackendHarness, EveryCaseFamilyIsAnOpABackendRuns) {
  std::set<OpKey> registered;
  for (const OpKey& op : int8_reference_backend().op_types()) registered.insert(op);
  for (const OpKey& op : cpu_int8_backend().op_types()) registered.insert(op);
#if Q8_WITH_OPENCL
  for (size_t i = 0; i < list_devices().size(); ++i)
    for (const OpKey& op : opencl_backend(int(i)).op_types()) registered.insert(op);
  if (list_devices().empty()) GTEST_SKIP() << "no OpenCL device: the default domain's families have no backend here";
#endif
  for (const CaseFamily& f : case_families())
    EXPECT_TRUE(registered.count({std::string(f.domain), std::string(f.op_type)})) << f.op_type << " has cases but no backend under test runs it";
}

TEST(BackendHarness, AccumulatorsAbove2To24AreReallyExercised) {
  const WeightedCase big = gemm_cases().back();
  std::mt19937 rng(1);
  Tensor x = random_int8({2, 1100}, rng, 126, 127), w = random_int8({1100, 3}, rng, 126, 127);
  std::vector<int64_t> acc;
  direct_accumulators(big, x, w, acc);
  for (int64_t a : acc) EXPECT_GT(a, int64_t(1) << 24);
}

}  // namespace
}  // namespace q8
