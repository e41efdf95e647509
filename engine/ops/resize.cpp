// Resize (opsets 10, 11, 13): inputs X, roi, scales, sizes (opset 10: X, scales). Output size is
// sizes, or floor(in · scale). Opset 10 behaves as Upsample: asymmetric coordinates, nearest
// rounds down. Cubic mode is not supported.
#include <cmath>

#include "engine/ops/op.h"
#include "engine/ops/resize_common.h"

namespace q8 {

namespace {
class Resize final : public Op {
 public:
  Resize(const Node& node, int64_t opset) : opset_(opset), name_(node.describe()) {
    attrs_.mode = node.attr_string("mode", "nearest");
    if (opset >= 11) {
      attrs_.coordinate_mode = node.attr_string("coordinate_transformation_mode", "half_pixel");
      attrs_.nearest_mode = node.attr_string("nearest_mode", "round_prefer_floor");
      attrs_.extrapolation_value = node.attr_float("extrapolation_value", 0.0f);
      check(node.attr_int("exclude_outside", 0) == 0 || attrs_.mode != "cubic", name_ + ": exclude_outside needs cubic mode");
    } else {
      attrs_.coordinate_mode = "asymmetric";
      attrs_.nearest_mode = "floor";
    }
    check_resize_attrs(attrs_, name_);
  }

  std::vector<Tensor> run(const Inputs& in) const override {
    const Tensor& x = required_input(in, 0, "Resize", "X");
    const size_t rank = x.rank();
    std::vector<float> roi, scales;
    Dims sizes;
    if (opset_ < 11) {
      scales = required_input(in, 1, "Resize", "scales").to_floats();
    } else {
      if (const Tensor* r = optional_input(in, 1); r && r->numel() > 0) roi = r->to_floats();
      if (const Tensor* s = optional_input(in, 2); s && s->numel() > 0) scales = s->to_floats();
      if (const Tensor* s = optional_input(in, 3); s && s->numel() > 0) sizes = s->to_int64s();
    }
    check(scales.empty() != sizes.empty(), name_ + ": exactly one of scales and sizes must be given");
    Dims out(rank);
    if (!sizes.empty()) {
      check(sizes.size() == rank, name_ + ": sizes has " + std::to_string(sizes.size()) + " values for rank " + std::to_string(rank));
      scales.resize(rank);
      for (size_t d = 0; d < rank; ++d) out[d] = sizes[d], scales[d] = float(double(sizes[d]) / double(x.dim(d)));
    } else {
      check(scales.size() == rank, name_ + ": scales has " + std::to_string(scales.size()) + " values for rank " + std::to_string(rank));
      for (size_t d = 0; d < rank; ++d) {
        check(scales[d] > 0, name_ + ": scale " + std::to_string(scales[d]) + " is not positive");
        out[d] = int64_t(std::floor(double(x.dim(d)) * double(scales[d])));
      }
    }
    return {interpolate(x, out, scales, roi, attrs_)};
  }

 private:
  int64_t opset_;
  ResizeAttrs attrs_;
  std::string name_;
};
}  // namespace

std::unique_ptr<Op> create_resize(const Node& node, const OpContext& ctx) { return std::make_unique<Resize>(node, ctx.opset); }

}  // namespace q8
