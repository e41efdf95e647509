// Upsample (opsets 7-9, deprecated by Resize): scales as an attribute (7, 8) or input 1 (9);
// output = floor(in · scale), asymmetric coordinates, nearest rounds down; modes nearest and
// linear (also spelled bilinear).
#include <cmath>

#include "engine/ops/op.h"
#include "engine/ops/resize_common.h"

namespace q8 {

namespace {
class Upsample final : public Op {
 public:
  explicit Upsample(const Node& node) : scales_(node.attr_floats("scales")), name_(node.describe()) {
    attrs_.mode = node.attr_string("mode", "nearest");
    if (attrs_.mode == "bilinear") attrs_.mode = "linear";
    attrs_.coordinate_mode = "asymmetric";
    attrs_.nearest_mode = "floor";
    check(attrs_.mode == "nearest" || attrs_.mode == "linear", name_ + ": mode '" + attrs_.mode + "' is not nearest or linear");
    check_resize_attrs(attrs_, name_);
  }

  std::vector<Tensor> run(const Inputs& in) const override {
    const Tensor& x = required_input(in, 0, "Upsample", "X");
    std::vector<float> scales = scales_.empty() ? required_input(in, 1, "Upsample", "scales").to_floats() : scales_;
    check(scales.size() == x.rank(), name_ + ": scales has " + std::to_string(scales.size()) + " values for rank " +
                                         std::to_string(x.rank()));
    Dims out(x.rank());
    for (size_t d = 0; d < x.rank(); ++d) out[d] = int64_t(std::floor(double(x.dim(d)) * double(scales[d])));
    return {interpolate(x, out, scales, {}, attrs_)};
  }

 private:
  std::vector<float> scales_;
  ResizeAttrs attrs_;
  std::string name_;
};
}  // namespace

std::unique_ptr<Op> create_upsample(const Node& node, const OpContext&) { return std::make_unique<Upsample>(node); }

}  // namespace q8
