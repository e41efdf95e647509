// A plan's device section (q8 build --device): it travels in the plan file only when there is one,
// a plan whose section is this device's runs with the section's tiles, one whose section is another
// device's runs on this device with the device's own tuning, and a section that is not one q8
// wrote is an error naming the plan when the plan is run on OpenCL.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <unistd.h>

#include "engine/io/atomic_write.h"
#include "engine/ir/error.h"
#include "engine/opencl/device.h"
#include "engine/opencl/mma_tuning.h"
#include "engine/plan/plan_file.h"
#include "engine/runtime/backends.h"
#include "engine/runtime/devices.h"
#include "engine/runtime/runnable.h"

namespace q8 {
namespace {

Plan identity_plan(const std::string& device) {
  Plan p;
  p.graph.opsets.push_back(OpsetImport{"", 17});
  p.graph.inputs.push_back(ValueInfo{"x", DType::Float32, std::vector<Dim>{Dim{1, ""}}});
  p.graph.outputs.push_back(ValueInfo{"y", DType::Float32, std::vector<Dim>{Dim{1, ""}}});
  Node n;
  n.name = "id", n.op_type = "Identity", n.inputs = {"x"}, n.outputs = {"y"};
  p.graph.nodes.push_back(n);
  p.source_sha256 = "0", p.lowering_report = "", p.shapes = "x=1", p.device = device;
  return p;
}

DeviceCaps h100() {
  DeviceCaps c;
  c.platform = "NVIDIA CUDA", c.name = "NVIDIA H100 80GB HBM3", c.vendor = "NVIDIA Corporation", c.driver = "580.159.04", c.nvidia = true;
  c.nv_sm = 90, c.max_work_group = 1024, c.local_memory = 49152;
  return c;
}

std::vector<std::string> section_names(const std::string& bytes) {
  std::vector<std::string> names;
  for (const PlanSection& s : read_plan_container(bytes)) names.push_back(s.name);
  return names;
}

TEST(PlanDeviceSection, TravelsInThePlanOnlyWhenThereIsOne) {
  EXPECT_EQ(section_names(serialize_plan(identity_plan(""))), (std::vector<std::string>{"graph", "source", "lowering", "memory"}));
  MmaTuning tuned{parse_mma_tile("128x128x64/2x2/2", h100()), {{"small", kSmallMmaTile}}, ""};
  const std::string section = mma_tuning_section(h100(), tuned);
  const std::string bytes = serialize_plan(identity_plan(section));
  EXPECT_EQ(section_names(bytes), (std::vector<std::string>{"graph", "source", "lowering", "memory", "device"}));
  EXPECT_EQ(bytes, serialize_plan(identity_plan(section)));
  EXPECT_EQ(parse_plan(bytes, "p.q8plan").device, section);
  EXPECT_EQ(parse_plan(serialize_plan(identity_plan("")), "p.q8plan").device, "");
}

class PlanOnOpenCl : public ::testing::Test {
 protected:
  void SetUp() override {
    if (list_devices().empty()) GTEST_SKIP() << "no OpenCL device";
    path_ = (std::filesystem::temp_directory_path() / ("q8-device-section-" + std::to_string(::getpid()) + ".q8plan")).string();
  }
  void TearDown() override { std::filesystem::remove(path_); }
  std::string path_;
};

TEST_F(PlanOnOpenCl, AnotherDevicesSectionLeavesThisDevicesTuning) {
  const MmaTuning before = opencl_device(0).mma_tuning();
  DeviceCaps other = h100();
  other.name = "not " + opencl_device(0).caps().name;
  write_file_atomically(path_, serialize_plan(identity_plan(mma_tuning_section(other, {kSmallMmaTile, {}, ""}))));
  const Runnable r = load_runnable(path_, false, nullptr, "opencl");
  EXPECT_EQ(r.graph.nodes.size(), 1u);
  EXPECT_EQ(opencl_device(0).mma_tuning(), before);
  EXPECT_EQ(opencl_device(0).mma_tuning().source, before.source);
}

// A plan whose section is this device's and names a tile other than the device's: the device the
// plan's backends run on takes that tile, and keeps it (one owner: the runtime's device, not a
// copy that dies when the plan is loaded).
TEST_F(PlanOnOpenCl, ThisDevicesSectionIsTheTuningThePlanRunsWith) {
  const DeviceCaps& caps = opencl_device(0).caps();
  const MmaTuning before = opencl_device(0).mma_tuning();
  const MmaTile other = before.tile == kSmallMmaTile ? kMmaTile : kSmallMmaTile;
  ASSERT_NE(other, before.tile);
  const MmaTuning section_tuning{other, {{"small", other}}, ""};
  write_file_atomically(path_, serialize_plan(identity_plan(mma_tuning_section(caps, section_tuning))));
  Runnable r = load_runnable(path_, false, nullptr, "opencl");
  const std::unique_ptr<Executor> exec = make_executor(std::move(r), "opencl");
  EXPECT_EQ(opencl_device(0).mma_tile(), other);
  EXPECT_EQ(opencl_device(0).mma_tuning().classes, section_tuning.classes);
  const Tensor x = Tensor::from_vector<float>({1}, {2.5f});
  EXPECT_EQ(exec->run({{"x", x}}).at("y").data<float>()[0], 2.5f);
  EXPECT_EQ(opencl_device(0).mma_tile(), other) << "the tuning outlived the plan's loading";
  use_tuning(0, before);
}

TEST_F(PlanOnOpenCl, ASectionQ8DidNotWriteIsAnErrorNamingThePlan) {
  write_file_atomically(path_, serialize_plan(identity_plan("{\"format\": \"something\"}")));
  EXPECT_NO_THROW(load_runnable(path_, false, nullptr, "cpu"));  // the CPU reads no device section
  try {
    (void)load_runnable(path_, false, nullptr, "opencl");
    FAIL() << "ran a plan whose device section is not one q8 wrote";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(path_ + ": the device section is not one q8 wrote"), std::string::npos) << e.what();
  }
}

TEST(PlanDeviceSection, BuildRefusesADeviceWithNoTunedKernel) {
  EXPECT_EQ(device_section("cpu"), "");
  const std::vector<DeviceCaps> devices = list_devices();
  for (size_t i = 0; i < devices.size(); ++i) {
    if (devices[i].tensor_cores()) continue;
    try {
      device_section("opencl:" + std::to_string(i));
      FAIL() << "recorded a tuning for " << devices[i].describe();
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("has no tuned kernel to record"), std::string::npos) << e.what();
    }
  }
  try {
    device_section("opencl:" + std::to_string(devices.size()));
    FAIL() << "recorded a tuning for a device that does not exist";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("does not exist"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace q8
