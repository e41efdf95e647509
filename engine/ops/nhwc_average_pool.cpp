// AveragePool of domain com.ms.internal.nhwc: AveragePool on channels-last X and Y
// (engine/ops/channels_last.h). 2-D runs here, each output the sum of its taps in the channels-first
// op's order over the same count; other ranks run through the channels-first AveragePool between
// two transposes.
#include "engine/ops/elementwise.h"
#include "engine/ops/pooling.h"

namespace q8 {

namespace {
class NhwcAveragePool final : public Op {
 public:
  NhwcAveragePool(const Node& node, const OpContext& ctx)
      : window_(Window::from_node(node)), include_pad_(node.attr_int("count_include_pad", 0) != 0), name_(node.describe()),
        channels_first_(find_op("AveragePool")->create(node, ctx)) {}

  std::vector<Tensor> run(const Inputs& in) const override {
    const Tensor& x = float_input(in, 0, "AveragePool", "X");
    if (x.rank() != 4) return run_channels_first([this](const Inputs& first) { return channels_first_->run(first); }, in, {0});
    const PoolShape p = resolve_pool(window_, channels_first_dims(x.dims()), name_);
    const std::vector<int64_t> padded = include_pad_ ? padded_window_counts(p.window, p.in_spatial) : std::vector<int64_t>{};
    return {pool_2d_channels_last(x, p, 0.0f, [](float sum, float v) { return sum + v; },
                                  [&](float* sums, int64_t c, int64_t taps, int64_t o) {
                                    const int64_t count = include_pad_ ? padded[size_t(o)] : taps;
                                    for (int64_t ch = 0; ch < c; ++ch) sums[ch] = count ? sums[ch] / float(count) : 0.0f;
                                  })};
  }

 private:
  Window window_;
  bool include_pad_;
  std::string name_;
  std::unique_ptr<Op> channels_first_;
};
}  // namespace

std::unique_ptr<Op> create_nhwc_average_pool(const Node& node, const OpContext& ctx) {
  return std::make_unique<NhwcAveragePool>(node, ctx);
}

}  // namespace q8
