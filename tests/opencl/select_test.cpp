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
  EXPECT_EQ(select_mma_tile(4096, 4096, big, h100), big);
  EXPECT_EQ(select_mma_tile(200704, 256, big, h100), big);           // 1 × 1 from 64 to 256 at 56 × 56, batch 64
  EXPECT_EQ(select_mma_tile(200704, 64, big, h100), kSmallMmaTile);  // 64 outputs: half of each 128-wide tile empty
  EXPECT_EQ(select_mma_tile(200704, 65, big, h100), big);
  EXPECT_EQ(select_mma_tile(3136, 512, big, h100), kSmallMmaTile);   // 7 × 7 at batch 64: 100 work-groups for 132 units
  EXPECT_EQ(select_mma_tile(12544, 256, big, h100), big);            // 14 × 14 at batch 64: 196
  EXPECT_EQ(select_mma_tile(3136, 2048, big, h100), big);            // 400
  EXPECT_EQ(select_mma_tile(49, 2048, big, h100), kSmallMmaTile);    // batch 1
  EXPECT_EQ(select_mma_tile(4096, 4096, kSmallMmaTile, h100), kSmallMmaTile);
  // 64 outputs over 6.4 million rows (the stem at batch 512): 100,352 small-tile row groups, more than a launch takes.
  EXPECT_EQ(select_mma_tile(64 * 100352, 64, big, h100), big);
  EXPECT_EQ(select_mma_tile(64 * 65535, 64, big, h100), kSmallMmaTile);
}

}  // namespace
}  // namespace q8
