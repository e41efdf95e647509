// qgemm_mma's tiles and the tuning database: names parse back to the same tile, what the kernel or
// the device cannot take is refused with the reason, and the database gives the entry for the
// device's name and driver (no other) with its shape classes' tiles, keeps other devices' entries
// when it is written, and names the file when it is not a database; a plan's device section gives
// the same bytes for the same tuning, reads back to it on its device only, and names the plan
// when it is bad.
#include "engine/opencl/mma_tuning.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <unistd.h>

#include "engine/ir/error.h"

namespace q8 {
namespace {

DeviceCaps h100(const std::string& driver = "580.159.04") {
  DeviceCaps c;
  c.platform = "NVIDIA CUDA", c.name = "NVIDIA H100 80GB HBM3", c.vendor = "NVIDIA Corporation", c.driver = driver, c.nvidia = true;
  c.nv_sm = 90, c.max_work_group = 1024, c.local_memory = 49152;
  return c;
}

std::string refusal(const std::string& name) {
  try {
    parse_mma_tile(name, h100());
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(MmaTile, NamesParseBackToTheSameTile) {
  EXPECT_EQ(kMmaTile.name(), "128x128x32/2x2/2");
  for (const MmaTile& t : mma_candidates(h100())) {
    EXPECT_EQ(parse_mma_tile(t.name(), h100()), t) << t.name();
    EXPECT_LE(t.local_bytes(), 49152) << t.name();
  }
  EXPECT_GE(mma_candidates(h100()).size(), 12u);
  const MmaTile t = parse_mma_tile("64x128x64/2x2/3", h100());
  EXPECT_EQ(t.rows, 64);
  EXPECT_EQ(t.cols, 128);
  EXPECT_EQ(t.depth, 64);
  EXPECT_EQ(t.stages, 3);
  EXPECT_EQ(t.threads(), 128);
  EXPECT_EQ(t.local_bytes(), 3 * 192 * 80);
}

TEST(MmaTile, RefusesWhatTheKernelOrTheDeviceCannotTake) {
  EXPECT_NE(refusal("128x128").find("expected ROWSxCOLSxDEPTH/WARPS_MxWARPS_N/STAGES"), std::string::npos);
  EXPECT_NE(refusal("128x128x32/2x2/2 ").find("expected"), std::string::npos);
  EXPECT_NE(refusal("96x128x32/4x2/2").find("whole m16 x n8 tiles"), std::string::npos);
  EXPECT_NE(refusal("128x128x48/2x2/2").find("depth must be 32 or 64"), std::string::npos);
  EXPECT_NE(refusal("128x128x32/2x2/5").find("stages must be 2, 3 or 4"), std::string::npos);
  EXPECT_NE(refusal("128x128x64/2x2/3").find("61440 bytes of __local memory, the device has 49152"), std::string::npos);
  EXPECT_NE(refusal("256x256x32/8x8/2").find("2048 work-items"), std::string::npos);
  EXPECT_EQ(refusal("128x128x32/2x2/4"), "");  // exactly 48 KiB
}

class TuningDb : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("q8-tuning-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string path() const { return (dir_ / "sub" / "tuning.json").string(); }
  std::filesystem::path dir_;
};

TEST_F(TuningDb, GivesTheEntryForTheDeviceAndDriverOnly) {
  // No file yet: q8's own entry for the name, else the default.
  EXPECT_EQ(device_mma_tuning(h100(), path()).describe(),
            "128x64x64/2x2/3 deep 128x128x64/2x2/2 narrow 128x64x64/2x2/3 small 64x64x64/2x2/3 wide 64x64x64/2x2/3");
  EXPECT_EQ(device_mma_tuning(h100(), path()).source, "q8's entry for NVIDIA H100 80GB HBM3");
  DeviceCaps h200 = h100();
  h200.name = "NVIDIA H200";
  EXPECT_EQ(device_mma_tuning(h200, path()).describe(),
            "128x64x64/2x2/3 deep 128x64x64/2x2/3 narrow 128x64x64/2x2/3 small 64x64x64/2x2/4 wide 128x64x64/2x2/3");
  EXPECT_EQ(device_mma_tuning(h200, path()).source, "q8's entry for NVIDIA H200");
  DeviceCaps other = h100();
  other.name = "NVIDIA A100-SXM4-80GB";
  EXPECT_EQ(device_mma_tuning(other, path()).tile, kMmaTile);
  EXPECT_EQ(device_mma_tuning(other, path()).source, "default");
  record_mma_tuning(path(), h100(), {parse_mma_tile("128x128x64/2x4/2", h100()), {}, ""}, R"({"geometric_mean_tops": 98.3})");
  record_mma_tuning(path(), h100("575.1"), {parse_mma_tile("64x128x32/2x2/3", h100()), {}, ""}, "{}");
  const MmaTuning t = device_mma_tuning(h100(), path());
  EXPECT_EQ(t.tile.name(), "128x128x64/2x4/2");
  EXPECT_EQ(t.source, "tuning database " + path());
  EXPECT_EQ(device_mma_tuning(h100("575.1"), path()).tile.name(), "64x128x32/2x2/3");
  EXPECT_EQ(device_mma_tuning(h100("590.0"), path()).source, "q8's entry for NVIDIA H100 80GB HBM3");  // another driver
  // Writing one device's entry again replaces it and keeps the other's.
  record_mma_tuning(path(), h100(), {parse_mma_tile("128x128x32/4x2/3", h100()), {}, ""}, "{}");
  EXPECT_EQ(device_mma_tuning(h100(), path()).tile.name(), "128x128x32/4x2/3");
  EXPECT_EQ(device_mma_tuning(h100("575.1"), path()).tile.name(), "64x128x32/2x2/3");
}

TEST_F(TuningDb, NamesTheFileWhenItIsNotADatabaseOrHoldsABadTile) {
  std::filesystem::create_directories(dir_ / "sub");
  std::ofstream(path()) << "{\"format\": \"something else\"}";
  try {
    device_mma_tuning(h100(), path());
    FAIL() << "accepted a file that is no tuning database";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(path() + ": not a q8 tuning database"), std::string::npos) << e.what();
  }
  std::ofstream(path()) << R"({"format": "q8-tuning", "version": 1, "devices": [{"device": "NVIDIA H100 80GB HBM3",
                                "driver": "580.159.04", "qgemm_mma": "128x128x64/2x2/4"}]})";
  try {
    device_mma_tuning(h100(), path());
    FAIL() << "accepted a tile the device cannot take";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(path() + ": qgemm_mma tile '128x128x64/2x2/4'"), std::string::npos) << e.what();
  }
}

