// MaxPool of domain com.ms.internal.nhwc: MaxPool on channels-last X and Y
// (engine/ops/channels_last.h). 2-D float32 with one output runs here; anything else runs
// through the channels-first MaxPool between two transposes.
#include <limits>

#include "engine/ops/pooling.h"

namespace q8 {

namespace {
class NhwcMaxPool final : public Op {
 public:
  NhwcMaxPool(const Node& node, const OpContext& ctx)
      : window_(Window::from_node(node)), single_output_(node.outputs.size() == 1), name_(node.describe()),
        channels_first_(find_op("MaxPool")->create(node, ctx)) {}

  std::vector<Tensor> run(const Inputs& in) const override {
    const Tensor& x = required_input(in, 0, "MaxPool", "X");
    if (x.rank() == 4 && single_output_ && x.dtype() == DType::Float32) {
      const PoolShape p = resolve_pool(window_, channels_first_dims(x.dims()), name_);
      return {pool_2d_channels_last(
          x, p, -std::numeric_limits<float>::infinity(), [](float best, float v) { return std::max(best, v); },
          [](float*, int64_t, int64_t, int64_t) {})};
    }
    return run_channels_first([this](const Inputs& first) { return channels_first_->run(first); }, in, {0});
  }

 private:
  Window window_;
  bool single_output_;
  std::string name_;
  std::unique_ptr<Op> channels_first_;
};
}  // namespace

std::unique_ptr<Op> create_nhwc_max_pool(const Node& node, const OpContext& ctx) { return std::make_unique<NhwcMaxPool>(node, ctx); }

}  // namespace q8
