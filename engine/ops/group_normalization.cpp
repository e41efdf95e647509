// GroupNormalization: the channels of each sample in num_groups groups, each group normalized
// over its channels' values (normalize_rows.h), then y = x̂ · scale + bias, per channel from
// opset 21 ([C]) and per group at opset 18 ([num_groups]); input [N, C, D1…].
#include "engine/ops/elementwise.h"
#include "engine/ops/normalize_rows.h"

namespace q8 {

namespace {

class GroupNormalization final : public Op {
 public:
  GroupNormalization(int64_t groups, float epsilon, bool per_channel) : groups_(groups), epsilon_(epsilon), per_channel_(per_channel) {}
  std::vector<Tensor> run(const Inputs& in) const override {
    const Tensor& x = float_input(in, 0, "GroupNormalization", "X");
    const Tensor& scale = float_input(in, 1, "GroupNormalization", "scale");
    const Tensor& bias = float_input(in, 2, "GroupNormalization", "bias");
    check(x.rank() >= 2, "GroupNormalization: X must have rank ≥ 2, got " + dims_to_string(x.dims()));
    const int64_t n = x.dim(0), c = x.dim(1);
    check(c % groups_ == 0, "GroupNormalization: " + std::to_string(c) + " channels do not split into " + std::to_string(groups_) + " groups");
    const int64_t params = per_channel_ ? c : groups_;
    check(scale.numel() == params && bias.numel() == params,
          "GroupNormalization: scale and bias must hold " + std::to_string(params) + " values (" +
              (per_channel_ ? "one per channel, opset 21" : "one per group, opset 18") + ")");
    const int64_t plane = c ? x.numel() / std::max<int64_t>(1, n * c) : 0, per_group = c / groups_, len = per_group * plane;
    Tensor y = Tensor::uninitialized(DType::Float32, x.dims());
    for (int64_t r = 0; r < n * groups_; ++r) {
      float* dst = y.data<float>() + r * len;
      normalize_row(x.data<float>() + r * len, dst, len, epsilon_);
      const int64_t g = r % groups_;
      for (int64_t j = 0; j < len; ++j) {
        const int64_t p = per_channel_ ? g * per_group + j / std::max<int64_t>(plane, 1) : g;
        dst[j] = dst[j] * scale.data<float>()[p] + bias.data<float>()[p];
      }
    }
    return {std::move(y)};
  }

 private:
  int64_t groups_;
  float epsilon_;
  bool per_channel_;
};

}  // namespace

std::unique_ptr<Op> create_group_normalization(const Node& node, const OpContext& ctx) {
  check(node.has("num_groups"), node.describe() + ": attribute 'num_groups' is required");
  const int64_t groups = node.attr_int("num_groups", 0);
  check(groups > 0, node.describe() + ": num_groups must be positive");
  check(node.attr_int("stash_type", 1) == 1, node.describe() + ": stash_type other than float32 is not supported");
  return std::make_unique<GroupNormalization>(groups, node.attr_float("epsilon", 1e-5f), ctx.opset >= 21);
}

}  // namespace q8
