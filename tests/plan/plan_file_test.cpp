// Plan files: the container round-trips, and every kind of damage gives one Error that says what
// is wrong; the memory plan never overlaps two live buffers.
#include "engine/plan/plan_file.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "engine/ir/error.h"

namespace q8 {
namespace {

std::string error_of(const std::string& bytes) {
  try {
    read_plan_container(bytes);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

void expect_error(const std::string& bytes, const std::string& fragment) {
  const std::string what = error_of(bytes);
  EXPECT_NE(what.find(fragment), std::string::npos) << "error: '" << what << "', expected it to mention '" << fragment << "'";
}

TEST(PlanFile, ContainerRoundTripsAndIsDeterministic) {
  const std::vector<PlanSection> sections = {{"graph", std::string("\0\1\2abc", 6)}, {"memory", "arena_bytes 0\n"}, {"empty", ""}};
  const std::string a = write_plan_container(sections), b = write_plan_container(sections);
  EXPECT_EQ(a, b);
  EXPECT_TRUE(is_plan(a));
  const std::vector<PlanSection> back = read_plan_container(a);
  ASSERT_EQ(back.size(), sections.size());
  for (size_t i = 0; i < back.size(); ++i) {
    EXPECT_EQ(back[i].name, sections[i].name);
    EXPECT_EQ(back[i].bytes, sections[i].bytes);
  }
}

TEST(PlanFile, DamageGivesOneClearError) {
  const std::string good = write_plan_container({{"graph", "0123456789"}, {"memory", "abc"}});
  expect_error(good.substr(0, 20), "truncated");
  expect_error(good.substr(0, 48 + 10), "truncated: the section table ends at byte 176");
  expect_error("PK\3\4" + good.substr(4), "not a q8 plan");
  std::string future = good;
  future[8] = 2;
  expect_error(future, "plan version 2 is not one this q8 reads (1)");
  std::string flipped = good;
  flipped.back() ^= 1;
  expect_error(flipped, "SHA-256 does not match");
  expect_error(good.substr(0, good.size() - 1), "SHA-256 does not match");
  EXPECT_EQ(error_of(good), "");
}

TEST(PlanFile, EveryFlippedByteIsCaught) {
  const std::string good = write_plan_container({{"graph", "0123456789"}, {"memory", "abc"}});
  for (size_t i = 0; i < good.size(); ++i) {
    std::string bad = good;
    bad[i] ^= 0x40;
    EXPECT_NE(error_of(bad), "") << "byte " << i;
  }
}

TEST(PlanFile, MemoryPlanNeverOverlapsLiveBuffers) {
  std::mt19937 rng(5);
  for (int trial = 0; trial < 50; ++trial) {
    std::vector<BufferLifetime> buffers;
    for (int i = 0; i < 40; ++i) {
      const int first = int(rng() % 30), length = int(rng() % 6);
      buffers.push_back({"v" + std::to_string(i), int64_t(1 + rng() % 5000), first, first + length});
    }
    const MemoryPlan plan = plan_memory(buffers);
    int64_t peak_live = 0;
    for (int t = 0; t < 36; ++t) {
      int64_t live = 0;
      for (const auto& b : buffers) live += (b.first <= t && t <= b.last) ? (b.bytes + 63) / 64 * 64 : 0;
      peak_live = std::max(peak_live, live);
    }
    EXPECT_GE(plan.arena_bytes, peak_live);
    EXPECT_LE(plan.arena_bytes, plan.total_bytes);
    for (size_t i = 0; i < buffers.size(); ++i) {
      EXPECT_EQ(plan.offsets[i] % 64, 0);
      for (size_t j = i + 1; j < buffers.size(); ++j) {
        const bool together = buffers[i].first <= buffers[j].last && buffers[j].first <= buffers[i].last;
        const bool apart = plan.offsets[i] + buffers[i].bytes <= plan.offsets[j] || plan.offsets[j] + buffers[j].bytes <= plan.offsets[i];
        EXPECT_TRUE(!together || apart) << "buffers " << i << " and " << j << " share bytes while both live";
      }
    }
  }
}

}  // namespace
}  // namespace q8
