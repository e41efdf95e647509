// GlobalAveragePool of domain com.ms.internal.nhwc: X [N, S…, C] → Y [N, 1…, C], each channel's
// mean accumulated exactly as the channels-first op does (engine/ops/plane_sum.h: in double,
// position i into partial sum i mod 64, then halving). Channels are summed side by side, a block of
// them per task.
#include <algorithm>
#include <vector>

#include "engine/cpu/parallel.h"
#include "engine/ops/channels_last.h"
#include "engine/ops/elementwise.h"
#include "engine/ops/plane_sum.h"

namespace q8 {

namespace {
// Sized, so that the ops after it (the layout pass's Transpose back to channels-first) are sized
// when a plan traces its memory without running.
class NhwcGlobalAveragePool final : public SizedOp {
 public:
  std::vector<TensorDesc> output_descs(const std::vector<TensorDesc>& in) const override {
    check(!in.empty() && in[0].dtype == DType::Float32, "GlobalAveragePool: input 0 (X) must be float32");
    const Dims& d = in[0].dims;
    check(d.size() >= 3, "GlobalAveragePool: a channels-last input needs rank >= 3, got " + dims_to_string(d));
    Dims out(d.size(), 1);
    out.front() = d.front(), out.back() = d.back();
    return {{DType::Float32, out}};
  }

  void run_into(const Inputs& in, std::vector<Tensor>& out) const override {
    const Tensor& x = float_input(in, 0, "GlobalAveragePool", "X");
    Tensor& y = out[0];  // every element is written below
    const int64_t n = x.dim(0), c = x.dims().back(), size = n * c != 0 ? x.numel() / (n * c) : 0;
    constexpr int64_t kBlock = 64;
    const int64_t blocks = (c + kBlock - 1) / kBlock;
    const float* px = x.data<float>();
    float* py = y.data<float>();
    parallel_for(n * blocks, 1, [&](int64_t t0, int64_t t1) {
      std::vector<double> s(size_t(kPlaneSumLanes * kBlock));  // s[lane · kBlock + channel]
      double lanes[kPlaneSumLanes];
      for (int64_t t = t0; t < t1; ++t) {
        const int64_t sample = t / blocks, c0 = (t % blocks) * kBlock, width = std::min(kBlock, c - c0);
        std::fill(s.begin(), s.end(), 0.0);
        const float* src = px + sample * size * c + c0;
        for (int64_t i = 0; i < size; ++i) {
          double* lane = s.data() + (i % kPlaneSumLanes) * kBlock;
          for (int64_t j = 0; j < width; ++j) lane[j] += double(src[i * c + j]);
        }
        for (int64_t j = 0; j < width; ++j) {
          for (int64_t l = 0; l < kPlaneSumLanes; ++l) lanes[l] = s[size_t(l * kBlock + j)];
          py[sample * c + c0 + j] = float(halving_sum(lanes) / double(size));
        }
      }
    });
  }
};
}  // namespace

std::unique_ptr<Op> create_nhwc_global_average_pool(const Node&, const OpContext&) {
  return std::make_unique<NhwcGlobalAveragePool>();
}

}  // namespace q8
