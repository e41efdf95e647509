// Resize (opsets 10, 11, 13, 18, 19): inputs X, roi, scales, sizes (opset 10: X, scales). Output
// size is sizes, or floor(in · scale); from opset 18 they may name some axes only (`axes`), and
// keep_aspect_ratio_policy may fit sizes to one scale. Opset 10 behaves as Upsample: asymmetric
// coordinates, nearest rounds down. antialias = 1 is refused.
#include "engine/ops/op.h"
#include "engine/ops/resize_common.h"

namespace q8 {

namespace {
class Resize final : public Op {
 public:
  Resize(const Node& node, int64_t opset) : opset_(opset), attrs_(resize_attrs(node, opset)), name_(node.describe()) {}

  std::vector<Tensor> run(const Inputs& in) const override {
    const Tensor& x = required_input(in, 0, "Resize", "X");
    const ResizeTarget t = resize_target(x.dims(), in, opset_, attrs_, name_);
    return {interpolate(x, t.out, t.scales, t.roi, attrs_)};
  }

 private:
  int64_t opset_;
  ResizeAttrs attrs_;
  std::string name_;
};
}  // namespace

std::unique_ptr<Op> create_resize(const Node& node, const OpContext& ctx) { return std::make_unique<Resize>(node, ctx.opset); }

}  // namespace q8
