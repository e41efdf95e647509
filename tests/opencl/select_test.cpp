// select: which variant runs where. PTX variants only on NVIDIA, and only when the shape has work
// for them; everything else takes the portable kernels.
#include "engine/opencl/select.h"

#include <gtest/gtest.h>

namespace q8 {
namespace {

DeviceCaps pocl() {
  DeviceCaps c;
  c.platform = "Portable Computing Language", c.vendor = "AuthenticAMD", c.nvidia = false;
  return c;
}

DeviceCaps nvidia() {
  DeviceCaps c;
  c.platform = "NVIDIA CUDA", c.vendor = "NVIDIA Corporation", c.nvidia = true;
  return c;
}

TEST(Select, PtxOnlyOnNvidia) {
  EXPECT_EQ(program_defines(pocl()), "");
  const std::string tile = " -DQ8_MMA_BM=128 -DQ8_MMA_BN=128 -DQ8_MMA_WARPS_M=2 -DQ8_MMA_WARPS_N=2 -DQ8_MMA_BK=32 -DQ8_MMA_STAGES=2";
  EXPECT_EQ(program_defines(nvidia()), " -DQ8_NVIDIA_PTX=1" + tile);
  DeviceCaps exact = nvidia();
  exact.exact_divide = true;
  EXPECT_EQ(program_defines(exact), " -cl-fp32-correctly-rounded-divide-sqrt -DQ8_NVIDIA_PTX=1" + tile);
  exact.extensions = "cl_khr_byte_addressable_store cl_khr_fp64 cl_khr_int64_base_atomics";
  EXPECT_EQ(program_defines(exact), " -cl-fp32-correctly-rounded-divide-sqrt -DQ8_FP64=1 -DQ8_NVIDIA_PTX=1" + tile);
  for (int64_t k : {1, 3, 4, 5, 127, 4096}) EXPECT_EQ(select_gemm(k, 64, pocl()), "qgemm") << k;
}

TEST(Select, Dp4aWhereKHoldsAGroupOfFour) {
  EXPECT_EQ(select_gemm(3, 64, nvidia()), "qgemm");
  EXPECT_EQ(select_gemm(4, 64, nvidia()), "qgemm_dp4a");
  EXPECT_EQ(select_gemm(1027, 1, nvidia()), "qgemm_dp4a");  // no compute capability known: no mma
}

TEST(Select, TensorCoresFromSm80WhereKHoldsA32WideStep) {
  DeviceCaps hopper = nvidia(), turing = nvidia();
  hopper.nv_sm = 90, turing.nv_sm = 75;
  EXPECT_EQ(select_gemm(31, 64, hopper), "qgemm_dp4a");
  EXPECT_EQ(select_gemm(32, 64, hopper), "qgemm_mma");
  EXPECT_EQ(select_gemm(1027, 1, hopper), "qgemm_mma");
  EXPECT_EQ(select_gemm(1027, 64, turing), "qgemm_dp4a");
  EXPECT_EQ(select_conv(64, 9, 1, hopper), "qconv_mma");
  EXPECT_EQ(select_conv(3, 9, 1, hopper), "qconv_mma");  // K = 27: one step, padded with zeros
  EXPECT_EQ(select_conv(16, 1, 1, hopper), "qconv_mma");  // a 1 × 1 conv from 16 channels
  EXPECT_EQ(select_conv(7, 1, 1, hopper), "qconv");       // K = 7: the portable loop
  EXPECT_EQ(select_conv(64, 9, 2, hopper), "qconv");     // grouped
  EXPECT_EQ(select_conv(64, 9, 1, turing), "qconv");
  EXPECT_EQ(select_conv(64, 9, 1, pocl()), "qconv");
  DeviceCaps pretend = pocl();
  pretend.nv_sm = 90;  // PoCL never takes PTX, whatever else it reports
  EXPECT_EQ(select_gemm(1027, 64, pretend), "qgemm");
}

TEST(Select, TheSmallTileWhereTheDevicesWouldBeHalfEmptyOrLeaveUnitsIdle) {
  DeviceCaps h100 = nvidia();
  h100.nv_sm = 90, h100.compute_units = 132;
  const MmaTile big{128, 128, 2, 4, 64, 2};
  ASSERT_NE(kSmallMmaTile, big);
  const MmaTuning untuned{big, {}, "test"};  // no class tiles: the rules
  EXPECT_EQ(select_mma_tile(4096, 4096, 4096, untuned, h100), big);
  EXPECT_EQ(select_mma_tile(200704, 64, 256, untuned, h100), big);           // 1 × 1 from 64 to 256 at 56 × 56, batch 64
  EXPECT_EQ(select_mma_tile(200704, 576, 64, untuned, h100), kSmallMmaTile);  // 64 outputs: half of each 128-wide tile empty
  EXPECT_EQ(select_mma_tile(200704, 576, 65, untuned, h100), big);
  EXPECT_EQ(select_mma_tile(3136, 2048, 512, untuned, h100), kSmallMmaTile);  // 7 × 7 at batch 64: 100 work-groups for 132 units
  EXPECT_EQ(select_mma_tile(12544, 2304, 256, untuned, h100), big);           // 14 × 14 at batch 64: 196
  EXPECT_EQ(select_mma_tile(3136, 512, 2048, untuned, h100), big);            // 400
  EXPECT_EQ(select_mma_tile(49, 512, 2048, untuned, h100), kSmallMmaTile);    // batch 1
  EXPECT_EQ(select_mma_tile(4096, 4096, 4096, MmaTuning{kSmallMmaTile, {}, ""}, h100), kSmallMmaTile);
  // 64 outputs over 6.4 million rows (the stem at batch 512): 100,352 small-tile row groups, more than a launch takes.
  EXPECT_EQ(select_mma_tile(64 * 100352, 147, 64, untuned, h100), big);
  EXPECT_EQ(select_mma_tile(64 * 65535, 147, 64, untuned, h100), kSmallMmaTile);
}

TEST(Select, ShapeClassesInTheirOrder) {
  DeviceCaps h100 = nvidia();
  h100.nv_sm = 90, h100.compute_units = 132;
  EXPECT_EQ(mma_shape_class(200704, 576, 64, h100), "narrow");   // n ≤ 64, however many tiles
  EXPECT_EQ(mma_shape_class(49, 4608, 64, h100), "narrow");      // before small
  EXPECT_EQ(mma_shape_class(3136, 2048, 512, h100), "small");    // 25 × 4 = 100 tiles of 128 × 128 < 132
  EXPECT_EQ(mma_shape_class(1024, 1024, 1024, h100), "small");   // 64
  EXPECT_EQ(mma_shape_class(4224, 1024, 512, h100), "deep");     // 33 × 4 = 132 tiles: not small
  EXPECT_EQ(mma_shape_class(12544, 2304, 256, h100), "deep");
  EXPECT_EQ(mma_shape_class(12544, 1023, 256, h100), "wide");    // K one short of deep
  EXPECT_EQ(mma_shape_class(200704, 64, 256, h100), "wide");
  h100.compute_units = 8;  // a small device: the 7 × 7 layers fill it
  EXPECT_EQ(mma_shape_class(3136, 2048, 512, h100), "deep");
}

TEST(Select, AClassTileWhereTheTuningHasOne) {
  DeviceCaps h100 = nvidia();
  h100.nv_sm = 90, h100.compute_units = 132;
  const MmaTile big{128, 128, 2, 4, 64, 2}, deep{128, 256, 2, 4, 32, 2}, narrow{128, 64, 2, 2, 64, 2};
  MmaTuning tuned{big, {{"deep", deep}, {"narrow", narrow}}, "test"};
  EXPECT_EQ(select_mma_tile(4096, 4096, 4096, tuned, h100), deep);
  EXPECT_EQ(select_mma_tile(200704, 576, 64, tuned, h100), narrow);
  EXPECT_EQ(select_mma_tile(200704, 64, 256, tuned, h100), big);            // wide: not tuned, the rules
  EXPECT_EQ(select_mma_tile(3136, 2048, 512, tuned, h100), kSmallMmaTile);   // small: not tuned, the rules
  // A class tile whose row groups a launch cannot take gives way to the rules.
  tuned.classes["narrow"] = MmaTile{32, 64, 2, 2, 64, 2};
  EXPECT_EQ(select_mma_tile(64 * 65535, 147, 64, tuned, h100), kSmallMmaTile);
  EXPECT_EQ(select_mma_tile(4096, 147, 64, tuned, h100), (MmaTile{32, 64, 2, 2, 64, 2}));
}

TEST(Select, SplitKWhereFewTilesHaveALongK) {
  DeviceCaps h100 = nvidia();
  h100.nv_sm = 90, h100.compute_units = 132;
  const MmaTile small = kSmallMmaTile, big{128, 128, 2, 4, 64, 2};  // both 64 deep
  EXPECT_EQ(mma_split_k(4096, 4096, 4096, big, h100), 1);           // 1,024 tiles
  EXPECT_EQ(mma_split_k(196, 2304, 256, small, h100), 9);           // 14 × 14 at batch 1: 16 tiles, 36 steps of 4
  EXPECT_EQ(mma_split_k(49, 4608, 512, small, h100), 15);           // 7 × 7 at batch 1: 8 tiles, 72 steps; 16 wanted, 15 parts of 5
  EXPECT_EQ(mma_split_k(1, 2048, 1000, small, h100), 8);            // the classifier at batch 1: 16 tiles, 32 steps
  EXPECT_EQ(mma_split_k(49, 512, 2048, small, h100), 2);            // 32 tiles, 8 steps: two parts of 4
  EXPECT_EQ(mma_split_k(49, 448, 2048, small, h100), 1);            // 7 steps: too short to split
  EXPECT_EQ(mma_split_k(2, 1100, 3, small, h100), 4);               // 1 tile, 18 steps: 4 parts of 5, the last of 3
  EXPECT_EQ(mma_split_k(64 * 67, 4096, 64, small, h100), 1);        // 67 tiles: more than half the units busy
  EXPECT_EQ(mma_split_k(64 * 66, 4096, 64, small, h100), 2);        // 66
  // Every part has steps: ⌈steps / Z⌉ · (Z − 1) < steps, for every K.
  for (int64_t k = 1; k <= 64 * 200; k += 37) {
    const int z = mma_split_k(1, k, 64, small, h100);
    const int64_t steps = (k + 63) / 64, per = (steps + z - 1) / z;
    EXPECT_LT(per * (z - 1), steps) << k;
    EXPECT_LE(z, kMaxSplits);
    if (z > 1) {
      EXPECT_GE(per, kMinSplitSteps) << k;
    }
  }
  // Z copies of y stay within kMaxSplitBytes: 4,096 × 1,024 int32 is 16 MiB, two fit.
  EXPECT_EQ(mma_split_k(4096, 8192, 1024, MmaTile{256, 256, 4, 4, 64, 2}, h100), 2);
  h100.compute_units = 8;  // a small device: 16 tiles fill it
  EXPECT_EQ(mma_split_k(196, 2304, 256, small, h100), 1);
}

}  // namespace
}  // namespace q8