TEST_F(TuningDb, KeepsEachShapeClassTile) {
  MmaTuning tuned{parse_mma_tile("128x128x64/2x2/2", h100()), {}, ""};
  tuned.classes["narrow"] = parse_mma_tile("64x64x64/2x2/3", h100());
  tuned.classes["deep"] = parse_mma_tile("128x256x32/2x4/2", h100());
  record_mma_tuning(path(), h100(), tuned, "{}");
  const MmaTuning t = device_mma_tuning(h100(), path());
  EXPECT_EQ(t, tuned);
  EXPECT_EQ(t.describe(), "128x128x64/2x2/2 deep 128x256x32/2x4/2 narrow 64x64x64/2x2/3");
  std::ofstream(path()) << R"({"format": "q8-tuning", "version": 1, "devices": [{"device": "NVIDIA H100 80GB HBM3",
                                "driver": "580.159.04", "qgemm_mma": "128x128x64/2x2/2", "classes": {"tall": "64x64x64/2x2/3"}}]})";
  try {
    device_mma_tuning(h100(), path());
    FAIL() << "accepted a class that does not exist";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(path() + ": \"tall\" is no shape class"), std::string::npos) << e.what();
  }
}

TEST(PlanDeviceSection, SameTuningSameBytesReadBackOnItsDeviceOnly) {
  MmaTuning tuned{parse_mma_tile("128x128x64/2x2/2", h100()), {}, "tuning database /somewhere/tuning.json"};
  tuned.classes["small"] = parse_mma_tile("64x64x64/2x2/3", h100());
  tuned.classes["wide"] = parse_mma_tile("128x128x32/4x2/3", h100());
  MmaTuning same = tuned;
  same.source = "q8's entry for NVIDIA H100 80GB HBM3";  // where it came from is not recorded
  const std::string section = mma_tuning_section(h100(), tuned);
  EXPECT_EQ(section, mma_tuning_section(h100(), same));
  EXPECT_NE(section, mma_tuning_section(h100(), MmaTuning{tuned.tile, {}, ""}));
  EXPECT_NE(section, mma_tuning_section(h100("575.1"), tuned));
  const std::optional<MmaTuning> back = parse_mma_tuning_section(section, h100(), "m.q8plan");
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(*back, tuned);
  EXPECT_EQ(back->source, "plan m.q8plan");
  EXPECT_FALSE(parse_mma_tuning_section(section, h100("575.1"), "m.q8plan").has_value());  // another driver: the device's own tuning
  DeviceCaps a100 = h100();
  a100.name = "NVIDIA A100-SXM4-80GB";
  EXPECT_FALSE(parse_mma_tuning_section(section, a100, "m.q8plan").has_value());
  for (const std::string& bad : {std::string("[1, 2]"), std::string("{\"format\": \"q8-tuning\"}"), std::string("not json")}) {
    try {
      parse_mma_tuning_section(bad, h100(), "m.q8plan");
      FAIL() << "accepted " << bad;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("m.q8plan: the device section is not one q8 wrote"), std::string::npos) << e.what();
    }
  }
  std::string too_big = section;
  too_big.replace(too_big.find("64x64x64/2x2/3"), 14, "128x128x64/2x2/4");
  try {
    parse_mma_tuning_section(too_big, h100(), "m.q8plan");
    FAIL() << "accepted a tile the device cannot take";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("m.q8plan: device section: qgemm_mma tile '128x128x64/2x2/4'"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace q8
