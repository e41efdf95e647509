// OpenClDevice::upload_filled: a tensor of several chunks (each copied while the host fills the
// next) arrives whole, and the staging area is reused by the next upload only after the last
// one's copies are done.
#include <gtest/gtest.h>

#include "engine/runtime/devices.h"

namespace q8 {
namespace {

Tensor filled(OpenClDevice& device, int64_t count, int seed) {
  return device.upload_filled(DType::Int8, {count}, [&](std::byte* base, int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) base[i] = std::byte((i * 131 + seed) & 0xff);
  });
}

TEST(OpenClUpload, ChunkedFillsArriveWholeAndInOrder) {
  if (list_devices().empty()) GTEST_SKIP() << "no OpenCL device";
  OpenClDevice& device = opencl_device(0);
  const int64_t count = (int64_t(5) << 20) + 77;  // two whole chunks of 2 MiB and a partial one
  const Tensor a = filled(device, count, 1), b = filled(device, count, 2);  // b reuses a's staging area
  const Tensor ha = device.download(a), hb = device.download(b);
  for (int64_t i = 0; i < count; ++i) {
    ASSERT_EQ(std::to_integer<int>(ha.raw()[i]), int((i * 131 + 1) & 0xff)) << "a, byte " << i;
    ASSERT_EQ(std::to_integer<int>(hb.raw()[i]), int((i * 131 + 2) & 0xff)) << "b, byte " << i;
  }
}

}  // namespace
}  // namespace q8
