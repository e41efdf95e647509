// GlobalAveragePool of domain com.ms.internal.nhwc: X [N, S…, C] → Y [N, 1…, C], each channel's
// mean accumulated exactly as the channels-first op does (engine/ops/global_average_pool.cpp):
// in double, position i into partial sum i mod 4, combined as (s0 + s1) + (s2 + s3). Channels
// are summed side by side, a block of them per task.
#include <algorithm>

#include "engine/cpu/parallel.h"
#include "engine/ops/channels_last.h"
#include "engine/ops/elementwise.h"

namespace q8 {

namespace {
class NhwcGlobalAveragePool final : public Op {
 public:
  std::vector<Tensor> run(const Inputs& in) const override {
    const Tensor& x = float_input(in, 0, "GlobalAveragePool", "X");
    check(x.rank() >= 3, "GlobalAveragePool: a channels-last input needs rank >= 3, got " + dims_to_string(x.dims()));
    Dims out(x.rank(), 1);
    out.front() = x.dim(0), out.back() = x.dims().back();
    Tensor y(DType::Float32, out);
    const int64_t n = x.dim(0), c = x.dims().back(), size = n * c != 0 ? x.numel() / (n * c) : 0;
    constexpr int64_t kBlock = 64;
    const int64_t blocks = (c + kBlock - 1) / kBlock;
    const float* px = x.data<float>();
    float* py = y.data<float>();
    parallel_for(n * blocks, 1, [&](int64_t t0, int64_t t1) {
      double s[4][kBlock];
      for (int64_t t = t0; t < t1; ++t) {
        const int64_t sample = t / blocks, c0 = (t % blocks) * kBlock, width = std::min(kBlock, c - c0);
        for (auto& partial : s) std::fill(partial, partial + width, 0.0);
        const float* src = px + sample * size * c + c0;
        for (int64_t i = 0; i < size; ++i)
          for (int64_t j = 0; j < width; ++j) s[i % 4][j] += double(src[i * c + j]);
        for (int64_t j = 0; j < width; ++j)
          py[sample * c + c0 + j] = float(((s[0][j] + s[1][j]) + (s[2][j] + s[3][j])) / double(size));
      }
    });
    return {std::move(y)};
  }
};
}  // namespace

std::unique_ptr<Op> create_nhwc_global_average_pool(const Node&, const OpContext&) {
  return std::make_unique<NhwcGlobalAveragePool>();
}

}  // namespace q8
